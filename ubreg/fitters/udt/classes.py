"""rpart's classification tree of K classes (``rpart(method = "class")``): growth.

The binary engine (:mod:`.grow`) grows the trees of two classes with the default priors
from the weighted count of class 1, for any permissible family.  A response of more
than two classes, or priors (``prior=``), needs the weight of every class in every node
and rpart's two criteria of K classes (:mod:`ubreg.trees.class_stats`).  Both are grown
by the one tree builder (:mod:`ubreg.trees.builder`: its node table, here with the class
weights of every node, :class:`~ubreg.trees.builder.ClassStats`; its controls, record
of splits and growth loop); this module gives it the splits of K classes from one of two
sources: level by level on the binary engine's presorted segments
(:class:`.classlevel.ClassSegments`, the default), or, for the trees that growth cannot
reproduce (:class:`.classlevel.Undecided`), node by node, depth first and left first as
rpart's ``partition()`` (:class:`NodeRows`, the reference).  The tree grown by levels is
put in the depth-first order of its nodes (:func:`~ubreg.trees.builder.rpart_growth_order`),
so that both give the same node arrays:

- a node is split when it holds at least ``min_split`` observations (and twice
  ``min_leaf``), lies above ``max_depth`` and its risk exceeds α = cp × the root's risk;
- every predictor is searched on the node's rows where it is observed (positive weight):
  a numeric one at the midpoints between distinct consecutive values, each child holding
  at least ``min_leaf`` observations; a factor over sets of its levels, as rpart's
  gini.c: with two classes the levels ordered by their altered share of the first class,
  with more every subset in rpart's Gray-code order (``2^(L−1)`` subsets; a factor of
  more than :data:`MAX_SUBSET_LEVELS` levels present in a node is refused);
- the best split has the largest improvement (the first cut in sort or Gray-code
  order, the earlier predictor among equals) and must exceed 1e-10 of the largest
  improvement seen (rpart's ``iscale``);
- its left child is the side whose mean class index Σ_j j p_j is smaller (rpart's
  ``lmean < rmean``); rows missing the split's variable follow the surrogate splits
  (:mod:`ubreg.trees.surrogates`), then the heavier side.

Cost-complexity pruning, surrogates at every split and the cp table are the engine's
(:mod:`ubreg.trees.prune`, :func:`.engine.with_all_surrogates`, :func:`.engine.cp_table_cv`).
"""
from __future__ import annotations

import numpy as np

from ...trees.builder import (
    ClassStats,
    LevelBuilder,
    check_controls,
    grow_levels,
    rpart_growth_order,
)
from ...trees.class_model import ClassTree
from ...trees.class_stats import IMPURITIES, ClassWeights
from ...trees.columns import CATEGORICAL, check_columns, weight_floor
from .class_splits import (
    MAX_SUBSET_LEVELS,
    ClassRows,
    Split,
    categorical_best,
    child_sums,
    numeric_best,
    pack_splits,
)
from .classlevel import ISCALE as _ISCALE
from .classlevel import ClassSegments, Undecided

__all__ = ["grow_class_tree", "grow_class_raw", "check_classes", "MAX_SUBSET_LEVELS"]


def check_classes(y, weight, n: int, n_classes: int):
    """Class codes 0..K−1 and weights (≥ 0, finite, not all 0) as int and float arrays."""
    codes = np.asarray(y)
    if codes.ndim != 1 or codes.shape[0] != n:
        raise ValueError(f"y has shape {codes.shape}, expected ({n},) to match the columns")
    codes = codes.astype(np.intp)
    if codes.size and (codes.min() < 0 or codes.max() >= n_classes):
        raise ValueError(f"class codes must lie in 0..{n_classes - 1}")
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative, one per row")
    if not w.sum() > 0:
        raise ValueError("the total weight is zero: nothing to grow a tree on")
    return codes, w


def grow_class_tree(columns, y, weight, family, *, levels, class_weights: ClassWeights,
                    min_split=20, min_leaf=7, max_depth=30, cp=0.01, risk="misclass",
                    _alpha=None, count_rows=False) -> ClassTree:
    """Grow rpart's tree of ``len(levels)`` classes and prune it at ``cp`` as rpart does.

    ``family`` is gini or entropy (rpart's ``split = "gini"`` or ``"information"``);
    ``class_weights`` holds the priors (:meth:`ClassWeights.of`, from all training rows);
    ``risk`` must be ``"misclass"`` (rpart's); the other arguments are
    :func:`ubreg.fitters.udt.grow_tree`'s.  Surrogates are found where training rows
    miss a split's variable (:func:`.engine.with_all_surrogates` adds the others).
    """
    from .engine import pruned_nodes
    kind = IMPURITIES.get(str(getattr(family, "name", "")))
    if kind is None:
        raise ValueError(f"a tree of {len(levels)} classes splits by gini or entropy (rpart's "
                         f"split = 'gini' or 'information'), got family {family!r}")
    if risk != "misclass":
        raise ValueError(f"a tree of {len(levels)} classes is pruned by its misclassification "
                         f"risk (rpart's), got risk={risk!r}")
    raw, info = grow_class_raw(columns, y, weight, len(levels), class_weights, kind,
                               min_split=min_split, min_leaf=min_leaf, max_depth=max_depth,
                               cp=cp, alpha=_alpha, count_rows=count_rows)
    r = class_weights.predicted(raw["class_w"])[1]
    nodes = pruned_nodes(raw, r, info["alpha"])
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp)
    return ClassTree(nodes, info["specs"], family, controls, info["alpha"], levels,
                     class_weights)


def _best_split(values, specs, rows, y, w, c, K, weights, kind, edge, iscale):
    """The best split of the node of ``rows`` over all predictors (see the notes)."""
    best = Split()
    found = []
    for j, spec in enumerate(specs):
        x = values[j][rows]
        if spec.kind == CATEGORICAL:
            obs = (x >= 0) & (w > 0)
            if not obs.any():
                continue
            got = categorical_best(x[obs], len(spec.levels), y[obs], w[obs], c[obs], K,
                                    weights, kind, edge, spec.name)
            if got is None:
                continue
            improve, side, lw, rw = got
            thr, low = np.nan, True
        else:
            obs = ~np.isnan(x) & (w > 0)
            got = numeric_best(x[obs], y[obs], w[obs], c[obs], K, weights, kind, edge)
            if got is None:
                continue
            improve, thr, low, lw, rw = got
            side = None
        iscale[0] = max(iscale[0], improve)
        if not improve > iscale[0] * _ISCALE:
            continue
        found.append(improve)
        if improve > best.improve:            # strictly: the earlier predictor wins ties
            best.improve, best.var, best.threshold, best.low_left = improve, j, thr, low
            best.side, best.lw, best.rw = side, lw, rw
    if best.var >= 0:
        tol = 1e-12 * max(abs(best.improve), 1.0)
        best.n_tied = int(sum(abs(f - best.improve) <= tol for f in found))
    return best


def grow_class_raw(columns, y, weight, n_classes: int, weights: ClassWeights, kind: str, *,
                   min_split=20, min_leaf=7, max_depth=30, cp=0.01, alpha=None,
                   count_rows=False):
    """Grow the K-class tree before complexity pruning (see the module notes).

    Parameters
    ----------
    columns : list of TreeColumn
    y : class codes 0..K−1
    weight : case weights or None
    n_classes : K
    weights : ClassWeights
        The priors, from all training rows (a fold of the cp table's cross-validation
        keeps those of the whole data, as rpart's xval does).
    kind : {"gini", "information"}
    min_split, min_leaf, max_depth, cp, count_rows
        As :func:`ubreg.fitters.udt.grow_tree`.
    alpha : float, optional
        The complexity floor (default: cp × the root's risk).

    Returns
    -------
    (raw node arrays with ``class_w`` and ``surrogates``, in the order rpart's
    depth-first growth creates them; info dict)
    """
    values, specs, n = check_columns(columns)
    y, w = check_classes(y, weight, n, n_classes)
    min_split, min_leaf, max_depth, cp, _ = check_controls(min_split, min_leaf, max_depth,
                                                           cp, "misclass")
    rows_count = bool(np.all(w == 1.0)) or bool(count_rows)
    edge = min_leaf if rows_count else weight_floor(min_leaf, float(w.sum()))
    rows = (values, specs, y, w, weights, kind, n_classes, rows_count, edge)
    categorical = np.array([s.kind == CATEGORICAL for s in specs], dtype=bool)
    root = dict(zip(("n", "npos", "weight", "class_w"),
                    (v[0] for v in child_sums([np.arange(n)], y, w, n_classes))))

    def builder():
        lmax = max([len(s.levels) for s in specs if s.kind == CATEGORICAL] or [1])
        b = LevelBuilder(ClassStats(weights, n_classes), root, min_split, min_leaf, max_depth,
                         rows_count, lmax)
        b.alpha = cp * b.root_risk if alpha is None else alpha
        return b

    tree = builder()
    try:
        source: ClassSegments | NodeRows = ClassSegments(*rows, root["class_w"])
        grow_levels(tree, source, categorical)
        raw = tree.finish()
        raw["surrogates"] = rpart_growth_order(raw, source.surrogates)
    except Undecided:
        tree, source = builder(), NodeRows(*rows)
        grow_levels(tree, source, categorical, depth_first=True)
        raw = tree.finish()
        raw["surrogates"] = source.surrogates
    info = dict(alpha=tree.alpha, root_risk=tree.root_risk, n=n, specs=specs)
    return raw, info


class NodeRows(ClassRows):
    """The rows of a K-class tree one node at a time, for the depth-first growth
    (:func:`ubreg.trees.builder.grow_levels` with ``depth_first``; rpart's
    ``partition()``, the reference of :class:`.classlevel.ClassSegments`, and its
    fallback): each open node's rows, and the largest improvement seen so far (rpart's
    ``iscale``)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.rows_of = {0: np.arange(self.y.shape[0])}
        self.iscale = [0.0]

    def best_splits(self, open_ids, builder):
        """The best split of the one open node (tolerance 0: the rules are rpart's, here)."""
        self.rows = rows = self.rows_of.pop(int(open_ids[0]))
        best = _best_split(self.values, self.specs, rows, self.y[rows], self.w[rows],
                           self.c[rows], self.K, self.weights, self.kind, self.edge,
                           self.iscale)
        return pack_splits({0: best} if best.var >= 0 else {}, 1, self.lmax), 0.0

    def children(self, ks, split, best, builder):
        """Route the node's rows (surrogates where rows miss the variable); the
        children's sums, left then right."""
        left = self.route(self.rows, builder, split, best, 0, 0)
        self.parts = [self.rows[left], self.rows[~left]]
        return self.sums(self.parts)

    def keep(self, kids, keep):
        """Keep the open children's rows."""
        for kid, rows, kept in zip(kids, self.parts, keep):
            if kept:
                self.rows_of[int(kid)] = rows
