"""The tree grower's per-level kernels, split into parts run on every core.

Each kernel is compiled twice from one body (:func:`ubreg.numerics.parallel.parallel_pair`):
its ``prange`` loop runs over independent parts, each doing what the serial
code does for it in the same order, so the two give the same numbers to the
bit.  :func:`ubreg.numerics.parallel.run` launches one or the other.

* histograms: the parts are groups of columns (every bin sums its rows in
  increasing row order, as :mod:`ubreg.trees.histograms`' serial kernels);
* the Newton split search: (node, group of columns) pairs score their
  candidates, then each node takes its first best (:func:`newton_split`);
* the partition of a node's rows: chunks of the segment count their left
  rows, then write both sides at offsets known from the counts (stable), into
  a second permutation (copied back, or the next level reads it: the compiled
  grower alternates the two, a level's segments in one of them);
* the leaves: each leaf segment (a node that was not split, or a split of the
  last level, whose rows are not reordered) sums its first two statistics in
  increasing row order (``np.bincount``'s order); the rows of the last level's
  splits are labelled by ranges of rows, one per core.

The module (and numba) is imported on the first tree, not by ``import ubreg``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..numerics.parallel import parallel_pair, parts, run
from .histograms import JIT, histogram_gathered, histogram_in_place


def _root_histogram_body(codes, feats, cuts, offsets, nbins, stats, out):
    for t in prange(cuts.shape[0] - 1):
        histogram_in_place(codes, feats[cuts[t]:cuts[t + 1]], offsets, nbins, stats, out)


def _segment_histograms_body(codes, feats, cuts, offsets, nbins, stats, order, lo, hi, dest,
                             outs):
    # the segments' statistics gathered once (each core a share of the rows), then
    # each core sums its group of columns over every segment
    k = outs.shape[2]
    start = np.zeros(lo.shape[0] + 1, dtype=np.intp)
    for s in range(lo.shape[0]):
        start[s + 1] = start[s] + hi[s] - lo[s]
    st = np.empty((start[-1], k))
    nparts = cuts.shape[0] - 1
    for t in prange(nparts):
        for s in range(lo.shape[0]):
            m = hi[s] - lo[s]
            for i in range(m * t // nparts, m * (t + 1) // nparts):
                r = order[lo[s] + i]
                for c in range(k):
                    st[start[s] + i, c] = stats[r, c]
    for t in prange(nparts):
        part = feats[cuts[t]:cuts[t + 1]]
        for s in range(lo.shape[0]):
            histogram_gathered(codes, part, offsets, nbins, st[start[s]:start[s + 1]],
                                   order[lo[s]:hi[s]], outs[dest[s]])


ROOT_HISTOGRAM = parallel_pair(_root_histogram_body)
SEGMENT_HISTOGRAMS = parallel_pair(_segment_histograms_body)


@njit(**JIT)
def _gain(g_left, h_left, g_total, h_total, p2):
    """G_L²/H_L + G_R²/H_R − p2 (p2 = G²/H), −inf when not finite (``newton_gain``)."""
    r0 = g_total - g_left
    r1 = h_total - h_left
    g = g_left ** 2 / h_left + r0 ** 2 / r1 - p2
    return g if np.isfinite(g) else -np.inf


@njit(**JIT)
def _score_columns(Ha, tot, offsets, nbins, feats, j0, j1, c, lc, ml, gains):
    """Newton gains of the candidates of columns feats[j0:j1] of one node (its
    histogram ``Ha``, totals ``tot``), written to ``gains`` from index ``c``;
    returns their largest gain.  A child holding less than ``ml`` of statistic
    ``lc`` (each a sequence) is no candidate, nor is a non-finite gain."""
    k = tot.shape[0]
    if (k == 2 or k == 3) and 1 <= lc.shape[0] <= 2:
        return _score_columns_23(Ha, tot, offsets, nbins, feats, j0, j1, c, lc, ml, gains)
    acc = np.empty(k)
    p2 = tot[0] ** 2 / tot[1]
    gmax = -np.inf
    for j in range(j0, j1):
        f = feats[j]
        o = offsets[f]
        for s in range(k):
            acc[s] = 0.0
        for t in range(nbins[f] - 1):
            for s in range(k):
                acc[s] += Ha[o + t, s]
            ok = True
            for i in range(lc.shape[0]):
                if not (acc[lc[i]] >= ml[i] and tot[lc[i]] - acc[lc[i]] >= ml[i]):
                    ok = False
            g = _gain(acc[0], acc[1], tot[0], tot[1], p2) if ok else -np.inf
            gains[c] = g
            if g > gmax:
                gmax = g
            c += 1
    return gmax


@njit(**JIT)
def _score_columns_23(Ha, tot, offsets, nbins, feats, j0, j1, c, lc, ml, gains):
    """:func:`_score_columns` for 2 or 3 statistics and 1 or 2 bounds, the sums in
    registers (the same additions and comparisons, about twice as fast)."""
    k = tot.shape[0]
    l0, m0 = lc[0], ml[0]
    l1, m1 = (lc[1], ml[1]) if lc.shape[0] == 2 else (l0, m0)
    t0, t1 = tot[0], tot[1]
    p2 = t0 ** 2 / t1
    gmax = -np.inf
    for j in range(j0, j1):
        f = feats[j]
        o = offsets[f]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        for t in range(nbins[f] - 1):
            a0 += Ha[o + t, 0]
            a1 += Ha[o + t, 1]
            if k == 3:
                a2 += Ha[o + t, 2]
            v0 = a0 if l0 == 0 else (a1 if l0 == 1 else a2)
            v1 = a0 if l1 == 0 else (a1 if l1 == 1 else a2)
            ok = v0 >= m0 and tot[l0] - v0 >= m0 and v1 >= m1 and tot[l1] - v1 >= m1
            g = _gain(a0, a1, t0, t1, p2) if ok else -np.inf
            gains[c] = g
            if g > gmax:
                gmax = g
            c += 1
    return gmax


def _newton_split_body(H, offsets, nbins, feats, cuts, first, ncand, lc, ml, rtol):
    m, _, k = H.shape
    nparts = cuts.shape[0] - 1
    gains = np.empty((m, ncand))
    gmax = np.empty((m, nparts))
    tot = np.zeros((m, k))
    f0 = feats[0]
    for a in range(m):                  # node totals: the bins of the first column
        for s in range(k):
            t = 0.0
            for b in range(nbins[f0]):
                t += H[a, offsets[f0] + b, s]
            tot[a, s] = t
    for q in prange(m * nparts):
        a = q // nparts
        p = q - a * nparts
        gmax[a, p] = _score_columns(H[a], tot[a], offsets, nbins, feats, cuts[p], cuts[p + 1],
                                    first[cuts[p]], lc, ml, gains[a])
    best = np.zeros(m, dtype=np.intp)
    best_gain = np.full(m, -np.inf)
    for a in range(m):
        g = gmax[a].max()
        thresh = g - rtol * abs(g) if np.isfinite(g) else g
        for c in range(ncand):
            if gains[a, c] >= thresh:
                best[a] = c
                best_gain[a] = gains[a, c]
                break
    return best, best_gain


NEWTON_SPLIT = parallel_pair(_newton_split_body)


def _partition_body(codes, order, node, start, end, f, kcut, parent, nchunks, buf, copy_back):
    c = codes[f]
    left = 2 * parent + 1
    size = end - start
    lefts = np.zeros(nchunks + 1, dtype=np.intp)
    for t in prange(nchunks):
        a = start + size * t // nchunks
        b = start + size * (t + 1) // nchunks
        nl = 0
        for i in range(a, b):
            nl += 1 if c[order[i]] <= kcut else 0
        lefts[t + 1] = nl
    for t in range(nchunks):
        lefts[t + 1] += lefts[t]
    mid = start + lefts[nchunks]
    for t in prange(nchunks):
        a = start + size * t // nchunks
        b = start + size * (t + 1) // nchunks
        li = start + lefts[t]
        ri = mid + (a - start) - lefts[t]
        for i in range(a, b):
            r = order[i]
            go = 1 if c[r] > kcut else 0
            node[r] = left + go
            buf[li + go * (ri - li)] = r    # branch-free (the sides come in random order)
            li += 1 - go
            ri += go
    if copy_back:
        for t in prange(nchunks):
            a = start + size * t // nchunks
            b = start + size * (t + 1) // nchunks
            order[a:b] = buf[a:b]
    return mid


PARTITION = parallel_pair(_partition_body)


def _leaf_sums_body(codes, order, other, where, lo, hi, feat, kcut, heap, group, stats, G, H):
    for t in prange(group.max() + 1):
        for s in range(lo.shape[0]):
            if group[s] == t:
                rows = order if where[s] == 0 else other
                _segment_sums(codes, rows, lo[s], hi[s], feat[s], kcut[s], heap[s], stats, G, H)


@njit(**JIT)
def _segment_sums(codes, order, lo, hi, f, kcut, nd, stats, G, H):
    c = codes[max(f, 0)]
    first = nd if f < 0 else 2 * nd + 1
    # sums in locals, written once: the segments' leaves are adjacent in G and H
    acc = np.zeros((2, 2))
    for i in range(lo, hi):
        r = order[i]
        side = 0 if f < 0 else (1 if c[r] > kcut else 0)
        acc[side, 0] += stats[r, 0]
        acc[side, 1] += stats[r, 1]
    for side in range(1 if f < 0 else 2):
        G[first + side] = acc[side, 0]
        H[first + side] = acc[side, 1]


LEAF_SUMS = parallel_pair(_leaf_sums_body)


def _route_body(codes, order, lo, hi, feat, kcut, heap, node, nchunks):
    n = node.shape[0]
    for t in prange(nchunks):
        # each core the rows of one range (no cache line of node written by two)
        rlo = n * t // nchunks
        rhi = n * (t + 1) // nchunks
        for s in range(lo.shape[0]):
            seg = order[lo[s]:hi[s]]
            a = np.searchsorted(seg, rlo)
            b = np.searchsorted(seg, rhi)
            c = codes[feat[s]]
            left = 2 * heap[s] + 1
            for i in range(a, b):
                r = seg[i]
                node[r] = left + (1 if c[r] > kcut[s] else 0)


ROUTE = parallel_pair(_route_body)




#: row × column cells of a histogram (rows of a partition, an update) worth
#: splitting across the cores: below, a launch costs more than it saves
_PARALLEL_CELLS = 50_000
_PARALLEL_ROWS = 20_000


@njit(**JIT)
def column_groups(nf, n, even):
    """Bounds of n contiguous groups of nf columns (of even length when ``even``: the
    serial histogram kernels take columns by pairs); the Python wrappers here and the
    compiled grower share it."""
    n = max(1, min(n, nf // 2 if even else nf))
    cuts = np.empty(n + 1, dtype=np.intp)
    for i in range(n + 1):
        cuts[i] = 2 * ((nf // 2) * i // n) if even else nf * i // n
    cuts[n] = nf
    return cuts


def _column_cuts(nfeats: int, cells: int) -> np.ndarray:
    """One group of columns per core when the histogram has enough cells."""
    return column_groups(nfeats, parts() if cells >= _PARALLEL_CELLS else 1, True)


def _chunks(rows: int) -> int:
    return parts() if rows >= _PARALLEL_ROWS else 1


def histogram_all(codes, feats, offsets, nbins, stats, out):
    """``out[offsets[f] + code, s] = Σ stats[r, s]`` over every row r and the
    columns f in ``feats`` (bins of other columns are left untouched), for the
    first ``out.shape[1]`` statistics, each bin in increasing row order."""
    cuts = _column_cuts(len(feats), stats.shape[0] * len(feats))
    run(ROOT_HISTOGRAM, len(cuts) > 2, codes, feats, cuts, offsets, nbins, stats, out)


def histogram_segments(codes, feats, offsets, nbins, stats, order, lo, hi, dest, outs):
    """The histogram of the rows ``order[lo[s]:hi[s]]`` into ``outs[dest[s]]`` for
    each segment s, as :func:`histogram_all` sums them (in that row order)."""
    cuts = _column_cuts(len(feats), int(np.sum(hi - lo)) * len(feats))
    run(SEGMENT_HISTOGRAMS, len(cuts) > 2, codes, feats, cuts, offsets, nbins, stats, order,
        lo, hi, dest, outs)


def histogram_rows(codes, feats, offsets, nbins, stats, rows, out):
    """As :func:`histogram_all` over the rows ``rows`` (in that order)."""
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    lo, hi = np.array([0], dtype=np.intp), np.array([rows.shape[0]], dtype=np.intp)
    histogram_segments(codes, feats, offsets, nbins, stats, rows, lo, hi,
                       np.zeros(1, dtype=np.intp), out[None])


#: candidates × nodes of a level worth splitting the split search across the cores
_PARALLEL_CANDIDATES = 2_000


def newton_split(H, offsets, nbins, feats, first, ncand, lc, ml, rtol):
    """(candidate, gain) of each node of H: the Newton split search (``newton_gain``,
    non-finite → −inf, child bounds ``L[lc] ≥ ml`` and ``R[lc] ≥ ml``, the first
    candidate within ``rtol`` of the best, as ``trees._first_best``); ``first[j]``
    is the index of the first candidate of column ``feats[j]``."""
    n = parts() if H.shape[0] * ncand >= _PARALLEL_CANDIDATES else 1
    cuts = column_groups(len(feats), n, False)
    return run(NEWTON_SPLIT, len(cuts) > 2, H, offsets, nbins, feats, cuts, first, ncand,
               lc, ml, rtol)


def partition(codes, order, node, start, end, f, kcut, parent, buf):
    """Stable partition of ``order[start:end]``: rows with code ≤ kcut of column
    ``f`` first (left child 2·parent + 1), then the others (right child
    2·parent + 2); sets ``node`` of each row.  Returns the start of the right
    segment.  The chunks of a segment hold disjoint ranges of rows (a segment is
    in increasing row order), so the cores write ``node`` in different places."""
    n = _chunks(end - start)
    return run(PARTITION, n > 1, codes, order, node, start, end, f, kcut, parent, n, buf, True)


def leaf_sums(codes, order, lo, hi, feat, kcut, heap, stats, G, H):
    """Σ of the first two statistics over each leaf, in increasing row order, into
    G and H: the leaf segments ``order[lo[s]:hi[s]]`` of nodes ``heap[s]``, split
    on the last level by ``feat[s] > kcut[s]`` when ``feat[s] ≥ 0``.  Segments
    are shared out whole among the cores, largest first to the least loaded."""
    size = hi - lo
    n = min(parts(), len(lo)) if int(size.sum()) >= _PARALLEL_ROWS else 1
    group = np.zeros(len(lo), dtype=np.intp)
    load = np.zeros(n)
    for s in np.argsort(-size, kind="stable"):
        group[s] = int(np.argmin(load))
        load[group[s]] += size[s]
    run(LEAF_SUMS, n > 1, codes, order, order, np.zeros(len(lo), dtype=np.intp), lo, hi, feat,
        kcut, heap, group, stats, G, H)


def route(codes, order, lo, hi, feat, kcut, heap, node):
    """``node`` of the rows of the last level's splits (their segments
    ``order[lo[s]:hi[s]]``, node ``heap[s]``, split by ``feat[s] > kcut[s]``)."""
    n = _chunks(int(np.sum(hi - lo)))
    run(ROUTE, n > 1, codes, order, lo, hi, feat, kcut, heap, node, n)
