"""A design matrix that stores its factor columns as codes.

The columns a factor's main effect contributes to a design (R's contrasts of a
categorical variable: treatment coding gives the L − 1 dummies of its levels)
are the rows of a small table — the factor's contrast matrix, L × c — picked
by each row's level code.  :class:`FactorMatrix` keeps those columns as the
codes (one byte a row for up to 127 levels) and the table, and every other
column dense: at 10^6 rows two factors of 5 and 10 levels take 2 MB instead of
the 104 MB of their 13 float64 columns, and a factor of 1000 levels 2 MB (and
its 8 MB contrast matrix) instead of 8 GB.  This is the "split matrix" of
glum's tabmat, restricted to what ubreg's linear fitter needs.

The fitter reads a design through the functions below, which take either a
plain ``ndarray`` (unchanged: the same numpy calls as before) or a
:class:`FactorMatrix`:

* :func:`matvec` (Xb) and :func:`rmatvec` (Xᵀv): dense part by BLAS, each
  factor by a lookup (``(C b)[codes]``) or a ``np.bincount`` of v by code;
* :func:`row_blocks`: the rows a block at a time, a factor matrix's written
  into a reused buffer (Gram matrices, scatters, hat values: every pass that
  needs whole rows), so no n × p array is ever formed;
* :func:`column_min_max`, :func:`take_columns` (a subset of columns, shifted
  by constants: the fitter's working design), :func:`column`.

``np.asarray(factor_matrix)`` gives the dense n × p matrix (what
``LinearResult.model_matrix`` returns); sums over rows are the same numbers up
to the rounding of a different order of addition.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = ["FactorMatrix", "FactorBlock", "matvec", "rmatvec", "row_blocks", "column_min_max",
           "take_columns", "column", "value", "is_factor_matrix"]

#: rows a block of :func:`row_blocks` (as ``numerics.linalg.BLOCK_ROWS``)
_BLOCK_ROWS = 8192


@dataclass(frozen=True)
class FactorBlock:
    """One factor's columns: ``table[codes]`` written to the design columns ``cols``
    (``table``: L × len(cols) float64; ``codes``: (n,) integers in 0..L − 1)."""

    codes: np.ndarray
    table: np.ndarray
    cols: np.ndarray

    @property
    def contiguous(self) -> bool:
        """The columns are consecutive, in order."""
        return bool(self.cols.size) and bool(np.all(np.diff(self.cols) == 1))


class FactorMatrix:
    """An n × p matrix: dense columns ``dense`` (n, q) at the positions
    ``dense_cols``, and the columns of each :class:`FactorBlock`.

    Never changed once made: :func:`take_columns` returns a new one that
    shares the arrays.
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, n: int, p: int, dense: np.ndarray, dense_cols: np.ndarray,
                 factors: list[FactorBlock]):
        self.n, self.p = int(n), int(p)
        self.dense = dense
        self.dense_cols = np.asarray(dense_cols, dtype=np.intp)
        self.factors = list(factors)
        # the dense columns as runs of consecutive design columns: a block's rows are
        # written by slices (a fancy column index writes element by element)
        self._runs = _runs(self.dense_cols)
        # each factor's columns as a slice when consecutive (as patsy lays them out)
        self._factor_cols = [slice(int(f.cols[0]), int(f.cols[-1]) + 1) if f.contiguous
                             else f.cols for f in self.factors]
        covered = np.zeros(p, dtype=int)
        covered[self.dense_cols] += 1
        for f in self.factors:
            covered[f.cols] += 1
        if not (covered == 1).all() or dense.shape != (self.n, self.dense_cols.size):
            raise ValueError("the dense and factor columns must cover each column once")

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.p)

    def __len__(self) -> int:
        return self.n

    @property
    def nbytes(self) -> int:
        return int(self.dense.nbytes + sum(f.codes.nbytes + f.table.nbytes
                                           for f in self.factors))

    def rows(self, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``start:stop`` as a dense (stop − start, p) array (into ``out``'s first
        rows when given)."""
        m = stop - start
        block = np.empty((m, self.p)) if out is None else out[:m]
        rows = self.dense[start:stop]
        for a, b, k in self._runs:
            block[:, a:b] = rows[:, k:k + b - a]
        for f, where in zip(self.factors, self._factor_cols):
            block[:, where] = np.take(f.table, f.codes[start:stop], axis=0)
        return block

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.rows(0, self.n)
        return out if dtype is None else out.astype(dtype, copy=False)


def _runs(cols: np.ndarray) -> list[tuple[int, int, int]]:
    """(first, last + 1, position in ``cols``) of each run of consecutive values."""
    out: list[tuple[int, int, int]] = []
    for k, c in enumerate(cols.tolist()):
        if out and out[-1][1] == c:
            out[-1] = (out[-1][0], c + 1, out[-1][2])
        else:
            out.append((c, c + 1, k))
    return out


def is_factor_matrix(X) -> bool:
    return isinstance(X, FactorMatrix)


def matvec(X, b: np.ndarray) -> np.ndarray:
    """X b (n,)."""
    if not isinstance(X, FactorMatrix):
        return X @ b
    out = X.dense @ b[X.dense_cols]
    for f in X.factors:
        out += (f.table @ b[f.cols])[f.codes]
    return out


def rmatvec(X, v: np.ndarray) -> np.ndarray:
    """Xᵀ v (p,)."""
    if not isinstance(X, FactorMatrix):
        return X.T @ v
    out = np.empty(X.p)
    out[X.dense_cols] = X.dense.T @ v
    for f in X.factors:
        out[f.cols] = np.bincount(f.codes, weights=v, minlength=f.table.shape[0]) @ f.table
    return out


def row_blocks(X, block_rows: int = _BLOCK_ROWS,
               buffer: np.ndarray | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
    """(start, stop, rows) of X by blocks of ``block_rows``: views of an ndarray,
    a factor matrix's rows written into ``buffer`` (reused: consume each block
    before the next)."""
    n = X.shape[0]
    if isinstance(X, FactorMatrix) and buffer is None:
        buffer = np.empty((min(n, block_rows), X.p))
    for start in range(0, n, block_rows):
        stop = min(start + block_rows, n)
        yield start, stop, (X.rows(start, stop, buffer) if isinstance(X, FactorMatrix)
                            else X[start:stop])


def column_min_max(X) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the smallest and largest value (n ≥ 1)."""
    if not isinstance(X, FactorMatrix):
        return X.min(axis=0), X.max(axis=0)
    lo, hi = np.empty(X.p), np.empty(X.p)
    if X.dense_cols.size:
        lo[X.dense_cols], hi[X.dense_cols] = X.dense.min(axis=0), X.dense.max(axis=0)
    for f in X.factors:
        present = np.flatnonzero(np.bincount(f.codes, minlength=f.table.shape[0]))
        rows = f.table[present]
        lo[f.cols], hi[f.cols] = rows.min(axis=0), rows.max(axis=0)
    return lo, hi


def value(X, i: int, j: int) -> float:
    """X[i, j]."""
    return float(X.rows(i, i + 1)[0, j] if isinstance(X, FactorMatrix) else X[i, j])


def column(X, j: int) -> np.ndarray:
    """Column j (n,), a copy for a factor matrix."""
    if not isinstance(X, FactorMatrix):
        return X[:, j]
    where = np.flatnonzero(X.dense_cols == j)
    if where.size:
        out = X.dense[:, int(where[0])].copy()
    else:
        f, k = next((f, int(np.flatnonzero(f.cols == j)[0])) for f in X.factors if j in f.cols)
        out = f.table[f.codes, k]
    return out


def take_columns(X, keep: np.ndarray | None = None, shift: np.ndarray | None = None):
    """The columns ``keep`` (a bool mask; None: all) of X, each less ``shift[j]``
    (over the kept columns; None: none), as the fitter's working design takes
    them: X itself when nothing changes; else a copy of an ndarray's kept
    columns, or a factor matrix sharing X's codes (its dense part copied only
    when a dense column is dropped or shifted, each value x − s computed as in
    the ndarray)."""
    if not isinstance(X, FactorMatrix):
        Xk = X if keep is None or keep.all() else X[:, keep]
        if shift is None:
            return Xk
        cols = np.flatnonzero(shift != 0)
        Xk = Xk.copy() if Xk is X else Xk
        Xk[:, cols] -= shift[cols]
        return Xk
    keep = np.ones(X.p, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    full_shift = np.zeros(X.p)
    if shift is not None:
        full_shift[keep] = shift
    if keep.all() and not full_shift.any():
        return X
    new_index = np.full(X.p, -1, dtype=np.intp)
    new_index[keep] = np.arange(int(keep.sum()))
    d_keep = keep[X.dense_cols]
    dense = X.dense if d_keep.all() else X.dense[:, d_keep]
    d_shift = full_shift[X.dense_cols[d_keep]]
    if d_shift.any():
        dense = dense.copy() if dense is X.dense else dense
        cols = np.flatnonzero(d_shift)
        dense[:, cols] -= d_shift[cols]
    factors = []
    for f in X.factors:
        k = keep[f.cols]
        if k.any():
            table = f.table[:, k] - full_shift[f.cols[k]]
            factors.append(FactorBlock(f.codes, np.ascontiguousarray(table), new_index[f.cols[k]]))
    return FactorMatrix(X.n, int(keep.sum()), dense, new_index[X.dense_cols[d_keep]], factors)


def scale_columns(X, exponent: np.ndarray):
    """X with column j multiplied by 2^−exponent[j] (exact: a power of two), as a new
    array or a factor matrix sharing X's codes."""
    e = np.asarray(exponent, dtype=np.int64)
    if not isinstance(X, FactorMatrix):
        return np.ldexp(np.asarray(X, dtype=np.float64), -e)
    dense = np.ldexp(X.dense, -e[X.dense_cols])
    factors = [FactorBlock(f.codes, np.ldexp(f.table, -e[f.cols]), f.cols) for f in X.factors]
    return FactorMatrix(X.n, X.p, dense, X.dense_cols, factors)
