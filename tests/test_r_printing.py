"""R parity, part 3: printing as R prints, one predict for every method, trees as rpart
grows them."""
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import ConvergenceWarning
from ubreg.methods.registry import METHODS

from conftest import method_case

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def pima_csv():
    """The Pima data as R's ``read.csv`` reads them (the rpart fixtures' data)."""
    return pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")


# ---- 6. trees as rpart grows them ------------------------------------------------
@pytest.mark.parametrize("split, family", [("gini", "gini"), ("information", "entropy")])
def test_udt_default_is_rparts_tree(pima_csv, split, family):
    """udt's default is rpart's: misclassification cost-complexity, NA rows routed by
    surrogate splits; the cp table and the tree equal rpart's on the whole Pima data
    (374 rows miss insulin, 227 triceps)."""
    ref = json.loads((FIXTURES / "rpart_default.json").read_text())[split]
    m = ubreg.fit("diabetes ~ .", pima_csv, family=family, method="udt", xval=0)
    cpt, rcp = m.cptable, ref["cptable"]
    assert list(cpt.columns) == ["CP", "nsplit", "rel error"]
    assert list(cpt["nsplit"]) == rcp["nsplit"]
    np.testing.assert_allclose(cpt["CP"], rcp["CP"], rtol=1e-12)
    np.testing.assert_allclose(cpt["rel error"], rcp["rel_error"], rtol=1e-12)
    f, rf = m.frame, ref["frame"]
    assert list(f["node"]) == rf["node"]
    assert list(f["var"]) == rf["var"]
    assert list(f["n"]) == rf["n"]
    assert list(f["yval"] + 1) == rf["yval"]          # R's class codes are 1 (neg), 2 (pos)
    np.testing.assert_allclose(f["yprob"], rf["prob_pos"], rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_udt_surrogate_risk_is_an_option(pima_csv):
    """``risk="surrogate"`` prunes by the paper's surrogate risk: a different, larger tree
    whose cp table is on that scale."""
    rpart = ubreg.fit("diabetes ~ .", pima_csv, family="gini", method="udt", xval=0)
    sur = ubreg.fit("diabetes ~ .", pima_csv, family="gini", method="udt", xval=0,
                    risk="surrogate")
    assert rpart.tree.risk == "misclass" and sur.tree.risk == "surrogate"
    assert sur.n_leaves != rpart.n_leaves
    assert sur.cptable["rel error"].iloc[-1] != rpart.cptable["rel error"].iloc[-1]


def _surrogate_data(pima_csv):
    """rpart_surrogates.R's data: age as a five-level factor, pregnant as a factor (6 =
    six or more), glucose missing on every third row (1-based) of band "b"."""
    d = pima_csv.copy()
    d["band"] = pd.cut(d["age"], [0, 24, 30, 40, 55, 100],
                       labels=["a", "b", "c", "d", "e"]).astype(str)
    d["preg"] = np.minimum(d["pregnant"], 6).astype(str)
    d = d.drop(columns=["age", "pregnant"])
    d.loc[(d["band"] == "b") & (np.arange(1, len(d) + 1) % 3 == 0), "glucose"] = np.nan
    return d


@pytest.mark.parametrize("split, family", [("gini", "gini"), ("information", "entropy")])
def test_udt_surrogates_with_factors_are_rparts(pima_csv, split, family):
    """Rows missing glucose are routed by numeric and factor surrogates as rpart routes
    them: same tree, cp table and leaf of every row."""
    ref = json.loads((FIXTURES / "rpart_surrogates.json").read_text())[split]
    m = ubreg.fit("diabetes ~ .", _surrogate_data(pima_csv), family=family, method="udt",
                  xval=0, cp=0.005)
    assert m.tree.surrogates["var"].isin(["band", "preg"]).any()     # factor surrogates used
    assert list(m.frame["node"]) == ref["frame"]["node"]
    assert list(m.frame["var"]) == ref["frame"]["var"]
    assert list(m.frame["n"]) == ref["frame"]["n"]
    np.testing.assert_allclose(m.frame["yprob"], ref["frame"]["prob_pos"], rtol=1e-12,
                               atol=1e-15)
    assert list(m.cptable["nsplit"]) == ref["cptable"]["nsplit"]
    np.testing.assert_allclose(m.cptable["CP"], ref["cptable"]["CP"], rtol=1e-12)
    assert list(m.predict(type="leaf")) == ref["where"]


# ---- 1. print(m) as R prints ----------------------------------------------------------
GLM_FORMULA = "diabetes ~ glucose + mass + pedigree + pregnant + age + pressure"
#: R 4.2.2: print(glm(GLM_FORMULA, binomial, pima)) from "Coefficients:" on
PRINT_GLM = """\
Coefficients:
(Intercept)      glucose         mass     pedigree     pregnant          age  
  -8.962146     0.035194     0.090926     0.960515     0.117863     0.016944  
   pressure  
  -0.008916  

Degrees of Freedom: 723 Total (i.e. Null);  717 Residual
  (44 observations deleted due to missingness)
Null Deviance:\t    931.9 
Residual Deviance: 672.9 \tAIC: 686.9"""


def test_print_of_a_linear_fit_is_print_glm(pima_csv):
    m = ubreg.fit(GLM_FORMULA, pima_csv, family="entropy")
    text = str(m)
    assert repr(m) == text
    assert PRINT_GLM in text
    call = text.splitlines()[1]
    assert call.startswith("Call:  ubreg.fit(") and GLM_FORMULA in call and 'method="uls"' in call
    assert "Family: entropy" in text


def test_print_of_a_linear_fit_without_aic(pima_csv):
    """The linear probability model's log-likelihood can be -Inf: AIC is printed as R
    prints a non-finite number; the degrees of freedom line is still there."""
    m = ubreg.fit("diabetes ~ glucose + mass", pima_csv, family="gini")
    text = str(m)
    assert "Degrees of Freedom: 751 Total (i.e. Null);  749 Residual" in text
    assert "Family: gini" in text and "Coefficients:" in text


@pytest.mark.parametrize("method, options, expect", [
    ("udt", {"xval": 0}, ["n= 768", "1) root 768"]),     # udt keeps rows missing glucose
    # uboost and tboost keep them too (each split learns where missing values go)
    ("uboost", {"mstop": 20}, ["mstop = 20", "n = 768"]),
    ("tboost", {"rounds": 5}, ["Rounds: 5", "n = 768"]),
    ("gnnb", {"k": 5, "T": 50}, ["k = 5", "n = 752"]),
    ("uls", {"learner": "stumps", "rounds": 5}, ["Rounds: 5", "n = 752"]),
])
def test_print_of_other_results_is_short_and_r_like(pima_csv, method, options, expect):
    m = ubreg.fit("diabetes ~ glucose + mass", pima_csv, method=method, **options)
    text = repr(m)
    assert str(m) == text and text.count("\n") >= 3 and not text.startswith("<")
    assert "Call:" in text and m.call in text
    for piece in expect:
        assert piece in text
    assert "AIC" not in text and "Degrees of Freedom" not in text


# ---- 2. the summary as summary.glm ------------------------------------------------------
#: R 4.2.2 format.pval(x, digits = 3), as printCoefmat calls it
R_FORMAT_PVAL = [
    ([0.5, 0.04, 0.0012345, 1.234e-5, 3e-17, 0, 1, 0.0001, 2.2e-16, 0.99999, 0.05, 1.5e-10],
     ["0.50000", "0.04000", "0.00123", "1.23e-05", "< 2e-16", "< 2e-16", "1.00000", "0.00010",
      "< 2e-16", "0.99999", "0.05000", "1.50e-10"]),
    ([0.123456, 0.0000123], ["0.123", "1.23e-05"]),
    ([1e-20, 0.0239, 0.3], ["<2e-16", "0.0239", "0.3000"]),
    ([1e-20, 0.0239, 0.00012], ["< 2e-16", "0.02390", "0.00012"]),
    ([0.0239], ["0.0239"]), ([0.000123], ["0.000123"]), ([1.48e-09], ["1.48e-09"]),
    ([0.5, np.nan], ["0.5", "NA"]), ([1e-20], ["<2e-16"]), ([0.99999], ["1"]),
    ([1e-20, 1.48e-9], ["< 2e-16", "1.48e-09"]), ([0.051, 0.0499, 0.001],
                                                  ["0.0510", "0.0499", "0.0010"]),
    ([2.5e-4], ["0.00025"]), ([0.12, 1e-300], ["0.12", "<2e-16"]),
]


@pytest.mark.parametrize("values, expected", R_FORMAT_PVAL)
def test_p_values_are_formatted_as_r_format_pval(values, expected):
    from ubreg.summary.rformat import format_pvalues
    assert [s.strip() for s in format_pvalues(np.array(values))] == expected


@pytest.fixture(scope="module")
def banded(pima_csv):
    d = pima_csv.copy()
    d["band"] = pd.cut(d["age"], [0, 30, 50, 100],
                       labels=["young", "middle", "old"]).cat.as_unordered()
    return d


def test_summary_lists_terms_in_formula_order(banded):
    m = ubreg.fit("diabetes ~ glucose + band + mass + glucose:mass", banded)
    s = m.summary()
    shown = ["(Intercept)", "glucose", "bandmiddle", "bandold", "mass", "glucose:mass"]
    assert list(m.coef.index) == shown                    # R's order in the fit itself
    assert list(s.frame().index) == shown
    lines = str(s).splitlines()
    rows = [next(i for i, line in enumerate(lines) if line.startswith(name + " "))
            for name in shown]
    assert rows == sorted(rows)
    html = s.html()
    assert [html.index(f">{name}<") for name in shown] == sorted(
        html.index(f">{name}<") for name in shown)


def test_summary_stars_legend_p_values_and_covariance(banded):
    m = ubreg.fit("diabetes ~ glucose + band + mass", banded)
    for cov, label in (("model", "inverse Fisher information"), ("robust", "HC0")):
        s = m.summary(cov=cov)
        text, html = str(s), s.html()
        assert "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1" in text
        assert "Signif. codes" in html
        assert label in text and label in html and label in s.frame().attrs["covariance"]
    line = next(ln for ln in str(m.summary()).splitlines() if ln.startswith("glucose "))
    assert line.split()[-2:] == ["<2e-16", "***"] or line.split()[-3:] == ["<", "2e-16", "***"]


# ---- 4. one predict for every method ------------------------------------------------------

PREDICT_FORMULA = "diabetes ~ glucose + mass + age"


@pytest.fixture(scope="module")
def pima():
    return ubreg.datasets.load_pima().dropna(subset=["glucose", "mass", "age"]) \
        .reset_index(drop=True)


_FITS = {}


def _fit(label, data, formula=PREDICT_FORMULA):
    key = (label, formula)
    if key not in _FITS:
        case = method_case(label)
        with warnings.catch_warnings():       # the tiny quick fits may separate or stop early
            warnings.simplefilter("ignore", ConvergenceWarning)
            _FITS[key] = ubreg.fit(formula, data, method=case.method, **case.options)
    return _FITS[key]


def _newdata(pima):
    new = pima.iloc[:12].copy()
    new.index = pd.Index([f"r{i}" for i in range(12)], name="id")
    new.loc["r3", "mass"] = np.nan            # NA in a predictor
    new.loc["r7", "age"] = np.nan
    return new


NA_ROWS = ["r3", "r7"]


def test_one_predict_for_every_method(every_method, pima):
    m = _fit(every_method, pima)
    new = _newdata(pima)
    ok = new.index.difference(NA_ROWS)
    # a tree routes a row missing a predictor by its surrogates (predict.rpart); the
    # other methods give NA
    routed = METHODS[m.method].keeps_missing
    p = m.predict(new, type="response")
    assert isinstance(p, pd.Series) and p.index.equals(new.index)
    assert p[NA_ROWS].notna().all() if routed else p[NA_ROWS].isna().all()
    assert np.isfinite(p[ok]).all()
    link = m.predict(new, type="link")
    assert isinstance(link, pd.Series) and link.index.equals(new.index)
    assert link[NA_ROWS].notna().all() if routed else link[NA_ROWS].isna().all()
    assert link[ok].notna().all()
    cls = m.predict(new, type="class")
    assert isinstance(cls, pd.Series) and isinstance(cls.dtype, pd.CategoricalDtype)
    assert list(cls.cat.categories) == ["neg", "pos"] and cls.index.equals(new.index)
    assert cls[NA_ROWS].notna().all() if routed else cls[NA_ROWS].isna().all()
    assert cls[ok].notna().all()
    # a tree's leaf with p = 1/2 predicts the first level, as rpart
    pos = (p[ok] > 0.5) if routed else (p[ok] >= 0.5)
    assert ((cls[ok] == "pos") == pos).all()
    train = m.predict(type="class")
    assert isinstance(train.dtype, pd.CategoricalDtype) and len(train) == len(m.predict())


def test_one_predict_for_every_multiclass_method(every_multiclass_method, pima):
    every_method = every_multiclass_method
    data = pima.assign(band=pd.cut(pima["age"], [0, 25, 40, 100],
                                   labels=["young", "middle", "old"]).astype(str))
    m = _fit(every_method, data, "band ~ glucose + mass + pregnant")
    new = _newdata(data)
    new.loc["r3", "glucose"] = np.nan
    ok = new.index.difference(["r3"])
    # a tree routes a row missing a predictor (predict.rpart); the other methods give NA
    routed = METHODS[every_method].keeps_missing
    p = m.predict(new, type="response")
    assert isinstance(p, pd.DataFrame) and list(p.columns) == ["middle", "old", "young"]
    assert p.index.equals(new.index) and p.loc["r3"].isna().all() != routed
    np.testing.assert_allclose(p.loc[ok].sum(axis=1), 1.0)
    cls = m.predict(new, type="class")
    assert isinstance(cls.dtype, pd.CategoricalDtype)
    assert list(cls.cat.categories) == ["middle", "old", "young"]
    assert pd.isna(cls["r3"]) != routed and (cls[ok] == p.loc[ok].idxmax(axis=1)).all()
    h = m.predict(new, type="link")
    assert isinstance(h, pd.DataFrame) and h.loc["r3"].isna().all() != routed


def test_udt_routes_a_new_row_missing_a_predictor_as_its_training_rows(pima_csv):
    """As predict.rpart: a new row missing insulin follows the surrogates, as the training
    rows missing it did (tests/test_rpart_predict.py compares with R)."""
    m = ubreg.fit("diabetes ~ .", pima_csv, method="udt", xval=0)
    row = pima_csv[pima_csv["insulin"].isna()]
    for type in ("response", "link", "class", "leaf"):
        pd.testing.assert_series_equal(m.predict(row, type=type),
                                       m.predict(type=type).loc[row.index], check_names=False)


# ---- 5. no AIC, BIC or residual df without a likelihood -----------------------------------
def test_results_without_likelihood_have_no_aic_bic_or_df_resid(every_method, pima):
    m = _fit(every_method, pima)
    caps = type(m).capabilities
    stats = {name: float(getattr(m, name)) for name in ("aic", "bic", "df_resid")}
    if caps.has_likelihood:
        assert all(np.isfinite(v) for v in stats.values())
        return
    assert all(np.isnan(v) for v in stats.values()), stats
    s = m.summary()
    for form in (str(s), s.html()):
        assert "AIC" not in form and "BIC" not in form
        assert "degrees of freedom" not in form.lower()
    for name in ("aic", "bic", "df_resid"):
        assert "has_likelihood" in getattr(type(m), name).__doc__


def test_compare_shows_blank_information_criteria(pima):
    models = {label: _fit(label, pima) for label in ("uls", "udt", "uboost", "gnnb")}
    cmp = ubreg.compare(models)
    stats = cmp.statistics()
    assert np.isfinite(stats["uls"]["aic"]) and np.isnan(stats["udt"]["aic"])
    assert np.isnan(stats["gnnb"]["bic"]) and np.isnan(stats["uboost"]["aic"])
    text, html = str(cmp), cmp.html()
    assert "AIC" in text and "AIC" in html and "nan" not in text.lower()


def test_udt_summary_prints_the_tree_and_cp_table_as_rpart(pima_csv):
    """The listing is print.rpart's and the cp table printcp's, line for line."""
    r_lines = (FIXTURES / "rpart_print.txt").read_text().splitlines()
    m = ubreg.fit("diabetes ~ .", pima_csv, family="entropy", method="udt", xval=0)
    lines = str(m.summary()).splitlines()
    start = r_lines.index("node), split, n, loss, yval, (yprob)")
    listing = r_lines[start:]
    i = lines.index(listing[0])
    assert lines[i:i + len(listing)] == listing
    cp_start = r_lines.index("Root node error: 268/768 = 0.34896")
    table = [r_lines[cp_start]] + r_lines[cp_start + 4:cp_start + 10]
    j = lines.index(table[0])
    assert [lines[j]] + lines[j + 2:j + 8] == table


# ---- 3. the README says which glm the 1e-6 agreement is with -----------------------------
def _short(x: float) -> str:
    mantissa, exp = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exp)}"


def test_readme_states_the_glm_control_and_the_default_control_difference():
    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert ("R's `glm(family = binomial, control = glm.control(epsilon = 1e-14))` to better "
            "than 1e-6") in text
    cases = json.loads((FIXTURES / "glm_parity.json").read_text())["cases"]["default_control"]
    models = {k: v for k, v in cases.items() if k != "r_code"}
    coef = max(v["max_rel_coef"] for v in models.values())
    se = max(v["max_rel_se"] for v in models.values())
    identical = [k for k, v in models.items() if v["max_rel_coef"] == v["max_rel_se"] == 0]
    assert f"coefficients differ by up to {_short(coef)} relative" in text
    assert f"standard errors by up to {_short(se)} relative" in text
    assert len(identical) == 1 and f"`{identical[0]}`) is identical" in text
