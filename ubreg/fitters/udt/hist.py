"""UDT grown from histograms of coded predictors (``bins=``, and every fit of a Dask frame).

The second source of the level builder (:mod:`ubreg.trees.builder`; the first,
:mod:`ubreg.fitters.udt.grow`, searches presorted rows): this one searches, for
every open node of a level, the sums of four statistics per
predictor and *code* — rows, rows of positive weight, Σw, Σw·y — so that the
rows themselves never need to be in one place: a Dask fit sums the
histograms of its partitions (:mod:`ubreg.dask.udt`), an in-memory fit with
``bins=`` sums them over its one array, and both run the same choice of
splits on the same sums (:func:`grow_binned`).

A numeric predictor is coded by :class:`CodedColumns`: either *exactly* (one
code per distinct value; the search then sees what rpart sees), or in
quantile *bins* (``bins=k``: the cuts of :func:`ubreg.trees.binning.column_cuts`,
bin_design's).  Each code c carries the smallest and largest value of its rows,
``lo[c]`` and ``hi[c]``.  In a node, a cut lies between two consecutive codes
a < b that hold rows of positive weight there, at the midpoint
``hi[a]/2 + lo[b]/2`` — rpart's midpoint between the node's consecutive
distinct values when the coding is exact.  Everything else is the engine's:
the gains (the criterion's closed forms, on the same sums), the tie rule
(first predictor, then smallest threshold, within ``RTOL`` × b_φ × node
weight), ``min_split``/``min_leaf``/``max_depth``/``cp`` and rpart's node
numbering, so with exact codes and unit (or integer) weights the tree is the
engine's bit for bit (``tests/test_dask_udt.py``).

Not here: missing predictor values (rpart's surrogate splits need the raw
values of the rows of a node, which histograms do not hold; refused by the
callers) and the cross-validated cp table.  A row of weight 0 (counted in a
node's ``n``) goes the way of its code: with exact codes, that of its value.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...trees.builder import LevelBuilder, TwoClassStats, check_controls, grow_levels
from ...trees.columns import CATEGORICAL, ColumnSpec
from ...trees.criterion import make_criterion
from .grow import _Best
from .splitter import RTOL, Candidates, categorical_from_sums, cut_midpoint

__all__ = ["CodedColumns", "CodeTree", "encode", "code_ranges", "merge_ranges",
           "level_histograms", "grow_binned", "MAX_EXACT_CODES"]

#: the most distinct values a numeric predictor may have to be coded exactly (bins=None)
#: where the data are not in memory: histograms grow with the codes
MAX_EXACT_CODES = 1024


@dataclass
class CodedColumns:
    """What the codes of the predictors mean.

    Attributes
    ----------
    specs : list of ColumnSpec
        Names, kinds and levels, in formula order.
    edges : list
        Numeric predictor: the sorted values (exact coding) or the cuts (bins)
        that ``searchsorted(edges, x)`` turns into codes; categorical: None
        (the codes are the level codes).
    exact : list of bool
        Whether each numeric predictor is coded by its distinct values.
    lo, hi : list
        Numeric: the smallest and largest value of each code's rows; None for
        categorical predictors.
    """

    specs: list
    edges: list
    exact: list
    lo: list
    hi: list

    @cached_property
    def nbins(self) -> np.ndarray:
        return np.array([len(s.levels) if s.kind == CATEGORICAL else len(e) + (not x)
                         for s, e, x in zip(self.specs, self.edges, self.exact)], dtype=np.intp)

    @cached_property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.nbins)]).astype(np.intp)


def encode(values: list, coded: CodedColumns) -> np.ndarray:
    """(d, n) codes of predictor ``values`` (numeric float64, categorical int
    codes; no missing values), uint8 when every predictor has ≤ 256 codes."""
    from ...trees.codes import search_codes
    n = len(values[0]) if values else 0
    dtype = np.uint8 if coded.nbins.max(initial=1) <= 256 else np.uint16
    out = np.empty((len(values), n), dtype=dtype)
    for j, (v, spec) in enumerate(zip(values, coded.specs)):
        if spec.kind == CATEGORICAL:
            out[j] = v
        else:               # np.searchsorted(coded.edges[j], v), compiled
            search_codes(np.asarray(coded.edges[j], dtype=np.float64),
                         np.ascontiguousarray(v, dtype=np.float64), out[j])
    return out


def code_ranges(values: list, codes: np.ndarray, coded: CodedColumns) -> list:
    """(lo, hi) of every numeric predictor's codes over these rows (±inf where a
    code has none); None for categorical ones.  Combined by :func:`merge_ranges`."""
    out: list = []
    for j, (v, spec) in enumerate(zip(values, coded.specs)):
        if spec.kind == CATEGORICAL:
            out.append(None)
            continue
        nb = int(coded.nbins[j])
        lo, hi = np.full(nb, np.inf), np.full(nb, -np.inf)
        np.minimum.at(lo, codes[j], v)
        np.maximum.at(hi, codes[j], v)
        out.append((lo, hi))
    return out


def merge_ranges(a: list, b: list) -> list:
    """The elementwise extremes of two :func:`code_ranges`."""
    return [None if x is None else (np.minimum(x[0], y[0]), np.maximum(x[1], y[1]))
            for x, y in zip(a, b)]


# ---------------------------------------------------------------------------
# the partial tree in code space, and the histograms of a level (data side)
# ---------------------------------------------------------------------------
@dataclass
class CodeTree:
    """The tree grown so far, as the data side routes rows through it.

    ``left``/``right`` (−1 at leaves) and ``var`` by node id (growth order);
    ``goes_left[k, c]`` whether a row of code c at split node k goes left;
    ``slot[k]`` the row of the level's histograms that node k sums into (−1:
    closed); ``depth`` the deepest level of splits.
    """

    left: np.ndarray
    right: np.ndarray
    var: np.ndarray
    goes_left: np.ndarray
    slot: np.ndarray
    depth: int

    @property
    def n_open(self) -> int:
        return int(self.slot.max(initial=-1)) + 1

    def route(self, codes: np.ndarray) -> np.ndarray:
        """The node id each row (a column of ``codes``) reaches."""
        n = codes.shape[1]
        node = np.zeros(n, dtype=np.intp)
        rows = np.arange(n, dtype=np.intp)
        for _ in range(self.depth):
            inner = self.left[node] >= 0
            if not inner.any():
                break
            r, k = rows[inner], node[inner]
            c = codes[self.var[k], r]
            node[r] = np.where(self.goes_left[k, c], self.left[k], self.right[k])
        return node

    def row_slots(self, codes: np.ndarray) -> np.ndarray:
        """``slot[route(codes)]``, compiled: each row walks down the tree once."""
        from ...trees.codes import code_tree_slots
        out = np.empty(codes.shape[1], dtype=np.int64)
        code_tree_slots(codes, self.left.astype(np.int64), self.right.astype(np.int64),
                        self.var.astype(np.int64), self.goes_left, self.slot.astype(np.int64),
                        out)
        return out


def row_statistics(y: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """(n, 4) per row: 1, whether w > 0, w and w·y (``w`` None: unit weights)."""
    out = np.empty((len(y), 4))
    out[:, 0] = 1.0
    if w is None:
        out[:, 1:3] = 1.0
        out[:, 3] = y
    else:
        ww = np.asarray(w, dtype=np.float64)
        out[:, 1] = ww > 0
        out[:, 2] = ww
        np.multiply(ww, np.asarray(y, dtype=np.float64), out=out[:, 3])
    return out


def level_histograms(codes: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                     tree: CodeTree, offsets: np.ndarray) -> np.ndarray:
    """(open nodes, codes of all predictors, 4) sums of rows, rows of positive
    weight, w and w·y over the rows of each open node (``w`` None: unit).

    Compiled (:func:`~ubreg.trees.histograms.grouped_histograms`): the rows
    routed down the tree, grouped by open node, and every bin summed in row
    order (the sums of ``np.bincount`` over the rows, to the bit).
    """
    from ...trees.histograms import grouped_histograms
    S, total = tree.n_open, int(offsets[-1])
    out = np.zeros((S, total, 4))
    if S == 0 or codes.shape[1] == 0:
        return out
    feats = np.arange(codes.shape[0], dtype=np.int64)
    grouped_histograms(codes, feats, np.asarray(offsets, dtype=np.int64), tree.row_slots(codes),
                       S, row_statistics(y, w), out)
    return out


# ---------------------------------------------------------------------------
# the choice of splits (client side)
# ---------------------------------------------------------------------------
@dataclass
class _Level:
    """What the split search needs of a level's open nodes (the splitter's
    ``Layout`` without its per-row arrays)."""

    S: int
    tol: np.ndarray
    parent: np.ndarray
    offset: np.ndarray
    min_leaf: int
    unit: bool
    leaf_w: float
    rows: bool = False            # min_leaf counts rows (unit and prior weights)


def _numeric_from_hist(H: np.ndarray, lo: np.ndarray, hi: np.ndarray, lay: _Level,
                       crit) -> Candidates:
    """The best cut of one numeric predictor in every node from its histogram
    ``H`` (S, codes, 4): :func:`ubreg.fitters.udt.splitter.numeric_best` on sums."""
    cnt, cw, cwy = H[..., 1], H[..., 2], H[..., 3]
    present = cnt > 0
    lcnt, lw, lwy = np.cumsum(cnt, axis=1), np.cumsum(cw, axis=1), np.cumsum(cwy, axis=1)
    tcnt, tw, twy = lcnt[:, -1:], lw[:, -1:], lwy[:, -1:]
    rcnt, rw, rwy = tcnt - lcnt, tw - lw, twy - lwy
    gain = np.empty(lw.shape)
    nb = H.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        crit.gain(lwy.ravel(), lw.ravel(), rwy.ravel(), rw.ravel(), None, out=gain.reshape(-1),
                  tmp=np.empty(gain.size), tmp2=np.empty(gain.size))
    if lay.rows:
        small = (lcnt < lay.min_leaf) | (rcnt < lay.min_leaf)
    else:
        small = np.minimum(lw, rw) < lay.leaf_w
    bad = ~present | (rcnt <= 0) | small
    gain[bad] = -np.inf
    best = gain.max(axis=1) if nb else np.full(lay.S, -np.inf)
    found = np.isfinite(best)
    hit = gain >= np.where(found, best - lay.tol, np.inf)[:, None]
    first = np.argmax(hit, axis=1)
    n_tied = np.where(found, hit.sum(axis=1), 0)
    # the next code with rows of positive weight after each code (its lo is b)
    idx = np.where(present, np.arange(nb)[None, :], nb)
    nxt = np.minimum.accumulate(idx[:, ::-1], axis=1)[:, ::-1]
    nxt = np.concatenate([nxt[:, 1:], np.full((lay.S, 1), nb)], axis=1)
    rows = np.arange(lay.S)
    b_code = np.minimum(nxt[rows, first], nb - 1)
    improve = np.where(found, lay.parent - (lay.offset - best), -np.inf)
    c_lw, c_rw = lw[rows, first], rw[rows, first]
    threshold, low_left = cut_midpoint(hi[first], lo[b_code], lwy[rows, first], c_lw,
                                       rwy[rows, first], c_rw, found)
    return Candidates(improve=improve, n_tied=n_tied, threshold=threshold, lw=c_lw, rw=c_rw,
                      low_left=low_left)


def _best_from_hist(H: np.ndarray, coded: CodedColumns, lay: _Level, crit, lmax: int) -> _Best:
    """The best split of every node over all predictors; a later predictor must
    be better by more than the tie tolerance (:func:`ubreg.fitters.udt.grow._best_splits`)."""
    S = lay.S
    best = _Best.empty(S)
    off = coded.offsets
    for j, spec in enumerate(coded.specs):
        Hj = H[:, off[j]:off[j + 1]]
        if spec.kind == CATEGORICAL:
            if best.side is None:
                best.side = np.zeros((S, lmax), dtype=np.int8)
            c = categorical_from_sums(Hj[..., 1], Hj[..., 2], Hj[..., 3], lay, crit)
        else:
            c = _numeric_from_hist(Hj, coded.lo[j], coded.hi[j], lay, crit)
        best.consider(j, c, lay.tol, spec.kind == CATEGORICAL)
    return best


class _Histograms:
    """The rows of a tree as level histograms (see the module docstring): the source
    that :func:`~ubreg.trees.builder.grow_levels` asks for each level's best splits
    and children's sums; it keeps the tree in code space (which codes go left)."""

    def __init__(self, coded, histograms, crit, unit, rows):
        self.coded, self.histograms, self.crit = coded, histograms, crit
        self.unit, self.rows = unit, rows
        self.lmax = max([len(s.levels) for s in coded.specs if s.kind == CATEGORICAL] or [1])
        self.width = int(coded.nbins.max(initial=1))
        self.goes_left = np.zeros((0, self.width), dtype=bool)
        self.depth = 0
        self.cat_flag = np.array([s.kind == CATEGORICAL for s in coded.specs], dtype=bool)

    def code_tree(self, open_ids, builder) -> CodeTree:
        a, size = builder.store.a, builder.store.size
        slot = np.full(size, -1, dtype=np.intp)
        slot[open_ids] = np.arange(len(open_ids))
        table = np.zeros((size, self.width), dtype=bool)
        table[:self.goes_left.shape[0]] = self.goes_left
        return CodeTree(left=a["left"][:size].copy(), right=a["right"][:size].copy(),
                        var=np.maximum(a["var"][:size], 0), goes_left=table, slot=slot,
                        depth=self.depth)

    def best_splits(self, open_ids, builder):
        """The best split of every open node from the level's histograms."""
        self.H = np.asarray(self.histograms(self.code_tree(open_ids, builder)),
                            dtype=np.float64)
        a, crit = builder.store.a, self.crit
        twy, tw = a["wy"][open_ids], a["weight"][open_ids]
        lay = _Level(S=len(open_ids), tol=RTOL * crit.b * tw, parent=crit.node_term(twy, tw),
                     offset=crit.offset(twy, tw), min_leaf=builder.min_leaf, unit=self.unit,
                     leaf_w=float(builder.leaf_w), rows=self.rows)
        return _best_from_hist(self.H, self.coded, lay, crit, self.lmax), lay.tol

    def _goes_left(self, k, j, best):
        """Which codes of predictor j go left at the split of segment k."""
        nb = int(self.coded.nbins[j])
        if self.coded.specs[j].kind == CATEGORICAL:
            assert best.side is not None
            side = best.side[k, :nb]
            wl = best.lw[k] if best.low_left[k] else best.rw[k]
            wr = best.rw[k] if best.low_left[k] else best.lw[k]
            return np.where(side == 1, True, np.where(side == 2, False, wl >= wr))
        below = self.coded.hi[j] < best.threshold[k]
        return below if best.low_left[k] else ~below

    def children(self, ks, split, best, builder):
        """The children's sums (from the split predictor's histogram), and the codes'
        directions at the split nodes."""
        ids = split[0]
        off = self.coded.offsets
        sums = np.zeros((2 * ks.shape[0], 4))
        grow = np.zeros((builder.store.size + 2 * ks.shape[0], self.width), dtype=bool)
        grow[:self.goes_left.shape[0]] = self.goes_left
        for i, (k, node) in enumerate(zip(ks, ids)):
            j = int(best.var[k])
            gl = self._goes_left(k, j, best)
            grow[node, :gl.shape[0]] = gl
            Hj = self.H[k, off[j]:off[j + 1]]
            sums[2 * i] = Hj[gl].sum(axis=0)
            sums[2 * i + 1] = Hj[~gl].sum(axis=0)
        self.goes_left = grow
        self.depth += 1
        return (np.rint(sums[:, 0]).astype(np.int64), np.rint(sums[:, 1]).astype(np.int64),
                sums[:, 2], sums[:, 3])

    def keep(self, kids, open_mask):
        """Nothing to do: the next level's histograms route every row afresh."""


def grow_binned(coded: CodedColumns, histograms, root: dict, family, *, unit: bool,
                min_split=20, min_leaf=7, max_depth=30, cp=0.01, risk="misclass", alpha=None,
                count_rows=False):
    """Grow the tree before complexity pruning from level histograms
    (:func:`ubreg.fitters.udt.grow.grow_raw` on sums).

    Parameters
    ----------
    coded : CodedColumns
    histograms : callable
        ``histograms(code_tree) -> (open nodes, total codes, 4)``: the sums of
        :func:`level_histograms` over all rows (one pass over a Dask frame).
    root : dict
        ``n`` (rows), ``npos`` (rows of positive weight), ``weight``, ``wy``.
    unit : bool
        Whether every weight is 1 (``min_split``/``min_leaf`` then count rows).

    Returns
    -------
    (RawTree, info dict), as :func:`~ubreg.fitters.udt.grow.grow_raw`.
    """
    min_split, min_leaf, max_depth, cp, risk = check_controls(min_split, min_leaf, max_depth,
                                                              cp, risk)
    crit = make_criterion(family)
    rows = bool(unit or count_rows)
    source = _Histograms(coded, histograms, crit, bool(unit), rows)
    builder = LevelBuilder(TwoClassStats(crit, risk), root, min_split, min_leaf, max_depth, rows,
                           source.lmax)
    builder.alpha = cp * builder.root_risk if alpha is None else alpha
    info = dict(alpha=builder.alpha, root_risk=builder.root_risk, n=int(root["n"]),
                specs=list(coded.specs))
    grow_levels(builder, source, source.cat_flag)
    raw = builder.finish()
    raw["surrogates"] = {}
    return raw, info


def column_specs(columns) -> list:
    """The :class:`ColumnSpec` of tree columns (name, kind, levels)."""
    return [ColumnSpec(c.name, c.kind, None if c.levels is None
                       else tuple(str(s) for s in c.levels)) for c in columns]
