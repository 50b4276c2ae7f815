"""rpart's tree built level by level, whatever finds the splits.

The builder of every two-class rpart-style tree of the package (``method="udt"``:
exact, with ``bins=``, on a Dask frame).  It owns what does not depend on where
the rows are: the node table (:class:`NodeStore`, rpart's numbering: root 1,
children of k are 2k and 2k + 1), the controls (``min_split``, ``min_leaf``,
``max_depth``, and the risk bound α = cp × the root's risk), the record of each
split (rpart's left child is the side with the smaller proportion of y = 1;
missing values go to the heavier child) and the level loop (:func:`grow_levels`).

A *source* owns the rows and answers three questions a level (the protocol
:class:`SplitSource`): the best split of every open node (a criterion of
:mod:`.criterion` scoring its candidates), the sums of the split nodes' children,
and which children stay open.  Two sources exist: presorted rows
(:mod:`ubreg.fitters.udt.grow`: rpart's exact tree, surrogates for missing
values) and histograms of coded predictors (:mod:`ubreg.fitters.udt.hist`: in
memory, or summed over the partitions of a Dask frame).
"""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ..numerics import options as opt
from .columns import weight_floor
from .criterion import misclass_risk

__all__ = ["NodeStore", "RawTree", "LevelBuilder", "SplitSource", "grow_levels",
           "check_controls", "node_risk", "MAX_DEPTH"]

#: deepest level rpart's node numbering (2k, 2k + 1) fits in an int64
MAX_DEPTH = 62


class NodeStore:
    """Growable per-node arrays (amortised doubling)."""

    FIELDS = {
        "number": np.int64, "depth": np.int64, "parent": np.intp, "left": np.intp,
        "right": np.intp, "n": np.int64, "npos": np.int64, "weight": np.float64,
        "wy": np.float64, "var": np.intp, "threshold": np.float64, "direction": np.int8,
        "cat_row": np.intp, "na_left": bool, "improve": np.float64, "n_tied": np.int64,
    }
    DEFAULTS = {"left": -1, "right": -1, "var": -1, "cat_row": -1, "parent": -1,
                "threshold": np.nan, "improve": 0.0}

    def __init__(self, capacity=64):
        self.size = 0
        self.cap = capacity
        self.a = {k: np.full(capacity, self.DEFAULTS.get(k, 0), dtype=t)
                  for k, t in self.FIELDS.items()}

    def add(self, k):
        """Allocate k nodes; return their ids."""
        need = self.size + k
        if need > self.cap:
            cap = max(need, 2 * self.cap)
            for key, arr in self.a.items():
                new = np.full(cap, self.DEFAULTS.get(key, 0), dtype=arr.dtype)
                new[: self.size] = arr[: self.size]
                self.a[key] = new
            self.cap = cap
        ids = np.arange(self.size, need, dtype=np.intp)
        self.size = need
        return ids

    def final(self):
        return {k: v[: self.size].copy() for k, v in self.a.items()}


class RawTree(dict):
    """Node arrays in growth order plus ``cat_side`` (int8, one row per
    categorical split: 1 = level sent left, 2 = right, 0 = absent from the node)
    and ``surrogates`` (by node number, where the source found them)."""


def check_controls(min_split, min_leaf, max_depth, cp, risk):
    """Validate the rpart-style controls; return them normalised."""
    if max_depth is None:
        max_depth = MAX_DEPTH
    min_split = opt.whole(min_split, "min_split", 1, 2 ** 62)
    min_leaf = opt.whole(min_leaf, "min_leaf", 1, 2 ** 62)
    # rpart node numbers must fit in 64 bits
    max_depth = opt.whole(max_depth, "max_depth", 0, MAX_DEPTH)
    cp = opt.real(cp, "cp", 0.0, math.inf)
    if risk not in ("surrogate", "misclass"):
        raise ValueError(f"risk must be 'surrogate' or 'misclass', got {risk!r}")
    return min_split, min_leaf, max_depth, cp, risk


def node_risk(crit, wy, w, risk):
    """Risk of nodes under the chosen measure (absolute, not relative)."""
    if risk == "misclass":
        return misclass_risk(wy, w)
    return crit.surrogate_risk(wy, w)


class SplitSource(Protocol):
    """What :func:`grow_levels` asks of the rows, once a level (see the module
    docstring).  ``best_splits`` returns the best split of every open node (a
    ``_Best`` of :mod:`ubreg.fitters.udt.grow`: ``improve``, ``var``,
    ``threshold``, ``low_left``, ``lw``, ``rw``, ``n_tied``, ``side``) and the
    tolerance an improvement must exceed; ``children`` the sums (n, rows of
    positive weight, Σw, Σw·y) of the children of the nodes ``ks`` of the level
    (left, right, in node order) once ``split`` (their ids, variables,
    thresholds, low_left, na_left) is recorded; ``keep`` is told which children
    stay open."""

    def best_splits(self, open_ids: np.ndarray, builder: LevelBuilder): ...

    def children(self, ks: np.ndarray, split: tuple, best, builder: LevelBuilder) -> tuple: ...

    def keep(self, kids: np.ndarray, open_mask: np.ndarray) -> None: ...


class LevelBuilder:
    """The node table and controls of one tree (see the module docstring).

    ``root`` holds the root's sums: ``n`` (rows), ``npos`` (rows of positive
    weight), ``weight`` (Σw) and ``wy`` (Σw·y).  ``rows``: whether ``min_split``
    and ``min_leaf`` count rows of positive weight (unit and prior weights, as
    rpart) rather than weight (frequency weights).
    """

    #: nodes of risk at most alpha are not split (set by the caller)
    alpha: float

    def __init__(self, crit, root: dict, min_split, min_leaf, max_depth, risk, rows: bool,
                 lmax: int):
        self.crit, self.risk, self.rows = crit, risk, bool(rows)
        self.min_leaf, self.max_depth, self.lmax = min_leaf, max_depth, lmax
        self.store = NodeStore()
        self.root = self.store.add(1)
        a = self.store.a
        a["number"][0] = 1
        for key in ("n", "npos", "weight", "wy"):
            a[key][0] = root[key]
        self.root_risk = float(node_risk(crit, a["wy"][0], a["weight"][0], risk))
        min_rows = max(min_split, 2 * min_leaf)
        # min_split / min_leaf count observations: rows with unit and prior weights,
        # the sum of the frequency weights otherwise (less a rounding tolerance)
        self.size_key = "npos" if self.rows else "weight"
        self.min_size = min_rows if self.rows else weight_floor(min_rows, a["weight"][0])
        self.leaf_w = weight_floor(min_leaf, a["weight"][0])
        self.cat_blocks: list = []
        self.n_cat = 0

    def splittable(self, ids):
        """Nodes that may split: enough observations, above max_depth, risk > alpha."""
        a = self.store.a
        r = node_risk(self.crit, a["wy"][ids], a["weight"][ids], self.risk)
        return ((a[self.size_key][ids] >= self.min_size) & (a["depth"][ids] < self.max_depth)
                & (r > self.alpha))

    def record(self, ids, best, ks, categorical: np.ndarray):
        """Record the splits ``best[ks]`` at nodes ``ids``; the left child is the side
        with the smaller p (rpart).  ``categorical[j]``: whether predictor j is a
        factor.  Returns (ids, var, threshold, low_left, na_left)."""
        a = self.store.a
        var_k, thr_k, low_k = best.var[ks], best.threshold[ks], best.low_left[ks]
        wl_k = np.where(low_k, best.lw[ks], best.rw[ks])
        wr_k = np.where(low_k, best.rw[ks], best.lw[ks])
        na_left_k = wl_k >= wr_k              # missing values: the heavier child
        a["var"][ids] = var_k
        a["threshold"][ids] = thr_k
        a["direction"][ids] = np.where(low_k, -1, 1)
        a["na_left"][ids] = na_left_k
        a["improve"][ids] = best.improve[ks] / self.crit.b
        a["n_tied"][ids] = best.n_tied[ks]
        kc = np.flatnonzero(categorical[var_k])
        if kc.size:
            self.cat_blocks = [np.concatenate(self.cat_blocks + [best.side[ks[kc]]])]
            a["cat_row"][ids[kc]] = self.n_cat + np.arange(kc.shape[0])
            self.n_cat += kc.shape[0]
        return ids, var_k, thr_k, low_k, na_left_k

    def add_children(self, ids, n, npos, weight, wy):
        """Store two children of each node ``ids`` (left, right) with their sums;
        returns their ids."""
        K = ids.shape[0]
        kids = self.store.add(2 * K)
        a = self.store.a
        par = np.repeat(ids, 2)
        a["parent"][kids] = par
        a["number"][kids] = 2 * a["number"][par] + np.tile([0, 1], K)
        a["depth"][kids] = a["depth"][par] + 1
        a["n"][kids] = n
        a["npos"][kids] = npos
        a["weight"][kids] = weight
        a["wy"][kids] = wy
        a["left"][ids] = kids[0::2]
        a["right"][ids] = kids[1::2]
        return kids

    def finish(self) -> RawTree:
        """The node arrays in growth order, and the factor splits' sides."""
        raw = RawTree(self.store.final())
        raw["cat_side"] = (np.concatenate(self.cat_blocks) if self.cat_blocks
                           else np.zeros((0, self.lmax), dtype=np.int8))
        return raw


def grow_levels(builder: LevelBuilder, source: SplitSource, categorical: np.ndarray) -> None:
    """Split level after level until no open node splits (Algorithm 3 of Nock &
    Nielsen 2009, breadth first; the tree does not depend on the order in which
    its nodes grow: α is fixed)."""
    open_ids = builder.root[builder.splittable(builder.root)]
    while open_ids.shape[0]:
        best, tol = source.best_splits(open_ids, builder)
        ks = np.flatnonzero(best.improve > tol)
        if ks.shape[0] == 0:
            return
        split = builder.record(open_ids[ks], best, ks, categorical)
        kids = builder.add_children(split[0], *source.children(ks, split, best, builder))
        keep = builder.splittable(kids)
        source.keep(kids, keep)
        open_ids = kids[keep]
