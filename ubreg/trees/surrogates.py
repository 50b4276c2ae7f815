"""Surrogate splits: how rows that miss a split's variable are routed (rpart's rule).

When training rows of a node miss the variable of its split, the grower looks
for surrogate splits at that node, as rpart does with its default controls
(``maxsurrogate = 5``, ``usesurrogate = 2``, ``surrogatestyle = 0``):

- The primary split sends every row whose variable is observed left or right.
  For each other predictor, the surrogate is the split of that predictor that
  sends the most weight the way the primary sends it (the *agreement*),
  counted over the rows where both are observed: for a numeric predictor the
  best cut at a midpoint between consecutive distinct values, with either
  side to the left (at least two observations with a primary direction on
  each side; the smallest cut among equals), for a categorical one each level
  to the side most of its weight takes (ties: the side of most weight).
- A surrogate is kept when it does better than sending everyone the
  majority's way: its agreement, over the weight of all the node's rows with
  a primary direction, exceeds the majority's share (rpart's ``adj`` > 1e-10;
  a numeric surrogate must strictly beat the majority among the rows it sees;
  a categorical one needs two observations agreeing and two disagreeing with
  the primary, as rpart 4.1 counts them).  The five of largest agreement are
  kept, the earlier predictor first among equals.
- A row missing the primary variable takes the first kept surrogate whose
  variable it has (for a categorical surrogate: a level seen with a primary
  direction in the node); with none, the majority branch (the child with more
  observed weight; ties: left, where rpart would keep the row in the node).

Observations are counted as rows of positive weight with unit and prior weights (rpart
counts rows), and by weight with frequency weights (a row of frequency weight 2 counts as
two, a row of weight 0 is absent), which with unit weights counts rows as rpart
does.  Surrogates are found only at nodes where some training row misses the
split variable: they route those rows; a fitted tree keeps them by node
number (``Tree.surrogates``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .columns import CATEGORICAL, weight_floor

__all__ = ["Surrogate", "find_surrogates", "route_missing", "split_missing",
           "MAX_SURROGATES"]

#: surrogates kept per node (rpart.control(maxsurrogate = 5))
MAX_SURROGATES = 5
#: a surrogate must beat the majority rule by more than this adjusted agreement
_ADJ_MIN = 1e-10


@dataclass(frozen=True)
class Surrogate:
    """One surrogate split of a node.

    Attributes
    ----------
    var : int
        The predictor (index into the tree's columns).
    threshold : float
        Numeric: the cut (NaN for a categorical surrogate).
    low_left : bool
        Numeric: rows with x < threshold go left (else they go right).
    side : ndarray of int8 or None
        Categorical: per level 1 (left), 2 (right) or 0 (not seen with a
        primary direction in the node: the next surrogate decides).
    agree : float
        Share of the weight of the node's rows with a primary direction that
        the surrogate sends the primary's way (rpart's ``agree``).
    adj : float
        The agreement beyond the majority rule's, (agree − m)/(1 − m)
        (rpart's ``adj``).
    """

    var: int
    threshold: float
    low_left: bool
    side: np.ndarray | None
    agree: float
    adj: float

    def routes(self, specs, values, rows):
        """(observed, left): which ``rows`` this surrogate can route, and where."""
        x = values[self.var][rows]
        if specs[self.var].kind == CATEGORICAL:
            side = self.side
            assert side is not None             # set for a categorical surrogate
            inside = (x >= 0) & (x < side.shape[0])
            s = np.where(inside, side[np.where(inside, x, 0)], 0)
            return s != 0, s == 1
        below = x < self.threshold
        return ~np.isnan(x), np.where(self.low_left, below, ~below)


def split_missing(specs, values, rows, var):
    """Whether each of ``rows`` misses its split's variable (``var``, one per row)."""
    miss = np.zeros(rows.shape[0], dtype=bool)
    for j in np.unique(var):
        sel = np.flatnonzero(var == j)
        x = values[j][rows[sel]]
        miss[sel] = x < 0 if specs[j].kind == CATEGORICAL else np.isnan(x)
    return miss


def _numeric(x, d, w, two, count_rows=False, presorted=False):
    """Best cut of one numeric predictor: (agreement weight, threshold, low_left) or None.
    The two observations a side are rows with ``count_rows``, weight otherwise.
    ``presorted``: x is already in stable increasing order."""
    obs = ~np.isnan(x)
    x, d, w = x[obs], d[obs], w[obs]
    if x.shape[0] < 2:
        return None
    if not presorted:
        o = np.argsort(x, kind="stable")
        x, d, w = x[o], d[o], w[o]
    xs = x
    wl = np.where(d > 0, w, 0.0)
    wr = np.where(d < 0, w, 0.0)
    l_tot, r_tot = wl.sum(), wr.sum()
    cl, cr = np.cumsum(wl)[:-1], np.cumsum(wr)[:-1]      # weight below the cut before i + 1
    if count_rows:          # rows of positive weight that the primary split directs
        directed = np.cumsum(d != 0, dtype=np.float64)
        below, total = directed[:-1], float(directed[-1])
    else:
        below, total = cl + cr, l_tot + r_tot
    valid = (xs[1:] != xs[:-1]) & (below >= two) & (total - below >= two)
    to_right = (l_tot - cl) + cr                        # x < t goes right
    to_left = cl + (r_tot - cr)                         # x < t goes left
    best = np.where(valid, np.maximum(to_right, to_left), -np.inf)
    i = int(np.argmax(best)) if best.shape[0] else 0
    if not best.shape[0] or not best[i] > max(l_tot, r_tot):
        return None
    return float(best[i]), float((xs[i] + xs[i + 1]) / 2.0), bool(to_left[i] > to_right[i])


def _numeric_rows(xs, d, w, two, count_rows=False):
    """:func:`_numeric` of several predictors at once, each a row of ``xs`` (g, m) sorted
    stably in increasing order (NaN last), with the node's directions ``d`` and weights
    ``w`` in that order: {row: result} for the rows with a surrogate.  The weights must
    be whole numbers of exact sum: the sums are then those of :func:`_numeric` in any
    order."""
    g, m = xs.shape
    if m < 2:
        return {}
    obs = ~np.isnan(xs)
    wl = np.where((d > 0) & obs, w, 0.0)
    wr = np.where((d < 0) & obs, w, 0.0)
    l_tot, r_tot = wl.sum(axis=1)[:, None], wr.sum(axis=1)[:, None]
    cl, cr = np.cumsum(wl, axis=1)[:, :-1], np.cumsum(wr, axis=1)[:, :-1]
    if count_rows:
        directed = np.cumsum((d != 0) & obs, axis=1, dtype=np.float64)
        below, total = directed[:, :-1], directed[:, -1:]
    else:
        below, total = cl + cr, l_tot + r_tot
    valid = (xs[:, 1:] != xs[:, :-1]) & obs[:, 1:] & (below >= two) & (total - below >= two)
    to_right = (l_tot - cl) + cr
    to_left = cl + (r_tot - cr)
    best = np.where(valid, np.maximum(to_right, to_left), -np.inf)
    i = np.argmax(best, axis=1)
    r = np.arange(g)
    out = {}
    for k in np.flatnonzero(best[r, i] > np.maximum(l_tot, r_tot)[:, 0]):
        c = int(i[k])
        out[int(k)] = (float(best[k, c]), float((xs[k, c] + xs[k, c + 1]) / 2.0),
                       bool(to_left[k, c] > to_right[k, c]))
    return out


def _numeric_node(specs, values, rows, d, w, primary, two, count_rows, orders):
    """{predictor: :func:`_numeric` result} of the numeric predictors other than
    ``primary`` at the node of ``rows``, searched together (:func:`_numeric_rows`) when
    the weights are whole numbers and the node is small enough to be sorted (see
    :func:`_node_in_order`); None otherwise."""
    cols = [j for j, sp in enumerate(specs) if sp.kind != CATEGORICAL and j != primary]
    large = orders is not None and rows.shape[0] * 16 >= values[0].shape[0]
    if not cols or large or not (bool(np.all(w == np.round(w)))
                                 and float(w.sum()) < 2.0 ** 52):
        return None
    x = np.stack([values[j][rows] for j in cols])
    o = np.argsort(x, axis=1, kind="stable")
    found = _numeric_rows(np.take_along_axis(x, o, axis=1), d[o], w[o], two, count_rows)
    return {j: found.get(k) for k, j in enumerate(cols)}


def _categorical(code, n_levels, d, w, two, count_rows=False):
    """Each level to its better side: (agreement weight, side) or None.  The two
    observations agreeing and disagreeing are rows with ``count_rows``, weight otherwise."""
    obs = code >= 0
    code, d, w = code[obs], d[obs], w[obs]
    lw = np.bincount(code, weights=np.where(d > 0, w, 0.0), minlength=n_levels)
    rw = np.bincount(code, weights=np.where(d < 0, w, 0.0), minlength=n_levels)
    seen = (lw + rw) > 0
    default_right = not lw.sum() > rw.sum()
    right = (lw < rw) | ((lw == rw) & default_right)
    side = np.where(seen, np.where(right, 2, 1), 0).astype(np.int8)
    agree = float(np.where(right, rw, lw)[seen].sum())
    disagree = float(np.where(right, lw, rw)[seen].sum())
    if count_rows:
        ln = np.bincount(code, weights=(d > 0).astype(np.float64), minlength=n_levels)
        rn = np.bincount(code, weights=(d < 0).astype(np.float64), minlength=n_levels)
        n_agree = float(np.where(right, rn, ln)[seen].sum())
        n_disagree = float(np.where(right, ln, rn)[seen].sum())
    else:
        n_agree, n_disagree = agree, disagree
    if not (n_disagree >= two and n_agree >= two):      # rpart 4.1's test (see the notes)
        return None
    return agree, side


def find_surrogates(specs, values, rows, direction, w, primary, count_rows=False,
                    orders=None):
    """The surrogate splits of one node, best first (see the module notes).

    Parameters
    ----------
    specs, values : the tree's columns
    rows : ndarray of int
        The node's training rows.
    direction : ndarray of int8
        Per row: 1 if the primary split sends it left, -1 right, 0 if it
        misses the primary variable.
    w : ndarray
        The rows' weights.
    primary : int
        The split's predictor.
    count_rows : bool
        Whether observations are rows (unit and prior weights) rather than weight.
    orders : list, optional
        Per column, the stable increasing order of all its rows (None for a
        categorical column): a large node takes its rows in that order instead of
        sorting them, with the same result (ties stay in row order).

    Returns
    -------
    tuple of Surrogate
        At most :data:`MAX_SURROGATES`, by decreasing agreement.
    """
    keep = w > 0
    rows, d, w = rows[keep], direction[keep], w[keep]
    t_left, t_right = float(w[d > 0].sum()), float(w[d < 0].sum())
    total = t_left + t_right
    majority = max(t_left, t_right) / total if total > 0 else 1.0
    if majority >= 1.0:
        return ()
    two = 2.0 if count_rows else weight_floor(2, total)
    batch = _numeric_node(specs, values, rows, d, w, primary, two, count_rows, orders)
    in_order = None if batch is not None else _node_in_order(values, rows, d, w, orders)
    found = []
    for j, spec in enumerate(specs):
        if j == primary:
            continue
        if spec.kind == CATEGORICAL:
            best = _categorical(values[j][rows], len(spec.levels), d, w, two, count_rows)
            if best is None:
                continue
            weight, thr, low, side = best[0], np.nan, False, best[1]
        else:
            if batch is not None:
                best = batch[j]
            elif in_order is None:
                best = _numeric(values[j][rows], d, w, two, count_rows)
            else:
                xj, dj, wj = in_order(j)
                best = _numeric(xj, dj, wj, two, count_rows, presorted=True)
            if best is None:
                continue
            (weight, thr, low), side = best, None
        agree = weight / total
        adj = (agree - majority) / (1.0 - majority)
        if adj > _ADJ_MIN:
            found.append(Surrogate(j, thr, low, side, agree, adj))
    found.sort(key=lambda s: -s.agree)                  # stable: earlier predictors first
    return tuple(found[:MAX_SURROGATES])


def _node_in_order(values, rows, d, w, orders):
    """A function j -> (x, d, w) of the node's rows in column j's order, or None when
    sorting the node's rows is cheaper (a node under 1/16 of the rows)."""
    if orders is None or rows.shape[0] * 16 < values[0].shape[0]:
        return None
    n = values[0].shape[0]
    member = np.zeros(n, dtype=bool)
    member[rows] = True
    d_all = np.zeros(n, dtype=np.int8)
    d_all[rows] = d
    w_all = np.zeros(n)
    w_all[rows] = w

    def in_order(j):
        o = orders[j][member[orders[j]]]
        return values[j][o], d_all[o], w_all[o]
    return in_order


def route_missing(surrogates, specs, values, rows, numbers, default_left):
    """Directions (True = left) of ``rows`` that miss the split variable of their
    nodes (rpart numbers ``numbers``): the first surrogate of the node that can
    route the row, else ``default_left`` (the majority branch)."""
    left = np.array(default_left, dtype=bool, copy=True)
    for num in np.unique(numbers):
        sel = np.flatnonzero(numbers == num)
        for s in surrogates.get(int(num), ()):
            if not sel.shape[0]:
                break
            ok, lft = s.routes(specs, values, rows[sel])
            left[sel[ok]] = lft[ok]
            sel = sel[~ok]
    return left
