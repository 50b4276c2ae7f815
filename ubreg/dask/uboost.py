"""Method ``uboost`` (trees and stumps) on a Dask frame: one pass per tree level.

``ubreg.fit(formula, ddf, method="uboost", ...)`` runs the iteration of
:func:`ubreg.fitters.boost.uboost.boost_u` with every sum over rows split into
partition-wise sums:

1. the design is learned and built partition by partition
   (:func:`ubreg.dask.frame.prepare_partitions`; rows with NA predictors kept,
   NaN in the design, as in memory); a setup pass counts rows, weights and each
   column's NaN rows (the weights are divided by the power of two of the
   in-memory fit);
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
   (:func:`ubreg.trees.shallow.newton_split_search`) and the leaf values
   −ΣG/ΣH from the histograms' sums;
5. the first pass of each iteration also brings the training U-risk of the
   current F, and a final pass the last risk, the deviances and the rows of
   every tree's leaves, which set each split's design column and missing-value
   direction as in memory (:mod:`ubreg.dask.boost_passes`).

The trees are those of the in-memory fit with the same bins (the sums differ
by rounding only), so the predictions agree to rounding
(``tests/test_dask_uboost.py``).  ``learner="linear"`` is not available.
"""
from __future__ import annotations

import numpy as np

from ..families.ulosses import as_u_loss, boosted_family
from ..fitters.boost.margin_values import values_into
from ..learners.ensembles import UBoostFit
from ..numerics.scratch import scratch
from ..results.boost import extreme_counts, warn_extreme
from ..results.inference import bernoulli_loglik
from .boost_passes import (
    CodedRows,
    Rounds,
    design_gains,
    first_pass_setup,
    leaf_bounds,
    node_histograms,
    on_design,
)
from .fitter import _check_r_options
from .frame import prepare_partitions
from .reduce import reduce_sums

__all__ = ["fit_uboost_dask"]

# ---------------------------------------------------------------------------
# the data side
# ---------------------------------------------------------------------------
class _State:
    """A partition's codes, F and the per-row statistics (g, h[, w], 1) of the next
    tree, its U-risk sum Σ w U(y* F), and ``tree_rows``: the rows of each heap node's
    leaf in every tree so far (what the trees' missing-value directions need)."""

    def __init__(self, coded, F, stats, risk):
        self.coded, self.F, self.stats, self.risk = coded, F, stats, risk
        self.tree_rows: list = []


def _state(coded: CodedRows, F: np.ndarray, U, leaf_rows: bool) -> _State:
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


def _first_state(coded: CodedRows, F0: float, U, leaf_rows: bool) -> _State:
    return _state(coded, np.full(coded.codes.shape[1], F0), U, leaf_rows)


def _advance(state: _State, feature, kcut, value, nu: float, U, leaf_rows: bool) -> _State:
    """The next state: F ← F + ν value[leaf] (the in-memory fit's arithmetic,
    ``fitters.boost._kernels.ADVANCE``), and the rows of the tree's leaves added to
    ``tree_rows``."""
    from ..trees.codes import advance_F
    codes = state.coded.codes
    F = np.empty(codes.shape[1])
    rows = np.zeros(len(feature), dtype=np.int64)
    advance_F(codes, np.asarray(feature, dtype=np.int64), np.asarray(kcut, dtype=np.int64),
              np.asarray(value, dtype=np.float64), float(nu), state.F, F, rows)
    new = _state(state.coded, F, U, leaf_rows)
    new.tree_rows = state.tree_rows + [rows]
    return new


def _histograms(state: _State, feature, kcut, slots, feats, offsets, with_risk: bool,
                n_stats: int) -> dict:
    """The (nodes, bins, n_stats) sums of the rows of the nodes ``slots`` (heap index →
    row of the result, −1 elsewhere): the first n_stats statistics (all k + 1, or
    the k of the split search where the rows are not needed)."""
    out = node_histograms(state.coded.codes, state.stats, feature, kcut, slots, feats, offsets,
                          n_stats)
    result = {"H": out}
    if with_risk:
        result["risk"] = state.risk
    return result


def _final(state: _State, family, eta0: float, w_scale: int, weight_kind: str) -> dict:
    """The last risk, the deviances and the log-likelihood (user's weights), and the
    (trees, nodes) rows of every tree's leaves."""
    y = state.coded.y.astype(np.float64)
    w = np.ldexp(state.coded.w, w_scale)
    F = state.F
    return {"risk": state.risk,
            "divergence": float(w @ family.divergence(y, F)),
            "null_divergence": float(w @ family.divergence(y, np.full(len(y), eta0))),
            "loglik": bernoulli_loglik(family, y, F, w, weight_kind),
            "errors": float(w @ ((F >= 0) != (y == 1))),
            **_extreme_counts(family, y, F),
            "tree_rows": np.array(state.tree_rows, dtype=np.int64)}


def _extreme_counts(family, y: np.ndarray, F: np.ndarray) -> dict:
    """A partition's :func:`~ubreg.results.boost.extreme_counts`, as sums."""
    extreme, wrong = extreme_counts(family, y, F)
    return {"n_extreme": extreme, "n_extreme_wrong": wrong}


# ---------------------------------------------------------------------------
# the client side
# ---------------------------------------------------------------------------
def _terms(term_slices: dict, p: int) -> tuple[np.ndarray, int]:
    """The term of each design column (boost_u's importance by term)."""
    col_term = np.zeros(p, dtype=np.int64)
    for t, sl in enumerate(term_slices.values()):
        col_term[sl] = t
    return col_term, len(term_slices)


def _sums(coded: CodedRows) -> dict:
    y = coded.y.astype(np.float64)
    return {"wsum": float(coded.w.sum()), "wy": float(coded.w @ y)}


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
    # rows with NA predictors are kept, as the in-memory trees and stumps keep them
    parts = prepare_partitions(spec, persist="auto", multiclass=True, keep_na=True)
    options = dict(learner=learner, depth=int(depth), mstop=int(mstop), nu=float(nu),
                   max_bins=int(max_bins), init=init, min_child_weight=float(min_child_weight),
                   min_samples_leaf=float(min_samples_leaf))
    if parts.response.kind == "multiclass":
        from .uboost_multiclass import fit_multiclass_dask
        return fit_multiclass_dask(spec, parts, family, learner=learner, depth=depth,
                                   mstop=mstop, nu=nu, max_bins=max_bins,
                                   min_child_weight=min_child_weight,
                                   min_samples_leaf=min_samples_leaf, options=options)
    setup, coded, binned, e = first_pass_setup(parts, int(max_bins))
    if setup["pos0"] == 0 or setup["pos1"] == 0:
        raise ValueError("the response has one class: the log-odds is infinite")
    leaf_rows = min_samples_leaf > 1
    parts_light = parts.without_frames()
    del parts                                      # the designs leave worker memory
    sums = reduce_sums(coded, _sums)
    wsum = sums["wsum"]
    bounds = leaf_bounds(spec.weight_kind, wsum, setup["n_positive"], e, min_child_weight,
                          min_samples_leaf)
    F0 = U.initial_F(sums["wy"] / wsum) if init == "mean" else 0.0
    states = list(dask.persist(*[delayed(_first_state)(c, F0, U, leaf_rows) for c in coded]))
    del coded
    rounds = Rounds(binned, float(nu), 1 if learner == "stumps" else int(depth), bounds,
                    leaf_rows, _histograms)
    p = len(parts_light.design.column_names)
    col_term, n_terms = _terms(parts_light.design.term_slices, p)
    learners, risk, shares = [], [], []
    for _ in range(int(mstop)):
        tree, kcut, r = rounds.tree(states)
        risk.append(r / wsum)
        learners.append(tree)
        share = np.bincount(col_term, weights=design_gains(tree, binned, p), minlength=n_terms)
        shares.append(share / share.sum() if share.sum() > 0 else share)
        # the tree routes the codes on its binned columns (on_design rewrites them)
        states = list(dask.persist(*[delayed(_advance)(s, tree.feature.copy(), kcut, tree.value,
                                                       float(nu), U, leaf_rows)
                                     for s in states]))
    ybar = sums["wy"] / wsum
    eta0 = family.intercept_only_eta(ybar) if parts_light.design.has_intercept else 0.0
    final = reduce_sums(states, _final, family, eta0, e, spec.weight_kind)
    on_design(learners, binned, final.pop("tree_rows"))
    risk.append(final["risk"] / wsum)
    risk_path = np.asarray(risk)
    gains = np.zeros((int(mstop), n_terms))
    for m, share in enumerate(shares):
        gains[m] = (risk_path[m] - risk_path[m + 1]) * share
    # eta: F of the training rows stays on the workers (the result's lazy eta)
    fit = UBoostFit(learners=learners, F0=F0, nu=float(nu), eta=np.zeros(0), risk_path=risk_path,
                    gains=gains, selected=gains != 0 if not shares else np.array(shares) > 0)
    stats = {**setup, **final, "wsum_user": float(np.ldexp(wsum, e)), "passes": rounds.passes,
             "partitions": len(states)}
    result = DaskUBoostResult(fit=fit, family=family, U=U, options=options, stats=stats,
                              partitioned=parts_light, formula=spec.formula,
                              design=parts_light.design, response=parts_light.response,
                              **spec.recorded(), na_factors=list(setup["na_counts"].items()))
    warn_extreme(result)
    return result
