"""U-Boost (paper 003 §4.4) in its Newton form (docs/math.md §6).

``ubreg.fit(formula, data, method="uboost", U="logistic", learner="trees",
depth=3, mstop=200, nu=0.1)``.  With y*ᵢ ∈ {−1, +1} and the current F, each
iteration

1. takes curvatures uᵢ = wᵢ U''(y*ᵢ Fᵢ) and working responses
   zᵢ = −y*ᵢ U'(y*ᵢFᵢ)/U''(y*ᵢFᵢ);
2. fits f_m, the weighted least-squares fit of z on the base-learner with
   weights u (for a tree: leaf values −Σg/Σu with gᵢ = wᵢ y*ᵢ U'(y*ᵢFᵢ));
3. sets F ← F + ν f_m.

Exponential U with stumps and ν = 1 is Gentle AdaBoost on F/2, logistic U is
LogitBoost on F/2 (Friedman, Hastie & Tibshirani 2000 use half the log-odds).
F starts at the constant minimiser of the risk, the log-odds of the weighted
mean of y (``init="mean"``, the same for every Bayes-optimal U), or at 0
(``init="zero"``, as AdaBoost and LogitBoost do).  p̂ = expit(F) for a U-loss (Theorem 1),
the family's posterior at F for a family boosted (:class:`~ubreg.results.boost.UBoostResult`).

Base-learners (``learner=``): ``"stumps"`` and ``"trees"`` (Newton regression
trees of depth ``depth`` on binned design columns), ``"linear"``: one
componentwise linear base-learner per formula term (mboost's glmboost; a term
with several columns, e.g. a factor, is fitted jointly), giving a sparse
coefficient path.  Trees split on binned design columns (≤ ``max_bins``
quantile bins per column, exact below that many distinct values);
categorical predictors arrive as their dummy columns.  ``min_samples_leaf``
and ``min_child_weight`` bound the leaves.  Trees and stumps take NaN in X (a
missing predictor; a missing level is NaN in each of its dummies): every split
learns where they go, HistGradientBoosting's rule (:mod:`ubreg.trees.binning`,
:func:`ubreg.trees.shallow.on_design`); the linear learner needs complete rows.

The result keeps the training design matrix (for ``cv_risk``), so its pickle
grows with n × p.  A user-defined U given by ``lambda`` functions does not
pickle.
"""
from __future__ import annotations

import numpy as np

from ...families.ulosses import FamilyLoss, Logistic, ULoss
from ...learners.ensembles import UBoostFit
from ...learners.linear import Componentwise
from ...numerics.progress import progress
from ...trees.binning import bin_design
from ...trees.shallow import fit_newton_tree, root_histogram, tree_workspace
from .margin_values import values_into

__all__ = ["UBOOST_LEARNERS", "boost_u"]

UBOOST_LEARNERS = ("stumps", "trees", "linear")
#: what ubreg.fit gives a method when no family= is passed


def _column_terms(term_slices: dict, p: int) -> tuple[list, np.ndarray]:
    names = list(term_slices)
    col_term = np.zeros(p, dtype=np.int64)
    for t, sl in enumerate(term_slices.values()):
        col_term[sl] = t
    return names, col_term


def _unit_weights(w, min_child_weight, min_samples_leaf):
    """(w, bounds) divided by 2^e, e the binary exponent of max w.

    U-Boost depends on the weights only through their ratios and the two leaf
    bounds (in the weights' units): leaf values −ΣG/ΣH, the risk Σ w U/Σ w and
    the componentwise fits do not change when w is scaled, gains ΣG²/ΣH scale
    with it.  Dividing by a power of two is exact (the same bits for ordinary
    weights) and keeps G² from overflowing (w ≳ 1e154) or underflowing.
    """
    w = np.asarray(w, dtype=np.float64)
    e = int(np.frexp(w.max())[1]) if w.size else 0
    return (np.ldexp(w, -e), float(np.ldexp(min_child_weight, -e)),
            float(np.ldexp(min_samples_leaf, -e)))


def _initial_F(w, y, wsum, init, U):
    """F₀: the constant minimiser of the risk (``"mean"``: ``U.initial_F`` of the weighted
    mean of y, the log-odds for every U) or 0 (``"zero"``)."""
    if init != "mean":
        return 0.0
    # numpy's pairwise sum, not a BLAS dot: OpenBLAS may split a long dot across
    # threads (its result then depends on their number) and leaves them spinning
    # for a while, on the cores the trees' kernels are about to use
    ybar = float(np.sum(w * y)) / wsum
    if not 0.0 < ybar < 1.0:
        raise ValueError("the response has one class: the log-odds is infinite")
    return U.initial_F(ybar)


class _TreeSteps:
    """U-Boost's tree iterations: a Newton tree on per-row (g, h[, w]), F ← F + ν f.

    The statistics are filled in place each iteration, in one compiled pass with
    w·U (:meth:`values_risk`); the leaf values are added to F, and z = y*F
    formed, by another (no (n,) temporaries).  For the logistic U the passes
    also take over the logistic U's in-place arithmetic
    (:func:`~.margin_values.values_into`) but for its exp and log1p, which stay in
    NumPy (same numbers, fewer passes over the rows).
    """

    def __init__(self, binned, w, ystar, U, depth, min_child_weight, min_samples_leaf,
                 leaf_rows, col_term, n_terms):
        self.binned, self.w, self.ystar, self.U = binned, w, ystar, U
        self.depth, self.bounds = depth, (min_child_weight, min_samples_leaf)
        self.col_term, self.n_terms = col_term, n_terms
        # per-row statistics of the trees: g, h (and w, which bounds the leaf size;
        # its root histogram is the same every iteration: summed once)
        self.stats = np.empty((w.shape[0], 3 if leaf_rows else 2))
        self.root_w = None
        if leaf_rows:
            self.stats[:, 2] = w
            self.root_w = root_histogram(binned, w)
        # U'' > 0 is checked in the compiled pass: where every U'' is positive, the
        # curvatures of ULoss and FamilyLoss are U'' itself, which the pass wrote (a U
        # with a curvature of its own is redone every iteration)
        self.fused = type(U).newton_weight in (ULoss.newton_weight, FamilyLoss.newton_weight)
        self.logistic = type(U) is Logistic
        # the passes read y* as int8 and equal weights as one number (_kernels)
        ys = ystar.astype(np.int8)
        self.ys = ys if np.array_equal(ys, ystar) else ystar
        self.cw = float(w[0]) if w.size and (w == w[0]).all() else np.nan
        self.u_ready = False                # vals[0] holds −|z| (logistic, after a step)
        self.workspace = tree_workspace(w.shape[0])

    def values_risk(self, z, F, vals, wU):
        """The statistics of the next tree at z (g = w y* U'(z), h = w ×
        ``U.newton_weight``) and Σ w U(z) (numpy's pairwise sum); for the logistic U
        the sum is left to the next :meth:`step` (None), which forms w·U with F's
        update, or to :meth:`last_risk`."""
        from ...numerics.parallel import parts, run
        from ._kernels import FLAT_WEIGHTS, LOGISTIC_STATS, NEWTON_STATS
        n = parts() if len(z) >= _PARALLEL_ROWS else 1
        if not self.logistic:
            _values(self.U, z, vals)
            bad = run(NEWTON_STATS, n > 1, self.w, self.cw, self.ys, vals, self.stats, wU, n)
            if bad and type(self.U) is FamilyLoss:
                # a family's saturated rows take its end curvature (FamilyLoss.newton_weight),
                # in one compiled pass over those rows
                (lo, hi), (fin_lo, fin_hi) = self.U.flat_weights()
                run(FLAT_WEIGHTS, n > 1, self.w, self.cw, z, vals[2], lo, hi, not fin_lo,
                    not fin_hi, self.stats, n)
            elif bad and self.fused:
                # these curvatures change only where U'' ≤ 0: redo those rows alone
                # (elementwise: the numbers of the whole column's redo)
                rows = np.flatnonzero(~(vals[2] > 0))
                self.stats[rows, 1] = self.w[rows] * self.U.newton_weight(
                    z[rows], F[rows], vals[2][rows])
            elif not self.fused:
                self._newton_weight(z, F, vals[2])
            return float(np.sum(wU))
        if not self.u_ready:
            np.negative(np.abs(z, out=vals[0]), out=vals[0])
        np.exp(vals[0], out=vals[0])                # e = exp(−|z|) ≤ 1: no overflow
        if run(LOGISTIC_STATS, n > 1, F, vals[0], self.w, self.cw, self.ys, self.stats, n):
            z = self.ystar * F                      # z is not kept up to date (the passes)
            self._newton_weight(z, F, self.U.values(z)[2])    # values_into's U''
        np.log1p(vals[0], out=vals[0])              # U = log1p(e) + max(−z, 0)
        self.u_ready = False
        return None

    def _newton_weight(self, z, F, d2):
        np.multiply(self.w, self.U.newton_weight(z, F, d2), out=self.stats[:, 1])

    def last_risk(self, z, F, vals, wU):
        """Σ w U(z) left by :meth:`values_risk` (logistic U: vals[0] = log1p(e))."""
        from ...numerics.parallel import parts, run
        from ._kernels import RISK_TERMS
        n = parts() if len(F) >= _PARALLEL_ROWS else 1
        run(RISK_TERMS, n > 1, vals[0], F, self.ys, self.w, self.cw, wU, n)
        return float(np.sum(wU))

    def step(self, F, z, vals, wU, nu):
        """One iteration: (tree, F updated in place (and z = y*F, but for the logistic
        U, whose passes form z from F), share of each term in its gain, Σ w U at the
        z before the update when left by :meth:`values_risk`, else None)."""
        from ...numerics.parallel import parts, run
        from ._kernels import ADVANCE, ADVANCE_LOGISTIC
        base, node = fit_newton_tree(self.binned, self.stats, self.depth, *self.bounds,
                                     root_weights=self.root_w, workspace=self.workspace)
        n = parts() if len(F) >= _PARALLEL_ROWS else 1
        before = None
        if self.logistic:                       # w·U, F ← F + ν f, z, −|z|
            run(ADVANCE_LOGISTIC, n > 1, F, node, base.value, float(nu), self.ys, vals[0],
                self.w, self.cw, wU, n)
            before = float(np.sum(wU))
            self.u_ready = True
        else:                                   # F ← F + ν f, z
            run(ADVANCE, n > 1, F, node, base.value, float(nu), self.ys, z, n)
        by_col = base.split_gains_by_column(self.col_term.shape[0])
        share = np.bincount(self.col_term, weights=by_col, minlength=self.n_terms)
        return base, F, (share / share.sum() if share.sum() > 0 else share), before


#: rows worth splitting an elementwise pass across the cores
_PARALLEL_ROWS = 20_000


class _LinearSteps:
    """U-Boost's componentwise linear iterations (one term per iteration)."""

    def __init__(self, X, w, wy, ystar, U, col_term, n_terms, has_intercept):
        self.w, self.wy, self.ystar, self.U, self.n_terms = w, wy, ystar, U, n_terms
        self.comp = Componentwise(X, w, [np.flatnonzero(col_term == t) for t in range(n_terms)],
                                  has_intercept)

    def values_risk(self, z, F, vals, wU):
        """(U, U', U'') at z into ``vals``, and Σ w U(z) (numpy's pairwise sum)."""
        _values(self.U, z, vals)
        return self.last_risk(z, F, vals, wU)

    def last_risk(self, z, F, vals, wU):
        """Σ w U(z), U in vals[0]."""
        return float(np.sum(np.multiply(self.w, vals[0], out=wU)))

    def step(self, F, z, vals, wU, nu):
        """One iteration: (linear step, the new F (z = y*F in place), its term's share
        1, None)."""
        g = self.wy * vals[1]                                # ∂/∂F of wᵢ U(y*ᵢ Fᵢ)
        h = self.w * self.U.newton_weight(z, F, vals[2])     # its curvature (docs/math.md §6)
        base, fitted = self.comp.step(g, h)
        share = np.zeros(self.n_terms)
        share[base.term] = 1.0
        F = F + nu * fitted
        np.multiply(self.ystar, F, out=z)
        return base, F, share, None


#: rows worth a second thread for U and its derivatives (elementwise NumPy, which runs
#: without the GIL): below, a thread's start costs more than it saves
_THREAD_ROWS = 200_000


def _values(U, z, out):
    """``out[:] = U.values(z)`` (U, U', U''), the rows split across the cores on large
    fits: the maps are elementwise, so the parts give the single call's numbers."""
    from ...numerics.threads import run_parts, workers
    n = min(workers(), len(z) // _THREAD_ROWS)
    if n <= 1:
        values_into(U, z, out)
        return out
    cuts = np.linspace(0, len(z), n + 1).astype(int)
    run_parts(lambda ab: values_into(U, z[ab[0]:ab[1]], out[:, ab[0]:ab[1]]),
              list(zip(cuts[:-1], cuts[1:])))
    return out


def boost_u(X, y, w, U: ULoss, *, learner="trees", depth=3, mstop=100, nu=0.1,
            max_bins=255, init="mean", min_child_weight=1e-3, min_samples_leaf=1,
            term_slices=None, has_intercept=True, binned=None) -> UBoostFit:
    """Run U-Boost on arrays (see the module docstring).

    Parameters
    ----------
    X : (n, p) design; y : 0/1; w : frequency weights
    U : ULoss
    learner : {"stumps", "trees", "linear"}
    min_child_weight : float
        Least Σ of curvatures wᵢU'' in a tree leaf (sklearn's min_hessian_to_split).
    min_samples_leaf : float
        Least Σ of frequency weights in a tree leaf (1: no bound, no cost).
    term_slices : dict name -> slice of design columns (for importance and
        the linear learner); default one term per column.

    The fit does not depend on the scale of w (with the leaf bounds in w's
    units), so both are first divided by a power of two (:func:`_unit_weights`).
    """
    X = np.asarray(X, dtype=np.float64)
    leaf_rows = min_samples_leaf > 1            # in the user's units: 1 is no bound
    w, min_child_weight, min_samples_leaf = _unit_weights(w, min_child_weight, min_samples_leaf)
    n, p = X.shape
    term_slices = term_slices or {f"x{j}": slice(j, j + 1) for j in range(p)}
    names, col_term = _column_terms(term_slices, p)
    ystar = 2.0 * y - 1.0
    wsum = float(w.sum())
    F0 = _initial_F(w, y, wsum, init, U)
    F = np.full(n, F0)
    wy = w * ystar
    steps: _LinearSteps | _TreeSteps
    if learner == "linear":
        steps = _LinearSteps(X, w, wy, ystar, U, col_term, len(names), has_intercept)
    else:
        binned = bin_design(X, max_bins, weights=w) if binned is None else binned
        steps = _TreeSteps(binned, w, ystar, U, 1 if learner == "stumps" else depth,
                           min_child_weight, min_samples_leaf, leaf_rows, col_term, len(names))
    learners = []
    # per-row buffers reused every iteration: z = y*F, (U, U', U'') at z, w·U
    z, wU = ystar * F, np.empty(n)
    vals = np.empty((3, n))
    # Σ w U / Σ w by numpy's pairwise sum: a BLAS dot would wake (and leave
    # spinning) OpenBLAS threads every iteration
    r = steps.values_risk(z, F, vals, wU)       # None: left to the next step
    risk: list = []
    shares = np.zeros((mstop, len(names)))
    for m in progress(range(mstop), "uboost", total=mstop):
        base, F, shares[m], before = steps.step(F, z, vals, wU, nu)
        risk.append(r if r is not None else before)
        # derivatives for the next step, and the risk now
        r = steps.values_risk(z, F, vals, wU)
        learners.append(base)
    risk.append(r if r is not None else steps.last_risk(z, F, vals, wU))
    risk = [x / wsum for x in risk]
    gains = (np.asarray(risk[:-1]) - np.asarray(risk[1:]))[:, None] * shares
    selected = shares > 0
    return UBoostFit(learners=learners, F0=F0, nu=float(nu), eta=F, risk_path=np.asarray(risk),
                     gains=gains, selected=selected)


