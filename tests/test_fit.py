"""ubreg.fit with method="uls": formula handling, weights, errors, results."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import (
    ConvergenceWarning,
    DataError,
    FormulaError,
    PredictionError,
    ResponseError,
    SeparationWarning,
)

FAMILY_NAMES = ["gini", "entropy", "entropy2", "matsushita", "mu", "power", "logcosh"]


@pytest.fixture
def toy():
    rng = np.random.default_rng(0)
    n = 300
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    eta = 0.5 + 1.2 * x1 - 0.7 * x2 + np.where(g == "b", 0.8, 0.0)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g})


FORMULA = "diabetes ~ pregnant + glucose + mass + pedigree"


# ---- solvers and families ------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_corrective_and_coordinate_reach_the_same_optimum(pima, name):
    fam = ubreg.Permissible(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeparationWarning)
        a = ubreg.fit(FORMULA, pima, family=fam, solver="corrective")
        b = ubreg.fit(FORMULA, pima, family=fam, solver="coordinate")
    assert a.converged and b.converged
    # same optimum: risks agree to near machine precision, coefficients closely
    assert abs(a.deviance - b.deviance) <= 1e-9 * a.deviance
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-5, atol=1e-8)
    # the optimum zeroes every edge (eq. 70)
    assert a.fit_info.max_edge < 1e-10


def test_risk_path_decreases_and_edge_path_reaches_tol(pima):
    m = ubreg.fit(FORMULA, pima, family=ubreg.Permissible("matsushita"))
    risk = m.fit_info.risk_path
    assert np.all(np.diff(risk) <= 1e-15 * risk[0])
    assert m.fit_info.edge_path[-1] <= 1e-10 < m.fit_info.edge_path[0]
    assert len(risk) == m.iterations + 1


def test_gini_linear_model_is_least_squares(pima):
    m = ubreg.fit(FORMULA, pima, family=ubreg.Permissible("gini"))
    d = pima.dropna(subset=["glucose", "mass"])
    X = np.column_stack([np.ones(len(d)), d[["pregnant", "glucose", "mass", "pedigree"]]])
    y = (d["diabetes"] == "pos").to_numpy(float)
    beta_p = np.linalg.lstsq(X, y, rcond=None)[0]
    # p = (1 + η)/2, so the LPM coefficients on the p scale are (β + e₁)/2
    np.testing.assert_allclose((m.coef.to_numpy() + np.r_[1, 0, 0, 0, 0]) / 2, beta_p, rtol=1e-8)
    assert "linear probability model" in str(m.summary())


def test_exponential_family_fits_linear_adaboost(toy):
    m = ubreg.fit("y ~ x1 + x2", toy, family=ubreg.Exponential())
    # AdaBoost's linear optimum: Σ exp(−y*η) x = 0, and posterior = expit(2η)
    X = np.column_stack([np.ones(len(toy)), toy.x1, toy.x2])
    ystar = 2 * toy.y.to_numpy() - 1
    grad = X.T @ (-ystar * np.exp(-ystar * (X @ m.coef.to_numpy())))
    assert np.max(np.abs(grad)) < 1e-8 * len(toy)
    np.testing.assert_allclose(m.fitted_values, 1 / (1 + np.exp(-2 * m.predict(type="link"))))


# ---- response coding -------------------------------------------------------------
def test_response_encodings_agree(toy):
    labels = toy.assign(yb=toy.y.astype(bool), ys=np.where(toy.y == 1, "yes", "no"),
                        yc=pd.Categorical(np.where(toy.y == 1, "yes", "no")))
    coefs = [ubreg.fit(f"{r} ~ x1 + x2", labels).coef.to_numpy() for r in ("y", "yb", "ys", "yc")]
    for c in coefs[1:]:
        np.testing.assert_allclose(c, coefs[0], rtol=1e-10)


def test_positive_class_is_second_sorted_level_and_can_be_overridden(toy):
    d = toy.assign(ys=np.where(toy.y == 1, "b_yes", "a_no"))
    m = ubreg.fit("ys ~ x1", d)
    assert m.response.positive == "b_yes"
    flipped = ubreg.fit("ys ~ x1", d, positive="a_no")
    np.testing.assert_allclose(flipped.coef, -m.coef, rtol=1e-10)
    assert set(m.predict(type="class").unique()) <= {"a_no", "b_yes"}


def test_categorical_level_order_is_kept_like_an_r_factor(toy):
    d = toy.assign(yc=pd.Categorical(np.where(toy.y == 1, "a", "b"), categories=["b", "a"]))
    assert ubreg.fit("yc ~ x1", d).response.positive == "a"


# ---- weights -----------------------------------------------------------------------
def test_weight_two_equals_duplicated_row(toy):
    w = np.ones(len(toy))
    w[[3, 10, 50]] = 2
    weighted = ubreg.fit("y ~ x1 + x2 + g", toy, freq_weights=w)
    dup = pd.concat([toy, toy.iloc[[3, 10, 50]]], ignore_index=True)
    duplicated = ubreg.fit("y ~ x1 + x2 + g", dup)
    np.testing.assert_allclose(weighted.coef, duplicated.coef, rtol=1e-9)
    np.testing.assert_allclose(weighted.bse, duplicated.bse, rtol=1e-9)
    np.testing.assert_allclose(weighted.vcov("robust"), duplicated.vcov("robust"), rtol=1e-8)
    for attr in ("deviance", "null_deviance", "aic", "bic", "loglik", "nobs", "df_resid"):
        np.testing.assert_allclose(getattr(weighted, attr), getattr(duplicated, attr), rtol=1e-9)


def test_zero_weight_equals_removed_row(toy):
    w = np.ones(len(toy))
    w[:20] = 0
    a = ubreg.fit("y ~ x1 + x2", toy, weights=w)
    b = ubreg.fit("y ~ x1 + x2", toy.iloc[20:])
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-9)
    np.testing.assert_allclose(a.bse, b.bse, rtol=1e-9)
    assert a.df_resid == b.df_resid


def test_weights_by_column_name(toy):
    d = toy.assign(w=np.arange(len(toy)) % 3 + 1)
    np.testing.assert_allclose(ubreg.fit("y ~ x1", d, weights="w").coef,
                               ubreg.fit("y ~ x1", d, weights=d["w"].to_numpy()).coef)


@pytest.mark.parametrize("weights, match", [
    (lambda n: -np.ones(n), "negative"),
    (lambda n: np.zeros(n), "all zero"),
    (lambda n: np.r_[np.nan, np.ones(n - 1)], "NaN"),
    (lambda n: np.ones(n - 1), "has 299 values but the data have 300 rows"),
])
def test_bad_weights_are_named(toy, weights, match):
    with pytest.raises(DataError, match=match):
        ubreg.fit("y ~ x1", toy, weights=weights(len(toy)))


# ---- missing values -------------------------------------------------------------------
def test_na_rows_are_dropped_counted_and_predicted_as_nan(pima):
    m = ubreg.fit(FORMULA, pima)
    expected = pima[["glucose", "mass"]].isna().any(axis=1).sum()
    assert m.n_dropped == expected
    assert f"({expected} observations deleted due to missingness)" in str(m.summary())
    p = m.predict(pima)
    assert p.index.equals(pima.index)
    assert p.isna().sum() == expected


def test_na_action_raise_names_the_columns(pima):
    with pytest.raises(DataError, match="glucose"):
        ubreg.fit(FORMULA, pima, na_action="raise")


def test_na_in_response(toy):
    d = toy.astype({"y": float})
    d.loc[[1, 2], "y"] = np.nan
    m = ubreg.fit("y ~ x1", d)
    assert m.n_dropped == 2
    with pytest.raises(DataError, match="response 'y'"):
        ubreg.fit("y ~ x1", d, na_action="raise")


# ---- bad input ----------------------------------------------------------------------
def test_three_level_response(toy):
    # the linear fit is then the multinomial logit (tests/test_multinomial.py); weak
    # learners and other families have no K-class form and say so
    assert ubreg.fit("g ~ x1", toy).coef.shape[0] == 2
    with pytest.raises(ResponseError, match="3 distinct value"):
        ubreg.fit("g ~ x1", toy, learner="stumps")


def test_one_class_response(toy):
    with pytest.raises(ResponseError, match="only one class"):
        ubreg.fit("y ~ x1", toy.assign(y=1))


def test_empty_after_na_removal(toy):
    with pytest.raises(DataError, match="no rows left"):
        ubreg.fit("y ~ x1 + z", toy.assign(z=np.nan))


def test_formula_names_missing_column(toy):
    with pytest.raises(FormulaError, match=r"\['nope'\]"):
        ubreg.fit("y ~ x1 + nope", toy)


def test_formula_without_response(toy):
    with pytest.raises(FormulaError, match="~"):
        ubreg.fit("x1 + x2", toy)


def test_non_numeric_where_numbers_are_needed(toy):
    with pytest.raises(FormulaError, match="log"):
        ubreg.fit("y ~ np.log(g)", toy)


def test_infinite_values_are_named(toy):
    d = toy.copy()
    d.loc[5, "x2"] = np.inf
    with pytest.raises(DataError, match="x2"):
        ubreg.fit("y ~ x1 + x2", d)


def test_empty_frame():
    with pytest.raises(DataError, match="0 rows"):
        ubreg.fit("y ~ x", pd.DataFrame({"y": [], "x": []}))


def test_unknown_method_and_family(toy):
    with pytest.raises(ValueError, match="unknown method"):
        ubreg.fit("y ~ x1", toy, method="nope")
    with pytest.raises(ValueError, match="unknown permissible family"):
        ubreg.fit("y ~ x1", toy, family="nope")


def test_data_is_not_modified(toy):
    before = toy.copy(deep=True)
    w = np.ones(len(toy))
    w_before = w.copy()
    m = ubreg.fit("y ~ x1 + C(g)", toy, weights=w)
    m.predict(toy)
    pd.testing.assert_frame_equal(toy, before)
    np.testing.assert_array_equal(w, w_before)


# ---- prediction ---------------------------------------------------------------------
def test_new_factor_level_is_named(toy):
    m = ubreg.fit("y ~ x1 + g", toy)
    new = toy.head(3).assign(g=["a", "zzz", "b"])
    with pytest.raises(PredictionError, match="zzz"):
        m.predict(new)


def test_missing_column_at_predict(toy):
    m = ubreg.fit("y ~ x1 + x2", toy)
    with pytest.raises(PredictionError, match="x2"):
        m.predict(toy.drop(columns="x2"))


def test_predict_scales_are_consistent(toy):
    m = ubreg.fit("y ~ x1 + x2", toy, family=ubreg.Permissible("matsushita"))
    link = m.predict(toy, type="link")
    resp = m.predict(toy, type="response")
    np.testing.assert_allclose(resp, m.family.posterior(link))
    cls = m.predict(toy, type="class")
    np.testing.assert_array_equal(cls == 1, resp >= 0.5)
    with pytest.raises(ValueError, match="type"):
        m.predict(toy, type="prob")


def test_pickle_round_trip_predicts_new_data(toy):
    m = ubreg.fit("y ~ x1 + center(x2) + C(g) + np.log(np.abs(x1) + 1)", toy,
                  family=ubreg.Permissible("mu", mu=0.3))
    m2 = pickle.loads(pickle.dumps(m))
    new = toy.sample(50, random_state=1)
    pd.testing.assert_series_equal(m.predict(new), m2.predict(new))
    assert str(m.summary()) == str(m2.summary())


# ---- aliasing, separation, convergence ------------------------------------------------
def test_aliased_column_is_na_and_others_unchanged(toy):
    d = toy.assign(x3=2 * toy.x1)
    m = ubreg.fit("y ~ x1 + x2 + x3", d)
    base = ubreg.fit("y ~ x1 + x2", d)
    assert np.isnan(m.coef["x3"]) and np.isnan(m.bse["x3"])
    np.testing.assert_allclose(m.coef.drop("x3"), base.coef, rtol=1e-9)
    np.testing.assert_allclose(m.bse.drop("x3"), base.bse, rtol=1e-8)
    assert m.df_resid == base.df_resid
    assert "aliased: x3" in str(m.summary())
    np.testing.assert_allclose(m.predict(d), base.predict(d))


def test_no_curvature_gives_na_standard_error_with_reason():
    """A bounded link (logcosh): a group whose rows are all one class ends up saturated,
    the risk is flat along its coefficient, and no standard error exists.  It used to be
    printed as 0.00000 with p < 2e-16 (a pseudo-inverse of the singular A)."""
    rng = np.random.default_rng(3)
    n = 120
    x = rng.normal(size=n)
    g = np.where(np.arange(n) < 20, "b", "a")
    fam = ubreg.Permissible("logcosh", zeta=-4)
    y = (rng.random(n) < fam.posterior(0.5 * x)).astype(int)
    y[g == "b"] = 1
    d = pd.DataFrame({"y": y, "x": x, "g": g})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = ubreg.fit("y ~ x + g", d, family=fam)
    assert m.flat["gb"] and not m.flat["x"]
    for kind in ("model", "robust"):
        t = m.coef_table(cov=kind)
        assert np.isnan(t.loc["gb", "std_error"]) and np.isnan(t.loc["gb", "p"])
        assert np.all(t.loc[["(Intercept)", "x"], "std_error"] > 0)
    text = str(m.summary())
    row = next(line for line in text.splitlines() if line.startswith("gb"))
    assert row.split()[2:] == ["NA", "NA", "NA"]
    assert "Standard errors are NA for gb: the risk has no curvature" in text
    assert "< 2e-16" not in text


def test_complete_separation_warns_names_term_and_stays_finite():
    x = np.arange(20.0)
    d = pd.DataFrame({"y": (x > 9.5).astype(int), "x": x, "z": np.sin(x)})
    for name in ("entropy", "matsushita", "mu"):
        with pytest.warns(SeparationWarning, match=r"complete separation by x\b"):
            m = ubreg.fit("y ~ x + z", d, family=ubreg.Permissible(name))
        assert not m.converged
        assert m.separation.kind == "complete"
        assert np.all(np.isfinite(m.coef))
        assert "separation" in str(m.summary())
    with pytest.raises(DataError, match="separation"):
        ubreg.fit("y ~ x + z", d, on_separation="raise")


def test_quasi_separation_is_flagged():
    rng = np.random.default_rng(3)
    x = rng.normal(size=60)
    g = np.r_[np.zeros(30), np.ones(30)]
    y = np.where(g == 1, 1, (rng.uniform(size=60) < 0.5)).astype(int)
    d = pd.DataFrame({"y": y, "x": x, "g": g})
    with pytest.warns(SeparationWarning, match="quasi-complete separation by g"):
        m = ubreg.fit("y ~ x + g", d)
    assert m.separation.kind == "quasi-complete"


def test_maxiter_one_warns_and_reports_not_converged(pima):
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        m = ubreg.fit(FORMULA, pima, maxiter=1)
    assert not m.converged
    assert "NOT converged" in str(m.summary())


def test_summary_forms(pima):
    s = ubreg.fit(FORMULA, pima).summary()
    frame = s.frame()
    assert list(frame.columns) == ["Estimate", "Std. Error", "z value", "Pr(>|z|)"]
    html = s.html()
    assert "<table" in html and "Null deviance" in html
    text = str(s)
    for piece in ("Call:", "Deviance Residuals:", "Coefficients:", "Signif. codes",
                  "Null deviance:", "Residual deviance:", "AIC:", "Number of ULS iterations"):
        assert piece in text


def test_summary_keeps_r_layout_for_entropy(pima):
    """R's summary.glm lines, exactly (R: 'Null deviance: ... on n degrees of freedom')."""
    m = ubreg.fit(FORMULA, pima)
    lines = str(m.summary()).splitlines()
    i = lines.index(f"    Null deviance: {m.null_deviance:.2f}  on {m.df_null:g}  "
                    "degrees of freedom")
    assert lines[i + 1] == (f"Residual deviance: {m.deviance:.2f}  on {m.df_resid:g}  "
                            "degrees of freedom")
    assert lines[i + 3] == f"AIC: {m.aic:.2f}"
    assert "risk" not in str(m.summary()) and "degrees of freedom" in m.summary().html()


@pytest.mark.parametrize("family", ["gini", "matsushita", "entropy2", "mu", "exponential",
                                    ubreg.Permissible("logcosh", zeta=-4)])
def test_summary_of_a_non_likelihood_family_has_no_chi2_layout(pima, family):
    """Differences of 2 Σ w D_φ are not χ² distributed outside entropy (entropy2 is in
    bits: its deviance is the binomial one divided by ln 2), so the summary does not lay
    them out as R lays out a binomial deviance (values on degrees of freedom)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit(FORMULA, pima, family=family)
    text, html = str(m.summary()), m.summary().html()
    for form in (text, html):
        assert "degrees of freedom" not in form and "Null deviance" not in form
        assert "Null risk" in form and "Residual risk" in form
        assert "no χ² test applies" in form and "math.md" not in form
    assert f"{m.deviance:.5g}" in text and f"{m.null_deviance:.5g}" in text
    assert m.summary().facts()["likelihood"] is False


def test_entropy2_deviance_is_the_binomial_deviance_in_bits(pima):
    """entropy2 fits the same p̂ as entropy; its 2 Σ w D_φ is the binomial deviance / ln 2,
    so it is not itself a likelihood-ratio statistic (hence the risk layout above)."""
    a = ubreg.fit(FORMULA, pima)
    b = ubreg.fit(FORMULA, pima, family="entropy2")
    np.testing.assert_allclose(b.fitted_values, a.fitted_values, rtol=1e-9)
    assert b.deviance * np.log(2) == pytest.approx(a.deviance, rel=1e-9)
    assert b.loglik == pytest.approx(a.loglik, rel=1e-9)
    assert a.family.likelihood_deviance and not b.family.likelihood_deviance


def test_html_summary_escapes_user_strings():
    evil = "<script>alert(1)</script>"
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"y": rng.integers(0, 2, 80), evil: rng.normal(size=80)})
    html = ubreg.fit(f"y ~ Q('{evil}')", d).summary().html()
    assert evil not in html
    assert "&lt;script&gt;" in html


def test_interaction_with_an_empty_cell_is_aliased():
    rng = np.random.default_rng(4)
    n = 200
    a = rng.choice(["p", "q"], n)
    b = np.where(a == "q", "r", rng.choice(["r", "s"], n))     # cell (q, s) is empty
    y = rng.integers(0, 2, n)
    d = pd.DataFrame({"y": y, "a": a, "b": b})
    m = ubreg.fit("y ~ a * b", d)
    inter = "aq:bs"
    assert np.isnan(m.coef[inter]) and bool(m.aliased[inter])
    base = ubreg.fit("y ~ a + b", d)
    np.testing.assert_allclose(m.coef.drop(inter), base.coef, rtol=1e-9)
    np.testing.assert_allclose(m.bse.drop(inter), base.bse, rtol=1e-8)


# ---- method options ----------------------------------------------------------------------
def test_unknown_uls_option_lists_the_options_of_the_chosen_learner(toy):
    from ubreg.errors import OptionError
    with pytest.raises(OptionError, match=r"method 'uls' has no option 'mstop'; it accepts: "
                                          r"learner, solver, tol, maxiter, on_separation, "
                                          r"control$"):
        ubreg.fit("y ~ x1", toy, mstop=3)
    with pytest.raises(OptionError, match=r"method 'uls' with learner='stumps' has no option "
                                          r"'maxiter', 'on_separation'; it accepts: .*rounds"):
        ubreg.fit("y ~ x1", toy, learner="stumps", maxiter=1, on_separation="raise")
    with pytest.raises(ValueError, match="learner must be one of 'linear', 'stumps', 'rules', "
                                         "'trees', got 'nope'"):
        ubreg.fit("y ~ x1", toy, learner="nope")


def test_options_of_a_forwarding_method_are_checked_by_its_schema(toy, monkeypatch):
    """A method of one's own declares its options by its signature or, when it forwards
    **options, by a schema; an undeclared forwarding method is refused at the call."""
    from ubreg.errors import OptionError
    from ubreg.methods.registry import METHODS
    from ubreg.methods.schema import Option, Schema
    from ubreg.methods.spec import Method

    def inner(spec, *, depth):
        return depth

    def forwarding(spec, **options):
        return inner(spec, **options)

    def broken(spec, *, depth=1):             # a TypeError of its own is not relabelled
        return inner(spec, depth=depth, colour="red")

    schema = Schema((Option("depth", "whole", 1, "the depth", low=1, high=9),), label="'fwd'")
    monkeypatch.setitem(METHODS, "fwd", Method("fwd", fit=forwarding, result=int,
                                                schema=schema))
    monkeypatch.setitem(METHODS, "open", Method("open", fit=forwarding, result=int))
    monkeypatch.setitem(METHODS, "broken", Method("broken", fit=broken, result=int))
    assert ubreg.fit("y ~ x1", toy, method="fwd", depth=3) == 3
    assert ubreg.fit("y ~ x1", toy, method="fwd") == 1
    with pytest.raises(OptionError, match=r"^method 'fwd' has no option 'maxiter'; it accepts: "
                                          r"depth$"):
        ubreg.fit("y ~ x1", toy, method="fwd", maxiter=1)
    with pytest.raises(OptionError, match=r"^depth must be a whole number from 1 to 9"):
        ubreg.fit("y ~ x1", toy, method="fwd", depth=0)
    with pytest.raises(TypeError, match="method 'open' forwards \\*\\*options without"):
        ubreg.fit("y ~ x1", toy, method="open", depth=3)
    with pytest.raises(TypeError, match="colour"):
        ubreg.fit("y ~ x1", toy, method="broken")
