"""ubreg.linear_hypothesis and ubreg.wald_test: car's linearHypothesis of a glm
(tests/fixtures/car_hypothesis.R), and hypotheses that are read, never run."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

REF = json.loads((pathlib.Path(__file__).parent / "fixtures" / "car_hypothesis.json")
                 .read_text())


@pytest.fixture(scope="module")
def model(pima):
    rows = pima.dropna(subset=["glucose", "mass", "age"])
    return ubreg.fit("diabetes ~ glucose + mass + age + I(pregnant > 3)", rows)


CASES = {
    "equal": dict(hypothesis="glucose = mass"),
    "joint": dict(hypothesis=["mass = 0", "age = 0"]),
    "hc0": dict(hypothesis="2*glucose + mass = 0.1", vcov="HC0"),
    "factor": dict(hypothesis="I(pregnant > 3)TRUE = 0"),
    "matrix": dict(hypothesis=[[0, 1, -1, 0, 0], [0, 0, 0, 1, 0]], rhs=[0, 0.01]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_statistic_is_cars(model, case):
    test = ubreg.linear_hypothesis(model, **CASES[case])
    ref = REF[case]
    assert test.statistic == pytest.approx(ref["chisq"], rel=1e-6)
    assert test.df == ref["df"] and list(test["Res.Df"]) == ref["res_df"]
    assert np.log(test["Pr(>Chisq)"].iloc[1]) == pytest.approx(np.log(ref["p"]), rel=1e-6)


def test_the_forms_agree(model):
    a = ubreg.linear_hypothesis(model, "mass = 0, age = 0")
    b = ubreg.linear_hypothesis(model, ["mass = 0", "age = 0"])
    L = pd.DataFrame([[1.0, 0.0], [0.0, 1.0]], columns=["mass", "age"])
    c = ubreg.wald_test(model, L)
    assert a.statistic == b.statistic == pytest.approx(c.statistic, rel=1e-12)
    d = ubreg.linear_hypothesis(model, "`mass` - 0.5 * age = 0", vcov=model.vcov("HC0"))
    e = ubreg.wald_test(model, [[0, 0, 1, -0.5, 0]], vcov="HC0")
    assert d.statistic == pytest.approx(e.statistic, rel=1e-12)
    assert "Coefficient covariance matrix supplied" in str(d)
    assert "mass - 0.5 age = 0" in str(d) and "***" in str(a)


@pytest.mark.parametrize("text", ["glucose == mass", "glucose = __import__('os')",
                                  "glucose mass = 0", "glucose =", "insulin = 0",
                                  "glucose = mass; age = 0", "glucose ** 2 = 0"])
def test_a_hypothesis_that_cannot_be_read_is_refused(model, text):
    with pytest.raises(ValueError, match="hypothesis"):
        ubreg.linear_hypothesis(model, text)


def test_shapes_and_models_are_checked(model):
    with pytest.raises(ValueError, match="5 coefficients"):
        ubreg.wald_test(model, [[1, 0]])
    with pytest.raises(ValueError, match="rhs"):
        ubreg.wald_test(model, [[0, 1, 0, 0, 0]], rhs=[0, 1])
    tree = ubreg.fit("diabetes ~ glucose", ubreg.datasets.load_pima(), method="udt", xval=0)
    with pytest.raises(TypeError, match="coefficients"):
        ubreg.wald_test(tree, [[1]])
