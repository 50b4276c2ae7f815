"""Partition-wise sums reduced by a fixed tree, on whatever scheduler is active.

``dask.compute`` runs on the local threaded scheduler by default and on the
cluster of an active ``distributed.Client``; the tree's shape depends only on
the number of partitions, so the order of the floating-point additions (and
hence the result) is the same on both.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..numerics.aliasing import merge_scatter

__all__ = ["reduce_sums", "combine"]

_FAN_IN = 8
_MIN = frozenset({"pq_min", "h0_min"})
_MAX = frozenset({"colmax", "h0_max", "w_max"})
#: merged by a function of the two pieces: the weighted scatters of the design
#: (:func:`~ubreg.numerics.aliasing.merge_scatter`)
_MERGE = {"scatter": merge_scatter, "scatter_qr": merge_scatter}
#: kept from the first piece: the same in every partition (a tree's column specs)
_FIRST = frozenset({"specs"})


def _merge_ranges(a, b):
    # the extreme values of a tree's codes (ubreg.fitters.udt.hist.merge_ranges)
    from ..fitters.udt.hist import merge_ranges
    return merge_ranges(a, b)


_MERGE["code_ranges"] = _merge_ranges


def combine(pieces: list) -> dict:
    """Add partition-wise sums key by key (min/max for the extremes, NA
    counts merged by name in order of appearance, scatter factors merged)."""
    out: dict[str, Any] = {}
    for piece in pieces:
        for key, value in piece.items():
            if key not in out:
                out[key] = dict(value) if key == "na_counts" else value
            elif key == "na_counts":
                for name, k in value.items():
                    out[key][name] = out[key].get(name, 0) + k
            elif key in _FIRST:
                continue
            elif key in _MERGE:
                out[key] = _MERGE[key](out[key], value)
            elif key in _MIN:
                out[key] = min(out[key], value)
            elif key in _MAX:
                out[key] = np.maximum(out[key], value)
            else:
                out[key] = out[key] + value
    return out


def _apply(func, frame, args):
    return func(frame, *args)


def reduce_sums(frames: list, func, *args) -> dict:
    """``combine([func(f, *args) for f in frames])`` as one dask graph.

    ``frames`` are delayed (or persisted) partition dicts; ``func`` runs next
    to its partition and only the small sums travel.
    """
    import dask
    from dask import delayed

    level = [delayed(_apply)(func, f, args) for f in frames]
    while len(level) > 1:
        level = [delayed(combine)(level[i:i + _FAN_IN])
                 for i in range(0, len(level), _FAN_IN)]
    (out,) = dask.compute(level[0])
    return out
