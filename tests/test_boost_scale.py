"""uboost and tboost are invariant to the scale of the weights: weights × 1e50 … 1e300 (or
× 1e-300) give the fit of the unscaled weights, not an overflow in G²/H, Σ w or the
co-simplex's m^(−t*)."""
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg

#: t-AdaBoost's loss, the family of method="tboost"
TE = ubreg.TemperedExponential

FORMULA = "y ~ x1 + x2 + g"


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(11)
    n = 160
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    y = (x1 - 0.5 * x2 + (g == "b") + rng.normal(size=n) > 0).astype(int)
    w = rng.integers(1, 4, size=n).astype(float)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g}), w


def _link(m, data):
    return np.asarray(m.predict(data, type="link"), dtype=float)


def _fit(data, w, **opts):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # no overflow on the way
        return ubreg.fit(FORMULA, data, weights=w, **opts)


@pytest.mark.parametrize("factor", [1e200, 1e300, 1e-300])
@pytest.mark.parametrize("learner", ["trees", "stumps", "linear"])
def test_uboost_weights_scale_free(frame, learner, factor):
    data, w = frame
    # min_child_weight bounds Σ w U'' in the user's units: 0 lets the tiny weights split too
    opts = dict(method="uboost", learner=learner, mstop=30, min_child_weight=0.0)
    a, b = _fit(data, w, **opts), _fit(data, w * factor, **opts)
    np.testing.assert_allclose(_link(b, data), _link(a, data), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.fit_info.risk_path, a.fit_info.risk_path, rtol=1e-9)


def test_uboost_leaf_bounds_count_average_rows_of_prior_weights(frame):
    """Prior weights are relative: min_samples_leaf and min_child_weight count average rows,
    so weights × 2^k with the same bounds are the same fit, bit for bit (the relative
    weights are the same bits).  Frequency weights are counts: bounds in their units."""
    data, w = frame
    opts = dict(method="uboost", mstop=20, depth=3)
    a = _fit(data, w, min_samples_leaf=8, min_child_weight=0.5, **opts)
    b = _fit(data, w * 2.0 ** 700, min_samples_leaf=8, min_child_weight=0.5, **opts)
    np.testing.assert_array_equal(_link(b, data), _link(a, data))
    c = ubreg.fit("y ~ .", data, freq_weights=w * 2.0 ** 700, min_samples_leaf=8 * 2.0 ** 700,
                  min_child_weight=0.5 * 2.0 ** 700, **opts)
    d = ubreg.fit("y ~ .", data, freq_weights=w, min_samples_leaf=8, min_child_weight=0.5,
                  **opts)
    np.testing.assert_array_equal(_link(c, data), _link(d, data))


@pytest.mark.parametrize("factor", [1e50, 1e200, 1e-300])
@pytest.mark.parametrize("t, learner, mu", [(0.5, "trees", "closed"), (1.5, "trees", "closed"),
                                            (0.5, "udt", "closed"), (0.5, "stumps", "exact"),
                                            (1.0, "stumps", "closed")])
def test_tboost_weights_scale_free(frame, t, learner, mu, factor):
    data, w = frame
    opts = dict(method="tboost", family=TE(t), learner=learner, mu=mu, rounds=4)
    a, b = _fit(data, w, **opts), _fit(data, w * factor, **opts)
    np.testing.assert_allclose(_link(b, data), _link(a, data), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.rounds_table["Z"], a.rounds_table["Z"], rtol=1e-9)


def test_tboost_equal_weights_are_the_unweighted_fit(frame):
    """Weights all equal (to any value) are the unweighted data, bit for bit."""
    data, _ = frame
    a = ubreg.fit(FORMULA, data, method="tboost", family=TE(0.5), rounds=4)
    b = ubreg.fit(FORMULA, data, method="tboost", family=TE(0.5), rounds=4,
                  weights=np.full(len(data), 3.0))
    np.testing.assert_array_equal(_link(b, data), _link(a, data))


def test_uboost_cv_risk_and_training_error_scale_free(frame):
    """The held-out risk Σ w U/Σ w and the training error do not overflow: Σ w is 3e307,
    within a double (weights adding up past one are refused, tests/test_trust_weights.py),
    but Σ w U and the sums of a fold's products are not."""
    data, w = frame
    opts = dict(method="uboost", mstop=10)
    a = ubreg.fit(FORMULA, data, weights=w, **opts)
    b = ubreg.fit(FORMULA, data, weights=w * 1e305, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert b.training_error == pytest.approx(a.training_error, rel=1e-12)
        ra, rb = ubreg.cv_risk(a, folds=3, seed=1), ubreg.cv_risk(b, folds=3, seed=1)
    np.testing.assert_allclose(rb.risk.to_numpy(), ra.risk.to_numpy(), rtol=1e-9)
    assert rb.mstop == ra.mstop


@pytest.mark.parametrize("factor", [1e155, 1e300, 1e-300])
@pytest.mark.parametrize("learner", ["linear", "trees"])
def test_uboost_predictor_scale_free(frame, learner, factor):
    """The componentwise linear learner's fit is equivariant in a predictor's unit
    (x → s x, b → b/s); its normal equations overflowed at s = 1e155."""
    data, _ = frame
    big = data.assign(x1=data["x1"] * factor, x2=data["x2"] * factor)
    opts = dict(method="uboost", learner=learner, mstop=30)
    a, b = _fit(data, None, **opts), _fit(big, None, **opts)
    np.testing.assert_allclose(_link(b, big), _link(a, data), rtol=1e-9, atol=1e-12)
