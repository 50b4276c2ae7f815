"""Weak learners on binned columns: binning, histograms, stumps, rules, trees."""
import numpy as np
import pytest

from ubreg.learners.binning import bin_design
from ubreg.learners.rules import fit_rule
from ubreg.learners.stumps import fit_sign_stump
from ubreg.learners.trees import grow_tree, newton_gain


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=500), rng.integers(0, 4, 500), np.ones(500),
                         rng.exponential(size=500)])
    return X


@pytest.mark.parametrize("float32", [False, True])
def test_codes_agree_with_cuts_and_histograms_with_bruteforce(X, float32):
    b = bin_design(X, max_bins=64, float32=float32)
    assert b.nbins[2] == 1                      # the constant column never splits
    assert b.nbins[1] == 4                      # ≤ max_bins distinct values: exact
    assert b.nbins.max() <= 64
    for j in range(X.shape[1]):
        for k, c in enumerate(b.cuts[j]):
            np.testing.assert_array_equal(b.codes[j] > k, X[:, j] > c)
    v = np.random.default_rng(0).normal(size=500)
    H = b.histogram(v)
    for j in range(X.shape[1]):
        ref = np.bincount(b.codes[j], weights=v, minlength=b.nbins[j])
        np.testing.assert_allclose(H[b.offsets[j]:b.offsets[j + 1]], ref,
                                   rtol=1e-5 if float32 else 1e-12, atol=1e-5)


def test_sign_stump_is_the_best_cut(X):
    b = bin_design(X, max_bins=1024)
    v = np.random.default_rng(1).normal(size=500)
    stump, values, edge = fit_sign_stump(b, v)
    best = max(abs(v @ np.where(X[:, j] > c, 1.0, -1.0))
               for j in range(X.shape[1]) for c in b.cuts[j])
    assert abs(edge) == pytest.approx(best, rel=1e-12)
    np.testing.assert_array_equal(values, stump.transform(X))
    assert edge == pytest.approx(v @ values[:, 0])


def test_rule_edge_and_literals(X):
    b = bin_design(X, max_bins=1024)
    v = np.random.default_rng(4).normal(size=500)
    for lit in (1, 2, 3):
        rule, values, edge = fit_rule(b, v, lit)
        assert len(rule.literals) <= lit
        np.testing.assert_array_equal(values, rule.transform(X))
        assert edge == pytest.approx(v @ values[:, 0])
    one = fit_rule(b, v, 1)[2]
    assert abs(fit_rule(b, v, 3)[2]) >= abs(one) - 1e-12


def test_tree_routes_rows_as_it_predicts(X):
    b = bin_design(X)
    rng = np.random.default_rng(5)
    g, h = rng.normal(size=500), rng.uniform(0.1, 1, 500)
    tree, node = grow_tree(b, np.column_stack([g, h]), newton_gain, depth=3, min_leaf=1e-3,
                           leaf_col=1)
    np.testing.assert_array_equal(tree.apply(X), node)
    assert set(np.unique(node)) <= set(tree.leaves)
    assert len(tree.leaves) <= 8 and np.all(tree.gain[tree.feature >= 0] > 0)
    # a stump (depth 1) splits where the Newton gain is largest, checked by brute force
    stump, _ = grow_tree(b, np.column_stack([g, h]), newton_gain, depth=1, min_leaf=0.0,
                         leaf_col=1)
    def gain(mask):
        return g[mask].sum() ** 2 / h[mask].sum() + g[~mask].sum() ** 2 / h[~mask].sum()
    best = max(gain(X[:, j] > c) for j in range(X.shape[1]) for c in b.cuts[j])
    assert gain(X[:, stump.feature[0]] > stump.cut[0]) == pytest.approx(best, rel=1e-10)
