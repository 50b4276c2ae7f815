"""Weak learners of t-AdaBoost (docs/tempered.md §2.1, §3.3): the tempered weights q
handed to the shared learners of :mod:`ubreg.learners`.

* :func:`fit_tempered_tree` — the tree of the authors' code [J] (§3.3),
  :func:`ubreg.trees.best_first.grow_best_first` with the split score of
  the Bayes risk L_t and the leaf link η_t (§3.2): node statistics Σq,
  admissible splits only, thresholds at within-node midpoints, at most
  ``max_candidates`` random candidates per node, growth by the most populated
  leaf up to ``max_size`` nodes (or every leaf to ``depth``); leaves
  η_t(p_leaf), ±100 when pure.
* :func:`fit_udt_tree` — the shallow trees shared with the boosting methods
  (:func:`ubreg.trees.shallow.grow_tree` with
  :func:`~ubreg.trees.shallow.udt_gain`, level-wise to a fixed ``depth`` on
  binned columns) grown on the tempered weights: the same node statistics
  (Σq), the same criterion (the drop of Σ_leaves W_k L_t(p_k), i.e. W·Δ),
  the same admissibility (by counts of live rows of each class, a perfect
  separation of the node included) and the same
  leaves η_t(p_leaf) as the §3.3 tree.  It differs from it in the growth
  (every leaf down to ``depth``, binned cuts, no random candidate draw) and
  in taking only splits with a positive gain.
* :func:`fit_stump` — AdaBoost's ±1 stumps (:mod:`ubreg.learners.stumps`: the
  stump of largest |Σ q_i y*_i h(x_i)| over binned cuts), so that t = 1
  reproduces ``method="uls"`` with Exponential().

Design columns are numeric (patsy codes factors as 0/1 dummies), so nominal
features are split as their dummy columns ("x ∈ S" with |S| = 1).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ...families.tempered import Tempered
from ...families.tempered_algebra import bayes_risk
from ...learners.stumps import fit_sign_stump
from ...trees.best_first import grow_best_first, leaf_value, separates
from ...trees.shallow import grow_tree, udt_gain

__all__ = ["fit_stump", "fit_tempered_tree", "fit_udt_tree"]


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

    Returns
    -------
    :class:`~ubreg.trees.weak_tree.WeakTree`
    """
    return grow_best_first(X, ystar, q, partial(bayes_risk, t=t), Tempered(t).dphi,
                           max_size=max_size, depth=depth, max_candidates=max_candidates,
                           rng=rng, w=w)


def fit_udt_tree(binned, ystar, q, t, depth, w=None):
    """A shared shallow tree (:func:`ubreg.trees.shallow.grow_tree`) on the
    tempered weights ``q``, leaves at η_t(p_leaf).  Returns (WeakTree, training
    values) or (None, None) when the root has no admissible split.

    Per row the histograms sum (W⁺, W⁻, live⁺, live⁻): the weights
    w_i q_i of each class, rescaled to sum to 1 (the criterion and the leaves
    only depend on ratios, and t close to 2 makes q tiny), and the 0/1
    indicators of live rows (q_i > 0, w_i > 0) of each class.  A split is
    admissible when each child holds at least one live row of each class, or when
    it separates the node perfectly (docs/tempered.md §3.3):
    counts are integers, exact in floating point, so admissibility does not
    depend on the row order.  The criterion is udt_gain with φ = −L_t, the
    drop of Σ_leaves W_k L_t(p_k) = W·Δ of §3.3; a split must gain more than
    1e−12 of the total weight (the §3.3 tree also takes Δ = 0 splits).
    """
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
    gain = _admissible(udt_gain(lambda p: -bayes_risk(p, t)))
    # grow_tree compares gains with min_gain × (Σ of every statistic) = 1 + live rows
    min_gain = 1e-12 / (1.0 + float(live.sum()))
    tree, node = grow_tree(binned, stats, gain, int(depth), min_leaf=0.0, leaf_col=(2, 3),
                           min_gain=min_gain)
    if tree.feature[0] < 0:
        return None, None
    size = tree.feature.size
    Wp = np.bincount(node, weights=stats[:, 0], minlength=size)
    Wn = np.bincount(node, weights=stats[:, 1], minlength=size)
    link = Tempered(t).dphi
    tree.value = np.array([leaf_value(Wp[k], Wp[k] + Wn[k], link) for k in range(size)])
    return tree, tree.value[node]


def _admissible(gain):
    """``gain`` on the admissible splits of the §3.3 tree, NaN (no candidate) elsewhere:
    each child holds a live row of each class (statistics 2 and 3 count them), or the
    split separates the node perfectly (:func:`ubreg.trees.best_first.separates`)."""
    def admissible_gain(L, R, P):
        both = np.all((L[..., 2:4] >= 1) & (R[..., 2:4] >= 1), axis=-1)
        perfect = (P[..., 2] >= 1) & (P[..., 3] >= 1) & separates(
            L[..., 2], L[..., 3], P[..., 2], P[..., 3])
        return np.where(both | perfect, gain(L, R, P), np.nan)
    return admissible_gain


def fit_stump(binned, ystar, q, w=None):
    """The ±1 stump of largest |Σ w_i q_i y*_i h(x_i)| (ubreg.learners.stumps) and its
    training values, or (None, None)."""
    v = q * ystar if w is None else w * q * ystar
    out = fit_sign_stump(binned, v)
    if out is None:
        return None, None
    stump, values, _ = out
    return stump, np.asarray(values)[:, 0]
