"""Trees in reports: udt's prune= option and the 1-SE rule (rpart's cp table)."""
import numpy as np
import pytest

import ubreg
from ubreg.methods.udt import prune_cp

FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"


@pytest.fixture(scope="module")
def pima():
    return ubreg.datasets.load_pima()


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


def test_prune_option_of_fit_is_the_one_se_tree(pima, full_tree):
    cp, nsplit = one_se_by_hand(full_tree.cptable)
    assert prune_cp(full_tree, "1se") == pytest.approx(cp)
    pruned = ubreg.fit(FORMULA, pima, method="udt", family="entropy", prune="1se")
    assert pruned.n_leaves == nsplit + 1 < full_tree.n_leaves
    np.testing.assert_allclose(pruned.predict(pima), full_tree.prune(cp).predict(pima))
    assert "cp=" in pruned.call


def test_prune_min_and_errors(pima, full_tree):
    table = full_tree.cptable
    best = int(np.argmin(table["xerror"].to_numpy()))
    assert prune_cp(full_tree, "min") == pytest.approx(table["CP"].iloc[best])
    with pytest.raises(ValueError, match="prune must be"):
        ubreg.fit(FORMULA, pima, method="udt", prune="smallest")
    with pytest.raises(ValueError, match="cross-validation"):
        ubreg.fit(FORMULA, pima, method="udt", prune="1se", xval=0)
