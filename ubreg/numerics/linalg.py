"""Small dense linear algebra shared by the linear fitters."""
from __future__ import annotations

import numpy as np
from scipy import linalg

from .factor_matrix import column_min_max, row_blocks

__all__ = ["weighted_gram", "weighted_grams", "blocked_products", "column_absmax",
           "solve_spd", "inverse_spd", "BLOCK_ROWS"]

#: rows per block of :func:`blocked_products`: a block of a 34-column design
#: is 2 MB, so it stays in cache between its scaling and its rank-k update,
#: and the scaled copy never costs a pass over memory (or the page faults of a
#: fresh n × p array)
BLOCK_ROWS = 8192


def blocked_products(X: np.ndarray, weights=(), vector=None, *, block_rows: int = BLOCK_ROWS,
                     buffer: np.ndarray | None = None):
    """Xᵀ diag(h) X for every h in ``weights`` and Xᵀv, in one pass over X.

    The rows are taken in blocks of ``block_rows``; each block is scaled by
    √h into a reused buffer and added by a symmetric rank-k update (numpy's
    ``B.T @ B`` is BLAS syrk), so no scaled copy of the whole X is made.

    Parameters
    ----------
    X : (n, p) array (C order reads fastest), or a
        :class:`~ubreg.numerics.factor_matrix.FactorMatrix` (its rows written
        a block at a time into a buffer)
    weights : sequence of (n,) arrays h ≥ 0, or ``None`` for h = 1
    vector : (n,) array, optional
    buffer : (≥ min(n, block_rows), p) float array, optional
        Scratch space for the scaled block (allocated if not given).

    Returns
    -------
    (grams, xtv) : list of (p, p) arrays, and the (p,) array Xᵀv (``None``
    without ``vector``).
    """
    n, p = X.shape
    roots = [None if h is None else np.sqrt(h) for h in weights]
    grams = [np.zeros((p, p)) for _ in roots]
    xtv = None if vector is None else np.zeros(p)
    if n == 0:
        return grams, xtv
    if buffer is None and any(r is not None for r in roots):
        buffer = np.empty((min(n, block_rows), p))
    for start, stop, block in row_blocks(X, block_rows):
        if xtv is not None:
            xtv += block.T @ vector[start:stop]
        for gram, root in zip(grams, roots):
            if root is None:
                gram += block.T @ block
            else:
                assert buffer is not None       # allocated above when a root is set
                scaled = buffer[:stop - start]
                np.multiply(block, root[start:stop, None], out=scaled)
                gram += scaled.T @ scaled
    return grams, xtv


def weighted_gram(X: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Xᵀ diag(h) X for h ≥ 0 (``h=None``: XᵀX), by blocks of rows
    (:func:`blocked_products`)."""
    return blocked_products(X, [h])[0][0]


def weighted_grams(X: np.ndarray, weights) -> list[np.ndarray]:
    """[Xᵀ diag(h) X for h in weights] in one pass over X; a weight vector
    equal to an earlier one (the same values) reuses its matrix."""
    distinct: list = []
    where = []
    for h in weights:
        for k, seen in enumerate(distinct):
            if h is seen or (h is not None and seen is not None and np.array_equal(h, seen)):
                where.append(k)
                break
        else:
            where.append(len(distinct))
            distinct.append(h)
    grams = blocked_products(X, distinct)[0]
    return [grams[k] if where.index(k) == i else grams[k].copy() for i, k in enumerate(where)]


def column_absmax(X) -> np.ndarray:
    """max |x_j| per column, without an |X| temporary."""
    if X.shape[0] == 0:
        return np.zeros(X.shape[1])
    lo, hi = column_min_max(X)
    return np.maximum(hi, -lo)


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
