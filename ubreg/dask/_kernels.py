"""Compiled histogram kernel of the boosting passes on Dask frames (numba).

One pass over a partition's codes adds each row's statistics into the bin of
its node and column, in row order (so the sums are those of a loop over the
rows, whatever the scheduler).  ``cache=True`` compiles once per machine.
"""
from __future__ import annotations

from typing import Any

from numba import njit

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def slot_histograms(codes, feats, offsets, slot, stats, out):
    """``out[slot[i], offsets[j] + codes[j, i], :] += stats[i, :]`` for the columns
    ``feats`` and the rows with ``slot[i] >= 0``."""
    n = codes.shape[1]
    k = stats.shape[1]
    for jj in range(feats.shape[0]):
        j = feats[jj]
        off = offsets[j]
        for i in range(n):
            s = slot[i]
            if s >= 0:
                b = off + codes[j, i]
                for q in range(k):
                    out[s, b, q] += stats[i, q]
