"""The fitted tree of every tree weak learner: a node table with explicit children.

One class, :class:`WeakTree`, holds the trees of ULS, U-Boost (in memory and on
Dask) and t-AdaBoost, whichever builder grew them:

* the level-wise builder (:mod:`ubreg.trees.heap_builder`: :mod:`ubreg.trees.shallow`,
  :mod:`ubreg.trees._newton_grower`, :mod:`ubreg.dask.boost_passes`) fills a table of
  2^(depth+1) − 1 nodes in heap order (:meth:`WeakTree.heap`, :meth:`WeakTree.from_heap`):
  node i's children are 2i + 1 and 2i + 2, and node ids stay heap indices, so the
  leaves' order (ULS's leaf columns) and the training rows' leaves the compiled grower
  returns index the table directly; nodes below a leaf are unused;
* the best-first grower (:mod:`ubreg.trees.best_first`) appends nodes in growth
  order, a split's two children one after the other.

Either way a parent's id is below its children's, and one rule routes a row: a split
node sends x right when x[feature] > threshold, left when x[feature] ≤ threshold, and
a missing value (NaN) left iff ``nan_left`` (HistGradientBoosting's rule:
:mod:`ubreg.trees.binning`).  :meth:`WeakTree.apply` routes them by the package's one
tree predictor, :func:`ubreg.trees.predictor.descend`, which rpart's trees use too: the
table is its :class:`~ubreg.trees.predictor.Splits` as it is (:attr:`WeakTree.splits`:
a tie below the threshold, no flipped sides, no factors, no surrogates).

On bin codes (U-Boost's passes over the partitions of a Dask frame) the compiled
kernels :func:`ubreg.trees.codes.heap_slots` and :func:`ubreg.trees.codes.advance_F`
route rows by heap arithmetic, reading only ``feature`` and the code cuts of a table in
heap order (:attr:`WeakTree.in_heap_order`), a fast path of the same trees: reading the
explicit children instead cost those kernels 11 % (depth 3) and 16 % (depth 6) more per
row in their best layout (one array of children indexed by 2i + right), 40 % to 70 % as
separate left and right arrays (10^6 rows × 20 columns of uint8 codes: a row's next node
is a dependent load, not 2i + 1 + right).  :meth:`WeakTree.apply` (the one predictor)
reads the explicit children, as one array indexed by 2i + right, as fast as the heap
arithmetic it replaced.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .predictor import Splits, descend, split_levels

__all__ = ["WeakTree", "leaf_indicators"]


@dataclass(eq=False)
class WeakTree:
    """A fitted binary tree (:class:`~ubreg.learners.base.WeakHypothesis`).

    Parameters
    ----------
    feature : (nodes,) int64
        The design column of each split node, −1 at a leaf (and at an unused node).
    threshold : (nodes,) float64
        A split sends x right when x[feature] > threshold, left when ≤.
    left, right : (nodes,) int64
        The children of each split node, −1 at a leaf.
    gain : (nodes,) float64
        The criterion gain of each split (0 at leaves).
    nan_left : (nodes,) bool
        Whether each split sends a missing value (NaN) left.
    value : (nodes,) float64 or None
        The leaf outputs (None for ULS's trees, whose leaf coefficients ULS solves).
    digits : int
        Significant digits of the thresholds in :meth:`describe` and :meth:`listing`.

    Its features are the indicators of its leaves (in increasing node id), its output
    the value of x's leaf.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    gain: np.ndarray
    nan_left: np.ndarray
    value: np.ndarray | None = field(default=None)
    digits: int = 4
    kind: str = "tree"

    @classmethod
    def heap(cls, depth: int) -> WeakTree:
        """An empty table of 2^(depth+1) − 1 nodes in heap order, the root a leaf, for
        a level-wise builder to fill (:meth:`split_heap`).  Missing values go left until
        a builder says otherwise."""
        size = 2 ** (depth + 1) - 1
        minus = np.full(size, -1, dtype=np.int64)
        return cls(feature=minus, threshold=np.zeros(size), left=minus.copy(),
                   right=minus.copy(), gain=np.zeros(size), nan_left=np.ones(size, dtype=bool))

    @classmethod
    def from_heap(cls, feature: np.ndarray, threshold: np.ndarray, gain: np.ndarray,
                  value: np.ndarray | None = None) -> WeakTree:
        """The tree of heap arrays (``feature[i] < 0`` at a leaf; node i's children
        2i + 1 and 2i + 2); missing values go left."""
        feature = np.asarray(feature, dtype=np.int64)
        split = feature >= 0
        ids = np.arange(feature.size, dtype=np.int64)
        return cls(feature=feature, threshold=threshold, gain=gain, value=value,
                   left=np.where(split, 2 * ids + 1, -1), right=np.where(split, 2 * ids + 2, -1),
                   nan_left=np.ones(feature.size, dtype=bool))

    def split_heap(self, node: int, feature: int, threshold: float, gain: float) -> None:
        """Split heap node ``node`` on ``feature`` at ``threshold``: children 2i + 1, 2i + 2."""
        self.feature[node], self.threshold[node], self.gain[node] = feature, threshold, gain
        self.left[node], self.right[node] = 2 * node + 1, 2 * node + 2

    def levels(self) -> list[np.ndarray]:
        """The split nodes reachable from the root, level by level (the root's first)."""
        return split_levels(self.left, self.right)

    def _reachable(self) -> np.ndarray:
        reach = np.zeros(self.feature.size, dtype=bool)
        reach[0] = True
        for inner in self.levels():
            reach[self.left[inner]] = reach[self.right[inner]] = True
        return reach

    @property
    def leaves(self) -> np.ndarray:
        """Ids of the leaves reachable from the root, ascending."""
        return np.flatnonzero(self._reachable() & (self.left < 0))

    @property
    def n_nodes(self) -> int:
        """Nodes reachable from the root (splits + leaves)."""
        return int(self._reachable().sum())

    @property
    def n_leaves(self) -> int:
        return int(self.leaves.size)

    @property
    def n_features(self) -> int:
        return self.n_leaves

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.feature[self.feature >= 0].tolist())))

    @property
    def splits(self) -> Splits:
        """The table as the package's one predictor reads it
        (:class:`~ubreg.trees.predictor.Splits`): x ≤ threshold below, left; NaN left
        iff ``nan_left``."""
        return Splits(left=self.left, right=self.right, var=self.feature,
                      threshold=self.threshold, nan_left=self.nan_left, ties_above=False)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf (node id) of each row of design rows X, by the package's one
        predictor (:func:`~ubreg.trees.predictor.descend`): a loop over levels, not rows."""
        return descend(self.splits, np.asarray(X, dtype=np.float64))

    def predict(self, X: np.ndarray) -> np.ndarray:
        assert self.value is not None, "ULS's trees have no leaf outputs (ULS solves them)"
        return self.value[self.apply(X)]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """(m, leaves) indicators of the leaf of each row."""
        return leaf_indicators(self.apply(X), self.leaves)

    def key(self):
        return ("tree", id(self))

    def split_gains_by_column(self, d: int) -> np.ndarray:
        """The gains of the splits summed by design column (d columns)."""
        out = np.zeros(d)
        s = self.feature >= 0
        np.add.at(out, self.feature[s], self.gain[s])
        return out

    @property
    def in_heap_order(self) -> bool:
        """Whether every split's children are 2i + 1 and 2i + 2 (the level-wise
        builder's tables), so that the compiled kernels on bin codes may route rows by
        heap arithmetic (:func:`ubreg.trees.codes.heap_slots`)."""
        split = np.flatnonzero(self.left >= 0)
        return bool(np.all(self.left[split] == 2 * split + 1)
                    and np.all(self.right[split] == 2 * split + 2))

    def _test(self, k: int, names, op: str) -> str:
        return f"{names[self.feature[k]]} {op} {self.threshold[k]:.{self.digits}g}"

    def _paths(self, names) -> dict:
        """The path text of every reachable node (the root's: "(all)")."""
        paths = {0: "(all)"}
        for inner in self.levels():
            for k in inner.tolist():
                pre = "" if k == 0 else paths[k] + " & "
                paths[int(self.left[k])] = pre + self._test(k, names, "<=")
                paths[int(self.right[k])] = pre + self._test(k, names, ">")
        return paths

    def describe(self, names) -> list[str]:
        """One line per leaf: its path, and its value when the leaves have one."""
        paths = self._paths(names)
        return [f"leaf [{paths[int(k)]}]"
                + ("" if self.value is None else f": {self.value[k]:.4g}")
                for k in self.leaves]

    def listing(self, names) -> list[str]:
        """The tree, one indented line per node (depth first, left child first)."""
        out = []
        stack = [(0, 0)]
        while stack:
            k, depth = stack.pop()
            pad = "  " * depth
            if self.left[k] < 0:
                out.append(f"{pad}leaf" + ("" if self.value is None
                                           else f": {self.value[k]:.4g}"))
                continue
            out.append(pad + self._test(k, names, "<="))
            stack += [(int(self.right[k]), depth + 1), (int(self.left[k]), depth + 1)]
        return out


def leaf_indicators(node: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """(n, len(leaves)) float64: row i has a 1 in the column of its leaf ``node[i]``."""
    return (node[:, None] == np.asarray(leaves)[None, :]).astype(np.float64)
