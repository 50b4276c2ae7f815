"""Compiled elementwise maps of the U functions (numba).

NumPy's ``where`` and masked ``copyto`` branch on every element (a random sign
of the margin mispredicts half of them); a compiled loop selects without a
branch.  The exponentials and logarithms stay in NumPy, whose SIMD loops are
faster than numba's scalar calls.  Every operation is the one NumPy's path
performs, so the numbers are the same to the bit.  Imported on the first
boosting fit, not by ``import ubreg``.
"""
from __future__ import annotations

from typing import Any

from numba import njit

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def logistic_from_exp(z, e, d1, d2, tail):
    """Given e = exp(−|z|): d1 = −expit(−z), d2 = expit(z)·expit(−z) (as
    e/(1 + e) or 1/(1 + e) by the sign of z), tail = max(−z, 0)."""
    for i in range(z.shape[0]):
        den = e[i] + 1.0
        lo = e[i] / den
        hi = 1.0 / den
        pos = z[i] >= 0
        s_neg = lo if pos else hi
        s_pos = hi if pos else lo
        d1[i] = -s_neg
        d2[i] = s_neg * s_pos
        m = -z[i]
        tail[i] = 0.0 if m < 0.0 else m      # a NaN margin stays NaN, as np.maximum
