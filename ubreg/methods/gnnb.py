"""Methods ``gnnb`` and ``unn``: formula and data in, :class:`GNNBResult` out."""
from __future__ import annotations

import math
import time
from typing import cast

import numpy as np
import pandas as pd

from ..errors import DataError
from ..families import PermissibleFamily
from ..fitters.gnnb.fitter import leverage
from ..fitters.gnnb.graph import NeighbourGraph, graph_neighbours
from ..fitters.gnnb.neighbours import NeighbourIndex
from ..fitters.gnnb.preprocess import Preprocessor
from ..numerics import options as opt
from ..numerics.limits import check_allocation, format_bytes
from ..results.gnnb import BlockModel, GNNBResult
from .schema import Option, Schema
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_gnnb", "fit_unn", "cv_neighbour_graph", "GNNB_OPTIONS", "UNN_OPTIONS"]


def _graph(value):
    if value is not None and not isinstance(value, NeighbourGraph):
        raise ValueError(f"neighbour_graph must be a NeighbourGraph (from "
                         f"ubreg.methods.gnnb.cv_neighbour_graph), got {type(value).__name__}")
    return value


#: the options gnnb and unn share, by name
_SHARED = {o.name: o for o in (
    Option("k", "whole", 10, "Neighbours (1 ≤ k < number of training rows); an example is "
           "not its own neighbour in training.", low=1, high=10 ** 9),
    Option("T", "whole", None, "Boosting steps per class; None: m, the number of training "
           "rows (each example leveraged once in turn, cycling when T > m).  \"In turn\" is "
           "a canonical order that depends on the rows' contents only, so shuffling the rows "
           "gives the same fit.", low=1, high=opt.MAX_ROUNDS, none=True),
    Option("blocks", "whole", 1, "Divide-and-conquer (Section 6.4): split the predictor "
           "columns into this many contiguous blocks, normalise each block per row "
           "(`norm`), fit one model per block and average the posteriors.  The indicator "
           "columns of a factor stay together.", low=1,
           high=10 ** 6),
    Option("norm", "choice", "l2", "Block normalisation (only with `blocks` > 1).",
           choices=("l2", "l1")),
    Option("standardize", "flag", True, "Centre and scale numeric predictors with the "
           "training moments."),
    Option("categorical", "choice", "onehot", "Categorical predictors as 0/1 indicators of "
           "every level, or an error.", choices=("onehot", "refuse")),
    Option("trace", "flag", False, "Keep the per-step surrogate risk (for diagnostics)."),
    Option("neighbour_graph", "value", None, "Neighbour lists of a superset of the rows, "
           "passed by ubreg.cv to its folds.", check=_graph, public=False),
)}
_BLOCKS = ("blocks", "norm", "standardize", "categorical")
_LAST = ("trace", "neighbour_graph")

#: gnnb's options
GNNB_OPTIONS = Schema((
    _SHARED["k"],
    Option("epsilon", "real", 0.5, "Step size of eq. (10): δ_j = 2(1 − ε) η(c, j)/(H* n_j).",
           low=0.0, high=1.0, open_low=True, open_high=True),
    _SHARED["T"],
    Option("chooser", "choice", "sequential", "Examples in turn, or GNNB* (largest |δ_j| "
           "per class, Section 4.4).", choices=("sequential", "largest")),
    *(_SHARED[n] for n in (*_BLOCKS, *_LAST)),
), label="'gnnb'")

#: unn's options
UNN_OPTIONS = Schema((
    *(_SHARED[n] for n in ("k", "T", *_BLOCKS)),
    Option("delta_max", "real", 10.0, "Cap on |δ_j|: a zero-edge root beyond ±`delta_max` "
           "(at infinity when every inverse neighbour agrees) is capped and counted "
           "(`n_capped`).", low=0.0, high=math.inf, open_low=True),
    Option("tol", "real", 1e-12, "Tolerance of the zero-edge root.", low=0.0, high=1.0,
           open_low=True, open_high=True),
    *(_SHARED[n] for n in _LAST),
), label="'unn'")


def fit_gnnb(spec: FitSpec, *, k: int, epsilon: float, T: int | None, chooser: str,
             blocks: int, norm: str, standardize: bool, categorical: str, trace: bool,
             neighbour_graph: NeighbourGraph | None) -> GNNBResult:
    """Gentle nearest-neighbour boosting (paper 002, Algorithm 1; docs/math.md §8),
    with the options :data:`GNNB_OPTIONS`.

    Notes
    -----
    Row weights: ``ubreg.fit(..., weights=w)`` (prior weights) and
    ``freq_weights=w`` (frequency weights) are both accepted and fit the same
    model: Algorithm 1 has no example weights, so each row is repeated by its
    integer weight (0 removes it).  They differ in ``nobs``: the rows of
    non-zero weight, or Σ w.

    The weights follow eq. (11) exactly for families with an unbounded link
    (entropy, entropy2, matsushita, mu, power) and for gini (Table 1, row A,
    the linear update also outside [0, 1/b_φ]).  For a bounded link (logcosh,
    tempered with t < 1) they are ∇φ⁻¹ of the clipped link of the current
    classifier, which departs from (11) iterated on the weights once its
    argument leaves the link's range: see :mod:`ubreg.fitters.gnnb.fitter`.
    """
    return _fit(spec, "gnnb", k=k, epsilon=epsilon, T=T, chooser=chooser, blocks=blocks,
                norm=norm, standardize=standardize, categorical=categorical, trace=trace,
                graph=neighbour_graph)


def fit_unn(spec: FitSpec, *, k: int, T: int | None, blocks: int, norm: str,
            standardize: bool, categorical: str, delta_max: float, tol: float, trace: bool,
            neighbour_graph: NeighbourGraph | None) -> GNNBResult:
    """UNN baseline: the GNNB loop (sequential chooser) with δ_j solved exactly
    from the zero-edge condition (paper 000 eq. 70) on j's inverse
    neighbourhood, to ``tol``, with the options :data:`UNN_OPTIONS` (no ``epsilon``
    or ``chooser``: δ is exact, examples are visited in turn)."""
    return _fit(spec, "unn", k=k, epsilon=0.5, T=T, chooser="sequential", blocks=blocks,
                norm=norm, standardize=standardize, categorical=categorical, trace=trace,
                delta_max=float(delta_max), tol=float(tol), graph=neighbour_graph)


def _fit(spec: FitSpec, update: str, *, k, epsilon, T, chooser, blocks, norm, standardize,
         categorical, trace, delta_max=10.0, tol=1e-12, graph=None) -> GNNBResult:
    family = spec.family
    if isinstance(family, list) or not family.is_permissible:
        # a ValueError, as every user error in ubreg (errors.py)
        raise ValueError(  # noqa: TRY004
            f"method {update!r} needs one permissible family (φ), got {family!r}")
    if spec.positive is not None:
        raise ValueError(f"method {update!r} is multiclass: 'positive' does not apply")
    mf = model_frame(spec, update, response="multiclass")
    X_in, codes, row_index = _replicate_by_weights(mf, spec.weights is not None, update, int(k))
    m = X_in.shape[0]
    if k >= m:
        raise DataError(f"k = {k} but only {m} training rows: k must be smaller than the number "
                        f"of rows (an example is not its own neighbour)")
    # fit on the rows in a canonical order, so that the user's row order changes
    # neither the visiting order of the sequential chooser nor distance ties
    order = canonical_order(X_in, codes)
    X = X_in[order]
    pre = Preprocessor(mf.design, X, standardize=standardize, categorical=categorical,
                       blocks=blocks, norm=norm)
    C = len(mf.response.levels)
    Y = -np.ones((m, C))
    Y[np.arange(m), codes] = 1.0
    Y_c = Y[order]
    models = []
    t0 = time.perf_counter()
    link = None if graph is None else _graph_link(
        graph, pre, row_index[order], X, usable=blocks == 1 and spec.weights is None)
    for B in pre.transform(X):
        index = NeighbourIndex(B)
        knn = (index.query(None, int(k)) if link is None else
               graph_neighbours(link[0], index, link[1], pre.scale, link[1], int(k)))
        fit = leverage(knn, Y_c, family, epsilon=float(epsilon), T=None if T is None else int(T),
                       chooser=chooser, update=update, delta_max=delta_max, tol=tol, trace=trace)
        models.append(BlockModel(index=index, leverage=fit.alpha * Y_c,
                                 fit=_in_input_order(fit, order)))
    seconds = time.perf_counter() - t0
    return GNNBResult(
        method=update, formula=spec.formula, **spec.recorded(), design=mf.design,
        family=cast(PermissibleFamily, family),       # is_permissible, checked above
        response=mf.response, preprocessor=pre, blocks=models, codes=codes, Y=Y, k=int(k),
        epsilon=float(epsilon), T=int(T if T is not None else m), chooser=chooser,
        index=row_index, n_input=mf.n_input, dropped=mf.dropped, na_factors=mf.na_factors,
        fit_seconds=seconds, order=order,   # index.X is in this order: Lemma 3 needs Y[order]
        weighted_rows=len(mf.index) if spec.weights is not None else None,
        positive_rows=int(np.count_nonzero(mf.weights)) if spec.weights is not None else None,
        graph_link=link)


def _graph_link(graph: NeighbourGraph, pre: Preprocessor, labels: pd.Index, X: np.ndarray,
                usable: bool) -> tuple[NeighbourGraph, np.ndarray] | None:
    """(graph, graph row of each training point) when the graph holds the training
    rows with the same values (and ``usable``: one block, no weights), else None."""
    if not usable:
        return None
    rows = graph.rows_of(labels, pre.raw(X), pre.column_names)
    return None if rows is None else (graph, rows)


def cv_neighbour_graph(formula: str, frame: pd.DataFrame, weights, fit_kw: dict) -> dict:
    """The options :func:`ubreg.cv` adds to every fold's fit: a neighbour graph of
    all the complete rows of ``frame`` (whose labels the folds keep), when the
    folds can use it (``blocks=1``, no weights, no graph given); else none."""
    if (weights is not None or "neighbour_graph" in fit_kw
            or fit_kw.get("blocks", 1) != 1 or fit_kw.get("positive") is not None):
        return {}
    k = fit_kw.get("k", 10)
    spec = FitSpec(formula=formula, data=frame, family=[], weights=None,     # unread here
                   na_action=fit_kw.get("na_action", "omit"), positive=None, call="")
    try:
        mf = model_frame(spec, fit_kw.get("method", "gnnb"), response="multiclass")
        pre = Preprocessor(mf.design, mf.X, standardize=fit_kw.get("standardize", True),
                           categorical=fit_kw.get("categorical", "onehot"))
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or \
                not 1 <= k < mf.X.shape[0] - 1:
            return {}
    except ValueError:       # the folds' own fits report it
        return {}
    graph = NeighbourGraph(mf.index, pre.raw(mf.X), pre.transform(mf.X)[0], pre.scale,
                           pre.column_names, int(k))
    return {"neighbour_graph": graph}


#: a 64-bit process cannot address more bytes than this (a hard limit under any cap)
_ADDRESSABLE = 2.0 ** 62


def _bytes_per_row(d: int, C: int, k: int) -> int:
    """Bytes a GNNB fit holds per training row: the design and its copies (repeated,
    canonical order, standardised, the index's), class codes, labels and order,
    Y twice, the neighbour lists and their inverse with its sort, and the
    leveraging state (h, α, z, b w y, per class)."""
    return 8 * (5 * (d + 1) + 10 * C + 4 * k + 6)


def _replicate_by_weights(mf, weighted: bool, update: str, k: int):
    """(design, class codes, row labels) with each row repeated by its weight.

    Algorithm 1 has no example weights, and a k-NN rule sees a duplicated row
    as a neighbour of its twin: frequency weights can only mean the rows
    themselves, repeated (weight 0 removes a row).  So they must be integers.
    Training-time outputs (``alpha``, ``predict()`` without newdata) then have
    one row per copy, labelled with the row's index label.

    The number of rows Σ w is checked against the memory cap
    (:func:`ubreg.numerics.limits.check_allocation`) before anything is
    repeated: a large weight would otherwise exhaust the machine, and a total
    past 2^63 would wrap around in ``np.repeat``'s count.
    """
    codes = mf.y.astype(np.int64)
    if not weighted:
        check_allocation(float(mf.X.shape[0]) * _bytes_per_row(
            mf.X.shape[1], len(mf.response.levels), min(k, mf.X.shape[0])),
            f"method {update!r} with k = {k} on {mf.X.shape[0]} rows")
        return mf.X, codes, mf.index
    w = mf.weights
    if not np.all(w == np.round(w)):
        bad = int(np.sum(w != np.round(w)))
        raise DataError(f"method {update!r} takes integer frequency weights only (a row of "
                        f"weight k is k copies of it); {bad} weight(s) are not integers")
    total = float(np.sum(w))                   # float: no wrap-around, exact below 2^53
    nbytes = total * _bytes_per_row(mf.X.shape[1], len(mf.response.levels), k)
    what = (f"method {update!r}: the integer weights repeat the {w.size} rows into "
            f"{total:.6g} rows (a row of weight k is k copies); its fit")
    if nbytes >= _ADDRESSABLE:
        raise DataError(f"{what} would need about {format_bytes(nbytes)}, more than a "
                        f"64-bit machine can address; use smaller weights")
    check_allocation(nbytes, what)
    reps = w.astype(np.int64)
    return (np.repeat(mf.X, reps, axis=0), np.repeat(codes, reps),
            pd.Index(np.repeat(np.asarray(mf.index), reps), name=mf.index.name))


def canonical_order(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """A permutation of the rows that depends on their contents only.

    Each row is reduced to its class code and the ranks of its values within
    their columns, and the rows are ordered by a 64-bit hash of that: a
    pseudo-random visiting order (not a sweep along one predictor) that a
    change of row order or of float precision (float32 input) leaves alone.
    Identical rows with identical labels are interchangeable, so any order of
    them gives the same fit; hash collisions fall back to the ranks.
    """
    ranks = [np.unique(X[:, j], return_inverse=True)[1].reshape(-1).astype(np.uint64)
             for j in range(X.shape[1])]
    h = np.full(X.shape[0], np.uint64(0x9E3779B97F4A7C15))
    mult = np.uint64(0xBF58476D1CE4E5B9)
    with np.errstate(over="ignore"):
        for col in [codes.astype(np.uint64)] + ranks:
            h = (h ^ col) * mult
            h ^= h >> np.uint64(31)
    return _sort_keys(h, codes, ranks)


def _sort_keys(h, codes, ranks):
    """``np.lexsort(ranks[::-1] + [codes, h])``: by hash, class, ranks, then row.

    Sorted by (hash, row) first, which is that order whenever rows with equal
    hashes are identical (equal class and ranks: the row order decides either
    way); the full sort runs only on a hash collision.
    """
    order = np.lexsort((np.arange(h.shape[0]), h))
    tied = np.flatnonzero(h[order[1:]] == h[order[:-1]])
    if tied.size:
        a, b = order[tied], order[tied + 1]
        same = codes[a] == codes[b]
        for r in ranks:
            same &= r[a] == r[b]
        if not same.all():          # a hash collision: the ranks decide
            order = np.lexsort(ranks[::-1] + [codes, h])
    return order


def _in_input_order(fit, order: np.ndarray):
    """The per-row arrays of a fit made on ``X[order]``, put back in input order;
    chosen example indices are mapped back too."""
    inv = np.empty_like(order)
    inv[order] = np.arange(order.shape[0])
    fit.alpha = fit.alpha[inv]
    fit.z = fit.z[inv]
    fit.chosen = order[fit.chosen]
    return fit


GNNB = Method("gnnb", fit=fit_gnnb, result=GNNBResult, schema=GNNB_OPTIONS, quick={"": {"k": 3}},
              multiclass=True, cv_options=cv_neighbour_graph)
UNN = Method("unn", fit=fit_unn, result=GNNBResult, schema=UNN_OPTIONS, quick={"": {"k": 3}},
             multiclass=True, cv_options=cv_neighbour_graph)
