"""method="uls" with the entropy family on K > 2 classes is R's multinomial logit.

Reference: tests/fixtures/multinom.R (R 4.2.2, nnet 7.3-18).  multinom maximises by BFGS
to its reltol; ubreg by Newton's method to the optimum, so coefficients agree to about
1e-6 and the deviance to 1e-10.  Standard errors: the inverse of the analytic information
matrix, compared with statsmodels' MNLogit (multinom's come from a numerical Hessian).
"""
from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import ubreg
from ubreg.errors import ConvergenceWarning, OptionError, SeparationWarning

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "multinom.json").read_text())["cases"]
FORMULAS = {"numeric": "band ~ glucose + mass + pregnant",
            "factor": "band ~ glucose + diabetes + pedigree",
            "weighted": "band ~ glucose + mass"}


def _pima():
    d = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    d["band"] = pd.cut(d["age"], [0, 25, 40, 100], labels=["young", "middle", "old"])
    d["w"] = np.resize([1.0, 2.0, 0.5, 3.0], len(d))
    return d


def _fit(name, **kw):
    extra = {"weights": "w"} if name == "weighted" else {}
    return ubreg.fit(FORMULAS[name], _pima(), **extra, **kw)


@pytest.mark.parametrize("name", sorted(REF))
def test_coefficients_deviance_aic_and_probabilities_are_multinoms(name):
    ref, m = REF[name], _fit(name)
    assert list(m.coef.index) == ref["levels"][1:]
    assert list(m.coef.columns) == ref["terms"]
    np.testing.assert_allclose(m.coef.to_numpy(), np.array(ref["coef"]), rtol=2e-5, atol=1e-7)
    assert m.deviance == pytest.approx(ref["deviance"], rel=1e-10)
    assert m.aic == pytest.approx(ref["AIC"], rel=1e-10)
    assert m.null_deviance == pytest.approx(ref["null_deviance"], rel=1e-10)
    assert m.nobs == ref["nobs"] and m.loglik == pytest.approx(-ref["deviance"] / 2, rel=1e-10)
    assert m.df_model == ref["edf"]
    p = m.predict().to_numpy()[:10]
    np.testing.assert_allclose(p, np.array(ref["fitted_first"]), atol=1e-6)


@pytest.mark.parametrize("name", ["numeric", "factor"])
def test_standard_errors_are_the_inverse_information(name):
    m = _fit(name)
    d = _pima().loc[m.index]                       # the rows the fit used
    X = np.asarray(m.design.transform(d)[0])
    sm_fit = sm.MNLogit(d["band"].cat.codes.to_numpy(), X).fit(disp=0, method="newton")
    np.testing.assert_allclose(m.std_errors.to_numpy(), np.asarray(sm_fit.bse).T, rtol=1e-7)
    np.testing.assert_allclose(m.coef.to_numpy(), np.asarray(sm_fit.params).T, rtol=1e-7)


#: R 4.2.2: summary(multinom(band ~ glucose + mass + pregnant, data = pima, ...)) from
#: "Std. Errors:" on (its coefficients stop short of the optimum in the 7th digit)
SUMMARY_TAIL = ("Std. Errors:\n"
                "       (Intercept)     glucose       mass   pregnant\n"
                "middle   0.5810765 0.003505136 0.01419192 0.05298448\n"
                "old      0.7664998 0.004220724 0.01864828 0.05863660\n"
                "\n"
                "Residual Deviance: 1261.686 \n"           # R's cat() leaves a space
                "AIC: 1277.686 ")


def test_summary_prints_as_r():
    m = _fit("numeric")
    text = str(m.summary())
    assert SUMMARY_TAIL in text
    assert "Coefficients:\n       (Intercept)    glucose       mass  pregnant\n" in text
    assert "Residual Deviance: 1261.686" in str(m)
    assert "Std. Errors" in m.summary().html()


def test_predict_types_and_missing_rows():
    m = _fit("numeric")
    d = _pima()
    new = d.head(6).copy()
    new.loc[new.index[2], "glucose"] = np.nan
    p = m.predict(new)
    assert list(p.columns) == ["young", "middle", "old"]
    assert p.iloc[2].isna().all()
    ok = p.drop(index=new.index[2])
    np.testing.assert_allclose(ok.sum(axis=1), 1.0, rtol=1e-14)
    link = m.predict(new, type="link")
    assert list(link.columns) == ["young", "middle", "old"]
    np.testing.assert_allclose(link.drop(index=new.index[2]).to_numpy(),
                               np.log(ok.to_numpy() / ok[["young"]].to_numpy()), atol=1e-12)
    cls = m.predict(new, type="class")
    assert pd.isna(cls.iloc[2])
    assert list(cls.drop(index=new.index[2]).astype(str)) == list(ok.idxmax(axis=1))
    # the training rows as new data: the fitted probabilities
    train = m.predict()
    again = m.predict(d.loc[train.index])
    np.testing.assert_allclose(again.to_numpy(), train.to_numpy(), rtol=1e-12)
    ci = m.confint(0.9)
    assert list(ci.index)[:2] == ["middle:(Intercept)", "middle:glucose"]
    np.testing.assert_allclose((ci.iloc[:, 0] + ci.iloc[:, 1]) / 2,
                               m.coef.to_numpy().ravel(), rtol=1e-12)


@pytest.mark.slow        # a simulation (500 fits), as the other coverage tests
def test_wald_intervals_cover_at_their_level():
    """500 samples of n = 400 from a known 3-class logit: each 95% Wald interval covers its
    coefficient in 92-98% of them (binomial s.d. ~1%)."""
    rng = np.random.default_rng(7)
    beta = np.array([[0.3, 0.8], [-0.4, -0.6]])         # (K−1, p) with an intercept
    n, reps = 400, 500
    hits = np.zeros(beta.shape)
    for _ in range(reps):
        x = rng.normal(size=n)
        eta = np.column_stack([np.zeros(n), beta[0, 0] + beta[0, 1] * x,
                               beta[1, 0] + beta[1, 1] * x])
        p = np.exp(eta) / np.exp(eta).sum(axis=1, keepdims=True)
        y = (rng.uniform(size=n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
        d = pd.DataFrame({"x": x, "y": np.array(["a", "b", "c"])[y]})
        m = ubreg.fit("y ~ x", d)
        ci = m.confint(0.95).to_numpy().reshape(2, 2, 2)
        hits += (ci[..., 0] <= beta) & (beta <= ci[..., 1])
    coverage = hits / reps
    assert np.all((coverage > 0.92) & (coverage < 0.98)), coverage


def test_other_families_and_offsets_are_refused_by_name():
    d = _pima()
    with pytest.raises(OptionError, match="needs family='entropy'.*matsushita"):
        ubreg.fit("band ~ glucose", d, family="matsushita")
    with pytest.raises(OptionError, match="offset"):
        ubreg.fit("band ~ glucose + offset(mass)", d)


def test_an_aliased_column_is_na_as_in_glm():
    d = _pima().assign(g2=lambda f: 2 * f["glucose"])
    m = ubreg.fit("band ~ glucose + g2 + mass", d)
    ref = ubreg.fit("band ~ glucose + mass", d)
    assert m.coef["g2"].isna().all() and m.std_errors["g2"].isna().all()
    np.testing.assert_allclose(m.coef[["(Intercept)", "glucose", "mass"]].to_numpy(),
                               ref.coef.to_numpy(), rtol=1e-10)
    assert m.df_model == ref.df_model and m.aic == pytest.approx(ref.aic, rel=1e-12)
    np.testing.assert_allclose(m.predict(d).to_numpy(), ref.predict(d).to_numpy(), rtol=1e-10)
    assert "g2 not defined because of singularities" in str(m.summary())


def test_separation_and_non_convergence_warn_as_glm():
    x = np.arange(30.0)
    d = pd.DataFrame({"x": x, "y": np.where(x < 10, "a", np.where(x < 20, "b", "c"))})
    with pytest.warns(SeparationWarning, match="numerically 0 or 1"):
        ubreg.fit("y ~ x", d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeparationWarning)
        with pytest.warns(ConvergenceWarning, match="did not converge in 2"):
            ubreg.fit("y ~ x", d, maxiter=2)


def test_input_is_not_modified():
    d = _pima()
    before = d.copy()
    _fit("numeric")
    ubreg.fit(FORMULAS["numeric"], d)
    pd.testing.assert_frame_equal(d, before)


@pytest.mark.slow
def test_scikit_learn_estimator_is_logistic_regression_on_three_classes():
    from sklearn.linear_model import LogisticRegression

    from ubreg.sklearn import ULSClassifier
    d = _pima().dropna(subset=["band", "glucose", "mass", "pregnant"])
    X, y = d[["glucose", "mass", "pregnant"]], d["band"].astype(str)
    est = ULSClassifier().fit(X, y)
    ref = LogisticRegression(penalty=None, max_iter=10000, tol=1e-12).fit(X, y)
    assert list(est.classes_) == list(ref.classes_)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), atol=1e-5)
    assert est.decision_function(X).shape == (len(d), 3)


def test_anova_of_two_fits_is_multinoms_likelihood_ratio_test():
    # R 4.2.2, nnet 7.3-18, on the complete rows p of band, glucose, mass, pregnant:
    #   anova(multinom(band ~ glucose + mass, p), multinom(band ~ glucose + mass + pregnant, p))
    #   Resid. df 1498 1496; LR stat. 311.54043201130003 on 2 df
    d = _pima().dropna(subset=["band", "glucose", "mass", "pregnant"])
    big = ubreg.fit("band ~ glucose + mass + pregnant", d)
    small = ubreg.fit("band ~ glucose + mass", d)
    a = ubreg.anova(big, small)
    assert list(a.table["Resid. df"]) == [1498, 1496]
    assert a.lr_statistic == pytest.approx(311.54043201130003, rel=1e-8) and a.lr_df == 2
    assert "Likelihood ratio tests of Multinomial Models" in str(a)
    with pytest.raises(ValueError, match="different rows"):
        ubreg.anova(big, ubreg.fit("band ~ glucose", _pima()))
