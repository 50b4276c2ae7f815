"""rpart's tree built level by level (or depth first), whatever finds the splits.

The builder of every rpart-style tree of the package (``method="udt"``: two classes
exact, with ``bins=``, on a Dask frame; K classes and priors).  It owns what does not
depend on where the rows are: the node table (:class:`NodeStore`, rpart's numbering:
root 1, children of k are 2k and 2k + 1), what a node's risk is made of (its
*statistics*: Σw·y for two classes, :class:`TwoClassStats`; the weight of every class
for K classes or priors, :class:`ClassStats`), the controls (``min_split``,
``min_leaf``, ``max_depth``, and the risk bound α = cp × the root's risk), the record
of each split (the source says which side goes left: with two classes the side with
the smaller proportion of y = 1, with K the side of smaller mean class index,
rpart's ``lmean < rmean``; a factor split's levels by side; missing values go to the
heavier child) and the growth loop (:func:`grow_levels`: level by level, or depth
first and left first as rpart's ``partition()``; :func:`rpart_growth_order` puts a
tree grown by levels in the order the depth-first growth creates its nodes).

A *source* owns the rows and answers three questions a level (the protocol
:class:`SplitSource`): the best split of every open node (a criterion of
:mod:`.criterion`, or rpart's K-class impurities, scoring its candidates), the sums
of the split nodes' children, and which children stay open.  Four sources exist:
presorted rows (:mod:`ubreg.fitters.udt.grow`: rpart's exact tree, surrogates for
missing values), histograms of coded predictors (:mod:`ubreg.fitters.udt.hist`: in
memory, or summed over the partitions of a Dask frame), and for K classes presorted
segments (:mod:`ubreg.fitters.udt.classlevel`) or, where rpart's ``iscale`` rule
needs the depth-first order, one node's rows at a time (:mod:`ubreg.fitters.udt.classes`).
"""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ..numerics import options as opt
from .class_stats import ClassWeights
from .columns import weight_floor
from .criterion import misclass_risk

__all__ = ["NodeStore", "RawTree", "LevelBuilder", "SplitSource", "grow_levels",
           "check_controls", "node_risk", "MAX_DEPTH", "TwoClassStats", "ClassStats",
           "rpart_growth_order"]

#: deepest level rpart's node numbering (2k, 2k + 1) fits in an int64
MAX_DEPTH = 62


class NodeStore:
    """Growable per-node arrays (amortised doubling).

    ``stats``: the fields of a node's statistics after ``weight``, by name: (dtype,
    shape of one node's value), e.g. ``{"wy": (float64, ())}`` or
    ``{"class_w": (float64, (K,))}``; ``defaults``: values of unsplit nodes that differ
    from :attr:`DEFAULTS`.
    """

    FIELDS = {
        "number": np.int64, "depth": np.int64, "parent": np.intp, "left": np.intp,
        "right": np.intp, "n": np.int64, "npos": np.int64, "weight": np.float64,
        "var": np.intp, "threshold": np.float64, "direction": np.int8,
        "cat_row": np.intp, "na_left": bool, "improve": np.float64, "n_tied": np.int64,
    }
    DEFAULTS = {"left": -1, "right": -1, "var": -1, "cat_row": -1, "parent": -1,
                "threshold": np.nan, "improve": 0.0}

    def __init__(self, stats: dict, defaults=None, capacity=64):
        self.size = 0
        self.cap = capacity
        names = list(self.FIELDS)
        at = names.index("weight") + 1
        self.kinds = {k: (self.FIELDS[k], ()) for k in names[:at]}
        self.kinds.update(stats)
        self.kinds.update({k: (self.FIELDS[k], ()) for k in names[at:]})
        self.defaults = {**self.DEFAULTS, **(defaults or {})}
        self.a = {k: self._blank(k, capacity) for k in self.kinds}

    def _blank(self, key, cap):
        dtype, shape = self.kinds[key]
        return np.full((cap,) + shape, self.defaults.get(key, 0), dtype=dtype)

    def add(self, k):
        """Allocate k nodes; return their ids."""
        need = self.size + k
        if need > self.cap:
            cap = max(need, 2 * self.cap)
            for key, arr in self.a.items():
                new = self._blank(key, cap)
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


class TwoClassStats:
    """A two-class node's statistics: Σw·y; its risk under ``risk`` ("misclass" or
    "surrogate") of the criterion ``crit``, whose improvements are recorded divided by
    ``crit.b`` (the criterion's scale)."""

    def __init__(self, crit, risk):
        self.crit, self.risk_kind = crit, risk
        self.fields = {"wy": (np.float64, ())}
        self.defaults: dict = {}
        self.scale = crit.b
        #: a factor split's ``direction`` (never read: ``cat_side`` routes); two-class
        #: trees have always stored −1 there
        self.factor_direction = None

    def risk(self, a, ids):
        return node_risk(self.crit, a["wy"][ids], a["weight"][ids], self.risk_kind)


class ClassStats:
    """A node's statistics with K classes or priors: the weight of every class
    (``class_w``); its risk rpart's (:meth:`ClassWeights.predicted`), its improvements
    recorded as the source finds them (rpart's ``improve``)."""

    def __init__(self, weights: ClassWeights, n_classes: int):
        self.weights = weights
        self.fields = {"class_w": (np.float64, (n_classes,))}
        # rpart's K-class trees as first grown here: unsplit nodes send missing values
        # left, factor splits have no direction (0); neither is ever read
        self.defaults = {"na_left": True}
        self.scale = 1.0
        self.factor_direction = 0

    def risk(self, a, ids):
        return self.weights.predicted(a["class_w"][ids])[1]


class SplitSource(Protocol):
    """What :func:`grow_levels` asks of the rows, once a level (see the module
    docstring).  ``best_splits`` returns the best split of every open node (arrays
    by node: ``improve``, ``var``, ``threshold``, ``low_left`` (the side below the
    threshold, or a factor split's first side, goes left), ``lw``, ``rw`` (the weights
    of the two sides, low side first), ``n_tied``, ``side`` ((nodes, lmax) int8, a
    factor split's side of each level; as ``_Best`` of :mod:`ubreg.fitters.udt.grow`))
    and the tolerance an improvement must exceed; ``children`` the sums (n, rows of
    positive weight, Σw, then the statistics' fields: Σw·y, or the class weights) of
    the children of the nodes ``ks`` of the level (left, right, in node order) once
    ``split`` (their ids, variables, thresholds, low_left, na_left) is recorded;
    ``keep`` is told which children stay open."""

    def best_splits(self, open_ids: np.ndarray, builder: LevelBuilder): ...

    def children(self, ks: np.ndarray, split: tuple, best, builder: LevelBuilder) -> tuple: ...

    def keep(self, kids: np.ndarray, open_mask: np.ndarray) -> None: ...


class LevelBuilder:
    """The node table and controls of one tree (see the module docstring).

    ``stats``: what a node carries (:class:`TwoClassStats`, :class:`ClassStats`);
    ``root`` holds the root's sums: ``n`` (rows), ``npos`` (rows of positive
    weight), ``weight`` (Σw) and the statistics' fields.  ``rows``: whether
    ``min_split`` and ``min_leaf`` count rows of positive weight (unit and prior
    weights, as rpart) rather than weight (frequency weights).
    """

    #: nodes of risk at most alpha are not split (set by the caller)
    alpha: float

    def __init__(self, stats, root: dict, min_split, min_leaf, max_depth, rows: bool,
                 lmax: int):
        self.stats, self.rows = stats, bool(rows)
        self.min_leaf, self.max_depth, self.lmax = min_leaf, max_depth, lmax
        self.store = NodeStore(stats.fields, stats.defaults)
        self.sums = ("n", "npos", "weight", *stats.fields)
        self.root = self.store.add(1)
        a = self.store.a
        a["number"][0] = 1
        for key in self.sums:
            a[key][0] = root[key]
        self.root_risk = float(stats.risk(a, 0))
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
        r = self.stats.risk(a, ids)
        return ((a[self.size_key][ids] >= self.min_size) & (a["depth"][ids] < self.max_depth)
                & (r > self.alpha))

    def record(self, ids, best, ks, categorical: np.ndarray):
        """Record the splits ``best[ks]`` at nodes ``ids``; the source's ``low_left``
        says which side is left.  ``categorical[j]``: whether predictor j is a factor.
        Returns (ids, var, threshold, low_left, na_left)."""
        a = self.store.a
        var_k, thr_k, low_k = best.var[ks], best.threshold[ks], best.low_left[ks]
        wl_k = np.where(low_k, best.lw[ks], best.rw[ks])
        wr_k = np.where(low_k, best.rw[ks], best.lw[ks])
        na_left_k = wl_k >= wr_k              # missing values: the heavier child
        kc = np.flatnonzero(categorical[var_k])
        a["var"][ids] = var_k
        a["threshold"][ids] = thr_k
        a["direction"][ids] = np.where(low_k, -1, 1)
        if self.stats.factor_direction is not None:
            a["direction"][ids[kc]] = self.stats.factor_direction
        a["na_left"][ids] = na_left_k
        a["improve"][ids] = best.improve[ks] / self.stats.scale
        a["n_tied"][ids] = best.n_tied[ks]
        if kc.size:
            self.cat_blocks = [np.concatenate(self.cat_blocks + [best.side[ks[kc]]])]
            a["cat_row"][ids[kc]] = self.n_cat + np.arange(kc.shape[0])
            self.n_cat += kc.shape[0]
        return ids, var_k, thr_k, low_k, na_left_k

    def add_children(self, ids, *sums):
        """Store two children of each node ``ids`` (left, right) with their sums (in the
        order of :attr:`sums`); returns their ids."""
        K = ids.shape[0]
        kids = self.store.add(2 * K)
        a = self.store.a
        par = np.repeat(ids, 2)
        a["parent"][kids] = par
        a["number"][kids] = 2 * a["number"][par] + np.tile([0, 1], K)
        a["depth"][kids] = a["depth"][par] + 1
        for key, value in zip(self.sums, sums, strict=True):
            a[key][kids] = value
        a["left"][ids] = kids[0::2]
        a["right"][ids] = kids[1::2]
        return kids

    def finish(self) -> RawTree:
        """The node arrays in growth order, and the factor splits' sides."""
        raw = RawTree(self.store.final())
        raw["cat_side"] = (np.concatenate(self.cat_blocks) if self.cat_blocks
                           else np.zeros((0, self.lmax), dtype=np.int8))
        return raw


def grow_levels(builder: LevelBuilder, source: SplitSource, categorical: np.ndarray,
                depth_first: bool = False) -> None:
    """Split until no open node splits: level after level (Algorithm 3 of Nock &
    Nielsen 2009, breadth first; the tree does not depend on the order in which its
    nodes grow: α is fixed), or with ``depth_first`` one node at a time, left child
    first, in the order of rpart's ``partition()`` (for a source whose choices depend
    on that order)."""
    todo = [builder.root[builder.splittable(builder.root)]]
    while todo:
        open_ids = todo.pop()
        if not open_ids.shape[0]:
            continue
        best, tol = source.best_splits(open_ids, builder)
        ks = np.flatnonzero(best.improve > tol)
        if ks.shape[0] == 0:
            continue
        split = builder.record(open_ids[ks], best, ks, categorical)
        kids = builder.add_children(split[0], *source.children(ks, split, best, builder))
        keep = builder.splittable(kids)
        source.keep(kids, keep)
        if depth_first:        # a stack of single nodes: the left child is popped first
            todo += [kids[i:i + 1] for i in np.flatnonzero(keep)[::-1]]
        else:
            todo.append(kids[keep])


def rpart_growth_order(raw: dict, surrogates: dict) -> dict:
    """Put the nodes of ``raw`` (from :meth:`LevelBuilder.finish`) in the order rpart's
    depth-first growth creates them (the root, then the two children of each split
    node in preorder, left first), in place, with their factor splits' rows of
    ``cat_side``; return ``surrogates`` (by node number) in that order of their nodes."""
    left, right = raw["left"], raw["right"]
    order, stack, splits = [0], [0], []
    while stack:
        i = stack.pop()
        if left[i] >= 0:
            splits.append(i)
            order += [int(left[i]), int(right[i])]
            stack += [int(right[i]), int(left[i])]
    order_a = np.asarray(order, dtype=np.intp)
    new = np.full(order_a.shape[0] + 1, -1, dtype=np.intp)     # new[-1] = -1: no node
    new[order_a] = np.arange(order_a.shape[0])
    cat = [i for i in splits if raw["cat_row"][i] >= 0]
    cat_rows = np.asarray([raw["cat_row"][i] for i in cat], dtype=np.intp)
    renumbered = np.full(order_a.shape[0], -1, dtype=raw["cat_row"].dtype)
    renumbered[cat] = np.arange(len(cat))
    numbers = [int(raw["number"][i]) for i in splits]
    for key in list(raw):
        v = raw[key]
        if key != "cat_side" and isinstance(v, np.ndarray) and v.shape[:1] == (len(order),):
            raw[key] = v[order_a]
    for key in ("parent", "left", "right"):
        raw[key] = new[raw[key]].astype(raw[key].dtype)
    raw["cat_row"] = renumbered[order_a]
    raw["cat_side"] = raw["cat_side"][cat_rows]
    return {k: surrogates[k] for k in numbers if k in surrogates}
