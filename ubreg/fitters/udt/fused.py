"""The split search of large levels in one compiled pass per predictor.

:func:`fused_candidates` gives, for the numeric predictors without missing
values of a tree with unit weights, the :class:`~.splitter.Candidates` that
:func:`~.splitter.numeric_best` gives, bit for bit
(:mod:`ubreg.fitters.udt._split_kernel` says why), in one pass over each
ordering instead of a dozen numpy passes, and without the level's float
buffers.  The predictors are shared out among the cores (the kernel runs
without the GIL; each predictor's candidates are its own, and
:func:`~.grow._best_splits` combines them in column order, so the threads
change nothing).

It serves the criteria with a closed form (gini, the square-root families,
entropy), on levels of at least ``JIT_MIN_CUTS`` cuts, when the tree planned
its kernels (:meth:`~.criterion.Criterion.plan_kernels`: large enough to repay
numba's start-up) or numba is loaded anyway.
"""
from __future__ import annotations

import sys

import numpy as np

from ...numerics.threads import run_parts, workers
from ...trees.criterion import JIT_MIN_CUTS
from .splitter import Candidates, cut_midpoint

__all__ = ["fused_kind", "fused_candidates"]


def fused_kind(crit, m: int, unit: bool) -> int | None:
    """The kernel's code of ``crit``'s gain when a level of ``m`` cuts with weights
    ``unit`` is searched by :func:`fused_candidates`, else None."""
    if not unit or m < JIT_MIN_CUTS or not (crit.compiled or "numba" in sys.modules):
        return None
    from . import _split_kernel as kern
    return {"gini": kern.GINI, "sqrt": kern.SQRT, "entropy": kern.ENTROPY}.get(crit.kind)


def _table(crit, kind, lay) -> np.ndarray:
    """k·ln k for the counts k up to the largest segment (entropy), else a dummy."""
    from . import _split_kernel as kern
    if kind == kern.ENTROPY:
        return crit._table(int(lay.length.max(initial=0)))
    return np.zeros(1)


def fused_candidates(kind: int, predictors, values, orders, y8, has_dups, lay, crit,
                     ws) -> dict:
    """``{j: Candidates}`` of each of ``predictors`` (numeric, no missing value),
    as :func:`~.splitter.numeric_best` finds them with unit weights; ``ws``, the
    tree's :class:`~.splitter.Workspace`, holds the threads' scratch."""
    from . import _split_kernel as kern

    table = _table(crit, kind, lay)
    scale = float(getattr(crit, "scale", 1.0))
    start = np.ascontiguousarray(lay.start, dtype=np.intp)
    length = np.ascontiguousarray(lay.length, dtype=np.intp)
    twy = np.ascontiguousarray(lay.twy, dtype=np.float64)
    tol = np.ascontiguousarray(lay.tol, dtype=np.float64)
    S = lay.S

    n = min(workers(), len(predictors))
    # each thread's scratch, allocated by this thread (a worker thread's allocations
    # come from its own malloc arena, which the tree's other arrays could not reuse)
    scratch = ws.fused(n, kern.CHUNK)
    sums = {j: (np.empty((7, S)), np.empty((2, S), dtype=np.int64)) for j in predictors}

    def search(t):
        ys, xs, gains = scratch[t]
        for j in predictors[t::n]:
            kern.best_cuts(kind, crit.raw_sign, scale, values[j], orders[j], y8, start, length,
                           twy, tol, lay.min_leaf, has_dups[j], table, ys, xs, gains,
                           *sums[j])

    run_parts(search, list(range(n)))
    return {j: _candidates(*sums[j], lay) for j in predictors}


def _candidates(out_f, out_i, lay) -> Candidates:
    """The kernel's per-segment results as numeric_best returns them."""
    best, lwy, lw, rwy, rw, xa, xb = out_f
    n_tied, first = out_i
    found = np.isfinite(best)
    improve = np.where(found, lay.parent - (lay.offset - best), -np.inf)
    threshold, low_left = cut_midpoint(xa, xb, lwy, lw, rwy, rw, found)
    return Candidates(improve=improve, n_tied=np.where(found, n_tied, 0), threshold=threshold,
                      lw=lw, rw=rw, low_left=low_left)
