"""ULS with the entropy family equals R's glm(binomial) (the package's promise: every reported
number to 1e-6).

Fixtures: tests/fixtures/glm_*.json, computed by R 4.2.2 with
glm.control(epsilon = 1e-14); the R code is in each file's ``r_code``.
tests/fixtures/glm_*_fitted.csv hold every fitted value and residual of the
same fits (tests/fixtures/glm_fitted_all.R).
Coefficient names are R's, "(Intercept)" included.
"""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CASES = ["glm_pima", "glm_breast_cancer", "glm_mtcars"]
RTOL = 1e-6


def _load(case):
    ref = json.loads((FIXTURES / f"{case}.json").read_text())
    data = pd.read_csv(FIXTURES / "data" / pathlib.Path(ref["data_file"]).name)
    return ref, data


@pytest.fixture(scope="module", params=CASES)
def case(request):
    ref, data = _load(request.param)
    fits = {solver: ubreg.fit(ref["formula"], data, family=ubreg.Permissible("entropy"),
                              method="uls", solver=solver)
            for solver in ("corrective", "coordinate")}
    return ref, data, fits


def _names(ref):
    return list(ref["coefficients"]["name"])


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["corrective", "coordinate"])
def test_coefficients_se_z(case, solver):
    ref, _, fits = case
    m = fits[solver]
    names = _names(ref)
    assert list(m.coef.index) == names
    c = ref["coefficients"]
    np.testing.assert_allclose(m.coef[names], c["estimate"], rtol=RTOL)
    np.testing.assert_allclose(m.bse[names], c["std_error"], rtol=RTOL)
    np.testing.assert_allclose(m.zvalues[names], c["z_value"], rtol=RTOL)
    np.testing.assert_allclose(m.pvalues[names], c["p_value"], rtol=1e-4)


def test_vcov_model_and_hc0(case):
    ref, _, fits = case
    m = fits["corrective"]
    names = _names(ref)
    for kind, key in (("model", "vcov"), ("robust", "vcov_hc0")):
        V = m.vcov(kind).loc[names, names].to_numpy()
        V_r = np.array(ref[key])
        # entries relative to the scale of their row and column (correlation scale)
        scale = np.sqrt(np.outer(np.diag(V_r), np.diag(V_r)))
        assert np.max(np.abs(V - V_r) / scale) < RTOL, kind
    robust_se = m.coef_table(cov="robust")["std_error"][names]
    np.testing.assert_allclose(robust_se, ref["std_error_hc0"], rtol=RTOL)


def test_deviance_aic_loglik(case):
    ref, _, fits = case
    m = fits["corrective"]
    np.testing.assert_allclose(m.deviance, ref["deviance"], rtol=RTOL)
    np.testing.assert_allclose(m.null_deviance, ref["null_deviance"], rtol=RTOL)
    np.testing.assert_allclose(m.aic, ref["aic"], rtol=RTOL)
    np.testing.assert_allclose(m.loglik, ref["loglik"], rtol=RTOL)
    assert m.df_resid == ref["df_residual"]
    assert m.df_null == ref["df_null"]
    assert m.nobs == ref["n_obs"]
    assert m.n_dropped == len(ref["rows_dropped_na"])
    # R's row numbers are 1-based CSV rows; pandas' default index is 0-based
    assert list(m.dropped + 1) == ref["rows_dropped_na"]
    assert m.converged


def test_fitted_values_and_deviance_residuals(case):
    ref, _, fits = case
    m = fits["corrective"]
    first = ref["first10"]
    rows = np.array(first["row"]) - 1
    np.testing.assert_allclose(m.fitted_values.loc[rows], first["fitted"], rtol=RTOL)
    np.testing.assert_allclose(m.predict(type="link").loc[rows], first["linear_predictor"],
                               rtol=RTOL)
    np.testing.assert_allclose(m.residuals("deviance").loc[rows], first["deviance_residual"],
                               rtol=RTOL)
    rng = ref["fitted_range"]
    np.testing.assert_allclose([m.fitted_values.min(), m.fitted_values.max()],
                               [rng["min"], rng["max"]], rtol=RTOL)


@pytest.mark.parametrize("solver", ["corrective", "coordinate"])
def test_every_fitted_value_and_residual(case, solver):
    ref, _, fits = case
    m = fits[solver]
    r = pd.read_csv(FIXTURES / f"{ref['case_id']}_fitted.csv")
    rows = r["row"].to_numpy() - 1
    assert len(rows) == m.nobs
    np.testing.assert_array_equal(m.fitted_values.index, rows)
    np.testing.assert_allclose(m.fitted_values.loc[rows], r["fitted"], rtol=RTOL)
    # η crosses 0, where a relative tolerance means nothing: absolute 1e-7 there
    np.testing.assert_allclose(m.predict(type="link").loc[rows], r["linear_predictor"],
                               rtol=RTOL, atol=1e-7)
    for kind in ("deviance", "pearson"):
        np.testing.assert_allclose(m.residuals(kind).loc[rows], r[f"{kind}_residual"],
                                   rtol=RTOL, err_msg=kind)
    np.testing.assert_allclose(m.residuals("response").loc[rows],
                               pd.Series(m.y, index=m.index).loc[rows] - r["fitted"].to_numpy(),
                               rtol=RTOL, atol=1e-12)


def test_response_coding_matches_r(case):
    ref, _, fits = case
    m = fits["corrective"]
    assert str(m.response.positive) == ref["response"]["positive_class"]
    first = ref["first10"]
    rows = np.array(first["row"]) - 1
    y = pd.Series(m.y, index=m.index)
    np.testing.assert_array_equal(y.loc[rows], first["y"])


def test_predict_newdata_equals_fitted(case):
    ref, data, fits = case
    m = fits["corrective"]
    p = m.predict(data, type="response")
    assert p.index.equals(data.index)
    assert p.isna().sum() == len(ref["rows_dropped_na"])
    np.testing.assert_allclose(p.dropna().to_numpy(), m.fitted_values.to_numpy(), rtol=1e-12)
