"""The one predictor of the package's fitted trees: rows down a table of splits.

Both kinds of fitted tree predict through :func:`descend`: rpart's trees
(:class:`ubreg.trees.model.Tree`, by :func:`ubreg.trees.route.route`) and the weak
learners' trees (:class:`ubreg.trees.weak_tree.WeakTree`, by its ``apply``).  What
differs between them is data, a :class:`Splits`:

* the tie: a value equal to the threshold is *above* it in rpart's rule (a split
  compares x < t) and *below* it in the weak learners' (x ≤ t); ``ties_above`` picks
  the comparison of the whole table (x ≥ t or x > t), exact for every double;
* the side of the values above the threshold: the right child, or the left at a node
  of ``flip`` (rpart's ``direction`` +1: rows with x ≥ t go left);
* categorical splits (rpart's factors): a side table by level (``cat_row``,
  ``cat_side``); a level the node did not see in training, or unseen altogether,
  takes the missing values' side;
* missing values (NaN) take ``nan_left``'s side, or, for rpart's trees, the node's
  surrogate splits first (``missing``, a function of the rows: :mod:`.surrogates`).

The rows descend one level at a time (vectorised over rows, not over nodes); a row
that reached a leaf stays there, a leaf being its own child.  The columns are one
float64 matrix, indexed by ``var``: the design rows of the weak learners, the
predictors an rpart tree splits on (categorical codes as floats, a missing code as
NaN: :func:`ubreg.trees.route.split_matrix`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Splits", "descend", "split_levels"]

#: rows missing a split's variable → their sides (True = left), given the rows, their
#: nodes and the sides of ``nan_left`` (rpart's surrogate splits)
Missing = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Splits:
    """The split structure of a fitted tree, as :func:`descend` reads it.

    Parameters
    ----------
    ties_above : bool
        Whether a value equal to the threshold is above it (x ≥ t above: rpart's
        x < t below), or below it (x > t above: the weak learners' x ≤ t below).
    left, right : (nodes,) int
        Children of each split node, −1 at a leaf.  Node 0 is the root.
    var : (nodes,) int
        The column (of the matrix given to :func:`descend`) each split reads; any
        value at a leaf.
    threshold : (nodes,) float64
        Numeric splits: the cut (ignored at categorical splits and leaves).
    nan_left : (nodes,) bool
        Whether a missing value goes left.
    flip : (nodes,) bool or None
        Nodes whose values above the threshold go left (rpart's ``direction`` +1);
        None: none (above goes right everywhere).
    cat_row : (nodes,) int or None
        Categorical splits: the row of ``cat_side`` of each node, −1 at a numeric
        split (None: no categorical split).
    cat_side : (rows, levels) int or None
        Per level code: 1 left, 2 right, 0 unseen in the node (missing values' side).
    """

    ties_above: bool
    left: np.ndarray
    right: np.ndarray
    var: np.ndarray
    threshold: np.ndarray
    nan_left: np.ndarray
    flip: np.ndarray | None = None
    cat_row: np.ndarray | None = None
    cat_side: np.ndarray | None = None


def split_levels(left: np.ndarray, right: np.ndarray) -> list[np.ndarray]:
    """The split nodes reachable from the root, level by level (the root's first)."""
    out: list[np.ndarray] = []
    frontier = np.zeros(1, dtype=np.int64)
    while True:
        inner = frontier[left[frontier] >= 0]
        if not inner.size:
            return out
        out.append(inner)
        frontier = np.concatenate([left[inner], right[inner]])


def _slots(s: Splits):
    """``child[2k + above]`` (a leaf its own child) and each node's side of a missing
    value, as ``above``."""
    ids = np.arange(s.left.size)
    leaf = s.left < 0
    if s.flip is None:
        below, above, nan_above = s.left, s.right, ~s.nan_left
    else:
        below = np.where(s.flip, s.right, s.left)
        above = np.where(s.flip, s.left, s.right)
        nan_above = s.nan_left == s.flip
    child = np.where(leaf, ids, np.stack([below, above])).T.ravel()
    return child, nan_above


def _categorical_above(s: Splits, x, node, above, nan_above) -> None:
    """Set ``above`` of the rows at categorical splits from the side table (in place)."""
    assert s.cat_row is not None and s.cat_side is not None
    at = np.flatnonzero(s.cat_row[node] >= 0)
    if not at.size:
        return
    xv, nd = x[at], node[at]
    inside = xv < s.cat_side.shape[1]                     # False for NaN
    side = np.where(inside, s.cat_side[s.cat_row[nd], np.where(inside, xv, 0).astype(np.intp)],
                    0)
    above[at] = np.where(side == 0, nan_above[nd], side == 2)


def descend(s: Splits, X: np.ndarray, missing: Missing | None = None, path: bool = False):
    """The leaf (node index) each row of ``X`` reaches.

    Parameters
    ----------
    s : Splits
        The tree.
    X : (n, m) float64
        The columns the splits read (``s.var``), NaN for a missing value.
    missing : callable or None
        ``missing(rows, nodes, left)``: the sides (True = left) of the rows of ``X``
        that miss the variable of their split nodes, given the sides ``nan_left``
        gives them (rpart's surrogate splits); None: ``nan_left`` decides.
    path : bool
        Also return the (n, depth + 1) matrix of the nodes visited, level by level
        (the leaf repeated once reached).

    Returns
    -------
    leaf : (n,) int64, and the path matrix when ``path``.
    """
    n = X.shape[0]
    node = np.zeros(n, dtype=np.int64)
    steps = [node]
    depth = len(split_levels(s.left, s.right))
    child, nan_above = _slots(s)
    var = np.maximum(s.var, 0)
    compare = np.greater_equal if s.ties_above else np.greater
    rows = np.arange(n)
    for _ in range(depth):
        x = X[rows, var[node]]
        above = compare(x, s.threshold[node])
        if s.cat_row is not None:
            _categorical_above(s, x, node, above, nan_above)
        nan = np.isnan(x)
        if nan.any():
            above = np.where(nan, nan_above[node], above)
            if missing is not None:
                _surrogates(s, missing, nan, node, above)
        node = child[2 * node + above]
        if path:
            steps.append(node)
    if path:
        return node, np.stack(steps, axis=1)
    return node


def _surrogates(s: Splits, missing: Missing, nan, node, above) -> None:
    """Set ``above`` of the rows at split nodes missing their variable by ``missing``
    (in place)."""
    miss = np.flatnonzero(nan)
    miss = miss[s.left[node[miss]] >= 0]
    if not miss.size:
        return
    nd = node[miss]
    flip = np.zeros(miss.size, dtype=bool) if s.flip is None else s.flip[nd]
    left = missing(miss, nd, above[miss] == flip)
    above[miss] = left == flip
