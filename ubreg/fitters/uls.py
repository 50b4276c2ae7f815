"""ULS over the columns of a design matrix (paper 000, Algorithm 1; docs/math.md §4).

The features h_t are the design columns; the leveraging coefficients β are
updated so that the weights have zero edge on the updated features (eq. 70).
Two choices of the set T_j of updated features:

``solver="corrective"``
    T_j = every column: a totally corrective step, which is a Newton step on
    the whole surrogate risk (safeguarded by a backtracking line search).
``solver="coordinate"``
    T_j = the one column of largest |edge| under the current weights: classic
    boosting, with (70) solved in one dimension to 1e-10.

Both minimise the same strictly convex risk and reach the same optimum
(Theorem 1); with the entropy family that optimum is the logistic MLE.

Fitters take arrays and return a fresh :class:`LinearFit`; they never modify
their inputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..families.base import Family
from ..numerics.aliasing import AliasCheck, alias_check
from ..numerics.factor_matrix import (
    is_factor_matrix,
    matvec,
    rmatvec,
    scale_columns,
    take_columns,
    value,
)
from ..numerics.linalg import BLOCK_ROWS, blocked_products, column_absmax
from ..numerics.newton import NewtonProblem, armijo_accept, newton
from ..numerics.weights import power_of_two_scaled

__all__ = ["LinearFit", "WorkingColumns", "fit_uls", "edges", "surrogate_risk", "working_shift",
           "working_design", "working_transform", "working_scale", "working_gram",
           "convergence_message", "unit_exponents", "CENTRE_RATIO", "UNIT_BAND",
           "EXTREME_MESSAGE"]

#: R's warning when some min(p̂, 1 − p̂) < 10ε (and no separation was confirmed)
EXTREME_MESSAGE = "fitted probabilities numerically 0 or 1 occurred"

#: with an intercept, a column whose weighted mean exceeds this many of its weighted
#: standard deviations (a timestamp, a weight + 3e5) is fitted centred, x − m: the same
#: model, and a stopping rule and covariance that keep their digits
CENTRE_RATIO = 10.0

#: a column whose largest |x| lies outside [2^−UNIT_BAND, 2^UNIT_BAND] is fitted in a unit
#: that is a power of two (exact), so that neither its squares underflow (x·1e−200 read as
#: aliased) nor its cross-products overflow: R's QR works on the columns as given
UNIT_BAND = 64


@dataclass
class LinearFit:
    """The outcome of a linear ULS fit (arrays only, no statistics)."""

    coef: np.ndarray            # one per design column, NaN where aliased
    aliased: np.ndarray         # bool, one per design column
    eta: np.ndarray | None      # link values H(x_i) at the solution (None: a Dask fit)
    iterations: int
    converged: bool
    max_edge: float             # largest |normalised edge| at the solution
    solver: str
    risk_path: np.ndarray       # surrogate risk before each iteration, and at the end
    edge_path: np.ndarray       # largest |edge| before each iteration, and at the end
    column_path: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    stalled: bool = False       # the line search could not decrease the risk
    #: per design column, the constant subtracted from it in the working design (see
    #: :func:`working_shift`); ``None`` when the fit ran on the design columns themselves
    shift: np.ndarray | None = None
    intercept: int | None = None  # the intercept column, when there is one
    #: per design column, e with the column fitted as x·2^−e (:func:`unit_exponents`);
    #: ``None`` when every column is fitted in its own unit
    unit: np.ndarray | None = None
    #: the η at which R's IRLS weighted its last least-squares step (``glm_control``), at
    #: which R's covariance is taken; ``None`` for fits iterated to the optimum
    working_eta: np.ndarray | None = None


@dataclass
class WorkingColumns:
    """What the working design is made of, before there is a fit: the aliased columns,
    the constant subtracted from each (:func:`working_shift`) and the intercept column
    (the fields of :class:`LinearFit` that :func:`working_design` and
    :func:`working_transform` read)."""

    aliased: np.ndarray
    shift: np.ndarray | None = None
    intercept: int | None = None
    unit: np.ndarray | None = None


def unit_exponents(X) -> np.ndarray | None:
    """Per design column, the e with which it is fitted as x·2^−e: the exponent of its
    largest |x| when that lies outside [2^−UNIT_BAND, 2^UNIT_BAND], else 0 (a column in
    ordinary units is fitted as given, to the bit).  ``None`` when every e is 0."""
    amax = column_absmax(X)
    out = (amax > 0) & ((amax < 2.0 ** -UNIT_BAND) | (amax > 2.0 ** UNIT_BAND))
    if not out.any():
        return None
    return np.where(out, np.frexp(amax)[1], 0).astype(np.int64)


def convergence_message(fit: LinearFit, tol: float) -> str | None:
    """The ``ConvergenceWarning`` text of a fit that stopped before its largest
    |edge| reached ``tol`` (maxiter, or a line search that could not decrease the
    risk), or None."""
    if fit.converged:
        return None
    if fit.solver == "irls":
        return (f"IRLS did not converge in {fit.iterations} iterations of glm_control's "
                "maxit (R: 'glm.fit: algorithm did not converge')")
    why = ("the line search could not decrease the risk" if fit.stalled
           else f"after {fit.iterations} iterations")
    return f"ULS did not converge: max |edge| {fit.max_edge:.3g} > tol {tol:g} ({why})"


def working_shift(check: AliasCheck) -> np.ndarray | None:
    """The constants the working design subtracts from its columns, or ``None``.

    With an intercept, a kept column whose weighted mean m_j exceeds
    :data:`CENTRE_RATIO` weighted standard deviations is fitted as x_j − m_j:
    the same linear span, hence the same fitted model (β maps back exactly by
    :func:`working_transform`), but edges, Newton steps and the sandwich no
    longer carry the cancellation of a column that is nearly constant
    relative to its size.
    """
    if check.intercept is None:
        return None
    s = check.scatter
    sd = s.norms / np.sqrt(s.wsum)
    far = ~check.aliased & (sd > 0) & (np.abs(s.mean) > CENTRE_RATIO * sd)
    far[check.intercept] = False
    return np.where(far, s.mean, 0.0) if far.any() else None


def working_scale(check: AliasCheck, shift) -> np.ndarray:
    """max |x̃_j| over the rows of positive weight, per kept working column (1 for a zero
    column): the normaliser of the edges (:func:`edges`)."""
    s, keep = check.scatter, ~check.aliased
    c = 0.0 if shift is None else shift
    scale = np.maximum(np.abs(s.hi - c), np.abs(s.lo - c))[keep]
    return np.where(scale > 0, scale, 1.0)


def working_design(X, fit: LinearFit | WorkingColumns):
    """The kept columns of X, in their working units (:func:`unit_exponents`), shifted
    columns centred (a copy only when needed; for a
    :class:`~ubreg.numerics.factor_matrix.FactorMatrix`, one that shares its codes)."""
    keep = ~fit.aliased
    if fit.unit is not None:
        X = scale_columns(X, fit.unit)
    return take_columns(X, keep, None if fit.shift is None else fit.shift[keep])


def working_transform(fit: LinearFit | WorkingColumns,
                      intercept_value: float) -> np.ndarray | None:
    """T with β = T β̃ over the kept columns (``None``: the identity).

    x̃_j = x_j − m_j = x_j − (m_j/c)·x_int for the intercept column x_int = c,
    so β_int = β̃_int − Σ_j (m_j/c) β̃_j and every other β_j = β̃_j; a column fitted
    in the unit 2^e (x_j·2^−e) has β_j = 2^−e β̃_j, a row of T scaled.  A covariance
    maps as T Ṽ Tᵀ.
    """
    if fit.shift is None and fit.unit is None:
        return None
    keep = ~fit.aliased
    T = np.eye(int(keep.sum()))
    if fit.shift is not None:
        row = int(np.sum(keep[:fit.intercept]))
        T[row] -= fit.shift[keep] / intercept_value
        T[row, row] = 1.0
    if fit.unit is not None:
        T = np.ldexp(T, -fit.unit[keep][:, None])
    return T


def surrogate_risk(family: Family, y, eta, w, wsum) -> float:
    """Weighted mean surrogate risk ε_φ = Σ wᵢ F_φ(y*ᵢ ηᵢ) / Σ wᵢ (eq. 30).

    F = loss/``family.risk_scale``: b_φ for a permissible family, 1 for the
    exponential loss (F = ψ).
    """
    return float(w @ family.loss(y, eta)) / wsum / family.risk_scale


def edges(family: Family, X, y, eta, w, wsum, col_scale) -> np.ndarray:
    """Normalised edges of the design columns under the current weights.

    edge_t = Σᵢ ωᵢ y*ᵢ h_t(xᵢ) with ωᵢ = −ψ'(y*ᵢηᵢ) (docs/math.md §4), i.e. minus the
    gradient of the risk in β_t, divided by Σ wᵢ · max|h_t| so it lies in
    [−1, 1] for ±1-valued features.
    """
    g = family.gradient(y, eta)
    return -rmatvec(X, w * g) / (wsum * col_scale)


def _column_scale(X):
    s = column_absmax(X)
    return np.where(s > 0, s, 1.0)


def fit_uls(X: np.ndarray, y: np.ndarray, w: np.ndarray, family: Family, *,
            solver: str = "corrective", tol: float = 1e-10, maxiter: int | None = None,
            offset: np.ndarray | None = None, aliased: np.ndarray | None = None,
            intercept="auto") -> LinearFit:
    """Minimise Σ wᵢ ℓ(yᵢ, xᵢᵀβ) by ULS (Algorithm 1 of paper 000).

    Parameters
    ----------
    X : (n, p) array or FactorMatrix
        Design matrix; its columns are the features h_t.  A
        :class:`~ubreg.numerics.factor_matrix.FactorMatrix` (factor columns as
        codes) is read through that module's functions, never made dense but
        by the coordinate solver.
    y : (n,) array of 0/1
    w : (n,) array of non-negative frequency weights
    family : Family
    solver : {"corrective", "coordinate"}
    tol : float
        Stop when the largest |normalised edge| is at most ``tol``.
    maxiter : int, optional
        Newton iterations (corrective, default 100) or one-column updates
        (coordinate, default 100 000).
    offset : (n,) array, optional
        Known part of the link.
    aliased : (p,) bool array, optional
        Columns to leave out; by default those linearly dependent on
        earlier ones by R's rule on the centred and scaled columns
        (:mod:`ubreg.numerics.aliasing`).
    intercept : int, None or "auto"
        The intercept column (``"auto"``: the first non-zero constant
        column).  With one, columns far from zero are fitted centred
        (:func:`working_shift`); the coefficients are those of X.
    """
    if solver not in ("corrective", "coordinate"):
        raise ValueError(f"solver must be 'corrective' or 'coordinate', got {solver!r}")
    if not is_factor_matrix(X) or solver == "coordinate":
        X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = power_of_two_scaled(w)          # the fit is scale-free in w; its sums must be too
    n, p = X.shape
    offset = np.zeros(n) if offset is None else np.asarray(offset, dtype=np.float64)
    shell = WorkingColumns(aliased=np.zeros(p, dtype=bool), unit=unit_exponents(X))
    if shell.unit is not None:          # and in a column's unit
        X = scale_columns(X, shell.unit)
    gram = None
    if aliased is None:
        check = alias_check(X, w, intercept)
        shell.aliased, shell.intercept = check.aliased, check.intercept
        shell.shift = working_shift(check)
        gram = working_gram(check, shell.shift)
    else:
        shell.aliased = np.asarray(aliased, dtype=bool).copy()
    keep = ~shell.aliased
    Xk = take_columns(X, keep, None if shell.shift is None else shell.shift[keep])   # X in units
    scale = _column_scale(Xk) if gram is None else working_scale(check, shell.shift)
    if solver == "corrective":
        run = _corrective(Xk, y, w, family, tol, 100 if maxiter is None else maxiter, offset,
                          scale, gram)
    else:
        run = _coordinate(Xk, y, w, family, tol, 100_000 if maxiter is None else maxiter, offset)
    beta_k, eta, iterations, converged, risk_path, edge_path, column_path, stalled = run
    wsum = float(w.sum())
    final_edges = edges(family, Xk, y, eta, w, wsum, scale)
    # a shift is made only with an intercept (working_shift)
    # T maps β̃ back to the columns as given (their units and shifts)
    T = working_transform(shell, value(X, 0, shell.intercept)
                          if shell.shift is not None and shell.intercept is not None else 1.0)
    coef = np.full(p, np.nan)
    coef[keep] = beta_k if T is None else T @ beta_k
    return LinearFit(coef=coef, aliased=shell.aliased, eta=eta, iterations=iterations,
                     converged=converged, max_edge=float(np.max(np.abs(final_edges), initial=0.0)),
                     solver=solver, risk_path=np.asarray(risk_path),
                     edge_path=np.asarray(edge_path),
                     column_path=np.asarray(column_path, dtype=int),
                     stalled=stalled, shift=shell.shift, intercept=shell.intercept,
                     unit=shell.unit)


def working_gram(check: AliasCheck, shift) -> np.ndarray:
    """X̃ᵀWX̃ of the kept working columns from the scatter: C + W m̃m̃ᵀ, m̃ the
    working columns' weighted means (0 for the centred ones).  The first
    Newton step's Hessian when the curvature at the start is one constant."""
    s, keep = check.scatter, ~check.aliased
    gram = s.gram[np.ix_(keep, keep)]
    if not s.centred:
        return gram
    mean = s.mean[keep] if shift is None else (s.mean - shift)[keep]
    return gram + s.wsum * np.outer(mean, mean)


class _ArrayProblem(NewtonProblem):
    """Risk, gradient and Hessian of Σ wᵢ ℓ(yᵢ, ηᵢ) with η = offset + Xβ, from arrays.

    Per iteration: the gradient Xᵀ(w·g) (one matrix-vector pass), the Hessian
    Xᵀdiag(w·h)X by blocks of rows (:func:`blocked_products`, one pass, no
    scaled copy of X), the step Xδ (one matrix-vector pass); the line search
    works on η alone.  ``gram`` = XᵀWX, when the caller has it, is the first
    Hessian divided by the curvature at the start if that curvature is one
    constant (η = 0 for every permissible family).
    """

    def __init__(self, X, y, w, family, offset, gram):
        self.X, self.y, self.w, self.family, self.gram = X, y, w, family, gram
        self.wsum = float(w.sum())
        self.beta = np.zeros(X.shape[1])
        self.eta = offset.copy()
        self.buffer = np.empty((min(X.shape[0], BLOCK_ROWS), X.shape[1]))
        self._step = self._deta = self._eta_new = None

    def gradient(self):
        return rmatvec(self.X, self.w * self.family.gradient(self.y, self.eta))

    def hessian(self, iteration):
        h = self.family.newton_curvature(self.y, self.eta)
        if iteration == 0 and self.gram is not None and h.size and np.all(h == h[0]):
            return h[0] * self.gram
        return blocked_products(self.X, [self.w * h], buffer=self.buffer)[0][0]

    def trial(self, step, t):
        if step is not self._step:            # a new direction: Xδ once per iteration
            self._step, self._deta = step, matvec(self.X, step)
        self._eta_new = self.eta - t * self._deta
        return surrogate_risk(self.family, self.y, self._eta_new, self.w, self.wsum)

    def accept(self, step, t):
        self.beta -= t * step
        self.eta = self._eta_new


def _corrective(X, y, w, family, tol, maxiter, offset, scale=None, gram=None):
    """Totally corrective ULS: safeguarded Newton steps on all coefficients
    (:func:`ubreg.numerics.newton.newton` on the arrays, :class:`_ArrayProblem`)."""
    problem = _ArrayProblem(X, y, w, family, offset, gram)
    if scale is None:
        scale = _column_scale(X)
    risk = surrogate_risk(family, y, problem.eta, w, problem.wsum)
    run = newton(problem, risk, wsum=problem.wsum, scale=scale, risk_scale=family.risk_scale,
                 tol=tol, maxiter=maxiter)
    eta = offset + matvec(X, problem.beta)
    return (problem.beta, eta, run.iterations, run.converged, run.risk_path, run.edge_path, [],
            run.stalled)


def _standardisation(X, w):
    """Centre and scale non-constant columns when a constant column exists.

    Coordinate descent runs on z_j = (x_j − m_j)/s_j: the same linear span,
    so the same optimum, and a far better conditioned one-column search.
    """
    wsum = w.sum()
    mean = (w @ X) / wsum
    const = np.all(X == X[0:1, :], axis=0)
    has_const = bool(const.any())
    centre = np.where(const | (not has_const), 0.0, mean)
    sd = np.sqrt(np.maximum((w @ (X - centre) ** 2) / wsum, 0.0))
    sd = np.where(sd > 0, sd, 1.0)
    return centre, sd


def _one_dimensional(zj, y, w, eta, family, wsum, zscale, tol=1e-10, maxit=100):
    """Solve (70) for one feature: δ with Σ wᵢ ψ'(y*ᵢ(ηᵢ + δ zᵢ)) y*ᵢ zᵢ = 0."""
    delta = 0.0
    risk = surrogate_risk(family, y, eta, w, wsum)
    b = family.risk_scale
    for _ in range(maxit):
        cur = eta + delta * zj
        d1 = float(zj @ (w * family.gradient(y, cur)))
        if abs(d1) / (wsum * zscale) <= tol:
            break
        d2 = float((zj * zj) @ (w * family.newton_curvature(y, cur)))
        step = d1 / d2 if d2 > 0 else np.sign(d1)
        t = 1.0
        while True:
            new_risk = surrogate_risk(family, y, eta + (delta - t * step) * zj, w, wsum)
            if np.isfinite(new_risk) and armijo_accept(new_risk, risk, t * d1 * step / wsum / b):
                break
            t *= 0.5
            if t < 1e-12:
                return delta
        delta -= t * step
        risk = new_risk
    return delta


def _coordinate(X, y, w, family, tol, maxiter, offset):
    """Classic ULS: one column per iteration, the one of largest |edge|."""
    n, p = X.shape
    wsum = float(w.sum())
    centre, sd = _standardisation(X, w)
    # the standardised design is never formed: Zᵀv = (Xᵀv − centre Σv)/sd
    zmax = np.max(np.abs(X - centre), axis=0) / sd
    zmax = np.where(zmax > 0, zmax, 1.0)
    beta_z = np.zeros(p)
    eta = offset.copy()
    risk_path, edge_path, column_path = [], [], []
    converged = False
    iterations = 0
    while True:
        wg = w * family.gradient(y, eta)
        grad_z = (X.T @ wg - centre * wg.sum()) / sd
        e = np.abs(grad_z) / (wsum * zmax)
        j = int(np.argmax(e))
        risk_path.append(surrogate_risk(family, y, eta, w, wsum))
        edge_path.append(float(e[j]))
        if e[j] <= tol:
            converged = True
            break
        if iterations >= maxiter:
            break
        zj = (X[:, j] - centre[j]) / sd[j]
        delta = _one_dimensional(zj, y, w, eta, family, wsum, zmax[j], tol=min(1e-10, 0.1 * tol))
        beta_z[j] += delta
        eta = eta + delta * zj
        column_path.append(j)
        iterations += 1
    # η = Σ β_z,j (x_j − c_j)/s_j: the constant −Σ β_z,j c_j/s_j goes to the constant column
    beta = beta_z / sd
    const = np.flatnonzero(np.all(X == X[0:1, :], axis=0))
    if const.size:
        k = const[0]
        beta[k] -= np.sum(beta_z * centre / sd) / X[0, k]
    eta = offset + X @ beta
    return beta, eta, iterations, converged, risk_path, edge_path, column_path, False
