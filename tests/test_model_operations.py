"""Model operations as R's: update, anova of one model, drop1/add1, step.

Reference numbers: tests/fixtures/glm_parity.json (written by glm_parity.R, the R code
beside every case); a few more, printed by R 4.2.2 with the R code quoted beside them.
Agreement 1e-6 relative.
"""
import json
import pathlib
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.design.update import add_scope, drop_scope, model_terms, update_formula

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "glm_parity.json").read_text())["cases"]
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
CC = PIMA.dropna(subset=["glucose", "mass", "pedigree", "age", "pressure", "pregnant",
                         "diabetes"])
#: R's cut(age, c(20, 30, 45, 90)) as a column: pandas' cut is not in the formula namespace
CC = CC.assign(agecut=pd.cut(CC["age"], [20, 30, 45, 90]))
BIG = "diabetes ~ glucose + mass + pedigree + age"
FULL = "diabetes ~ glucose + mass + pedigree + age + pressure + pregnant"


def _close(actual, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=rtol)


def _r_column(values):
    return np.array([np.nan if v == "NA" else v for v in values], dtype=float)


def _same_table(table, case, labels=None):
    """``table`` (a DataFrame) against an R table of the fixtures ('NA' is NA)."""
    rows = [labels.get(r, r) for r in case["rows"]] if labels else case["rows"]
    assert list(table.index) == rows
    assert list(table.columns) == list(case["table"])
    for column, values in case["table"].items():
        _close(table[column], _r_column(values))


@pytest.fixture(scope="module")
def big():
    return ubreg.fit(BIG, CC)


@pytest.fixture(scope="module")
def full():
    return ubreg.fit(FULL, CC)


# --- update.formula: R's examples and R's outputs ------------------------------------------
@pytest.mark.parametrize("old, new, expected", [
    # ?update.formula
    ("y ~ x", "~ . + x2", "y ~ x + x2"),
    ("y ~ x", "log(.) ~ .", "log(y) ~ x"),
    (". ~ u + v", "res ~ .", "res ~ u + v"),
    # printed by R 4.2.2: deparse(update.formula(old, new))
    ("y ~ a*b", ". ~ . + c", "y ~ a + b + c + a:b"),
    ("y ~ a*b", ". ~ . - a:b", "y ~ a + b"),
    ("y ~ a*b", ". ~ . - a", "y ~ b + a:b"),
    ("y ~ b:a + a", ". ~ .", "y ~ a + b:a"),
    ("y ~ x", ". ~ . - x - 1", "y ~ 1 - 1"),
    ("y ~ x", ". ~ . - x", "y ~ 1"),
    ("y ~ x + z", ". ~ . - 1", "y ~ x + z - 1"),
    ("y ~ x - 1", ". ~ . + 1", "y ~ x"),
    ("y ~ x + offset(log(z))", ". ~ . - x", "y ~ offset(log(z))"),
    ("y ~ offset(o) + x", ". ~ . + z", "y ~ x + z + offset(o)"),
    ("y ~ (a + b + c)^2", ". ~ . - a:c", "y ~ a + b + c + a:b + b:c"),
    ("y ~ a + b", ". ~ .:c", "y ~ a:c + b:c"),
    ("y ~ x", "z ~ . + w", "z ~ x + w"),
    ("cbind(s, f) ~ x", "log(.) ~ .", "log(cbind(s, f)) ~ x"),
    ("y ~ a + b", ". ~ a/b", "y ~ a + a:b"),
    ("y ~ x + I(x^2)", ". ~ . - I(x^2)", "y ~ x"),
    ("y ~ a + b", ". ~ . + b:a + a:c", "y ~ a + b + a:b + a:c"),
    ("y ~ a:b", ". ~ . + b", "y ~ b + a:b"),
])
def test_update_formula_is_r(old, new, expected):
    assert update_formula(old, new) == expected


def test_update_formula_keeps_term_code_and_refuses_nonsense():
    assert update_formula("y ~ I(age^2) + C(g)", ". ~ . + log(mass)") == \
        "y ~ I(age^2) + C(g) + log(mass)"
    assert update_formula('y ~ Q("a.b") + x', ". ~ . - x") == 'y ~ a.b'
    assert update_formula('y ~ `a b` + x', ". ~ . - x") == 'y ~ `a b`'
    with pytest.raises(ubreg.errors.FormulaError, match="'.' on the left"):
        update_formula("~ x", ". ~ .")
    with pytest.raises(ubreg.errors.FormulaError, match="cannot read"):
        update_formula("y ~ x", ". ~ . + (")


def test_scopes_follow_marginality():
    # R's drop.scope and add.scope: a main effect inside an interaction is not dropped, an
    # interaction is not added before its main effects
    terms = model_terms("y ~ a*b + c")
    assert terms.labels == ("a", "b", "c", "a:b")
    assert drop_scope(terms) == ["c", "a:b"]
    assert drop_scope(terms, model_terms("~ c")) == ["a:b"]
    assert add_scope(model_terms("y ~ a + b"), model_terms("~ a*b*c")) == ["c", "a:b"]
    assert add_scope(model_terms("y ~ a*b"), model_terms("~ a*b + c")) == ["c"]


# --- update ---------------------------------------------------------------------------------
def _same_fit(m, case):
    _close(m.coef, list(case["coef"].values()))
    _close(m.coef_table()["std_error"], case["se"])
    _close([m.deviance, m.null_deviance, m.aic], [case["deviance"], case["null_deviance"],
                                                   case["aic"]])
    assert (m.nobs, m.df_resid) == (case["nobs"], case["df_residual"])


def test_update_drops_a_term_as_r(big):
    m = big.update(". ~ . - age")
    assert m.formula == "diabetes ~ glucose + mass + pedigree"
    _same_fit(m, CASES["update_drop"])


def test_update_with_new_data_and_family_as_r(big):
    # update(big, family = binomial(link = 'logit'), data = cc[cc$age > 25, ])
    m = big.update(data=CC[CC["age"] > 25], family="entropy")
    _same_fit(m, CASES["update_family"])
    assert m.family.name == "entropy" and m.formula == BIG


def test_update_function_and_kept_arguments():
    w = CC.assign(w=np.where(CC["age"] > 40, 2.0, 1.0))
    m = ubreg.fit(BIG, w, weights="w", family="gini")
    u = ubreg.update(m, ". ~ . + pressure")
    direct = ubreg.fit(BIG + " + pressure", w, weights="w", family="gini")
    _close(u.coef, direct.coef, rtol=1e-10)
    assert u.family.name == "gini" and u.fit_arguments["weights"] == "w"
    # the dot of a fitted `y ~ .` is the data's columns, as formula(fit) is in R
    dot = ubreg.fit("diabetes ~ .", CC[["diabetes", "glucose", "mass"]])
    assert dot.update(". ~ . - mass").formula == "diabetes ~ glucose"
    with pytest.raises(TypeError, match="not a ubreg result"):
        ubreg.update(object(), ". ~ .")


def test_update_after_unpickling_needs_the_data(big):
    m = pickle.loads(pickle.dumps(big))
    with pytest.raises(ValueError, match=r"not kept.*data="):
        m.update(". ~ . - age")
    _same_fit(m.update(". ~ . - age", data=CC), CASES["update_drop"])


# --- anova of one model -------------------------------------------------------------------
def test_sequential_anova_is_r(big):
    a = ubreg.anova(big, test="Chisq")
    _same_table(a.table, CASES["anova_sequential"])
    text = str(a)
    assert "Terms added sequentially (first to last)" in text and "glucose" in text
    with pytest.raises(ValueError, match="test must be 'Chisq'"):
        ubreg.anova(big, test="F")                 # R's F test is for estimated dispersion


def test_sequential_anova_takes_a_factor_as_one_term_in_formula_order():
    m = ubreg.fit("diabetes ~ glucose + agecut + mass", CC)
    a = ubreg.anova(m)
    assert list(a.table.index) == ["NULL", "glucose", "agecut", "mass"]
    assert list(a.table["Df"].iloc[1:]) == [1, 2, 1]
    # R's deviances of the nested fits: anova_sequential (glucose), drop1_factor (the rest)
    _close(a.table["Resid. Dev"], [CASES["anova_sequential"]["table"]["Resid. Dev"][0],
                                   CASES["anova_sequential"]["table"]["Resid. Dev"][1],
                                   CASES["drop1_factor"]["table"]["Deviance"][3],
                                   CASES["drop1_factor"]["table"]["Deviance"][0]])
    assert "Pr(>Chi)" not in ubreg.anova(m, test=None).table.columns


def test_sequential_anova_of_a_risk_family_has_no_pvalue():
    m = ubreg.fit("diabetes ~ glucose + mass", CC, family="matsushita")
    a = ubreg.anova(m)
    assert "Pr(>Chi)" not in a.table.columns
    assert a.table["Resid. Dev"].iloc[-1] == pytest.approx(m.deviance)
    assert "not a likelihood" in str(a)


# --- drop1 and add1 -------------------------------------------------------------------------
def test_drop1_is_r(big):
    _same_table(ubreg.drop1(big, test="Chisq").table, CASES["drop1"])


def test_add1_is_r(big):
    _same_table(ubreg.add1(big, "~ . + pressure + pregnant", test="Chisq").table,
                CASES["add1"])


def test_drop1_drops_a_factor_as_a_whole_term():
    m = ubreg.fit("diabetes ~ glucose + agecut + mass", CC)
    _same_table(ubreg.drop1(m, test="Chisq").table, CASES["drop1_factor"],
                labels={"cut(age, c(20, 30, 45, 90))": "agecut"})


def test_drop1_and_add1_respect_marginality():
    # drop1(glm(diabetes ~ glucose*mass + age, binomial, cc), test="Chisq")$Deviance
    d = ubreg.drop1(ubreg.fit("diabetes ~ glucose*mass + age", CC)).table
    assert list(d.index) == ["<none>", "age", "glucose:mass"]
    _close(d["Deviance"], [696.127853288960, 711.802962705763, 696.147449795384])
    assert list(d.columns) == ["Df", "Deviance", "AIC"]
    # add1(glm(diabetes ~ glucose + mass, binomial, cc), ~ . + age*pedigree)$Deviance
    a = ubreg.add1(ubreg.fit("diabetes ~ glucose + mass", CC), "~ . + age*pedigree").table
    assert list(a.index) == ["<none>", "age", "pedigree"]
    _close(a["Deviance"], [712.226442210886, 696.147449795384, 702.689624333474])


def test_add1_refits_on_the_rows_complete_in_the_scope_as_r(big):
    # add1(big, ~ . + triceps + pressure, test = "Chisq") warns "using the 532/724 rows
    # from a combined fit" and prints (digits = 12):
    #          Df      Deviance           AIC            LRT Pr(>Chi)
    # <none>      475.429798125 696.429870912
    # triceps   1 475.086996967 698.087069754 0.342801158521  0.55822
    # pressure  1 474.761893623 697.761966410 0.667904502312  0.41378
    with pytest.warns(UserWarning, match="using the 532/724 rows from a combined fit"):
        a = ubreg.add1(big, "~ . + triceps + pressure", test="Chisq").table
    _close(a["Deviance"], [475.429798125, 475.086996967, 474.761893623], rtol=1e-9)
    _close(a["AIC"], [696.429870912, 698.087069754, 697.761966410], rtol=1e-9)
    _close(a["LRT"].iloc[1:], [0.342801158521, 0.667904502312], rtol=1e-6)


def test_drop1_of_a_risk_family_withholds_aic_and_test():
    m = ubreg.fit("diabetes ~ glucose + mass", CC, family="gini")
    d = ubreg.drop1(m, test="Chisq")
    assert list(d.table.columns) == ["Df", "Deviance"]
    dev = ubreg.fit("diabetes ~ mass", CC, family="gini").deviance
    assert d.table.loc["glucose", "Deviance"] == pytest.approx(dev)
    assert "not a likelihood" in str(d)


# --- step -----------------------------------------------------------------------------------
def _same_step(m, case):
    assert list(model_terms(m.formula).labels) == case["terms"]
    _close(m.aic, case["aic"])
    assert list(m.anova["Step"]) == case["anova_steps"]
    _close(m.anova["AIC"], case["anova_aic"])


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["backward", "both"])
def test_step_from_the_full_model_is_r(full, direction):
    _same_step(ubreg.step(full, direction=direction), CASES[f"step_{direction}"])


@pytest.mark.slow
def test_step_forward_from_the_null_model_is_r():
    null = ubreg.fit("diabetes ~ 1", CC)
    m = ubreg.step(null, scope="~ glucose + mass + pedigree + age + pressure + pregnant",
                   direction="forward")
    _same_step(m, CASES["step_forward"])


@pytest.mark.slow
def test_step_with_bic_and_a_lower_scope_is_r(full):
    # step(full, k = log(nrow(cc)), trace = 0)
    m = ubreg.step(full, k=np.log(len(CC)))
    assert list(model_terms(m.formula).labels) == ["glucose", "mass", "pedigree", "pregnant"]
    assert list(m.anova["Step"]) == ["", "- pressure", "- age"]
    _close(m.anova["AIC"], [718.954602997756, 713.441246898131, 709.151324417264])
    # step(glm(diabetes ~ glucose, ...), scope = list(lower = ~ glucose,
    #      upper = ~ glucose + mass + age), trace = 0)
    small = ubreg.fit("diabetes ~ glucose", CC)
    m = ubreg.step(small, scope={"lower": "~ glucose", "upper": "~ glucose + mass + age"})
    assert list(model_terms(m.formula).labels) == ["glucose", "mass", "age"]
    _close(m.anova["AIC"], [751.838276120249, 718.226442210886, 704.147449795384])


@pytest.mark.slow
def test_step_trace_prints_r_steps(full, capsys):
    """R's default trace = 1, character for character (tests/fixtures/step_trace.R)."""
    ubreg.step(full)
    ubreg.step(ubreg.fit("diabetes ~ 1", CC), scope="~ glucose + mass + age",
               direction="forward")
    assert capsys.readouterr().out == (FIXTURES / "step_trace.txt").read_text()
    ubreg.step(full, trace=0)
    assert capsys.readouterr().out == ""


def test_step_refuses_when_the_rows_change():
    m = ubreg.fit("diabetes ~ glucose + mass + pressure", PIMA)   # - pressure wins
    with pytest.raises(ValueError, match="number of rows in use has changed"):
        ubreg.step(m, direction="backward")


@pytest.mark.slow
def test_step_of_a_risk_family_selects_by_cross_validated_risk():
    m = ubreg.fit("diabetes ~ glucose + mass + pressure", CC, family="gini")
    with pytest.raises(ValueError, match="not a likelihood.*criterion='cv'"):
        ubreg.step(m, criterion="aic")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = ubreg.step(m, direction="backward", folds=5, seed=3)
    assert "CV deviance" in s.anova.columns and "AIC" not in s.anova.columns
    assert "cross-validated" in s.anova.attrs["heading"]
    # the start's criterion: the out-of-fold deviance 2 Σ w D_φ(y‖p̂) of the same folds
    from ubreg.evaluate.stepwise import step_folds
    folds = step_folds(m, 5, 3)
    total = 0.0
    for k in range(5):
        fit = ubreg.fit(m.formula, CC[folds != k], family="gini")
        held = CC[folds == k]
        eta = fit.predict(held, type="link").to_numpy()
        y = (held["diabetes"] == "pos").to_numpy(float)
        total += 2 * np.sum(m.family.divergence(y, eta))
    assert s.anova["CV deviance"].iloc[0] == pytest.approx(total, rel=1e-10)
