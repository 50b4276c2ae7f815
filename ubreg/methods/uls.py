"""Method ``uls``: ULS (paper 000 Algorithm 1, docs/math.md §4).

``learner="linear"`` (the default) fits a linear separator over the design
columns with glm-grade inference; ``learner="stumps"|"rules"|"trees"`` boosts
weak learners (paper 000 §7), with a bag of families and an adaptive strategy
when ``family`` is a list.  On a Dask frame the linear fit runs partition by
partition (:mod:`ubreg.dask`).
"""
from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from ..errors import ConvergenceWarning, DataError, InferenceWarning, SeparationWarning
from ..fitters.boost.adaptive import fit_fstar
from ..fitters.boost.leverage import MAX_DELTA
from ..fitters.boost.uls_boost import boost_uls, check_options
from ..fitters.profile import profile_intervals
from ..fitters.uls import (
    EXTREME_MESSAGE,
    convergence_message,
    fit_uls,
    working_design,
    working_transform,
)
from ..learners.binning import bin_design
from ..numerics import options as opt
from ..numerics.factor_matrix import take_columns
from ..numerics.separation import R_EPS, SEPARATION_SYMPTOM, detect_separation
from ..numerics.warnings import warn
from ..numerics.weights import power_of_two_scaled
from ..results.boost import ULSBoostResult
from ..results.inference import sandwich
from ..results.linear import LinearResult, concentration_message
from .spec import FitSpec, Method, method_options, model_frame, option_defaults

__all__ = ["fit_uls_method", "fit_linear", "fit_boosted", "LEARNERS", "METHOD"]


def fit_uls_method(spec: FitSpec, *, learner: str = "linear", **options):
    """ULS (paper 000 Algorithm 1): over the design columns (``learner="linear"``)
    or over the weak learners of :data:`LEARNERS`."""
    if not isinstance(learner, str) or learner not in LEARNERS:
        raise ValueError(f"unknown learner {learner!r} for method 'uls'; available: "
                         f"{sorted(LEARNERS)}")
    return LEARNERS[learner](spec, **options)


def _learner_of(options: dict):
    learner = options.get("learner", "linear")
    return LEARNERS.get(learner) if isinstance(learner, str) else None


def _uls_options(options: dict) -> tuple[str, list | None]:
    """What :func:`ubreg.fit` checks options against: the chosen learner's options."""
    func = _learner_of(options)
    if func is None:
        return "'uls'", None                 # fit_uls_method names the unknown learner
    learner = options.get("learner", "linear")
    label = "'uls'" if learner == "linear" else f"'uls' with learner={learner!r}"
    names = method_options(func)
    return label, None if names is None else ["learner", *names]


def _uls_defaults(options: dict) -> dict:
    func = _learner_of(options)
    return {"learner": "linear", **(option_defaults(func) if func is not None else {})}


def fit_linear(spec: FitSpec, *, solver: str = "corrective", tol: float = 1e-10,
               maxiter: int | None = None, on_separation: str = "warn") -> LinearResult:
    """ULS over the design columns (paper 000 Algorithm 1, docs/math.md §4)."""
    if isinstance(spec.family, list):
        raise ValueError("a bag of families (family=[...]) needs weak learners: "
                         "learner='stumps', 'rules' or 'trees'")
    if on_separation not in ("warn", "raise"):
        raise ValueError(f"on_separation must be 'warn' or 'raise', got {on_separation!r}")
    tol = opt.real(tol, "tol", 0.0, 1.0, open_low=True, open_high=True)
    if maxiter is not None:           # 0 iterations returned zero coefficients
        maxiter = opt.whole(maxiter, "maxiter", 1, opt.MAX_ROUNDS)
    # a factor's main effect kept as its codes: the design takes the memory of its
    # other columns only (ubreg.numerics.factor_matrix)
    mf = model_frame(spec, "uls", offset=True, proportions=True, factor_codes=True,
                     square=True)
    family = spec.family
    if mf.response.kind == "proportion" and not family.is_permissible:
        raise ValueError(f"response {mf.response.name!r} holds proportions, whose loss is the "
                         "Bregman divergence D_phi(y||p) of a permissible family (docs/math.md "
                         f"§3); {family.describe()} is defined for 0/1 responses only")
    names = mf.design.column_names
    intercept = names.index("(Intercept)") if mf.design.has_intercept else None
    offset = mf.offset if mf.design.has_offset else None
    result_fit = fit_uls(mf.X, mf.y, mf.weights, family, solver=solver, tol=tol, maxiter=maxiter,
                         intercept=intercept, offset=offset)
    T = working_transform(result_fit, 1.0)          # patsy's intercept column is 1
    assert result_fit.eta is not None               # an in-memory fit has its links
    cov = sandwich(working_design(mf.X, result_fit), mf.y, mf.weights, result_fit.eta, family,
                   transform=T, weight_kind=spec.weight_kind)
    result = LinearResult(fit=result_fit, covariance=cov,
                          separation=_separation(mf, result_fit, family),
                          formula=spec.formula, family=family, design=mf.design,
                          response=mf.response, y=mf.y, weights=mf.weights, eta=result_fit.eta,
                          index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                          call=spec.call, na_factors=mf.na_factors,
                          weight_kind=spec.weight_kind, model_matrix=mf.X, offset=offset,
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
               f"{', '.join(terms)} ({sep.n_separated} rows perfectly predicted; Lemma 8). "
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
def fit_boosted(spec: FitSpec, learner: str, *, rounds: int = 100, corrective: bool = False,
               strategy: str | None = None, literals: int = 2, depth: int = 2,
               max_bins: int = 255, tol: float = 1e-10, max_delta: float = MAX_DELTA,
               min_leaf: float = 1.0, select: str = "train", inner_folds: int = 5,
               seed=None):
    """ULS with weak learner ``learner`` (paper 000 Algorithm 1 and Section 7;
    docs/math.md §4, §6): see :mod:`ubreg.fitters.boost.uls_boost`."""
    bag = spec.family if isinstance(spec.family, list) else None
    check_options(rounds, literals, depth, max_bins, strategy, bag)
    tol = opt.real(tol, "tol", 0.0, 1.0, open_low=True, open_high=True)
    max_delta = opt.real(max_delta, "max_delta", 0.0, math.inf, open_low=True)
    min_leaf = opt.real(min_leaf, "min_leaf", 0.0, math.inf)
    corrective = opt.flag(corrective, "corrective")
    select = opt.choice(select, "select", ("train", "cv"))
    inner_folds = opt.whole(inner_folds, "inner_folds", 2, 1000)
    seed = opt.seed(seed)
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
                          dropped=mf.dropped, call=spec.call, na_factors=mf.na_factors)


def _boosted(name: str):
    def method(spec: FitSpec, **options):
        return fit_boosted(spec, name, **options)
    method.__name__ = f"fit_uls_{name}"
    method.__doc__ = f"ULS with weak learner {name!r} (:func:`fit_boosted`)."
    # the options ubreg.fit checks against: fit_boosted's, without spec and learner
    params = list(inspect.signature(fit_boosted).parameters.values())
    # inspect.signature reads __signature__, which typeshed does not declare on functions
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [params[0], *params[2:]])
    return method


#: the learners of method "uls": the design columns, or weak learners
LEARNERS = {"linear": fit_linear, "stumps": _boosted("stumps"), "rules": _boosted("rules"),
            "trees": _boosted("trees")}

METHOD = Method("uls", fit=fit_uls_method, result=LinearResult, options=_uls_options,
                defaults=_uls_defaults, dask="ubreg.dask:fit_dask", dask_options=("persist",),
                quick={"": {}, "stumps": {"learner": "stumps", "rounds": 5},
                       "rules": {"learner": "rules", "rounds": 3, "literals": 2},
                       "trees": {"learner": "trees", "rounds": 3, "depth": 2}})
