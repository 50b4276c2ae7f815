"""U-Boost on K > 2 classes: K Newton trees a round on the multinomial loss.

The entropy family's K-class form is the multinomial log-loss ℓ(y, F) = −log p_y with
p_k = exp(F_k) / Σ_l exp(F_l) (the loss of :mod:`ubreg.fitters.multinomial`, here with
one free score per class).  Each round grows, for every class k, U-Boost's Newton tree
(docs/math.md §6) on the per-row gradient g_ik = w_i (p_ik − y_ik) and the diagonal of
the Hessian h_ik = w_i p_ik (1 − p_ik), all at the scores of the start of the round, and
adds ν times its leaf values to F_k, as scikit-learn's HistGradientBoostingClassifier
does; the scores start at the log of the weighted class proportions.  This is the
construction of gradient boosting (Friedman 2001), not one of the papers: they give no
K-class U-Boost.
"""
from __future__ import annotations

import numpy as np

from ...learners.ensembles import MulticlassBoostFit
from ...numerics.progress import progress
from ...numerics.softmax import log_softmax
from ...trees.binning import bin_design
from ...trees.shallow import fit_newton_tree, root_histogram, tree_workspace
from .uboost import _unit_weights

__all__ = ["boost_multinomial"]


def _risk(log_p, codes, w, wsum):
    """Σ w (−log p̂_y) / Σ w."""
    return float(-np.sum(w * log_p[np.arange(log_p.shape[0]), codes]) / wsum)


def boost_multinomial(X, codes, K: int, w, *, depth=3, mstop=100, nu=0.1, max_bins=255,
                      min_child_weight=1e-3, min_samples_leaf=1, stumps=False,
                      binned=None) -> MulticlassBoostFit:
    """K Newton trees a round (see the module notes).

    Parameters
    ----------
    X : (n, p) design; codes : class codes 0..K−1; w : row weights (relative: their
        scale moves ``min_child_weight`` and ``min_samples_leaf`` only)
    min_child_weight, min_samples_leaf : least Σ h and Σ w in a leaf (1: no bound)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    codes = np.asarray(codes, dtype=np.intp)
    leaf_rows = min_samples_leaf > 1            # in the user's units: 1 is no bound
    w, min_child_weight, min_samples_leaf = _unit_weights(w, min_child_weight, min_samples_leaf)
    wsum = float(w.sum())
    share = np.bincount(codes, weights=w, minlength=K) / wsum
    if np.any(share <= 0):
        raise ValueError("a class has no rows of positive weight")
    F0 = np.log(share)
    F = np.tile(F0, (n, 1))
    Y = np.zeros((n, K))
    Y[np.arange(n), codes] = 1.0
    binned = bin_design(X, max_bins, weights=w) if binned is None else binned
    stats = np.empty((n, 3 if leaf_rows else 2))
    root_w = None
    if leaf_rows:
        stats[:, 2] = w
        root_w = root_histogram(binned, w)
    workspace = tree_workspace(n)
    depth = 1 if stumps else depth
    risk = []
    learners = []
    for _ in progress(range(mstop), "uboost", total=mstop):
        log_p = log_softmax(F)
        risk.append(_risk(log_p, codes, w, wsum))          # the risk before this round
        P = np.exp(log_p)
        trees = []
        for k in range(K):
            stats[:, 0] = w * (P[:, k] - Y[:, k])
            stats[:, 1] = w * P[:, k] * (1.0 - P[:, k])
            tree, node = fit_newton_tree(binned, stats, depth, min_child_weight,
                                         min_samples_leaf if leaf_rows else None,
                                         root_weights=root_w, workspace=workspace)
            F[:, k] += nu * tree.value[node]
            trees.append(tree)
        learners.append(trees)
    risk.append(_risk(log_softmax(F), codes, w, wsum))
    return MulticlassBoostFit(learners=learners, F0=F0, nu=float(nu), F=F,
                              risk_path=np.asarray(risk))


