"""Method ``uls``: ULS (paper 000 Algorithm 1, docs/math.md §4).

``learner="linear"`` (the default) fits a linear separator over the design
columns with glm-grade inference; ``learner="stumps"|"rules"|"trees"`` boosts
weak learners (paper 000 §7), with a bag of families and an adaptive strategy
when ``family`` is a list.  On a Dask frame the linear fit runs partition by
partition (:mod:`ubreg.dask`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ConvergenceWarning, DataError, InferenceWarning, SeparationWarning
from ..fitters.boost.adaptive import fit_fstar
from ..fitters.boost.leverage import MAX_DELTA
from ..fitters.boost.uls_boost import STRATEGIES, boost_uls, check_strategy
from ..fitters.irls import check_control, fit_irls
from ..fitters.profile import profile_intervals
from ..fitters.uls import (
    EXTREME_MESSAGE,
    convergence_message,
    fit_uls,
    working_design,
    working_transform,
)
from ..numerics import options as opt
from ..numerics.factor_matrix import take_columns
from ..numerics.separation import R_EPS, SEPARATION_SYMPTOM, detect_separation, some_names
from ..numerics.warnings import warn
from ..numerics.weights import power_of_two_scaled
from ..results.boost import ULSBoostResult
from ..results.inference import sandwich
from ..results.linear import LinearResult, concentration_message
from ..results.multinomial import MultinomialResult
from ..trees.binning import bin_design
from .multinomial import fit_multinomial_result
from .schema import OnDask, Option, Schema
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_uls_method", "fit_linear", "fit_boosted", "uls_schema", "LINEAR_OPTIONS",
           "BOOSTED_OPTIONS", "METHOD"]


#: the options of ``learner="linear"`` (ULS over the design columns)
LINEAR_OPTIONS = Schema((
    Option("solver", "choice", "corrective", "`\"corrective\"` updates every coefficient "
           "at each iteration by safeguarded Newton steps (the totally corrective ULS, Newton "
           "on the whole risk); `\"coordinate\"` is classic boosting: the column of largest "
           "|edge| under the current weights, with eq. (70) solved in one dimension to "
           "1e-10.  Both reach the same optimum.", choices=("corrective", "coordinate"),
           dask=OnDask(allowed=("corrective",), why=(
               "only solver='corrective' (one pass over the partitions per Newton step): "
               "the coordinate solver would need a pass per column update"))),
    Option("tol", "real", 1e-10, "Stop when the largest |normalised edge| is at most `tol`.",
           low=0.0, high=1.0, open_low=True, open_high=True),
    Option("maxiter", "whole", None, "Iteration limit (None: 100 for `\"corrective\"`, "
           "100 000 for `\"coordinate\"`); a fit that stops before converging warns "
           "(`ConvergenceWarning`) and its summary says so.", low=1, high=opt.MAX_ROUNDS,
           none=True),
    Option("on_separation", "choice", "warn", "Separation (Lemma 8: a column whose margins "
           "all share a sign, the optimum at infinity) is detected by a linear program when "
           "fitted probabilities approach 0 or 1.  A `SeparationWarning` names the "
           "separating terms, the fit is finite and flagged (`m.separation`, "
           "`converged=False`); `\"raise\"` makes it an error.  On a Dask frame the "
           "program, which needs all rows at once, is not run and `\"raise\"` raises on "
           "the symptom alone.", choices=("warn", "raise")),
    Option("control", "value", None, "R's stopping rule: `ubreg.glm_control(epsilon=1e-8, "
           "maxit=25)` runs R's IRLS from R's starting values and stops where `glm` stops "
           "(|ΔD|/(|D| + 0.1) < epsilon), so that the numbers are R's default ones to the "
           "digits R prints; it replaces `solver`, `tol` and `maxiter`.  None: iterate "
           "to the optimum.  On the command line: `-o control=epsilon=1e-8,maxit=25`.",
           check=check_control, none=True, where="memory"),
    Option("persist", "choice", "auto", "Keep each partition's design in (cluster) memory "
           "for the Newton passes, or rebuild it from the source at every pass (False: "
           "memory bounded by a few partitions, time a multiple); `\"auto\"` persists when "
           "the design fits comfortably.", choices=("auto", True, False), where="dask"),
), label="'uls'")

#: the options of learner="stumps", "rules" and "trees" (ULS boosting weak learners)
BOOSTED_OPTIONS = Schema((
    Option("rounds", "whole", 100, "The number of weak hypotheses.", low=1,
           high=opt.MAX_ROUNDS),
    Option("corrective", "flag", False, "Totally corrective: after each round, re-solve "
           "every coefficient (a Newton solve of eq. 70 on all features so far) instead of "
           "the new hypothesis' only."),
    Option("strategy", "choice", None, "With a bag of families (`family=[...]`): how the "
           "loss is chosen as it boosts (paper 000 §7; see *A bag of families*).",
           choices=STRATEGIES, none=True),
    Option("literals", "whole", 2, "`learner=\"rules\"`: the most literals of a rule.",
           low=1, high=10 ** 6),
    Option("depth", "whole", 2, "`learner=\"trees\"`: the depth of the trees.", low=1,
           high=12),
    Option("max_bins", "whole", 255, "Thresholds are searched on binned columns: exactly "
           "when a column has at most `max_bins` distinct values, on quantile bins "
           "otherwise.  Raise it for an exhaustive search.", low=2, high=65535),
    Option("tol", "real", 1e-10, "The tolerance of eq. (70).", low=0.0, high=1.0,
           open_low=True, open_high=True),
    Option("max_delta", "real", MAX_DELTA, "The cap on a leveraging coefficient.", low=0.0,
           high=math.inf, open_low=True),
    Option("min_leaf", "real", 1.0, "The least weight of a tree's leaf.", low=0.0,
           high=math.inf),
    Option("select", "choice", "train", "`strategy=\"F*\"`: keep the family of least "
           "empirical risk (the paper's rule) or of least inner-cross-validated error.",
           choices=("train", "cv")),
    Option("inner_folds", "whole", 5, "`select=\"cv\"`: the folds of the inner "
           "cross-validation.", low=2, high=1000),
    Option("seed", "seed", None, "`select=\"cv\"`: the seed of the inner folds."),
), label="'uls'")

_LEARNER = Option("learner", "choice", "linear", "`\"linear\"`: a linear separator over "
                  "the design columns with glm-grade inference; `\"stumps\"`: ±1 stumps; "
                  "`\"rules\"`: monomial rules \"if a conjunction of ≤ `literals` literals "
                  "then ±1 else ∓1\"; `\"trees\"`: shallow trees of depth `depth`.",
                  choices=("linear", "stumps", "rules", "trees"),
                  dask=OnDask(allowed=("linear",), why=(
                      "only learner='linear' (a weak learner needs the data in memory; "
                      "call .compute() for small data)")))


def uls_schema(options: dict) -> Schema:
    """The options of ``uls`` with the learner ``options`` choose (``learner`` first)."""
    learner = _LEARNER.validate(options.get("learner", "linear"))
    own = LINEAR_OPTIONS if learner == "linear" else BOOSTED_OPTIONS
    label = "'uls'" if learner == "linear" else f"'uls' with learner={learner!r}"
    return Schema((_LEARNER, *own.options), label=label)


def fit_uls_method(spec: FitSpec, *, learner: str, **options):
    """ULS (paper 000 Algorithm 1): over the design columns (``learner="linear"``)
    or over weak learners, with the options of :func:`uls_schema`."""
    if learner == "linear":
        return fit_linear(spec, **options)
    return fit_boosted(spec, learner, **options)


def fit_linear(spec: FitSpec, *, solver: str, tol: float, maxiter: int | None,
               on_separation: str, control) -> LinearResult | MultinomialResult:
    """ULS over the design columns (paper 000 Algorithm 1, docs/math.md §4), with the
    options :data:`LINEAR_OPTIONS`; on a response of more than two classes, the
    multinomial logit (:mod:`ubreg.methods.multinomial`)."""
    if isinstance(spec.family, list):
        raise ValueError("a bag of families (family=[...]) needs weak learners: "
                         "learner='stumps', 'rules' or 'trees'")
    # a factor's main effect kept as its codes: the design takes the memory of its
    # other columns only (ubreg.numerics.factor_matrix)
    mf = model_frame(spec, "uls", offset=True, proportions=True, factor_codes=True,
                     square=True, response="auto")
    family = spec.family
    if mf.response.kind == "multiclass":
        if control is not None:
            raise ValueError("control=glm_control() is R's glm stopping rule, for a binary "
                             "or proportion response; the multinomial fit (nnet::multinom's "
                             "model) takes tol= and maxiter=")
        return fit_multinomial_result(spec, mf, tol=tol, maxiter=maxiter)
    if mf.response.kind == "proportion" and not (family.is_permissible
                                                  or family.binomial_likelihood):
        raise ValueError(f"response {mf.response.name!r} holds proportions, whose loss is the "
                         "Bregman divergence D_phi(y||p) of a permissible family (docs/math.md "
                         f"§3); {family.describe()} is defined for 0/1 responses only")
    names = mf.design.column_names
    intercept = names.index("(Intercept)") if mf.design.has_intercept else None
    offset = mf.offset if mf.design.has_offset else None
    if control is None:
        result_fit = fit_uls(mf.X, mf.y, mf.weights, family, solver=solver, tol=tol,
                             maxiter=maxiter, intercept=intercept, offset=offset)
    else:
        result_fit = fit_irls(mf.X, mf.y, mf.weights, family, control, intercept=intercept,
                              offset=offset,
                              start_trials=mf.weights if mf.trials is None else mf.trials)
    T = working_transform(result_fit, 1.0)          # patsy's intercept column is 1
    assert result_fit.eta is not None               # an in-memory fit has its links
    cov = sandwich(working_design(mf.X, result_fit), mf.y, mf.weights, result_fit.eta, family,
                   transform=T, weight_kind=spec.weight_kind,
                   working_eta=result_fit.working_eta)
    result = LinearResult(fit=result_fit, covariance=cov,
                          separation=_separation(mf, result_fit, family),
                          formula=spec.formula, family=family, design=mf.design,
                          response=mf.response, y=mf.y, weights=mf.weights, eta=result_fit.eta,
                          index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                          na_factors=mf.na_factors, **spec.recorded(), model_matrix=mf.X,
                          offset=offset,
                          null_eta=_null_eta(mf, family, offset, tol),
                          na_action=mf.na_action, input_index=mf.input_index,
                          profiler=profile_intervals, trials=mf.trials)
    _warn_like_glm(result, on_separation, tol)
    return result


def _separation(mf, fit, family):
    """Konis's linear program (Lemma 8) when some fitted probability is numerically
    0 or 1.  A proportion row holds successes and failures: it enters as one row of
    each class (else the program would read it as neither and find separation
    that the proportions rule out)."""
    p, q = family.posterior_pair(fit.eta)
    if not (family.separation_possible and np.any(np.minimum(p, q) < SEPARATION_SYMPTOM)):
        return None
    keep = ~fit.aliased
    # the linear program reads the rows whole (dense: a rare path, when the symptom shows)
    X, y, w = np.asarray(take_columns(mf.X, keep)), mf.y, mf.weights
    both = (y > 0.0) & (y < 1.0)
    if both.any():
        X = np.vstack([X, X[both]])
        y = np.concatenate([np.where(both, 1.0, y), np.zeros(int(both.sum()))])
        w = np.concatenate([w, w[both]])
    separation = detect_separation(X, y, w)
    if not separation.separated:
        return separation
    cols = np.flatnonzero(keep)[list(separation.columns)]
    return type(separation)(separation.kind, separation.direction,
                            tuple(int(c) for c in cols), separation.n_separated)


def _null_eta(mf, family, offset, tol: float):
    """η of R's null model when there is an offset: the intercept fitted alone with
    the offset (``glm.fit``'s null deviance), or the offset itself without an
    intercept; None without an offset (the weighted mean of y, :func:`null_eta`)."""
    if offset is None:
        return None
    if not mf.design.has_intercept:
        return offset.copy()
    ones = np.ones((len(mf.y), 1))
    return fit_uls(ones, mf.y, mf.weights, family, tol=tol, offset=offset,
                   aliased=np.zeros(1, dtype=bool)).eta


def _warn_like_glm(result: LinearResult, on_separation: str, tol: float):
    sep = result.separation
    if sep is not None and sep.separated:
        names = [result.coef.index[j] for j in sep.columns]
        terms = [n for n in names if n != "(Intercept)"] or names
        msg = (f"fitted probabilities numerically 0 or 1 occurred: {sep.kind} separation by "
               f"{some_names(terms)} ({sep.n_separated} rows perfectly predicted; Lemma 8). "
               "The optimum is at infinity: the estimates are finite only because the fit "
               "stopped, and their standard errors are not meaningful.")
        if on_separation == "raise":
            raise DataError(msg)
        warn(msg, SeparationWarning)
        return
    # a saturated row (posterior exactly 0 or 1 past a bounded link's domain) is the
    # family's shape, not a symptom of separation
    p, q = result.family.posterior_pair(result.eta)
    live = ~result.family.saturated(result.eta)
    if not result.is_linear_probability_model and np.any(np.minimum(p, q)[live] < R_EPS):
        warn(EXTREME_MESSAGE, SeparationWarning)
    message = convergence_message(result.fit_info, tol)
    if message is not None:
        warn(message, ConvergenceWarning)
    concentrated = concentration_message(result)
    if concentrated is not None:
        warn(concentrated, InferenceWarning)


# ---------------------------------------------------------------------------
# learner="stumps"|"rules"|"trees": boosting weak learners
# ---------------------------------------------------------------------------
def fit_boosted(spec: FitSpec, learner: str, *, rounds: int, corrective: bool,
                strategy: str | None, literals: int, depth: int, max_bins: int, tol: float,
                max_delta: float, min_leaf: float, select: str, inner_folds: int, seed):
    """ULS with weak learner ``learner`` (paper 000 Algorithm 1 and Section 7;
    docs/math.md §4, §6) with the options :data:`BOOSTED_OPTIONS`: see
    :mod:`ubreg.fitters.boost.uls_boost`."""
    bag = spec.family if isinstance(spec.family, list) else None
    check_strategy(strategy, bag)
    mf = model_frame(spec, "uls")
    w = power_of_two_scaled(mf.weights)          # scale-free in w, and so are its sums
    binned = bin_design(mf.X, max_bins, weights=w)
    kw: dict[str, Any] = dict(
        learner=learner, rounds=int(rounds), corrective=bool(corrective), literals=int(literals),
        depth=int(depth), max_bins=max_bins, tol=tol, max_delta=max_delta, min_leaf=min_leaf,
        binned=binned)
    if strategy == "F*":
        fit = fit_fstar(mf.X, mf.y, w, bag, select=select, inner_folds=inner_folds,
                        seed=seed, **kw)
    else:
        fit = boost_uls(mf.X, mf.y, w, bag or [spec.family], strategy=strategy, **kw)
    options = dict(rounds=int(rounds), corrective=bool(corrective), literals=int(literals),
                   depth=int(depth), max_bins=max_bins, strategy=strategy, select=select)
    return ULSBoostResult(fit=fit, learner=learner, options=options, formula=spec.formula,
                          family=fit.family, design=mf.design, response=mf.response, y=mf.y,
                          weights=mf.weights, eta=fit.eta, index=mf.index, n_input=mf.n_input,
                          dropped=mf.dropped, **spec.recorded(), na_factors=mf.na_factors)


def fit_uls_on_dask(spec: FitSpec, *, learner: str, **options):
    """The Dask backend (:func:`ubreg.dask.fitter.fit_linear_dask`; the schema allows
    only ``learner="linear"`` there), imported when a Dask frame arrives."""
    from ..dask import require_dask
    require_dask()
    from ..dask.fitter import fit_linear_dask
    return fit_linear_dask(spec, **options)


METHOD = Method("uls", fit=fit_uls_method, result=LinearResult, schema=uls_schema,
                dask=fit_uls_on_dask,
                quick={"": {}, "stumps": {"learner": "stumps", "rounds": 5},
                       "rules": {"learner": "rules", "rounds": 3, "literals": 2},
                       "trees": {"learner": "trees", "rounds": 3, "depth": 2}})
