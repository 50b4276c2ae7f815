"""Public entry points: grow a pruned UDT tree, cross-validate its cp table."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...numerics.folds import xval_groups
from ...numerics.progress import progress
from ...trees.builder import node_risk
from ...trees.columns import CATEGORICAL, TreeColumn, check_columns, check_response
from ...trees.criterion import make_criterion
from ...trees.model import Tree, TreeT, subset_nodes
from ...trees.prune import cp_rows, fix_cp, rpart_complexity
from ...trees.route import route
from ...trees.surrogates import find_surrogates, split_missing
from .grow import grow_raw

__all__ = ["grow_tree", "cp_table_cv", "tree_from_raw", "pruned_nodes", "with_all_surrogates"]


def _check_family(family):
    for attr in ("phi", "dphi", "a", "b", "link_domain"):
        if not hasattr(family, attr):
            raise TypeError(f"family must be a permissible family (it lacks {attr!r}); "
                            f"use ubreg.families.Permissible(name)")
    return family


def grow_tree(columns, y, weight, family, *, min_split=20, min_leaf=7, max_depth=30, cp=0.01,
              risk="misclass", _alpha=None, count_rows=False) -> Tree:
    """Grow a UDT tree (Algorithm 3) and prune it at ``cp`` as rpart does.

    A split of a leaf is scored by the drop of Σ_leaves w(S_k)(−φ(p_k))/b_φ
    (eq. 104): gini gives CART, entropy C4.5, matsushita Kearns–Mansour.
    Leaves carry p_k and ∇φ(p_k) (eq. 106); the tree minimises the balanced
    convex surrogate over trees of its shape (Theorem 4).

    Parameters
    ----------
    columns : list of TreeColumn
        Predictors, in formula order (the order breaks ties).
    y : array of 0/1
    weight : array or None
        Frequency weights (≥ 0); None for unit weights.
    family : PermissibleFamily
    min_split, min_leaf, max_depth, cp
        rpart's ``minsplit``, ``minbucket``, ``maxdepth`` (≤ 62) and ``cp``
        (see :mod:`ubreg.fitters.udt.grow`).
    risk : {"misclass", "surrogate"}
        Risk measure of the cp pruning and of the cp table: rpart's
        misclassification (default: rpart's tree) or the tree's surrogate
        (Theorem 4, the paper's risk).
    count_rows : bool
        ``min_split`` and ``min_leaf`` count rows of positive weight, as rpart does
        (prior weights: a constant multiple of the weights grows the same tree);
        otherwise, with weights not all 1, weight (frequency weights: counts).

    Returns
    -------
    Tree
    """
    _check_family(family)
    raw, info = grow_raw(columns, y, weight, family, min_split=min_split, min_leaf=min_leaf,
                         max_depth=max_depth, cp=cp, risk=risk, alpha=_alpha,
                         count_rows=count_rows)
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp)
    return tree_from_raw(raw, info, family, controls, risk)


def tree_from_raw(raw, info, family, controls: dict, risk: str) -> Tree:
    """The :class:`Tree` of a grown tree (:func:`~ubreg.fitters.udt.grow.grow_raw`
    or :func:`~ubreg.fitters.udt.hist.grow_binned`), pruned at its complexity floor
    as rpart does."""
    r = node_risk(make_criterion(family), raw["wy"], raw["weight"], risk)
    nodes = pruned_nodes(raw, r, info["alpha"])
    return Tree(nodes, info["specs"], family, controls, info["alpha"], risk)


def pruned_nodes(raw, r, alpha):
    """The node arrays of a grown tree (node risks ``r``) pruned at its complexity floor
    ``alpha`` as rpart's ``partition()`` prunes, in rpart's order."""
    complexity, split = rpart_complexity(raw["left"], raw["right"], r, alpha)
    # nodes of the final tree: every ancestor's split survives
    keep = np.zeros(r.shape[0], dtype=bool)
    if keep.shape[0]:
        keep[0] = True
    parent = raw["parent"]
    for d in range(1, int(raw["depth"].max(initial=0)) + 1):
        at = np.flatnonzero(raw["depth"] == d)
        keep[at] = keep[parent[at]] & split[parent[at]]
    raw["complexity"] = fix_cp(parent, raw["depth"], complexity)
    return _rpart_order(subset_nodes(raw, keep, split))


def with_all_surrogates(tree: TreeT, columns, weight, count_rows=False) -> TreeT:
    """``tree`` with the surrogate splits of every split node, as rpart finds them.

    The grower finds surrogates only where training rows miss the split variable
    (they route those rows); rpart finds them at every split (``maxsurrogate = 5``),
    and they route new rows at prediction (``predict.rpart``) and count in the
    variable importance.  Here the training rows are sent down the final tree and
    each split node without surrogates gets them from its rows, exactly as the grower
    would have found them (:func:`~ubreg.trees.surrogates.find_surrogates`:
    the rows that the primary split directs, the others with direction 0).  Only the
    final tree's splits are searched, not the larger tree grown before pruning.
    """
    nd = tree.nodes
    found = dict(nd.get("surrogates", {}))
    todo = [k for k in np.flatnonzero(nd["left"] >= 0) if int(nd["number"][k]) not in found]
    if not todo:
        return tree
    values, specs, n = check_columns(columns)
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    _, path = route(nd, specs, values, n, path=True)
    orders = [None if sp.kind == CATEGORICAL else np.argsort(v, kind="stable")
              for sp, v in zip(specs, values)]
    for k in todo:
        depth = int(nd["depth"][k])
        rows = np.flatnonzero(path[:, depth] == k)
        var = int(nd["var"][k])
        miss = split_missing(specs, values, rows, np.full(rows.shape[0], var))
        went_left = path[rows, depth + 1] == nd["left"][k]
        direction = np.where(miss, 0, np.where(went_left, 1, -1)).astype(np.int8)
        found[int(nd["number"][k])] = find_surrogates(specs, values, rows, direction, w[rows],
                                                      var, count_rows=count_rows, orders=orders)
    return tree.replace(nodes=dict(nd, surrogates=found))


def _rpart_order(nodes):
    """Reorder nodes depth first, left child first (rpart's frame order)."""
    number = nodes["number"].astype(np.uint64)
    depth = nodes["depth"].astype(np.uint64)
    top = np.uint64(depth.max(initial=0))
    key = number << (top - depth)     # the node's leftmost descendant at the deepest level
    order = np.lexsort((depth, key))
    keep = np.ones(order.shape[0], dtype=bool)
    perm = np.empty_like(order)
    perm[order] = np.arange(order.shape[0])
    out = {}
    for k, v in nodes.items():
        if isinstance(v, np.ndarray) and k != "cat_side" and v.shape[:1] == keep.shape:
            out[k] = v[order]
        else:
            out[k] = v
    for k in ("parent", "left", "right"):
        out[k] = np.where(out[k] >= 0, perm[np.maximum(out[k], 0)], -1)
    return out


def _subset_columns(columns, rows):
    return [TreeColumn(c.name, c.kind, np.asarray(c.values)[rows], c.levels) for c in columns]


def _cp_thresholds(cps):
    """rpart's pruning points between consecutive CPs: their geometric means, the
    first "close enough to infinity" (10 × the largest CP)."""
    thr = np.empty_like(cps)
    thr[0] = 10.0 * cps[0]
    thr[1:] = np.sqrt(cps[:-1] * cps[1:])
    return thr


def cp_table_cv(columns, y, weight, family, folds=10, seed=0, grow=None,
                **controls) -> pd.DataFrame:
    """rpart's cp table with K-fold cross-validated error (xval.c).

    The tree is grown on all rows; then for each fold a tree is grown on the
    other rows with the complexity floor scaled by their share of the weight,
    and each held-out row is run down that tree pruned at the geometric mean
    of consecutive CP values, adding its loss: the 0/1 error for
    ``risk="misclass"``, the surrogate loss F_φ(y* H) with the capped leaf
    link for ``risk="surrogate"``.

    Parameters
    ----------
    columns, y, weight, family
        As :func:`grow_tree`.
    folds : int
        Number of folds (rows are assigned at random, balanced sizes, as rpart
        draws them: :func:`ubreg.numerics.folds.xval_groups`).
    seed : int
        Seed of the fold assignment (numpy ``default_rng``).
    grow : callable, optional
        What grows the trees, with :func:`grow_tree`'s signature (default);
        :func:`ubreg.fitters.udt.binned.grow_tree_binned` with its coding fixed
        on all rows cross-validates a binned tree.
    **controls
        ``min_split``, ``min_leaf``, ``max_depth``, ``cp``, ``risk``.

    Returns
    -------
    DataFrame
        CP, nsplit, rel error, xerror, xstd (errors relative to the root risk;
        the columns of rpart's ``cptable``, as ``printcp`` shows them).
    """
    folds = int(folds)
    values, specs, n = check_columns(columns)
    if grow is None:
        yv, w = check_response(y, weight, n)
    else:                  # the grower checks its response (class codes of K classes)
        yv = np.asarray(y)
        w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    if not 2 <= folds <= n:
        raise ValueError(f"folds must lie in 2..{n}, got {folds}")
    grow = grow_tree if grow is None else grow
    tree = grow(columns, yv, w, family, **controls)
    risk = tree.risk
    nd = tree.nodes
    r = tree.grown_node_risk(risk)
    cps, nsplit, crisk = cp_rows(nd["complexity"], tree.is_leaf, nd["left"], nd["right"], r,
                                 tree.alpha)
    thr = _cp_thresholds(cps)
    group = xval_groups(n, folds, seed)           # rpart's fold construction
    w_total = w.sum()
    xrisk = np.zeros(cps.shape[0])
    xsq = np.zeros(cps.shape[0])
    for k in progress(range(folds), "udt xval", total=folds):
        train = np.flatnonzero(group != k)
        test = np.flatnonzero(group == k)
        w_train = w[train].sum()
        if not w_train > 0 or test.shape[0] == 0:
            continue
        scale = w_train / w_total
        ft = grow(_subset_columns(columns, train), yv[train], w[train], family,
                  _alpha=tree.alpha * scale, **controls)
        tvals = [v[test] for v in values]
        _, path = route(ft.nodes, specs, tvals, test.shape[0], path=True)
        cpath = ft.nodes["complexity"][path]
        cpath[ft.nodes["left"][path] < 0] = -np.inf       # leaves stop every walk
        for j, t in enumerate(thr * scale):
            depth = (cpath > t).sum(axis=1)
            node = path[np.arange(test.shape[0]), depth]
            err = ft.heldout_loss(node, yv[test])
            xrisk[j] += np.sum(w[test] * err)
            xsq[j] += np.sum(w[test] * err * err)
    xstd = np.sqrt(np.maximum(xsq - xrisk ** 2 / w_total, 0.0))
    root = tree.root_risk if tree.root_risk > 0 else 1.0
    return pd.DataFrame({"CP": cps / root, "nsplit": nsplit, "rel error": crisk / root,
                         "xerror": xrisk / root, "xstd": xstd / root})
