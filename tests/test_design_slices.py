"""The design built slice by slice (bare columns) equals patsy's one-shot build."""
import re

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.design import build_model_frame, sliced
from ubreg.design import frame as design_frame
from ubreg.errors import DataError


def _data(n=103, seed=0):
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n) * 1e5,
                      "g": rng.choice(["a", "b", "c"], size=n),
                      "h": pd.Categorical(rng.choice(["u", "v"], size=n)),
                      "flag": rng.random(n) < 0.4,
                      "y": rng.integers(0, 2, size=n)})
    d.loc[[3, 50, 51], "z"] = np.nan        # NAs in different slices and columns
    d.loc[[60, 99], "x"] = np.nan
    d.loc[[10, 60], "g"] = None
    return d


def _both(monkeypatch, formula, data, **kw):
    monkeypatch.setattr(sliced, "SLICE_ROWS", 7)            # many slices, a short last one
    in_slices = build_model_frame(formula, data, **kw)
    monkeypatch.setattr(design_frame, "row_wise", lambda info, data_in: False)
    at_once = build_model_frame(formula, data, **kw)
    return in_slices, at_once


@pytest.mark.parametrize("formula", ["y ~ x + z + g", "y ~ x * g + h + flag", "y ~ z:g + h - 1",
                                     "y ~ (x + z + g)^2"])
def test_slices_give_the_one_shot_design(monkeypatch, formula):
    a, b = _both(monkeypatch, formula, _data())
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert list(a.index) == list(b.index) and list(a.dropped) == list(b.dropped)
    assert a.na_factors == b.na_factors                     # names, counts, formula order
    assert a.design.column_names == b.design.column_names


def test_a_function_of_a_column_is_built_at_once(monkeypatch):
    # np.log(x) could read other rows (e.g. x - x.mean()): never sliced
    seen = []
    monkeypatch.setattr(design_frame, "build_in_slices",
                        lambda *a, **k: seen.append(1) or sliced.build_in_slices(*a, **k))
    d = _data()
    d["x"] = d["x"].abs() + 1
    build_model_frame("y ~ np.log(x) + z", d)
    assert not seen
    build_model_frame("y ~ x + z", d)
    assert seen


def test_a_sliced_fit_equals_the_one_shot_fit(monkeypatch):
    # sliced, the fit keeps g's and h's columns as codes (ubreg.numerics.factor_matrix):
    # the same design, its sums added in another order
    d = _data(400, seed=1)
    monkeypatch.setattr(sliced, "SLICE_ROWS", 64)
    m1 = ubreg.fit("y ~ x + z + g + h", d)
    monkeypatch.setattr(design_frame, "row_wise", lambda info, data_in: False)
    m2 = ubreg.fit("y ~ x + z + g + h", d)
    np.testing.assert_allclose(m1.coef.to_numpy(), m2.coef.to_numpy(), rtol=1e-12, atol=1e-15)

    def shown(m):       # the final |edge| is rounding noise (~1e-16) either way
        return re.sub(r"\|edge\| [0-9.e+-]+", "|edge| ...", str(m.summary()))
    assert shown(m1) == shown(m2)


def test_na_action_fail_names_every_column_with_missing_values():
    with pytest.raises(DataError, match="'x' \\(2 rows\\)"):
        build_model_frame("y ~ x + z", _data(), na_action="fail")


def test_slices_without_missing_values_give_the_one_shot_design(monkeypatch):
    # no NA in any slice: the factors' values are used as they are (no filtered copies)
    d = _data(seed=2).dropna().reset_index(drop=True)
    a, b = _both(monkeypatch, "y ~ x * g + z + h + flag", d)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.na_factors == b.na_factors == [] and a.n_dropped == 0
    assert a.index is d.index                               # every row kept: the index as given


@pytest.mark.parametrize("dtype", ["str", "string[python]", "string[pyarrow]", "object", "bool"])
def test_label_columns_coded_as_pandas_codes_them(dtype):
    from ubreg.design.checks import _as_categoricals, _label_levels
    rng = np.random.default_rng(3)
    if dtype == "bool":
        col = pd.Series(rng.random(50) < 0.3)
    else:
        values = rng.choice(["b", "a", "c", None], size=50).astype(object)
        col = pd.Series(values, dtype=dtype if dtype != "object" else object)
    d = pd.DataFrame({"g": col})
    levels = _label_levels(d, ["g"])
    got = _as_categoricals(d, levels, "data")["g"].array
    want = pd.Categorical(col, categories=levels["g"])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.codes, want.codes)
    assert d["g"].dtype == col.dtype                        # the caller's frame untouched
