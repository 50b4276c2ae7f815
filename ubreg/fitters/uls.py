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
from .linear_algebra import (BLOCK_ROWS, aliased_columns, blocked_products, column_absmax,
                             solve_spd)

__all__ = ["LinearFit", "fit_uls", "edges", "surrogate_risk"]

_EPS = np.finfo(float).eps


@dataclass
class LinearFit:
    """The outcome of a linear ULS fit (arrays only, no statistics)."""

    coef: np.ndarray            # one per design column, NaN where aliased
    aliased: np.ndarray         # bool, one per design column
    eta: np.ndarray             # link values H(x_i) at the solution
    iterations: int
    converged: bool
    max_edge: float             # largest |normalised edge| at the solution
    solver: str
    risk_path: np.ndarray       # surrogate risk before each iteration, and at the end
    edge_path: np.ndarray       # largest |edge| before each iteration, and at the end
    column_path: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    stalled: bool = False       # the line search could not decrease the risk


def surrogate_risk(family: Family, y, eta, w, wsum) -> float:
    """Weighted mean surrogate risk ε_φ = Σ wᵢ F_φ(y*ᵢ ηᵢ) / Σ wᵢ (eq. 30).

    For a permissible family F_φ = loss / b_φ; for the exponential loss F = ψ.
    """
    b = getattr(family, "b", 1.0) if family.is_permissible else 1.0
    return float(w @ family.loss(y, eta)) / wsum / b


def edges(family: Family, X, y, eta, w, wsum, col_scale) -> np.ndarray:
    """Normalised edges of the design columns under the current weights.

    edge_t = Σᵢ ωᵢ y*ᵢ h_t(xᵢ) with ωᵢ = −ψ'(y*ᵢηᵢ) (docs/math.md §4), i.e. minus the
    gradient of the risk in β_t, divided by Σ wᵢ · max|h_t| so it lies in
    [−1, 1] for ±1-valued features.
    """
    g = family.gradient(y, eta)
    return -(X.T @ (w * g)) / (wsum * col_scale)


def _column_scale(X):
    s = column_absmax(X)
    return np.where(s > 0, s, 1.0)


def fit_uls(X: np.ndarray, y: np.ndarray, w: np.ndarray, family: Family, *,
            solver: str = "corrective", tol: float = 1e-10, maxiter: int | None = None,
            offset: np.ndarray | None = None, aliased: np.ndarray | None = None) -> LinearFit:
    """Minimise Σ wᵢ ℓ(yᵢ, xᵢᵀβ) by ULS (Algorithm 1 of paper 000).

    Parameters
    ----------
    X : (n, p) array
        Design matrix; its columns are the features h_t.
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
        earlier ones (see :func:`aliased_columns`).
    """
    if solver not in ("corrective", "coordinate"):
        raise ValueError(f"solver must be 'corrective' or 'coordinate', got {solver!r}")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, p = X.shape
    offset = np.zeros(n) if offset is None else np.asarray(offset, dtype=np.float64)
    gram = None
    if aliased is None:
        # XᵀWX (XᵀX for unit weights: no scaling pass); reused below as the
        # first Hessian when the curvature at the start is one constant
        gram = blocked_products(X, [None if bool(np.all(w == 1.0)) else w])[0][0]
        aliased = aliased_columns(gram)
    keep = ~aliased
    Xk = X if keep.all() else X[:, keep]
    if gram is not None and not keep.all():
        gram = gram[np.ix_(keep, keep)]
    scale = _column_scale(Xk)
    if solver == "corrective":
        run = _corrective(Xk, y, w, family, tol, 100 if maxiter is None else maxiter, offset,
                          scale, gram)
    else:
        run = _coordinate(Xk, y, w, family, tol, 100_000 if maxiter is None else maxiter, offset)
    beta_k, eta, iterations, converged, risk_path, edge_path, column_path, stalled = run
    coef = np.full(p, np.nan)
    coef[keep] = beta_k
    wsum = float(w.sum())
    final_edges = edges(family, Xk, y, eta, w, wsum, scale)
    return LinearFit(coef=coef, aliased=aliased.copy(), eta=eta, iterations=iterations,
                     converged=converged, max_edge=float(np.max(np.abs(final_edges), initial=0.0)),
                     solver=solver, risk_path=np.asarray(risk_path),
                     edge_path=np.asarray(edge_path), column_path=np.asarray(column_path, dtype=int),
                     stalled=stalled)


def _accept(risk_new, risk_old, decrease):
    # Armijo, relaxed by a few ulps so a step that cannot change the risk at
    # machine precision (near the optimum) is not mistaken for a failure
    return risk_new <= risk_old - 1e-4 * decrease + 8 * _EPS * abs(risk_old)


def _corrective(X, y, w, family, tol, maxiter, offset, scale=None, gram=None):
    """Totally corrective ULS: safeguarded Newton steps on all coefficients.

    Per iteration: the gradient Xᵀ(w·g) (one matrix-vector pass), the
    Hessian Xᵀdiag(w·h)X by blocks of rows (:func:`blocked_products`, one
    pass, no scaled copy of X), the step Xδ (one matrix-vector pass); the
    line search works on η alone.  ``gram`` = XᵀWX, when the caller has it,
    is the first Hessian times the curvature at the start if that curvature
    is one constant (η = 0 for every permissible family).
    """
    n, p = X.shape
    wsum = float(w.sum())
    if scale is None:
        scale = _column_scale(X)
    beta = np.zeros(p)
    eta = offset.copy()
    risk = surrogate_risk(family, y, eta, w, wsum)
    risk_path, edge_path = [], []
    converged = stalled = False
    iterations = 0
    b = getattr(family, "b", 1.0) if family.is_permissible else 1.0
    buffer = np.empty((min(n, BLOCK_ROWS), p))
    while True:
        grad = X.T @ (w * family.gradient(y, eta))
        max_edge = float(np.max(np.abs(grad / (wsum * scale)), initial=0.0))
        risk_path.append(risk)
        edge_path.append(max_edge)
        if max_edge <= tol:
            converged = True
            break
        if iterations >= maxiter:
            break
        h = family.hessian(y, eta)
        if iterations == 0 and gram is not None and h.size and np.all(h == h[0]):
            hess = h[0] * gram
        else:
            hess = blocked_products(X, [w * h], buffer=buffer)[0][0]
        step = solve_spd(hess, grad)
        deta = X @ step
        decrease = float(grad @ step) / wsum / b
        t = 1.0
        while True:
            eta_new = eta - t * deta
            risk_new = surrogate_risk(family, y, eta_new, w, wsum)
            if np.isfinite(risk_new) and _accept(risk_new, risk, t * decrease):
                break
            t *= 0.5
            if t < 1e-12:
                break
        iterations += 1
        if t < 1e-12:
            stalled = True
            break
        beta -= t * step
        eta = eta_new
        risk = risk_new
    eta = offset + X @ beta
    return beta, eta, iterations, converged, risk_path, edge_path, [], stalled


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
    b = getattr(family, "b", 1.0) if family.is_permissible else 1.0
    for _ in range(maxit):
        cur = eta + delta * zj
        d1 = float(zj @ (w * family.gradient(y, cur)))
        if abs(d1) / (wsum * zscale) <= tol:
            break
        d2 = float((zj * zj) @ (w * family.hessian(y, cur)))
        step = d1 / d2 if d2 > 0 else np.sign(d1)
        t = 1.0
        while True:
            new_risk = surrogate_risk(family, y, eta + (delta - t * step) * zj, w, wsum)
            if np.isfinite(new_risk) and _accept(new_risk, risk, t * d1 * step / wsum / b):
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
