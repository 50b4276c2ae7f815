"""Compiled kernels of the tree grower (numba): histograms and left sums, serial.

The level-wise grower of :mod:`ubreg.learners.trees` keeps the training rows
of every node as a contiguous segment of one permutation ``order`` (rows in
increasing order inside each segment), so that

* the histogram of a node reads only its own rows (the smaller child of each
  split; its sibling is the parent's histogram minus it);
* sums over a node's rows run in increasing row order, the order of a sparse
  one-hot product or of ``np.bincount``.

Histograms are float64 ``(total_bins, k)`` arrays in the flat (column, bin)
layout of :class:`~ubreg.learners.binning.BinnedDesign`; columns with one bin
(e.g. the intercept) are never split and their bins stay 0.

:mod:`ubreg.learners._level_kernels` runs these kernels on parts of the
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
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


# Histograms: two columns at a time, the bins are summed in a small scratch
# histogram ``loc`` (L1-resident; each row's statistics are read once per
# pair of columns), then copied to ``out``; every bin sums its rows in
# increasing row order.  The loops are written out for k = 2 and 3 statistics.
# The loops are written out rather than shared through helpers taking the row
# source as an argument: numba's code is about 1.5–2× slower through run-time
# branches in the loop or arrays of unknown layout.


@njit(**_JIT)
def _scratch(feats, nbins, k):
    maxnb = 1
    for j in range(feats.shape[0]):
        maxnb = max(maxnb, nbins[feats[j]])
    # bins of 2 or 4 doubles (k ≤ 4): a bin never straddles two cache lines
    return np.empty((2, maxnb, 2 if k <= 2 else max(k, 4)))


@njit(**_JIT)
def _copy_out(loc, f0, f1, offsets, nbins, k, out):
    for q in range(2 if f1 != f0 else 1):
        f = f0 if q == 0 else f1
        o = offsets[f]
        for t in range(nbins[f]):
            for s in range(k):
                out[o + t, s] = loc[q, t, s]


@njit(**_JIT)
def _histogram_all(codes, feats, offsets, nbins, stats, out):
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


@njit(**_JIT)
def _gather(stats, rows, k):
    m = rows.shape[0]
    st = np.empty((m, k))
    for i in range(m):
        r = rows[i]
        for s in range(k):
            st[i, s] = stats[r, s]
    return st


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
def _histogram_gathered(codes, feats, offsets, nbins, stats, rows, out):
    """The histogram of ``rows`` (any k ≤ 3): statistics gathered, columns by fours,
    the last one to three by a pair pass (an odd one paired with itself)."""
    _histogram_of_gathered(codes, feats, offsets, nbins, _gather(stats, rows, out.shape[1]),
                           rows, out)


@njit(**_JIT)
def _histogram_of_gathered(codes, feats, offsets, nbins, st, rows, out):
    """:func:`_histogram_gathered` of statistics already gathered (``st[i]`` those
    of row ``rows[i]``)."""
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




@njit(**_JIT)
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
