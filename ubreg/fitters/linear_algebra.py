"""Small dense linear algebra shared by the linear fitters."""
from __future__ import annotations

import numpy as np
from scipy import linalg

__all__ = ["weighted_gram", "aliased_columns", "solve_spd", "inverse_spd"]


def weighted_gram(X: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Xᵀ diag(h) X for h ≥ 0, through one symmetric rank-k BLAS call."""
    Xs = X * np.sqrt(h)[:, None]
    return Xs.T @ Xs


def aliased_columns(gram: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Columns that are linear combinations of earlier ones (R's 'aliased').

    A Cholesky factorisation of the scaled Gram matrix, in column order, that
    skips every pivot whose Schur complement falls below ``tol`` relative to
    the column's own norm.  Later columns are the aliased ones, as in R's
    pivoting QR.
    """
    p = gram.shape[0]
    d = np.sqrt(np.clip(np.diag(gram), 0.0, None))
    aliased = d == 0.0
    scale = np.where(aliased, 1.0, d)
    G = gram / np.outer(scale, scale)
    L = np.zeros_like(G)
    kept: list[int] = []
    for j in range(p):
        if aliased[j]:
            continue
        if kept:
            lj = linalg.solve_triangular(L[np.ix_(kept, kept)], G[kept, j], lower=True)
            schur = G[j, j] - lj @ lj
        else:
            lj = np.zeros(0)
            schur = G[j, j]
        if schur <= tol:
            aliased[j] = True
            continue
        L[kept, j] = 0.0
        L[j, kept] = lj
        L[j, j] = np.sqrt(schur)
        kept.append(j)
    return aliased


def solve_spd(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A x = b for symmetric positive (semi)definite A.

    Cholesky first; if A is numerically singular, a tiny ridge relative to
    its diagonal (the safeguard of a Levenberg step).
    """
    ridge = 0.0
    scale = max(float(np.max(np.abs(np.diag(A)))), np.finfo(float).tiny)
    for _ in range(8):
        try:
            c = linalg.cho_factor(A + ridge * scale * np.eye(A.shape[0]), check_finite=False)
            return linalg.cho_solve(c, b, check_finite=False)
        except linalg.LinAlgError:
            ridge = 1e-12 if ridge == 0.0 else ridge * 100.0
    return np.linalg.lstsq(A, b, rcond=None)[0]


def inverse_spd(A: np.ndarray) -> np.ndarray:
    """A⁻¹ for symmetric positive definite A (pseudo-inverse if singular)."""
    try:
        c = linalg.cho_factor(A, check_finite=False)
        inv = linalg.cho_solve(c, np.eye(A.shape[0]), check_finite=False)
        return (inv + inv.T) / 2.0
    except linalg.LinAlgError:
        return np.linalg.pinv(A, hermitian=True)
