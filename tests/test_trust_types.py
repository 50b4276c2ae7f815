"""Issue 27 §1, types at predict time and column labels: each rule is decided once and
applied at fit and at predict alike; nothing becomes NaN silently."""
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError, PredictionError


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    n = 100
    return pd.DataFrame({"y": rng.integers(0, 2, n), "b": rng.integers(0, 2, n).astype(bool),
                         "x": rng.normal(size=n)})


def _fit(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(*args, **kw)


def test_a_bool_predictor_given_as_0_1_integers_is_read_exactly(data):
    m = _fit("y ~ b + x", data)
    new = data.head(6)
    as_int = new.assign(b=new.b.astype(int))
    np.testing.assert_allclose(m.predict(as_int), m.predict(new))
    with pytest.raises(PredictionError, match=r"'b'.*\b2\b"):
        m.predict(new.assign(b=np.where(new.b, 2, 0)))
    with pytest.raises(PredictionError, match="'b'"):
        m.predict(new.assign(b=new.b.map({True: "yes", False: "no"})))


def test_a_value_outside_the_levels_is_never_silently_na(data):
    d = data.assign(g=np.resize(["p", "q"], len(data)))
    m = _fit("y ~ g + x", d)
    with pytest.raises(PredictionError, match="'g'"):
        m.predict(d.head(4).assign(g=[1, 2, 1, 2]))


def test_integer_column_labels_are_read_as_r_reads_names(data):
    d = data.rename(columns={"x": 0, "b": 1})
    m = _fit("y ~ .", d)
    assert list(m.coef.index) == ["(Intercept)", "`1`TRUE", "`0`"]      # the data's order
    ref = _fit("y ~ b + x", data)
    np.testing.assert_allclose(m.coef.to_numpy(), ref.coef.to_numpy())
    np.testing.assert_allclose(m.predict(d.head(5)), ref.predict(data.head(5)))
    assert list(d.columns) == ["y", 1, 0]                       # the user's frame untouched
    with pytest.raises(DataError, match="both"):
        _fit("y ~ .", d.assign(**{"0": 1.0}))


def test_a_time_zone_aware_predictor_refuses_naive_new_data(data):
    t = pd.Series(pd.date_range("2024-01-01", periods=len(data), freq="h", tz="Europe/Paris"))
    d = data.assign(t=t)
    m = _fit("y ~ t + x", d)
    with pytest.raises(PredictionError, match=r"'t'.*time zone"):
        m.predict(d.head(5).assign(t=t.head(5).dt.tz_localize(None)))
    naive = _fit("y ~ t + x", d.assign(t=t.dt.tz_localize(None)))
    with pytest.raises(PredictionError, match=r"'t'.*time zone"):
        naive.predict(d.head(5))
    np.testing.assert_allclose(m.predict(d.head(5).assign(t=t.head(5).dt.tz_convert("UTC"))),
                               m.predict(d.head(5)))             # the same instants


@pytest.mark.parametrize("argument", ["weights", "subset", "offset"])
def test_series_arguments_are_aligned_on_the_data_index(data, argument):
    rng = np.random.default_rng(1)
    values = {"weights": rng.uniform(0.5, 2, len(data)),
              "subset": rng.random(len(data)) < 0.7,
              "offset": rng.normal(size=len(data))}[argument]
    series = pd.Series(values, index=data.index)
    shuffled = series.sample(frac=1.0, random_state=3)
    ref = _fit("y ~ x", data, **{argument: values})
    m = _fit("y ~ x", data, **{argument: shuffled})
    np.testing.assert_allclose(m.coef.to_numpy(), ref.coef.to_numpy())
    other = pd.Series(values, index=data.index + 1000)
    with pytest.raises(DataError, match=rf"{argument}.*index"):
        _fit("y ~ x", data, **{argument: other})


def test_an_infinite_offset_is_refused_by_name(data):
    off = np.zeros(len(data))
    off[3] = np.inf
    with pytest.raises(DataError, match="offset.*infinite"):
        _fit("y ~ x", data, offset=off)
    with pytest.raises(DataError, match="offset.*infinite"):
        _fit("y ~ x + offset(o)", data.assign(o=off))


def test_cross_validation_aligns_series_weights_too(data):
    w = pd.Series(np.random.default_rng(2).uniform(0.5, 2, len(data)), index=data.index)
    a = ubreg.cv("y ~ x", data, weights=w, folds=3, seed=1, refit=False)
    b = ubreg.cv("y ~ x", data, weights=w.sample(frac=1.0, random_state=0), folds=3, seed=1,
                 refit=False)
    pd.testing.assert_frame_equal(a.folds, b.folds)


@pytest.mark.parametrize("big", [1e300, 1e200])
def test_a_huge_row_in_the_first_online_batch_is_refused_by_name(data, big):
    """One row of 1e300 made Theorem 3's rate λ/((p−1)λ_p²) underflow to 0: the weights
    stayed at zero for ever, silently."""
    first = data.head(40).copy()
    first.loc[first.index[0], "x"] = big
    learner = ubreg.OnlineLearner("y ~ x", family="entropy")
    with pytest.raises(DataError, match=r"lambda_p.*underflow|rate.*0"):
        learner.partial_fit(first)
    assert learner.design is None                   # nothing was learned
    ubreg.OnlineLearner("y ~ x", family="entropy", eta=0.1).partial_fit(first)   # a way out
