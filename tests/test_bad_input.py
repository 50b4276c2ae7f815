"""The shared bad-input matrix: every case against every registered method.

Each case either raises a ``ValueError`` subclass whose message names the
problem, or is a documented non-error (checked for finite outputs).  Methods
are taken from ``ubreg.METHODS`` (plus the weak learners of ``uls``), so a
method registered later is covered automatically; a method without an entry
in ``OPTIONS`` fails the first test, so none is forgotten.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError, FormulaError, PredictionError, ResponseError

# small, fast settings per method:
# (options, binary only, drops rows with NA predictors, takes frequency weights)
OPTIONS = {
    "uls": ({}, True, True, True),
    "uls-stumps": ({"learner": "stumps", "rounds": 5}, True, True, True),
    "uls-rules": ({"learner": "rules", "rounds": 3, "literals": 2}, True, True, True),
    "uls-trees": ({"learner": "trees", "rounds": 3, "depth": 2}, True, True, True),
    "udt": ({"xval": 0}, True, False, True),
    "uboost": ({"mstop": 5}, True, True, True),
    # GNNB's Algorithm 1 has no example weights: it refuses them by name
    "gnnb": ({"k": 3}, False, True, False),
    "unn": ({"k": 3}, False, True, False),
    "tboost": ({"rounds": 3}, True, True, True),
}


def _available():
    names = []
    for name in ubreg.METHODS:
        names.append(name)
    from ubreg.fit import ULS_LEARNERS
    names += [f"uls-{k}" for k in ULS_LEARNERS]
    return names


METHOD_NAMES = _available()


def _fit(method, formula, data, **kw):
    opts = dict(OPTIONS[method][0])
    opts.update(kw)
    name = method.split("-")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(formula, data, method=name, **opts)


@pytest.fixture
def frame():
    rng = np.random.default_rng(11)
    n = 60
    x1 = rng.normal(size=n)
    y = (x1 + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": rng.normal(size=n),
                         "g": rng.choice(["a", "b", "c"], size=n)})


def test_every_method_has_an_entry():
    missing = [m for m in METHOD_NAMES if m not in OPTIONS]
    assert not missing, f"add these methods to the bad-input matrix: {missing}"


methods = pytest.mark.parametrize("method", METHOD_NAMES)


@methods
def test_na_in_response_is_dropped_and_counted_or_refused(method, frame):
    d = frame.astype({"y": float})
    d.loc[[2, 3, 4], "y"] = np.nan
    m = _fit(method, "y ~ x1 + x2", d)
    assert m.n_dropped == 3
    with pytest.raises(DataError, match="response 'y'"):
        _fit(method, "y ~ x1 + x2", d, na_action="raise")


@methods
def test_na_in_predictor(method, frame):
    d = frame.copy()
    d.loc[[5, 6], "x2"] = np.nan
    m = _fit(method, "y ~ x1 + x2", d)
    p = m.predict(d)
    assert len(p) == len(d) and p.index.equals(d.index)
    if OPTIONS[method][2]:
        assert m.n_dropped == 2
        assert p.iloc[[5, 6]].isna().all().all() if p.ndim == 2 else p.iloc[[5, 6]].isna().all()
    with pytest.raises(DataError, match="x2"):
        _fit(method, "y ~ x1 + x2", d, na_action="raise")


@methods
def test_infinite_predictor(method, frame):
    d = frame.copy()
    d.loc[7, "x1"] = -np.inf
    with pytest.raises(DataError, match="infinite"):
        _fit(method, "y ~ x1 + x2", d)


@methods
def test_zero_rows(method, frame):
    with pytest.raises(DataError, match="0 rows"):
        _fit(method, "y ~ x1", frame.iloc[:0])


@methods
def test_zero_rows_after_na_removal(method, frame):
    d = frame.astype({"y": float}).assign(y=np.nan)
    with pytest.raises(DataError, match="no rows left|NA in all"):
        _fit(method, "y ~ x1", d)


@methods
def test_one_row(method, frame):
    with pytest.raises(ResponseError, match="class"):
        _fit(method, "y ~ x1", frame.iloc[:1])


@methods
def test_one_class_only(method, frame):
    with pytest.raises(ResponseError, match="class"):
        _fit(method, "y ~ x1", frame.assign(y=0))


@methods
def test_constant_predictor_fits_finitely(method, frame):
    m = _fit(method, "y ~ x1 + z", frame.assign(z=3.0))
    link = m.predict(frame.assign(z=3.0), type="link")
    assert np.all(np.isfinite(np.asarray(link, dtype=float)))


@methods
def test_three_classes(method, frame):
    if not OPTIONS[method][1]:
        m = _fit(method, "g ~ x1 + x2", frame)
        assert set(m.predict(frame, type="class")) <= {"a", "b", "c"}
        return
    with pytest.raises(ResponseError, match="3 distinct"):
        _fit(method, "g ~ x1", frame)


@methods
def test_non_numeric_where_numbers_are_needed(method, frame):
    with pytest.raises(FormulaError, match="log"):
        _fit(method, "y ~ np.log(g)", frame)


@methods
def test_complex_numbers(method, frame):
    with pytest.raises(DataError, match="complex"):
        _fit(method, "y ~ x1 + c", frame.assign(c=frame.x1 + 1j))


@methods
def test_missing_column(method, frame):
    with pytest.raises(FormulaError, match="nope"):
        _fit(method, "y ~ x1 + nope", frame)


@methods
def test_duplicated_column(method, frame):
    d = pd.concat([frame, frame[["x1"]]], axis=1)
    with pytest.raises(DataError, match="duplicated column.*x1"):
        _fit(method, "y ~ x1", d)


@methods
@pytest.mark.parametrize("weights, match", [
    (lambda n: -np.ones(n), "negative"), (lambda n: np.zeros(n), "all zero"),
    (lambda n: np.r_[np.nan, np.ones(n - 1)], "NaN"), (lambda n: np.ones(n + 1), "rows"),
])
def test_bad_weights(method, frame, weights, match):
    if not OPTIONS[method][3]:
        match = "does not take weights"
    with pytest.raises(ValueError, match=match):
        _fit(method, "y ~ x1", frame, weights=weights(len(frame)))


@methods
def test_new_level_at_predict(method, frame):
    m = _fit(method, "y ~ x1 + g", frame)
    with pytest.raises(PredictionError, match="zz"):
        m.predict(frame.head(3).assign(g=["a", "zz", "b"]))


@methods
def test_missing_column_at_predict(method, frame):
    m = _fit(method, "y ~ x1 + x2", frame)
    with pytest.raises(PredictionError, match="x2"):
        m.predict(frame.drop(columns="x2"))


@methods
def test_user_data_is_not_modified(method, frame):
    before = frame.copy(deep=True)
    w = np.ones(len(frame))
    m = _fit(method, "y ~ x1 + g", frame, weights=w if OPTIONS[method][3] else None)
    m.predict(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert np.all(w == 1)
