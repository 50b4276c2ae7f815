"""UDT with gini / entropy grows scikit-learn's DecisionTreeClassifier trees.

Random data on a fine grid (float32-representable, as sklearn casts X to
float32, and never closer than sklearn's FEATURE_THRESHOLD),
sklearn's defaults min_samples_split=2, min_samples_leaf=1 and cp = 0, pruned by
the surrogate risk (``risk="surrogate"``: with cp = 0 it keeps every split that
lowers the impurity, as sklearn does; rpart's misclassification risk would
prune the splits that do not change a leaf's class).  The
trees are walked together comparing features, thresholds, node sizes and
class proportions.  sklearn breaks exact ties between features at random; at a
node where our engine reports a tie (``n_tied`` > 1) the test checks instead
that sklearn's split has the same improvement on the node's rows, and stops
comparing below it.
"""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from ubreg.families import Permissible
from ubreg.fitters.udt import TreeColumn, grow_tree


def make_data(n, p, seed):
    rng = np.random.default_rng(seed)
    # a grid of 2^-16: exact in float32 (sklearn's dtype) and coarser than
    # sklearn's FEATURE_THRESHOLD (1e-7), below which it does not cut
    X = np.round(rng.standard_normal((n, p)) * 2.0 ** 16) / 2.0 ** 16
    eta = X[:, 0] - 0.7 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3]
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-2.0 * eta))).astype(int)
    cols = [TreeColumn(f"x{j}", "numeric", np.ascontiguousarray(X[:, j])) for j in range(p)]
    return X, y, cols


def impurity_drop(y, x, t, crit):
    def h(v):
        if v.size == 0:
            return 0.0
        q = v.mean()
        if crit == "gini":
            return v.size * q * (1 - q)
        return -v.size * sum(r * np.log(r) for r in (q, 1 - q) if r > 0)
    return h(y) - h(y[x <= t]) - h(y[x > t])


def compare_trees(tree, sk, X, y, crit):
    t, nd = sk.tree_, tree.nodes
    paths = sk.decision_path(X).tocsc()
    stack, compared, tied = [(0, 0)], 0, 0
    while stack:
        i, k = stack.pop()
        assert nd["n"][i] == t.n_node_samples[k]
        p_sk = t.value[k][0][1] / t.value[k][0].sum()
        assert nd["wy"][i] / nd["weight"][i] == pytest.approx(p_sk, rel=1e-12, abs=1e-15)
        ours_leaf, sk_leaf = nd["left"][i] < 0, t.children_left[k] == -1
        assert ours_leaf == sk_leaf
        if ours_leaf:
            continue
        if nd["n_tied"][i] > 1:
            rows = paths[:, k].nonzero()[0]
            ours = impurity_drop(y[rows], X[rows, nd["var"][i]], nd["threshold"][i] - 1e-300,
                                 crit)
            theirs = impurity_drop(y[rows], X[rows, t.feature[k]], t.threshold[k], crit)
            assert ours == pytest.approx(theirs, rel=1e-9)
            tied += 1
            continue
        assert nd["var"][i] == t.feature[k]
        assert nd["threshold"][i] == t.threshold[k]
        compared += 1
        # sklearn's left child holds x <= t, ours the side with the smaller p(y = 1)
        lo, hi = nd["left"][i], nd["right"][i]
        if nd["direction"][i] > 0:
            lo, hi = hi, lo
        stack += [(lo, t.children_left[k]), (hi, t.children_right[k])]
    return compared, tied


@pytest.mark.slow
@pytest.mark.parametrize("crit, family", [("gini", "gini"), ("entropy", "entropy")])
@pytest.mark.parametrize("depth", [1, 3, 6, None])
def test_same_tree_as_sklearn(crit, family, depth):
    X, y, cols = make_data(3000, 6, seed=7)
    tree = grow_tree(cols, y, None, Permissible(family), min_split=2, min_leaf=1,
                     max_depth=30 if depth is None else depth, cp=0, risk="surrogate")
    sk = DecisionTreeClassifier(criterion=crit, max_depth=depth, random_state=0).fit(X, y)
    compared, tied = compare_trees(tree, sk, X, y, crit)
    assert compared >= min(2 ** (depth or 6) - 1, 40)
    if depth is not None and depth <= 3:
        assert tied == 0
        assert tree.n_nodes == sk.tree_.node_count


def test_same_tree_as_sklearn_min_leaf():
    X, y, cols = make_data(4000, 5, seed=3)
    tree = grow_tree(cols, y, None, Permissible("gini"), min_split=40, min_leaf=15, max_depth=5,
                     cp=0, risk="surrogate")
    sk = DecisionTreeClassifier(max_depth=5, min_samples_split=40, min_samples_leaf=15,
                                random_state=0).fit(X, y)
    compared, tied = compare_trees(tree, sk, X, y, "gini")
    assert compared >= 0.8 * int((tree.nodes["left"] >= 0).sum())
