"""rpart's tree of K classes grown level by level, on the binary engine's segments.

:class:`ClassSegments` is the source (:class:`ubreg.trees.builder.SplitSource`) from
which the tree builder (:func:`ubreg.trees.builder.grow_levels`, which owns the node
table, the controls, the record of splits and the loop) grows the tree that
:mod:`.classes` describes, with the machinery of the binary engine (:mod:`.grow`): each
numeric predictor's rows of positive weight are sorted once (stably, NaN last); the open
nodes of a level are contiguous segments of every ordering; a level's splits partition
the orderings stably into the children's segments (:func:`.grow._relayout`,
:func:`.partition.partition_rows`).  Every cut of every numeric predictor in every open
node of a level is scored by one pass of array operations; factors are searched node by
node (:func:`.class_splits.categorical_best`); the split nodes' rows are routed node by
node, with their surrogate splits (:class:`.class_splits.ClassRows`).

The tree does not depend on the order in which its nodes grow (α = cp × the root's risk
is fixed), provided every number is formed as gini.c forms it within a node:

- the running sums of the class weights, of α_y w (the children's weights) and of the
  case weights (``min_leaf``) add one row at a time in the node's sort order.  Sums of
  whole numbers are exact in any order: the class weights are counted per run of rows
  between consecutive cuts (``np.bincount``) and summed cumulatively, the others are one
  cumulative sum over the level less each segment's start.  Other sums run within each
  segment: the segments, grouped by length (within a factor √2), are padded into
  matrices of one segment a row, after a head column (0, or the total from which the
  right side's weights are subtracted), and summed by ``np.cumsum`` along the rows
  (:func:`_running`), as gini.c adds and subtracts them;
- the children's impurities are :func:`.class_splits.children_impurity`'s, cut by cut; the
  first cut of least impurity in sort order is each predictor's best.

rpart keeps a predictor's split only if its improvement exceeds 1e-10 of the largest
improvement seen so far in its depth-first growth (``iscale``).  Grown by levels, that
largest one lies between the largest seen at the node's ancestors (and at its own
earlier predictors) and the root's weighted impurity, which no improvement exceeds (the
impurity is concave and of degree one in the class weights).  When an improvement falls
between 1e-10 of these two bounds the level-wise growth cannot decide it:
:class:`Undecided` is raised, and :func:`.classes.grow_class_raw` grows the tree anew,
depth first (:class:`.classes.NodeRows`).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...errors import DataError
from ...trees.class_stats import impurity_sum
from ...trees.columns import CATEGORICAL
from .class_splits import (
    ClassRows,
    Split,
    categorical_best,
    children_impurity,
    left_is_lower,
    pack_splits,
)
from .grow import _relayout
from .partition import partition_rows

__all__ = ["ClassSegments", "Undecided", "ISCALE"]

#: rpart keeps a split whose improvement exceeds this share of the largest one seen
ISCALE = 1e-10
#: whole-number sums below this are exact in float64
_EXACT = 2.0 ** 52
#: elements of a (predictors × positions × classes) block searched at once
_BLOCK = 1 << 23


class Undecided(Exception):
    """The level-wise growth cannot reproduce rpart's choice (see the module notes)."""


def _whole(v, times=1) -> bool:
    """Every value of ``v`` is a whole number and ``times`` their sum is exact in float64."""
    return bool(np.all(v == np.round(v))) and times * float(np.abs(v).sum()) < _EXACT


def _plan(start, length):
    """The padded layout of a level's running sums (:func:`_running`): segments grouped by
    length (within a factor √2), each group a block of (segments × (1 + longest)) columns,
    each segment's row starting with a head column.  Returns (blocks as (first column,
    rows, row width), each segment's head column, each position's column, the position
    (or m: none) in each column)."""
    S, m = start.shape[0], int(length.sum())
    key = np.ceil(2.0 * np.log2(np.maximum(length, 1)))
    head = np.empty(S, dtype=np.intp)
    blocks, width = [], 0
    for k in np.unique(key):
        segs = np.flatnonzero(key == k)
        row = int(length[segs].max()) + 1
        head[segs] = width + row * np.arange(segs.shape[0])
        blocks.append((width, segs.shape[0], row))
        width += row * segs.shape[0]
    seg = np.repeat(np.arange(S), length)
    col = head[seg] + 1 + np.arange(m) - start[seg]
    source = np.full(width, m, dtype=np.intp)
    source[col] = np.arange(m)
    return blocks, head, col, source


def _running(buf, lev):
    """Running sums along each segment's row of ``buf`` (g, columns[, K]) in the level's
    padded layout, as a new array: ``np.cumsum`` of the row alone, one column at a time
    (the head column first: 0, or where the sums start from)."""
    g, tail = buf.shape[0], buf.shape[2:]
    out = np.empty_like(buf)
    for first, rows, row in lev.blocks:
        span = slice(first, first + rows * row)
        shape = (g, rows, row) + tail
        dst = out[:, span].reshape(shape)
        if np.may_share_memory(dst, out):            # a view: summed into place
            np.cumsum(buf[:, span].reshape(shape), axis=2, out=dst)
        else:
            out[:, span] = np.cumsum(buf[:, span].reshape(shape), axis=2).reshape(
                (g, rows * row) + tail)
    return out


def _both_sides(buf, lev, last):
    """(running sums of the padded ``buf`` (g, columns[, K]), what remains right of each
    position as gini.c subtracts it, ``cumsum([total, −v_0, −v_1, ...])[1:]``, the totals
    at positions ``last`` (g, S)); ``buf`` is overwritten."""
    run = _running(buf, lev)
    total = run[np.arange(buf.shape[0])[:, None], lev.col[np.maximum(last, 0)]]
    np.negative(buf, out=buf)
    buf[:, lev.head] = total
    return run, _running(buf, lev), total


def _exact_running(v, lev, last):
    """(running sums of whole numbers ``v`` (g, m) within each segment, their totals at
    positions ``last``): one cumulative sum less each segment's start (exact)."""
    cs = np.cumsum(v, axis=1)
    before = np.where(lev.start > 0, cs[:, np.maximum(lev.start - 1, 0)], 0.0)
    run = cs - before[:, lev.seg]
    return run, run[np.arange(v.shape[0])[:, None], np.maximum(last, 0)]


def _cuts(xs, nan, n_obs, last, orders, pad, g, lev, edge):
    """Cuts (after a position) between distinct observed values of a segment, each side
    holding at least ``edge`` observations (rows, or weight as gini.c sums it)."""
    p, m = xs.shape
    ok = np.zeros((p, m), dtype=bool)
    np.not_equal(xs[:, 1:], xs[:, :-1], out=ok[:, :-1])
    if nan is not None:
        ok[:, :-1] &= ~nan[:, 1:]
    ok[:, lev.start[1:] - 1] = False
    if g.rows_count:
        cl = np.arange(m) - lev.start[lev.seg] + 1
        if nan is None:       # the same rows each side for every predictor
            ok &= ((cl >= edge) & (lev.length[lev.seg] - cl >= edge))[None, :]
        else:
            ok &= (cl >= edge)[None, :] & (n_obs[:, lev.seg] - cl >= edge)
        return ok
    if g.whole_w:
        cl, ctot = _exact_running(g.w[orders], lev, last)
    else:
        run = _running(g.w_ext[pad], lev)
        cl = run[:, lev.col]
        ctot = run[np.arange(p)[:, None], lev.col[np.maximum(last, 0)]]
    return ok & (cl >= edge) & (ctot[:, lev.seg] - cl >= edge)


def _class_sums(orders, nan, ok, cand, last, pad, g, lev, K):
    """(left and right class weights at the cuts ``cand`` (flat positions of ``ok``),
    class totals per predictor and segment (g, S, K)).  Whole weights: one weighted
    count per run of rows between consecutive cuts (missing values in a class of their
    own), summed cumulatively (exact); otherwise running sums row by row."""
    p, m = orders.shape
    rc, ic = np.divmod(cand, m)
    if not g.whole_w:
        moved = np.zeros(pad.shape + (K,))
        np.put_along_axis(moved, g.y_ext[pad][:, :, None], g.w_ext[pad][:, :, None], axis=2)
        run, rest, total = _both_sides(moved, lev, last)
        return run[rc, lev.col[ic]], rest[rc, lev.col[ic]], total
    yk = g.y8[orders] if nan is None else np.where(nan, K, g.y8[orders])
    brk = np.zeros((p, m), dtype=bool)
    brk[:, lev.start] = True
    brk[:, 1:] |= ok[:, :-1]
    heads = np.flatnonzero(brk)               # few runs: np.repeat beats a cumsum of bools
    n_runs = heads.shape[0]
    run_id = np.repeat(np.arange(n_runs), np.diff(np.r_[heads, p * m]))
    per = np.bincount(run_id * (K + 1) + yk.ravel(),
                      weights=None if g.unit else g.w[orders].ravel(),
                      minlength=n_runs * (K + 1)).reshape(n_runs, K + 1)[:, :K]
    cum = np.cumsum(per, axis=0).astype(np.float64)
    ids = run_id.reshape(p, m)
    head = ids[:, lev.start]
    before = cum[head] - per[head]
    total = cum[ids[:, lev.start + lev.length - 1]] - before
    left = cum[run_id[cand]] - before[rc, lev.seg[ic]]
    return left, total[rc, lev.seg[ic]] - left, total


def _child_weights(orders, pad, last, rc, ic, g, lev):
    """(Σ α_y w left and right of the cuts (rc, ic), the totals per predictor and
    segment), summed as gini.c sums them."""
    if g.whole_a:
        run, atot = _exact_running(g.a[orders], lev, last)
        lwt = run[rc, ic]
        return lwt, atot[rc, lev.seg[ic]] - lwt, atot
    run, rest, atot = _both_sides(g.a_ext[pad], lev, last)
    return run[rc, lev.col[ic]], rest[rc, lev.col[ic]], atot


def _numeric_block(cols, orders, g: SimpleNamespace, lev, K, weights, kind, edge):
    """The best cut of each predictor ``cols`` (orderings ``orders``, (c, m)) in each
    segment: improve (c, S), NaN where none; the cut's position; the left and right
    class weights there (c, S, K); the predictors' values in order (c, m)."""
    p, m = orders.shape
    S = lev.S
    xs = np.empty((p, m))
    for k, j in enumerate(cols):
        np.take(g.values[j], orders[k], out=xs[k])
    if any(g.has_nan[j] for j in cols):
        nan = np.isnan(xs)
        n_obs = lev.length[None, :] - np.add.reduceat(nan, lev.start, axis=1, dtype=np.intp)
    else:
        nan, n_obs = None, np.broadcast_to(lev.length, (p, S))
    last = lev.start[None, :] + n_obs - 1
    # the row of each column of the padded layout (n: none, of weight 0)
    pad = None if g.whole_w and g.whole_a else np.concatenate(
        [orders, np.full((p, 1), g.n, dtype=orders.dtype)], axis=1)[:, lev.source]
    ok = _cuts(xs, nan, n_obs, last, orders, pad, g, lev, edge)
    cand = np.flatnonzero(ok)
    rc, ic = np.divmod(cand, m)
    left, right, total = _class_sums(orders, nan, ok, cand, last, pad, g, lev, K)
    lwt, rwt, atot = _child_weights(orders, pad, last, rc, ic, g, lev)
    temp = children_impurity(lwt, left, rwt, right, weights.altered, kind)
    total_ss = children_impurity(np.zeros(p * S), np.zeros((p * S, K)), atot.ravel(),
                                  total.reshape(-1, K), weights.altered, kind).reshape(p, S)
    return (*_first_least(temp, total_ss, rc, ic, left, right, lev), xs)


def _first_least(temp, total_ss, rc, ic, left, right, lev):
    """Each predictor's best cut in each segment, the first of least children's impurity
    ``temp`` among the cuts (rc, ic) in sort order: (improve (p, S), NaN where none or
    not below the node's ``total_ss``; its position; its left and right class weights)."""
    p, S = total_ss.shape
    K = left.shape[1]
    improve = np.full((p, S), np.nan)
    at = np.zeros((p, S), dtype=np.intp)
    lc, rc_ = np.zeros((p, S, K)), np.zeros((p, S, K))
    if not rc.shape[0]:
        return improve, at, lc, rc_
    sc = lev.seg[ic]
    grp = rc * S + sc                       # the cuts come by predictor, segment, position
    heads = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    least = np.minimum.reduceat(temp, heads)
    hit = np.flatnonzero(temp == np.repeat(least, np.diff(np.r_[heads, grp.shape[0]])))
    first = hit[np.r_[True, grp[hit][1:] != grp[hit][:-1]]]
    if first.shape[0] != heads.shape[0]:
        raise Undecided("an impurity is NaN")
    r, s = rc[first], sc[first]
    good = temp[first] < total_ss[r, s]
    improve[r[good], s[good]] = total_ss[r, s][good] - temp[first][good]
    at[r, s] = ic[first]
    lc[r, s], rc_[r, s] = left[first], right[first]
    return improve, at, lc, rc_


class ClassSegments(ClassRows):
    """The rows of a K-class tree as :func:`ubreg.trees.builder.grow_levels` asks for
    them, level by level (see the module notes): every numeric predictor's rows of
    positive weight sorted once (the rows of positive weight last, in row order), the
    open nodes contiguous segments of every ordering, each open node's rows (of any
    weight, in row order) to route, and the largest improvement seen before each open
    node (rpart's ``iscale`` rule).

    ``best_splits`` raises :class:`Undecided` where rpart's ``iscale`` rule needs the
    depth-first order, where an impurity is NaN, and where a factor has too many levels
    in a node (the depth-first growth then raises rpart's error at the node it meets
    first)."""

    def __init__(self, values, specs, y, w, weights, kind, K, rows_count, edge, root_w):
        super().__init__(values, specs, y, w, weights, kind, K, rows_count, edge)
        n = y.shape[0]
        pos = np.flatnonzero(w > 0)
        numeric = [j for j, s in enumerate(specs) if s.kind != CATEGORICAL]
        a = weights.altered[y] * w
        self.g = SimpleNamespace(
            values=values, specs=specs, y=y, w=w, a=a, numeric=numeric, n=n, c=self.c,
            rows_count=rows_count, whole_w=_whole(w, len(numeric) + 1), whole_a=_whole(a),
            unit=bool(np.all(w == 1.0)),
            has_nan={j: bool(np.isnan(values[j]).any()) for j in numeric},
            # a trailing row of weight 0 fills the padding of running sums
            y_ext=np.append(y, 0), w_ext=np.append(w, 0.0), a_ext=np.append(a, 0.0),
            # classes in a byte (and K, the missing values' class): faster gathers
            y8=y.astype(np.uint8 if K < 255 else np.intp))
        # the root's weighted impurity bounds every improvement (with room for rounding)
        self.cap = float(impurity_sum(root_w, weights.altered, kind)) * (1.0 + 1e-6)
        dtype = np.int32 if n < 2 ** 31 else np.intp
        self.orders = np.stack([pos[np.argsort(values[j][pos], kind="stable")]
                                for j in numeric] + [pos]).astype(dtype)
        self.rows_of = [np.arange(n)]
        self.lo = np.zeros(1)           # the largest improvement seen before each node
        self.seg_len = np.array([pos.shape[0]], dtype=np.intp)

    def best_splits(self, open_ids, builder):
        """The best split of every open node (tolerance 0: the rules are rpart's, here)."""
        self.lev = _layout(self.seg_len)
        at_root = open_ids.shape[0] == 1 and open_ids[0] == builder.root[0]
        best, self.seen = _level_best(self.g, self.lev, self.orders, self.K, self.weights,
                                      self.kind, self.edge, self.lo, 0.0 if at_root else self.cap)
        splits = {int(s): _split_of(best, s, self.weights) for s in np.flatnonzero(best.var >= 0)}
        return pack_splits(splits, self.lev.S, self.lmax), 0.0

    def children(self, ks, split, best, builder):
        """Route the rows of the split nodes (surrogates where rows miss the variable);
        the children's sums, left then right."""
        go_left = np.ones(self.y.shape[0], dtype=bool)   # rows of unsplit segments: left
        parts = []
        for r, k in enumerate(ks):
            rows = self.rows_of[k]
            left = self.route(rows, builder, split, best, r, k)
            go_left[rows] = left
            parts += [rows[left], rows[~left]]
        sums = self.sums(parts)
        self.pending = (ks, go_left, parts, sums[1].astype(np.intp))
        return sums

    def keep(self, kids, keep):
        """Keep the open children: their rows, segments and iscale bounds, and the
        orderings' partition."""
        ks, go_left, parts, len_slot = self.pending
        A, C, m_new = _relayout(self.lev, self.seg_len, ks, len_slot, keep)
        self.rows_of = [rows for rows, kept in zip(parts, keep) if kept]
        self.lo = np.repeat(self.seen[ks], 2)[keep]
        self.seg_len = len_slot[keep]
        if m_new:
            self.orders = partition_rows(self.orders, go_left, A, C, m_new)


def _layout(seg_len):
    """A level's segments: ``start``, ``length``, ``seg`` (the segment of each position),
    ``S``, ``m`` and the :func:`_plan` of its running sums."""
    start = np.zeros_like(seg_len)
    np.cumsum(seg_len[:-1], out=start[1:])
    seg = np.repeat(np.arange(seg_len.shape[0], dtype=np.intp), seg_len)
    blocks, head, col, source = _plan(start, seg_len)
    return SimpleNamespace(start=start, length=seg_len, seg=seg, S=seg_len.shape[0],
                           m=int(seg_len.sum()), blocks=blocks, head=head, col=col,
                           source=source)


def _numeric_all(g, lev, orders, K, weights, kind, edge):
    """:func:`_numeric_block` of every numeric predictor (blocks of at most ``_BLOCK``
    predictors × positions × classes), by predictor: (improve (S,), position, left and
    right class weights (S, K), values in order (m,))."""
    out = {}
    step = max(1, _BLOCK // max(lev.m * K, 1))
    for b in range(0, len(g.numeric), step):
        cols = g.numeric[b:b + step]
        res = _numeric_block(cols, orders[b:b + len(cols)], g, lev, K, weights, kind, edge)
        for r, j in enumerate(cols):
            out[j] = tuple(v[r] for v in res)
    return out


def _categorical_all(g, lev, j, base, K, weights, kind, edge):
    """:func:`.class_splits.categorical_best` of factor ``j`` in each segment (its rows in row
    order): (improve (S,), NaN where none; {segment: (side, lw, rw)})."""
    spec = g.specs[j]
    improve, got = np.full(lev.S, np.nan), {}
    for s in range(lev.S):
        rows = base[lev.start[s]:lev.start[s] + lev.length[s]]
        x = g.values[j][rows]
        obs = x >= 0
        if not obs.any():
            continue
        rows = rows[obs]
        try:
            res = categorical_best(x[obs], len(spec.levels), g.y[rows], g.w[rows], g.c[rows],
                                    K, weights, kind, edge, spec.name)
        except DataError as exc:       # the depth-first growth meets it at its own node
            raise Undecided(str(exc)) from None
        if res is not None:
            improve[s], got[s] = res[0], res[1:]
    return improve, got


def _level_best(g, lev, orders, K, weights, kind, edge, lo, cap):
    """The best split of each segment over the predictors in column order (rpart's
    bsplit: a predictor counts if its improvement passes the ``iscale`` rule, the earlier
    predictor wins ties).  ``lo``: the largest improvement seen before each node (its
    ancestors'), ``cap``: the largest any improvement can be (0 at the root, which comes
    first).  Returns (best, the largest improvement seen by each node's end)."""
    S, P = lev.S, len(g.specs)
    num = _numeric_all(g, lev, orders, K, weights, kind, edge)
    best = SimpleNamespace(improve=np.full(S, -np.inf), var=np.full(S, -1, dtype=np.intp),
                           n_tied=np.zeros(S, dtype=np.int64), num=num, cat={})
    found = np.full((S, P), np.nan)
    lo = lo.copy()
    for j in range(P):
        if j in num:
            imp = num[j][0]
        else:
            imp, best.cat[j] = _categorical_all(g, lev, j, orders[-1], K, weights, kind, edge)
        has = ~np.isnan(imp)
        lo = np.where(has, np.maximum(lo, np.where(has, imp, 0.0)), lo)
        keep = has & (imp > np.maximum(lo, cap) * ISCALE)
        if np.any(has & ~keep & (imp > lo * ISCALE)):
            raise Undecided("rpart's iscale rule needs the depth-first order")
        found[keep, j] = imp[keep]
        better = keep & (imp > best.improve)
        best.improve[better] = imp[better]
        best.var[better] = j
    split = best.var >= 0
    tol = 1e-12 * np.maximum(np.abs(best.improve), 1.0)
    best.n_tied[split] = (np.abs(found - best.improve[:, None])
                          <= tol[:, None])[split].sum(axis=1)
    return best, lo


def _split_of(best, s, weights):
    """Segment ``s``'s best split as :func:`.class_splits.pack_splits` takes it."""
    split = Split()
    j = int(best.var[s])
    split.improve, split.var, split.n_tied = float(best.improve[s]), j, int(best.n_tied[s])
    if j in best.num:
        _, at, left, right, xs = best.num[j]
        split.threshold = 0.5 * (xs[at[s]] + xs[at[s] + 1])
        split.low_left = left_is_lower(left[s], right[s], weights)
        split.lw, split.rw = float(left[s].sum()), float(right[s].sum())
    else:
        split.side, split.lw, split.rw = best.cat[j][s]
    return split
