"""rpart's split of one node of a K-class tree, as gini.c computes it: the best cut of a
numeric predictor, the best subset of a factor's levels (Gray-code order), the impurity of
two children, which child is left, and the routing of the node's rows (surrogates for the
missing), as the tree builder (:mod:`ubreg.trees.builder`) takes them.  Shared by the
depth-first source (:mod:`.classes`) and the level-wise source (:mod:`.classlevel`).
"""
from __future__ import annotations

import numpy as np

from ...errors import DataError
from ...trees.columns import CATEGORICAL
from ...trees.surrogates import find_surrogates, route_missing
from .grow import _Best

#: levels of a factor (present in a node) up to which every subset is searched with
#: more than two classes (2^(L−1) − 1 subsets, as rpart)
MAX_SUBSET_LEVELS = 20
#: Gray-code states evaluated per block (memory: block × levels)
GRAY_BLOCK = 1 << 15


class Split:
    """The best split of a node so far."""

    def __init__(self):
        self.improve, self.var, self.n_tied = -np.inf, -1, 0
        self.threshold, self.low_left, self.side = np.nan, True, None
        self.lw = self.rw = 0.0


def numeric_best(x, y, w, c, K, weights, kind, edge):
    """(improve, threshold, low_left, lw, rw) of the best cut of one numeric predictor,
    or None (gini.c's numeric loop, in its arithmetic: the sums run one row at a time, so
    that equal splits of two predictors tie as they tie in rpart)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    m = xs.shape[0]
    if m < 2 or xs[0] == xs[-1]:
        return None
    count = np.cumsum(c[order])
    cut = np.flatnonzero(xs[1:] != xs[:-1])     # after row cut[k]: between distinct values
    cut = cut[(count[cut] >= edge) & (count[-1] - count[cut] >= edge)]
    if not cut.shape[0]:
        return None
    yo, wo = y[order], w[order]
    if np.all(wo == np.round(wo)):
        # whole weights: class sums are exact in any order, so they run over blocks of
        # equal values (one row per cut) instead of rows
        block = np.concatenate([[0], np.cumsum(xs[1:] != xs[:-1])])
        per_block = np.bincount(block * K + yo, weights=wo,
                                minlength=(int(block[-1]) + 1) * K).reshape(-1, K)
        running = np.cumsum(per_block, axis=0)
        total, left = running[-1], running[block[cut]]
        right = total - left
    else:
        moved = np.zeros((m, K))
        moved[np.arange(m), yo] = wo
        running = np.cumsum(moved, axis=0)
        total, left = running[-1], running[cut]
        right = np.cumsum(np.vstack([total[None, :], -moved]), axis=0)[1:][cut]
    a = weights.altered[yo] * wo
    a_running = np.cumsum(a)
    lwt = a_running[cut]
    rwt = np.cumsum(np.concatenate([a_running[-1:], -a]))[1:][cut]
    temp = children_impurity(lwt, left, rwt, right, weights.altered, kind)
    i = int(np.argmin(temp))
    total_ss = float(children_impurity(np.zeros(1), np.zeros((1, K)), a_running[-1:],
                                        total[None, :], weights.altered, kind)[0])
    if not temp[i] < total_ss:
        return None
    low_left = left_is_lower(left[i], right[i], weights)
    k = cut[i]
    return (total_ss - float(temp[i]), 0.5 * (xs[k] + xs[k + 1]), low_left,
            float(left[i].sum()), float(right[i].sum()))


def children_impurity(lwt, left, rwt, right, altered, kind):
    """Σ_j [lwt·I(p_j | left) + rwt·I(p_j | right)] per cut, summed as gini.c sums it
    (class by class, left then right, one term at a time: a running sum along the
    interleaved terms; I(p) = p(1 − p) or −p ln p)."""
    n, K = left.shape
    terms = np.empty((n, 2 * K))
    with np.errstate(divide="ignore", invalid="ignore"):
        for side, wt, counts in ((0, lwt, left), (1, rwt, right)):
            p = altered * counts / wt[:, None]
            if kind == "gini":
                imp = p * (1.0 - p)
            else:
                imp = np.where(p == 0, 0.0, -p * np.log(np.where(p > 0, p, 1.0)))
            terms[:, side::2] = np.where(wt[:, None] > 0, wt[:, None] * imp, 0.0)
    return np.cumsum(terms, axis=1)[:, -1]


def left_is_lower(left, right, weights):
    """rpart's ``lmean < rmean``: the mean class index Σ_j j α_j n_j / Σ α n of the
    left side is smaller."""
    a = weights.altered
    j = np.arange(left.shape[-1])
    return bool((j * a * left).sum() / (a * left).sum()
                < (j * a * right).sum() / (a * right).sum())


def subset_states(counts, n_levels, K):
    """Left-side level sets in rpart's search order, as a boolean (states, L) matrix."""
    present = np.flatnonzero(counts > 0)
    if K == 2:
        return None            # ordered by share (see categorical_best)
    movable = present[present < n_levels - 1]
    m = movable.shape[0]
    t = np.arange(1, 1 << m, dtype=np.int64)
    gray = t ^ (t >> 1)
    bits = ((gray[:, None] >> np.arange(m)) & 1).astype(bool)
    states = np.zeros((t.shape[0], n_levels), dtype=bool)
    states[:, movable] = bits
    return states


def categorical_best(code, n_levels, y, w, c, K, weights, kind, edge, name):
    """(improve, side, weight of the left child, of the right) of the best set split of
    one factor, or None (gini.c's categorical search; ``side``: 1 left, 2 right, 0 a
    level absent from the node)."""
    ccnt = np.bincount(code * K + y, weights=w, minlength=n_levels * K).reshape(n_levels, K)
    countn = np.bincount(code, weights=c, minlength=n_levels)
    present = countn > 0
    awt = ccnt @ weights.altered
    if K == 2:
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(awt > 0, ccnt[:, 0] / awt, 0.0)      # gini.c's rate
        ordered = np.flatnonzero(present)[np.argsort(rate[present], kind="stable")]
        states = np.zeros((ordered.shape[0], n_levels), dtype=bool)
        for s in range(ordered.shape[0]):
            states[s:, ordered[s]] = True
    else:
        if int(present[: n_levels - 1].sum()) > MAX_SUBSET_LEVELS:
            raise DataError(
                f"predictor {name!r} has {int(present.sum())} levels in a node and the "
                f"response more than two classes: rpart's search of every subset of "
                f"levels would take 2^{int(present.sum()) - 1} steps; ubreg searches at "
                f"most {MAX_SUBSET_LEVELS} levels. Collapse levels of {name!r}")
        states = subset_states(countn, n_levels, K)
    total = ccnt.sum(axis=0)
    total_ss = float(children_impurity(np.zeros(1), np.zeros((1, K)), np.array([awt.sum()]),
                                        total[None, :], weights.altered, kind)[0])
    best_t, best_i = np.inf, -1
    for a in range(0, states.shape[0], GRAY_BLOCK):
        block = states[a:a + GRAY_BLOCK].astype(np.float64)
        left = block @ ccnt
        lcount = block @ countn
        rcount = countn.sum() - lcount
        lwt = block @ awt
        temp = children_impurity(lwt, left, awt.sum() - lwt, total - left, weights.altered,
                                  kind)
        temp = np.where((lcount >= edge) & (rcount >= edge), temp, np.inf)
        i = int(np.argmin(temp)) if temp.size else 0
        if temp.size and temp[i] < best_t:
            best_t, best_i = float(temp[i]), a + i
    if not best_t < total_ss:
        return None
    on_left = states[best_i]
    left = ccnt[on_left].sum(axis=0)
    right = total - left
    first = 1 if left_is_lower(left, right, weights) else 2
    side = np.where(present, np.where(on_left, first, 3 - first), 0).astype(np.int8)
    lw, rw = float(left.sum()), float(right.sum())
    return total_ss - best_t, side, *((lw, rw) if first == 1 else (rw, lw))


def pack_splits(splits: dict, S: int, lmax: int):
    """The best splits ``{node's position: Split}`` of ``S`` open nodes as the arrays the
    builder records (:class:`ubreg.trees.builder.SplitSource`: a factor split's sides
    padded to ``lmax`` levels; a node without a split has ``var`` −1, ``improve`` −inf)."""
    best = _Best.empty(S)
    best.side = np.zeros((S, lmax), dtype=np.int8)
    for s, sp in splits.items():
        best.improve[s], best.var[s], best.n_tied[s] = sp.improve, sp.var, sp.n_tied
        best.threshold[s], best.low_left[s] = sp.threshold, sp.low_left
        best.lw[s], best.rw[s] = sp.lw, sp.rw
        if sp.side is not None:
            best.side[s, :sp.side.shape[0]] = sp.side
    return best


class ClassRows:
    """What the two sources of K-class trees share (:class:`.classlevel.ClassSegments`,
    :class:`.classes.NodeRows`): the training rows, the priors, the split search's
    settings, and the routing of a split node's rows (the surrogate splits found on the
    way, by node number)."""

    def __init__(self, values, specs, y, w, weights, kind, K: int, rows_count: bool, edge):
        self.values, self.specs, self.y, self.w = values, specs, y, w
        self.weights, self.kind, self.K, self.edge = weights, kind, K, edge
        self.rows_count = rows_count
        # min_leaf counts rows of positive weight (unit and prior weights), else weight
        self.c = (w > 0).astype(np.float64) if rows_count else w
        self.lmax = max([len(s.levels) for s in specs if s.kind == CATEGORICAL] or [1])
        self.surrogates: dict = {}

    def route(self, rows, builder, split, best, r, k):
        """Which of ``rows`` go left at the ``r``-th split recorded by the builder
        (``split``: ids, variables, thresholds, low_left, na_left), the split of the
        ``k``-th open node of ``best``; the rows missing the variable follow the
        surrogate splits, found here, then ``na_left``."""
        ids, var_k, thr_k, low_k, na_left_k = split
        number, j = int(builder.store.a["number"][ids[r]]), int(var_k[r])
        specs, values = self.specs, self.values
        x = values[j][rows]
        if specs[j].kind == CATEGORICAL:
            side = best.side[k]
            inside = (x >= 0) & (x < side.shape[0])
            s = np.where(inside, side[np.where(inside, x, 0)], 0)
            miss, left = s == 0, s == 1
        else:
            below = x < thr_k[r]
            miss = np.isnan(x)
            left = np.where(low_k[r], below, ~below) & ~miss
        if miss.any():
            direction = np.where(miss, 0, np.where(left, 1, -1)).astype(np.int8)
            self.surrogates[number] = find_surrogates(specs, values, rows, direction,
                                                      self.w[rows], j,
                                                      count_rows=self.rows_count)
            left = left.copy()
            left[miss] = route_missing(self.surrogates, specs, values, rows[miss],
                                       np.full(int(miss.sum()), number),
                                       np.full(int(miss.sum()), na_left_k[r]))
        return left

    def sums(self, parts):
        """:func:`child_sums` of the children's rows ``parts``."""
        return child_sums(parts, self.y, self.w, self.K)


def child_sums(parts, y, w, K):
    """The sums the builder stores of the children whose rows are ``parts`` (left,
    right, ...): rows, rows of positive weight, Σw and the class weights, each summed
    in row order."""
    return (np.array([r.shape[0] for r in parts], dtype=np.int64),
            np.array([np.count_nonzero(w[r] > 0) for r in parts], dtype=np.int64),
            np.array([float(w[r].sum()) for r in parts], dtype=np.float64),
            np.array([np.bincount(y[r], weights=w[r], minlength=K) for r in parts],
                     dtype=np.float64).reshape(-1, K))
