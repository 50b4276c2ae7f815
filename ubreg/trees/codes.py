"""Compiled kernels on bin codes (numba): a value's code, a row's node.

* :func:`search_codes`: the bin code of each value (``np.searchsorted``'s answer);
* :func:`code_tree_slots`: the node a row reaches in a tree stored by node id
  (binned UDT's levels, in memory and on Dask partitions);
* :func:`heap_slots`, :func:`advance_F`: the node a row reaches in a tree in heap
  order (U-Boost's trees on Dask partitions), each row walking from the root once
  (:func:`advance_F` also counts the rows of each leaf).

``cache=True`` compiles once per machine; the module (and numba) is imported on
the first binned tree, not by ``import ubreg``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .histograms import JIT

__all__ = ["search_codes", "code_tree_slots", "heap_slots", "advance_F"]


@njit(**JIT)
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


@njit(**JIT)
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



@njit(inline="always", **JIT)
def _node(codes, feature, kcut, i):
    """The heap index of the node row i reaches (children of k at 2k + 1, 2k + 2;
    right when the code of ``feature[k]`` is above ``kcut[k]``; ``feature[k] < 0``
    at the tree's current leaves).  Inlined where it is called."""
    nd = 0
    f = feature[0]
    while f >= 0:
        nd = 2 * nd + 1 + (1 if codes[f, i] > kcut[nd] else 0)
        f = feature[nd] if nd < feature.shape[0] else -1
    return nd


@njit(**JIT)
def heap_slots(codes, feature, kcut, slots, out):
    """``out[i] = slots[node of row i]`` (:func:`_node`): the slot of the node row i
    reaches, with no array of nodes in between."""
    for i in range(codes.shape[1]):
        out[i] = slots[_node(codes, feature, kcut, i)]


@njit(**JIT)
def advance_F(codes, feature, kcut, value, nu, F, out, rows):
    """``out[i] = F[i] + nu * value[leaf]``, the leaf row i reaches (:func:`_node`):
    ``F + nu * value[leaves]`` with no array of leaves in between (the same
    products and sums); ``rows[leaf]`` counts the rows that reach each leaf."""
    for i in range(codes.shape[1]):
        nd = _node(codes, feature, kcut, i)
        out[i] = F[i] + nu * value[nd]
        rows[nd] += 1
