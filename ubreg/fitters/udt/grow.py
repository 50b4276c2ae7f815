"""Top-down induction of a UDT tree from presorted rows (Algorithm 3).

The source of exact rows for the level builder (:mod:`ubreg.trees.builder`, which
owns the node table, the controls and the level loop): each pass finds the best
split of every open node with the vectorised splitter (on large levels of large
trees with unit weights, one compiled pass per predictor, :mod:`ubreg.fitters.udt.fused`,
the predictors on a thread per core), routes the rows of the split nodes to their
children and stably partitions each predictor's presorted row order by child, so
that the next level again sees every open node as a contiguous, sorted segment.
Rows whose node closes (a leaf) leave the orderings; the work per level is linear
in the rows still open.  Once few rows remain open (``BATCH_ROWS``) the
orderings become the rows of one array, partitioned and searched for all
predictors at once, so that the deep, narrow levels of an unbounded tree do
not each pay numpy's per-call overhead once per predictor.

Controls follow rpart (``rpart.control``):

- ``min_split``: a node is split only if it holds at least this many
  observations;
- ``min_leaf`` (rpart's ``minbucket``): every child holds at least this many
  observations with an observed split variable;
- ``max_depth``: the root has depth 0; nodes at ``max_depth`` are not split;
- ``cp``: a split must lower the tree's relative risk by at least ``cp``
  (rpart's complexity pruning, :mod:`ubreg.trees.prune`), with the risk being
  the surrogate (Theorem 4) or the misclassification (rpart) risk.

``min_split`` and ``min_leaf`` count observations: rows of positive weight with
unit or prior weights (``count_rows``), as rpart counts them, so a constant
multiple of prior weights grows the same tree; with frequency weights a row of
weight w counts w times, so a row of weight 3 is the same as the row repeated
three times and a zero weight the same as a removed row.  Weight sums are
compared with the counts up to a rounding tolerance (exact for integer
weights).

Missing values (NaN, code -1): the split search of a variable uses the rows
where it is observed; the rows where it is missing then follow rpart's
surrogate splits (:mod:`ubreg.trees.surrogates`), and the child with the
larger observed weight when no surrogate applies (ties: the left child).  They
are never dropped: they count in the children's n, weight and class
proportions.

Children: as in rpart, the left child (node 2k) is the side with the smaller
proportion of y = 1, so a numeric split sends ``x < t`` left (``direction``
"<", rpart's ncat = -1) or ``x >= t`` left (">=", ncat = +1).

This engine is not the level-wise grower of the boosting learners
(:func:`ubreg.trees.shallow.grow_tree`), though both score splits by eq. 104:
that one searches histograms of binned columns (thresholds at bin cuts, one
dummy column per level of a factor, no missing values, heap-ordered trees of
depth ≤ 12, any k per-row statistics), built for hundreds of boosting rounds
on one binning; this one reproduces rpart on raw columns (exact within-node
midpoints, sets of levels, missing values to the heavier child, rpart's
numbering, ties and cp, surrogates, depths to 62) from presorted orderings.  Merged, one
would change its trees (thresholds, tie-breaks by the rounding of its gains)
or lose its speed; :mod:`ubreg.trees.shallow` gives the reasons in full.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...trees.builder import LevelBuilder, TwoClassStats, check_controls, grow_levels
from ...trees.columns import CATEGORICAL, check_columns, check_response
from ...trees.criterion import make_criterion
from ...trees.route import route_level
from ...trees.surrogates import find_surrogates, route_missing, split_missing
from .fused import fused_candidates, fused_kind
from .partition import partition_orderings, partition_rows
from .splitter import (
    Candidates,
    RowData,
    Workspace,
    categorical_best,
    make_layout,
    numeric_best,
    numeric_best_batch,
)

__all__ = ["grow_raw"]

#: levels of at most this many open rows keep the numeric orderings in one
#: (p, m) array, partitioned in one pass, and (unit weights, no missing
#: values, closed-form criterion) search all predictors' cuts at once: deep,
#: narrow levels then cost a few dozen numpy calls instead of a few dozen per
#: predictor
BATCH_ROWS = 1 << 14
#: elements (predictors × rows) per batched call of the splitter
BATCH_BLOCK = 1 << 17


@dataclass
class _Best:
    """Best split of every segment over all predictors (column order breaks ties)."""

    improve: np.ndarray
    var: np.ndarray
    n_tied: np.ndarray
    threshold: np.ndarray
    low_left: np.ndarray
    lw: np.ndarray
    rw: np.ndarray
    side: np.ndarray | None

    @classmethod
    def empty(cls, S: int) -> _Best:
        """No split yet for ``S`` segments."""
        return cls(improve=np.full(S, -np.inf), var=np.full(S, -1, dtype=np.intp),
                   n_tied=np.zeros(S, dtype=np.int64), threshold=np.full(S, np.nan),
                   low_left=np.ones(S, dtype=bool), lw=np.zeros(S), rw=np.zeros(S),
                   side=None)

    def consider(self, j: int, c, tol, categorical: bool) -> None:
        """Take predictor ``j``'s candidates ``c`` where they beat the best by more than
        ``tol`` (an earlier predictor wins ties, as rpart); count the ties."""
        fin = np.isfinite(c.improve)
        better = fin & (c.improve > self.improve + tol)
        with np.errstate(invalid="ignore"):        # −inf − (−inf) where neither splits
            tie = fin & np.isfinite(self.improve) & ~better & \
                (np.abs(c.improve - self.improve) <= tol)
        self.n_tied = np.where(better, c.n_tied,
                               np.where(tie, self.n_tied + c.n_tied, self.n_tied))
        if not better.any():
            return
        self.improve = np.where(better, c.improve, self.improve)
        self.var[better] = j
        self.lw[better] = c.lw[better]
        self.rw[better] = c.rw[better]
        self.low_left[better] = c.low_left[better]
        if categorical:
            assert self.side is not None and c.side is not None
            self.side[better] = 0
            self.side[better, : c.side.shape[1]] = c.side[better]
            self.threshold[better] = np.nan
        else:
            assert c.threshold is not None
            self.threshold[better] = c.threshold[better]


def _batch_candidates(batch, values, orders2, row_of, rowdata, lay, crit, has_dups):
    """Candidates of the predictors ``batch`` (numeric, no missing values,
    unit weights) from :func:`numeric_best_batch`, in groups of at most
    ``BATCH_BLOCK`` elements."""
    g = max(1, BATCH_BLOCK // max(lay.m, 1))
    out = {}
    for i in range(0, len(batch), g):
        js = batch[i:i + g]
        rr = [row_of[j] for j in js]
        sub = orders2[rr[0]:rr[-1] + 1] if rr == list(range(rr[0], rr[-1] + 1)) else orders2[rr]
        res = numeric_best_batch([values[j] for j in js], sub, [has_dups[j] for j in js],
                                 rowdata, lay, crit)
        for q, j in enumerate(js):
            improve, n_tied, thr, lw, rw, low = (r[q] for r in res)
            out[j] = Candidates(improve=improve, n_tied=n_tied, threshold=thr, lw=lw, rw=rw,
                                low_left=low)
    return out


def _best_splits(specs, values, orders, base, rowdata, lay, crit, ws, has_nan, has_dups, lmax,
                 orders2=None, row_of=None):
    """Scan the predictors in column order; a later one must be better by more
    than the tie tolerance (rpart keeps the earlier variable).

    With unit weights and a closed-form criterion, the numeric predictors
    without missing values are searched by the compiled kernel on large levels
    (:mod:`.fused`, when numba is planned or loaded), else, with ``orders2``
    (the numeric orderings as rows of one array, predictor j in row
    ``row_of[j]``), in batches; both give :func:`numeric_best`'s candidates."""
    S = lay.S
    batched = {}
    kind = fused_kind(crit, lay.m, rowdata.unit)
    plain = [j for j in has_nan if not has_nan[j]]
    if kind is not None and plain:
        batched = fused_candidates(kind, plain, values, orders, rowdata.y8, has_dups, lay, crit,
                                   ws)
    elif orders2 is not None and rowdata.unit and crit.kind != "generic":
        batch = [j for j in row_of if not has_nan[j]]
        if batch:
            batched = _batch_candidates(batch, values, orders2, row_of, rowdata, lay, crit,
                                        has_dups)
    best = _Best.empty(S)
    wy_base = w_base = None
    for j, spec in enumerate(specs):
        if spec.kind == CATEGORICAL:
            if wy_base is None:
                wy_base, w_base = rowdata.wy[base], rowdata.w[base]
                best.side = np.zeros((S, lmax), dtype=np.int8)
            c = categorical_best(values[j][base], len(spec.levels), wy_base, w_base, lay, crit)
        elif j in batched:
            c = batched[j]
        else:
            c = numeric_best(values[j], orders[j], rowdata, lay, crit, ws, has_nan[j],
                             has_dups[j])
        best.consider(j, c, lay.tol, spec.kind == CATEGORICAL)
    return best


def _relayout(lay, seg_len, ks, len_slot, keep):
    """Where each position of the level's orderings moves (:func:`.partition.partition`).

    Kept children get consecutive segments (in slot order: parent order,
    left before right); the rows of closed children and of unsplit segments
    go to a trash area past the kept ones.  Returns (A, C, m_new).
    """
    S = seg_len.shape[0]
    m_new = int(len_slot[keep].sum())
    start_slot = np.empty(len_slot.shape[0], dtype=np.intp)
    start_slot[keep] = np.cumsum(len_slot[keep]) - len_slot[keep]
    start_slot[~keep] = m_new + np.cumsum(len_slot[~keep]) - len_slot[~keep]
    trash_from = m_new + int(len_slot[~keep].sum())
    unsplit = np.ones(S, dtype=bool)
    unsplit[ks] = False
    n_left = seg_len.copy()                  # rows of unsplit segments all count as "left"
    lstart = np.empty(S, dtype=np.intp)
    rstart = np.zeros(S, dtype=np.intp)
    uns = np.flatnonzero(unsplit)
    lstart[uns] = trash_from + np.cumsum(seg_len[uns]) - seg_len[uns]
    n_left[ks] = len_slot[0::2]
    lstart[ks] = start_slot[0::2]
    rstart[ks] = start_slot[1::2]
    cl_base = np.cumsum(n_left) - n_left     # left-going rows before each segment
    # positions of the orderings' dtype (int32 below 2^31 rows: A and C are the
    # level's largest temporaries)
    dtype = np.int32 if lay.m < 2 ** 31 else np.intp
    A = (lstart - cl_base - 1).astype(dtype)[lay.seg]
    C = (rstart - lay.start + cl_base).astype(dtype)[lay.seg]
    C += np.arange(lay.m, dtype=dtype)
    return A, C, m_new


def grow_raw(columns, y, weight, family, *, min_split=20, min_leaf=7, max_depth=30,
             cp=0.01, risk="misclass", alpha=None, count_rows=False):
    """Grow the tree before complexity pruning.

    Nodes whose risk is at most ``alpha`` (= cp × root risk unless given) are
    not split, since no subtree below them can have a complexity above alpha
    (rpart stops at the same nodes).  Returns (RawTree, info dict).
    """
    values, specs, n = check_columns(columns)
    y, w = check_response(y, weight, n)
    min_split, min_leaf, max_depth, cp, risk = check_controls(min_split, min_leaf, max_depth,
                                                              cp, risk)
    crit = make_criterion(family)
    source = _PresortedRows(values, specs, y, w, crit, max_depth, count_rows)
    del w                                   # unit weights: the source keeps none
    lmax = max([len(s.levels) for s in specs if s.kind == CATEGORICAL] or [1])
    builder = LevelBuilder(TwoClassStats(crit, risk), source.root_sums(), min_split, min_leaf,
                           max_depth, source.rows, lmax)
    builder.alpha = cp * builder.root_risk if alpha is None else alpha
    info = dict(alpha=builder.alpha, root_risk=builder.root_risk, n=n, specs=specs)
    grow_levels(builder, source, source.cat_flag)
    raw = builder.finish()
    raw["surrogates"] = source.surrogates
    return raw, info


class _PresortedRows:
    """The rows of a tree as :func:`~ubreg.trees.builder.grow_levels` asks for them
    (see the module docstring): each predictor's rows presorted once, the open nodes
    contiguous segments of every ordering (``seg_len``: their rows of positive weight;
    ``base``: the open rows by segment), the per-row routing state, and the surrogate
    splits found where rows miss their split's variable."""

    def __init__(self, values, specs, y, w, crit, max_depth, count_rows=False):
        n = y.shape[0]
        self.values, self.specs, self.crit, self.max_depth = values, specs, crit, max_depth
        self.unit = bool(np.all(w == 1.0))
        #: min_split and min_leaf count rows of positive weight (unit and prior weights)
        self.rows = self.unit or bool(count_rows)
        if self.unit:
            # unit weights: w·y is y, and w, its positive rows and their list take
            # no memory (the same values as the arrays)
            w = np.broadcast_to(np.float64(1.0), (n,))
            self.positive = np.broadcast_to(True, (n,))
            self.pos_rows = None
        else:
            self.positive = w > 0
            self.pos_rows = np.flatnonzero(self.positive)
        self.y, self.w, self.wy_row = y, w, (y if self.unit else w * y)
        self.n_positive = n if self.pos_rows is None else self.pos_rows.shape[0]
        self.numeric = [j for j, s in enumerate(specs) if s.kind != CATEGORICAL]
        self.cat_flag = np.array([s.kind == CATEGORICAL for s in specs], dtype=bool)
        self.lmax = max([len(s.levels) for s in specs if s.kind == CATEGORICAL] or [1])
        self.has_nan = {j: bool(np.isnan(values[j]).any()) for j in self.numeric}
        self.any_missing = any(self.has_nan.values()) or any(
            bool((values[j] < 0).any()) for j in np.flatnonzero(self.cat_flag))
        #: surrogate splits by node number, at the nodes where rows miss the split variable
        self.surrogates = {}
        self.started = False

    def root_sums(self) -> dict:
        return dict(n=self.y.shape[0], npos=self.n_positive, weight=self.w.sum(),
                    wy=self.wy_row.sum())

    def _start(self):
        """Presort and set up the per-row state (only for a root that splits)."""
        npos_all = self.n_positive
        # the compiled gains (Matsushita, entropy) when the tree is large enough to
        # repay numba's start-up: cuts per level × levels (log2 of the rows, or
        # max_depth), the rows mostly staying open that long
        self.crit.plan_kernels(npos_all * len(self.numeric)
                               * min(self.max_depth, max(npos_all.bit_length() - 1, 1)),
                               self.unit)
        self._presort()
        self.rowdata = RowData(y8=self.y.astype(np.uint8), wy=self.wy_row, w=self.w,
                               unit=self.unit)
        # the open rows, by segment, any order
        self.base = (np.arange(npos_all, dtype=self.index_dtype) if self.pos_rows is None
                     else self.pos_rows.astype(self.index_dtype))
        # every row has a positive weight: the rows to route are those of ``base``
        # (each segment's rows stay in row order, so sums over a child add in the
        # same order); else zero-weight rows are routed too, through seg_of_row
        n = self.y.shape[0]
        self.dense = npos_all == n
        self.seg_of_row = None if self.dense else np.zeros(n, dtype=np.intp)  # -1: closed
        self.orders2 = None                   # small levels: the orderings, base last, as rows
        self.row_of = {j: i for i, j in enumerate(self.numeric)}
        self.go_left = np.ones(n, dtype=bool)
        self.seg_len = np.array([npos_all], dtype=np.intp)
        self.ws = Workspace(npos_all)
        self.ibuf = [np.empty(npos_all, dtype=self.index_dtype) for _ in range(2)]
        self.started = True

    def _presort(self):
        """Sort every numeric predictor's rows of positive weight once (NaN last)."""
        self.orders, self.has_dups = {}, {}
        self.index_dtype = np.int32 if self.y.shape[0] < 2 ** 31 else np.intp
        for j in self.numeric:
            xj = self.values[j] if self.pos_rows is None else self.values[j][self.pos_rows]
            # int32 positions below 2^31 rows: the orderings are the tree's largest
            # arrays (one per numeric predictor), half the memory of intp
            o = np.argsort(xj).astype(self.index_dtype, copy=False)
            xs = xj[o]
            # a predictor without repeated values needs no distinctness test
            self.has_dups[j] = bool(np.any(xs[1:] == xs[:-1]))
            del xs
            self.orders[j] = (o if self.pos_rows is None
                              else self.pos_rows[o].astype(self.index_dtype))

    def best_splits(self, open_ids, builder):
        """The best split of every open node, and the tolerance it must beat."""
        if not self.started:
            self._start()
        a = builder.store.a
        self.lay = make_layout(self.seg_len, a["wy"][open_ids], a["weight"][open_ids],
                               self.crit, builder.min_leaf, self.unit, builder.leaf_w, self.rows)
        best = _best_splits(self.specs, self.values, self.orders, self.base, self.rowdata,
                            self.lay, self.crit, self.ws, self.has_nan, self.has_dups,
                            self.lmax, self.orders2, self.row_of)
        return best, self.lay.tol

    def children(self, ks, split, best, builder):
        """Route the rows of the split nodes; the children's (n, npos, Σw, Σw·y)."""
        rows, rk, left = self._route_rows(self.lay, ks, builder, *split)
        slot = 2 * rk + (~left)               # child slot: 2k left, 2k + 1 right
        K2 = 2 * ks.shape[0]
        cn = np.bincount(slot, minlength=K2)
        cw = np.bincount(slot, weights=self.w[rows], minlength=K2)
        cwy = np.bincount(slot, weights=self.wy_row[rows], minlength=K2)
        cnp = cn if self.unit else np.bincount(slot, weights=self.positive[rows],
                                               minlength=K2).astype(np.int64)
        self.pending = (ks, rows, slot, cnp.astype(np.intp))
        return cn, cnp, cw, cwy

    def _route_rows(self, lay, ks, builder, ids, var_k, thr_k, low_k, na_left_k):
        """Route every row of the split nodes (any weight, missing values too) and
        set ``go_left`` for the partition.  Returns (rows, their split's rank,
        left)."""
        # int32 ranks (fewer splits than rows): the per-row arrays below are the
        # level's largest temporaries
        rank_of_seg = np.full(lay.S + 1, -1, dtype=np.int32)
        rank_of_seg[ks] = np.arange(ks.shape[0])
        if self.dense:
            r_pos = rank_of_seg[lay.seg]        # per position of base; unsplit: -1
            sel = np.flatnonzero(r_pos >= 0)
            rows = self.base[sel]
            rk = r_pos[sel]
        else:
            r_rank = rank_of_seg[self.seg_of_row]   # seg_of_row = -1 hits the trailing -1
            rows = np.flatnonzero(r_rank >= 0)
            rk = r_rank[rows]
        a = builder.store.a
        left = route_level(self.specs, self.values, rows, rk, var_k, thr_k, low_k, na_left_k,
                           builder.cat_blocks[0] if builder.cat_blocks else None,
                           a["cat_row"][ids])
        if self.any_missing:
            left = self._surrogate_route(rows, rk, a["number"][ids], var_k, left)
        if self.dense:                          # rows of unsplit segments count as left
            gl_pos = np.ones(lay.m, dtype=bool)
            gl_pos[sel] = left
            self.go_left[self.base] = gl_pos
        else:
            self.go_left[:] = True
            self.go_left[rows] = left
        return rows, rk, left

    def _surrogate_route(self, rows, rk, numbers, var_k, left):
        """Route the rows that miss their split's variable by the surrogate splits of
        their node (rpart numbers ``numbers``), found here (:mod:`ubreg.trees.surrogates`)."""
        miss = split_missing(self.specs, self.values, rows, var_k[rk])
        if not miss.any():
            return left
        direction = np.where(miss, 0, np.where(left, 1, -1)).astype(np.int8)
        for k in np.unique(rk[miss]):
            sel = np.flatnonzero(rk == k)
            self.surrogates[int(numbers[k])] = find_surrogates(
                self.specs, self.values, rows[sel], direction[sel], self.w[rows[sel]],
                int(var_k[k]), count_rows=self.rows)
        left = left.copy()
        left[miss] = route_missing(self.surrogates, self.specs, self.values, rows[miss],
                                   numbers[rk[miss]], left[miss])
        return left

    def keep(self, kids, keep):
        """Keep the open children: their segments and the orderings' partition."""
        ks, rows, slot, len_slot = self.pending
        lay = self.lay
        if not self.dense:
            new_seg_of_slot = np.full(kids.shape[0] + 1, -1, dtype=np.intp)
            new_seg_of_slot[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
            self.seg_of_row = np.full(self.y.shape[0], -1, dtype=np.intp)
            self.seg_of_row[rows] = new_seg_of_slot[slot]
        A, C, m_new = _relayout(lay, self.seg_len, ks, len_slot, keep)
        if m_new:
            self._partition_orders(A, C, m_new)
        self.seg_len = len_slot[keep]

    def _partition_orders(self, A, C, m_new):
        """Partition every ordering (and ``base``) into the kept children's segments;
        from ``BATCH_ROWS`` open rows on, all of them as the rows of one array."""
        if self.orders2 is None and m_new <= BATCH_ROWS:
            self.orders2 = np.stack([self.orders[j] for j in self.numeric] + [self.base])
        if self.orders2 is not None:
            self.orders2 = partition_rows(self.orders2, self.go_left, A, C, m_new)
            self.orders = {j: self.orders2[i] for i, j in enumerate(self.numeric)}
            self.base = self.orders2[-1]
            return
        # handed over, not copied: each old ordering is released once partitioned
        parts = [self.orders.pop(j) for j in self.numeric] + [self.base]
        partition_orderings(parts, self.go_left, A, C, m_new, self.ibuf, self.ws)
        self.orders = dict(zip(self.numeric, parts[:-1]))
        self.base = parts[-1]
