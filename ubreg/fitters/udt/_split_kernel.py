"""The compiled split search of one numeric predictor (numba; see :mod:`.fused`).

:func:`ubreg.fitters.udt.splitter.numeric_best` with unit weights and no
missing values makes about a dozen numpy passes over the level's ordering
(gather y, cumulative sums, the gain's products, the distinctness test, the
segment maxima, the ties), each writing an array of the level's size.
:func:`best_cuts` makes one pass per segment that computes every cut's gain,
keeps it in a buffer and the segment's best, and a second pass over the
buffer for the ties: the same numbers, with the operations of the numpy code
in the same order (IEEE products, quotients, sums and ``sqrt`` are correctly
rounded; numba neither reassociates nor fuses a product into a sum without
``fastmath``), so the same candidates bit for bit.

Gains (``kind``): 0 gini (y_L²·(1/n_L) + y_R²·(1/n_R), maximised), 1 square root
(√((n_L − y_L)·y_L) + √((n_R − y_R)·y_R), minimised), 2 entropy
(Σ v·ln v of the children's class counts less n_L ln n_L + n_R ln n_R,
maximised; v·ln v read from ``table``, numpy's values, as
:func:`ubreg.trees.gain_kernels.entropy_gain_unit` reads them).  ``scale``
multiplies the gain afterwards when it is not 1, as the criteria do.

``cache=True`` compiles once per machine; ``nogil=True``: predictors are
searched on a thread per core.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["best_cuts", "CHUNK", "GINI", "SQRT", "ENTROPY"]

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")

GINI, SQRT, ENTROPY = 0, 1, 2
#: positions of a segment whose x are gathered at once (1 MB)
CHUNK = 1 << 17


@njit(inline="always", **_JIT)
def _raw_gain(kind, lwy, lw, rwy, rw, nl, nr, yl, yr, table):
    """The criterion's raw gain at one cut (``raw_sign`` × gain before ``scale``)."""
    if kind == GINI:
        # numpy: (lwy·lwy)·(1/lw) + (rwy·rwy)·(1/rw)
        return lwy * lwy * (1.0 / lw) + rwy * rwy * (1.0 / rw)
    if kind == SQRT:
        return np.sqrt((lw - lwy) * lwy) + np.sqrt((rw - rwy) * rwy)
    # numpy: table[a] + table[na] + table[b] + table[nb] − (xl(lw) + xl(rw))
    part = table[nl] + table[nr]
    return table[yl] + table[nl - yl] + table[yr] + table[nr - yr] - part


@njit(inline="always", **_JIT)
def _cut_gain(kind, sign, scale, cum, T, nl, nr, min_leaf, tie, table):
    """The gain of the cut after ``nl`` of a segment's rows (``cum`` of them
    positive), or the worst value where the cut is no candidate.  Computed
    whether or not it is one, then selected: no branch on the data (ties
    between neighbours come and go at random)."""
    lwy = float(cum)
    rwy = T - lwy
    g = _raw_gain(kind, lwy, float(nl), rwy, float(nr), nl, nr, cum, np.intp(rwy), table)
    if scale != 1.0:
        g = g * scale
    worst = -np.inf if sign > 0 else np.inf
    return worst if (nl < min_leaf) | (nr < min_leaf) | tie else g


@njit(**_JIT)
def best_cuts(kind, sign, scale, x, order, y8, start, length, twy, tol, min_leaf, has_dups,
              table, ys, xs, gains, out_f, out_i):
    """The best cut of ``x`` in every segment of the level.

    Parameters
    ----------
    kind, sign, scale : the gain (module docstring), its ``raw_sign`` and scale
    x : (n,) float64, the predictor
    order : (m,) the level's ordering of ``x`` (rows by segment, sorted within)
    y8 : (n,) uint8, the response
    start, length, twy, tol : per segment: first position, rows, Σ y, tie tolerance
    min_leaf : least rows a child
    has_dups : whether ``x`` has repeated values (cuts between equal values are
        no candidates)
    table : k·ln k for k up to the largest segment (entropy), else unread
    ys, gains : (≥ m,) uint8 and float64 scratch: y in ``order``, each cut's gain
    xs : (CHUNK + 1,) float64 scratch: x in ``order``, a chunk of a segment at a
        time (written only with ``has_dups``)
    out_f : (7, S) float64: best (numpy's ``best``), and at the first cut within
        ``tol`` of it: lwy, lw, rwy, rw, x there and at the next position
    out_i : (2, S) int64: cuts within ``tol`` (0 if none is admissible), and
        the first of them (the segment's start if none)
    """
    m = order.shape[0]
    # the gathers first, each in a loop of its own (as np.take: many loads in
    # flight), then the segment's cuts read them in order: y for the level, x a
    # chunk at a time (and the next position's)
    for i in range(m):
        ys[i] = y8[order[i]]
    for s in range(start.shape[0]):
        a, L, T = start[s], length[s], twy[s]
        cum = 0
        best = -np.inf if sign > 0 else np.inf
        for c0 in range(a, a + L, CHUNK):
            c1 = min(c0 + CHUNK, a + L)
            if has_dups:
                for i in range(c0, min(c1 + 1, m)):
                    xs[i - c0] = x[order[i]]
            for i in range(c0, c1):
                cum += ys[i]
                # at the level's last position xs[i − c0 + 1] is stale: no cut there
                g = _cut_gain(kind, sign, scale, cum, T, i - a + 1, a + L - 1 - i, min_leaf,
                              has_dups and xs[i - c0 + 1] == xs[i - c0], table)
                best = max(best, g) if sign > 0 else min(best, g)
                gains[i] = g
        first, n_tied = a, 0
        if np.isfinite(best):
            thr = best - tol[s] if sign > 0 else best + tol[s]
            for i in range(a + L - 1, a - 1, -1):
                if (gains[i] >= thr) if sign > 0 else (gains[i] <= thr):
                    first = i
                    n_tied += 1
        cum = 0
        for i in range(a, first + 1):
            cum += ys[i]
        nl = first - a + 1
        out_f[0, s] = best if sign > 0 else -best
        out_f[1, s] = float(cum)
        out_f[2, s] = float(nl)
        out_f[3, s] = T - float(cum)
        out_f[4, s] = float(L - nl)
        out_f[5, s] = x[order[first]]
        out_f[6, s] = x[order[min(first + 1, m - 1)]]
        out_i[0, s] = n_tied
        out_i[1, s] = first
