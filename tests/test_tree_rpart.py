"""The UDT engine reproduces R's rpart on the Pima fixtures (split = gini / information).

Fixtures: tests/fixtures/rpart_pima_{gini,information}.json, computed with R
4.2.2 / rpart 4.1.19 by the R code stored in each file (``r_code``).  rpart
prunes by misclassification risk, so the trees are grown with
``risk="misclass"``.  rpart's information criterion is the entropy with
natural logarithms.
"""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

from ubreg.families import Permissible
from ubreg.fitters.udt import TreeColumn, grow_tree

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CASES = [("gini", "gini"), ("information", "entropy")]


def load(split):
    ref = json.loads((FIXTURES / f"rpart_pima_{split}.json").read_text())
    data = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    data.index = np.arange(1, len(data) + 1)          # CSV row numbers, as R's row names
    data = data.dropna(subset=ref["predictors"] + ["diabetes"])
    cols = [TreeColumn(p, "numeric", data[p].to_numpy(float)) for p in ref["predictors"]]
    y = (data["diabetes"] == "pos").to_numpy(int)
    return ref, data, cols, y


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    split, family = request.param
    ref, data, cols, y = load(split)
    c = ref["control"]
    tree = grow_tree(cols, y, None, Permissible(family), min_split=c["minsplit"],
                     min_leaf=c["minbucket"], max_depth=c["maxdepth"], cp=c["cp"],
                     risk="misclass")
    return split, family, ref, data, cols, y, tree


def test_frame_matches_rpart(case):
    _, _, ref, _, _, _, tree = case
    f = tree.frame
    rf = ref["frame"]
    assert list(f["node"]) == [r["node"] for r in rf]
    assert list(f["var"]) == [r["var"] for r in rf]
    assert list(f["depth"]) == [r["depth"] for r in rf]
    assert list(f["n"]) == [r["n"] for r in rf]
    np.testing.assert_array_equal(f["weight"], [r["wt"] for r in rf])
    np.testing.assert_array_equal(f["loss"], [r["dev"] for r in rf])
    np.testing.assert_allclose(f["yprob"], [r["yprob"]["pos"] for r in rf], rtol=1e-12)
    np.testing.assert_allclose(f["complexity"], [r["complexity"] for r in rf],
                               rtol=1e-12, atol=1e-15)
    counts = np.array([[r["class_counts"]["neg"], r["class_counts"]["pos"]] for r in rf])
    np.testing.assert_allclose(f["yprob"] * f["weight"], counts[:, 1], rtol=1e-12)


def test_splits_match_rpart(case):
    split, _, ref, _, _, _, tree = case
    internal = tree.frame[~tree.frame["is_leaf"]].reset_index(drop=True)
    assert len(internal) == len(ref["splits"])
    for (_, row), s in zip(internal.iterrows(), ref["splits"]):
        assert row["node"] == s["node"] and row["var"] == s["variable"]
        assert row["threshold"] == pytest.approx(s["index"], rel=1e-12)
        # rpart's ncat = -1: x < index goes left; +1: x >= index goes left
        assert row["direction"] == ("<" if s["ncat"] == -1 else ">=")
        # rpart's improvement n·I(parent) − Σ n_child I(child), I = 2(−φ) for gini
        # (1 − Σp² = 2p(1 − p)) and −φ for information; ours is the drop of the
        # surrogate Σ w(−φ(p))/b_φ (eq. 104)
        b = 0.25 if split == "gini" else np.log(2.0)
        factor = 2.0 if split == "gini" else 1.0
        assert row["improve"] == pytest.approx(s["improve"] / (factor * b), rel=1e-10)
        assert row["n_tied"] == s["n_best_splits_tied"]


def test_exact_tie_keeps_first_variable():
    ref, _, cols, y = load("gini")
    tree = grow_tree(cols, y, None, Permissible("gini"), min_split=20, min_leaf=7, max_depth=4,
                     cp=0, risk="misclass")
    node6 = tree.frame.set_index("node").loc[6]
    # pedigree < 0.3315 and age < 42.5 tie exactly; rpart keeps pedigree (first in formula)
    assert node6["var"] == "pedigree" and node6["n_tied"] == 2
    # with age placed before pedigree, age wins the same tie
    order = [0, 1, 2, 3, 5, 4]
    swapped = grow_tree([cols[i] for i in order], y, None, Permissible("gini"), min_split=20,
                        min_leaf=7, max_depth=4, cp=0, risk="misclass")
    node6 = swapped.frame.set_index("node").loc[6]
    assert node6["var"] == "age" and node6["threshold"] == 42.5


def test_leaf_by_row_and_predictions(case):
    _, _, ref, data, cols, _, tree = case
    leaf = pd.Series(tree.apply(cols), index=data.index)
    rows = ref["leaf_by_row"]["row"]
    np.testing.assert_array_equal(leaf.loc[rows].to_numpy(), ref["leaf_by_row"]["leaf"])
    prob = pd.Series(tree.predict(cols, type="response"), index=data.index)
    for rec in ref["predict_first20"]:
        assert leaf.loc[rec["row"]] == rec["leaf"]
        assert prob.loc[rec["row"]] == pytest.approx(rec["yprob"]["pos"], rel=1e-12)


def test_cptable_matches_rpart(case):
    _, _, ref, _, _, _, tree = case
    cpt = tree.cptable
    np.testing.assert_allclose(cpt["CP"], ref["cptable"]["cp"], rtol=1e-12, atol=1e-15)
    assert list(cpt["nsplit"]) == ref["cptable"]["nsplit"]
    np.testing.assert_allclose(cpt["rel error"], ref["cptable"]["rel_error"], rtol=1e-12)


def test_growing_with_cp_equals_pruning(case):
    """rpart.control(cp = c) grows the tree that prune(tree, c) returns."""
    _, family, ref, _, cols, y, tree = case
    cps = np.asarray(ref["cptable"]["cp"])
    c = ref["control"]
    for cp in np.sqrt(cps[:-1] * np.maximum(cps[1:], 1e-3)):
        grown = grow_tree(cols, y, None, Permissible(family), min_split=c["minsplit"],
                          min_leaf=c["minbucket"], max_depth=c["maxdepth"], cp=cp,
                          risk="misclass")
        pruned = tree.prune(cp)
        assert list(grown.frame["node"]) == list(pruned.frame["node"])
        assert list(grown.frame["var"]) == list(pruned.frame["var"])
