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
from ...numerics.parallel import parts
from ...numerics.progress import progress
from ...numerics.softmax import SEQUENTIAL_SUM, SoftmaxWork, log_softmax
from ...trees.binning import bin_design
from ...trees.shallow import fit_newton_tree, root_histogram, tree_workspace
from .uboost import _PARALLEL_ROWS, _unit_weights

__all__ = ["boost_multinomial"]


def _risk(log_p, codes, w, wsum):
    """Σ w (−log p̂_y) / Σ w."""
    return float(-np.sum(w * log_p[np.arange(log_p.shape[0]), codes]) / wsum)


class _Round:
    """The arrays of a round's probabilities, gradients and curvatures, written in place
    round after round: fresh arrays of this size cost more in page faults than the
    arithmetic (a round on 1e5 rows and 4 classes: 5.8 ms of NumPy, 2.6 ms of it
    arithmetic).  Every number is the one of the plain NumPy expressions it replaces."""

    def __init__(self, n: int, K: int, codes: np.ndarray):
        self.softmax = SoftmaxWork(n, K)
        rows = np.arange(n)
        self.Y = np.zeros((K, n))                # one row a class: y_ik
        self.Y[codes, rows] = 1.0
        # where log p̂_iy lies in log_softmax's result, in its memory order: by class
        # (fewer than 8 classes: one row a class) or by row
        self.by_class = K < SEQUENTIAL_SUM
        self.at_y = codes * n + rows if self.by_class else rows * K + codes
        # p̂ laid out as log p̂: class k's column contiguous when by class
        self.P = np.empty((K, n)).T if self.by_class else np.empty((n, K))
        self.u = np.empty(n)
        self.chunks = parts() if n >= _PARALLEL_ROWS else 1

    def start(self, F, w, wsum):
        """log p̂ and p̂ at the scores F; returns the risk Σ w (−log p̂_y) / Σ w."""
        log_p = log_softmax(F, self.softmax)
        flat = (log_p.T if self.by_class else log_p).reshape(-1)     # a view, no copy
        np.take(flat, self.at_y, out=self.u)
        np.multiply(w, self.u, out=self.u)
        np.exp(log_p, out=self.P)
        return float(-np.sum(self.u) / wsum)

    def class_stats(self, k, w, stats):
        """g = w (p̂_k − y_k) and h = w p̂_k (1 − p̂_k) into ``stats``' first two columns
        (compiled, :data:`._kernels.MULTINOMIAL_STATS`)."""
        from ...numerics.parallel import run
        from ._kernels import MULTINOMIAL_STATS
        run(MULTINOMIAL_STATS, self.chunks > 1, self.P[:, k], self.Y[k], w, stats,
            self.chunks)

    def advance(self, F, k, nu, value, node):
        """F_k += ν × the tree's value at each row's leaf (compiled,
        :data:`._kernels.MULTINOMIAL_ADVANCE`)."""
        from ...numerics.parallel import run
        from ._kernels import MULTINOMIAL_ADVANCE
        run(MULTINOMIAL_ADVANCE, self.chunks > 1, F, int(k), node, value, float(nu),
            self.chunks)


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
    binned = bin_design(X, max_bins, weights=w) if binned is None else binned
    stats = np.empty((n, 3 if leaf_rows else 2))
    root_w = None
    if leaf_rows:
        stats[:, 2] = w
        root_w = root_histogram(binned, w)
    workspace = tree_workspace(n)
    arrays = _Round(n, K, codes)
    depth = 1 if stumps else depth
    risk = []
    learners = []
    for _ in progress(range(mstop), "uboost", total=mstop):
        risk.append(arrays.start(F, w, wsum))              # the risk before this round
        trees = []
        for k in range(K):
            arrays.class_stats(k, w, stats)
            tree, node = fit_newton_tree(binned, stats, depth, min_child_weight,
                                         min_samples_leaf if leaf_rows else None,
                                         root_weights=root_w, workspace=workspace)
            arrays.advance(F, k, nu, tree.value, node)
            trees.append(tree)
        learners.append(trees)
    risk.append(_risk(log_softmax(F), codes, w, wsum))
    return MulticlassBoostFit(learners=learners, F0=F0, nu=float(nu), F=F,
                              risk_path=np.asarray(risk))


