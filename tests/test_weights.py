"""Weights as R means them (trust issue, item 6).

``weights=`` are R's prior weights (``glm(weights = w)``): nobs and df count the
rows of non-zero weight, the robust covariance is ``sandwich::vcovHC(type =
"HC0")`` of the weighted glm (meat Σ wᵢ² (yᵢ − p̂ᵢ)² xᵢxᵢᵀ), AIC/logLik are
R's binomial()$aic.  ``freq_weights=`` (statsmodels' name) are frequency
weights: a row of weight 2 is the row twice (nobs = Σ w, meat Σ wᵢ (yᵢ − p̂ᵢ)²
xᵢxᵢᵀ).

Fixtures: tests/fixtures/glm_weights.json, written with data/pima_weights.csv by
tests/fixtures/glm_weights.R (R 4.2.2, sandwich 3.0-2): prior weights (integer
and fractional, zeros included) and the rows repeated by their integer weight
(R's reference for frequency weights).
"""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

from test_bad_input import METHOD_NAMES, _fit

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "glm_weights.json").read_text())
DATA = pd.read_csv(FIXTURES / REF["data_file"])
CASES = {c["case_id"]: c for c in REF["cases"]}
FORMULA = "diabetes ~ pregnant + glucose + mass + pedigree + age"
RTOL = 1e-6


def _check_against(m, ref):
    """Every number R reports.  sandwich::vcovHC counts rows of weight 0 in its meat's
    divisor but not in its bread's scale, so with zero weights its HC0 is (n₊/n)² times
    the HC0 of the same fit without those rows; ubreg's HC0 is the latter (a row of weight
    0 is a removed row, as everywhere else in glm), hence the factor."""
    names = list(ref["names"])
    assert list(m.coef.index) == names
    np.testing.assert_allclose(m.coef, ref["coefficients"], rtol=RTOL)
    np.testing.assert_allclose(m.bse, ref["std_error"], rtol=RTOL)
    np.testing.assert_allclose(m.vcov("model"), ref["vcov"], rtol=RTOL)
    quirk = (ref["hc0_rows"] / ref["nobs"]) ** 2
    np.testing.assert_allclose(m.vcov("robust"), quirk * np.array(ref["vcov_hc0"]), rtol=RTOL)
    for ours, theirs in (("deviance", "deviance"), ("null_deviance", "null_deviance"),
                         ("loglik", "loglik"), ("aic", "aic"), ("bic", "bic")):
        assert getattr(m, ours) == pytest.approx(ref[theirs], rel=RTOL), ours
    for ours, theirs in (("nobs", "nobs"), ("df_resid", "df_residual"), ("df_null", "df_null")):
        assert getattr(m, ours) == ref[theirs], ours


@pytest.mark.parametrize("case_id, column", [("prior_int", "w_int"), ("prior_frac", "w_frac")])
@pytest.mark.parametrize("solver", ["corrective", "coordinate"])
def test_prior_weights_equal_r_glm(case_id, column, solver):
    m = ubreg.fit(FORMULA, DATA, weights=column, solver=solver)
    assert m.weight_kind == "prior"
    _check_against(m, CASES[case_id])


def test_prior_weights_without_zero_weights_equal_r_hc0_exactly():
    ref = CASES["prior_int_positive"]
    assert ref["hc0_rows"] == ref["nobs"]
    m = ubreg.fit(FORMULA, DATA[DATA["w_int"] > 0], weights="w_int")
    _check_against(m, ref)
    full = ubreg.fit(FORMULA, DATA, weights="w_int")          # zero weights = removed rows
    np.testing.assert_allclose(full.vcov("robust"), m.vcov("robust"), rtol=1e-9)


def test_freq_weights_equal_r_on_repeated_rows():
    m = ubreg.fit(FORMULA, DATA, freq_weights="w_int")
    assert m.weight_kind == "freq"
    _check_against(m, CASES["expanded_int"])


def _statsmodels_frame():
    d = DATA.dropna(subset=["diabetes", "pregnant", "glucose", "mass", "pedigree", "age"])
    return d[d["w_int"] > 0]           # statsmodels' HC0 is NaN with a zero freq weight


def test_freq_weights_equal_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    d = _statsmodels_frame()
    X = sm.add_constant(d[["pregnant", "glucose", "mass", "pedigree", "age"]])
    y = (d["diabetes"] == "pos").astype(float)
    glm = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=d["w_int"])
    ref = glm.fit(tol=1e-14)
    hc0 = glm.fit(tol=1e-14, cov_type="HC0")
    m = ubreg.fit(FORMULA, d, freq_weights="w_int")
    np.testing.assert_allclose(m.coef, ref.params, rtol=RTOL)
    np.testing.assert_allclose(m.bse, ref.bse, rtol=RTOL)
    np.testing.assert_allclose(m.vcov("robust"), hc0.cov_params(), rtol=RTOL)
    assert m.deviance == pytest.approx(ref.deviance, rel=RTOL)
    assert m.null_deviance == pytest.approx(ref.null_deviance, rel=RTOL)
    assert m.df_resid == pytest.approx(ref.df_resid, rel=1e-12)
    assert m.loglik == pytest.approx(ref.llf, rel=RTOL)
    assert m.aic == pytest.approx(ref.aic, rel=RTOL)
    assert m.bic == pytest.approx(ref.bic_llf, rel=RTOL)


def test_prior_weights_robust_covariance_is_statsmodels_var_weights_hc0():
    """statsmodels' var_weights are R's prior weights for the HC0 meat (Σ w² r² x xᵀ)."""
    sm = pytest.importorskip("statsmodels.api")
    d = _statsmodels_frame()
    X = sm.add_constant(d[["pregnant", "glucose", "mass", "pedigree", "age"]])
    y = (d["diabetes"] == "pos").astype(float)
    hc0 = sm.GLM(y, X, family=sm.families.Binomial(), var_weights=d["w_int"]).fit(
        tol=1e-14, cov_type="HC0")
    m = ubreg.fit(FORMULA, d, weights="w_int")
    np.testing.assert_allclose(m.vcov("robust"), hc0.cov_params(), rtol=RTOL)


def test_unweighted_and_unit_weights_agree_for_both_kinds(pima=None):
    a = ubreg.fit(FORMULA, DATA)
    for kw in ({"weights": np.ones(len(DATA))}, {"freq_weights": np.ones(len(DATA))}):
        b = ubreg.fit(FORMULA, DATA, **kw)
        for attr in ("nobs", "df_resid", "df_null", "deviance", "aic", "bic", "loglik"):
            assert getattr(b, attr) == pytest.approx(getattr(a, attr), rel=1e-12), (kw, attr)
        np.testing.assert_allclose(b.vcov("robust"), a.vcov("robust"), rtol=1e-10)


def test_both_kinds_at_once_is_an_error():
    with pytest.raises(ValueError, match="weights= .*freq_weights=.*not both"):
        ubreg.fit(FORMULA, DATA, weights="w_int", freq_weights="w_int")


def test_call_names_the_kind():
    m = ubreg.fit(FORMULA, DATA, freq_weights="w_int")
    assert 'freq_weights="w_int"' in m.call
    assert 'weights="w_int"' in ubreg.fit(FORMULA, DATA, weights="w_int").call


# ---- every method ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(5)
    n = 90
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    y = (x1 - 0.5 * x2 + (g == "b") + rng.normal(size=n) > 0).astype(int)
    w = np.tile([0, 1, 2], n // 3)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g}), w


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_nobs_counts_rows_of_nonzero_prior_weight_and_sums_freq_weights(method, frame):
    data, w = frame
    prior = _fit(method, "y ~ x1 + x2 + g", data, weights=w)
    freq = _fit(method, "y ~ x1 + x2 + g", data, freq_weights=w)
    assert prior.nobs == np.count_nonzero(w)
    assert freq.nobs == w.sum()
    for m in (prior, freq):
        if type(m).capabilities.has_likelihood:
            assert m.df_resid == pytest.approx(m.nobs - m.df_model)
        else:       # leaves, rounds and neighbours are not degrees of freedom
            assert np.isnan(m.df_resid)


@pytest.mark.slow
def test_cv_passes_freq_weights_through():
    d = DATA.dropna(subset=["glucose", "mass"])
    res = ubreg.cv("diabetes ~ glucose + mass", d, freq_weights="w_int", folds=3, seed=0)
    assert res.model.weight_kind == "freq" and res.model.nobs == d["w_int"].sum()
    res = ubreg.cv("diabetes ~ glucose + mass", d, weights="w_int", folds=3, seed=0)
    assert res.model.weight_kind == "prior"
    assert res.model.nobs == np.count_nonzero(d["w_int"])


def test_command_line_takes_either_kind(tmp_path, capsys):
    from ubreg.cli import main
    csv = tmp_path / "pima.csv"
    DATA.to_csv(csv, index=False)
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--weights", "w_int"]) == 0
    out = capsys.readouterr().out
    assert 'weights="w_int"' in out
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--freq-weights", "w_int"]) == 0
    assert 'freq_weights="w_int"' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["fit", "diabetes ~ glucose + mass", str(csv), "--weights", "w_int",
              "--freq-weights", "w_int"])
