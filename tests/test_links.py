"""R's ``glm(family = binomial(link = "probit" | "cloglog" | "cauchit"))``
(tests/fixtures/glm_links.R): the fit, every summary quantity and the glm tools, to 1e-6
(profile intervals to 1e-4: MASS interpolates); the family's numerics; its spellings;
the methods that refuse it."""
import json
import pathlib
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from r_pima import r_pima

import ubreg
from ubreg.families import BinomialLink, Entropy, resolve_family

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "glm_links.json").read_text())
LINKS = ["probit", "cloglog", "cauchit"]


PIMA = r_pima()
NEW = PIMA.iloc[[0, 2, 4, 6, 8]]                 # R's d[c(1, 3, 5, 7, 9), ]
ESOPH_LEVELS = {"agegp": ["25-34", "35-44", "45-54", "55-64", "65-74", "75+"],
                "alcgp": ["0-39g/day", "40-79", "80-119", "120+"]}
ESOPH = pd.read_csv(FIXTURES / "data" / "esoph.csv").astype(
    {k: pd.CategoricalDtype(v) for k, v in ESOPH_LEVELS.items()})


def _close(actual, expected, rtol=1e-6, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, dtype=float),
                               np.array([np.nan if x is None else x for x in
                                         np.ravel(expected)], dtype=float).reshape(
                                   np.shape(expected)),
                               rtol=rtol, atol=atol, equal_nan=True)


def _close_coef(coef, ref, se, rtol=1e-6):
    """|β − β_R| ≤ rtol · max(|β_R|, se): a coefficient near 0 (cloglog's weighted pedigree,
    −0.048 with se 0.17) is compared on the scale of its standard error, where R's Fisher
    scoring, which converges linearly, stops up to 1.6e-6 of |β| short of the maximum."""
    ref = np.asarray(ref, dtype=float)
    bound = rtol * np.maximum(np.abs(ref), np.asarray(se, dtype=float))
    assert np.all(np.abs(np.asarray(coef, dtype=float) - ref) <= bound)


def _close_cov(V, V_r, rtol=1e-6):
    """Covariances on the scale of the standard errors: |ΔVᵢⱼ| ≤ rtol √(VᵢᵢVⱼⱼ) (an
    off-diagonal entry near 0 has no relative digits to compare)."""
    V_r = np.asarray(V_r, dtype=float)
    scale = np.sqrt(np.outer(np.diag(V_r), np.diag(V_r)))
    assert np.max(np.abs(np.asarray(V) - V_r) / scale) <= rtol


@pytest.fixture(scope="module", params=LINKS)
def fitted(request):
    link = request.param
    m = ubreg.fit(R["formula"], PIMA, family=f'binomial(link = "{link}")')
    return link, m, R["links"][link]


def test_the_fit_equals_r(fitted):
    link, m, r = fitted
    f = r["fit"]
    assert list(m.coef.index) == list(f["coef"])
    _close(m.coef, list(f["coef"].values()))
    table = m.summary().frame().loc[list(f["coef"])]
    _close(table["Std. Error"], f["se"])
    _close(table["z value"], f["z"])
    # p-values on the log scale: at z = 14 a relative 1e-7 in z is 2e-5 in p
    _close(np.log(table["Pr(>|z|)"]), np.log(f["p"]))
    for mine, theirs in [(m.deviance, "deviance"), (m.null_deviance, "null_deviance"),
                         (m.aic, "aic"), (m.loglik, "loglik"), (m.df_resid, "df_residual"),
                         (m.df_null, "df_null")]:
        assert mine == pytest.approx(f[theirs], rel=1e-6), theirs
    _close(m.fitted_values, f["fitted"])
    _close(m.eta, f["linear_predictors"], atol=1e-7)      # some η are near 0
    assert m.converged and m.default_vcov == "model"


def test_residuals_and_hat_values_equal_r(fitted):
    link, m, r = fitted
    f = r["fit"]
    for kind in ("deviance", "pearson", "working"):
        _close(m.residuals(kind).iloc[:60], f["residuals"][kind])
    _close(m.hat_values().iloc[:60], f["hat"])


def test_covariances_are_rs_expected_information_and_sandwich(fitted):
    """vcov is R's (X'WX)⁻¹ with the Fisher weights μ'²/(μ(1 − μ)), not the inverse
    observed Hessian; HC0 and HC3 are sandwich::vcovHC of the glm."""
    link, m, r = fitted
    f = r["fit"]
    _close_cov(m.vcov(), f["vcov"])
    _close_cov(m.vcov("HC0"), f["hc0"])
    _close_cov(m.vcov("HC3"), f["hc3"])
    _close_cov(m.vcov("HC1"), f["hc1"])
    _close_cov(m.vcov("HC2"), f["hc2"])


def test_the_model_covariance_is_not_the_observed_hessian(fitted):
    """The inverse observed information differs from R's vcov by far more than 1e-6 (so
    the test above could fail): the Fisher weights are what R uses."""
    link, m, r = fitted
    fam = m.family
    X = np.column_stack([np.ones(len(PIMA)), PIMA["glucose"], PIMA["mass"], PIMA["pedigree"],
                         PIMA["agegrp"] == "mid", PIMA["agegrp"] == "old"]).astype(float)
    y, eta, h = PIMA["y"].to_numpy(float), m.eta, 1e-5
    observed = (fam.gradient(y, eta + h) - fam.gradient(y, eta - h)) / (2 * h)
    V_obs = np.linalg.inv(X.T @ (observed[:, None] * X))
    V_r = np.array(r["fit"]["vcov"])
    assert np.max(np.abs(np.diag(V_obs) - np.diag(V_r)) / np.diag(V_r)) > 1e-3


def test_predict_with_standard_errors_equals_predict_glm(fitted):
    link, m, r = fitted
    p = r["fit"]["predict"]
    lk = m.predict(NEW, type="link", se_fit=True)
    _close(lk["fit"], p["link"])
    _close(lk["se_fit"], p["link_se"])
    resp = m.predict(NEW, type="response", se_fit=True)
    _close(resp["fit"], p["response"])
    _close(resp["se_fit"], p["response_se"])


def test_profile_intervals_equal_mass_confint(fitted):
    """MASS's confint.glm interpolates the profile by a spline: agreement to 1e-4, as for
    the logit (ubreg solves for the exact crossing)."""
    link, m, r = fitted
    _close(m.confint(), r["fit"]["confint"], rtol=1e-4)


def test_anova_and_drop1_equal_r(fitted):
    link, m, r = fitted
    f = r["fit"]
    m0 = ubreg.fit(R["small"], PIMA, family=m.family)
    table = ubreg.anova(m0, m, test="Chisq")
    for col, ref in f["anova"].items():
        _close(table[col], ref)
    drop = ubreg.drop1(m, test="Chisq")
    assert list(drop.index) == f["drop1_rows"]
    for col, ref in f["drop1"].items():
        _close(drop[col], ref)


def test_add1_equals_r(fitted):
    link, m, r = fitted
    f = r["fit"]
    m0 = ubreg.fit(R["small"], PIMA, family=m.family)
    table = ubreg.add1(m0, scope=R["formula"], test="Chisq")
    assert list(table.index) == f["add1_rows"]
    for col, ref in f["add1"].items():
        _close(table[col], ref)


def test_tidy_equals_broom(fitted):
    """broom::tidy(conf.int = TRUE): Wald columns to 1e-6, MASS's profile limits to 1e-4."""
    link, m, r = fitted
    t, ref = ubreg.tidy(m, conf_int=True), r["fit"]["tidy"]
    assert list(t["term"]) == ref["term"]
    for col in ("estimate", "std.error", "statistic"):
        _close(t[col], ref[col])
    _close(np.log(t["p.value"]), np.log(ref["p.value"]))
    _close(t[["conf.low", "conf.high"]], np.column_stack([ref["conf.low"], ref["conf.high"]]),
           rtol=1e-4)


def test_weighted_fit_equals_r(fitted):
    """Fractional prior weights with zeros (glm_weights.R's w_frac): R's AIC rounds them.
    R's reference starts from the unweighted fit: from its default start R's IRLS diverges
    for cloglog (deviance 12146.7, coefficients near 1e15), where ubreg's safeguarded
    Newton steps reach the maximum (701.02) from β = 0."""
    link, m, r = fitted
    w = r["weighted"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mw = ubreg.fit(R["formula"], PIMA, family=m.family, weights="w_frac")
    _close_coef(mw.coef, list(w["coef"].values()), w["se"])
    _close(mw.bse, w["se"])
    for mine, theirs in [(mw.deviance, "deviance"), (mw.null_deviance, "null_deviance"),
                         (mw.aic, "aic"), (mw.loglik, "loglik"),
                         (mw.df_resid, "df_residual")]:
        assert mine == pytest.approx(theirs if isinstance(theirs, float) else w[theirs],
                                     rel=1e-6), theirs
    assert mw.converged
    if link == "cloglog":
        assert w["default_start_deviance"] > 10 * mw.deviance
    else:
        assert mw.deviance == pytest.approx(w["default_start_deviance"], rel=1e-9)
    _close_cov(mw.vcov(), w["vcov"])
    # sandwich 3.0-2 counts the rows of weight 0 in its meat's divisor but not in its
    # bread's scale: its HC0 is (n₊/n)² times that of the fit without them, which ubreg's
    # is (as tests/test_weights.py shows for the logit)
    quirk = (len(PIMA) / np.count_nonzero(PIMA["w_frac"])) ** 2
    # cloglog: R's Fisher scoring, restarted from its own answer, moves pedigree by 2e-6
    # of itself (the deviance is flat to rounding there): its HC0 is known to about 1e-6
    _close_cov(mw.vcov("HC0"), quirk * np.array(w["hc0"]),
               rtol=2e-6 if link == "cloglog" else 1e-6)


def test_grouped_binomial_equals_r(fitted):
    """cbind(successes, failures) on R's esoph: the binomial deviance of proportions."""
    link, m, r = fitted
    g = r["grouped"]
    with warnings.catch_warnings():       # few rows carry the curvature (InferenceWarning)
        warnings.simplefilter("ignore", ubreg.errors.InferenceWarning)
        mg = ubreg.fit("cbind(ncases, ncontrols) ~ agegp + alcgp", ESOPH, family=m.family)
    _close(mg.coef, list(g["coef"].values()))
    _close(mg.bse, g["se"])
    for mine, theirs in [(mg.deviance, "deviance"), (mg.null_deviance, "null_deviance"),
                         (mg.aic, "aic"), (mg.loglik, "loglik")]:
        assert mine == pytest.approx(g[theirs], rel=1e-6), theirs


def test_summary_prints_the_family_and_rs_deviance_block(fitted):
    link, m, r = fitted
    text = str(m.summary())
    assert f'Family: binomial(link = "{link}")' in text
    assert "Residual deviance:" in text and "AIC:" in text and "Null risk" not in text
    assert "inverse Fisher information" in text
    assert f'family=binomial(link="{link}")' in m.call


def test_step_equals_rs_step(fitted):
    """step() by AIC, the binomial likelihood's for any link: R's choice (cloglog drops
    pedigree and pressure, probit and cauchit pressure only), its AIC and coefficients."""
    link, m, r = fitted
    ref = r["fit"]["step"]
    rows = PIMA.dropna(subset=["pressure"])
    full = ubreg.fit(R["formula"] + " + pressure", rows, family=m.family)
    chosen = ubreg.step(full)
    assert set(chosen.design.terms_in_formula_order()) - {"(Intercept)"} == set(ref["terms"])
    assert chosen.aic == pytest.approx(ref["aic"], rel=1e-6)
    _close(chosen.coef, ref["coef"])


# ---- the family itself ------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ['binomial(link = "probit")', "binomial(link = 'probit')",
                                      'binomial("probit")', "binomial(probit)",
                                      ' binomial( link="probit" ) '])
def test_rs_spellings(spelling):
    assert resolve_family(spelling) == BinomialLink("probit") == ubreg.binomial("probit")


def test_logit_is_the_entropy_family_and_a_link_alone_is_no_family():
    for s in ("binomial()", 'binomial(link = "logit")', "binomial(logit)"):
        assert resolve_family(s) == Entropy()
    assert ubreg.binomial() == ubreg.binomial(link="logit") == Entropy()
    for name in ("probit", "cloglog", "cauchit"):
        with pytest.raises(ValueError, match="is a link, not a family"):
            resolve_family(name)
    with pytest.raises(ValueError, match="not available"):
        resolve_family('binomial(link = "log")')
    with pytest.raises(ValueError, match="unknown link"):
        ubreg.binomial("loglog")
    for bad in ('binomial(link = "probit"', "binomial(link = probit + 1)",
                'binomial(link = "probit", x)', "binomial(link = 'probit\")"):
        with pytest.raises(ValueError, match="cannot read"):
            resolve_family(bad)


@pytest.mark.parametrize("link", LINKS)
def test_extreme_link_values_are_finite_and_silent(link):
    fam = BinomialLink(link)
    eta = np.array([-1e300, -1e8, -1e3, -40.0, 0.0, 40.0, 1e3, 1e8, 1e300])
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        out = [fam.posterior(eta), *fam.posterior_pair(eta), fam.score_variance(eta),
               fam.posterior_derivative(eta)]
        for y in (0.0, 1.0, 0.25):
            out += [fam.loss(y, eta), fam.gradient(y, eta), fam.hessian(y, eta)]
    assert all(np.all(np.isfinite(o)) for o in out)
    assert np.all(fam.hessian(0.0, eta) >= 0)
    # the right class far out: (almost) no loss; the wrong one: a loss that grows (slowly
    # for cauchit's heavy tails: ln(π·1e3))
    assert 0.0 <= fam.loss(1.0, 1e3) < 1e-3 and -1e-3 < fam.gradient(1.0, 1e3) <= 0.0
    assert fam.loss(1.0, -1e3) > 5.0 and fam.gradient(1.0, -1e3) < 0.0
    assert np.all(np.diff(fam.loss(1.0, eta)) <= 0) and np.all(np.diff(fam.loss(0.0, eta)) >= 0)


@pytest.mark.parametrize("link", LINKS)
def test_derivatives_are_those_of_the_likelihood(link):
    fam = BinomialLink(link)
    eta = np.array([-6.0, -2.0, -0.7, 0.0, 0.3, 1.5, 3.0])
    h = 1e-6
    for y in (0.0, 1.0, 0.3):
        fd = (fam.loss(y, eta + h) - fam.loss(y, eta - h)) / (2 * h)
        np.testing.assert_allclose(fam.gradient(y, eta), fd, rtol=1e-6, atol=1e-9)
    # dμ/dη from the side that keeps its digits (1 − μ for cloglog at η = 3, μ ≈ 1 − 2e-9)
    (p_hi, q_hi), (p_lo, q_lo) = fam.posterior_pair(eta + h), fam.posterior_pair(eta - h)
    p, q = fam.posterior_pair(eta)
    fd = np.where(p < q, p_hi - p_lo, q_lo - q_hi) / (2 * h)
    mu_eta = fam.posterior_derivative(eta)
    np.testing.assert_allclose(mu_eta, fd, rtol=1e-6)
    np.testing.assert_allclose(fam.hessian(1.0, eta), mu_eta ** 2 / (p * q), rtol=1e-12)
    keep = np.minimum(p, q) > 1e-6            # the link of p near 1 has lost its digits
    np.testing.assert_allclose(fam.link(p[keep]), eta[keep], rtol=1e-9, atol=1e-12)


def test_pickles_and_compares():
    fam = ubreg.binomial("cloglog")
    assert pickle.loads(pickle.dumps(fam)) == fam and fam != BinomialLink("probit")
    assert hash(fam) == hash(BinomialLink("cloglog")) and repr(fam) == 'binomial(link="cloglog")'
    m = ubreg.fit("y ~ glucose", PIMA, family=fam)
    assert pickle.loads(pickle.dumps(m)).coef.equals(m.coef)


# ---- the methods ------------------------------------------------------------------------
@pytest.mark.parametrize("method, options", [("udt", {}), ("uls", {"learner": "stumps"}),
                                             ("gnnb", {}), ("uboost", {}), ("tboost", {})])
def test_other_methods_refuse_it_by_name(method, options):
    with pytest.raises(ValueError, match="learner='linear' only"):
        ubreg.fit("y ~ glucose", PIMA, family="binomial(probit)", method=method, **options)
    with pytest.raises(ValueError, match="bag"):
        ubreg.fit("y ~ glucose", PIMA, family=["entropy", "binomial(probit)"],
                  learner="stumps")


def test_coordinate_solver_reaches_the_same_fit():
    a = ubreg.fit("y ~ glucose + mass", PIMA, family="binomial(cloglog)")
    b = ubreg.fit("y ~ glucose + mass", PIMA, family="binomial(cloglog)", solver="coordinate")
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-6)


def test_separation_is_detected_for_any_link():
    d = pd.DataFrame({"y": [0, 0, 0, 1, 1, 1], "x": [1.0, 2, 3, 4, 5, 6]})
    with pytest.warns(ubreg.errors.SeparationWarning, match="separation"):
        m = ubreg.fit("y ~ x", d, family="binomial(probit)")
    assert m.separation.separated and not m.converged


def test_dask_fit_equals_the_fit_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    cols = ["y", "glucose", "mass", "pedigree"]
    for link in LINKS:
        fam = f"binomial({link})"
        a = ubreg.fit("y ~ glucose + mass + pedigree", PIMA[cols], family=fam)
        b = ubreg.fit("y ~ glucose + mass + pedigree", dd.from_pandas(PIMA[cols], npartitions=3),
                      family=fam)
        np.testing.assert_allclose(b.coef, a.coef, rtol=1e-9)
        np.testing.assert_allclose(b.bse, a.bse, rtol=1e-8)
        assert b.deviance == pytest.approx(a.deviance, rel=1e-12)
        assert b.aic == pytest.approx(a.aic, rel=1e-12)
