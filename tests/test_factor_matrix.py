"""A design whose factor columns are kept as codes (ubreg.numerics.factor_matrix):
the same matrix as the dense design, the same fits up to the order of additions."""
import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.design import build_model_frame
from ubreg.design import frame as design_frame
from ubreg.numerics import factor_matrix as fm
from ubreg.numerics.linalg import blocked_products, column_absmax

FORMULAS = ["y ~ x + z + g", "y ~ x * g + h + flag", "y ~ z:g + h - 1", "y ~ (x + z + g)^2",
            "y ~ C(g, Sum) + x", "y ~ g - 1", "y ~ g + h"]


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n) * 1e3,
                      "g": rng.choice(["a", "b", "c", "d"], size=n),
                      "h": pd.Categorical(rng.choice(["u", "v", "w"], size=n)),
                      "flag": rng.random(n) < 0.4})
    eta = d["x"] - 0.5 * (d["g"] == "b") + 0.3 * (d["h"] == "w")
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    d.loc[[3, 50], "z"] = np.nan
    d.loc[[10, 60], "g"] = None
    return d


@pytest.mark.parametrize("formula", FORMULAS)
def test_codes_give_the_dense_design(formula):
    d = _data()
    dense = build_model_frame(formula, d).X
    coded = build_model_frame(formula, d, factor_codes=True).X
    assert isinstance(dense, np.ndarray)
    np.testing.assert_array_equal(np.asarray(coded), dense)
    if fm.is_factor_matrix(coded):
        assert coded.nbytes < dense.nbytes
        assert all(f.codes.dtype == np.int8 for f in coded.factors)


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_fitters_operations_match_the_dense_matrix(formula):
    d = _data(seed=1)
    coded = build_model_frame(formula, d, factor_codes=True).X
    X = np.asarray(coded)
    rng = np.random.default_rng(2)
    b, v, h = rng.normal(size=X.shape[1]), rng.normal(size=X.shape[0]), rng.random(X.shape[0])
    np.testing.assert_allclose(fm.matvec(coded, b), X @ b, rtol=1e-13, atol=1e-9)
    np.testing.assert_allclose(fm.rmatvec(coded, v), X.T @ v, rtol=1e-13, atol=1e-9)
    (g1,), _ = blocked_products(coded, [h], block_rows=64)
    (g2,), _ = blocked_products(X, [h], block_rows=64)
    np.testing.assert_allclose(g1, g2, rtol=1e-13, atol=1e-9)   # the same blocks, the same sums
    lo, hi = fm.column_min_max(coded)
    np.testing.assert_array_equal(lo, X.min(axis=0))
    np.testing.assert_array_equal(hi, X.max(axis=0))
    np.testing.assert_array_equal(column_absmax(coded), column_absmax(X))
    for j in range(X.shape[1]):
        np.testing.assert_array_equal(fm.column(coded, j), X[:, j])
        assert fm.value(coded, 7, j) == X[7, j]
    keep = np.arange(X.shape[1]) % 3 != 1
    shift = np.where(np.arange(keep.sum()) % 2 == 0, 0.25, 0.0)
    np.testing.assert_array_equal(np.asarray(fm.take_columns(coded, keep, shift)),
                                  fm.take_columns(X, keep, shift))
    blocks = [rows.copy() for _, _, rows in fm.row_blocks(coded, 37)]
    np.testing.assert_array_equal(np.vstack(blocks), X)


def test_a_factor_matrix_must_cover_each_column_once():
    codes = np.zeros(4, dtype=np.int8)
    block = fm.FactorBlock(codes, np.eye(2), np.array([1, 2]))
    with pytest.raises(ValueError, match="cover each column once"):
        fm.FactorMatrix(4, 3, np.ones((4, 2)), np.array([0, 1]), [block])


def _dense_path(monkeypatch):
    """ubreg.fit with the factor codes turned off (the dense design)."""
    real = design_frame.build_in_slices
    monkeypatch.setattr(design_frame, "build_in_slices",
                        lambda *a, **k: real(*a[:4], factor_codes=False))


@pytest.mark.slow
@pytest.mark.parametrize("weights", [None, "w"])
def test_a_coded_fit_is_the_dense_fit(monkeypatch, weights):
    """Coefficients, every covariance (model, HC0-HC3), hat values, profile
    intervals and predict(se_fit=True) of the training rows, with prior weights
    and without."""
    d = _data(seed=3)
    d["w"] = np.random.default_rng(4).integers(1, 4, len(d)).astype(float)
    f = "y ~ x + z + g + h"
    coded = ubreg.fit(f, d, weights=weights)
    assert fm.is_factor_matrix(coded._training_matrix("test"))
    _dense_path(monkeypatch)
    dense = ubreg.fit(f, d, weights=weights)
    assert isinstance(dense._training_matrix("test"), np.ndarray)
    np.testing.assert_allclose(coded.coef, dense.coef, rtol=1e-11, atol=1e-14)
    for kind in ("model", "HC0", "HC1", "HC2", "HC3"):
        np.testing.assert_allclose(coded.vcov(kind), dense.vcov(kind), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(coded.hat_values(), dense.hat_values(), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(coded.confint(method="profile"), dense.confint(method="profile"),
                               rtol=1e-7)
    a = coded.predict(type="response", se_fit=True)
    b = dense.predict(type="response", se_fit=True)
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-9)
    np.testing.assert_array_equal(coded.model_matrix, dense.model_matrix)


def test_a_coded_fit_pickles_small_and_reads_old_pickles():
    d = _data(2000, seed=5)
    m = ubreg.fit("y ~ x + g + h", d)
    X = m.model_matrix
    back = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(back.model_matrix, X)
    assert len(pickle.dumps(m)) < len(pickle.dumps(X))
    # a result pickled before the codes were kept held the dense matrix as model_matrix
    state = m.__getstate__()
    state["model_matrix"] = state.pop("_X").__array__()
    old = type(m).__new__(type(m))
    old.__setstate__(state)
    np.testing.assert_array_equal(old.model_matrix, X)
    np.testing.assert_allclose(old.hat_values(), m.hat_values(), rtol=1e-12)


@pytest.mark.slow
def test_a_wide_factor_costs_its_codes_and_contrast_matrix():
    rng = np.random.default_rng(6)
    n, levels = 20_000, 2000
    d = pd.DataFrame({"x": rng.normal(size=n),
                      "g": pd.Categorical(rng.integers(0, levels, n).astype(str))})
    d["y"] = (rng.random(n) < 0.4).astype(int)
    X = build_model_frame("y ~ x + g", d, factor_codes=True).X
    assert X.shape == (n, 1 + 1 + d["g"].nunique() - 1)
    table = X.factors[0].table
    assert X.factors[0].codes.dtype == np.int16
    # the x and intercept columns, the codes, and patsy's contrast matrix (L × (L − 1),
    # what patsy builds anyway): 32 MB against the dense design's 320 MB
    assert X.nbytes == 2 * 8 * n + 2 * n + table.nbytes
    assert X.nbytes < 0.11 * 8 * X.shape[0] * X.shape[1]
