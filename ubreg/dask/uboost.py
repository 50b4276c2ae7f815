"""Method ``uboost`` (trees and stumps) on a Dask frame: one pass per tree level.

``ubreg.fit(formula, ddf, method="uboost", ...)`` runs the iteration of
:func:`ubreg.fitters.boost.uboost.boost_u` with every sum over rows split into
partition-wise sums:

1. the design is learned and built partition by partition
   (:func:`ubreg.dask.frame.prepare_partitions`); a setup pass counts rows and
   weights (the weights are divided by the power of two of the in-memory fit);
2. bin_design's cuts are computed exactly over the partitions
   (:mod:`ubreg.dask.quantiles`: the in-memory bins; the first of its passes is
   the setup pass), every partition is coded once (uint8) and kept in worker
   memory with y and w, consecutive partitions in one block (:func:`_blocks`:
   fewer, larger tasks a pass); the designs are then released;
3. the state of boosting, F and the per-row statistics (g, h[, w]) of the next
   tree, is kept per partition in worker memory (``dask.persist``), one new
   state per iteration computed from the last (F ← F + ν f_m): a lost worker's
   states are recomputed from their lineage (the codes, and each iteration's
   tree, which the graph holds);
4. each level of a tree is one pass: the partitions route their rows through
   the tree so far and return the histograms of (g, h[, w], rows) of the
   level's smaller children (the larger is the parent's minus it, as in
   memory); the client chooses the splits with the in-memory search
   (:func:`ubreg.learners.trees.newton_split_search`) and the leaf values
   −ΣG/ΣH from the histograms' sums;
5. the first pass of each iteration also brings the training U-risk of the
   current F, and a final pass the last risk and the deviances.

The trees are those of the in-memory fit with the same bins (the sums differ
by rounding only), so the predictions agree to rounding
(``tests/test_dask_uboost.py``).  ``learner="linear"`` is not available.
"""
from __future__ import annotations

import numpy as np

from ..errors import DataError
from ..families.ulosses import as_u_loss, boosted_family
from ..fitters.boost.margin_values import values_into
from ..fitters.boost.uboost import UBoostFit
from ..learners.binning import BinnedDesign
from ..learners.trees import min_gain_threshold, newton_split_search
from ..numerics.scratch import scratch
from ..results.inference import bernoulli_loglik
from ..trees.heap import Tree
from .fitter import _check_r_options
from .frame import _workers_memory, prepare_partitions
from .quantiles import distributed_cuts, first_pass, gather
from .reduce import combine, reduce_sums

__all__ = ["fit_uboost_dask", "BLOCK_ROWS"]

#: the boosting passes read the partitions' codes in blocks of up to this many rows
#: (consecutive partitions coded together): fewer, larger tasks a pass
BLOCK_ROWS = 1_048_576


# ---------------------------------------------------------------------------
# the data side
# ---------------------------------------------------------------------------
def _positive(part, columns=None) -> list:
    """The design columns ``columns`` (all: None) of a packed partition's rows of
    positive weight, float64: each read from its packed group, so a pass of the
    cuts that needs the continuous columns only never unpacks the others."""
    _, w = part.y_w()
    keep = None if bool(np.all(w > 0)) else w > 0
    out = []
    for j in range(part.n_columns) if columns is None else columns:
        x = part.column(j)
        out.append(x if keep is None else x[keep])
    return out


def _setup(part, max_bins: int) -> tuple[dict, list]:
    """The counts of the setup, and the first pass of the cuts."""
    y, w = part.y_w()
    setup = {"n_input": part.n_input, "n_dropped": part.n_dropped,
             "na_counts": part.na_counts, "n_used": len(y),
             "wmax": float(w.max(initial=0.0)), "n_positive": int(np.count_nonzero(w)),
             "pos1": int(np.sum((w > 0) & (y == 1))), "pos0": int(np.sum((w > 0) & (y == 0)))}
    return setup, first_pass(part, _positive, max_bins)


class _Coded:
    """A partition's codes (d, n), y (0/1 as int8) and the scaled weights."""

    def __init__(self, codes, y, w):
        self.codes, self.y, self.w = codes, y, w


def _encode(parts: list, cuts: list, dtype, e: int) -> _Coded:
    """The codes, y and scaled weights of consecutive partitions, one after the other."""
    from ..trees.codes import search_codes
    codes = np.empty((len(cuts), sum(part.n for part in parts)), dtype=dtype)
    ys, ws = [], []
    start = 0
    for part in parts:
        y, w = part.y_w()
        stop = start + len(y)
        for j, c in enumerate(cuts):    # np.searchsorted(c, x_j, side="left"), compiled
            search_codes(np.asarray(c, dtype=np.float64), part.column(j), codes[j, start:stop])
        ys.append(y.astype(np.int8))
        ws.append(np.ldexp(w, -e))
        start = stop
    return _Coded(codes, np.concatenate(ys), np.concatenate(ws))


def _blocks(rows: list, workers: int) -> list:
    """Consecutive partitions grouped into blocks of at most :data:`BLOCK_ROWS` rows,
    and of at most a quarter of a worker's share of the rows, so that every worker
    gets blocks enough to share the passes (a larger partition is a block of its own)."""
    target = max(1, min(BLOCK_ROWS, sum(rows) // (4 * max(workers, 1))))
    blocks: list = []
    size = 0
    for i, r in enumerate(rows):
        if blocks and size + r <= target:
            blocks[-1].append(i)
            size += r
        else:
            blocks.append([i])
            size = r
    return blocks


class _State:
    """A partition's codes, F and the per-row statistics (g, h[, w], 1) of the next
    tree, and its U-risk sum Σ w U(y* F)."""

    def __init__(self, coded, F, stats, risk):
        self.coded, self.F, self.stats, self.risk = coded, F, stats, risk


def _state(coded: _Coded, F: np.ndarray, U, leaf_rows: bool) -> _State:
    """As boost_u: z = y*F, (U, U', U'') at z, g = w y* U', h = w · newton_weight.

    The temporaries are this thread's :func:`~ubreg.numerics.scratch.scratch`
    arrays (a pass allocates only the state it keeps: memory allocated afresh
    every iteration is page-faulted in every time)."""
    n, w = len(F), coded.w
    ystar = scratch("ystar", n)
    np.multiply(coded.y, 2.0, out=ystar)
    ystar -= 1.0
    z = np.multiply(ystar, F, out=scratch("z", n))
    vals = scratch("vals", 3 * n).reshape(3, n)
    values_into(U, z, vals)
    Uv, d1, d2 = vals
    stats = np.empty((n, 4 if leaf_rows else 3))
    wy = np.multiply(w, ystar, out=ystar)            # ystar is not read again
    np.multiply(wy, d1, out=stats[:, 0])
    np.multiply(w, U.newton_weight(z, F, d2), out=stats[:, 1])
    if leaf_rows:
        stats[:, 2] = w
    stats[:, -1] = 1.0                               # rows: which child is the smaller
    return _State(coded, F, stats, float(np.sum(np.multiply(w, Uv, out=scratch("wU", n)))))


def _first_state(coded: _Coded, F0: float, U, leaf_rows: bool) -> _State:
    return _state(coded, np.full(coded.codes.shape[1], F0), U, leaf_rows)


def _advance(state: _State, feature, kcut, value, nu: float, U, leaf_rows: bool) -> _State:
    """The next state: F ← F + ν value[leaf] (the in-memory fit's arithmetic,
    ``fitters.boost._kernels.ADVANCE``)."""
    from ..trees.codes import advance_F
    codes = state.coded.codes
    F = np.empty(codes.shape[1])
    advance_F(codes, np.asarray(feature, dtype=np.int64), np.asarray(kcut, dtype=np.int64),
              np.asarray(value, dtype=np.float64), float(nu), state.F, F)
    return _state(state.coded, F, U, leaf_rows)


def _histograms(state: _State, feature, kcut, slots, feats, offsets, with_risk: bool,
                n_stats: int) -> dict:
    """The (nodes, bins, n_stats) sums of the rows of the nodes ``slots`` (heap index →
    row of the result, −1 elsewhere): the first n_stats statistics (all k + 1, or
    the k of the split search where the rows are not needed)."""
    from ..trees.codes import heap_slots
    from ..trees.histograms import grouped_histograms_into
    S = int(slots.max(initial=-1)) + 1
    out = np.zeros((S, int(offsets[-1]), n_stats))
    codes = state.coded.codes
    n = codes.shape[1]
    slot = scratch("slot", n, np.int64)
    heap_slots(codes, np.asarray(feature, dtype=np.int64), np.asarray(kcut, dtype=np.int64),
               np.asarray(slots, dtype=np.int64), slot)
    grouped_histograms_into(codes, feats, np.asarray(offsets, dtype=np.int64), slot, S,
                            state.stats, out, scratch("rows", n, np.int64),
                            scratch("gathered", n * n_stats))
    result = {"H": out}
    if with_risk:
        result["risk"] = state.risk
    return result


def _final(state: _State, family, eta0: float, w_scale: int, weight_kind: str) -> dict:
    """The last risk, the deviances and the log-likelihood (user's weights)."""
    y = state.coded.y.astype(np.float64)
    w = np.ldexp(state.coded.w, w_scale)
    F = state.F
    return {"risk": state.risk,
            "divergence": float(w @ family.divergence(y, F)),
            "null_divergence": float(w @ family.divergence(y, np.full(len(y), eta0))),
            "loglik": bernoulli_loglik(family, y, F, w, weight_kind),
            "errors": float(w @ ((F >= 0) != (y == 1)))}


# ---------------------------------------------------------------------------
# the client side
# ---------------------------------------------------------------------------
class _Rounds:
    """The client's side of the boosting iterations over persisted states."""

    def __init__(self, binned, U, nu, depth, bounds, leaf_rows):
        self.binned, self.U, self.nu = binned, U, nu
        self.depth, self.leaf_rows = depth, leaf_rows
        self.k = 3 if leaf_rows else 2
        self.search = newton_split_search(binned, self.k, *bounds)
        self.feats = np.flatnonzero(binned.nbins > 1).astype(np.int64)
        self.passes = 0
        self.root_rows: np.ndarray | None = None   # the rows column of the root's histogram

    def histograms(self, states, tree, kcut, nodes, with_risk=False, rows=True) -> dict:
        """The histograms of ``nodes`` (with the rows column unless ``rows=False``)."""
        slots = np.full(tree.feature.size, -1, dtype=np.int64)
        slots[nodes] = np.arange(len(nodes))
        self.passes += 1
        return reduce_sums(states, _histograms, tree.feature, kcut, slots, self.feats,
                           self.binned.offsets, with_risk, self.k + (1 if rows else 0))

    def tree(self, states) -> tuple[Tree, np.ndarray, float]:
        """One Newton tree (grow_tree's levels on summed histograms), its code cuts
        and the U-risk of the states' F."""
        d, b = self.depth, self.binned
        size = 2 ** (d + 1) - 1
        tree = Tree(depth=d, feature=np.full(size, -1, dtype=np.int64), cut=np.zeros(size),
                    gain=np.zeros(size))
        kcut = np.zeros(size, dtype=np.int64)
        sums = np.zeros((size, self.k + 1))
        H, risk = self._root(states, tree, kcut)
        active = [0]
        if self.search.ncand == 0:
            sums[0] = H[0, b.offsets[0]:b.offsets[1]].sum(axis=0)
            return self._valued(tree, sums), kcut, risk
        threshold = min_gain_threshold(np.ascontiguousarray(H[0, :, :self.k]), b)
        _, col, kk = b.candidates()
        for level in range(d):
            best, gain = self.search(np.ascontiguousarray(H[..., :self.k]))
            split = []
            for a, nd in enumerate(active):
                f0 = int(self.feats[0])
                total = H[a, b.offsets[f0]:b.offsets[f0 + 1]].sum(axis=0)
                if not gain[a] > threshold:
                    sums[nd] = total
                    continue
                f, kc = int(col[best[a]]), int(kk[best[a]])
                tree.feature[nd], tree.gain[nd], kcut[nd] = f, gain[a], kc
                tree.cut[nd] = b.cut_value(f, kc)
                left = H[a, b.offsets[f]:b.offsets[f] + kc + 1].sum(axis=0)
                sums[2 * nd + 1], sums[2 * nd + 2] = left, total - left
                split.append((a, nd, left[-1] <= total[-1] - left[-1]))
            if level == d - 1 or not split:
                break
            # the rows say which child is the smaller, for the level after the next
            H, active = self._children(states, tree, kcut, H, split, rows=level + 2 < d)
        return self._valued(tree, sums), kcut, risk

    def _root(self, states, tree, kcut) -> tuple[np.ndarray, float]:
        """The root's histogram and the U-risk.  Its rows column (row counts by bin,
        exact) is the same at every iteration: summed by the first pass only."""
        got = self.histograms(states, tree, kcut, [0], with_risk=True,
                              rows=self.root_rows is None)
        H = got["H"]
        if self.root_rows is None:
            self.root_rows = H[0, :, -1].copy()
        else:
            H = np.concatenate([H, self.root_rows[None, :, None]], axis=2)
        return H, float(got["risk"])

    def _children(self, states, tree, kcut, H, split, rows=True):
        """The children's histograms: the smaller child's summed by the partitions,
        its sibling's the parent's minus it (grow_tree's rule: left when equal).
        ``rows=False`` (the last level): the rows column is not summed (left 0)."""
        small = [2 * nd + (1 if left_small else 2) for _, nd, left_small in split]
        Hs = self.histograms(states, tree, kcut, small, rows=rows)["H"]
        child = np.zeros((2 * len(split),) + H.shape[1:])
        active = []
        q = Hs.shape[2]
        for i, (a, nd, left_small) in enumerate(split):
            s, g = (2 * i, 2 * i + 1) if left_small else (2 * i + 1, 2 * i)
            child[s, :, :q] = Hs[i]
            np.subtract(H[a, :, :q], Hs[i], out=child[g, :, :q])
            active += [2 * nd + 1, 2 * nd + 2]
        return child, active

    @staticmethod
    def _valued(tree: Tree, sums: np.ndarray) -> Tree:
        G, Hh = sums[:, 0], sums[:, 1]
        leaf = np.zeros(tree.feature.size, dtype=bool)
        leaf[tree.leaves] = True
        with np.errstate(divide="ignore", invalid="ignore"):
            tree.value = np.where(leaf & (Hh > 0), -G / Hh, 0.0)
        return tree


def _terms(term_slices: dict, p: int) -> tuple[np.ndarray, int]:
    """The term of each design column (boost_u's importance by term)."""
    col_term = np.zeros(p, dtype=np.int64)
    for t, sl in enumerate(term_slices.values()):
        col_term[sl] = t
    return col_term, len(term_slices)


def _coded(parts, max_bins: int, e: int, first: list, rows: list) -> tuple[list, BinnedDesign]:
    """bin_design's cuts over the partitions (``first``: their first pass, done
    with the setup), and the partitions coded in blocks (persisted)."""
    import dask
    from dask import delayed

    p = len(parts.design.column_names)
    cuts, _ = distributed_cuts(parts.frames, _positive, p, max_bins, first=first)
    nbins = np.array([c.size + 1 for c in cuts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(nbins)])
    dtype = np.uint8 if nbins.max(initial=1) <= 256 else np.uint16
    coded = list(dask.persist(*[delayed(_encode)([parts.frames[i] for i in block], cuts, dtype, e)
                                for block in _blocks(rows, _workers_memory()[0])]))
    binned = BinnedDesign(np.zeros((p, 0), dtype=dtype), cuts, nbins, offsets)
    return coded, binned


def _sums(coded: _Coded) -> dict:
    y = coded.y.astype(np.float64)
    return {"wsum": float(coded.w.sum()), "wy": float(coded.w @ y)}


def _leaf_bounds(weight_kind, wsum, n_positive, e, min_child_weight, min_samples_leaf):
    """The leaf bounds on the scaled weights (scale ``2**-e``).  Prior weights are relative:
    the bounds count average rows, as the in-memory fit divides the weights by their mean
    (ubreg.numerics.weights); frequency weights count rows."""
    unit = float(np.ldexp(wsum, e)) / n_positive if weight_kind == "prior" else 1.0
    return (float(np.ldexp(min_child_weight * unit, -e)),
            float(np.ldexp(min_samples_leaf * unit, -e)))


def fit_uboost_dask(spec, *, U, learner: str, depth: int, mstop: int, nu: float,
                    max_bins: int, init: str, min_child_weight: float,
                    min_samples_leaf: float):
    """U-Boost with trees or stumps on a dask DataFrame (``ubreg.fit`` routes here;
    see the module docstring).  The options are
    :data:`ubreg.methods.uboost.OPTIONS`, checked by :func:`ubreg.fit` for a Dask
    frame (no ``learner="linear"``).

    Returns
    -------
    ubreg.dask.boost_result.DaskUBoostResult
    """
    import dask
    from dask import delayed

    from .boost_result import DaskUBoostResult

    family = boosted_family(spec.family, spec.family_given, U)
    _check_r_options(spec)
    U = as_u_loss(family)
    parts = prepare_partitions(spec, persist="auto")
    pieces = gather(parts.frames, _setup, int(max_bins))
    setup = combine([piece[0] for piece in pieces])
    if setup["n_used"] == 0:
        raise DataError(f"no rows left after removing missing values: all {setup['n_input']} "
                        "rows have NA in a variable of the formula")
    if setup["pos0"] == 0 or setup["pos1"] == 0:
        raise ValueError("the response has one class: the log-odds is infinite")
    e = int(np.frexp(setup["wmax"])[1])            # boost_u's scaling of the weights
    leaf_rows = min_samples_leaf > 1
    coded, binned = _coded(parts, int(max_bins), e, [piece[1] for piece in pieces],
                           [piece[0]["n_used"] for piece in pieces])
    del pieces
    parts_light = parts.without_frames()
    del parts                                      # the designs leave worker memory
    sums = reduce_sums(coded, _sums)
    wsum = sums["wsum"]
    bounds = _leaf_bounds(spec.weight_kind, wsum, setup["n_positive"], e, min_child_weight,
                          min_samples_leaf)
    F0 = U.initial_F(sums["wy"] / wsum) if init == "mean" else 0.0
    states = list(dask.persist(*[delayed(_first_state)(c, F0, U, leaf_rows) for c in coded]))
    del coded
    rounds = _Rounds(binned, U, float(nu), 1 if learner == "stumps" else int(depth), bounds,
                     leaf_rows)
    col_term, n_terms = _terms(parts_light.design.term_slices, len(binned.cuts))
    learners, risk, shares = [], [], []
    for _ in range(int(mstop)):
        tree, kcut, r = rounds.tree(states)
        risk.append(r / wsum)
        learners.append(tree)
        by_col = tree.split_gains_by_column(len(binned.cuts))
        share = np.bincount(col_term, weights=by_col, minlength=n_terms)
        shares.append(share / share.sum() if share.sum() > 0 else share)
        states = list(dask.persist(*[delayed(_advance)(s, tree.feature, kcut, tree.value,
                                                       float(nu), U, leaf_rows)
                                     for s in states]))
    ybar = sums["wy"] / wsum
    eta0 = family.intercept_only_eta(ybar) if parts_light.design.has_intercept else 0.0
    final = reduce_sums(states, _final, family, eta0, e, spec.weight_kind)
    risk.append(final["risk"] / wsum)
    risk_path = np.asarray(risk)
    gains = np.zeros((int(mstop), n_terms))
    for m, share in enumerate(shares):
        gains[m] = (risk_path[m] - risk_path[m + 1]) * share
    # eta: F of the training rows stays on the workers (the result's lazy eta)
    fit = UBoostFit(learners=learners, F0=F0, nu=float(nu), eta=np.zeros(0), risk_path=risk_path,
                    gains=gains, selected=gains != 0 if not shares else np.array(shares) > 0)
    options = dict(learner=learner, depth=int(depth), mstop=int(mstop), nu=float(nu),
                   max_bins=int(max_bins), init=init, min_child_weight=float(min_child_weight),
                   min_samples_leaf=float(min_samples_leaf))
    stats = {**setup, **final, "wsum_user": float(np.ldexp(wsum, e)), "passes": rounds.passes,
             "partitions": len(states)}
    return DaskUBoostResult(fit=fit, family=family, U=U, options=options, stats=stats,
                            partitioned=parts_light, formula=spec.formula,
                            design=parts_light.design, response=parts_light.response,
                            **spec.recorded(), na_factors=list(setup["na_counts"].items()))
