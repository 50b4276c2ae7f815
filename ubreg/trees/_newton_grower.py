"""U-Boost's Newton tree grown in one compiled call (the levels of ``trees._grow``).

:func:`ubreg.trees.shallow.fit_newton_tree` runs hundreds of shallow trees
per fit; written in Python, the bookkeeping between the kernels of a level
(which nodes split, their segments, the smaller children, the subtractions)
cost about 0.2 ms a tree, a tenth of a tree on 1e5 rows.  Here it is compiled:
:func:`grow_newton` does what ``trees._grow`` does with the Newton criterion,
level by level, calling the same kernels (:mod:`ubreg.trees._level_kernels`,
their parallel twins when ``par`` and the work is large enough, else their
serial ones), so the trees, leaves and leaf sums are the same to the bit
(tests/test_level_kernels.py, tests/test_boost_learners.py).

The root's histogram and the least gain are formed by the caller (as
``trees._grow``), and the cut values read from the bins' cuts after.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._level_kernels import (
    LEAF_SUMS,
    NEWTON_SPLIT,
    PARTITION,
    ROUTE,
    SEGMENT_HISTOGRAMS,
    column_groups,
)
from .histograms import JIT

_SPLIT_PAR, _SPLIT_SER = NEWTON_SPLIT
_PART_PAR, _PART_SER = PARTITION
_HIST_PAR, _HIST_SER = SEGMENT_HISTOGRAMS
_ROUTE_PAR, _ROUTE_SER = ROUTE
_SUMS_PAR, _SUMS_SER = LEAF_SUMS


@njit(**JIT)
def _search(H, offsets, nbins, feats, first, ncand, lc, ml, rtol, par, nparts, cand_min):
    n = nparts if par and H.shape[0] * ncand >= cand_min else 1
    cuts = column_groups(feats.shape[0], n, False)
    if n > 1:
        return _SPLIT_PAR(H, offsets, nbins, feats, cuts, first, ncand, lc, ml, rtol)
    return _SPLIT_SER(H, offsets, nbins, feats, cuts, first, ncand, lc, ml, rtol)


@njit(**JIT)
def _partition(codes, src, node, lo, hi, f, kcut, nd, dst, par, nparts, rows_min):
    """The partition of a segment of ``src`` written to the same places of ``dst``."""
    n = nparts if par and hi - lo >= rows_min else 1
    if n > 1:
        return _PART_PAR(codes, src, node, lo, hi, f, kcut, nd, n, dst, False)
    return _PART_SER(codes, src, node, lo, hi, f, kcut, nd, 1, dst, False)


@njit(**JIT)
def _level(nd):
    """The level of heap node nd (the root's is 0): its segment is in the first
    permutation on even levels, in the second on odd ones."""
    level = 0
    x = nd + 1
    while x > 1:
        x >>= 1
        level += 1
    return level


@njit(**JIT)
def _children(codes, feats, offsets, nbins, stats, order, H, spl, ns, seg, par, nparts,
              cells_min):
    """Histograms of the children of the ns split nodes ``spl`` (rows: row of H,
    heap index, start, mid, end): the smaller child's from its rows, its
    sibling's by subtraction.  Returns them and the children's heap indices."""
    child = np.zeros((2 * ns, H.shape[1], H.shape[2]))
    lo = np.empty(ns, dtype=np.intp)
    hi = np.empty(ns, dtype=np.intp)
    dest = np.empty(ns, dtype=np.intp)
    active = np.empty(2 * ns, dtype=np.intp)
    total = 0
    for i in range(ns):
        start, mid, end = spl[i, 2], spl[i, 3], spl[i, 4]
        left_small = mid - start <= end - mid
        dest[i] = 2 * i if left_small else 2 * i + 1
        lo[i] = start if left_small else mid
        hi[i] = mid if left_small else end
        total += hi[i] - lo[i]
        active[2 * i] = 2 * spl[i, 1] + 1
        active[2 * i + 1] = 2 * spl[i, 1] + 2
    n = nparts if par and total * feats.shape[0] >= cells_min else 1
    cuts = column_groups(feats.shape[0], n, True)
    if n > 1:
        _HIST_PAR(codes, feats, cuts, offsets, nbins, stats, order, lo, hi, dest, child)
    else:
        _HIST_SER(codes, feats, cuts, offsets, nbins, stats, order, lo, hi, dest, child)
    for i in range(ns):
        small = dest[i]
        big = 2 * i + 1 if small == 2 * i else 2 * i
        a = spl[i, 0]
        for b in range(H.shape[1]):
            for s in range(H.shape[2]):
                child[big, b, s] = H[a, b, s] - child[small, b, s]
    return child, active


@njit(**JIT)
def last_of_ties(Ha, o, nb, kc):
    """The largest cut code k ≥ kc of a column (bins from ``o``, ``nb`` of them) whose
    split "code > k" sends the node's rows (its histogram ``Ha``) as "code > kc" does:
    the bins after kc that hold nothing move.  The copy of a column with its NaN bin
    first takes it, as HistGradientBoosting's right-to-left scan (NaN rows left) keeps
    the first of equal gains from the right."""
    while kc + 1 < nb - 1:
        for s in range(Ha.shape[1]):
            if Ha[o + kc + 1, s] != 0.0:
                return kc
        kc += 1
    return kc


@njit(**JIT)
def _split_level(H, active, best, best_gain, threshold, cand_col, cand_k, last, codes, src,
                 node, dst, seg, tree, par, nparts, rows_min, offsets, nbins, tie_last):
    """Record the splits of a level (tree[0..2]: feature, cut code, gain) and
    partition the split nodes' segments from ``src`` into ``dst`` (not on the
    last level, whose splits are marked in ``seg[:, 2]``).  Returns the splits
    as rows (row of H, heap index, start, mid, end) and their number."""
    spl = np.empty((active.shape[0], 5), dtype=np.intp)
    ns = 0
    for a in range(active.shape[0]):
        nd = active[a]
        if not best_gain[a] > threshold:
            continue
        b = best[a]
        f, kc = cand_col[b], cand_k[b]
        if tie_last[f]:
            kc = last_of_ties(H[a], offsets[f], nbins[f], kc)
        tree[0][nd] = f
        tree[1][nd] = kc
        tree[2][nd] = best_gain[a]
        start, end = seg[nd, 0], seg[nd, 1]
        seg[nd, 2] = 1                      # split: not a leaf segment
        if last:
            continue
        mid = _partition(codes, src, node, start, end, f, kc, nd, dst, par, nparts, rows_min)
        seg[2 * nd + 1, 0], seg[2 * nd + 1, 1], seg[2 * nd + 1, 2] = start, mid, 0
        seg[2 * nd + 2, 0], seg[2 * nd + 2, 1], seg[2 * nd + 2, 2] = mid, end, 0
        spl[ns, 0], spl[ns, 1], spl[ns, 2], spl[ns, 3], spl[ns, 4] = a, nd, start, mid, end
        ns += 1
    return spl, ns


@njit(**JIT)
def _leaf_tasks(seg, feature, kcut, size):
    """The leaf segments (open nodes; splits of the last level, whose children
    have no segment) as columns lo, hi, column (−1: no split), cut code, node."""
    tasks = np.empty((size, 5), dtype=np.intp)
    t = 0
    for nd in range(size):
        state = seg[nd, 2]
        last = state == 1 and (2 * nd + 1 >= size or seg[2 * nd + 1, 2] == -1)
        if state == 0 or last:
            tasks[t, 0], tasks[t, 1], tasks[t, 4] = seg[nd, 0], seg[nd, 1], nd
            tasks[t, 2] = feature[nd] if last else -1
            tasks[t, 3] = kcut[nd] if last else 0
            t += 1
    return tasks[:t]


@njit(**JIT)
def _finish(codes, order, buf, node, node_stale, seg, feature, kcut, stats, size, par, nparts,
            rows_min):
    """The node of the rows of the last level's splits (the root's, when it is a
    leaf) and the leaves' sums G, H of the first two statistics."""
    if seg[0, 2] == 0 and node_stale:
        node[:] = 0
    tasks = _leaf_tasks(seg, feature, kcut, size)
    lo, hi, feat, kc, heap = tasks[:, 0], tasks[:, 1], tasks[:, 2], tasks[:, 3], tasks[:, 4]
    split = np.flatnonzero(feat >= 0)
    if split.shape[0] > 0:
        rows = 0
        for s in split:
            rows += hi[s] - lo[s]
        n = nparts if par and rows >= rows_min else 1
        # the last level's segments: all in one permutation
        rows_of = order if _level(heap[split[0]]) % 2 == 0 else buf
        args = (codes, rows_of, lo[split], hi[split], feat[split], kc[split], heap[split], node,
                n)
        if n > 1:
            _ROUTE_PAR(*args)
        else:
            _ROUTE_SER(*args)
    # segments shared out whole, largest first to the least loaded core
    sizes = hi - lo
    n = min(nparts, lo.shape[0]) if par and sizes.sum() >= rows_min else 1
    group = np.zeros(lo.shape[0], dtype=np.intp)
    load = np.zeros(n)
    for s in np.argsort(-sizes, kind="mergesort"):
        group[s] = np.argmin(load)
        load[group[s]] += sizes[s]
    where = np.empty(lo.shape[0], dtype=np.intp)
    for t in range(lo.shape[0]):
        where[t] = _level(heap[t]) % 2
    G = np.zeros(size)
    H = np.zeros(size)
    if n > 1:
        _SUMS_PAR(codes, order, buf, where, lo, hi, feat, kc, heap, group, stats, G, H)
    else:
        _SUMS_SER(codes, order, buf, where, lo, hi, feat, kc, heap, group, stats, G, H)
    return G, H


@njit(**JIT)
def grow_newton(codes, feats, offsets, nbins, first, cand_col, cand_k, stats, H0, threshold,
                depth, lc, ml, rtol, order, buf, node, node_stale, limits, tie_last, par,
                nparts):
    """The Newton tree of ``trees._grow`` from the root's histogram ``H0`` (1,
    bins, k) and the least gain ``threshold``: (feature, cut code, gain, G, H,
    leaf value −G/H, 0 where H ≤ 0) per heap node; ``order``, ``buf`` and
    ``node`` are the workspace's (node set for every row).  ``par``: the kernels
    may run their parallel twins, on ``nparts`` parts, from the sizes
    ``limits`` (cells of a histogram, rows, candidates × nodes).  ``tie_last``:
    the binned columns whose split moves to the last of its ties
    (:func:`last_of_ties`)."""
    cells_min, rows_min, cand_min = limits[0], limits[1], limits[2]
    ncand = cand_col.shape[0]
    size = 2 ** (depth + 1) - 1
    feature = np.full(size, -1, dtype=np.int64)
    kcut = np.zeros(size, dtype=np.int64)
    gain = np.zeros(size)
    seg = np.full((size, 3), -1, dtype=np.intp)     # start, end, state (0 open, 1 split)
    seg[0, 0], seg[0, 1], seg[0, 2] = 0, stats.shape[0], 0
    H = H0
    active = np.zeros(1, dtype=np.intp)
    for level in range(depth):
        # a level's segments are in order (even levels) or buf (odd): its partitions
        # write the next level's into the other
        src, dst = (order, buf) if level % 2 == 0 else (buf, order)
        best, best_gain = _search(H, offsets, nbins, feats, first, ncand, lc, ml, rtol, par,
                                  nparts, cand_min)
        spl, ns = _split_level(H, active, best, best_gain, threshold, cand_col, cand_k,
                               level == depth - 1, codes, src, node, dst, seg,
                               (feature, kcut, gain), par, nparts, rows_min, offsets, nbins,
                               tie_last)
        if ns == 0:
            break
        H, active = _children(codes, feats, offsets, nbins, stats, dst, H, spl, ns, seg, par,
                              nparts, cells_min)
    G, Hs = _finish(codes, order, buf, node, node_stale, seg, feature, kcut, stats, size, par,
                    nparts, rows_min)
    value = np.zeros(size)
    for i in range(size):                   # np.where(H > 0, −G / H, 0.0)
        if Hs[i] > 0:
            value[i] = -G[i] / Hs[i]
    return feature, kcut, gain, G, Hs, value


def _serial_twins():
    """The drivers above compiled a second time with the serial kernels in place of the
    parallel ones: :func:`grow_newton_serial`.  A fit whose work is below every parallel
    threshold (or on one core) calls it, so that its first run compiles, and every later
    process loads, none of the parallel twins (7 of a first U-Boost fit's 22 s of
    compilation).  The same code on the same kernels: the same trees to the bit.  As
    :func:`ubreg.numerics.parallel.parallel_pair`, the twins are renamed, since numba's
    cache keys a function by its name and line."""
    import types
    scope = dict(globals(), _SPLIT_PAR=_SPLIT_SER, _PART_PAR=_PART_SER, _HIST_PAR=_HIST_SER,
                 _ROUTE_PAR=_ROUTE_SER, _SUMS_PAR=_SUMS_SER)
    for name in ("_search", "_partition", "_children", "_split_level", "_finish",
                 "grow_newton"):
        body = globals()[name].py_func
        twin = types.FunctionType(body.__code__, scope, name + "_serial", body.__defaults__,
                                  body.__closure__)
        twin.__qualname__ = name + "_serial"
        twin.__module__ = body.__module__
        scope[name] = njit(**JIT)(twin)     # the later drivers call the earlier twins
    return scope["grow_newton"]


grow_newton_serial = _serial_twins()
