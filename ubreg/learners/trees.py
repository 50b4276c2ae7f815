"""Shallow trees grown level-wise on binned columns.

One grower serves two criteria:

* **Newton regression trees** for U-Boost (MATH.md §6): per-row gradient gᵢ
  and curvature hᵢ; a split scores G_L²/H_L + G_R²/H_R − G²/H and a leaf takes
  the Newton value −G/H, i.e. the weighted least-squares fit of the working
  response zᵢ = −gᵢ/hᵢ with weights hᵢ.  Depth 1 is a regression stump.
* **UDT trees** for ULS (MATH.md §5, paper 000 Algorithm 3): per-row
  weighted class masses; a split scores the drop of Σ_leaves |S_k|(−φ(p_k)).
  This is a self-contained weighted split search (the UDT engine of
  ``ubreg.tree`` is not used, so that the weak learner reads the current
  boosting weights directly).

Split search is histogram based (one sparse product per tree level, sibling
histograms by subtraction); rows are never looped over in Python.  Trees are
stored in heap order (children of node i are 2i + 1 and 2i + 2).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .binning import BinnedDesign
from .stumps import _left_cumsum

__all__ = ["Tree", "grow_tree", "newton_gain", "udt_gain"]


@dataclass
class Tree:
    """A binary tree in heap order.

    ``feature[i] = −1`` marks a leaf; otherwise node i sends x to its right
    child when x[feature[i]] > cut[i].  ``value`` holds leaf outputs (filled
    by the caller); ``gain`` the criterion gain of each split.
    """

    depth: int
    feature: np.ndarray
    cut: np.ndarray
    gain: np.ndarray
    value: np.ndarray = field(default=None)
    kind: str = "tree"

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
            idx = np.where(split, 2 * idx + 1 + go, idx)
        return idx

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.value[self.apply(X)]

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


def newton_gain(L, R, P):
    """G_L²/H_L + G_R²/H_R − G²/H (columns g, h, count); the halved drop of the
    second-order risk model, i.e. the weighted least-squares criterion."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (L[..., 0] ** 2 / L[..., 1] + R[..., 0] ** 2 / R[..., 1]
             - P[..., 0] ** 2 / P[..., 1])
    return np.where(np.isfinite(g), g, -np.inf)


def udt_gain(phi):
    """Drop of Σ_leaves W_k (−φ(p_k)) (columns W⁺, W⁻, count), eq. (104)-(106)."""
    def gain(L, R, P):
        def impurity(S):
            W = S[..., 0] + S[..., 1]
            with np.errstate(divide="ignore", invalid="ignore"):
                p = np.where(W > 0, S[..., 0] / W, 0.5)
            return W * (-phi(np.clip(p, 0.0, 1.0)))
        return impurity(P) - impurity(L) - impurity(R)
    return gain


def grow_tree(binned: BinnedDesign, stats: np.ndarray, gain_fn, depth: int,
              min_leaf=1.0, min_gain: float = 1e-12, leaf_col=-1):
    """Grow a tree of depth ≤ ``depth`` level by level.

    Parameters
    ----------
    binned : BinnedDesign
    stats : (n, k) array
        Per-row statistics summed in histograms; column ``leaf_col`` is the
        mass that ``min_leaf`` bounds below in each child (both may be
        sequences, one bound per column).
    gain_fn : callable (L, R, P) -> gain
        Split criterion on summed statistics of the left/right child and parent.
    depth : int ≥ 1
    min_leaf : float
        Least total weight in a child.

    Returns
    -------
    (Tree, node)
        The tree (values unset) and the heap index of each training row's leaf.
    """
    n, k = stats.shape
    size = 2 ** (depth + 1) - 1
    feature = np.full(size, -1, dtype=np.int64)
    cut = np.zeros(size)
    gain = np.zeros(size)
    kcut = np.zeros(size, dtype=np.int64)
    node = np.zeros(n, dtype=np.int64)
    flat, col, kk = binned.candidates()
    hist = {0: binned.histogram(stats)}
    active = [0]
    scale = float(np.abs(hist[0][binned.offsets[0]:binned.offsets[1]]).sum()) or 1.0
    rows = np.arange(n)
    lc = np.atleast_1d(leaf_col)
    ml = np.broadcast_to(np.asarray(min_leaf, dtype=np.float64), lc.shape)
    for level in range(depth):
        split_nodes = []
        for nd in active:                     # ≤ 2^depth nodes per level
            H = hist.pop(nd)
            if flat.size == 0:
                continue
            P = H[binned.offsets[0]:binned.offsets[1]].sum(axis=0)
            L = _left_cumsum(binned, H)[flat]
            R = P - L
            g = gain_fn(L, R, P)
            ok = np.all((L[:, lc] >= ml) & (R[:, lc] >= ml), axis=1)
            g = np.where(ok, g, -np.inf)
            best = int(np.argmax(g))
            if not g[best] > min_gain * scale:
                continue
            feature[nd], kcut[nd], gain[nd] = col[best], kk[best], g[best]
            cut[nd] = binned.cut_value(int(col[best]), int(kk[best]))
            split_nodes.append((nd, H))
        if not split_nodes:
            break
        # route the rows of split nodes to their children
        f = feature[node]
        go = binned.codes[np.maximum(f, 0), rows] > kcut[node]
        node = np.where(f >= 0, 2 * node + 1 + go, node)
        if level == depth - 1:
            break                          # the leaves need no histograms
        # left-child histograms, right ones by subtraction (sibling trick)
        lefts = np.array([2 * nd + 1 for nd, _ in split_nodes])
        slot = np.full(size, -1)
        slot[lefts] = np.arange(lefts.size)
        which = slot[node]
        S = np.zeros((n, k * lefts.size), dtype=binned.onehot.dtype)
        r = np.flatnonzero(which >= 0)
        c = which[r] * k
        for j in range(k):                   # k statistics (2 or 3)
            S[r, c + j] = stats[r, j]
        HL = binned.histogram(S)
        active = []
        for i, (nd, H) in enumerate(split_nodes):
            left = HL[:, i * k:(i + 1) * k]
            hist[2 * nd + 1] = left
            hist[2 * nd + 2] = H - left
            active += [2 * nd + 1, 2 * nd + 2]
    return Tree(depth=depth, feature=feature, cut=cut, gain=gain), node
