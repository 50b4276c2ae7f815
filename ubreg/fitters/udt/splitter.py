"""Vectorised search of the best split of every node of one tree level.

The nodes being split at one depth are *segments* of a row ordering: for each
numeric predictor the engine keeps the rows of the open nodes, grouped by node
(segment) and sorted by the predictor within each segment (missing values
last).  Every segment holds the same rows in every ordering, so segment starts
and lengths are shared by all predictors.

For one predictor, cumulative sums of w·y and w along the ordering give the
left child's totals at every cut; the criterion (eq. 104, see
:mod:`ubreg.trees.criterion`) is evaluated at every cut between two distinct
values at once, and the best cut of each segment is found with
``np.maximum.reduceat``.  There is no Python loop over rows or nodes.  With
unit weights y is read as one byte a row and the sums are exact integers, so
the segment offsets and the child weights are shared by all predictors; a
predictor without repeated values is not even gathered (every cut lies
between distinct values).

``min_leaf`` bounds the size of each child: its rows (of positive weight) with unit or
prior weights (the layout's ``rows``: ``cut_bad``, shared by all predictors; rpart counts
rows, so a constant multiple of the weights grows the same tree), its weight -- the number
of observations its rows represent -- with frequency weights (``leaf_w``, compared with
the cumulative child weights each predictor already computes).

Ties: within a predictor the first (smallest-threshold) cut whose gain is
within ``tol`` of the segment's best wins; across predictors (in
:mod:`ubreg.fitters.udt.grow`) a later predictor must be better by more than ``tol``.
``tol`` = ``RTOL`` × b_φ × (node weight), i.e. relative to the largest risk the
node can have; it absorbs rounding so that exact ties (rpart's Pima node 6) are
called ties.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...trees.columns import weight_floor

__all__ = ["Layout", "Candidates", "RowData", "Workspace", "make_layout", "numeric_best",
           "numeric_best_batch", "categorical_best", "categorical_from_sums", "cut_midpoint",
           "weight_floor", "RTOL"]

#: relative tolerance that calls two split gains a tie
RTOL = 1e-10


class Layout:
    """Arrays shared by every predictor at one level (m rows in S segments).

    The per-position arrays that only numpy's search reads (``nleft``, ``lw``,
    ``rw``, ``wpart``, ``cut_bad``, ``before_pos``, ``twy_pos``) are computed
    on first use: a level searched by the compiled kernel (:mod:`.fused`)
    never holds them (seven arrays of the level's size).

    Attributes
    ----------
    start, length : (S,) first position and rows (positive weight) of each segment
    seg : (m,) segment of each position
    twy, tw : (S,) weighted positives and weight per segment
    offset, parent, tol : (S,) criterion offset, node term T and tie tolerance
    min_leaf, unit, leaf_w : the leaf bound, all weights 1, the smallest
        admissible child weight (non-unit weights: min_leaf less a rounding
        tolerance)
    rows : whether min_leaf counts rows of positive weight (unit and prior weights)
        rather than weight (frequency weights)
    """

    def __init__(self, start, length, seg, twy, tw, crit, min_leaf, unit, leaf_w, rows=None):
        self.start, self.length, self.seg = start, length, seg
        self.twy, self.tw, self.crit = twy, tw, crit
        self.offset = crit.offset(twy, tw)
        self.parent = crit.node_term(twy, tw)
        self.tol = RTOL * crit.b * tw
        self.min_leaf, self.unit, self.leaf_w = min_leaf, bool(unit), float(leaf_w)
        self.rows = bool(unit) if rows is None else bool(rows) or bool(unit)

    @property
    def m(self):
        return self.seg.shape[0]

    @cached_property
    def pos(self) -> np.ndarray:
        """(m,) 0..m − 1."""
        return np.arange(self.m, dtype=np.intp)

    @property
    def S(self):
        return self.start.shape[0]

    @cached_property
    def nleft(self) -> np.ndarray:
        """(m,) rows left of the cut after each position."""
        return self.pos - self.start[self.seg] + 1

    @cached_property
    def lw(self) -> np.ndarray:
        """(m,) rows left of each cut, as floats (the left weight when weights are unit)."""
        return self.nleft.astype(np.float64)

    @cached_property
    def _nright(self) -> np.ndarray:
        return self.length[self.seg] - self.nleft

    @cached_property
    def cut_bad(self) -> np.ndarray | None:
        """(m,) the cut violates min_leaf or leaves the segment (when counting rows)."""
        if not self.rows:
            return None
        return (self.nleft < self.min_leaf) | (self._nright < self.min_leaf)

    @cached_property
    def rw(self) -> np.ndarray | None:
        """(m,) right weight at each cut (unit weights only)."""
        return self._nright.astype(np.float64) if self.unit else None

    @cached_property
    def wpart(self):
        """The criterion's weight-only part of the gain (unit weights only)."""
        if not self.unit:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.crit.weight_part(self.lw, self.rw)

    @cached_property
    def before_pos(self) -> np.ndarray | None:
        """(m,) Σ w·y of the segments before the position's (unit weights only)."""
        if not self.unit:
            return None
        return (np.cumsum(self.twy) - self.twy)[self.seg]

    @cached_property
    def twy_pos(self) -> np.ndarray | None:
        """(m,) Σ w·y of the position's segment (unit weights only)."""
        return self.twy[self.seg] if self.unit else None


def make_layout(length, twy, tw, crit, min_leaf, unit_weights, leaf_w=None, rows=None):
    """Build the shared arrays of a level from the segment lengths and totals.

    ``leaf_w`` is the smallest admissible child weight when the weights are
    not unit (default: :func:`weight_floor` of ``min_leaf`` and the level's
    weight).
    """
    length = np.asarray(length, dtype=np.intp)
    start = np.zeros_like(length)
    np.cumsum(length[:-1], out=start[1:])
    seg = np.repeat(np.arange(length.shape[0], dtype=np.intp), length)
    twy = np.asarray(twy, dtype=np.float64)
    tw = np.asarray(tw, dtype=np.float64)
    if leaf_w is None:
        leaf_w = weight_floor(min_leaf, tw.sum())
    return Layout(start, length, seg, twy, tw, crit, min_leaf, unit_weights, leaf_w, rows)


@dataclass
class Candidates:
    """Best split of one predictor for every segment.

    ``improve`` is T(node) − T(left) − T(right) on the rows where the predictor
    is observed (−inf when the predictor has no admissible cut); ``n_tied``
    counts cuts within the tolerance of the best; ``lw``/``rw`` are the child
    weights (non-missing rows) used to send missing values to the majority;
    ``low_left`` is True when the rows below the threshold have the smaller
    positive proportion; ``side`` (S, L) puts each level of a categorical
    predictor in the set with the smaller proportions (1, sent left), the
    other set (2) or neither (0: the level does not occur in the node).
    """

    improve: np.ndarray
    n_tied: np.ndarray
    threshold: np.ndarray | None = None
    side: np.ndarray | None = None
    lw: np.ndarray | None = None
    rw: np.ndarray | None = None
    low_left: np.ndarray | None = None


class Workspace:
    """Reusable float/bool buffers, so that a level allocates almost nothing;
    each kind is allocated on its first use (a tree searched by the compiled
    kernel never uses the float buffers)."""

    def __init__(self, n):
        self.n = n
        self._f: list[np.ndarray] = []
        self._b: list[np.ndarray] = []
        self._u8: np.ndarray | None = None
        self._fused: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def floats(self, m):
        if not self._f:
            self._f = [np.empty(self.n) for _ in range(7)]
        return [a[:m] for a in self._f]

    def bools(self, m):
        if not self._b:
            self._b = [np.empty(self.n, dtype=bool) for _ in range(2)]
        return [a[:m] for a in self._b]

    def bytes(self, m):
        if self._u8 is None:
            self._u8 = np.empty(self.n, dtype=np.uint8)
        return self._u8[:m]

    def fused(self, threads, chunk):
        """The scratch of :mod:`.fused`'s kernel for each of ``threads`` threads: y
        (uint8) and the gains (float64) of a level's positions, x of ``chunk`` + 1
        of them; made once for the tree (not per level: memory freed and
        allocated again each level fragments the heap)."""
        if len(self._fused) < threads:
            self._fused += [(np.empty(self.n, dtype=np.uint8), np.empty(chunk + 1),
                             np.empty(self.n)) for _ in range(threads - len(self._fused))]
        return self._fused[:threads]


@dataclass
class RowData:
    """Per-row response and weights, as the splitter reads them."""

    y8: np.ndarray           # y as uint8
    wy: np.ndarray           # w·y, float64
    w: np.ndarray            # w, float64
    unit: bool               # all weights are 1


def numeric_best(x, order, rows, lay: Layout, crit, ws: Workspace, has_nan=False,
                 has_dups=True):
    """Best cut of a numeric predictor in every segment of ``lay``.

    Parameters
    ----------
    x : ndarray (n,)
        The predictor for all rows (NaN = missing).
    order : ndarray (m,)
        Rows of the open nodes, grouped by segment, sorted by ``x`` within a
        segment (NaN last).
    rows : RowData
        Per-row y and weights.
    lay : Layout
    crit : Criterion
    ws : Workspace
    has_nan : bool
        Whether ``x`` has missing values (per-segment non-missing totals).
    has_dups : bool
        Whether ``x`` has repeated values; without them every cut inside a
        segment lies between distinct values and ``x`` is never gathered.
    """
    m = lay.m
    lwy, rwy, gain, tmp, tmp2, lw_buf, xs = ws.floats(m)
    invalid, hit = ws.bools(m)
    if rows.unit and not has_nan:
        lw, rw, wpart, n_obs, twy, tw = _unit_sums(order, rows, lay, ws.bytes(m), lwy, rwy)
    else:
        lw, rw, wpart, n_obs, twy, tw = _weighted_sums(x, order, rows, lay, has_nan, lwy, rwy,
                                                       lw_buf, xs)
    with np.errstate(divide="ignore", invalid="ignore"):
        crit.raw_gain(lwy, lw, rwy, rw, wpart, out=gain, tmp=tmp, tmp2=tmp2)
    sign = crit.raw_sign
    bad = _inadmissible(x, order, rows.unit, lay, has_nan, has_dups, lw, rw, n_obs,
                        xs, invalid, hit, tmp)
    # ``gain`` holds sign × gain: the best is its maximum (sign 1) or minimum
    np.copyto(gain, -sign * np.inf, where=bad)
    best, found, n_tied, first = _segment_best(gain, lay, sign, hit)
    if has_nan:
        parent, offset = crit.node_term(twy, tw), crit.offset(twy, tw)
    else:
        parent, offset = lay.parent, lay.offset
    improve = np.where(found, parent - (offset - best), -np.inf)
    c_lw, c_rw = lw[first], rw[first]
    threshold, low_left = _cut(x[order[first]], x[order[np.minimum(first + 1, max(m - 1, 0))]],
                               lwy[first], c_lw, rwy[first], c_rw, found)
    return Candidates(improve=improve, n_tied=n_tied, threshold=threshold, lw=c_lw, rw=c_rw,
                      low_left=low_left)


def _unit_sums(order, rows, lay, u8, lwy, rwy):
    """Left/right sums of w·y at every cut with unit weights and no missing values.

    y is 0/1 (one byte a row, cache-friendly), the left/right weights are row
    counts shared by all predictors, and the sums are exact integers, so the
    per-level offsets are shared too.  Fills ``lwy``, ``rwy``; returns (lw, rw,
    wpart, observed rows, w·y and weight per segment).
    """
    np.take(rows.y8, order, out=u8)
    np.cumsum(u8, dtype=np.float64, out=lwy)
    lwy -= lay.before_pos
    np.subtract(lay.twy_pos, lwy, out=rwy)
    return lay.lw, lay.rw, lay.wpart, lay.length, lay.twy, lay.tw


def _weighted_sums(x, order, rows, lay, has_nan, lwy, rwy, lw_buf, xs):
    """Left/right sums of w·y and w at every cut, over the observed rows of each
    segment (any weights, missing values last); as :func:`_unit_sums`.  With
    ``has_nan`` fills ``xs`` with x in ``order``."""
    if has_nan:
        np.take(x, order, out=xs)
        n_obs = np.add.reduceat(~np.isnan(xs), lay.start).astype(np.intp)
    else:
        n_obs = lay.length
    ends = (lay.start > 0, np.maximum(lay.start - 1, 0), lay.start + np.maximum(n_obs, 1) - 1)
    np.take(rows.wy, order, out=lwy)
    np.cumsum(lwy, out=lwy)
    twy = _within_segments(lwy, lay, n_obs, *ends)                # left w·y
    np.subtract(twy[lay.seg], lwy, out=rwy)                        # right w·y
    if rows.unit:
        # missing values: weights are counts of observed rows
        lw, tw = lay.lw, n_obs.astype(np.float64)
    else:
        lw = lw_buf
        np.take(rows.w, order, out=lw)
        np.cumsum(lw, out=lw)
        tw = _within_segments(lw, lay, n_obs, *ends)
    return lw, tw[lay.seg] - lw, None, n_obs, twy, tw


def _within_segments(c, lay, n_obs, has_before, prev, last):
    """Cumulative sums ``c`` along the ordering made cumulative within each
    segment (in place); returns each segment's total over its observed rows."""
    before = np.where(has_before, c[prev], 0.0)
    total = np.where(n_obs > 0, c[last] - before, 0.0)
    np.subtract(c, before[lay.seg], out=c)
    return total


def _inadmissible(x, order, unit, lay, has_nan, has_dups, lw, rw, n_obs, xs, invalid, hit, tmp):
    """Cuts that are no candidates: not between distinct observed values, or
    leaving fewer than min_leaf observations a side -- rows with unit weights,
    the child weights lw / rw (observed rows) with frequency weights.  With
    weights, the weight right of the last observed row of a segment is exactly 0
    (and < 0 past it, at the missing values), so no cut leaves the segment or
    its observed rows.  Returns a bool mask (``invalid``, or the layout's own)."""
    if not (has_nan or has_dups):
        if lay.rows:
            return lay.cut_bad
        np.minimum(lw, rw, out=tmp)
        return np.less(tmp, lay.leaf_w, out=invalid)
    if not has_nan:
        np.take(x, order, out=xs)
    np.equal(xs[1:], xs[:-1], out=invalid[:-1])
    if lay.m:
        invalid[-1] = True
    if not lay.rows:
        np.minimum(lw, rw, out=tmp)
        np.less(tmp, lay.leaf_w, out=hit)
        invalid |= hit
    elif has_nan:
        nright = (lay.start + n_obs)[lay.seg] - lay.pos - 1
        invalid |= (lay.nleft < lay.min_leaf) | (nright < lay.min_leaf)
    else:
        invalid |= lay.cut_bad
    return invalid


def _segment_best(gain, lay, sign, hit):
    """Per segment along the last axis of ``gain`` (sign × gain, inadmissible cuts
    at −sign·∞; one row per ordering when 2-D): the best gain, whether it is
    finite, the number of cuts within ``lay.tol`` of it, and the first of them
    (a position within the row).  ``hit`` (gain's shape, bool) is overwritten."""
    m = gain.shape[-1]
    if not m:
        best = np.zeros(gain.shape[:-1] + lay.start.shape)
    elif sign > 0:
        best = np.maximum.reduceat(gain, lay.start, axis=-1)
    else:
        best = -np.minimum.reduceat(gain, lay.start, axis=-1)
    found = np.isfinite(best)
    if sign > 0:
        thr = np.where(found, best - lay.tol, np.inf)
        np.greater_equal(gain, np.take(thr, lay.seg, axis=-1), out=hit)
    else:
        thr = np.where(found, -best + lay.tol, -np.inf)
        np.less_equal(gain, np.take(thr, lay.seg, axis=-1), out=hit)
    hits = np.flatnonzero(hit)
    # position p of row r is r·m + p in ``hits``
    offs = 0 if gain.ndim == 1 else (np.arange(gain.shape[0], dtype=np.intp) * m)[:, None]
    k0 = np.searchsorted(hits, (lay.start + offs).ravel())
    k1 = np.searchsorted(hits, (lay.start + lay.length + offs).ravel())
    n_tied = np.where(found, (k1 - k0).reshape(found.shape), 0)
    if hits.size:
        first = hits[np.minimum(k0, hits.shape[0] - 1)].reshape(found.shape) - offs
    else:
        first = np.zeros(found.shape, dtype=np.intp)
    return best, found, n_tied, np.where(found, first, lay.start)


def _cut(a, b, c_lwy, c_lw, c_rwy, c_rw, found):
    """(threshold, low_left) of the chosen cuts between the values a < b: the
    midpoint (NaN where no cut was found), and whether the rows below it have
    the smaller proportion of y = 1."""
    threshold = a / 2.0 + b / 2.0
    # adjacent doubles: the midpoint may round onto a; then b itself separates
    threshold = np.where(threshold > a, threshold, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        low_left = c_lwy / c_lw < c_rwy / c_rw
    return np.where(found, threshold, np.nan), low_left


#: (threshold, low_left) of chosen cuts: the public name of :func:`_cut`
def cut_midpoint(a, b, c_lwy, c_lw, c_rwy, c_rw, found):
    """:func:`_cut`: the midpoint of a < b (b where it rounds onto a), NaN where
    nothing was found, and whether the rows below have the smaller p."""
    return _cut(a, b, c_lwy, c_lw, c_rwy, c_rw, found)


def categorical_best(codes_base, n_levels, wy_base, w_base, lay: Layout, crit):
    """Best partition of the levels of a categorical predictor in every segment.

    For two classes and a concave node term the best binary partition is
    found by ordering the levels present in a node by their positive
    proportion and cutting that ordering (Breiman et al. 1984, Thm 4.5), as
    rpart does; levels with equal proportion keep code order.

    Parameters
    ----------
    codes_base : ndarray (m,)
        Codes of the rows in the layout's base ordering (-1 = missing).
    n_levels : int
    wy_base, w_base : ndarray (m,)
        w·y and w of those rows.
    """
    S, L = lay.S, int(n_levels)
    ok = codes_base >= 0
    key = lay.seg[ok] * L + codes_base[ok]
    cnt = np.bincount(key, minlength=S * L).reshape(S, L)
    cw = np.bincount(key, weights=w_base[ok], minlength=S * L).reshape(S, L)
    cwy = np.bincount(key, weights=wy_base[ok], minlength=S * L).reshape(S, L)
    return categorical_from_sums(cnt, cw, cwy, lay, crit)


def categorical_from_sums(cnt, cw, cwy, lay, crit):
    """:func:`categorical_best` from the sums per segment and level (S, L): rows of
    positive weight, w and w·y (the histograms of :mod:`ubreg.fitters.udt.hist`).
    ``lay`` needs ``S``, ``min_leaf``, ``unit``, ``leaf_w`` and ``tol``."""
    S, L = cnt.shape
    present = cnt > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        prop = np.where(present, cwy / np.where(present, cw, 1.0), np.inf)
    rank = np.argsort(prop, axis=1, kind="stable")          # absent levels last
    cnt_s = np.take_along_axis(cnt, rank, axis=1)
    cw_s = np.take_along_axis(cw, rank, axis=1)
    cwy_s = np.take_along_axis(cwy, rank, axis=1)
    n_present = present.sum(axis=1)

    lcnt = np.cumsum(cnt_s, axis=1)[:, :-1]
    lw = np.cumsum(cw_s, axis=1)[:, :-1]
    lwy = np.cumsum(cwy_s, axis=1)[:, :-1]
    tcnt = cnt_s.sum(axis=1)[:, None]
    tw = cw_s.sum(axis=1)
    twy = cwy_s.sum(axis=1)
    rw = tw[:, None] - lw
    rwy = twy[:, None] - lwy
    if L < 2:
        return Candidates(improve=np.full(S, -np.inf), n_tied=np.zeros(S, np.intp),
                          side=np.zeros((S, max(L, 1)), np.int8), lw=np.zeros(S), rw=np.zeros(S),
                          low_left=np.ones(S, bool))
    gain = np.empty(lw.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        crit.gain(np.ascontiguousarray(lwy).ravel(), np.ascontiguousarray(lw).ravel(),
                  rwy.ravel(), rw.ravel(), None, out=gain.ravel(),
                  tmp=np.empty(gain.size), tmp2=np.empty(gain.size))
    k = np.arange(L - 1)[None, :]
    k_all = np.arange(L)[None, :]
    if lay.rows:       # min_leaf rows (observed) each side
        small = (lcnt < lay.min_leaf) | (tcnt - lcnt < lay.min_leaf)
    else:              # min_leaf observations: the children's (observed) weights
        small = (lw < lay.leaf_w) | (rw < lay.leaf_w)
    invalid = (k + 1 >= n_present[:, None]) | small
    gain[invalid] = -np.inf
    best = gain.max(axis=1)
    found = np.isfinite(best)
    thr = np.where(found, best - lay.tol, np.inf)
    hit = gain >= thr[:, None]
    first = np.argmax(hit, axis=1)
    n_tied = np.where(found, hit.sum(axis=1), 0)
    parent = crit.node_term(twy, tw)
    offset = crit.offset(twy, tw)
    improve = np.where(found, parent - (offset - best), -np.inf)
    rows = np.arange(S)
    # left set = the levels ranked up to the best cut (lower proportions);
    # side: 1 = left, 2 = right, 0 = level absent from the node
    in_left = np.zeros((S, L), dtype=bool)
    np.put_along_axis(in_left, rank, k_all <= first[:, None], axis=1)
    side = np.where(present, np.where(in_left, 1, 2), 0).astype(np.int8)
    return Candidates(improve=improve, n_tied=n_tied, side=side,
                      lw=lw[rows, first], rw=rw[rows, first],
                      low_left=np.ones(S, dtype=bool))


def numeric_best_batch(xcols, orders, dups, rows, lay: Layout, crit):
    """:func:`numeric_best` of several numeric predictors at once: unit
    weights, no missing values.

    Small levels cost mostly numpy's per-call overhead, paid once per
    predictor; here each step is one call over a (g, m) array (one ordering a
    row), with the same operations on the same values, so the candidates are
    those of :func:`numeric_best` bit for bit.

    Parameters
    ----------
    xcols : list of g ndarrays (n,)
        The predictors, for all rows.
    orders : ndarray (g, m)
        Their orderings (rows of the open nodes by segment, sorted by the
        predictor within a segment).
    dups : list of g bools
        Whether each predictor has repeated values.

    Returns (improve, n_tied, threshold, lw, rw, low_left), each (g, S).
    """
    g, m = orders.shape
    # the batch route is taken with unit weights only, where make_layout sets these
    assert lay.before_pos is not None and lay.twy_pos is not None and lay.rw is not None
    u8 = np.take(rows.y8, orders)
    lwy = np.cumsum(u8, axis=1, dtype=np.float64)
    del u8
    lwy -= lay.before_pos
    rwy = np.subtract(lay.twy_pos, lwy)
    gain = np.empty((g, m))
    tmp = np.empty((g, m))
    tmp2 = np.empty((g, m))
    with np.errstate(divide="ignore", invalid="ignore"):
        crit.raw_gain(lwy, lay.lw, rwy, lay.rw, lay.wpart, out=gain, tmp=tmp, tmp2=tmp2)
    sign = crit.raw_sign
    bad = _batch_inadmissible(xcols, orders, dups, lay, tmp)
    np.copyto(gain, -sign * np.inf, where=bad)
    best, found, n_tied, first = _segment_best(gain, lay, sign, bad)
    improve = np.where(found, lay.parent - (lay.offset - best), -np.inf)
    ra = np.take_along_axis(orders, first, axis=1)
    rb = np.take_along_axis(orders, np.minimum(first + 1, m - 1), axis=1)
    a = np.empty(found.shape)
    b = np.empty(found.shape)
    for r in range(g):
        np.take(xcols[r], ra[r], out=a[r])
        np.take(xcols[r], rb[r], out=b[r])
    c_lw, c_rw = lay.lw[first], lay.rw[first]
    threshold, low_left = _cut(a, b, np.take_along_axis(lwy, first, axis=1), c_lw,
                               np.take_along_axis(rwy, first, axis=1), c_rw, found)
    return (improve, n_tied, threshold, c_lw, c_rw, low_left)


def _batch_inadmissible(xcols, orders, dups, lay, xs):
    """:func:`_inadmissible` of each ordering (a row of ``orders``; unit weights,
    no missing values); ``xs`` (orders' shape, float) is scratch."""
    g, m = orders.shape
    bad = np.empty((g, m), dtype=bool)
    if not any(dups):
        bad[:] = lay.cut_bad
        return bad
    for r in range(g):
        if dups[r]:
            np.take(xcols[r], orders[r], out=xs[r])
    np.equal(xs[:, 1:], xs[:, :-1], out=bad[:, :-1])
    bad[:, -1] = True
    for r in range(g):
        if not dups[r]:
            bad[r] = False
    bad |= lay.cut_bad
    return bad
