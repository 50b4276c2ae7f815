"""gnnb / unn at the limits: integer weights that repeat rows past the memory cap or
past what an int64 can count, and predictors at extreme magnitudes (the standardisation
and the neighbour search must be scale-free: the fit equals the unscaled fit)."""
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError
from ubreg.fitters.gnnb.neighbours import NeighbourIndex
from ubreg.numerics.limits import set_memory_cap


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 90
    x1 = rng.normal(size=n)
    x2 = rng.uniform(-2.0, 2.0, size=n)
    g = rng.choice(["u", "v"], size=n)
    score = x1 + x2 + (g == "v") + rng.normal(scale=0.5, size=n)
    cls = np.select([score < -0.5, score < 0.8], ["a", "b"], "c")
    return pd.DataFrame({"Class": cls, "x1": x1, "x2": x2, "g": g,
                         "x3": rng.exponential(size=n)})


@pytest.fixture
def small_cap():
    set_memory_cap(10**6)                  # 1 MB
    yield
    set_memory_cap(None)


# --------------------------------------------------------------------------- weights
@pytest.mark.parametrize("method", ["gnnb", "unn"])
def test_weights_repeating_rows_past_the_cap_are_refused(data, small_cap, method):
    w = np.full(len(data), 200)             # 18 000 rows: several MB of working arrays
    with pytest.raises(DataError, match=r"weights repeat the 90 rows into 18000 rows.*memory cap"):
        ubreg.fit("Class ~ x1 + x2", data, method=method, k=3, weights=w)


def test_weights_past_any_memory_are_refused(data):
    w = np.full(len(data), 1e10)             # 9e11 rows
    with pytest.raises(DataError, match=r"9e\+11 rows.*memory cap"):
        ubreg.fit("Class ~ x1 + x2", data, method="gnnb", k=3, weights=w)


@pytest.mark.slow
def test_weights_past_int64_do_not_crash_the_interpreter():
    """Σ weights past 2**63 wrapped around in np.repeat's int64 count and crashed the
    interpreter (segmentation fault): run in a subprocess, which must exit normally
    with a DataError, even with the memory cap raised out of the way."""
    code = textwrap.dedent("""
        import pandas as pd, ubreg
        from ubreg.numerics.limits import set_memory_cap
        set_memory_cap(1e30)
        d = pd.DataFrame({"y": ["a", "b", "a", "b"], "x": [0.0, 1.0, 2.0, 3.0]})
        try:
            ubreg.fit("y ~ x", d, method="gnnb", k=1, weights=[2**62] * 4)
        except ubreg.errors.DataError as e:
            print("DataError:", e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "DataError:" in out.stdout and "rows" in out.stdout


def test_weights_within_the_cap_still_repeat_rows(data, small_cap):
    w = np.arange(len(data)) % 3
    m = ubreg.fit("Class ~ x1 + x2", data, method="gnnb", k=3, weights=w)
    assert len(m.alpha) == int(w.sum())              # one training row per copy


# --------------------------------------------------------------------------- magnitudes
def _scaled(df, cols, factor):
    out = df.copy()
    out[cols] = out[cols] * factor
    return out


@pytest.mark.parametrize("factor", [2.0 ** 515, 1e155, 1e307, 1e-300])
@pytest.mark.parametrize("standardize", [True, False])
def test_extreme_predictor_scales_give_the_unscaled_fit(data, factor, standardize):
    """Standardised, one predictor may have any scale (the others stay); unstandardised,
    a common factor of every predictor leaves the Euclidean neighbours alone.  Either
    way the fit and its predictions are those of the unscaled data."""
    if standardize:
        formula, cols = "Class ~ x1 + x2 + g", ["x1"]
    else:
        formula, cols = "Class ~ x1 + x2", ["x1", "x2"]
    opts = dict(method="gnnb", k=5, standardize=standardize)
    a = ubreg.fit(formula, data, **opts)
    big = _scaled(data, cols, factor)
    b = ubreg.fit(formula, big, **opts)
    np.testing.assert_allclose(b.alpha.to_numpy(), a.alpha.to_numpy(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(b.predict(type="response").to_numpy(),
                               a.predict(type="response").to_numpy(), rtol=1e-12, atol=0)
    new = data.iloc[::7]
    np.testing.assert_allclose(b.predict(_scaled(new, cols, factor), type="link").to_numpy(),
                               a.predict(new, type="link").to_numpy(), rtol=1e-12, atol=0)


def test_unstandardised_pima_times_1e155_is_the_unscaled_fit():
    """The float64 screen of the neighbour search lost candidates on these data
    (RuntimeError "neighbour screen lost candidates; please report this")."""
    d = ubreg.datasets.load_pima().dropna()
    cols = [c for c in d.columns if c != "diabetes"]
    a = ubreg.fit("diabetes ~ .", d, method="gnnb", k=5, standardize=False)
    b = ubreg.fit("diabetes ~ .", _scaled(d, cols, 1e155), method="gnnb", k=5, standardize=False)
    np.testing.assert_allclose(b.predict(type="link").to_numpy(),
                               a.predict(type="link").to_numpy(), rtol=1e-12, atol=0)


def test_power_of_two_scale_is_exact(data):
    """A power of two changes no bit of the standardised predictors, hence of the fit."""
    a = ubreg.fit("Class ~ x1 + x2 + g", data, method="unn", k=5)
    b = ubreg.fit("Class ~ x1 + x2 + g", _scaled(data, ["x1", "x2"], 2.0 ** -900),
                  method="unn", k=5)
    np.testing.assert_array_equal(b.alpha.to_numpy(), a.alpha.to_numpy())


def test_neighbour_search_is_scale_free():
    """The same neighbours for X and X × 2^e at the ends of the float range, for
    self-queries and new queries (the float64 squares would overflow or underflow)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    Q = rng.normal(size=(40, 4))
    ref = NeighbourIndex(X)
    want_self, want_new = ref.query(None, 6), ref.query(Q, 6)
    for e in (600, 1000, -1000):
        idx = NeighbourIndex(np.ldexp(X, e))
        np.testing.assert_array_equal(idx.query(None, 6), want_self)
        np.testing.assert_array_equal(idx.query(np.ldexp(Q, e), 6), want_new)


@pytest.mark.parametrize("norm", ["l2", "l1"])
@pytest.mark.parametrize("factor", [1e155, 1e300, 1e-300])
def test_divide_and_conquer_blocks_are_scale_free(data, norm, factor):
    """Each block row is scaled to unit norm (Section 6.4): a common factor of the
    unstandardised predictors changes nothing (the norms overflowed or underflowed)."""
    opts = dict(method="gnnb", k=5, standardize=False, blocks=2, norm=norm)
    a = ubreg.fit("Class ~ x1 + x2 + x3", data, **opts)
    b = ubreg.fit("Class ~ x1 + x2 + x3", _scaled(data, ["x1", "x2", "x3"], factor), **opts)
    np.testing.assert_allclose(b.predict(type="response").to_numpy(),
                               a.predict(type="response").to_numpy(), rtol=1e-12, atol=0)
