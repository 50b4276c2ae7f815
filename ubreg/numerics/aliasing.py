"""Aliased (linearly dependent) design columns, judged as R judges them, scale-free.

R's ``lm.fit``/``glm.fit`` find aliased columns with LINPACK's dqrdc2: a
Householder QR that takes the columns in order and moves to the end every
column whose part orthogonal to the columns kept before it is below ``tol``
of its own norm (``lm.fit``: tol = 1e-7); those columns are reported as NA.
ubreg applies that rule to the weighted columns *after the intercept is
projected out* (each column centred at its weighted mean when the design has
an intercept) and scaled to unit norm, so that neither a shift (a POSIX
timestamp ~1.7e9, a weight + 3e5) nor a change of units changes the
decision.  (R applies it to the raw weighted columns, with
tol = min(1e-7, epsilon/1000) in ``glm.fit``; a column far from zero is
therefore kept by both, see tests/test_aliasing.py.)

Two routes to the same decision:

* the weighted scatter matrix of the centred columns, accumulated block by
  block with Chan, Golub and LeVeque's pairwise update (no difference of
  large sums is ever formed), and a Cholesky factorisation in column order.
  It costs one BLAS-3 pass over X, and decides alone when every kept column
  keeps at least 1e-8 of its squared norm (no column within 1e-4 of the span
  of the earlier ones): then rounding in the scatter (relative ~1e-13 even
  for 1e6 rows) cannot move the decision across 1e-7;
* otherwise, a Householder QR of the centred weighted rows (TSQR: one block at
  a time, each block's factor merged into the running one), whose column-wise
  backward stability resolves the threshold itself.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .factor_matrix import column_min_max, row_blocks
from .linalg import BLOCK_ROWS

__all__ = ["ALIAS_TOL", "Scatter", "AliasCheck", "alias_check", "aliased_columns",
           "block_scatter", "merge_scatter", "reduce_scatter", "scatter_of", "intercept_column",
           "aliased_from_gram", "aliased_from_r"]

#: R's relative tolerance (``lm.fit``'s ``tol``, passed to dqrdc2)
ALIAS_TOL = 1e-7
#: with an intercept, a column whose centred norm is below this fraction of its norm is
#: constant up to rounding (a spread of a few thousand ulps at most)
_CONSTANT_TOL = 1e-12
#: the scatter route decides alone when every kept column's squared residual (relative
#: to its squared norm) is at least this large
_SURE = 1e-8


@dataclass(frozen=True)
class Scatter:
    """Σwᵢ, weighted column means m, column ranges, and the weighted scatter of a set
    of rows (those of positive weight).

    ``C`` is Σ wᵢ (xᵢ − m)(xᵢ − m)ᵀ when ``centred`` (Σ wᵢ xᵢxᵢᵀ otherwise);
    ``R`` (QR route) is any matrix with RᵀR equal to it, from Householder QR.
    Exactly one of the two is set.
    """

    wsum: float
    mean: np.ndarray
    centred: bool
    lo: np.ndarray
    hi: np.ndarray
    C: np.ndarray | None = None
    R: np.ndarray | None = None

    @property
    def gram(self) -> np.ndarray:
        if self.C is not None:
            return self.C
        assert self.R is not None           # exactly one of C and R is set
        return self.R.T @ self.R

    @property
    def norms(self) -> np.ndarray:
        """√(Σ wᵢ (x_ij − m_j)²) (centred) or √(Σ wᵢ x_ij²), per column."""
        if self.R is not None:
            return np.sqrt(np.einsum("ij,ij->j", self.R, self.R))
        assert self.C is not None           # exactly one of C and R is set
        return np.sqrt(np.clip(np.diag(self.C), 0.0, None))


def _qr_r(rows: np.ndarray) -> np.ndarray:
    if rows.shape[0] <= rows.shape[1]:
        return rows
    # numpy's stub types every qr() as a QRResult; mode="r" returns R alone
    return np.linalg.qr(rows, mode="r")  # type: ignore[return-value]


def block_scatter(X: np.ndarray, w: np.ndarray | None, centred: bool,
                  qr: bool = False) -> Scatter | None:
    """The :class:`Scatter` of one block of rows (rows of zero weight left out;
    ``None`` when none is left).  With ``qr`` the factor is the centred
    weighted rows themselves (reduced when merged, :func:`reduce_scatter`)."""
    if w is not None:
        pos = w > 0
        if not pos.all():
            X, w = X[pos], w[pos]
    if X.shape[0] == 0:
        return None
    wsum = float(X.shape[0] if w is None else w.sum())
    mean = (X.sum(axis=0) if w is None else w @ X) / wsum
    Z = (X - mean) if centred else X.copy()
    if w is not None:
        Z *= np.sqrt(w)[:, None]
    lo, hi = X.min(axis=0), X.max(axis=0)
    if qr:
        return Scatter(wsum, mean, centred, lo, hi, R=Z)
    return Scatter(wsum, mean, centred, lo, hi, C=Z.T @ Z)


def merge_scatter(a: Scatter | None, b: Scatter | None) -> Scatter | None:
    """The scatter of the union of two sets of rows (``None``: the empty set).

    Centred, about the joint mean it is C_a + C_b + (W_a W_b/W)(m_a − m_b)(m_a − m_b)ᵀ
    (Chan, Golub and LeVeque); a QR factor is the R of [R_a; R_b; √(W_a W_b/W)(m_a − m_b)ᵀ].
    """
    if a is None:
        return b
    if b is None:
        return a
    wsum = a.wsum + b.wsum
    delta = b.mean - a.mean
    mean = a.mean + (b.wsum / wsum) * delta
    f = np.sqrt(a.wsum * b.wsum / wsum) * delta if a.centred else None
    lo, hi = np.minimum(a.lo, b.lo), np.maximum(a.hi, b.hi)
    if a.R is not None:
        rows = [a.R, b.R] + ([] if f is None else [f[None, :]])
        return Scatter(wsum, mean, a.centred, lo, hi, R=_qr_r(np.vstack(rows)))
    assert a.C is not None and b.C is not None     # both scatter-route (not QR)
    C = a.C + b.C + (0.0 if f is None else np.outer(f, f))
    return Scatter(wsum, mean, a.centred, lo, hi, C=C)


def reduce_scatter(s: Scatter | None) -> Scatter | None:
    """The same scatter with a QR factor of at most p rows."""
    if s is None or s.R is None or s.R.shape[0] <= s.R.shape[1]:
        return s
    return Scatter(s.wsum, s.mean, s.centred, s.lo, s.hi, R=_qr_r(s.R))


def scatter_of(X: np.ndarray, w: np.ndarray | None, *, centred: bool, qr: bool = False,
               block_rows: int = BLOCK_ROWS) -> Scatter | None:
    """:class:`Scatter` of the rows of X (an array or a
    :class:`~ubreg.numerics.factor_matrix.FactorMatrix`), by blocks of
    ``block_rows`` (no copy of X)."""
    if w is not None and bool(np.all(w == 1.0)):
        w = None
    out = None
    for start, stop, rows in row_blocks(X, block_rows):
        block = block_scatter(rows, None if w is None else w[start:stop], centred, qr)
        out = merge_scatter(out, block)
    return reduce_scatter(out)


def intercept_column(X) -> int | None:
    """The first column that is one non-zero constant (the intercept), or ``None``."""
    if X.shape[0] == 0:
        return None
    lo, hi = column_min_max(X)
    const = np.flatnonzero((lo == hi) & (lo != 0))
    return int(const[0]) if const.size else None


def _constant(s: Scatter, intercept: int | None) -> np.ndarray:
    """Columns aliased with the intercept (constant on the weighted rows, exactly or
    to within rounding of their size), or zero columns without an intercept."""
    norms = s.norms
    if intercept is None:
        return ~(norms > 0)
    raw = np.sqrt(norms ** 2 + s.wsum * s.mean ** 2)
    out = (s.lo == s.hi) | ~(norms > _CONSTANT_TOL * raw)
    out[intercept] = False
    return out


def aliased_from_gram(s: Scatter, intercept: int | None,
                      tol: float = ALIAS_TOL) -> tuple[np.ndarray, bool]:
    """R's rule from the scatter matrix: (aliased, sure).

    A Cholesky factorisation of the unit-diagonal scatter in column order; a
    column's Schur complement is its squared residual ratio.  ``sure`` is
    False when some non-constant column comes within 1e-4 of the span of the
    columns before it (squared ratio below 1e-8): rounding could then decide,
    and the QR route must (:func:`alias_check`).
    """
    aliased = _constant(s, intercept)
    norms = s.norms
    mask = ~aliased
    if intercept is not None:
        mask[intercept] = False
    live = np.flatnonzero(mask)
    if live.size == 0:
        return aliased, True
    G = s.gram[np.ix_(live, live)] / np.outer(norms[live], norms[live])
    L = np.zeros_like(G)
    kept: list[int] = []
    for k in range(len(live)):
        lk = (linalg.solve_triangular(L[np.ix_(kept, kept)], G[kept, k], lower=True)
              if kept else np.zeros(0))
        schur = G[k, k] - lk @ lk
        if not schur >= _SURE:
            return aliased, False
        L[k, kept] = lk
        L[k, k] = np.sqrt(schur)
        kept.append(k)
    return aliased, True


def aliased_from_r(s: Scatter, intercept: int | None, tol: float = ALIAS_TOL) -> np.ndarray:
    """R's rule from a QR factor: Gram–Schmidt (twice) on the unit-norm columns of R,
    in order; a column whose residual is below ``tol`` is aliased."""
    aliased = _constant(s, intercept)
    norms = s.norms
    R = s.R
    assert R is not None                    # a QR-route scatter
    basis = np.zeros((R.shape[0], 0))
    for j in range(R.shape[1]):
        if j == intercept or aliased[j]:
            continue
        v = R[:, j] / norms[j]
        for _ in range(2):
            v = v - basis @ (basis.T @ v)
        size = float(np.linalg.norm(v))
        if size < tol:
            aliased[j] = True
        else:
            basis = np.column_stack([basis, v / size])
    return aliased


@dataclass(frozen=True)
class AliasCheck:
    """The outcome of :func:`alias_check`: the aliased columns, the intercept
    column, and the (scatter-route) :class:`Scatter` of the weighted rows."""

    aliased: np.ndarray
    intercept: int | None
    scatter: Scatter


def alias_check(X: np.ndarray, w: np.ndarray | None, intercept="auto",
                tol: float = ALIAS_TOL) -> AliasCheck:
    """Aliased columns of X under weights w, by R's rule on the centred and scaled
    columns (module docstring).

    Parameters
    ----------
    X : (n, p) array
    w : (n,) array of weights ≥ 0, or None
    intercept : int, None or "auto"
        The intercept column, ``None`` for none, or ``"auto"``: the first
        non-zero constant column.  With one, the other columns are centred.
    tol : float
        R's relative tolerance.
    """
    if isinstance(intercept, str):
        intercept = intercept_column(X)
    centred = intercept is not None
    scatter = scatter_of(X, w, centred=centred)
    if scatter is None:
        raise ValueError("every weight is zero: no rows to fit")
    aliased, sure = aliased_from_gram(scatter, intercept, tol)
    if not sure:
        factor = scatter_of(X, w, centred=centred, qr=True)
        assert factor is not None           # the same rows, with weight (checked above)
        aliased = aliased_from_r(factor, intercept, tol)
    return AliasCheck(aliased, intercept, scatter)


def aliased_columns(X: np.ndarray, w: np.ndarray | None = None, tol: float = ALIAS_TOL,
                    intercept="auto") -> np.ndarray:
    """Columns that are linear combinations of earlier ones (R's 'aliased'): the
    boolean array of :func:`alias_check`."""
    return alias_check(X, w, intercept, tol).aliased
