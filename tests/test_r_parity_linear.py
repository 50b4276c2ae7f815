"""The linear fit against R's glm toolkit: offsets, grouped binomial responses,
``na.exclude``, ``predict.glm(se.fit = TRUE)``, ``sandwich::vcovHC``, ``confint``
(MASS's profile) and working residuals.

Reference numbers: tests/fixtures/glm_parity.json, written by glm_parity.R (each case
keeps its ``r_code``).  1e-6 relative unless stated.
"""
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import FormulaError, PredictionError

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "glm_parity.json").read_text())["cases"]
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
NEW5 = PIMA.iloc[[0, 2, 4, 6, 8]]          # R's pima[c(1, 3, 5, 7, 9), ]
#: R's esoph: the factors with R's level order (treatment contrasts, as glm_parity.R)
ESOPH_LEVELS = {"agegp": ["25-34", "35-44", "45-54", "55-64", "65-74", "75+"],
                "alcgp": ["0-39g/day", "40-79", "80-119", "120+"],
                "tobgp": ["0-9g/day", "10-19", "20-29", "30+"]}
ESOPH = pd.read_csv(FIXTURES / "data" / "esoph.csv").astype(
    {k: pd.CategoricalDtype(v) for k, v in ESOPH_LEVELS.items()})
#: the complete cases of glm_parity.R's ``cc`` and its model ``big``
CC = PIMA.dropna(subset=["glucose", "mass", "pedigree", "age", "pressure", "pregnant",
                         "diabetes"])
BIG = "diabetes ~ glucose + mass + pedigree + age"


def _fit(formula, data=PIMA, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ubreg.errors.ConvergenceWarning)
        warnings.simplefilter("error", ubreg.errors.SeparationWarning)
        return ubreg.fit(formula, data, **kw)


def _close(actual, expected, rtol=1e-6, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float),
                               rtol=rtol, atol=atol)


def _r_numbers(values):
    """R's NA (jsonlite writes "NA") as NaN."""
    return np.array([np.nan if v == "NA" else v for v in values], dtype=float)


def _same_glm(m, r, rtol=1e-6):
    """Coefficients (by R's names), SEs, deviances, df and AIC of ``m`` equal R's."""
    assert list(m.coef.index) == list(r["coef"])       # R's names, as R orders them
    _close(m.coef, list(r["coef"].values()), rtol)
    _close(m.bse, r["se"], rtol)
    _close(m.deviance, r["deviance"], rtol)
    _close(m.null_deviance, r["null_deviance"], rtol)
    _close(m.aic, r["aic"], rtol)
    assert m.df_resid == r["df_residual"] and m.df_null == r["df_null"]
    assert m.nobs == r["nobs"]


# --- 1. offsets --------------------------------------------------------------------------
OFFSET_FITS = {"offset_formula": ("diabetes ~ glucose + mass + offset(log(age))", {}),
               "offset_argument": ("diabetes ~ glucose + mass", {"offset": "0.02 * age"})}


@pytest.mark.parametrize("solver", ["corrective", "coordinate"])
@pytest.mark.parametrize("case", list(OFFSET_FITS))
def test_offset_fit_equals_r(case, solver):
    formula, kw = OFFSET_FITS[case]
    m = _fit(formula, solver=solver, **kw)
    r = CASES[case]
    _same_glm(m, r)
    _close(m.fitted_values, r["fitted"])
    _close(m.predict(type="link"), r["linear_predictors"], atol=1e-7)   # η crosses 0
    # new data: the offset is rebuilt from their columns
    _close(m.predict(NEW5, type="link"), r["predict_link"])
    _close(m.predict(NEW5, type="response"), 1 / (1 + np.exp(-np.array(r["predict_link"]))))
    _close(m.residuals("response"), m.y - np.asarray(r["fitted"]), atol=1e-12)


def test_offset_as_array_and_missing_offset_variable():
    off = 0.02 * PIMA["age"].to_numpy()
    m = _fit("diabetes ~ glucose + mass", offset=off)
    _close(m.coef, list(CASES["offset_argument"]["coef"].values()))
    with pytest.raises(PredictionError, match="array"):
        m.predict(NEW5)
    m = _fit("diabetes ~ glucose + mass + offset(log(age))")
    new = NEW5.copy()
    new.loc[new.index[1], "age"] = np.nan
    p = m.predict(new, type="link")
    assert np.isnan(p.iloc[1]) and np.isfinite(p.drop(new.index[1])).all()


def test_offset_refused_by_weak_learners():
    with pytest.raises(FormulaError, match="offset"):
        ubreg.fit("diabetes ~ glucose + offset(log(age))", PIMA, learner="stumps", rounds=2)


@pytest.mark.slow
def test_dask_refuses_offset_subset_and_proportions():
    dd = pytest.importorskip("dask.dataframe")
    import dask
    ddf = dd.from_pandas(PIMA.dropna(subset=["glucose", "mass", "age", "diabetes"]),
                         npartitions=2)
    esoph = dd.from_pandas(ESOPH, npartitions=2)
    with dask.config.set(scheduler="sync"):
        for kw, formula, data, word in [
                ({}, "diabetes ~ glucose + offset(log(age))", ddf, "offset"),
                ({"offset": "age"}, "diabetes ~ glucose", ddf, "offset"),
                ({"subset": "age > 30"}, "diabetes ~ glucose", ddf, "subset"),
                ({}, "cbind(ncases, ncontrols) ~ agegp", esoph, "cbind")]:
            with pytest.raises((ValueError, FormulaError), match=word):
                ubreg.fit(formula, data, **kw)


@pytest.mark.slow
def test_dask_fit_gives_what_its_sums_allow():
    # HC0/HC1 and Wald intervals from the partition sums; hat values (HC2, HC3, profile
    # intervals) need rows a Dask fit does not hold, and say so
    dd = pytest.importorskip("dask.dataframe")
    import dask
    ddf = dd.from_pandas(CC, npartitions=2)
    with dask.config.set(scheduler="sync"):
        m = ubreg.fit(BIG, ddf)
        _close(m.vcov("HC1"), np.array(CASES["vcov_HC1"]["matrix"]).reshape(5, 5, order="F"))
        _close(m.confint(method="wald")["97.5 %"], CASES["confint"]["wald_upper"])
        assert "HC1" in str(m.summary(vcov="HC1"))
        for call in (lambda: m.vcov("HC3"), lambda: m.confint()):
            with pytest.raises(ValueError, match="Dask"):
                call()


# --- 2. grouped binomial -----------------------------------------------------------------
@pytest.mark.parametrize("case", ["cbind", "proportion_weights"])
def test_grouped_binomial_equals_r(case):
    rhs = "agegp + alcgp + tobgp"
    if case == "cbind":
        m = _fit(f"cbind(ncases, ncontrols) ~ {rhs}", ESOPH)
    else:
        m = _fit(f"I(ncases / (ncases + ncontrols)) ~ {rhs}", ESOPH,
                 weights=(ESOPH.ncases + ESOPH.ncontrols).to_numpy())
    r = CASES[case]
    _same_glm(m, r)
    _close(m.fitted_values, r["fitted"])
    assert m.converged and m.separation is None or not m.separation.separated


def test_cbind_with_prior_weights_equals_r():
    # R's binomial()$aic weighs each row's log dbinom(successes; trials, p) by its prior
    # weight; the coefficients, SEs and deviances use the product prior x trials
    pw = np.resize([1.0, 2.0, 0.5, 3.0], len(ESOPH))
    m = _fit("cbind(ncases, ncontrols) ~ agegp + alcgp + tobgp", ESOPH, weights=pw)
    r = CASES["cbind_prior_weights"]
    _same_glm(m, r)
    _close(m.fitted_values, r["fitted"])


def test_proportion_divergence_is_bregman_for_every_family():
    y = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    p = np.array([0.3, 0.6, 0.5, 0.2, 0.7])
    ent = ubreg.Permissible("entropy")
    with np.errstate(divide="ignore", invalid="ignore"):
        binomial = np.where(y > 0, y * np.log(y / p), 0) + \
            np.where(y < 1, (1 - y) * np.log((1 - y) / (1 - p)), 0)
    _close(ent.divergence(y, ent.link(p)), binomial, rtol=1e-12, atol=1e-15)
    for name in ubreg.families.FAMILIES:
        fam = ubreg.Permissible(name)
        eta = fam.link(p)
        _close(fam.divergence(y, eta), fam.D(y, p), rtol=1e-8, atol=1e-12)
        _close(fam.gradient(y, eta), p - y, rtol=1e-8, atol=1e-12)


def test_separation_check_does_not_misfire_on_proportions():
    # the 0/1 rows alone are separated by x; the proportions in between are not
    data = pd.DataFrame({"x": [0.0, 1, 2, 3, 4, 5], "s": [0, 0, 1, 2, 3, 3],
                         "f": [3, 3, 2, 1, 0, 0]})
    m = _fit("cbind(s, f) ~ x", data)
    assert m.converged and (m.separation is None or not m.separation.separated)
    # a separated grouped response is still found
    sep = pd.DataFrame({"x": [0.0, 1, 2, 3], "s": [0, 0, 3, 3], "f": [3, 3, 0, 0]})
    with pytest.warns(ubreg.errors.SeparationWarning, match="separation"):
        ubreg.fit("cbind(s, f) ~ x", sep)


def test_proportions_refused_by_the_exponential_loss():
    with pytest.raises(ValueError, match="proportion"):
        ubreg.fit("cbind(ncases, ncontrols) ~ agegp", ESOPH, family=ubreg.Exponential())


# --- 3. na_action = "exclude" -------------------------------------------------------------
def test_na_exclude_pads_residuals_and_fitted_values():
    formula = "diabetes ~ glucose + mass + pressure"
    m = _fit(formula, na_action="exclude")
    r = CASES["na_exclude"]
    _close(m.coef, list(r["coef"].values()))
    res, fitted = m.residuals("deviance"), m.fitted_values
    assert len(res) == len(fitted) == len(PIMA) and res.index.equals(PIMA.index)
    _close(res, _r_numbers(r["residuals_deviance"]))
    _close(fitted, _r_numbers(r["fitted_all"]))
    omit = _fit(formula)
    assert len(omit.residuals()) == len(omit.fitted_values) == r["nobs"]
    _close(omit.fitted_values, m.fitted_values.dropna())
    assert np.isfinite(m.summary().residual_quantiles).all()


def test_na_exclude_with_subset_pads_to_the_subset():
    m = _fit("diabetes ~ glucose + mass", na_action="exclude", subset="age > 30")
    inside = PIMA.index[PIMA["age"] > 30]
    assert m.fitted_values.index.equals(inside)
    assert m.fitted_values.notna().sum() == CASES["subset_expression"]["nobs"]


# --- 4. predict(se_fit=True, interval=) --------------------------------------------------
@pytest.fixture(scope="module")
def big():
    return _fit(BIG, CC)


def test_predict_se_fit_equals_predict_glm(big):
    r = CASES["predict_se"]
    new = PIMA.loc[np.array(r["rows"]) - 1]          # R's row names are 1-based
    link = big.predict(new, type="link", se_fit=True)
    assert list(link.columns) == ["fit", "se_fit"] and link.index.equals(new.index)
    _close(link["fit"], r["link_fit"])
    _close(link["se_fit"], r["link_se"])
    resp = big.predict(new, type="response", se_fit=True)
    _close(resp["fit"], r["response_fit"])
    _close(resp["se_fit"], r["response_se"])
    ci = big.predict(new, type="response", interval="confidence", level=0.95)
    _close(ci["lower"], r["lower"])
    _close(ci["upper"], r["upper"])
    assert (ci["lower"] < ci["fit"]).all() and (ci["fit"] < ci["upper"]).all()
    ci_link = big.predict(new, type="link", interval="confidence")
    _close(ci_link["upper"], np.log(np.array(r["upper"]) / (1 - np.array(r["upper"]))))


def test_predict_se_fit_training_rows_and_na(big):
    own = big.predict(type="link", se_fit=True)
    again = big.predict(CC, type="link", se_fit=True)
    _close(own["se_fit"], again["se_fit"], rtol=1e-10)
    new = PIMA.iloc[:4].copy()
    new.loc[new.index[0], "mass"] = np.nan
    out = big.predict(new, type="response", se_fit=True)
    assert out.iloc[0].isna().all() and out.iloc[1:].notna().all().all()
    with pytest.raises(ValueError, match="class"):
        big.predict(new, type="class", se_fit=True)
    with pytest.raises(ValueError, match="interval"):
        big.predict(new, interval="prediction")


# --- 5. vcovHC -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["HC0", "HC1", "HC2", "HC3"])
def test_vcov_hc_equals_sandwich(big, kind):
    V_r = np.array(CASES[f"vcov_{kind}"]["matrix"]).reshape(5, 5, order="F")
    V = big.vcov(kind).to_numpy()
    _close(V, V_r)
    se = big.coef_table(vcov=kind)["std_error"]
    _close(se, np.sqrt(np.diag(V_r)))
    assert kind in str(big.summary(vcov=kind))


def test_vcov_aliases_and_errors(big):
    _close(big.vcov("robust"), big.vcov("HC0"), rtol=0)
    _close(big.coef_table(cov="HC3")["std_error"], big.coef_table(vcov="HC3")["std_error"],
           rtol=0)
    assert "HC0" in str(big.summary(cov="robust"))
    with pytest.raises(ValueError, match="HC3"):
        big.vcov("HC5")
    with pytest.raises(TypeError, match="vcov"):
        big.coef_table(vcov="HC1", cov="HC3")


EXTRA = json.loads((FIXTURES / "glm_linear_extra.json").read_text())["cases"]
SIM = pd.DataFrame(EXTRA["data"])


@pytest.mark.parametrize("weight_kind", ["prior", "freq"])
def test_hat_values_and_hc_of_a_weighted_fit_equal_sandwich(weight_kind):
    # R: hatvalues = w p(1 - p) x A^-1 x; vcovHC of the weighted glm.  Frequency weights
    # (integers here) are the rows repeated: every HC of the expanded rows, a copy's
    # leverage being h/w
    r = EXTRA["weighted"]
    kinds = ["HC0", "HC1", "HC2", "HC3"]
    if weight_kind == "prior":
        m = ubreg.fit("y ~ x + z", SIM, weights="w")
        _close(m.hat_values(), r["hat"], rtol=1e-7)
        assert m.hat_values().sum() == pytest.approx(3.0, rel=1e-12)
        for kind in kinds:
            _close(m.vcov(kind), np.array(r[kind]).reshape(3, 3, order="F"), rtol=1e-6)
    else:
        m = ubreg.fit("y ~ x + z", SIM, freq_weights="w")
        long = SIM.loc[SIM.index.repeat(SIM["w"])].reset_index(drop=True)
        expanded = ubreg.fit("y ~ x + z", long)
        for kind in kinds:
            _close(m.vcov(kind), expanded.vcov(kind), rtol=1e-8)


def test_offset_without_intercept_null_deviance_equals_r():
    r = EXTRA["offset_no_intercept"]
    m = _fit("y ~ x + z - 1 + offset(0.3 * z)", SIM)
    _close(m.coef, r["coef"])
    _close(m.deviance, r["deviance"])
    _close(m.null_deviance, r["null_deviance"])        # η = offset: R's linkinv(offset)
    assert m.df_null == r["df_null"]


@pytest.mark.slow
def test_results_pickle_with_what_inference_needs(big):
    import pickle
    again = pickle.loads(pickle.dumps(big))
    _close(again.vcov("HC3"), big.vcov("HC3"), rtol=0)
    _close(again.confint(), big.confint(), rtol=0)
    m = pickle.loads(pickle.dumps(_fit("diabetes ~ glucose + mass + offset(log(age))")))
    _close(m.predict(NEW5, type="link"), CASES["offset_formula"]["predict_link"])
    _close(m.null_deviance, CASES["offset_formula"]["null_deviance"])


# --- 6. confint ---------------------------------------------------------------------------
@pytest.mark.slow
def test_confint_profile_equals_mass(big):
    r = CASES["confint"]
    ci = big.confint()
    assert list(ci.columns) == r["colnames"] == ["2.5 %", "97.5 %"]
    assert list(ci.index) == list(big.coef.index)
    _close(ci["2.5 %"], r["profile_lower"], rtol=1e-3)
    _close(ci["97.5 %"], r["profile_upper"], rtol=1e-3)
    wald = big.confint(method="wald")
    _close(wald["2.5 %"], r["wald_lower"])
    _close(wald["97.5 %"], r["wald_upper"])
    r90 = CASES["confint_90"]
    ci90 = big.confint(level=0.9)
    assert list(ci90.columns) == r90["colnames"] == ["5 %", "95 %"]
    _close(ci90["5 %"], r90["profile_lower"], rtol=1e-3)
    _close(ci90["95 %"], r90["profile_upper"], rtol=1e-3)


def test_confint_profile_is_the_exact_crossing(big):
    # at each end the signed root deviance of the constrained fit is ±z: refit with
    # the coefficient fixed as an offset
    ci = big.confint()
    term, lo = "glucose", ci.loc["glucose", "2.5 %"]
    cc = CC.assign(fixed=lo * CC["glucose"])
    constrained = _fit("diabetes ~ mass + pedigree + age", cc, offset="fixed")
    z = np.sqrt(constrained.deviance - big.deviance)
    _close(z, 1.959963984540054, rtol=1e-7)
    assert term in ci.index


def test_confint_other_families_wald_only():
    m = _fit("diabetes ~ glucose + mass", CC, family="matsushita")
    _close(m.confint(), m.confint(method="wald"), rtol=0)
    with pytest.raises(ValueError, match="likelihood"):
        m.confint(method="profile")


# --- 7. working residuals ---------------------------------------------------------------
def test_every_residual_type_equals_r(big):
    r = CASES["residuals"]
    for kind in ("working", "response", "pearson", "deviance"):
        _close(big.residuals(kind), r[kind], atol=1e-12)


# --- 8. family names ----------------------------------------------------------------------
@pytest.mark.slow
def test_binomial_and_every_family_name_is_accepted():
    base = _fit("diabetes ~ glucose + mass", CC)
    _close(_fit("diabetes ~ glucose + mass", CC, family="binomial").coef, base.coef, rtol=0)
    names = [*ubreg.families.FAMILIES, *ubreg.families.ALIASES, "binomial", "Binomial",
             "exponential"]
    for name in names:
        m = ubreg.fit("diabetes ~ glucose + mass", CC, family=name)
        assert np.isfinite(m.coef).all(), name
