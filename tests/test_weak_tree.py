"""The one class of the weak learners' fitted trees (ubreg.trees.weak_tree.WeakTree):
tables in heap order (the level-wise builder) and in growth order (the best-first
grower) route rows by one rule, and print alike."""
from functools import partial

import numpy as np
import pytest

from ubreg.families.tempered import Tempered
from ubreg.families.tempered_algebra import bayes_risk
from ubreg.trees.best_first import grow_best_first
from ubreg.trees.weak_tree import WeakTree


def _walk(tree, x):
    """The leaf of one row, walked node by node: right when x > threshold, left when
    x <= threshold, a NaN left iff nan_left."""
    k = 0
    while tree.left[k] >= 0:
        v = x[tree.feature[k]]
        go_left = bool(tree.nan_left[k]) if np.isnan(v) else v <= tree.threshold[k]
        k = tree.left[k] if go_left else tree.right[k]
    return k


def _heap_tree():
    """Depth 2: the root on column 0 at 0.5, its left child on column 1 at -1, its
    right child a leaf (nodes 5 and 6 unused)."""
    feature = np.array([0, 1, -1, -1, -1, -1, -1])
    tree = WeakTree.from_heap(feature, np.array([0.5, -1.0, 0, 0, 0, 0, 0]), np.arange(7.0),
                              np.arange(7.0) * 10)
    tree.nan_left = np.array([False, True, True, True, True, True, True])
    return tree


def _rows(rng, n=400, d=3):
    X = rng.normal(size=(n, d))
    X[rng.uniform(size=X.shape) < 0.15] = np.nan
    X[:5, 0] = 0.5                                  # on the threshold: left
    return X


def test_a_heap_table_routes_by_the_one_rule():
    tree = _heap_tree()
    X = _rows(np.random.default_rng(0))
    node = tree.apply(X)
    assert node.tolist() == [_walk(tree, x) for x in X]
    assert set(node.tolist()) == {2, 3, 4} and (node[:5] != 2).all()
    assert tree.in_heap_order and tree.n_nodes == 5 and tree.leaves.tolist() == [2, 3, 4]
    assert tree.columns == (0, 1) and tree.n_features == 3
    np.testing.assert_array_equal(tree.predict(X), 10.0 * node)
    np.testing.assert_array_equal(tree.transform(X).argmax(axis=1), node - 2)
    np.testing.assert_array_equal(tree.split_gains_by_column(3), [0.0, 1.0, 0.0])


def test_a_growth_order_table_routes_by_the_same_rule():
    rng = np.random.default_rng(1)
    X = _rows(rng)
    y = np.where(np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) > 0, 1.0, -1.0)
    tree = grow_best_first(X, y, rng.uniform(0.1, 1, len(y)), partial(bayes_risk, t=0.5),
                           Tempered(0.5).dphi, max_size=9)
    assert tree.n_nodes == 9 == tree.feature.size and tree.n_leaves == 5
    assert (tree.right[tree.left >= 0] == tree.left[tree.left >= 0] + 1).all()
    new = _rows(np.random.default_rng(2))
    assert tree.apply(new).tolist() == [_walk(tree, x) for x in new]


def test_describe_and_listing_name_the_paths():
    tree = _heap_tree()
    names = ["a", "b", "c"]
    # one line per leaf, in increasing node id
    assert tree.describe(names) == ["leaf [a > 0.5]: 20", "leaf [a <= 0.5 & b <= -1]: 30",
                                    "leaf [a <= 0.5 & b > -1]: 40"]
    assert tree.listing(names) == ["a <= 0.5", "  b <= -1", "    leaf: 30", "    leaf: 40",
                                   "  leaf: 20"]
    tree.value = None                                 # ULS's trees: no leaf values
    assert tree.describe(names)[0] == "leaf [a > 0.5]"


@pytest.mark.parametrize("depth", [1, 3])
def test_an_unsplit_table_is_one_leaf(depth):
    tree = WeakTree.heap(depth)
    assert tree.n_nodes == 1 and tree.leaves.tolist() == [0] and tree.columns == ()
    assert tree.apply(np.zeros((4, 0))).tolist() == [0] * 4
    assert tree.describe([]) == ["leaf [(all)]"]
