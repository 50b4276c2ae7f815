"""The level-wise builder of binned trees in heap order, whatever sums the histograms.

One loop grows the trees of ULS and t-AdaBoost in memory (:func:`ubreg.trees.shallow.grow_tree`)
and U-Boost's trees on a Dask frame (:class:`ubreg.dask.boost_passes.Rounds`): level by level,
the split search scores every open node's histogram, a node whose best gain exceeds the
threshold is split there, and the data source gives the next level's histograms (in
memory: the rows partitioned and the smaller child summed by the compiled kernels; on
Dask: one pass over the partitions).  U-Boost's in-memory Newton trees run the same
rules in one compiled call (:mod:`ubreg.trees._newton_grower`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .binning import BinnedDesign
from .weak_tree import WeakTree

__all__ = ["grow_level_wise"]


def grow_level_wise(tree: WeakTree, depth: int, binned: BinnedDesign, H: np.ndarray,
                    search: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                    threshold: float, *, split_node: Callable[..., Any],
                    children: Callable[..., tuple[np.ndarray, list]],
                    leaf: Callable[..., None] | None = None) -> WeakTree:
    """Grow ``tree`` (a table in heap order, :meth:`WeakTree.heap`) to ``depth`` levels
    from the root's histogram ``H``.

    Every level, ``search(H)`` gives each open node's best candidate and its gain (a row
    of H per node, in heap order).  A node whose gain exceeds ``threshold`` is split on its
    candidate: column, cut value and gain go into ``tree`` (:meth:`WeakTree.split_heap`) and
    ``split_node(H, a, nd, column, cut_code, last)`` (``a`` the node's row of H, ``nd`` its
    heap index, ``last`` whether this is the last level) returns what the source needs to
    sum its children, or None; any other node is a leaf, ``leaf(H, a, nd)``.  Unless this
    was the last level or no node split, ``children(H, split, level)`` gives the next
    level's histograms and their heap indices.
    """
    _, col, kk = binned.candidates()
    active = [0]
    for level in range(depth):
        best, gain = search(H)
        last = level == depth - 1
        split = []
        for a, nd in enumerate(active):          # ≤ 2^depth nodes per level
            if not gain[a] > threshold:
                if leaf is not None:
                    leaf(H, a, nd)
                continue
            f, kcut = int(col[best[a]]), int(kk[best[a]])
            tree.split_heap(nd, f, binned.cut_value(f, kcut), gain[a])
            record = split_node(H, a, nd, f, kcut, last)
            if record is not None:
                split.append(record)
        if last or not split:
            break
        H, active = children(H, split, level)
    return tree
