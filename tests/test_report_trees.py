"""Trees in reports: udt's prune= option and the 1-SE rule (rpart's cp table)."""
import numpy as np
import pytest

import ubreg
from ubreg.methods.udt import prune_cp

FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"


@pytest.fixture(scope="module")
def full_tree(pima):
    return ubreg.fit(FORMULA, pima, method="udt", family="entropy")


def one_se_by_hand(cptable):
    """The 1-SE rule written out: the first (smallest) tree of the table whose xerror is at
    most the least xerror plus that row's xstd."""
    xerror, xstd = cptable["xerror"].to_numpy(), cptable["xstd"].to_numpy()
    best = int(np.argmin(xerror))
    for i in range(len(cptable)):
        if xerror[i] <= xerror[best] + xstd[best]:
            return float(cptable["CP"].iloc[i]), int(cptable["nsplit"].iloc[i])
    raise AssertionError("no row")


@pytest.mark.slow
def test_prune_option_of_fit_is_the_one_se_tree(pima, full_tree):
    cp, nsplit = one_se_by_hand(full_tree.cptable)
    assert prune_cp(full_tree, "1se") == pytest.approx(cp)
    pruned = ubreg.fit(FORMULA, pima, method="udt", family="entropy", prune="1se")
    assert pruned.n_leaves == nsplit + 1 < full_tree.n_leaves
    np.testing.assert_allclose(pruned.predict(pima), full_tree.prune(cp).predict(pima))
    assert "cp=" in pruned.call


@pytest.mark.slow
def test_prune_min_and_errors(pima, full_tree):
    table = full_tree.cptable
    best = int(np.argmin(table["xerror"].to_numpy()))
    assert prune_cp(full_tree, "min") == pytest.approx(table["CP"].iloc[best])
    with pytest.raises(ValueError, match="prune must be"):
        ubreg.fit(FORMULA, pima, method="udt", prune="smallest")
    with pytest.raises(ValueError, match="cross-validation"):
        ubreg.fit(FORMULA, pima, method="udt", prune="1se", xval=0)


@pytest.mark.slow
def test_report_shows_the_tree_pruned_by_the_one_se_rule(full_tree, tmp_path):
    import re

    cp, nsplit = one_se_by_hand(full_tree.cptable)
    html = ubreg.report({"tree": full_tree}, tmp_path / "r.html").read_text("utf-8")
    trees = re.search(r'<section id="trees">(.*?)</section>', html, re.S).group(1)
    assert (f"tree: pruned by the 1-SE rule (the smallest tree whose cross-validated error is "
            f"within one standard error of the least) at cp = {cp:#.4g}: {nsplit} split"
            ) in trees
    assert f"{nsplit + 1} leaves, of the {int(full_tree.cptable['nsplit'].max())} splits" in trees
    assert nsplit != 1 or "1 split," in trees
    # the cp table marks the chosen row; the pruned tree is drawn
    marked = re.findall(r'<tr class="mark"><th scope="row">(.*?)</th><td[^>]*>(\d+)</td>', trees)
    assert marked == [(f"{cp:#.4g}", str(nsplit))]
    assert 'id="trees-figure-' in trees and "<img" in trees
    # the pruned tree stands for the model everywhere: its summary has nsplit + 1 leaves
    model = re.search(r'<section id="model-1" class="model">(.*?)</section>', html, re.S).group(1)
    assert "prune(ubreg.fit(" in model and f"cp={cp:g})" in model
    # the full tree on request, and the least-error rule
    full = ubreg.report({"tree": full_tree}, tmp_path / "f.html", prune=None).read_text("utf-8")
    assert f"tree: shown as fitted, {full_tree.n_leaves} leaves." in full
    least = ubreg.report({"tree": full_tree}, tmp_path / "m.html", prune="min").read_text("utf-8")
    assert f"the least cross-validated error at cp = {prune_cp(full_tree, 'min'):#.4g}" in least
    with pytest.raises(ValueError, match="prune must be"):
        ubreg.report({"tree": full_tree}, tmp_path / "x.html", prune="max")


@pytest.mark.slow
def test_a_tree_without_a_cross_validated_cp_table_is_shown_as_fitted(pima):
    from ubreg.reporting.trees_section import prune_trees, trees_section

    m = ubreg.fit("diabetes ~ glucose + mass", pima, method="udt", xval=0)
    models, trees = prune_trees({"t": m}, "1se")
    assert models["t"] is m and trees[0].cp is None
    text = trees_section(trees).blocks[0].text
    assert "shown as fitted" in text and "no cross-validated error" in text
