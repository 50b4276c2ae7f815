"""ubreg.anova against statsmodels: LR χ² for entropy, robust Wald for every family."""
import numpy as np
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

import ubreg
from ubreg.evaluate.anova import NotNestedError

SMALL = "diabetes ~ glucose + mass"
LARGE = "diabetes ~ glucose + mass + pressure + C(pregnant > 3)"


@pytest.fixture(scope="module")
def pima_rows(pima):
    return pima.dropna(subset=["glucose", "mass", "pressure"])


@pytest.fixture(scope="module")
def glm(pima_rows):
    d = pima_rows.assign(y=(pima_rows["diabetes"] == "pos").astype(int))
    small = smf.glm("y ~ glucose + mass", d, family=sm.families.Binomial()).fit()
    large = smf.glm("y ~ glucose + mass + pressure + C(pregnant > 3)", d,
                    family=sm.families.Binomial()).fit(cov_type="HC0")
    return small, large


def test_entropy_is_the_likelihood_ratio_test(pima_rows, glm):
    a = ubreg.anova(ubreg.fit(SMALL, pima_rows), ubreg.fit(LARGE, pima_rows))
    small, large = glm
    lr = 2 * (large.llf - small.llf)
    assert a.likelihood_ratio
    assert a.lr_statistic == pytest.approx(lr, rel=1e-6)
    assert a.deviance_difference == pytest.approx(small.deviance - large.deviance, rel=1e-6)
    assert a.df == 2
    assert a.lr_pvalue == pytest.approx(stats.chi2.sf(lr, 2), rel=1e-5)
    assert a.table["Pr(>Chi)"].iloc[1] == pytest.approx(a.lr_pvalue)
    assert "likelihood-ratio" in str(a)


def test_wald_test_uses_the_robust_covariance(pima_rows, glm):
    a = ubreg.anova(ubreg.fit(SMALL, pima_rows), ubreg.fit(LARGE, pima_rows))
    w = glm[1].wald_test("pressure = 0, C(pregnant > 3)[T.True] = 0", scalar=True)
    assert a.wald_statistic == pytest.approx(float(w.statistic), rel=1e-5)
    assert a.wald_pvalue == pytest.approx(float(w.pvalue), rel=1e-4)
    assert a.wald_df == 2
    assert set(a.added) == {"pressure", "C(pregnant > 3)TRUE"}          # R's names


@pytest.mark.parametrize("family", ["matsushita", "gini", "power"])
def test_other_families_label_the_statistic_and_give_no_lr_pvalue(pima_rows, family):
    m0, m1 = ubreg.fit(SMALL, pima_rows, family=family), ubreg.fit(LARGE, pima_rows, family=family)
    a = ubreg.anova(m0, m1)
    assert not a.likelihood_ratio and np.isnan(a.lr_pvalue)
    assert "Pr(>Chi)" not in a.table.columns
    assert a.deviance_difference == pytest.approx(m0.deviance - m1.deviance)
    assert "not a likelihood ratio" in str(a)
    # the robust Wald statistic, computed from the model's own covariance
    names = a.added
    b = m1.coef[names].to_numpy()
    V = m1.vcov("robust").loc[names, names].to_numpy()
    assert a.wald_statistic == pytest.approx(b @ np.linalg.solve(V, b))
    assert 0 <= a.wald_pvalue <= 1
    assert "Wald" in a.html()


def test_order_does_not_matter(pima_rows):
    m0, m1 = ubreg.fit(SMALL, pima_rows), ubreg.fit(LARGE, pima_rows)
    assert ubreg.anova(m1, m0).lr_statistic == pytest.approx(ubreg.anova(m0, m1).lr_statistic)


def test_nestedness_and_data_checks(pima_rows):
    full = ubreg.datasets.load_pima()
    m0 = ubreg.fit(SMALL, pima_rows)
    with pytest.raises(NotNestedError, match="not nested.*only in the first: \\['glucose'\\]"):
        ubreg.anova(ubreg.fit("diabetes ~ glucose + age", pima_rows),
                    ubreg.fit("diabetes ~ mass + age", pima_rows))
    with pytest.raises(NotNestedError, match="different families"):
        ubreg.anova(m0, ubreg.fit(LARGE, pima_rows, family="gini"))
    with pytest.raises(NotNestedError, match="different rows"):
        ubreg.anova(ubreg.fit(SMALL, full), ubreg.fit("diabetes ~ glucose + mass + insulin", full))
    with pytest.raises(NotNestedError, match="same terms"):
        ubreg.anova(m0, ubreg.fit(SMALL, pima_rows))
    with pytest.raises(TypeError, match="nested linear fits"):
        ubreg.anova(m0, object())


def test_weights_of_different_kinds_are_not_nested(pima_rows):
    w = np.arange(len(pima_rows)) % 3 + 1.0
    m0 = ubreg.fit(SMALL, pima_rows, weights=w)
    with pytest.raises(NotNestedError, match="prior and freq weights"):
        ubreg.anova(m0, ubreg.fit(LARGE, pima_rows, freq_weights=w))
    a = ubreg.anova(m0, ubreg.fit(LARGE, pima_rows, weights=w))
    assert a.table["Resid. Df"].tolist() == [len(pima_rows) - m0.df_model,
                                            len(pima_rows) - m0.df_model - a.df]
