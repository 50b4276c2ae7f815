"""Compiled split-gain kernels of the UDT splitter (numba).

numpy evaluates a gain with one pass over memory per operation: the
square-root families (Matsushita / Kearns–Mansour, μ) take seven passes and
two ``np.sqrt`` per cut, against five cheap ones for gini, which made them
about 1.1–1.3× gini's fit time at 10^6 rows.  A kernel here computes the gain
of a cut in one pass, with the operations of the numpy code in the same order
(IEEE ``sqrt``, products and sums are correctly rounded; numba does not
reassociate without ``fastmath``, and no product feeds a sum directly, so no
fused multiply-add can form), so its gains are bit-identical to numpy's.  The entropy kernel
avoids ``log`` altogether: with unit weights every argument of v·ln v is a row count, read
from a table that numpy's own ``_xlogx`` filled (numba's ``log`` differs from
numpy's in the last bit now and then, a lookup does not).

``cache=True`` compiles each kernel once per machine (numba's cache in
``__pycache__``, or ``NUMBA_CACHE_DIR``); ``error_model="numpy"`` keeps
numpy's inf/nan semantics; single-threaded, ``nogil=True``.  The module (and
numba) is imported only by trees large enough to repay numba's start-up,
about 0.4 s of CPU and 100 MB once per process (or once numba is loaded
anyway; see :meth:`ubreg.trees.criterion.Criterion.kernels`), not by
``import ubreg``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def sqrt_gain_exact(lwy, lw, rwy, rw, out):
    """``out = √((lw − lwy)·lwy) + √((rw − rwy)·rwy)``; unit weights (exact
    integer sums, so no product is negative)."""
    for i in range(out.shape[0]):
        a = lwy[i]
        b = rwy[i]
        out[i] = np.sqrt((lw[i] - a) * a) + np.sqrt((rw[i] - b) * b)


@njit(**_JIT)
def sqrt_gain_clip(lwy, lw, rwy, rw, out):
    """As :func:`sqrt_gain_exact` with each product clipped at 0 first
    (rounding of weighted sums), as ``np.maximum(·, 0)``: NaN stays NaN."""
    for i in range(out.shape[0]):
        a = lwy[i]
        b = rwy[i]
        u = (lw[i] - a) * a
        v = (rw[i] - b) * b
        if u < 0.0:
            u = 0.0
        if v < 0.0:
            v = 0.0
        out[i] = np.sqrt(u) + np.sqrt(v)


@njit(**_JIT)
def entropy_gain_unit(lwy, lw, rwy, rw, wpart, table, out):
    """Entropy gain with unit weights: ``table[k]`` = k·ln k (numpy's value),
    every argument an exact row count below ``table.shape[0]``;
    ``out = xl(lwy) + xl(lw − lwy) + xl(rwy) + xl(rw − rwy) − wpart``,
    summed in that order."""
    for i in range(out.shape[0]):
        a = np.intp(lwy[i])
        b = np.intp(rwy[i])
        na = np.intp(lw[i]) - a
        nb = np.intp(rw[i]) - b
        out[i] = table[a] + table[na] + table[b] + table[nb] - wpart[i]
