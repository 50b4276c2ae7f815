"""Compiled kernels of the tree grower (numba): histograms, partitions, left sums.

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
# One kernel body serves the root (all rows, read in place) and the segments
# (rows gathered first): :func:`_histogram_kernel` compiles it once for each,
# with the row source a compile-time constant, so neither pays a run-time
# branch in its loop (numba's code is about 1.5–2× slower through helper
# functions, run-time branches in the loop, or arrays of unknown layout).


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


def _histogram_kernel(all_rows):
    """The histogram kernel over every row (``all_rows``) or over ``rows``.

    ``all_rows`` is frozen into the compiled code (a closure constant), so the
    row index ``r`` and the statistics' source are chosen at compile time.
    """
    @njit(**_JIT)
    def kernel(codes, feats, offsets, nbins, stats, rows, out):
        k = out.shape[1]                # the first k statistics (all, but for a known column)
        if all_rows:
            m = stats.shape[0]
            st = stats
        else:
            # the statistics of the rows, contiguous: one gather
            m = rows.shape[0]
            st = np.empty((m, k))
            for i in range(m):
                r = rows[i]
                for s in range(k):
                    st[i, s] = stats[r, s]
        loc = _scratch(feats, nbins, k)
        nf = feats.shape[0]
        for j in range(0, nf, 2):
            f0 = feats[j]
            f1 = feats[min(j + 1, nf - 1)]      # an odd last column pairs with itself
            c0 = codes[f0]
            c1 = codes[f1]
            loc[:] = 0.0
            if k == 2:
                for i in range(m):
                    r = i if all_rows else rows[i]
                    b0 = c0[r]
                    b1 = c1[r]
                    g0 = st[i, 0]
                    g1 = st[i, 1]
                    loc[0, b0, 0] += g0
                    loc[0, b0, 1] += g1
                    loc[1, b1, 0] += g0
                    loc[1, b1, 1] += g1
            elif k == 3:
                for i in range(m):
                    r = i if all_rows else rows[i]
                    b0 = c0[r]
                    b1 = c1[r]
                    g0 = st[i, 0]
                    g1 = st[i, 1]
                    g2 = st[i, 2]
                    loc[0, b0, 0] += g0
                    loc[0, b0, 1] += g1
                    loc[0, b0, 2] += g2
                    loc[1, b1, 0] += g0
                    loc[1, b1, 1] += g1
                    loc[1, b1, 2] += g2
            else:
                for i in range(m):
                    r = i if all_rows else rows[i]
                    b0 = c0[r]
                    b1 = c1[r]
                    for s in range(k):
                        loc[0, b0, s] += st[i, s]
                        loc[1, b1, s] += st[i, s]
            _copy_out(loc, f0, f1, offsets, nbins, k, out)
    return kernel


_histogram_all = _histogram_kernel(True)
_histogram_rows = _histogram_kernel(False)
_NO_ROWS = np.zeros(0, dtype=np.intp)


#: row × column cells of a histogram worth a second thread (below, a thread's start
#: costs more than it saves)
_THREAD_CELLS = 400_000


def _column_parts(feats, m: int) -> list:
    """``feats`` in contiguous parts of even length, one per core when the histogram
    is large enough: each column's bins are summed by one part, in row order, so the
    parts give the single call's numbers."""
    from ..numerics.threads import workers
    n = min(workers(), len(feats) // 2) if m * len(feats) >= _THREAD_CELLS else 1
    if n <= 1:
        return [feats]
    cuts = [2 * ((len(feats) // 2) * i // n) for i in range(n + 1)]
    cuts[-1] = len(feats)
    return [feats[a:b] for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def histogram_all(codes, feats, offsets, nbins, stats, out):
    """``out[offsets[f] + code, s] = Σ stats[r, s]`` over every row r and the
    columns f in ``feats`` (bins of other columns are left untouched), for the
    first ``out.shape[1]`` statistics; the columns in threads on large
    histograms (the same sums)."""
    from ..numerics.threads import run_parts
    run_parts(lambda part: _histogram_all(codes, part, offsets, nbins, stats, _NO_ROWS, out),
              _column_parts(feats, stats.shape[0]))


def histogram_rows(codes, feats, offsets, nbins, stats, rows, out):
    """As :func:`histogram_all` over the rows ``rows`` (in that order)."""
    from ..numerics.threads import run_parts
    run_parts(lambda part: _histogram_rows(codes, part, offsets, nbins, stats, rows, out),
              _column_parts(feats, rows.shape[0]))


def histogram_segments(codes, feats, offsets, nbins, stats, segments, outs):
    """:func:`histogram_rows` of each of ``segments`` (row arrays) into the matching
    ``outs``.  Several segments are shared out whole among the cores (largest
    first, each to the least loaded core): one dispatch for a level's nodes, and
    each histogram is the single call's."""
    from ..numerics.threads import run_parts, workers
    total = sum(len(r) for r in segments)
    n = min(workers(), len(segments)) if total * len(feats) >= _THREAD_CELLS else 1
    if len(segments) == 1 or n <= 1:
        for rows, out in zip(segments, outs):
            histogram_rows(codes, feats, offsets, nbins, stats, rows, out)
        return
    groups: list[list[int]] = [[] for _ in range(n)]
    load = [0] * n
    for i in sorted(range(len(segments)), key=lambda i: -len(segments[i])):
        g = load.index(min(load))
        groups[g].append(i)
        load[g] += len(segments[i])

    def run(group):
        for i in group:
            _histogram_rows(codes, feats, offsets, nbins, stats, segments[i], outs[i])
    run_parts(run, [g for g in groups if g])


@njit(**_JIT)
def partition(codes, order, node, start, end, f, kcut, parent, buf):
    """Stable partition of ``order[start:end]``: rows with code ≤ kcut first
    (left child 2·parent + 1), then the others (right child 2·parent + 2);
    sets ``node`` of each row.  Returns the start of the right segment.

    Branch-free (a row is written to both sides, the counters advance by its
    side): left and right rows come in random order.  Writing ``order`` at
    start + nl ≤ i never overwrites a row not yet read.
    """
    c = codes[f]
    left = 2 * parent + 1
    nl = 0
    nr = 0
    for i in range(start, end):
        r = order[i]
        go = 1 if c[r] > kcut else 0
        node[r] = left + go
        order[start + nl] = r
        buf[nr] = r
        nl += 1 - go
        nr += go
    mid = start + nl
    for i in range(nr):
        order[mid + i] = buf[i]
    return mid


@njit(**_JIT)
def route(codes, rows, node, f, kcut, parent):
    """``node`` of each of ``rows``: its child of ``parent`` (no reordering,
    for the last level)."""
    c = codes[f]
    left = 2 * parent + 1
    for i in range(rows.shape[0]):
        r = rows[i]
        node[r] = left + (1 if c[r] > kcut else 0)


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


@njit(**_JIT)
def newton_split(H, offsets, nbins, feats, ncand, lc, ml, rtol):
    """The Newton split search of each node (first axis of H) in one pass:
    ``left_sums``, then ``newton_gain`` (non-finite → −inf), the child bounds
    ``L[lc] ≥ ml`` and ``R[lc] ≥ ml``, and the first candidate whose gain is
    within ``rtol`` of the largest (``trees._first_best``).  Same arithmetic,
    in the same order, as the numpy path.  Returns (candidate, gain) per node."""
    m, _, k = H.shape
    best = np.zeros(m, dtype=np.intp)
    best_gain = np.full(m, -np.inf)
    gains = np.empty(ncand)
    acc = np.empty(k)
    tot = np.empty(k)
    for a in range(m):
        f0 = feats[0]
        for s in range(k):
            t = 0.0
            for b in range(nbins[f0]):
                t += H[a, offsets[f0] + b, s]
            tot[s] = t
        p2 = tot[0] ** 2 / tot[1]
        gmax = -np.inf
        c = 0
        for j in range(feats.shape[0]):
            f = feats[j]
            o = offsets[f]
            for s in range(k):
                acc[s] = 0.0
            for t in range(nbins[f] - 1):
                for s in range(k):
                    acc[s] += H[a, o + t, s]
                ok = True
                for i in range(lc.shape[0]):
                    if not (acc[lc[i]] >= ml[i] and tot[lc[i]] - acc[lc[i]] >= ml[i]):
                        ok = False
                g = -np.inf
                if ok:
                    r0 = tot[0] - acc[0]
                    r1 = tot[1] - acc[1]
                    g = acc[0] ** 2 / acc[1] + r0 ** 2 / r1 - p2
                    if not np.isfinite(g):
                        g = -np.inf
                gains[c] = g
                if g > gmax:
                    gmax = g
                c += 1
        thresh = gmax - rtol * abs(gmax) if np.isfinite(gmax) else gmax
        for c in range(ncand):
            if gains[c] >= thresh:
                best[a] = c
                best_gain[a] = gains[c]
                break
    return best, best_gain


@njit(**_JIT)
def node_sums(node, stats, size):
    """Σ of the first two columns of ``stats`` per node, in increasing row
    order (``np.bincount(node, weights=stats[:, j])``)."""
    G = np.zeros(size)
    H = np.zeros(size)
    for i in range(node.shape[0]):
        G[node[i]] += stats[i, 0]
        H[node[i]] += stats[i, 1]
    return G, H


@njit(**_JIT)
def add_leaf_values(F, node, value, nu):
    """F ← F + ν·value[node], in place."""
    for i in range(F.shape[0]):
        F[i] = F[i] + nu * value[node[i]]
