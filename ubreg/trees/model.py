"""The fitted UDT tree: node table, prediction, risks, pruning.

A :class:`Tree` holds plain numpy arrays, one entry per node in rpart's order
(depth first, left child first; root 1, children of k are 2k and 2k + 1), the
column specs (names, kinds, levels) and the family.  It holds no training data
and is never mutated: :meth:`Tree.prune` returns a new tree.  It predicts through
the package's one tree predictor (:func:`ubreg.trees.predictor.descend`, which the weak
learners' :class:`~ubreg.trees.weak_tree.WeakTree` uses too), its node arrays laid out
as the predictor's table by :func:`ubreg.trees.route.route` (a tie x = threshold is not
x < threshold; ``direction`` +1 flips a node's sides; factors by their side table;
missing values by the surrogate splits, then ``na_left``).

Leaf values (eq. 106, Theorem 4): a leaf k carries p_k, the weighted
proportion of y = 1 (response scale), and H_k = ∇φ(p_k) (link scale).  At a
pure leaf ∇φ(0) or ∇φ(1) is infinite for families whose link domain is
unbounded; the link is then capped at ∇φ(ε) or ∇φ(1 − ε) with
``LINK_EPS`` = 1e-12.  For a bounded link domain (gini: [−1, 1]) the bound
itself is used, which is ∇φ(0) or ∇φ(1).
"""
from __future__ import annotations

from functools import cached_property
from typing import TypeVar

import numpy as np
import pandas as pd

from .columns import CATEGORICAL, align_columns
from .criterion import make_criterion, misclass_risk
from .prune import cp_rows
from .route import route

__all__ = ["Tree", "TreeT", "leaf_link", "LINK_EPS"]

#: a Tree or a subclass of it (what its copies keep)
TreeT = TypeVar("TreeT", bound="Tree")

#: probability clip used to cap the link of pure leaves (unbounded link domains)
LINK_EPS = 1e-12

_PREDICT_TYPES = ("response", "link", "class", "leaf")


#: rpart's impurity over the family's −φ (scaled to 1 at p = 1/2): gini 2p(1 − p),
#: information the entropy in nats
_RPART_UNITS = {"gini": 0.5, "entropy": float(np.log(2.0))}


def leaf_link(family, p):
    """∇φ(p) capped at pure leaves (see the module docstring).

    Evaluated as ∇φ(p) for p ≤ 1/2 and −∇φ(1 − p) above (φ is symmetric
    about 1/2), which keeps the capped links of p = 0 and p = 1 opposite.
    """
    p = np.asarray(p, dtype=np.float64)
    lo, hi = family.link_domain
    q = np.minimum(p, 1.0 - p)                 # exact for p ≥ 1/2 (Sterbenz)
    low = p <= 0.5
    tiny = np.nextafter(0.0, 1.0)
    floor = tiny if (np.isfinite(lo) and np.isfinite(hi)) else LINK_EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.asarray(family.dphi(np.clip(q, floor, 0.5)), dtype=np.float64)
    link = np.where(low, half, -half)
    if np.isfinite(lo):
        link = np.where(p <= 0.0, lo, link)
    if np.isfinite(hi):
        link = np.where(p >= 1.0, hi, link)
    return link


class Tree:
    """A fitted UDT tree (Algorithm 3).

    Build it with :func:`ubreg.fitters.udt.grow_tree`.  Main attributes:
    :attr:`frame` (one row per node), :attr:`leaves`, :attr:`cptable`,
    :attr:`variable_importance`, :attr:`deviance`, :attr:`null_deviance`,
    :attr:`surrogate_risk`, :attr:`surrogates`; methods :meth:`apply`, :meth:`predict`,
    :meth:`prune`, :meth:`listing`.
    """

    #: one unit of the node statistics in the weights' own units (trees pickled before
    #: it existed hold the weights' own units)
    weight_unit = 1.0

    def __init__(self, nodes, specs, family, controls, alpha, risk, weight_unit=1.0):
        self.nodes = nodes
        self.specs = list(specs)
        self.family = family
        self.controls = dict(controls)
        #: the complexity floor α = cp × root risk (in the units of the node statistics)
        self.alpha = float(alpha)
        #: risk measure of the cp pruning: "misclass" (rpart's) or "surrogate"
        self.risk = risk
        self.weight_unit = float(weight_unit)

    def in_weight_unit(self: TreeT, unit: float) -> TreeT:
        """This tree grown on weights divided by ``unit``, presented in the weights' own
        units: what is in their units (node weights, risks, improvements, the deviance)
        is multiplied by ``unit`` when shown, while everything relative (CP, the cp table,
        pruning) is computed from the grown statistics, so that weights of 5e-324 or
        1e300 give the cp table of unit weights (their sums would be subnormal or
        infinite)."""
        if unit == 1.0:
            return self
        return self.replace(weight_unit=self.weight_unit * unit)

    #: what defines a tree (its other attributes are cached from these)
    _STATE: tuple[str, ...] = ("nodes", "specs", "family", "controls", "alpha", "risk",
                               "weight_unit")

    def replace(self: TreeT, **changes) -> TreeT:
        """A tree of the same class with some of :attr:`_STATE` changed (the caches
        are not carried over)."""
        out = object.__new__(type(self))
        out.__dict__.update({k: self.__dict__[k] for k in self._STATE if k in self.__dict__})
        out.__dict__.update(changes)
        return out

    def times_power_of_two(self, e: int) -> Tree:
        """:meth:`in_weight_unit` of 2^e (a tree grown on weights divided by 2^e)."""
        return self.in_weight_unit(float(np.ldexp(1.0, e)))

    def _in_weight_units(self, x):
        """``x`` (in the units of the node statistics) in the weights' own units."""
        if self.weight_unit == 1.0:
            return x
        return np.asarray(x, dtype=np.float64) * self.weight_unit

    # ---- per-node quantities ----------------------------------------------
    @property
    def n_nodes(self):
        return self.nodes["number"].shape[0]

    @property
    def is_leaf(self):
        return self.nodes["left"] < 0

    @cached_property
    def yprob(self):
        """Weighted proportion of y = 1 in each node."""
        return self.nodes["wy"] / self.nodes["weight"]

    @cached_property
    def _grown_surrogate_risk(self):
        return make_criterion(self.family).surrogate_risk(self.nodes["wy"], self.nodes["weight"])

    @cached_property
    def _grown_misclass(self):
        return misclass_risk(self.nodes["wy"], self.nodes["weight"])

    @property
    def node_surrogate_risk(self):
        """w(S_k)(−φ(p_k) − a_φ)/b_φ per node, = Σ_{i∈k} w_i F_φ(y*_i ∇φ(p_k))
        (Theorem 4)."""
        return self._in_weight_units(self._grown_surrogate_risk)

    @property
    def node_misclass(self):
        """Misclassified weight per node (rpart's ``dev`` / ``loss``)."""
        return self._in_weight_units(self._grown_misclass)

    def grown_node_risk(self, measure):
        """Node risks in the units of the node statistics (for ratios: the cp scale)."""
        return self._grown_surrogate_risk if measure == "surrogate" else self._grown_misclass

    @property
    def _grown_root_risk(self):
        return float(self.grown_node_risk(self.risk)[0])

    @property
    def root_risk(self):
        """Risk of the root under the tree's risk measure (the cp scale), in the weights'
        units."""
        return float(self._in_weight_units(self._grown_root_risk))

    # ---- tables -------------------------------------------------------------
    @cached_property
    def frame(self) -> pd.DataFrame:
        """One row per node in rpart order.

        Columns: ``node`` (rpart number), ``parent`` (number, 0 at the root),
        ``depth``, ``var`` ("<leaf>" at leaves), ``is_leaf``, ``direction``
        ("<" when rows with x < threshold go left -- rpart's ncat = -1 --,
        ">=" when rows with x >= threshold go left; None otherwise),
        ``threshold`` (numeric splits, else NaN), ``left_levels`` /
        ``right_levels`` (categorical splits, else None), ``na_goes``
        ("left"/"right": the majority branch taken by missing values), ``n``
        (rows), ``weight``, ``yprob`` (weighted proportion of y = 1),
        ``link`` (∇φ(yprob), capped), ``yval`` (class: 1 iff yprob > 1/2; at
        1/2, 0, the response's first level under the default coding, as rpart predicts
        its first class on a tie),
        ``loss`` (misclassified weight, rpart's ``dev``), ``risk`` (the
        node's surrogate risk w(−φ(p) − a_φ)/b_φ), ``improve`` (drop of the
        tree's surrogate risk, eq. 104, brought by the node's split, computed on
        the rows where the split variable is observed), ``complexity`` (rpart's
        CP of the node, relative to the root risk of the tree's risk measure),
        ``n_tied`` (number of candidate splits within the tie tolerance of the
        chosen one, 1 = unique).
        """
        nd = self.nodes
        leaf = self.is_leaf
        names = np.array([s.name for s in self.specs] + ["<leaf>"], dtype=object)
        var = names[np.where(leaf, -1, nd["var"])]
        is_num = np.array([s.kind != CATEGORICAL for s in self.specs] + [False])
        num_split = ~leaf & is_num[nd["var"]]
        cat_split = ~leaf & ~is_num[nd["var"]]
        # ignored [call-overload]: numpy's stub rejects None, which np.where takes as an
        # object scalar
        direction = np.where(num_split, np.where(nd["direction"] < 0, "<", ">="), None)  # type: ignore[call-overload]
        left_levels = np.full(self.n_nodes, None, dtype=object)
        right_levels = np.full(self.n_nodes, None, dtype=object)
        for i in np.flatnonzero(cat_split):
            levels = self.specs[nd["var"][i]].levels
            side = nd["cat_side"][nd["cat_row"][i], : len(levels)]
            left_levels[i] = [levels[c] for c in np.flatnonzero(side == 1)]
            right_levels[i] = [levels[c] for c in np.flatnonzero(side == 2)]
        parent_num = np.where(nd["parent"] >= 0, nd["number"][np.maximum(nd["parent"], 0)], 0)
        scale = self._grown_root_risk
        with np.errstate(divide="ignore", invalid="ignore"):
            complexity = nd["complexity"] / scale if scale > 0 else nd["complexity"] * 0.0
        return pd.DataFrame({
            "node": nd["number"],
            "parent": parent_num,
            "depth": nd["depth"],
            "var": var,
            "is_leaf": leaf,
            "direction": direction,
            "threshold": np.where(num_split, nd["threshold"], np.nan),
            "left_levels": left_levels,
            "right_levels": right_levels,
            "na_goes": np.where(leaf, None,  # type: ignore[call-overload]  # None: as above
                                np.where(nd["na_left"], "left", "right")),
            "n": nd["n"],
            "weight": self._in_weight_units(nd["weight"]),
            **self._node_values(),
            "improve": self._in_weight_units(np.where(leaf, 0.0, nd["improve"])),
            "complexity": complexity,
            "n_tied": np.where(leaf, 0, nd["n_tied"]),
        })

    def _node_values(self) -> dict:
        """The columns of :attr:`frame` on the nodes' response: yprob, link, yval, loss,
        risk."""
        return {"yprob": self.yprob, "link": leaf_link(self.family, self.yprob),
                "yval": (self.yprob > 0.5).astype(np.int64), "loss": self.node_misclass,
                "risk": self.node_surrogate_risk}

    @cached_property
    def surrogates(self) -> pd.DataFrame:
        """The surrogate splits that routed training rows missing a split's variable
        (:mod:`ubreg.trees.surrogates`), as rpart's ``summary`` lists them.

        One row per surrogate of a node of this tree, in rank order: ``node``
        (rpart number), ``rank`` (1 = tried first), ``var``, ``split``
        (``"< t"`` or ``">= t"``: the rows sent left; for a factor, the levels
        sent left), ``agree`` and ``adj`` (rpart's agreement and adjusted
        agreement), found at every split node as rpart finds them.
        """
        found = self.nodes.get("surrogates", {})
        rows = []
        for number, split_node in zip(self.nodes["number"], ~self.is_leaf):
            for rank, s in enumerate(found.get(int(number), ()) if split_node else (), 1):
                spec = self.specs[s.var]
                if spec.kind == CATEGORICAL:
                    where = ",".join(spec.levels[c] for c in np.flatnonzero(s.side == 1))
                else:
                    where = f"{'<' if s.low_left else '>='} {s.threshold:.6g}"
                rows.append({"node": int(number), "rank": rank, "var": spec.name,
                             "split": where, "agree": s.agree, "adj": s.adj})
        return pd.DataFrame(rows, columns=["node", "rank", "var", "split", "agree", "adj"])

    @property
    def leaves(self) -> pd.DataFrame:
        """The leaf rows of :attr:`frame`."""
        f = self.frame
        return f[f["is_leaf"]].reset_index(drop=True)

    @cached_property
    def cptable(self) -> pd.DataFrame:
        """rpart's cp table without cross-validation: CP, nsplit, rel error.

        A row's tree keeps the splits whose complexity exceeds its CP
        (``tree.prune(CP)``); rel error is that tree's risk over the root's,
        in the tree's risk measure.  For cross-validated columns see
        :func:`ubreg.fitters.udt.cp_table_cv`.
        """
        nd = self.nodes
        r = self.grown_node_risk(self.risk)
        cps, nsplit, risk = cp_rows(nd["complexity"], self.is_leaf, nd["left"], nd["right"], r,
                                    self.alpha)
        scale = self._grown_root_risk if self._grown_root_risk > 0 else 1.0
        return pd.DataFrame({"CP": cps / scale, "nsplit": nsplit, "rel error": risk / scale})

    @cached_property
    def variable_importance(self) -> pd.Series:
        """rpart's ``variable.importance``: per variable, the improvement of each
        primary split on it, plus, for each surrogate split on it, the improvement of
        its node's primary split times the surrogate's adjusted agreement (``adj``).

        Improvements are in rpart's units for its two criteria, the drop of
        Σ_nodes w·i(p) with rpart's impurity i (gini: 2p(1 − p), information: the
        entropy in nats); for other families, in surrogate-risk units (−φ(p) scaled to
        1 at p = 1/2).  Variables that neither split nor stand in for a split are left
        out.  Sorted decreasingly (ties: by name, as R's ``tapply`` and ``sort``).
        """
        nd = self.nodes
        internal = ~self.is_leaf
        unit = self._improve_unit
        improve = self._in_weight_units(np.where(internal, nd["improve"], 0.0)) * unit
        total = np.bincount(nd["var"][internal], weights=improve[internal],
                            minlength=len(self.specs))
        used = np.bincount(nd["var"][internal], minlength=len(self.specs)) > 0
        by_number = dict(zip(nd["number"][internal].tolist(), improve[internal].tolist()))
        for number, found in self.nodes.get("surrogates", {}).items():
            if number not in by_number:          # a split pruned away
                continue
            for s in found:
                total[s.var] += by_number[number] * s.adj
                used[s.var] = True
        names = [sp.name for sp in self.specs]
        order = sorted(np.flatnonzero(used), key=lambda j: (-total[j], names[j]))
        return pd.Series(total[order], index=[names[j] for j in order], name="importance",
                         dtype=float)

    @property
    def _improve_unit(self) -> float:
        """rpart's units of an improvement per unit of the stored ``improve``."""
        return _RPART_UNITS.get(self.family.name, 1.0)

    # ---- risks and deviances ------------------------------------------------
    @property
    def surrogate_risk(self) -> float:
        """The tree's balanced convex surrogate Σ_i w_i F_φ(y*_i H(x_i)) on the
        training rows = Σ_k w(S_k)(−φ(p_k))/b_φ − W a_φ/b_φ (Theorem 4)."""
        return float(self.node_surrogate_risk[self.is_leaf].sum())

    @property
    def deviance(self) -> float:
        """2 Σ_i w_i D_φ(y_i ‖ p_leaf(i)) = 2 b_φ × :attr:`surrogate_risk` (docs/math.md §3)."""
        return 2.0 * self.family.b * self.surrogate_risk

    @property
    def null_deviance(self) -> float:
        """Deviance of the root alone (p = weighted mean of y)."""
        return 2.0 * self.family.b * float(self.node_surrogate_risk[0])

    # ---- prediction ---------------------------------------------------------
    def _leaf_index(self, columns):
        values, n = align_columns(columns, self.specs)
        return route(self.nodes, self.specs, values, n)

    def apply(self, columns) -> np.ndarray:
        """rpart number of the leaf each row of ``columns`` reaches."""
        return self.nodes["number"][self._leaf_index(columns)]

    def predict(self, columns, type="response") -> np.ndarray:
        """Predictions for new rows (the same predictors, matched by name).

        Parameters
        ----------
        columns : list of TreeColumn
        type : {"response", "link", "class", "leaf"}
            p_k of the leaf, its link ∇φ(p_k) (capped, eq. 106), the class
            (1 iff p_k > 1/2: a tie is class 0, as rpart), or the leaf's rpart number.
        """
        if type not in _PREDICT_TYPES:
            raise ValueError(f"type must be one of {_PREDICT_TYPES}, got {type!r}")
        idx = self._leaf_index(columns)
        if type == "leaf":
            return self.nodes["number"][idx]
        p = self.yprob[idx]
        if type == "response":
            return p
        if type == "class":
            return (p > 0.5).astype(np.int64)
        return leaf_link(self.family, self.yprob)[idx]

    # ---- pruning -----------------------------------------------------------
    def prune(self: TreeT, cp) -> TreeT:
        """The subtree keeping the splits whose complexity exceeds ``cp``
        (relative to the root risk, as rpart's ``prune(tree, cp)``)."""
        cp = float(cp)
        if not cp >= 0:
            raise ValueError(f"cp must be non-negative, got {cp}")
        root = self._grown_root_risk
        nd = self.nodes
        # compare on the CP scale (complexity / root risk) as rpart's prune does,
        # so that a CP copied from the cp table selects exactly its row's tree
        rel = nd["complexity"] / root if root > 0 else np.zeros(self.n_nodes)
        split = ~self.is_leaf & (rel > cp)
        if split.sum() == (~self.is_leaf).sum():
            return self.replace()
        alpha = cp * root
        keep = np.zeros(self.n_nodes, dtype=bool)
        keep[0] = True
        for d in range(1, int(nd["depth"].max()) + 1):
            at = np.flatnonzero(nd["depth"] == d)
            p = nd["parent"][at]
            keep[at] = keep[p] & split[p]
        return self.replace(nodes=subset_nodes(nd, keep, split),
                             controls=dict(self.controls, cp=cp), alpha=alpha)

    def heldout_loss(self, node, y) -> np.ndarray:
        """The loss of rows of classes ``y`` (0/1) reaching nodes ``node`` (indices), as
        the cp table's cross-validation adds it: the 0/1 error (``risk="misclass"``, a
        node at p = 1/2 predicting class 0 as :meth:`predict`) or the surrogate loss
        F_φ(y* H) with the capped link (``risk="surrogate"``)."""
        p = self.yprob[node]
        if self.risk == "misclass":
            return ((p > 0.5).astype(np.float64) != y).astype(np.float64)
        ystar = 2.0 * np.asarray(y, dtype=np.float64) - 1.0
        return np.asarray(self.family.F(ystar * leaf_link(self.family, p)), dtype=np.float64)

    def __repr__(self):
        n_leaves = int(self.is_leaf.sum())
        return (f"<UDT tree: {self.family!r}, {self.n_nodes} nodes, {n_leaves} leaves, "
                f"risk={self.risk!r}>")


def subset_nodes(nodes, keep, split):
    """Node arrays restricted to ``keep`` (order preserved, indices remapped);
    nodes whose split is not in ``split`` become leaves, keeping their complexity as
    rpart's frame keeps it."""
    idx = np.flatnonzero(keep)
    new_of_old = np.full(keep.shape[0], -1, dtype=np.intp)
    new_of_old[idx] = np.arange(idx.shape[0])
    out = {k: (v[idx].copy() if isinstance(v, np.ndarray) and v.shape[:1] == keep.shape else v)
           for k, v in nodes.items()}
    out["cat_side"] = nodes["cat_side"]
    is_split = split[idx]

    def remap(a):
        return np.where(a >= 0, new_of_old[np.maximum(a, 0)], -1)

    out["parent"] = remap(out["parent"])
    out["left"] = np.where(is_split, remap(out["left"]), -1)
    out["right"] = np.where(is_split, remap(out["right"]), -1)
    return out
