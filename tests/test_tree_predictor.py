"""The package's one tree predictor (ubreg.trees.predictor.descend): rpart's trees and the
weak learners' trees route rows through it, their differences (the side of a tie, the
side of the values above a threshold, factors, missing values) given as data."""
import numpy as np
import pytest

from ubreg.trees import predictor, route, weak_tree
from ubreg.trees.columns import CATEGORICAL, NUMERIC, ColumnSpec, TreeColumn
from ubreg.trees.model import Tree
from ubreg.trees.predictor import Splits, descend
from ubreg.trees.weak_tree import WeakTree

NAN = np.nan


def _rpart_tree():
    """rpart numbers 1..7 in rpart's order (1, 2, 4, 5, 3, 6, 7): node 1 sends x < 0.5
    left (NaN right); node 2 splits factor g: a left, b right, c unseen in the node
    (missing values' side: left); node 3 sends x >= 2 left (direction +1, NaN left)."""
    minus = np.full(7, -1)
    nodes = {
        "number": np.array([1, 2, 4, 5, 3, 6, 7]),
        "left": np.array([1, 2, -1, -1, 5, -1, -1]),
        "right": np.array([4, 3, -1, -1, 6, -1, -1]),
        "var": np.array([0, 1, -1, -1, 0, -1, -1]),
        "threshold": np.array([0.5, NAN, NAN, NAN, 2.0, NAN, NAN]),
        "direction": np.array([-1, 0, 0, 0, 1, 0, 0]),
        "na_left": np.array([False, True, False, False, True, False, False]),
        "cat_row": np.where(np.arange(7) == 1, 0, minus),
        "cat_side": np.array([[1, 2, 0]], dtype=np.int8),
    }
    specs = [ColumnSpec("x", NUMERIC, None), ColumnSpec("g", CATEGORICAL, ("a", "b", "c"))]
    return Tree(nodes, specs, family=None, controls={}, alpha=0.0, risk="misclass")


def _weak_tree():
    """The same shape on design columns: node 0 sends x <= 0.5 left (NaN right), node 1
    sends column 1 <= 0 left (NaN left), node 2 sends x <= 2 left (NaN left)."""
    return WeakTree(feature=np.array([0, 1, 0, -1, -1, -1, -1]),
                    threshold=np.array([0.5, 0.0, 2.0, 0, 0, 0, 0]),
                    left=np.array([1, 3, 5, -1, -1, -1, -1]),
                    right=np.array([2, 4, 6, -1, -1, -1, -1]),
                    gain=np.zeros(7), nan_left=np.array([False, True, True, True, True, True,
                                                         True]))


def test_both_tree_kinds_route_through_the_one_predictor(monkeypatch):
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0])
        return descend(*args, **kwargs)

    monkeypatch.setattr(route, "descend", spy)
    monkeypatch.setattr(weak_tree, "descend", spy)
    _rpart_tree().apply([TreeColumn("x", NUMERIC, np.array([0.1])),
                         TreeColumn("g", CATEGORICAL, np.array([0]), ["a", "b", "c"])])
    _weak_tree().apply(np.zeros((1, 2)))
    assert [s.ties_above for s in calls] == [True, False]
    assert route.descend is weak_tree.descend is spy
    assert predictor.descend is descend


def test_an_rpart_tree_by_hand_gives_rpart_leaves():
    x = np.array([0.2, 0.1, 0.1, 0.1, 0.1, 0.5, 2.0, 1.9, NAN, 0.49999999999999994, 3.0])
    g = ["a", "b", "c", None, "d", "a", "a", "a", "a", "b", "b"]
    levels = ["a", "b", "c", "d"]                        # d: a level unseen in training
    codes = np.array([-1 if v is None else levels.index(v) for v in g])
    cols = [TreeColumn("x", NUMERIC, x), TreeColumn("g", CATEGORICAL, codes, levels)]
    # x = 0.5 is not < 0.5: right; x = 2 is >= 2: left at node 3; NaN at node 1 right,
    # then left at node 3; c, missing and d follow node 2's missing side (left)
    assert _rpart_tree().apply(cols).tolist() == [4, 5, 4, 4, 4, 7, 6, 7, 6, 5, 6]


def test_a_weak_tree_by_hand_gives_its_leaves():
    X = np.array([[0.5, 0.0], [0.5, 1e-300], [0.5, NAN], [NAN, 5.0], [2.0, 0.0],
                  [2.0000000000000004, 0.0], [0.6, NAN], [-1.0, -1.0]])
    # ties go left (x <= t), NaN left iff nan_left (node 0: right)
    assert _weak_tree().apply(X).tolist() == [3, 4, 3, 5, 5, 6, 5, 3]


@pytest.mark.parametrize("ties_above", [True, False])
@pytest.mark.parametrize("flip", [False, True])
def test_ties_and_flips_are_data(ties_above, flip):
    s = Splits(left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
               var=np.array([0, -1, -1]), threshold=np.array([1.0, 0.0, 0.0]),
               nan_left=np.array([True, False, False]), ties_above=ties_above,
               flip=np.array([flip, False, False]))
    X = np.array([[0.0], [1.0], [2.0], [NAN]])
    above = np.array([False, ties_above, True])
    side = np.where(above != flip, 2, 1)                 # right when above, unless flipped
    assert descend(s, X).tolist() == [*side.tolist(), 1]
    leaf, path = descend(s, X, path=True)
    assert path.tolist() == [[0, k] for k in leaf.tolist()]


def test_missing_values_ask_the_missing_rule_at_split_nodes_only():
    s = Splits(left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
               var=np.array([0, 1, 1]), threshold=np.array([1.0, 0.0, 0.0]),
               nan_left=np.array([True, False, False]), ties_above=True,
               flip=np.array([True, False, False]))
    seen = []

    def missing(rows, nodes, left):
        seen.append((rows.tolist(), nodes.tolist(), left.tolist()))
        return ~left

    X = np.array([[NAN, NAN], [0.0, NAN], [NAN, 1.0]])
    # rows 0 and 2 miss the root's variable: nan_left says left, the rule says right;
    # row 1 reaches leaf 2 (0 < 1, flipped: right) with a NaN in a column no split reads
    assert descend(s, X, missing).tolist() == [2, 2, 2]
    assert seen == [([0, 2], [0, 0], [True, True])]
