"""Compiled kernels of the boosting passes on Dask frames (numba).

A partition's rows are sent down the tree grown so far by their codes (each
row walks from the root once), and its histograms are summed by
:func:`ubreg.fitters.udt._kernels.grouped_histograms`: rows grouped by node,
every bin adding its rows in row order (so the sums are those of a loop over
the rows, whatever the scheduler).  ``cache=True`` compiles once per machine.
"""
from __future__ import annotations

from typing import Any

from numba import njit

from ..fitters.udt._kernels import grouped_histograms, grouped_histograms_into

__all__ = ["heap_slots", "advance_F", "grouped_histograms", "grouped_histograms_into"]

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(inline="always", **_JIT)
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


@njit(**_JIT)
def heap_slots(codes, feature, kcut, slots, out):
    """``out[i] = slots[node of row i]`` (:func:`_node`): the slot of the node row i
    reaches, with no array of nodes in between."""
    for i in range(codes.shape[1]):
        out[i] = slots[_node(codes, feature, kcut, i)]


@njit(**_JIT)
def advance_F(codes, feature, kcut, value, nu, F, out):
    """``out[i] = F[i] + nu * value[leaf]``, the leaf row i reaches (:func:`_node`):
    ``F + nu * value[leaves]`` with no array of leaves in between (the same
    products and sums)."""
    for i in range(codes.shape[1]):
        out[i] = F[i] + nu * value[_node(codes, feature, kcut, i)]
