"""Trees grown best first on exact within-node midpoints: the tree of docs/tempered.md §3.3.

The weak learner of the authors' t-AdaBoost code [J], parametrised by its
criterion (a node risk L, concave on [0, 1] with L(0) = L(1) = 0, and a leaf
link η):

- node statistics from per-row weights q (Σq, not the co-density), with
  W = Σ_{node} q_i and p = Σ_{node, y = +1} q_i / W;
- split score Δ = L(p) − τ L(p_L) − (1 − τ) L(p_R), τ = W_L/W; |Δ| below
  ``DELTA_TOL`` counts as 0, and a split with Δ = 0 is still taken;
- admissible splits only: both children hold positive weight of both classes
  (judged by counts of rows with q_i > 0, which are exact), or the split separates
  the node perfectly (a departure from [J]: :func:`separates`);
- thresholds at within-node midpoints: between consecutive distinct values of
  a column among the rows in the node ("x ≤ τ" goes left);
- at most ``max_candidates`` candidates per node, drawn at random;
- growth by splitting the leaf reached by the most training examples until
  the node count (internal + leaves) reaches ``max_size`` (or, with
  ``depth``, every leaf down to that depth);
- leaf value η(p_leaf), ±``PURE_LEAF`` for a pure or non-finite leaf;
- missing values (NaN), as HistGradientBoosting routes them: a node holding rows
  with NaN in a column also tries each of its thresholds with those rows sent
  left (those sent right first; the left ones win only when strictly better), and
  the split "NaN or not"; a split on a column without NaN in the node sends them
  to the child of more training examples (the right one on a tie).

Why this is a grower of its own, beside the level-wise growers of
:mod:`ubreg.trees.shallow` (binned columns) and :mod:`ubreg.fitters.udt.grow`
(rpart's engine): its trees are defined by its growth order.  The candidate
draw of a node consumes the random stream when that node is expanded, and
nodes are expanded most-populated first up to a node count, so a level-wise
grower (which searches every node of a level at once) would draw differently
and grow other trees; its within-node midpoints are not bin cuts (the binned
grower cuts at midpoints of the whole column, which send unseen values
elsewhere); and it scores Δ per unit weight with its own tie rule.  The
level-wise binned grower with the same criterion is t-AdaBoost's
``learner="udt"`` (:func:`ubreg.fitters.tboost.learners.fit_udt_tree`).
"""
from __future__ import annotations

import numpy as np

from .weak_tree import WeakTree

__all__ = ["DELTA_TOL", "PURE_LEAF", "grow_best_first", "leaf_value", "separates"]

#: value of a pure (or non-finite) leaf, as in [J]
PURE_LEAF = 100.0
#: |Δ| below this is 0 (docs/tempered.md §3.3)
DELTA_TOL = 1e-10


def leaf_value(wpos, w, link):
    """η(p) of a leaf with positive weight ``wpos`` of ``w`` (0 when w = 0);
    ±:data:`PURE_LEAF` for a pure or non-finite leaf, as in [J]."""
    if not w > 0:
        return 0.0
    p = wpos / w
    if p <= 0.0:
        return -PURE_LEAF
    if p >= 1.0:
        return PURE_LEAF
    v = float(link(p))
    return v if np.isfinite(v) else (PURE_LEAF if p > 0.5 else -PURE_LEAF)


def separates(left_pos, left_neg, n_pos, n_neg):
    """Whether a split with ``left_pos``/``left_neg`` live rows of each class on its left
    (of ``n_pos``/``n_neg`` in the node, which holds both) separates the node perfectly:
    one class all on one side, the other all on the other.

    [J] admits only splits whose children both hold both classes (a pure leaf takes the
    value ±100); ubreg also admits this one, so that a perfect weak hypothesis is found on
    separable data and t-AdaBoost keeps it and stops (docs/tempered.md §2.2, §3.3).
    """
    return (((left_pos == n_pos) & (left_neg == 0)) | ((left_pos == 0) & (left_neg == n_neg)))


def _candidates(X, rows):
    """Per column with a cut: (column, its order on ``rows``, sorted values, cut
    positions, the rows with a value), a cut after each position whose next value is
    larger.  NaN sorts last: with m values, position m − 1 is the split "NaN or not"
    and the cuts before it are tried a second time with the NaN rows left
    (positions m + s, :func:`_sides`)."""
    cands = []
    for j in range(X.shape[1]):
        xj = X[rows, j]
        order = np.argsort(xj, kind="stable")
        xs = xj[order]
        cut = np.flatnonzero(xs[1:] > xs[:-1])          # split after position cut
        m = xs.size if not (xs.size and np.isnan(xs[-1])) else int(np.searchsorted(xs, np.nan))
        if m < xs.size and m > 0:
            cut = np.concatenate([cut, [m - 1], m + cut])
        if cut.size:
            cands.append((j, order, xs, cut, m))
    return cands


def _sides(sel, m, cq, cp, live_pos, live_neg):
    """Left sums (weight, positive weight, live rows of each class) of the cut
    positions ``sel`` (prefix sums over the node's sorted rows): a position p < m
    sends rows ≤ p left, the NaN rows right; p = m + s sends rows ≤ s and the NaN
    rows left."""
    n = cq.size
    nan = sel >= m
    s = np.where(nan, sel - m, sel)
    extra = [a[n - 1] - a[m - 1] if m < n else 0 for a in (cq, cp, live_pos, live_neg)]
    return tuple(a[s] + np.where(nan, e, 0) for a, e in zip((cq, cp, live_pos, live_neg),
                                                            extra))


def _best_split(X, rows, q, pos, risk, max_candidates, rng):
    """(Δ, feature, threshold) of the best admissible split of ``rows``, or None."""
    qn, posn = q[rows], pos[rows]
    W = float(qn.sum())
    Wp = float(qn[posn].sum())
    if not (W > 0 and 0 < Wp < W):
        return None
    parent = float(risk(Wp / W))
    n_live_pos = int(np.sum((qn > 0) & posn))
    n_live_neg = int(np.sum((qn > 0) & ~posn))
    cands = _candidates(X, rows)
    total = sum(c[3].size for c in cands)
    if total == 0:
        return None
    keep = None
    if total > max_candidates:
        keep = np.zeros(total, dtype=bool)
        keep[rng.choice(total, size=max_candidates, replace=False)] = True
    best = None
    offset = 0
    for j, order, xs, cut, m in cands:
        sel = cut if keep is None else cut[keep[offset:offset + cut.size]]
        offset += cut.size
        if sel.size == 0:
            continue
        qo, po = qn[order], posn[order]
        cq = np.cumsum(qo)
        cp = np.cumsum(np.where(po, qo, 0.0))
        # admissibility by counts of live rows: differences of float sums are
        # not exactly 0 for an empty side, and would depend on the row order
        lp, ln = np.cumsum((qo > 0) & po), np.cumsum((qo > 0) & ~po)
        if m < xs.size:
            WL, WLp, live_pos, live_neg = _sides(sel, m, cq, cp, lp, ln)
        else:
            WL, WLp, live_pos, live_neg = cq[sel], cp[sel], lp[sel], ln[sel]
        WR, WRp = W - WL, Wp - WLp
        ok = ((live_pos > 0) & (live_neg > 0)
              & (live_pos < n_live_pos) & (live_neg < n_live_neg))
        ok |= separates(live_pos, live_neg, n_live_pos, n_live_neg)
        if not ok.any():
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = WL / W
            delta = parent - tau * risk(WLp / WL) - (1 - tau) * risk(WRp / WR)
        delta = np.where(np.abs(delta) < DELTA_TOL, 0.0, delta)
        delta = np.where(ok, delta, -np.inf)
        k = int(np.argmax(delta))
        if best is None or delta[k] > best[0]:
            best = (float(delta[k]), j) + _threshold(xs, m, int(sel[k]))
    return best


def _threshold(xs, m, p):
    """(threshold, NaN rows left, or None when the node has none) of cut position p
    (:func:`_sides`)."""
    if m == xs.size:
        return 0.5 * (xs[p] + xs[p + 1]), None
    if p == m - 1:                                  # NaN or not: every value left
        return np.inf, False
    s = p - m if p >= m else p
    return 0.5 * (xs[s] + xs[s + 1]), p >= m


def grow_best_first(X, ystar, q, risk, link, *, max_size=5, depth=None, max_candidates=2000,
                    rng=None, w=None) -> WeakTree:
    """Grow a §3.3 tree (see the module docstring) on per-row weights ``q``.

    Parameters
    ----------
    X : (n, d) design; ystar : labels ±1; q : weights ≥ 0
    risk : callable p -> L(p)
        The node risk of the split score Δ (vectorised).
    link : callable p -> η(p)
        The leaf value.
    max_size : int
        Stop once internal nodes + leaves ≥ max_size (5: 2 splits, 3 leaves).
    depth : int, optional
        Instead of max_size: split every leaf admissibly down to this depth.
    max_candidates : int
        Candidates drawn per node when it has more.
    rng : numpy Generator, optional
        The candidate draws (default ``default_rng(0)``).
    w : array, optional
        Frequency weights: node statistics are Σ w_i q_i, and "most examples"
        counts Σ w_i; rows of weight 0 are not in the data (no thresholds
        from them).

    Returns
    -------
    WeakTree
        Its nodes in growth order (a split's children one after the other), the gain
        of a split its Δ, thresholds printed to 6 significant digits.
    """
    if w is not None:
        q = q * w
    count = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=float)
    rng = np.random.default_rng(0) if rng is None else rng
    pos = ystar > 0
    nodes = _Nodes()

    def stats(rows: np.ndarray) -> tuple[float, float]:
        return float(q[rows][pos[rows]].sum()), float(q[rows].sum())

    all_rows = np.flatnonzero(count > 0)
    queue = [(nodes.add(leaf_value(*stats(all_rows), link)), all_rows, 0)]
    while queue:
        if depth is None:
            if nodes.n >= max_size:
                break
            k = max(range(len(queue)), key=lambda i: count[queue[i][1]].sum())   # most examples
        else:
            k = 0
        node, rows, d = queue.pop(k)
        if depth is not None and d >= depth:
            continue
        best = _best_split(X, rows, q, pos, risk, max_candidates, rng)
        if best is None:
            continue                                        # dropped from the queue
        delta, j, thr, nan_left = best
        go_left = X[rows, j] <= thr
        if nan_left is None:
            # no NaN in the node: they go to the child of more examples (HistGradientBoosting)
            nan_left = bool(count[rows[go_left]].sum() > count[rows[~go_left]].sum())
        elif nan_left:
            go_left |= np.isnan(X[rows, j])
        lrows, rrows = rows[go_left], rows[~go_left]
        left = nodes.add(leaf_value(*stats(lrows), link))
        right = nodes.add(leaf_value(*stats(rrows), link))
        nodes.split(node, j, thr, delta, nan_left, left, right)
        queue += [(left, lrows, d + 1), (right, rrows, d + 1)]
    return nodes.tree()


class _Nodes:
    """The node lists of a tree as the best-first grower appends them."""

    def __init__(self):
        self.cols: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right",
                                                      "gain", "nan_left", "value")}
        self.n = 0

    def add(self, value: float) -> int:
        """A new leaf of value ``value``; its id."""
        for k, v in (("feature", -1), ("threshold", np.nan), ("left", -1), ("right", -1),
                     ("gain", 0.0), ("nan_left", False), ("value", float(value))):
            self.cols[k].append(v)
        self.n += 1
        return self.n - 1

    def split(self, node, feature, threshold, gain, nan_left, left, right) -> None:
        for k, v in (("feature", feature), ("threshold", threshold), ("gain", gain),
                     ("nan_left", nan_left), ("left", left), ("right", right)):
            self.cols[k][node] = v

    def tree(self) -> WeakTree:
        c = self.cols
        return WeakTree(feature=np.array(c["feature"], dtype=np.int64),
                        threshold=np.array(c["threshold"], dtype=np.float64),
                        left=np.array(c["left"], dtype=np.int64),
                        right=np.array(c["right"], dtype=np.int64),
                        gain=np.array(c["gain"], dtype=np.float64),
                        nan_left=np.array(c["nan_left"], dtype=bool),
                        value=np.array(c["value"], dtype=np.float64), digits=6)
