"""Weak learners of t-AdaBoost (docs/tempered.md §2.1, §3.3).

* :func:`fit_tempered_tree` — the tree of the authors' code [J] (§3.3): node
  statistics with the tempered weights q (Σq, not the co-density), split score
  Δ = L_t(p) − τL_t(p_L) − (1 − τ)L_t(p_R), admissible splits only (both
  children hold positive weight of both classes), thresholds at within-node
  midpoints (between consecutive distinct values of a column among the rows in
  the node, not among all rows), at most ``max_candidates`` candidates per node
  drawn at random, growth by splitting the leaf reached by the most training
  examples until the node count reaches ``max_size``; leaf value the
  canonical link η_t(p_leaf) (§3.2), ±100 for a pure leaf.  With ``depth``
  instead, every leaf is split (admissibly) down to that depth.
* :func:`fit_udt_tree` — the shallow trees shared with the boosting methods
  (:func:`ubreg.learners.trees.grow_tree` with :func:`~ubreg.learners.trees.udt_gain`,
  level-wise to a fixed ``depth`` on binned columns) grown on the tempered
  weights: the same node statistics (Σq), the same criterion (the drop of
  Σ_leaves W_k L_t(p_k), i.e. W·Δ), the same admissibility (by counts of live
  rows of each class) and the same leaves η_t(p_leaf) as the §3.3 tree.  It
  differs from it in the growth (every leaf down to ``depth``, binned cuts,
  no random candidate draw) and in taking only splits with a positive gain.
* Sign stumps (±1): AdaBoost's weak learner, reused from
  :mod:`ubreg.learners.stumps` (the stump of largest |Σ q_i y*_i h(x_i)| over
  binned cuts), so that t = 1 reproduces ``method="uls"`` with Exponential().

The §3.3 tree is written here (rather than taken from ubreg.learners) because
it is the authors' tree: exact midpoints, a random candidate draw, growth by
the most populated leaf up to a node count.
Design columns are numeric (patsy codes factors as 0/1 dummies), so nominal
features are split as their dummy columns ("x ∈ S" with |S| = 1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .algebra import bayes_risk

__all__ = ["SignStumpHyp", "TemperedTree", "UdtTreeHyp", "fit_stump", "fit_tempered_tree",
           "fit_udt_tree"]

#: value of a pure (or non-finite) leaf, as in [J]
PURE_LEAF = 100.0
#: |Δ| below this is 0 (§3.3)
DELTA_TOL = 1e-10


@dataclass
class TemperedTree:
    """A fitted §3.3 tree: parallel node arrays (−1 children for leaves)."""

    feature: list = field(default_factory=list)
    threshold: list = field(default_factory=list)
    left: list = field(default_factory=list)
    right: list = field(default_factory=list)
    value: list = field(default_factory=list)
    n_nodes: int = 0
    kind: str = "tree"

    def _add(self, value):
        self.feature.append(-1)
        self.threshold.append(np.nan)
        self.left.append(-1)
        self.right.append(-1)
        self.value.append(float(value))
        self.n_nodes += 1
        return self.n_nodes - 1

    def apply(self, X):
        """Leaf index of every row ("x ≤ τ" goes left)."""
        X = np.asarray(X, dtype=np.float64)
        node = np.zeros(X.shape[0], dtype=np.int64)
        feat, thr = np.array(self.feature), np.array(self.threshold)
        left, right = np.array(self.left), np.array(self.right)
        active = left[node] >= 0
        while active.any():
            idx = np.flatnonzero(active)
            nd = node[idx]
            go_left = X[idx, feat[nd]] <= thr[nd]
            node[idx] = np.where(go_left, left[nd], right[nd])
            active = left[node] >= 0
        return node

    def predict(self, X):
        return np.array(self.value)[self.apply(X)]

    @property
    def n_leaves(self):
        return int(sum(1 for v in self.left if v < 0))

    def describe(self, names):
        out = []

        def walk(k, depth):
            pad = "  " * depth
            if self.left[k] < 0:
                out.append(f"{pad}leaf: {self.value[k]:.4g}")
                return
            out.append(f"{pad}{names[self.feature[k]]} <= {self.threshold[k]:.6g}")
            walk(self.left[k], depth + 1)
            walk(self.right[k], depth + 1)

        walk(0, 0)
        return out


def _leaf_value(wpos, w, link):
    if not w > 0:
        return 0.0
    p = wpos / w
    if p <= 0.0:
        return -PURE_LEAF
    if p >= 1.0:
        return PURE_LEAF
    v = float(link(p))
    return v if np.isfinite(v) else (PURE_LEAF if p > 0.5 else -PURE_LEAF)


def _best_split(X, rows, q, pos, t, max_candidates, rng):
    """(Δ, feature, threshold) of the best admissible split of ``rows``, or None."""
    qn, posn = q[rows], pos[rows]
    W = float(qn.sum())
    Wp = float(qn[posn].sum())
    if not (W > 0 and 0 < Wp < W):
        return None
    parent = float(bayes_risk(Wp / W, t))
    n_live_pos = int(np.sum((qn > 0) & posn))
    n_live_neg = int(np.sum((qn > 0) & ~posn))
    cands = []                       # (feature, sorted order, split positions)
    for j in range(X.shape[1]):
        xj = X[rows, j]
        order = np.argsort(xj, kind="stable")
        xs = xj[order]
        cut = np.flatnonzero(xs[1:] > xs[:-1])          # split after position cut
        if cut.size:
            cands.append((j, order, xs, cut))
    total = sum(c[3].size for c in cands)
    if total == 0:
        return None
    keep = None
    if total > max_candidates:
        keep = np.zeros(total, dtype=bool)
        keep[rng.choice(total, size=max_candidates, replace=False)] = True
    best = None
    offset = 0
    for j, order, xs, cut in cands:
        sel = cut if keep is None else cut[keep[offset:offset + cut.size]]
        offset += cut.size
        if sel.size == 0:
            continue
        qo, po = qn[order], posn[order]
        cq = np.cumsum(qo)
        cp = np.cumsum(np.where(po, qo, 0.0))
        WL, WLp = cq[sel], cp[sel]
        WR, WRp = W - WL, Wp - WLp
        # admissibility by counts of live rows: differences of float sums are
        # not exactly 0 for an empty side, and would depend on the row order
        live_pos = np.cumsum((qo > 0) & po)[sel]
        live_neg = np.cumsum((qo > 0) & ~po)[sel]
        ok = ((live_pos > 0) & (live_neg > 0)
              & (live_pos < n_live_pos) & (live_neg < n_live_neg))
        if not ok.any():
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = WL / W
            delta = parent - tau * bayes_risk(WLp / WL, t) - (1 - tau) * bayes_risk(WRp / WR, t)
        delta = np.where(np.abs(delta) < DELTA_TOL, 0.0, delta)
        delta = np.where(ok, delta, -np.inf)
        k = int(np.argmax(delta))
        if best is None or delta[k] > best[0]:
            s = sel[k]
            best = (float(delta[k]), j, 0.5 * (xs[s] + xs[s + 1]))
    return best


def fit_tempered_tree(X, ystar, q, t, *, max_size=5, depth=None, max_candidates=2000, rng=None,
                      w=None):
    """Grow a §3.3 tree on tempered weights ``q`` (docs/tempered.md §3.3).

    Parameters
    ----------
    X : (n, d) design; ystar : labels ±1; q : tempered weights ≥ 0
    t : temperature of the split score L_t and of the leaf link η_t
    max_size : int
        Stop once internal nodes + leaves ≥ max_size (5: 2 splits, 3 leaves).
    depth : int, optional
        Instead of max_size: split every leaf admissibly down to this depth.
    w : array, optional
        Frequency weights: node statistics are Σ w_i q_i, and "most examples"
        counts Σ w_i.
    """
    if w is not None:
        q = q * w
    count = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=float)
    from ...families.tempered import Tempered
    rng = np.random.default_rng(0) if rng is None else rng
    link = Tempered(t).dphi
    pos = ystar > 0
    tree = TemperedTree()
    # rows of frequency weight 0 are not in the data set (no thresholds from them)
    all_rows = np.flatnonzero(count > 0)

    def stats(rows):
        return float(q[rows][pos[rows]].sum()), float(q[rows].sum())

    root = tree._add(_leaf_value(*stats(all_rows), link))
    queue = [(root, all_rows, 0)]
    while queue:
        if depth is None:
            if tree.n_nodes >= max_size:
                break
            k = max(range(len(queue)), key=lambda i: count[queue[i][1]].sum())   # most examples
        else:
            k = 0
        node, rows, d = queue.pop(k)
        if depth is not None and d >= depth:
            continue
        best = _best_split(X, rows, q, pos, t, max_candidates, rng)
        if best is None:
            continue                                        # dropped from the queue
        _, j, thr = best
        go_left = X[rows, j] <= thr
        lrows, rrows = rows[go_left], rows[~go_left]
        tree.feature[node], tree.threshold[node] = j, thr
        tree.left[node] = tree._add(_leaf_value(*stats(lrows), link))
        tree.right[node] = tree._add(_leaf_value(*stats(rrows), link))
        queue += [(tree.left[node], lrows, d + 1), (tree.right[node], rrows, d + 1)]
    return tree


@dataclass
class UdtTreeHyp:
    """A shared shallow tree (:class:`ubreg.learners.trees.Tree`, heap order,
    "x > cut" goes right) whose leaves hold η_t(p_leaf)."""

    tree: object
    kind: str = "tree"

    def predict(self, X):
        return self.tree.predict(np.asarray(X, dtype=np.float64))

    @property
    def n_leaves(self):
        return int(self.tree.leaves.size)

    def describe(self, names):
        return [f"leaf [{self.tree.describe_node(int(k), names)}]: {self.tree.value[k]:.4g}"
                for k in self.tree.leaves]


def fit_udt_tree(binned, ystar, q, t, depth, w=None):
    """A shared shallow tree (:func:`ubreg.learners.trees.grow_tree`) on the
    tempered weights ``q``, leaves at η_t(p_leaf).  Returns (UdtTreeHyp,
    training values) or (None, None) when the root has no admissible split.

    Per row the histograms sum (W⁺, W⁻, live⁺, live⁻): the weights
    w_i q_i of each class, rescaled to sum to 1 (the criterion and the leaves
    only depend on ratios, and t close to 2 makes q tiny), and the 0/1
    indicators of live rows (q_i > 0, w_i > 0) of each class.  A split is
    admissible when each child holds at least one live row of each class:
    counts are integers, exact in floating point, so admissibility does not
    depend on the row order.  The criterion is udt_gain with φ = −L_t, the
    drop of Σ_leaves W_k L_t(p_k) = W·Δ of §3.3; a split must gain more than
    1e−12 of the total weight (the §3.3 tree also takes Δ = 0 splits).
    """
    from ...families.tempered import Tempered
    from ...learners.trees import grow_tree, udt_gain

    q = np.asarray(q, dtype=np.float64)
    count = np.ones(q.size) if w is None else np.asarray(w, dtype=np.float64)
    qw = q * count
    total = float(qw.sum())
    if not total > 0:
        return None, None
    qw = qw / total
    pos = ystar > 0
    live = (count > 0) & (q > 0)
    stats = np.column_stack([np.where(pos, qw, 0.0), np.where(pos, 0.0, qw),
                             (live & pos).astype(np.float64), (live & ~pos).astype(np.float64)])
    gain = udt_gain(lambda p: -bayes_risk(p, t))
    # grow_tree compares gains with min_gain × (Σ of every statistic) = 1 + live rows
    min_gain = 1e-12 / (1.0 + float(live.sum()))
    tree, node = grow_tree(binned, stats, gain, int(depth), min_leaf=1.0, leaf_col=(2, 3),
                           min_gain=min_gain)
    if tree.feature[0] < 0:
        return None, None
    size = tree.feature.size
    Wp = np.bincount(node, weights=stats[:, 0], minlength=size)
    Wn = np.bincount(node, weights=stats[:, 1], minlength=size)
    link = Tempered(t).dphi
    tree.value = np.array([_leaf_value(Wp[k], Wp[k] + Wn[k], link) for k in range(size)])
    return UdtTreeHyp(tree), tree.value[node]


@dataclass(frozen=True)
class SignStumpHyp:
    """h(x) = +1 if x[column] > cut else −1 (AdaBoost's ±1 stump)."""

    column: int
    cut: float
    kind: str = "stump"

    def predict(self, X):
        return np.where(np.asarray(X)[:, self.column] > self.cut, 1.0, -1.0)

    @property
    def n_leaves(self):
        return 2

    def describe(self, names):
        return [f"{names[self.column]} > {self.cut:.6g} ? +1 : -1"]


def fit_stump(binned, ystar, q, w=None):
    """The ±1 stump of largest |Σ w_i q_i y*_i h(x_i)| (ubreg.learners.stumps), or None."""
    from ...learners.stumps import fit_sign_stump
    v = q * ystar if w is None else w * q * ystar
    out = fit_sign_stump(binned, v)
    if out is None:
        return None, None
    stump, values, _ = out
    return SignStumpHyp(int(stump.column), float(stump.cut)), np.asarray(values)[:, 0]
