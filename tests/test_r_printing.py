"""R parity, part 3: printing as R prints, one predict for every method, trees as rpart
grows them."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

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
