"""``ubreg.Anova`` = ``car::Anova`` of a glm (tests/fixtures/car_anova.R): Type II and III
likelihood-ratio tests and Type III Wald tests, to 1e-8; what is not offered is refused."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from r_pima import r_pima

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "car_anova.json").read_text())


PIMA = r_pima()
INTER = "y ~ glucose * agegrp + mass + pedigree"


@pytest.fixture(scope="module")
def inter():
    return ubreg.fit(INTER, PIMA)


def _same(table, ref):
    assert list(table.index) == ref["rows"]
    for column in table.columns:
        np.testing.assert_allclose(table[column], ref[column], rtol=1e-8, err_msg=column)


@pytest.mark.parametrize("case, formula, family, options", [
    ("main_II", "y ~ glucose + mass + pedigree + agegrp", "entropy", {}),
    ("inter_II", INTER, "entropy", {}),
    ("inter_III", INTER, "entropy", {"type": "III"}),
    ("inter_III_wald", INTER, "entropy", {"type": 3, "test_statistic": "Wald"}),
    ("probit_II", "y ~ glucose * agegrp + mass", "binomial(link = 'probit')", {}),
])
def test_anova_is_car(case, formula, family, options):
    table = ubreg.Anova(ubreg.fit(formula, PIMA, family=family), **options)
    _same(table, R[case])
    text = str(table)
    assert text.startswith(R[case]["heading"][0].strip()) and "Response: y" in text


def test_type_ii_of_main_effects_is_drop1(inter):
    main = ubreg.fit("y ~ glucose + mass + pedigree + agegrp", PIMA)
    a, d = ubreg.Anova(main), ubreg.drop1(main, test="Chisq")
    np.testing.assert_allclose(a["LR Chisq"], d["LRT"].iloc[1:], rtol=1e-12)


def test_wald_takes_any_covariance(inter):
    robust = ubreg.Anova(inter, type="III", test_statistic="Wald", vcov="HC0")
    same = ubreg.Anova(inter, type="III", test_statistic="Wald", vcov=inter.vcov("HC0"))
    pd.testing.assert_frame_equal(robust.frame(), same.frame())
    model = ubreg.Anova(inter, type="III", test_statistic="Wald")
    assert not np.allclose(robust["Chisq"], model["Chisq"])


@pytest.mark.parametrize("options, message", [
    ({"type": "I"}, "type must be 'II' or 'III'"),
    ({"test_statistic": "F"}, "test_statistic must be 'LR' or 'Wald'"),
    ({"test_statistic": "Wald"}, "Type II Wald tests are not offered"),
    ({"vcov": "HC0"}, "vcov= applies to Wald tests"),
])
def test_what_is_not_offered_is_refused(inter, options, message):
    with pytest.raises(ValueError, match=message):
        ubreg.Anova(inter, **options)


def test_a_surrogate_risk_has_no_likelihood_ratio():
    m = ubreg.fit("y ~ glucose + mass", PIMA, family="matsushita")
    with pytest.raises(ValueError, match="need a likelihood"):
        ubreg.Anova(m)
    table = ubreg.Anova(m, type="III", test_statistic="Wald")
    assert list(table.index) == ["(Intercept)", "glucose", "mass"]


def test_other_results_are_refused():
    tree = ubreg.fit("y ~ glucose + mass", PIMA, method="udt")
    with pytest.raises(TypeError, match="linear fit"):
        ubreg.Anova(tree)
