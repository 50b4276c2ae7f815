"""The compiled stable partition of an ordering (numba; see :mod:`.partition`).

Imported only once numba is loaded anyway (:func:`.partition._partition_kernel`):
numba's start-up costs ~100 MB of memory.  Integer arithmetic only, so the
positions are those of the numpy code.  ``cache=True`` compiles once per machine.
"""
from __future__ import annotations

from typing import Any

from numba import njit

__all__ = ["stable_partition"]

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def stable_partition(order, go_left, A, C, out):
    """:func:`ubreg.fitters.udt.partition.partition` in one pass: position i, holding
    row ``order[i]``, moves to ``cl + A[i]`` when the row goes left and to
    ``C[i] − cl`` otherwise, cl the running count of left-going rows (integer
    arithmetic: the same positions as the numpy code)."""
    cl = 0
    for i in range(order.shape[0]):
        r = order[i]
        if go_left[r]:
            cl += 1
            out[cl + A[i]] = r
        else:
            out[C[i] - cl] = r
