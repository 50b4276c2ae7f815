"""A binary tree in heap order on a design's columns: the trees of the weak learners.

The level-wise grower (:mod:`ubreg.trees.shallow`: ULS's and t-AdaBoost's trees,
U-Boost's Newton trees) and U-Boost on Dask grow these: node i has children
2i + 1 and 2i + 2, and sends a row right when its value of the node's column is
above the node's cut; a missing value (NaN) goes the way the split learned
(``nan_left``, HistGradientBoosting's rule: :mod:`ubreg.trees.binning`).  On bin
codes the same tree routes rows in :func:`ubreg.trees.codes.heap_slots`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Tree", "leaf_indicators"]


@dataclass(eq=False)
class Tree:
    """A binary tree in heap order (:class:`~ubreg.learners.base.WeakHypothesis`).

    ``feature[i] = −1`` marks a leaf; otherwise node i sends x to its right
    child when x[feature[i]] > cut[i].  ``value`` holds leaf outputs (filled
    by the learner; None for ULS's trees, whose leaf coefficients ULS solves);
    ``gain`` the criterion gain of each split; ``nan_left[i]`` whether node i
    sends a missing value left (None: left, where ``NaN > cut`` is false).  Its
    features are the indicators of its leaves, its output the value of x's leaf.
    """

    depth: int
    feature: np.ndarray
    cut: np.ndarray
    gain: np.ndarray
    value: np.ndarray | None = field(default=None)
    kind: str = "tree"
    nan_left: np.ndarray | None = field(default=None)

    @property
    def leaves(self) -> np.ndarray:
        """Heap indices of the leaves that are reachable."""
        size = self.feature.size
        reach = np.zeros(size, dtype=bool)
        reach[0] = True
        for i in range(size):
            if reach[i] and self.feature[i] >= 0:
                reach[2 * i + 1] = reach[2 * i + 2] = True
        return np.flatnonzero(reach & (self.feature < 0))

    @property
    def n_leaves(self) -> int:
        return int(self.leaves.size)

    @property
    def n_features(self) -> int:
        return self.n_leaves

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.feature[self.feature >= 0].tolist())))

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Heap index of the leaf of each row (a loop over levels, not rows)."""
        m = X.shape[0]
        idx = np.zeros(m, dtype=np.int64)
        rows = np.arange(m)
        for _ in range(self.depth):
            f = self.feature[idx]
            split = f >= 0
            if not split.any():
                break
            x = X[rows, np.where(split, f, 0)]
            go = x > self.cut[idx]
            if self.nan_left is not None:
                nan = np.isnan(x)
                if nan.any():
                    go = np.where(nan, ~self.nan_left[idx], go)
            idx = np.where(split, 2 * idx + 1 + go, idx)
        return idx

    def predict(self, X: np.ndarray) -> np.ndarray:
        assert self.value is not None, "ULS's trees have no leaf outputs (ULS solves them)"
        return self.value[self.apply(X)]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """(m, leaves) indicators of the leaf of each row."""
        return leaf_indicators(self.apply(X), self.leaves)

    def key(self):
        return ("tree", id(self))

    def split_gains_by_column(self, d: int) -> np.ndarray:
        out = np.zeros(d)
        s = self.feature >= 0
        np.add.at(out, self.feature[s], self.gain[s])
        return out

    def describe_node(self, i: int, names) -> str:
        path = []
        while i > 0:
            parent = (i - 1) // 2
            right = i == 2 * parent + 2
            path.append(f"{names[self.feature[parent]]} {'>' if right else '<='} "
                        f"{self.cut[parent]:.4g}")
            i = parent
        return " & ".join(reversed(path)) or "(all)"

    def describe(self, names) -> list[str]:
        """One line per leaf: its path, and its value when the leaves have one."""
        return [f"leaf [{self.describe_node(int(k), names)}]"
                + ("" if self.value is None else f": {self.value[k]:.4g}")
                for k in self.leaves]


def leaf_indicators(node: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """(n, len(leaves)) float64: row i has a 1 in the column of its leaf ``node[i]``."""
    return (node[:, None] == np.asarray(leaves)[None, :]).astype(np.float64)
