"""Aliasing is judged scale-free, as R judges it (trust issue, item 1).

A predictor far from zero (a weight shifted by 3e5 or 3e7, a POSIX timestamp
~1.7e9) is not aliased: R's glm fits these models, and so must ubreg, with R's
numbers.  Fixtures: tests/fixtures/glm_aliasing.json, written with the data
file data/birthwt_shifted.csv by tests/fixtures/glm_aliasing.R (R 4.2.2,
MASS::birthwt).
"""
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.numerics.aliasing import aliased_columns

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "glm_aliasing.json").read_text())
DATA = pd.read_csv(FIXTURES / REF["data_file"])
CASES = {c["case_id"]: c for c in REF["cases"]}


def _names(case):
    return list(case["names"])


def _r(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


@pytest.mark.parametrize("solver", ["corrective", "coordinate"])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_far_from_zero_predictors_equal_r(case_id, solver):
    case = CASES[case_id]
    m = ubreg.fit(case["formula"], DATA, family="entropy", solver=solver)
    names = _names(case)
    assert list(m.coef.index) == names
    np.testing.assert_array_equal(m.aliased.to_numpy(), case["aliased_default_control"])
    np.testing.assert_allclose(m.coef.to_numpy(), _r(case["estimate"]), rtol=1e-6)
    np.testing.assert_allclose(m.bse.to_numpy(), _r(case["std_error"]), rtol=1e-6)
    assert m.deviance == pytest.approx(case["deviance"], rel=1e-9)
    assert m.df_resid == case["df_residual"] and m.rank == case["rank"]
    assert m.converged


def test_shift_moves_only_the_intercept():
    """lwt + 3e7 and lwt: the same slopes, the intercept moved by −3e7·β (statsmodels-free
    check of the same fact R shows)."""
    a = ubreg.fit("low ~ age + lwt + smoke", DATA)
    b = ubreg.fit("low ~ age + lwt_3e7 + smoke", DATA)
    np.testing.assert_allclose(b.coef.iloc[1:], a.coef.iloc[1:], rtol=1e-8)
    assert b.coef["(Intercept)"] == pytest.approx(a.coef["(Intercept)"] - 3e7 * a.coef["lwt"],
                                                rel=1e-8)
    np.testing.assert_allclose(b.bse.iloc[1:], a.bse.iloc[1:], rtol=1e-7)
    np.testing.assert_allclose(b.predict(DATA), a.predict(DATA), rtol=1e-9)


def _design(n=500, seed=0):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    return np.column_stack([np.ones(n), x1, x2]), rng


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
@pytest.mark.parametrize("shift", [0.0, 1e4])
def test_aliasing_is_scale_and_shift_free(scale, shift):
    """(A shift much larger than 1e4 would round the 1e-10 perturbation away.)"""
    X, rng = _design()
    noise = rng.normal(size=len(X))
    cols = [X[:, 1] + 1e-3 * noise,                       # kept: residual 1e-3 of its norm
            2.0 * X[:, 1] - X[:, 2] + 1e-10 * noise,      # aliased: residual 1e-10 < 1e-7
            np.full(len(X), 3.0)]                         # constant: aliased with the intercept
    Z = np.column_stack([X] + [scale * (c + shift) for c in cols])
    np.testing.assert_array_equal(aliased_columns(Z, np.ones(len(X))),
                                  [False, False, False, False, True, True])


def test_aliasing_tolerance_is_r_relative_1e7():
    X, rng = _design()
    e = rng.normal(size=len(X))
    e -= e.mean()
    e -= X[:, 1] * (X[:, 1] @ e) / (X[:, 1] @ X[:, 1])        # roughly orthogonal to x1
    x1c = X[:, 1] - X[:, 1].mean()
    for rel, expect in ((1e-5, False), (1e-9, True)):
        col = X[:, 1] + rel * e * np.linalg.norm(x1c) / np.linalg.norm(e)
        got = aliased_columns(np.column_stack([X[:, :2], col]), np.ones(len(X)))
        assert got[-1] == expect, rel


def test_zero_weight_rows_do_not_count_and_order_decides():
    X, rng = _design(200)
    w = np.ones(200)
    w[:50] = 0.0
    x3 = X[:, 1].copy()
    x3[:50] = rng.normal(size=50)            # differs from x1 only on zero-weight rows
    Z = np.column_stack([X, x3])
    np.testing.assert_array_equal(aliased_columns(Z, w), [False, False, False, True])
    np.testing.assert_array_equal(aliased_columns(Z, np.ones(200)), [False] * 4)
    # the later column of a collinear pair is the aliased one
    np.testing.assert_array_equal(aliased_columns(Z[:, [0, 3, 2, 1]], w),
                                  [False, False, False, True])


def test_no_intercept_is_not_centred():
    X, _ = _design()
    far = X[:, 1] + 1e6                        # without an intercept column, far from collinear
    Z = np.column_stack([X[:, 1], far])
    np.testing.assert_array_equal(aliased_columns(Z, np.ones(len(X))), [False, False])


def test_timestamp_column_fits_like_r_with_weights_and_no_warning():
    case = CASES["timestamp"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = ubreg.fit(case["formula"], DATA, weights=np.full(len(DATA), 2.0))
    np.testing.assert_allclose(m.coef.to_numpy(), _r(case["estimate"]), rtol=1e-6)


def test_scatter_route_and_qr_route_agree():
    """The fast route (scatter matrix) decides alone only far from the threshold; near it
    (and for exact aliasing) the QR route decides, and both give R's rule."""
    from ubreg.numerics.aliasing import (
        aliased_from_gram,
        aliased_from_r,
        intercept_column,
        scatter_of,
    )
    X, rng = _design(3000)
    e = rng.normal(size=3000)
    clear = np.column_stack([X, rng.normal(size=3000) + 5e6])
    near = np.column_stack([X, X[:, 1] + 1e-6 * e, X[:, 2] * 3 + 1e-9 * e])
    for Z, expect_sure, expect in ((clear, True, [False] * 4),
                                   (near, False, [False, False, False, False, True])):
        ic = intercept_column(Z)
        g = scatter_of(Z, None, centred=True)
        got, sure = aliased_from_gram(g, ic)
        assert sure == expect_sure
        by_qr = aliased_from_r(scatter_of(Z, None, centred=True, qr=True, block_rows=700), ic)
        np.testing.assert_array_equal(by_qr, expect)
        np.testing.assert_array_equal(aliased_columns(Z), expect)
        if sure:
            np.testing.assert_array_equal(got, expect)
