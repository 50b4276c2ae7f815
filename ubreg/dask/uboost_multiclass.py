"""Method ``uboost`` on a Dask frame of K > 2 classes: K Newton trees a round.

The in-memory fit (:func:`ubreg.fitters.boost.multinomial.boost_multinomial`) with
every sum over rows split into partition-wise sums, as :mod:`ubreg.dask.uboost` splits
the two-class fit: the partitions are coded once (the same cuts), each keeps its scores
F (n, K) and the class probabilities P of the start of the round in worker memory, and
each level of each class's tree is one pass that returns the histograms of
(g, h[, w], rows) with g = w (P_k − y_k), h = w P_k (1 − P_k) for class k; the client
grows the K trees of a round from the probabilities of the round's start
(:class:`ubreg.dask.boost_passes.Rounds`) and the partitions add ν times each tree's leaf
values to F_k.  The trees are the in-memory fit's with the same bins (the sums differ
by rounding only).
"""
from __future__ import annotations

import numpy as np

from ..errors import DataError, OptionError
from ..learners.ensembles import MulticlassBoostFit
from ..numerics.scratch import scratch
from ..numerics.softmax import log_softmax
from .boost_passes import (
    Rounds,
    first_pass_setup,
    leaf_bounds,
    node_histograms,
    on_design,
)
from .reduce import combine, reduce_sums

__all__ = ["fit_multiclass_dask"]


class _State:
    """A partition's codes, class codes, scaled weights, scores F (n, K), the
    probabilities P at F, the log-loss sum Σ w (−log p_y) and ``tree_rows``: the rows
    of each heap node's leaf in every tree so far, in class order a round."""

    def __init__(self, coded, F, tree_rows: list | None = None):
        self.coded, self.F = coded, F
        self.tree_rows = tree_rows or []
        log_p = log_softmax(F)
        codes = coded.y.astype(np.intp)
        self.P = np.exp(log_p)
        self.risk = float(-np.sum(coded.w * log_p[np.arange(len(codes)), codes]))


def _first_state(coded, F0: np.ndarray) -> _State:
    return _State(coded, np.tile(F0, (coded.codes.shape[1], 1)))


def _advance(state: _State, trees: list, nu: float) -> _State:
    """F_k ← F_k + ν value_k[leaf of the row] for each class's tree, in class order
    (the rows of each tree's leaves added to ``tree_rows``)."""
    from ..trees.codes import advance_F
    codes = state.coded.codes
    F = np.empty_like(state.F)
    rows = np.zeros((len(trees), len(trees[0][0])), dtype=np.int64)
    for k, (feature, kcut, value) in enumerate(trees):
        advance_F(codes, np.asarray(feature, dtype=np.int64), np.asarray(kcut, dtype=np.int64),
                  np.asarray(value, dtype=np.float64), float(nu),
                  np.ascontiguousarray(state.F[:, k]), F[:, k], rows[k])
    return _State(state.coded, F, state.tree_rows + list(rows))


def _class_stats(state: _State, k: int, n_stats: int, leaf_rows: bool) -> np.ndarray:
    """(n, n_stats) g = w (P_k − y_k), h = w P_k (1 − P_k)[, w], 1: the in-memory fit's
    products."""
    coded, n = state.coded, state.F.shape[0]
    p = state.P[:, k]
    stats = scratch("class_stats", n * 4).reshape(n, 4)[:, :n_stats]
    np.multiply(coded.w, p - (coded.y == k), out=stats[:, 0])
    np.multiply(coded.w * p, 1.0 - p, out=stats[:, 1])
    if leaf_rows and n_stats > 2:
        stats[:, 2] = coded.w
    if n_stats > (3 if leaf_rows else 2):
        stats[:, -1] = 1.0
    return stats


def _histograms(state: _State, k: int, leaf_rows: bool, feature, kcut, slots, feats, offsets,
                with_risk: bool, n_stats: int) -> dict:
    """The histograms of class k's statistics over the nodes ``slots`` (as the two-class
    pass of :mod:`ubreg.dask.uboost`)."""
    stats = np.ascontiguousarray(_class_stats(state, k, n_stats, leaf_rows))
    out = node_histograms(state.coded.codes, stats, feature, kcut, slots, feats, offsets,
                          n_stats)
    return {"H": out, "risk": state.risk} if with_risk else {"H": out}


def _class_sums(coded, K: int) -> dict:
    return {"class_w": np.bincount(coded.y.astype(np.intp), weights=coded.w, minlength=K)}


def _final(state: _State, e: int) -> dict:
    """The last log-loss, the deviance (user's weights), the training errors and the
    (trees, nodes) rows of every tree's leaves."""
    codes = state.coded.y.astype(np.intp)
    w_user = np.ldexp(state.coded.w, e)
    log_p = log_softmax(state.F)[np.arange(len(codes)), codes]
    return {"risk": state.risk, "deviance": float(-2.0 * np.sum(w_user * log_p)),
            "errors": float(w_user @ (np.argmax(state.F, axis=1) != codes)),
            "tree_rows": np.array(state.tree_rows, dtype=np.int64)}


def fit_multiclass_dask(spec, parts, family, *, learner: str, depth: int, mstop: int,
                        nu: float, max_bins: int, min_child_weight: float,
                        min_samples_leaf: float, options: dict):
    """K-class U-Boost of the partitioned frame ``parts`` (see the module docstring)."""
    import dask
    from dask import delayed

    from .boost_multiclass_result import DaskMulticlassBoostResult

    K = len(parts.response.levels)
    if getattr(family, "name", None) != "entropy":
        raise OptionError(f"a response of {K} classes is boosted on the multinomial log-loss, "
                          f"the K-class form of family='entropy'; {family!r} has no K-class "
                          "form in the papers")
    setup, coded, binned, e = first_pass_setup(parts, int(max_bins))
    class_w = reduce_sums(coded, _class_sums, K)["class_w"]
    if np.any(class_w <= 0):
        absent = [parts.response.levels[k] for k in np.flatnonzero(class_w <= 0)]
        raise DataError(f"class(es) {absent} of response {parts.response.name!r} have no rows "
                        "of positive weight")
    wsum = float(class_w.sum())
    F0 = np.log(class_w / wsum)
    leaf_rows = min_samples_leaf > 1
    bounds = leaf_bounds(spec.weight_kind, wsum, setup["n_positive"], e, min_child_weight,
                         min_samples_leaf)
    states = list(dask.persist(*[delayed(_first_state)(c, F0) for c in coded]))
    del coded
    rounds = Rounds(binned, float(nu), 1 if learner == "stumps" else int(depth), bounds,
                    leaf_rows, _histograms, 0, leaf_rows)
    learners, risk = [], []
    for _ in range(int(mstop)):
        trees, cuts = [], []
        for k in range(K):
            rounds.extra = (k, leaf_rows)                 # the class whose tree grows
            tree, kcut, r = rounds.tree(states)
            if k == 0:
                risk.append(r / wsum)
            trees.append(tree)
            # the tree routes the codes on its binned columns (on_design rewrites them)
            cuts.append((tree.feature.copy(), kcut, tree.value))
        learners.append(trees)
        states = list(dask.persist(*[delayed(_advance)(s, cuts, float(nu)) for s in states]))
    final = combine(dask.compute(*[delayed(_final)(s, e) for s in states]))
    on_design([tree for trees in learners for tree in trees], binned, final.pop("tree_rows"))
    risk.append(final["risk"] / wsum)
    fit = MulticlassBoostFit(learners=learners, F0=F0, nu=float(nu), F=np.zeros((0, K)),
                             risk_path=np.asarray(risk))
    stats = {**setup, **final, "wsum_user": float(np.ldexp(wsum, e)),
             "class_w_user": np.ldexp(class_w, e), "passes": rounds.passes,
             "partitions": len(states)}
    light = parts.without_frames()
    return DaskMulticlassBoostResult(fit=fit, options=options, stats=stats, partitioned=light,
                                     formula=spec.formula, family=family, design=light.design,
                                     response=light.response, **spec.recorded())
