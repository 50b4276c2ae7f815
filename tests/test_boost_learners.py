"""Weak learners on binned columns: binning, histograms, stumps, rules, trees."""
import numpy as np
import pytest

from ubreg.learners.rules import fit_rule
from ubreg.learners.stumps import fit_sign_stump
from ubreg.trees.binning import bin_design
from ubreg.trees.shallow import grow_tree, newton_gain


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
    assert gain(X[:, stump.feature[0]] > stump.threshold[0]) == pytest.approx(best, rel=1e-10)


# --- compiled tree kernels (ubreg.trees.histograms) ---------------------------------
def _brute_histogram(b, stats, rows):
    out = np.zeros((b.total_bins, stats.shape[1]))
    for j in np.flatnonzero(b.nbins > 1):
        for s in range(stats.shape[1]):
            out[b.offsets[j]:b.offsets[j + 1], s] = np.bincount(
                b.codes[j, rows], weights=stats[rows, s], minlength=b.nbins[j])
    return out


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("max_bins", [16, 1024])       # uint8 and uint16 codes
def test_histogram_kernels_sum_in_row_order(X, k, max_bins):
    from ubreg.trees import _level_kernels as _hist
    b = bin_design(X, max_bins=max_bins)
    assert b.codes.dtype == (np.uint8 if max_bins == 16 else np.uint16)
    rng = np.random.default_rng(k)
    stats = rng.normal(size=(X.shape[0], k))
    feats = np.flatnonzero(b.nbins > 1)
    allrows = np.arange(X.shape[0])
    rows = np.sort(rng.choice(X.shape[0], 123, replace=False))
    H = np.zeros((b.total_bins, k))
    _hist.histogram_all(b.codes, feats, b.offsets, b.nbins, stats, H)
    # bitwise: each bin sums its rows in increasing order, as np.bincount does
    np.testing.assert_array_equal(H, _brute_histogram(b, stats, allrows))
    H = np.zeros((b.total_bins, k))
    _hist.histogram_rows(b.codes, feats, b.offsets, b.nbins, stats, rows, H)
    np.testing.assert_array_equal(H, _brute_histogram(b, stats, rows))


def test_compiled_newton_search_is_the_numpy_search(X):
    # grow_tree runs newton_gain as one compiled pass; any other gain_fn runs
    # the numpy path: the same arithmetic, so the same trees and gains, bit for bit
    b = bin_design(X, max_bins=32)
    rng = np.random.default_rng(8)
    n = X.shape[0]
    for depth in (1, 3, 5):
        g, h, w = rng.normal(size=n), rng.uniform(0, 1, n), rng.integers(0, 3, n) * 1.0
        for stats, ml, lc in ((np.column_stack([g, h]), 1e-3, 1),
                              (np.column_stack([g, h, w]), (1e-3, 4.0), (1, 2))):
            a, na = grow_tree(b, stats, newton_gain, depth, min_leaf=ml, leaf_col=lc)
            c, nc = grow_tree(b, stats, lambda L, R, P: newton_gain(L, R, P), depth,
                              min_leaf=ml, leaf_col=lc)
            for f in ("feature", "threshold", "gain", "left", "right", "nan_left"):
                np.testing.assert_array_equal(getattr(a, f), getattr(c, f))
            np.testing.assert_array_equal(na, nc)


def test_ties_go_to_the_first_column_whatever_the_row_order(X):
    # an exact copy and a rescaled copy of column 0 split the rows as column 0
    # does: equal gains up to rounding, so the first column must win, and the
    # tree must not depend on the order of the rows
    Xd = np.column_stack([X[:, 0], X[:, 1], 3.0 * X[:, 0] + 1.0, X[:, 0]])
    b = bin_design(Xd)
    rng = np.random.default_rng(3)
    g, h = rng.normal(size=500) + Xd[:, 0], rng.uniform(0.1, 1, 500)
    tree, node = grow_tree(b, np.column_stack([g, h]), newton_gain, depth=3, min_leaf=1e-3,
                           leaf_col=1)
    assert set(tree.feature[tree.feature >= 0]) <= {0, 1}
    perm = rng.permutation(500)
    bp = bin_design(Xd[perm])
    tp, nodep = grow_tree(bp, np.column_stack([g, h])[perm], newton_gain, depth=3,
                          min_leaf=1e-3, leaf_col=1)
    np.testing.assert_array_equal(tp.feature, tree.feature)
    np.testing.assert_array_equal(tp.threshold, tree.threshold)
    np.testing.assert_array_equal(nodep, node[perm])


def test_cuts_and_codes_follow_their_definitions():
    # cuts: np.quantile(method="lower") snapped to midpoints of distinct values;
    # codes: np.searchsorted(cuts, x), though computed from one argsort per column
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.normal(size=3000).round(2), np.full(400, 0.5)])
    w = rng.integers(0, 3, x.size).astype(float)
    for weights in (None, w):
        b = bin_design(x[:, None], max_bins=64, weights=weights)
        xc = x if weights is None else x[weights > 0]
        values = np.unique(xc)
        q = np.quantile(xc, np.linspace(0, 1, 65)[1:-1], method="lower")
        pos = np.unique(np.searchsorted(values, q, side="left"))
        pos = pos[pos < values.size - 1]
        np.testing.assert_array_equal(b.cuts[0], 0.5 * (values[pos] + values[pos + 1]))
        np.testing.assert_array_equal(b.codes[0], np.searchsorted(b.cuts[0], x, side="left"))


# --- the one protocol of weak hypotheses (ubreg.learners.base) -----------------------
def _hypotheses(X):
    """One hypothesis of every kind, fitted on X, with its training values."""
    from ubreg.families import Permissible
    from ubreg.learners.linear import Componentwise
    from ubreg.trees.best_first import grow_best_first
    from ubreg.trees.shallow import fit_leaf_tree, fit_newton_tree
    b = bin_design(X)
    rng = np.random.default_rng(6)
    n = X.shape[0]
    v, y = rng.normal(size=n), rng.integers(0, 2, n)
    g, h = rng.normal(size=n) + X[:, 0], rng.uniform(0.1, 1, n)
    newton, node = fit_newton_tree(b, np.column_stack([g, h]), 2, 1e-3)
    best_first = grow_best_first(X, 2.0 * y - 1, rng.uniform(0.1, 1, n),
                                 lambda p: 4 * p * (1 - p), lambda p: 4 * (2 * p - 1), max_size=7)
    step, fitted = Componentwise(X, np.ones(n), [np.array([0]), np.array([1, 3])],
                                 True).step(g, h)
    return [fit_sign_stump(b, v)[:2], fit_rule(b, v, 2)[:2],
            fit_leaf_tree(b, v, y, np.ones(n), Permissible("gini").phi, 2)[:2],
            (newton, newton.value[node]), (best_first, best_first.predict(X)),
            (step, fitted)]


def test_every_hypothesis_gives_features_and_output_by_one_protocol(X):
    from ubreg.learners.base import OnColumns, WeakHypothesis
    names = ["a", "b", "one", "c"]
    for hyp, values in _hypotheses(X):
        assert isinstance(hyp, WeakHypothesis), hyp
        T = hyp.transform(X)
        assert T.shape == (X.shape[0], hyp.n_features) and T.dtype == np.float64
        assert len(hyp.describe(names)) == hyp.n_features
        assert set(hyp.columns) <= {0, 1, 3} and hyp.key() in {hyp.key(): hyp}   # a dict key
        # the learner's training values are the hypothesis read on the training rows
        np.testing.assert_allclose(values.reshape(X.shape[0], -1),
                                   T if values.ndim == 2 else hyp.predict(X)[:, None],
                                   rtol=1e-12, atol=1e-12)
        if hyp.kind == "tree":
            # a tree's features are its leaf indicators; its output the leaf's value
            np.testing.assert_array_equal(T.sum(axis=1), 1.0)
            if hyp.value is not None:
                np.testing.assert_array_equal(hyp.predict(X),
                                              T @ np.asarray(hyp.value)[hyp.leaves])
        else:
            np.testing.assert_allclose(hyp.predict(X), T[:, 0], rtol=1e-12, atol=1e-12)
        # fitted on X, whose columns are the columns 3, 0, 2, 1 of the design
        on = OnColumns(hyp, [3, 0, 2, 1])
        wide = np.empty_like(X)
        wide[:, [3, 0, 2, 1]] = X
        np.testing.assert_array_equal(on.transform(wide), T)
        assert on.columns == tuple(sorted([3, 0, 2, 1][j] for j in hyp.columns))
        assert on.describe(["b", "c", "one", "a"]) == hyp.describe(names)


def test_a_known_root_histogram_of_the_weights_gives_the_same_tree():
    """U-Boost sums the root histogram of the row weights once for the whole fit
    (it is the same every round): the trees, leaf values and leaves of the rows are
    those of summing it every round, to the bit, with any weights."""
    from ubreg.trees.shallow import fit_newton_tree, root_histogram
    rng = np.random.default_rng(8)
    n = 4000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 7, n), rng.normal(size=n).round(1)])
    b = bin_design(X, 32)
    for w in (np.ones(n), rng.uniform(0.1, 3.0, n), rng.integers(0, 4, n).astype(float)):
        stats = np.column_stack([rng.normal(size=n) * w, rng.uniform(0.1, 1, n) * w, w])
        known = root_histogram(b, w)
        a, node_a = fit_newton_tree(b, stats, 3, 1e-3, 30.0)
        c, node_c = fit_newton_tree(b, stats, 3, 1e-3, 30.0, root_weights=known)
        for key in ("feature", "threshold", "gain", "value", "left", "right", "nan_left"):
            np.testing.assert_array_equal(getattr(a, key), getattr(c, key), err_msg=key)
        np.testing.assert_array_equal(node_a, node_c)
        assert (a.feature >= 0).sum() >= 3
        # the known histogram is the one the root would sum (the weights' column)
        H = np.zeros((b.total_bins, 3))
        from ubreg.trees import _level_kernels
        _level_kernels.histogram_all(b.codes, np.flatnonzero(b.nbins > 1), b.offsets, b.nbins,
                                     stats, H)
        np.testing.assert_array_equal(known, H[:, 2])
