"""The rest of R's glm toolkit, against R (tests/fixtures/glm_parity.json, written by
glm_parity.R with the R code beside every number): 1e-6 relative unless stated."""
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "glm_parity.json").read_text())["cases"]
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
NEW5 = PIMA.iloc[[0, 2, 4, 6, 8]]          # R's pima[c(1, 3, 5, 7, 9), ]


def _fit(formula, data=PIMA, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ubreg.errors.ConvergenceWarning)
        return ubreg.fit(formula, data, **kw)


def _close(actual, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=rtol)


# --- poly() and ns(): R's bases, kept for predict ------------------------------------------
@pytest.mark.parametrize("case, formula", [
    ("poly", "diabetes ~ poly(age, 3) + glucose"),
    ("poly_raw", "diabetes ~ poly(age, 2, raw = TRUE) + glucose"),
    ("ns_df", "diabetes ~ ns(age, df=3) + glucose"),
    ("ns_knots", "diabetes ~ ns(mass, knots = c(28, 35), Boundary.knots = c(20, 50)) + glucose"),
])
def test_poly_and_ns_equal_r(case, formula):
    m = _fit(formula)
    r = CASES[case]
    assert list(m.coef.index) == list(r["coef"])          # R's names: poly(age, 3)1, ...
    _close(m.coef, list(r["coef"].values()))
    _close(m.deviance, r["deviance"])
    # new data use the training basis (predict.poly / predict.ns)
    _close(m.predict(NEW5, type="link"), r["predict_link"])
    one = m.predict(NEW5.iloc[:1], type="link")       # one row: no constants from new data
    _close(one, r["predict_link"][:1])


@pytest.mark.parametrize("subset", ["age > 30", (PIMA.age > 30).to_numpy()])
def test_subset_equals_r(subset):
    m = _fit("diabetes ~ glucose + mass", subset=subset)
    r = CASES["subset_expression"]
    assert list(m.coef.index) == list(r["coef"])
    _close(m.coef, list(r["coef"].values()))
    _close([m.deviance, m.null_deviance, m.aic], [r["deviance"], r["null_deviance"], r["aic"]])
    assert m.nobs == r["nobs"] and m.df_resid == r["df_residual"]
