"""``control=ubreg.glm_control()``: R's IRLS and R's stopping rule
(tests/fixtures/glm_control.R): coefficients, standard errors (model and HC0), deviance,
iteration count and convergence flag of R's default ``glm`` to 1e-10, R's trace lines;
for every family, the same iteration run to a tight epsilon reaches ubreg's optimum."""
import json
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from r_pima import r_pima

import ubreg
from ubreg.errors import ConvergenceWarning
from ubreg.families import FAMILIES
from ubreg.fitters.irls import saturates

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "glm_control.json").read_text())


PIMA = r_pima()
ESOPH = pd.read_csv(FIXTURES / "data" / "esoph.csv").astype(
    {"agegp": pd.CategoricalDtype(["25-34", "35-44", "45-54", "55-64", "65-74", "75+"]),
     "tobgp": pd.CategoricalDtype(["0-9g/day", "10-19", "20-29", "30+"])})
FULL = "y ~ glucose + mass + pedigree + age"
CASES = {
    "default": (FULL, PIMA, {}, {}),
    "loose": (FULL, PIMA, {}, {"epsilon": 1e-3}),
    "short": (FULL, PIMA, {}, {"maxit": 2}),
    "weighted": ("y ~ glucose + mass + pedigree", PIMA, {"weights": "w_frac"}, {}),
    "probit": (FULL, PIMA, {"family": "binomial(link = 'probit')"}, {}),
    "cloglog": ("y ~ glucose + mass + age", PIMA, {"family": "binomial(link = 'cloglog')"},
                {}),
    "aliased": ("y ~ glucose + mass + mass2 + pedigree", PIMA, {}, {}),
    "offset": ("y ~ glucose + mass + offset(off)", PIMA, {}, {}),
    "esoph": ("cbind(ncases, ncontrols) ~ agegp + tobgp", ESOPH, {}, {}),
}


def _fit(case: str, **extra):
    formula, data, kw, ctl = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(formula, data, method="uls", control=ubreg.glm_control(**ctl),
                         **kw, **extra)


@pytest.mark.parametrize("case", list(CASES))
def test_agrees_with_r_default_glm(case):
    m, ref = _fit(case), R[case]
    assert list(m.coef.index) == list(ref["coef"])
    r_coef = np.array([np.nan if b is None else b for b in ref["coef"].values()])
    np.testing.assert_allclose(m.coef, r_coef, rtol=1e-10)        # NA where aliased
    defined = np.isfinite(r_coef)
    np.testing.assert_allclose(m.bse[defined], ref["se"], rtol=1e-10)
    np.testing.assert_allclose(m.deviance, ref["deviance"], rtol=1e-12)
    np.testing.assert_allclose(m.null_deviance, ref["null_deviance"], rtol=1e-12)
    np.testing.assert_allclose(m.aic, ref["aic"], rtol=1e-12)
    assert (m.iterations, m.converged) == (ref["iter"], ref["converged"])
    if case != "weighted":
        # R's vcovHC scales by (rows of non-zero weight / all rows)², a quirk ubreg does
        # not copy (docs/inference.md)
        np.testing.assert_allclose(np.sqrt(np.diag(m.vcov("HC0")))[defined], ref["se_hc0"],
                                   rtol=1e-10)


def test_default_stopping_differs_from_the_optimum_as_the_docs_say():
    """Without control ubreg goes to the optimum: the SEs differ from R's default glm in
    the 5th significant digit or beyond, and agree to 1e-6 relative with control."""
    optimum = ubreg.fit(FULL, PIMA, method="uls")
    r_default = np.asarray(R["default"]["se"])
    assert np.max(np.abs(optimum.bse / r_default - 1)) > 1e-9
    assert np.max(np.abs(_fit("default").bse / r_default - 1)) < 1e-12


def test_summary_counts_fisher_scoring_iterations_as_r():
    text = str(_fit("default").summary())
    assert "Number of Fisher Scoring iterations: 5" in text
    assert "NOT converged" in str(_fit("short").summary())


def test_not_converging_warns_as_glm_does():
    with pytest.warns(ConvergenceWarning, match="glm.fit: algorithm did not converge"):
        ubreg.fit(FULL, PIMA, method="uls", control=ubreg.glm_control(maxit=2))


def test_trace_prints_r_lines(capsys):
    ubreg.fit(FULL, PIMA, method="uls", control=ubreg.glm_control(trace=True))
    assert capsys.readouterr().out.splitlines() == R["trace"]


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_reaches_the_optimum_with_a_tight_epsilon(name):
    """For a family without an R counterpart the iteration is Newton's method on the
    family's own risk: run to epsilon = 1e-15 it finds ubreg's optimum."""
    family = FAMILIES[name]()
    formula = "y ~ glucose + mass + pedigree"
    if saturates(family):           # logcosh: zero curvature past its link's domain
        with pytest.raises(ValueError, match="saturates"):
            ubreg.fit(formula, PIMA, family=family, method="uls",
                      control=ubreg.glm_control())
        return
    optimum = ubreg.fit(formula, PIMA, family=family, method="uls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit(formula, PIMA, family=family, method="uls",
                      control=ubreg.glm_control(epsilon=1e-15, maxit=200))
    np.testing.assert_allclose(m.predict(type="response"), optimum.predict(type="response"),
                               atol=1e-7)


@pytest.mark.parametrize("control, message", [
    ({"epsilon": 0}, "epsilon must be a number in"),
    ({"epsilon": 1.5}, "epsilon must be a number in"),
    ({"maxit": 0}, "maxit must be a whole number"),
    ({"maxit": 2.5}, "maxit must be a whole number"),
    ({"eps": 1e-8}, "unknown field 'eps'"),
])
def test_bad_control_is_refused_by_name(control, message):
    with pytest.raises(ValueError, match=message):
        ubreg.fit(FULL, PIMA, method="uls", control=control)


def test_control_given_as_dict_or_text_equals_glm_control():
    a = ubreg.fit(FULL, PIMA, method="uls", control={"epsilon": 1e-3})
    b = ubreg.fit(FULL, PIMA, method="uls", control="epsilon=1e-3, maxit=25")
    c = _fit("loose")
    assert np.array_equal(a.coef, c.coef) and np.array_equal(b.coef, c.coef)


def test_multiclass_response_refuses_control():
    d = PIMA.assign(k=pd.cut(PIMA["age"], [0, 30, 45, 100], labels=["a", "b", "c"]))
    with pytest.raises(ValueError, match="multinomial"):
        ubreg.fit("k ~ glucose", d, method="uls", control=ubreg.glm_control())


def test_command_line_takes_control(tmp_path):
    path = tmp_path / "pima.csv"
    PIMA[["y", "glucose", "mass", "pedigree", "age"]].to_csv(path, index=False)
    out = subprocess.run([sys.executable, "-m", "ubreg", "fit", FULL, str(path), "--method",
                          "uls", "-o", "control=epsilon=1e-8,maxit=25"],
                         capture_output=True, text=True, check=True).stdout
    assert "Number of Fisher Scoring iterations: 5" in out


def test_glm_control_repr_and_data_untouched():
    before = PIMA.copy()
    _fit("default")
    pd.testing.assert_frame_equal(PIMA, before)
    assert repr(ubreg.glm_control()) == "glm_control(epsilon=1e-08, maxit=25, trace=False)"
