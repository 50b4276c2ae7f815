"""Histogram binning of design columns for vectorised split search.

Every weak learner of ubreg (sign stumps, monomial rules, trees, regression
stumps) searches thresholds on binned columns: each column is cut into at most
``max_bins`` bins (quantile cuts; when a column has at most ``max_bins``
distinct values, the cuts are the midpoints between consecutive values, so the
search is exact).  A split "x_j > c" is then "bin code > k".

Histograms of per-row statistics over all (column, bin) pairs are one sparse
matrix product ``onehot.T @ stats`` for stumps and rules — no Python loop over
rows or columns — and compiled kernels for trees (:mod:`ubreg.trees.histograms`).

Missing values (NaN, HistGradientBoosting's rule): the cuts come from a column's
values; its NaN rows get a bin of their own after the last, so "code > k" sends
them right of every split (the last candidate, k = number of value bins − 1, is
the split "missing or not").  The column is also binned a second time, appended
after the design's columns (``source`` names its design column), with the NaN
bin first: there "code > k" sends them left.  Every split search of the trees
and stumps, which scores every candidate of every binned column, thus tries
both directions with no change to its kernels, and the columns without NaN are
binned as before (the same codes, the same fits).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

__all__ = ["BinnedDesign", "bin_design", "column_cuts", "mirrors"]


def _column_cuts(x: np.ndarray, max_bins: int, xs: np.ndarray | None = None) -> np.ndarray:
    """Cut points of one column: bin b holds cuts[b−1] < x ≤ cuts[b].

    ``xs`` is ``x`` sorted, when the caller has it.
    """
    xs = np.sort(x) if xs is None else xs
    if xs.size == 0:
        return np.zeros(0)
    new = np.empty(xs.size, dtype=bool)
    new[0] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    values = xs[new]                            # np.unique(x)
    if values.size <= 1:
        return np.zeros(0)
    if values.size <= max_bins:
        return 0.5 * (values[:-1] + values[1:])
    # quantile cuts, snapped to midpoints between distinct values so that no
    # training value sits on a cut; xs[⌊(n − 1) q⌋] is np.quantile(x, q,
    # method="lower")
    q = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    lower = xs[np.floor((xs.size - 1) * q).astype(np.intp)]
    pos = np.unique(np.searchsorted(values, lower, side="left"))
    pos = pos[pos < values.size - 1]
    return 0.5 * (values[pos] + values[pos + 1])


def column_cuts(x: np.ndarray, max_bins: int) -> np.ndarray:
    """The cut points :func:`bin_design` gives a column ``x`` (its rows of positive
    weight): bin b holds cuts[b−1] < x ≤ cuts[b]; at most ``max_bins`` bins,
    midpoints between consecutive distinct values when there are at most
    ``max_bins`` of them, else quantile cuts snapped to such midpoints."""
    return _column_cuts(np.asarray(x, dtype=np.float64), int(max_bins))


@dataclass
class BinnedDesign:
    """A design matrix cut into bins.

    Attributes
    ----------
    codes : (d, n) int array
        Bin code of each row in each column (row-major by column for speed).
    cuts : list of arrays
        Cut points of each column; code > k ⇔ x > cuts[k].
    nbins : (d,) int array
    offsets : (d + 1,) int array
        Start of each column's bins in the flat (column, bin) index.
    float32 : bool
        Whether :attr:`onehot` (the histograms of stumps and rules) sums in
        single precision.
    source : (d_binned,) int array or None
        The design column of each binned column (None: the identity, no NaN):
        columns with NaN are binned twice, the second copy appended.
    nan_left : (d_binned,) bool array or None
        Whether a split on the binned column sends the NaN rows left (its NaN
        bin is the first) rather than right (last).
    has_nan : (d,) bool array or None
        The design columns with NaN in the rows binned.
    onehot : sparse (n, total_bins) CSR, built on first use
        Row i has a 1 in the flat bin of each of its d values.  Histograms of
        stumps and rules are ``onehot.T @ stats`` (a CSC mat-vec, no transpose
        is formed).  Stored in float32 for large n: sums of per-row statistics
        are only used to rank splits (HistGradientBoosting does the same); leaf
        values and leveraging coefficients are computed in float64 from the
        rows.  Trees do not use it (:mod:`ubreg.trees.histograms` sums in float64).
    """

    codes: np.ndarray
    cuts: list
    nbins: np.ndarray
    offsets: np.ndarray
    float32: bool = False
    source: np.ndarray | None = None
    nan_left: np.ndarray | None = None
    has_nan: np.ndarray | None = None

    @cached_property
    def onehot(self) -> sp.csr_matrix:
        return _onehot(self.codes, self.offsets, np.float32 if self.float32 else np.float64)

    @property
    def n(self) -> int:
        return self.codes.shape[1]

    @property
    def d(self) -> int:
        return self.codes.shape[0]

    @property
    def total_bins(self) -> int:
        return int(self.offsets[-1])

    def histogram(self, stats: np.ndarray) -> np.ndarray:
        """Σ over rows of ``stats`` (n,) or (n, k), per flat (column, bin)."""
        dt = self.onehot.dtype
        # onehot.T is a CSC view: its multi-vector product costs little more
        # per extra column than a mat-vec (the CSR one does not)
        return np.asarray(self.onehot.T @ stats.astype(dt, copy=False), dtype=np.float64)

    def candidates(self):
        """Flat indices of the valid splits "code > k", with column and k.

        The last bin of a column is not a split (nothing would go right).
        Computed once (read-only arrays).
        """
        return self._candidates

    @cached_property
    def _candidates(self):
        flat = np.arange(self.total_bins)
        col = np.repeat(np.arange(self.d), self.nbins)
        k = flat - self.offsets[col]
        valid = k < self.nbins[col] - 1
        out = flat[valid], col[valid], k[valid]
        for a in out:
            a.flags.writeable = False
        return out

    def cut_value(self, col: int, k: int) -> float:
        return float(self.cuts[col][k])

    def subset(self, rows: np.ndarray) -> BinnedDesign:
        """The same bins restricted to some rows (for cross-validation)."""
        return BinnedDesign(self.codes[:, rows], self.cuts, self.nbins, self.offsets,
                            self.float32, self.source, self.nan_left, self.has_nan)

    def design_split(self, col: int, k: int) -> tuple[int, float, bool]:
        """The split "code of binned column ``col`` > k" on the design's values:
        (design column, cut, whether its NaN rows go left)."""
        if self.source is None or self.nan_left is None:
            return col, float(self.cuts[col][k]), False
        return int(self.source[col]), float(self.cuts[col][k]), bool(self.nan_left[col])


#: from this many rows on, histograms of stumps and rules are summed in float32
FLOAT32_ROWS = 50_000


def _onehot(codes: np.ndarray, offsets: np.ndarray, dtype) -> sp.csr_matrix:
    d, n = codes.shape
    # row i holds its d flat bins, already sorted because offsets increase
    indices = (codes.T.astype(np.int32) + offsets[:-1].astype(np.int32)).ravel()
    indptr = np.arange(0, n * d + 1, d, dtype=np.int64 if n * d >= 2**31 else np.int32)
    return sp.csr_matrix((np.ones(n * d, dtype=dtype), indices, indptr),
                         shape=(n, int(offsets[-1])))


def _bin_column(X, j, codes, max_bins, keep):
    """The cuts of column j of X, and its codes written to ``codes[j]`` (NaN rows:
    the code after the last bin, their own)."""
    x = np.ascontiguousarray(X[:, j])
    order = np.argsort(x)
    xs = x[order]
    if xs.size and np.isnan(xs[-1]):           # NaN sorts last: one test of no cost
        return _bin_nan_column(x, order, xs, j, codes, max_bins, keep)
    c = _column_cuts(x[keep] if keep is not None else x, max_bins,
                     None if keep is not None else xs)
    # codes = np.searchsorted(c, x, side="left"), from the sort: rows from
    # sorted position p_k on lie above cut k (a binary search per row costs more)
    p = np.searchsorted(xs, c, side="right")
    codes[j, order] = np.repeat(np.arange(c.size + 1, dtype=np.uint16),
                                np.diff(p, prepend=0, append=x.size))
    return c


def _bin_nan_column(x, order, xs, j, codes, max_bins, keep):
    """:func:`_bin_column` of a column with NaN: cuts of its values, then
    ``[inf]`` (the split "missing or not"), the NaN rows coded after the last bin."""
    m = int(np.searchsorted(xs, np.nan))       # the values, sorted, before the NaN
    values = x[keep & ~np.isnan(x)] if keep is not None else None
    c = _column_cuts(values if values is not None else xs[:m], max_bins,
                     None if values is not None else xs[:m])
    p = np.searchsorted(xs[:m], c, side="right")
    codes[j, order[:m]] = np.repeat(np.arange(c.size + 1, dtype=np.uint16),
                                    np.diff(p, prepend=0, append=m))
    codes[j, order[m:]] = c.size + 1
    return np.append(c, np.inf)


def mirrors(codes: np.ndarray, cuts: list, nan_cols: np.ndarray):
    """The columns ``nan_cols`` (their cuts end in ``inf``, their NaN code after the
    last bin) binned again with the NaN bin first (codes + 1, NaN 0; cuts ``[-inf]`` +
    the values' cuts), appended to ``codes`` and ``cuts``: (codes, cuts, ``source``,
    ``nan_left``) of :class:`BinnedDesign`.  ``codes`` may have no rows (the cuts of a
    Dask fit) and any unsigned dtype (the codes only grow up to the NaN code)."""
    extra = codes[nan_cols].copy()
    for i, j in enumerate(nan_cols):
        nan_code = cuts[j].size                 # the values' bins, then the NaN bin
        row = extra[i]
        nan = row == nan_code
        row += 1
        row[nan] = 0
    cuts = cuts + [np.concatenate([[-np.inf], cuts[j][:-1]]) for j in nan_cols]
    source = np.concatenate([np.arange(len(cuts) - nan_cols.size), nan_cols])
    nan_left = np.arange(source.size) >= source.size - nan_cols.size
    return np.concatenate([codes, extra]), cuts, source, nan_left


#: rows × columns worth binning the columns in threads (NumPy's sorts release the GIL)
_THREAD_CELLS = 1_000_000


def _bin_columns(X, codes, max_bins, keep) -> list:
    """The cuts of every column of X (codes written to ``codes``); on large designs
    the columns in threads, each column's numbers those of the serial loop."""
    from ..numerics.threads import run_parts, workers
    n, d = X.shape
    parts = min(workers(), d) if n * d >= _THREAD_CELLS else 1
    groups = [range(d * i // parts, d * (i + 1) // parts) for i in range(parts)]
    done = run_parts(lambda js: [_bin_column(X, j, codes, max_bins, keep) for j in js],
                     [g for g in groups if len(g)])
    return [c for part in done for c in part]


def bin_design(X: np.ndarray, max_bins: int = 255, float32: bool | None = None,
               weights: np.ndarray | None = None) -> BinnedDesign:
    """Bin every column of ``X`` (n, d) into at most ``max_bins`` bins.

    Constant columns (e.g. the intercept) get one bin and no split.  With
    ``weights``, cuts come from the rows of positive weight only, so a row of
    weight 0 is exactly a removed row.
    ``float32`` (default: n ≥ :data:`FLOAT32_ROWS`) sums the histograms of
    stumps and rules in single precision, about twice as fast.
    Cuts and codes come from one argsort per column.
    """
    if not 2 <= int(max_bins) <= 65535:
        raise ValueError(f"max_bins must be in [2, 65535], got {max_bins!r}")
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    keep = None if weights is None else np.asarray(weights) > 0
    if keep is not None and keep.all():
        keep = None
    codes = np.empty((d, n), dtype=np.uint16)
    cuts = _bin_columns(X, codes, int(max_bins), keep)
    has_nan = np.array([c.size > 0 and c[-1] == np.inf for c in cuts], dtype=bool)
    source = nan_left = None
    if has_nan.any():
        nan_cols = np.flatnonzero(has_nan)
        codes, cuts, source, nan_left = mirrors(codes, cuts, nan_cols)
    nbins = np.array([c.size + 1 for c in cuts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(nbins)])
    if nbins.max(initial=1) <= 256:
        codes = codes.astype(np.uint8)
    if float32 is None:
        float32 = n >= FLOAT32_ROWS
    return BinnedDesign(codes, cuts, nbins, offsets, bool(float32), source, nan_left,
                        has_nan if source is not None else None)
