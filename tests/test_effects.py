"""Effects on the probability scale (tests/fixtures/effects.R): ``ubreg.emmeans`` = R's
emmeans 1.8.4 (means, intervals, tests, pairwise contrasts: Tukey, none, odds ratios,
regrid) and ``avg_slopes`` / ``avg_comparisons`` = marginaleffects' definitions computed in
plain R, to 1e-6; every family, trees and boosting; bad input refused by name."""
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.families import FAMILIES

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "effects.json").read_text())
BIRTHWT = pd.read_csv(FIXTURES / "data" / "birthwt.csv").astype(
    {"race": pd.CategoricalDtype(["white", "black", "other"])})
MAIN = "low ~ race + smoke + lwt + age"
CASES = {"logit": (MAIN, "entropy"), "probit": (MAIN, "binomial(link = 'probit')"),
         "interaction": ("low ~ race * smoke + lwt", "entropy")}


def _num(values):
    return np.array([np.inf if v == "Inf" else v for v in values], dtype=float)


def _same(ours, ref, columns, rtol=1e-6, atol=1e-8):   # atol: limits near 0
    for c in columns:
        np.testing.assert_allclose(np.asarray(ours[c], float), _num(ref[c]), rtol=rtol,
                                   atol=atol, err_msg=c)


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    formula, family = CASES[request.param]
    return request.param, ubreg.fit(formula, BIRTHWT, family=family)


def _emm(m, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the interaction note
        return ubreg.emmeans(m, *args, **kwargs)


def test_emmeans_are_r(case):
    key, m = case
    ref = R[key]
    link = _emm(m, "race").frame()
    assert list(link["race"].astype(str)) == ref["emmeans_link"]["race"]
    _same(link, ref["emmeans_link"], ["emmean", "SE", "df", "asymp.LCL", "asymp.UCL",
                                       "z.ratio", "p.value"])
    _same(_emm(m, "race", type="response").frame(), ref["emmeans_response"],
          ["prob", "SE", "asymp.LCL", "asymp.UCL", "null", "z.ratio", "p.value"])
    two = _emm(m, ["race", "smoke"], type="response").frame()
    assert list(two["race"].astype(str)) == ref["emmeans_two"]["race"]
    _same(two, ref["emmeans_two"], ["prob", "SE", "asymp.LCL", "asymp.UCL"])


def test_pairwise_contrasts_are_r(case):
    key, m = case
    ref = R[key]
    pairs = _emm(m, "race", type="response").pairs()
    assert list(pairs["contrast"]) == ref["pairs_response"]["contrast"]
    name = "odds.ratio" if "odds.ratio" in ref["pairs_response"] else "estimate"
    _same(pairs, ref["pairs_response"], [name, "SE", "asymp.LCL", "asymp.UCL", "z.ratio",
                                         "p.value"])
    _same(_emm(m, "race").pairs(adjust="none"), ref["pairs_none"],
          ["estimate", "SE", "asymp.LCL", "asymp.UCL", "z.ratio", "p.value"])
    _same(_emm(m, "race").pairs(regrid=True), ref["pairs_regrid"],
          ["estimate", "SE", "asymp.LCL", "asymp.UCL", "z.ratio", "p.value"])


def test_average_marginal_effects_are_the_definitions(case):
    key, m = case
    ref = R[key]
    slopes = ubreg.avg_slopes(m, "lwt")
    assert list(slopes["contrast"]) == ["dY/dX"]
    _same(slopes, {k: [v] for k, v in ref["slopes_lwt"].items() if k != "term"},
          ["estimate", "std.error"])
    numeric = ["age"] if key != "interaction" else []          # age: + 1; smoke: 1 − 0
    comp = ubreg.avg_comparisons(m, ["race", "smoke", *numeric])
    assert list(comp["contrast"]) == (ref["comparisons_race"]["contrast"] + ["1 - 0"]
                                      + ["+1"] * len(numeric))
    for col in ("estimate", "std.error"):
        parts = [ref["comparisons_race"][col], ref["comparisons_smoke"][col]]
        expected = np.concatenate([np.atleast_1d(v) for v in parts]
                                  + [np.atleast_1d(ref["comparisons_age"][col])
                                     for _ in numeric])
        np.testing.assert_allclose(comp[col], expected, rtol=1e-6, atol=1e-9)


def test_interaction_involvement_is_noted(case):
    key, m = case
    if key != "interaction":
        pytest.skip("the note is for a predictor in an interaction")
    with pytest.warns(UserWarning, match="involvement in interactions"):
        ubreg.emmeans(m, "race")


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_has_effects_with_standard_errors(name):
    m = ubreg.fit("low ~ race + lwt", BIRTHWT, family=FAMILIES[name]())
    slopes = ubreg.avg_slopes(m, "lwt")
    comp = ubreg.avg_comparisons(m, "race")
    assert np.isfinite(slopes["std.error"]).all() and np.isfinite(comp["std.error"]).all()
    # the slope is the mean of the rows' derivatives p'(η) β_lwt, to the step's order
    eta = m.predict(type="link").to_numpy()
    exact = np.mean(m.family.posterior_derivative(eta)) * m.coef["lwt"]
    assert slopes["estimate"][0] == pytest.approx(exact, rel=1e-3, abs=1e-7)
    assert np.isfinite(ubreg.emmeans(m, "race", type="response").frame()["SE"]).all()


@pytest.mark.parametrize("method, options", [("udt", {}), ("uboost", {"mstop": 20}),
                                             ("gnnb", {"k": 10})])
def test_trees_and_boosting_have_estimates_without_standard_errors(method, options):
    m = ubreg.fit("low ~ race + lwt + age", BIRTHWT, method=method, **options)
    comp = ubreg.avg_comparisons(m, ["race", "lwt"], )
    assert np.isfinite(comp["estimate"]).all() and comp["std.error"].isna().all()
    p = m.predict(BIRTHWT.assign(race=pd.Categorical(["black"] * len(BIRTHWT),
                                                     ["white", "black", "other"])),
                  type="response")
    q = m.predict(BIRTHWT.assign(race=pd.Categorical(["white"] * len(BIRTHWT),
                                                     ["white", "black", "other"])),
                  type="response")
    assert comp["estimate"][0] == pytest.approx(float(np.mean(p - q)), rel=1e-12)


def test_bad_input_is_named():
    m = ubreg.fit(MAIN, BIRTHWT)
    with pytest.raises(ValueError, match="'weight' is not a predictor"):
        ubreg.avg_slopes(m, "weight")
    with pytest.raises(ValueError, match="'race' is a factor"):
        ubreg.avg_slopes(m, "race")
    with pytest.raises(TypeError, match="belongs to avg_comparisons"):
        ubreg.avg_slopes(m, {"lwt": 10})
    with pytest.raises(ValueError, match="a step .* is for a numeric predictor"):
        ubreg.avg_comparisons(m, {"race": 2})
    with pytest.raises(ValueError, match="must be a non-zero number"):
        ubreg.avg_comparisons(m, {"lwt": "sd"})
    with pytest.raises(ValueError, match="specs: 'weight' is not a predictor"):
        ubreg.emmeans(m, "weight")
    with pytest.raises(ValueError, match="type must be"):
        ubreg.emmeans(m, "race", type="prob")
    with pytest.raises(ValueError, match="adjust must be 'tukey' or 'none'"):
        ubreg.emmeans(m, "race").pairs(adjust="bonferroni")
    with pytest.raises(TypeError, match="linear fit"):
        ubreg.emmeans(ubreg.fit(MAIN, BIRTHWT, method="udt"), "race")


def test_an_offset_enters_the_derivatives():
    """With an offset the rows' η include it: the delta method's gradient is taken there
    (checked against a numerical gradient of the average in the coefficients)."""
    d = BIRTHWT.assign(off=np.log(BIRTHWT["age"]) / 5)
    m = ubreg.fit("low ~ race + lwt + offset(off)", d)
    out = ubreg.avg_comparisons(m, "lwt")
    X, _ = m.design.transform(d)
    Xp, _ = m.design.transform(d.assign(lwt=d["lwt"] + 1))
    beta = m.coef.to_numpy()

    def average(b):
        p1 = m.family.posterior(Xp @ b + d["off"].to_numpy())
        p0 = m.family.posterior(X @ b + d["off"].to_numpy())
        return np.mean(p1 - p0)
    h = 1e-6
    J = np.array([(average(beta + h * e) - average(beta - h * e)) / (2 * h)
                  for e in np.eye(len(beta))])
    se = float(np.sqrt(J @ m.vcov().to_numpy() @ J))
    assert out["estimate"][0] == pytest.approx(average(beta), rel=1e-10)
    assert out["std.error"][0] == pytest.approx(se, rel=1e-5)


def test_a_step_given_for_a_numeric_predictor_is_used():
    m = ubreg.fit(MAIN, BIRTHWT)
    ten = ubreg.avg_comparisons(m, {"lwt": 10})
    one = ubreg.avg_comparisons(m, "lwt")
    assert list(ten["contrast"]) == ["+10"] and not np.isclose(ten["estimate"][0],
                                                                 one["estimate"][0])


def test_data_not_mutated():
    before = BIRTHWT.copy()
    m = ubreg.fit(MAIN, BIRTHWT)
    ubreg.avg_comparisons(m)
    ubreg.avg_slopes(m)
    ubreg.emmeans(m, "race").pairs()
    pd.testing.assert_frame_equal(BIRTHWT, before)
