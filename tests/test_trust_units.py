"""Issue 27 §1, predictors in tiny or huge units: a change of a predictor's unit (x → s x)
changes its coefficient to β/s and its standard error to se/s, and nothing else, as in
R's glm (whose QR works on the columns as given).  Aliasing is judged scale-free in both
directions; a fit that cannot be made (Dask, for now) is refused with the column named."""
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError

SCALES = [1e-300, 1e-200, 1e-100, 1e-20, 1e20, 1e100, 1e200, 1e300]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 400
    d = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n),
                      "g": rng.choice(["a", "b", "c"], size=n)})
    d["y"] = (0.8 * d.x - 0.5 * d.z + (d.g == "b") + rng.logistic(size=n) > 0).astype(int)
    return d


def _fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # no overflow on the way
        return ubreg.fit(formula, data, **kw)


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("family", ["entropy", "matsushita"])
def test_a_predictor_in_other_units_is_estimated(data, scale, family):
    """x × 1e-200 was reported aliased (NA) and x × 1e200 refused as too large.  The
    variance of β_x is (se/s)²: past s = 1e±150 it leaves the doubles, as in R, so the
    standard errors are compared up to 1e±100."""
    ref = _fit("y ~ x + z + g", data, family=family)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # (se/s)² past the doubles
        m = ubreg.fit("y ~ x + z + g", data.assign(x=data.x * scale), family=family)
        bse = m.bse
    assert not m.fit_info.aliased.any()
    assert m.coef["x"] * scale == pytest.approx(ref.coef["x"], rel=1e-8)
    others = ["(Intercept)", "z", "gb", "gc"]
    np.testing.assert_allclose(m.coef[others], ref.coef[others], rtol=1e-8)
    if 1e-100 <= scale <= 1e100:
        assert bse["x"] * scale == pytest.approx(ref.bse["x"], rel=1e-8)
        np.testing.assert_allclose(bse[others], ref.bse[others], rtol=1e-8)
    np.testing.assert_allclose(m.predict(data.assign(x=data.x * scale)), ref.predict(data),
                               rtol=1e-9)
    assert m.deviance == pytest.approx(ref.deviance, rel=1e-10)


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_aliasing_in_other_units_is_still_found(data, scale):
    """A copy of x in other units is still a copy: aliased, as in R."""
    d = data.assign(x=data.x * scale, x2=data.x * scale * 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # (se/s)² past the doubles
        m = ubreg.fit("y ~ x + z + x2", d)
    assert list(m.fit_info.aliased) == [False, False, False, True]


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_tiny_and_huge_units_on_dask_are_refused_by_name(data, scale):
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(data.assign(x=data.x * scale), npartitions=2)
    with pytest.raises(DataError, match=r"'x'.*rescale"):
        ubreg.fit("y ~ x + z", frame)
