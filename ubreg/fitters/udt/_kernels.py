"""Compiled split-gain kernels of the UDT splitter (numba).

numpy evaluates a gain with one pass over memory per operation: the
square-root families (Matsushita / Kearns–Mansour, μ) take seven passes and
two ``np.sqrt`` per cut, against five cheap ones for gini, which made them
about 1.1–1.3× gini's fit time at 10^6 rows.  A kernel here computes the gain
of a cut in one pass, with the operations of the numpy code in the same order
(IEEE ``sqrt``, products and sums are correctly rounded; numba does not
reassociate without ``fastmath``, and no product feeds a sum directly, so no
fused multiply-add can form), so its gains are bit-identical to numpy's.  The entropy kernel
avoids ``log`` altogether: with unit weights every argument of v·ln v is a row count, read
from a table that numpy's own ``_xlogx`` filled (numba's ``log`` differs from
numpy's in the last bit now and then, a lookup does not).

``cache=True`` compiles each kernel once per machine (numba's cache in
``__pycache__``, or ``NUMBA_CACHE_DIR``); ``error_model="numpy"`` keeps
numpy's inf/nan semantics; single-threaded, ``nogil=True``.  The module (and
numba) is imported only by trees large enough to repay numba's start-up,
about 0.4 s of CPU and 100 MB once per process (or once numba is loaded
anyway; see :meth:`ubreg.fitters.udt.criterion.Criterion.kernels`), not by
``import ubreg``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def sqrt_gain_exact(lwy, lw, rwy, rw, out):
    """``out = √((lw − lwy)·lwy) + √((rw − rwy)·rwy)``; unit weights (exact
    integer sums, so no product is negative)."""
    for i in range(out.shape[0]):
        a = lwy[i]
        b = rwy[i]
        out[i] = np.sqrt((lw[i] - a) * a) + np.sqrt((rw[i] - b) * b)


@njit(**_JIT)
def sqrt_gain_clip(lwy, lw, rwy, rw, out):
    """As :func:`sqrt_gain_exact` with each product clipped at 0 first
    (rounding of weighted sums), as ``np.maximum(·, 0)``: NaN stays NaN."""
    for i in range(out.shape[0]):
        a = lwy[i]
        b = rwy[i]
        u = (lw[i] - a) * a
        v = (rw[i] - b) * b
        if u < 0.0:
            u = 0.0
        if v < 0.0:
            v = 0.0
        out[i] = np.sqrt(u) + np.sqrt(v)


@njit(**_JIT)
def entropy_gain_unit(lwy, lw, rwy, rw, wpart, table, out):
    """Entropy gain with unit weights: ``table[k]`` = k·ln k (numpy's value),
    every argument an exact row count below ``table.shape[0]``;
    ``out = xl(lwy) + xl(lw − lwy) + xl(rwy) + xl(rw − rwy) − wpart``,
    summed in that order."""
    for i in range(out.shape[0]):
        a = np.intp(lwy[i])
        b = np.intp(rwy[i])
        na = np.intp(lw[i]) - a
        nb = np.intp(rw[i]) - b
        out[i] = table[a] + table[na] + table[b] + table[nb] - wpart[i]


# ---------------------------------------------------------------------------
# histograms of coded predictors (hist.py's levels; the Dask fits' partitions)
# ---------------------------------------------------------------------------
@njit(**_JIT)
def code_tree_slots(codes, left, right, var, goes_left, slot, out):
    """``out[i] = slot[leaf]``, the leaf of the partial tree that row i (a column
    of ``codes``) reaches: from the root, left where ``goes_left[node, code]``."""
    for i in range(codes.shape[1]):
        nd = 0
        while left[nd] >= 0:
            if goes_left[nd, codes[var[nd], i]]:
                nd = left[nd]
            else:
                nd = right[nd]
        out[i] = slot[nd]


def _pair_sums_kernel(all_rows):
    """:func:`_pair_sums` over rows ``rows[a:b]``, or (``all_rows``, frozen into
    the compiled code) over rows a..b − 1 themselves, with no index to read."""
    @njit(**_JIT)
    def pair_sums(c0, c1, rows, st, k, a, b, loc):
        """Sums of ``st[p]`` by the codes of rows ``rows[a:b]`` in two columns, into
        the zeroed scratch ``loc`` (2, bins, ≥ k), the first k statistics: each bin
        adds its rows in order."""
        if k == 2:
            for p in range(a, b):
                r = p if all_rows else rows[p]
                b0 = c0[r]
                b1 = c1[r]
                g0 = st[p, 0]
                g1 = st[p, 1]
                loc[0, b0, 0] += g0
                loc[0, b0, 1] += g1
                loc[1, b1, 0] += g0
                loc[1, b1, 1] += g1
        elif k == 3:
            for p in range(a, b):
                r = p if all_rows else rows[p]
                b0 = c0[r]
                b1 = c1[r]
                g0 = st[p, 0]
                g1 = st[p, 1]
                g2 = st[p, 2]
                loc[0, b0, 0] += g0
                loc[0, b0, 1] += g1
                loc[0, b0, 2] += g2
                loc[1, b1, 0] += g0
                loc[1, b1, 1] += g1
                loc[1, b1, 2] += g2
        elif k == 4:
            for p in range(a, b):
                r = p if all_rows else rows[p]
                b0 = c0[r]
                b1 = c1[r]
                g0 = st[p, 0]
                g1 = st[p, 1]
                g2 = st[p, 2]
                g3 = st[p, 3]
                loc[0, b0, 0] += g0
                loc[0, b0, 1] += g1
                loc[0, b0, 2] += g2
                loc[0, b0, 3] += g3
                loc[1, b1, 0] += g0
                loc[1, b1, 1] += g1
                loc[1, b1, 2] += g2
                loc[1, b1, 3] += g3
        else:
            for p in range(a, b):
                r = p if all_rows else rows[p]
                b0 = c0[r]
                b1 = c1[r]
                for q in range(k):
                    loc[0, b0, q] += st[p, q]
                    loc[1, b1, q] += st[p, q]
    return pair_sums


_pair_sums = _pair_sums_kernel(False)
_pair_sums_all = _pair_sums_kernel(True)


@njit(**_JIT)
def grouped_histograms(codes, feats, offsets, row_slot, n_slots, stats, out):
    """:func:`grouped_histograms_into` with its working arrays allocated here."""
    n = row_slot.shape[0]
    grouped_histograms_into(codes, feats, offsets, row_slot, n_slots, stats, out,
                            np.empty(n, dtype=np.int64), np.empty(n * out.shape[2]))


@njit(**_JIT)
def grouped_histograms_into(codes, feats, offsets, row_slot, n_slots, stats, out, rows_buf,
                            st_buf):
    """``out[row_slot[i], offsets[j] + codes[j, i], :] += stats[i, :k]`` for the
    columns j in ``feats`` and the rows with ``row_slot[i] >= 0`` (``out`` zeroed;
    k = ``out.shape[2]``, at most the statistics' columns).

    The rows are first grouped by slot (a stable counting sort, their statistics
    gathered next to each other), so a slot's histogram reads only its rows;
    two columns at a time, each bin adds its rows in increasing row order (the
    sums of ``np.bincount`` over the rows) in a scratch histogram whose bins are
    4 doubles apart (never across two cache lines), then copied to ``out``: the
    layout of :mod:`ubreg.learners._hist`.  ``rows_buf`` (≥ n int64) and
    ``st_buf`` (≥ n·k float64) are working arrays (the caller's: a pass over
    the same rows again and again reuses them).
    """
    n = row_slot.shape[0]
    k = out.shape[2]
    start = np.zeros(n_slots + 1, dtype=np.int64)
    for i in range(n):
        s = row_slot[i]
        if s >= 0:
            start[s + 1] += 1
    for s in range(n_slots):
        start[s + 1] += start[s]
    m = start[n_slots]
    rows = rows_buf[:m]
    every = m == n and n_slots == 1             # every row in one slot (a root): in place
    if every:
        st = stats
    else:
        st = st_buf[:m * k].reshape((m, k))
        fill = start[:n_slots].copy()
        for i in range(n):
            s = row_slot[i]
            if s >= 0:
                p = fill[s]
                rows[p] = i
                for q in range(k):
                    st[p, q] = stats[i, q]
                fill[s] = p + 1
    nf = feats.shape[0]
    maxnb = 1
    for jj in range(nf):
        maxnb = max(maxnb, offsets[feats[jj] + 1] - offsets[feats[jj]])
    loc = np.empty((2, maxnb, max(k, 4) if k > 2 else 2))
    for s in range(n_slots):
        for jj in range(0, nf, 2):
            f0 = feats[jj]
            f1 = feats[min(jj + 1, nf - 1)]          # an odd last column pairs with itself
            loc[:] = 0.0
            if every:
                _pair_sums_all(codes[f0], codes[f1], rows, st, k, 0, n, loc)
            else:
                _pair_sums(codes[f0], codes[f1], rows, st, k, start[s], start[s + 1], loc)
            for h in range(2 if f1 != f0 else 1):
                f = f0 if h == 0 else f1
                o = offsets[f]
                for t in range(offsets[f + 1] - o):
                    for q in range(k):
                        out[s, o + t, q] = loc[h, t, q]


@njit(**_JIT)
def search_codes(edges, x, out):
    """``out = np.searchsorted(edges, x, side="left")``, the number of edges
    below each value (``edges`` sorted, without NaN).

    A value's cell on a uniform grid over [edges[0], edges[-1]] brackets its
    answer: the cell is a monotone function of the value, so the edges of
    earlier cells are below it and those of later cells above it; the edges of
    its own cell are bisected.  Exact whatever the spacing of the edges (the
    grid only saves steps: about one edge a cell for quantile cuts).
    """
    n_e = edges.shape[0]
    if n_e == 0:
        out[:] = 0
        return
    lo = edges[0]
    hi = edges[n_e - 1]
    span = hi - lo
    cells = 4 * n_e
    gridded = span > 0.0 and np.isfinite(span)
    scale = cells / span if gridded else 0.0
    # first[g]: the number of edges in cells before g (g = 0 .. cells + 1)
    first = np.zeros(cells + 2, dtype=np.int64)
    if gridded:
        for e in range(n_e):
            g = min(int((edges[e] - lo) * scale), cells)
            first[g + 1] += 1
        for g in range(cells + 1):
            first[g + 1] += first[g]
    for i in range(x.shape[0]):
        v = x[i]
        if v <= lo:
            out[i] = 0
            continue
        if not v <= hi:                  # above, or NaN (sorted last, as numpy)
            out[i] = n_e
            continue
        if gridded:
            g = min(int((v - lo) * scale), cells)
            a = first[g]
            b = first[g + 1]
        else:
            a = 0
            b = n_e
        while a < b:                     # the first edge ≥ v in [a, b)
            mid = (a + b) >> 1
            if edges[mid] < v:
                a = mid + 1
            else:
                b = mid
        out[i] = a
