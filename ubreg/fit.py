"""``ubreg.fit``: one entry point, one registry of methods.

A method is a function ``(spec: FitSpec, **options) -> Result``.  Methods
register themselves with :func:`register_method`; ``fit`` validates what is
common (family, method name, options) and dispatches.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .errors import ConvergenceWarning, SeparationWarning
from .families import resolve_family
from .families.base import Family
from .fitters.uls import fit_uls
from .formula import build_model_frame
from .inference import sandwich
from .results.linear import LinearResult
from .separation import detect_separation

__all__ = ["fit", "register_method", "METHODS", "ULS_LEARNERS", "FitSpec"]

#: fitting methods by name
METHODS: dict[str, Callable] = {}

#: weak learners of method "uls" besides the design columns ("linear"), by name;
#: each is a function (spec: FitSpec, **options) -> Result registered by its module
ULS_LEARNERS: dict[str, Callable] = {}


@dataclass(frozen=True)
class FitSpec:
    """What every method receives: the model as the user wrote it."""

    formula: str
    data: object
    family: Family  # or a list of families (a bag), for methods that accept one
    weights: object
    na_action: str
    positive: object
    call: str


def register_method(name: str):
    """Decorator adding a fitting method to :data:`METHODS`."""
    def deco(func):
        METHODS[name] = func
        return func
    return deco


def _literal(value) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _call_string(formula, family, method, weights, options) -> str:
    fam = "[" + ", ".join(map(repr, family)) + "]" if isinstance(family, list) else repr(family)
    parts = [_literal(formula), "data", f"family={fam}", f"method={_literal(method)}"]
    if weights is not None:
        parts.append("weights=" + (_literal(weights) if isinstance(weights, str) else "<array>"))
    parts += [f"{k}={_literal(v)}" for k, v in options.items()]
    return f"ubreg.fit({', '.join(parts)})"


def fit(formula: str, data, family=None, method: str = "uls", weights=None,
        na_action: str = "drop", positive=None, **options):
    """Fit a classification model given as a formula.

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + x2 + C(g)"`` (patsy syntax).  The response must have two
        classes: 0/1, bool, or a two-level string/categorical.
    data : pandas.DataFrame
        Never modified.
    family : Family or str, default ``Permissible("entropy")``
        The loss; any permissible family, or ``Exponential()``.
    method : str
        ``"uls"`` (linear separator by ULS, paper 000 Algorithm 1); other
        methods as they are registered (:data:`METHODS`).
    weights : array-like or str, optional
        Frequency weights (a row of weight 2 counts as two identical rows),
        or the name of a column holding them.
    na_action : {"drop", "raise"}
        Drop rows with NA in a model variable (counted in the summary), or
        refuse them.
    positive : optional
        The response level modelled as y = 1; by default the second level in
        sorted order, as in R.
    **options
        Method options, e.g. for ``uls``: ``solver`` ("corrective" or
        "coordinate"), ``tol``, ``maxiter``, ``on_separation`` ("warn" or
        "raise").

    Returns
    -------
    Result
        For ``uls`` a :class:`~ubreg.results.linear.LinearResult`.
    """
    if isinstance(family, (list, tuple)):
        # a bag of families, for the adaptive strategies of boosting (paper 000 §7)
        family = [resolve_family(f) for f in family]
        if not family:
            raise ValueError("family is an empty list")
    else:
        family = resolve_family(family)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; available: {sorted(METHODS)}")
    call = _call_string(formula, family, method, weights, options)
    spec = FitSpec(formula=formula, data=data, family=family, weights=weights,
                   na_action=na_action, positive=positive, call=call)
    return METHODS[method](spec, **options)


# ---------------------------------------------------------------------------
# method "uls": a linear separator over the design columns
# ---------------------------------------------------------------------------
_SEPARATION_SYMPTOM = 1e-8   # a fitted probability this close to 0 or 1 triggers the check
_R_EPS = 10 * np.finfo(float).eps


def _separation_possible(family: Family) -> bool:
    lo, hi = getattr(family, "link_domain", (-np.inf, np.inf))
    return not getattr(family, "extends_past_domain", False) and np.isinf(lo) and np.isinf(hi)


@register_method("uls")
def fit_uls_method(spec: FitSpec, *, learner: str = "linear", **options):
    """ULS (paper 000 Algorithm 1): over the design columns (``learner="linear"``)
    or over weak learners registered in :data:`ULS_LEARNERS`."""
    if learner == "linear":
        return fit_linear(spec, **options)
    if learner not in ULS_LEARNERS:
        raise ValueError(f"unknown learner {learner!r} for method 'uls'; available: "
                         f"{sorted(['linear', *ULS_LEARNERS])}")
    return ULS_LEARNERS[learner](spec, **options)


def fit_linear(spec: FitSpec, *, solver: str = "corrective", tol: float = 1e-10,
               maxiter: int | None = None, on_separation: str = "warn") -> LinearResult:
    """ULS over the design columns (paper 000 Algorithm 1, MATH.md §4)."""
    if isinstance(spec.family, list):
        raise ValueError("a bag of families (family=[...]) needs weak learners: "
                         "learner='stumps', 'rules' or 'trees'")
    if on_separation not in ("warn", "raise"):
        raise ValueError(f"on_separation must be 'warn' or 'raise', got {on_separation!r}")
    mf = build_model_frame(spec.formula, spec.data, weights=spec.weights,
                           na_action=spec.na_action, positive=spec.positive)
    family = spec.family
    result_fit = fit_uls(mf.X, mf.y, mf.weights, family, solver=solver, tol=tol, maxiter=maxiter)
    keep = ~result_fit.aliased
    Xk = mf.X if keep.all() else mf.X[:, keep]
    cov = sandwich(Xk, mf.y, mf.weights, result_fit.eta, family)
    separation = None
    p, q = family.posterior_pair(result_fit.eta)
    extreme = np.minimum(p, q)
    if _separation_possible(family) and np.any(extreme < _SEPARATION_SYMPTOM):
        separation = detect_separation(Xk, mf.y, mf.weights)
        if separation.separated:
            cols = np.flatnonzero(keep)[list(separation.columns)]
            separation = type(separation)(separation.kind, separation.direction,
                                          tuple(int(c) for c in cols), separation.n_separated)
    result = LinearResult(fit=result_fit, covariance=cov, separation=separation,
                          formula=spec.formula, family=family, design=mf.design,
                          response=mf.response, y=mf.y, weights=mf.weights, eta=result_fit.eta,
                          index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                          call=spec.call, na_factors=mf.na_factors)
    _warn_like_glm(result, on_separation, tol)
    return result


def _warn_like_glm(result: LinearResult, on_separation: str, tol: float):
    sep = result.separation
    if sep is not None and sep.separated:
        names = [result.coef.index[j] for j in sep.columns]
        terms = [n for n in names if n != "Intercept"] or names
        msg = (f"fitted probabilities numerically 0 or 1 occurred: {sep.kind} separation by "
               f"{', '.join(terms)} ({sep.n_separated} rows perfectly predicted; Lemma 8). "
               "The optimum is at infinity: the estimates are finite only because the fit "
               "stopped, and their standard errors are not meaningful.")
        if on_separation == "raise":
            from .errors import DataError
            raise DataError(msg)
        warnings.warn(msg, SeparationWarning, stacklevel=4)
        return
    p, q = result.family.posterior_pair(result.eta)
    if not result.is_linear_probability_model and (np.any(p < _R_EPS) or np.any(q < _R_EPS)):
        warnings.warn("fitted probabilities numerically 0 or 1 occurred", SeparationWarning,
                      stacklevel=4)
    if not result.fit_info.converged:
        why = ("the line search could not decrease the risk" if result.fit_info.stalled
               else f"after {result.iterations} iterations")
        warnings.warn(f"ULS did not converge: max |edge| {result.fit_info.max_edge:.3g} > tol "
                      f"{tol:g} ({why})", ConvergenceWarning, stacklevel=4)
