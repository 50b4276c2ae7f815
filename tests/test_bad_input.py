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
from ubreg.errors import ConvergenceWarning, DataError, FormulaError, OptionError, PredictionError, ResponseError, SeparationWarning

# small, fast settings per method:
# (options, binary only, drops rows with NA predictors); every method takes
# frequency weights (gnnb/unn: integer ones, which repeat rows)
OPTIONS = {
    "uls": ({}, True, True),
    "uls-stumps": ({"learner": "stumps", "rounds": 5}, True, True),
    "uls-rules": ({"learner": "rules", "rounds": 3, "literals": 2}, True, True),
    "uls-trees": ({"learner": "trees", "rounds": 3, "depth": 2}, True, True),
    "udt": ({"xval": 0}, True, False),
    "uboost": ({"mstop": 5}, True, True),
    "gnnb": ({"k": 3}, False, True),
    "unn": ({"k": 3}, False, True),
    "tboost": ({"rounds": 3}, True, True),
}


def _available():
    names = []
    for name in ubreg.METHODS:
        names.append(name)
    from ubreg.methods.uls import LEARNERS
    names += [f"uls-{k}" for k in LEARNERS if k != "linear"]
    return names


METHOD_NAMES = _available()


def _fit(method, formula, data, **kw):
    opts = dict(OPTIONS[method][0])
    opts.update(kw)
    name = method.split("-")[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(formula, data, method=name, **opts)


def _fit_recording(method, formula, data, **kw):
    """Like :func:`_fit`, but returns the warnings raised too."""
    opts = dict(OPTIONS[method][0])
    opts.update(kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ubreg.fit(formula, data, method=method.split("-")[0], **opts)
    return m, [w for w in caught if not issubclass(w.category, DeprecationWarning)]


def _warned(caught, category, pattern):
    import re
    return any(issubclass(w.category, category) and re.search(pattern, str(w.message))
               for w in caught)


def _values(pred):
    return np.asarray(pred, dtype=float)


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
    (lambda n: np.r_[np.inf, np.ones(n - 1)], "weights contain 1 infinite"),
    (lambda n: np.r_[np.ones(n - 2), -np.inf, np.inf], "weights contain 2 infinite"),
])
def test_bad_weights(method, frame, weights, match):
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
    m = _fit(method, "y ~ x1 + g", frame, weights=w)
    m.predict(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert np.all(w == 1)


# ---- infinite response --------------------------------------------------------------
@methods
@pytest.mark.parametrize("value, sign", [(np.inf, r"\+inf"), (-np.inf, "-inf")])
def test_infinite_response_is_refused(method, frame, value, sign):
    # binary methods used to report "3 distinct value(s) [0.0, 1.0, inf]" and the
    # multiclass ones (gnnb, unn) to take inf as a third class
    d = frame.astype({"y": float})
    d.loc[[4, 9], "y"] = value
    with pytest.raises(DataError, match=rf"response 'y' has infinite values \({sign}\) "
                                        r"in 2 row\(s\) \[4, 9\]"):
        _fit(method, "y ~ x1 + x2", d)


# ---- new data with other columns ----------------------------------------------------
@methods
def test_newdata_with_extra_and_reordered_columns_predicts_the_same(method, frame):
    m = _fit(method, "y ~ x1 + x2", frame)
    new = frame[["x2", "x1"]].assign(unrelated=["s"] * len(frame), other=np.nan)
    np.testing.assert_array_equal(_values(m.predict(new, type="response")),
                                  _values(m.predict(frame, type="response")))


@methods
def test_newdata_missing_a_needed_column_despite_extra_ones(method, frame):
    m = _fit(method, "y ~ x1 + x2 + g", frame)
    with pytest.raises(PredictionError, match=r"lacks column\(s\) \['g', 'x2'\]"):
        m.predict(frame[["x1"]].assign(x3=1.0, unrelated="s"))


@methods
def test_string_in_a_numeric_column_at_predict(method, frame):
    # patsy failed with "AttributeError: 'DataFrame' object has no attribute 'dtype'",
    # udt with a bare "could not convert string to float"
    m = _fit(method, "y ~ x1 + x2", frame)
    new = frame.head(4).assign(x2=["0.5", "b", None, "c"])
    with pytest.raises(PredictionError, match=r"column 'x2' holds non-numeric values "
                                              r"\(e\.g\. '0\.5'"):
        m.predict(new)


@methods
def test_numbers_as_objects_at_predict_are_numbers(method, frame):
    m = _fit(method, "y ~ x1 + x2", frame)
    np.testing.assert_allclose(_values(m.predict(frame.astype({"x2": object}))),
                               _values(m.predict(frame)))


@methods
def test_numbers_in_a_label_column_at_predict(method, frame):
    m = _fit(method, "y ~ x1 + g", frame)
    with pytest.raises(PredictionError, match=r"factor 'g' has new level\(s\) \[1, 2\]"):
        m.predict(frame.head(2).assign(g=[1, 2]))


def test_unfitted_online_learner_refuses_to_predict(frame):
    # the only model that exists before it is fitted (ubreg.fit returns fitted results)
    learner = ubreg.OnlineLearner("y ~ x1 + x2")
    with pytest.raises(ValueError, match="seen no batch yet: call partial_fit first"):
        learner.predict(frame)
    with pytest.raises(ValueError, match="call partial_fit first"):
        learner.summary()
    learner.partial_fit(frame)
    assert np.all(np.isfinite(_values(learner.predict(frame))))


# ---- options a method does not take ---------------------------------------------------
@methods
def test_unknown_option_names_the_method_and_its_options(method, frame):
    name = method.split("-")[0]
    with pytest.raises(OptionError, match=rf"method '{name}'.* has no option 'no_such_option'; "
                                          "it accepts: ") as info:
        _fit(method, "y ~ x1", frame, no_such_option=1)
    accepted = str(info.value).split("it accepts: ")[1].split(", ")
    assert set(OPTIONS[method][0]) <= set(accepted)     # the options this file uses


# ---- complete separation ------------------------------------------------------------
@pytest.fixture
def separated():
    x = np.arange(20.0)
    return pd.DataFrame({"y": (x > 9.5).astype(int), "x": x, "z": np.sin(x)})


@methods
def test_complete_separation_has_the_documented_outcome(method, separated):
    d = separated
    m, caught = _fit_recording(method, "y ~ x + z", d)
    link = _values(m.predict(d, type="link"))
    resp = _values(m.predict(d, type="response"))
    assert np.all(np.isfinite(link)) and np.all((resp >= 0) & (resp <= 1))
    text = str(m.summary())
    if method == "uls":
        # glm's outcome: warned by name, flagged, not converged; an error on request
        assert _warned(caught, SeparationWarning, r"complete separation by x\b")
        assert m.separation.kind == "complete" and not m.converged
        assert "separation" in text and "NOT converged" in text
        assert np.all(np.isfinite(m.coef))
        with pytest.raises(DataError, match="complete separation by x"):
            _fit(method, "y ~ x + z", d, on_separation="raise")
        return
    # every other method: the on_separation option does not apply
    with pytest.raises(OptionError, match="has no option 'on_separation'"):
        _fit(method, "y ~ x + z", d, on_separation="raise")
    if method.startswith("uls-"):
        # eq. (70) has its root at infinity: |δ| capped, warned, flagged, not converged
        assert _warned(caught, ConvergenceWarning, r"reached \|δ\| = .*separates the weighted")
        assert not m.converged
        assert "capped: a feature separates the weighted sample" in text
    elif method == "udt":
        # pure leaves: p = 0 or 1, link capped at ±∇φ(1 - 1e-12), no warning needed
        np.testing.assert_array_equal(resp, d.y)
        cap = float(ubreg.Permissible("entropy").dphi(1 - 1e-12))
        np.testing.assert_allclose(np.abs(link), cap, rtol=1e-6)
    elif method == "unn":
        # the zero-edge root is at infinity: δ capped at delta_max, reported
        assert "delta was capped" in text
        assert m.training_accuracy == 1.0
    elif method == "gnnb":
        # eq. (10)'s gentle steps are finite by construction: nothing to cap
        assert m.training_accuracy == 1.0
        assert np.max(np.abs(link)) < 10
    else:
        # boosting with a fixed number of small steps (uboost: nu, tboost: mu_j): the
        # score stays moderate; no "converged" with a huge coefficient
        assert np.max(np.abs(link)) < 10
        if method == "uboost":
            assert ((resp > 0.5) == d.y).all()


# ---- maxiter = 1 ----------------------------------------------------------------------
@methods
def test_maxiter_one_has_the_documented_outcome(method, frame):
    if method == "uls":
        m, caught = _fit_recording(method, "y ~ x1 + x2", frame, maxiter=1)
        assert _warned(caught, ConvergenceWarning, "ULS did not converge")
        assert not m.converged and "NOT converged" in str(m.summary())
        assert np.all(np.isfinite(m.coef))
        return
    # no iteration limit called maxiter (boosting has rounds/mstop, trees max_depth)
    with pytest.raises(OptionError, match="has no option 'maxiter'; it accepts: "):
        _fit(method, "y ~ x1 + x2", frame, maxiter=1)


# ---- aliasing: x3 = 2 x1 --------------------------------------------------------------
@methods
def test_aliased_column(method, frame):
    d = frame.assign(x3=2 * frame.x1)
    m = _fit(method, "y ~ x1 + x2 + x3", d)
    base = _fit(method, "y ~ x1 + x2", d)
    p = _values(m.predict(d, type="response"))
    assert np.all(np.isfinite(p))
    if method == "uls":
        # R's NA for the aliased coefficient
        assert np.isnan(m.coef["x3"]) and bool(m.aliased["x3"])
        assert "aliased: x3" in str(m.summary())
    if method in ("gnnb", "unn"):
        # a nearest-neighbour metric counts x1 twice: not the fit without x3, but
        # (predictors standardised) the same as with an exact copy of x1
        copy = frame.assign(x3=frame.x1)
        twice = _fit(method, "y ~ x1 + x2 + x3", copy)
        np.testing.assert_allclose(p, _values(twice.predict(copy, type="response")), atol=1e-9)
        return
    # linear fits drop the column; a split on 2·x1 is the same split as on x1
    np.testing.assert_allclose(p, _values(base.predict(d, type="response")), atol=1e-9)


# ---- a factor with one level ----------------------------------------------------------


@methods
@pytest.mark.parametrize("term, column", [("k", "a"), ("C(z)", 3.0)])
def test_one_level_factor_fits_as_if_absent(method, frame, term, column):
    d = frame.assign(k=column) if term == "k" else frame.assign(z=column)
    m = _fit(method, f"y ~ x1 + x2 + {term}", d)
    base = _fit(method, "y ~ x1 + x2", d)
    np.testing.assert_allclose(_values(m.predict(d)), _values(base.predict(d)), atol=1e-9)
