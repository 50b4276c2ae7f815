"""The histograms of every tree of the package (numba): serial kernels and left sums.

Every tree that searches splits on bin codes sums its rows' statistics here:
the level-wise grower of :mod:`ubreg.trees.shallow` (and U-Boost's compiled
grower), the binned UDT grower (:mod:`ubreg.fitters.udt.hist`) and the Dask
partitions of binned UDT and U-Boost (:func:`grouped_histograms`).  Every bin
adds its rows in increasing row order from 0, whichever kernel sums it, so a
histogram is the same to the bit whichever grower or scheduler asks for it.

The level-wise grower keeps the training rows
of every node as a contiguous segment of one permutation ``order`` (rows in
increasing order inside each segment), so that

* the histogram of a node reads only its own rows (the smaller child of each
  split; its sibling is the parent's histogram minus it);
* sums over a node's rows run in increasing row order, the order of a sparse
  one-hot product or of ``np.bincount``.

Histograms are float64 ``(total_bins, k)`` arrays in the flat (column, bin)
layout of :class:`~ubreg.trees.binning.BinnedDesign`; columns with one bin
(e.g. the intercept) are never split and their bins stay 0.

:mod:`ubreg.trees._level_kernels` runs these kernels on parts of the
columns on every core, and holds the partition, split search and leaf kernels.

``cache=True`` compiles each kernel once per machine (numba's cache in
``__pycache__``, or ``NUMBA_CACHE_DIR``); ``error_model="numpy"`` makes a
division by zero give inf/nan, as numpy does; ``nogil=True`` lets fits run in
threads.  The module (and numba) is imported on the first tree, not by
``import ubreg``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


# Histograms: two columns at a time, the bins are summed in a small scratch
# histogram ``loc`` (L1-resident; each row's statistics are read once per
# pair of columns), then copied to ``out``; every bin sums its rows in
# increasing row order.  The loops are written out for k = 2 and 3 statistics.
# The loops are written out rather than shared through helpers taking the row
# source as an argument: numba's code is about 1.5–2× slower through run-time
# branches in the loop or arrays of unknown layout.


@njit(**JIT)
def _scratch(feats, nbins, k):
    maxnb = 1
    for j in range(feats.shape[0]):
        maxnb = max(maxnb, nbins[feats[j]])
    # bins of 2 or 4 doubles (k ≤ 4): a bin never straddles two cache lines
    return np.empty((2, maxnb, 2 if k <= 2 else max(k, 4)))


@njit(**JIT)
def _copy_out(loc, f0, f1, offsets, nbins, k, out):
    for q in range(2 if f1 != f0 else 1):
        f = f0 if q == 0 else f1
        o = offsets[f]
        for t in range(nbins[f]):
            for s in range(k):
                out[o + t, s] = loc[q, t, s]


@njit(**JIT)
def histogram_in_place(codes, feats, offsets, nbins, stats, out):
    """The histogram of every row: the statistics read in place, columns by pairs."""
    k = out.shape[1]                # the first k statistics (all, but for a known column)
    m = stats.shape[0]
    loc = _scratch(feats, nbins, k)
    nf = feats.shape[0]
    for j in range(0, nf, 2):
        f0 = feats[j]
        f1 = feats[min(j + 1, nf - 1)]      # an odd last column pairs with itself
        c0 = codes[f0]
        c1 = codes[f1]
        loc[:] = 0.0
        if k == 2:
            for r in range(m):
                b0 = c0[r]
                b1 = c1[r]
                g0 = stats[r, 0]
                g1 = stats[r, 1]
                loc[0, b0, 0] += g0
                loc[0, b0, 1] += g1
                loc[1, b1, 0] += g0
                loc[1, b1, 1] += g1
        elif k == 3:
            for r in range(m):
                b0 = c0[r]
                b1 = c1[r]
                g0 = stats[r, 0]
                g1 = stats[r, 1]
                g2 = stats[r, 2]
                loc[0, b0, 0] += g0
                loc[0, b0, 1] += g1
                loc[0, b0, 2] += g2
                loc[1, b1, 0] += g0
                loc[1, b1, 1] += g1
                loc[1, b1, 2] += g2
        else:
            for r in range(m):
                b0 = c0[r]
                b1 = c1[r]
                for s in range(k):
                    loc[0, b0, s] += stats[r, s]
                    loc[1, b1, s] += stats[r, s]
        _copy_out(loc, f0, f1, offsets, nbins, k, out)




# The histogram of a node's rows (a segment of the permutation) reads its rows'
# statistics gathered into a contiguous array, four columns per pass: a gathered
# row (k doubles) is then read once per four columns, which on segments beyond
# the caches is the bound (pairs: 1.00 ms, quads: 0.82 ms for 5e4 rows × 20
# columns × 3 statistics on one core); the root reads its rows in place, where
# pairs are as fast.  Bins of k doubles (no padding) keep four columns' bins in L1.


@njit(**JIT)
def _quad_pass(c0, c1, c2, c3, rows, st, loc):
    """loc[q, code of column q, s] += st[i, s] over the rows, for 4 columns."""
    k = st.shape[1]
    loc[:] = 0.0
    if k == 2:
        for i in range(rows.shape[0]):
            r = rows[i]
            g0 = st[i, 0]
            g1 = st[i, 1]
            b = c0[r]
            loc[0, b, 0] += g0
            loc[0, b, 1] += g1
            b = c1[r]
            loc[1, b, 0] += g0
            loc[1, b, 1] += g1
            b = c2[r]
            loc[2, b, 0] += g0
            loc[2, b, 1] += g1
            b = c3[r]
            loc[3, b, 0] += g0
            loc[3, b, 1] += g1
    else:
        for i in range(rows.shape[0]):
            r = rows[i]
            g0 = st[i, 0]
            g1 = st[i, 1]
            g2 = st[i, 2]
            b = c0[r]
            loc[0, b, 0] += g0
            loc[0, b, 1] += g1
            loc[0, b, 2] += g2
            b = c1[r]
            loc[1, b, 0] += g0
            loc[1, b, 1] += g1
            loc[1, b, 2] += g2
            b = c2[r]
            loc[2, b, 0] += g0
            loc[2, b, 1] += g1
            loc[2, b, 2] += g2
            b = c3[r]
            loc[3, b, 0] += g0
            loc[3, b, 1] += g1
            loc[3, b, 2] += g2


@njit(**JIT)
def _pair_pass(c0, c1, rows, st, loc):
    """loc[q, code of column q, s] += st[i, s] over the rows, for 2 columns."""
    k = st.shape[1]
    loc[:2] = 0.0
    for i in range(rows.shape[0]):
        r = rows[i]
        b0 = c0[r]
        b1 = c1[r]
        for s in range(k):
            loc[0, b0, s] += st[i, s]
            loc[1, b1, s] += st[i, s]


@njit(**JIT)
def histogram_gathered(codes, feats, offsets, nbins, st, rows, out):
    """The histogram of ``rows`` (any k ≤ 3) from their statistics gathered
    (``st[i]`` those of row ``rows[i]``): columns by fours when k = 3, the last
    one to three by a pair pass (an odd one paired with itself)."""
    k = out.shape[1]
    maxnb = 1
    for j in range(feats.shape[0]):
        maxnb = max(maxnb, nbins[feats[j]])
    loc = np.empty((4, maxnb, k))
    nf = feats.shape[0]
    j = 0
    while j < nf:
        if nf - j >= 4 and k == 3:
            _quad_pass(codes[feats[j]], codes[feats[j + 1]], codes[feats[j + 2]],
                       codes[feats[j + 3]], rows, st, loc)
            ng = 4
        else:
            _pair_pass(codes[feats[j]], codes[feats[min(j + 1, nf - 1)]], rows, st, loc)
            ng = min(2, nf - j)
        for q in range(ng):
            f = feats[j + q]
            o = offsets[f]
            for t in range(nbins[f]):
                for s in range(k):
                    out[o + t, s] = loc[q, t, s]
        j += ng



@njit(**JIT)
def grouped_histograms(codes, feats, offsets, row_slot, n_slots, stats, out):
    """:func:`grouped_histograms_into` with its working arrays allocated here."""
    n = row_slot.shape[0]
    grouped_histograms_into(codes, feats, offsets, row_slot, n_slots, stats, out,
                            np.empty(n, dtype=np.int64), np.empty(n * out.shape[2]))


@njit(**JIT)
def grouped_histograms_into(codes, feats, offsets, row_slot, n_slots, stats, out, rows_buf,
                            st_buf):
    """``out[row_slot[i], offsets[j] + codes[j, i], :] += stats[i, :k]`` for the
    columns j in ``feats`` and the rows with ``row_slot[i] >= 0`` (``out`` zeroed;
    k = ``out.shape[2]``, at most the statistics' columns).

    The rows are grouped by slot (a stable counting sort, their statistics
    gathered next to each other), then each slot's histogram is that of its
    rows (:func:`histogram_gathered`); every row in one slot (a root) is
    summed in place (:func:`histogram_in_place`).  ``rows_buf`` (≥ n int64) and
    ``st_buf`` (≥ n·k float64) are working arrays (the caller's: a pass over the
    same rows again and again reuses them).
    """
    n = row_slot.shape[0]
    k = out.shape[2]
    nbins = offsets[1:] - offsets[:-1]
    start = np.zeros(n_slots + 1, dtype=np.int64)
    for i in range(n):
        s = row_slot[i]
        if s >= 0:
            start[s + 1] += 1
    for s in range(n_slots):
        start[s + 1] += start[s]
    m = start[n_slots]
    if m == n and n_slots == 1:
        histogram_in_place(codes, feats, offsets, nbins, stats, out[0])
        return
    rows = rows_buf[:m]
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
    for s in range(n_slots):
        histogram_gathered(codes, feats, offsets, nbins, st[start[s]:start[s + 1]],
                               rows[start[s]:start[s + 1]], out[s])


@njit(**JIT)
def left_sums(H, offsets, nbins, feats, ncand):
    """Per node (first axis of H), the sums L over bins ≤ t of each split
    candidate "code > t" (columns in ``feats`` order, t ascending: the order of
    ``BinnedDesign.candidates``), and the node totals P (the bins of the first
    column of ``feats``).  Sums run bin by bin within a column."""
    m, _, k = H.shape
    L = np.empty((m, ncand, k))
    P = np.zeros((m, k))
    for a in range(m):
        c = 0
        for j in range(feats.shape[0]):
            f = feats[j]
            o = offsets[f]
            for s in range(k):
                acc = 0.0
                for t in range(nbins[f] - 1):
                    acc += H[a, o + t, s]
                    L[a, c + t, s] = acc
                if j == 0:
                    P[a, s] = acc + H[a, o + nbins[f] - 1, s]
            c += nbins[f] - 1
    return L, P
