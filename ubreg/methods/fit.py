"""``ubreg.fit``: one entry point for every method of the registry.

``fit`` validates what is common (family, weights, method name, options),
builds the :class:`~ubreg.methods.spec.FitSpec` and calls the method's
in-memory fitter, or its Dask backend for a Dask frame
(:mod:`ubreg.methods.registry`).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeAlias

import pandas as pd
from numpy.typing import ArrayLike

from ..design import checked_trusted, is_dask_frame
from ..errors import DataError, interrupt_behind
from ..families import Family, resolve_family
from .registry import METHODS
from .spec import FitSpec, Method

if TYPE_CHECKING:
    import dask.dataframe as dd

    from ..results.base import Result

#: weights: one value per row, or the name of a column
Weights: TypeAlias = "ArrayLike | str"
#: a family, its name, or a bag of them (the adaptive strategies of boosting); None: entropy
FamilyArgument: TypeAlias = "Family | str | list[Family | str] | tuple[Family | str, ...] | None"

__all__ = ["fit", "resolve_weights", "NOT_ON_DASK"]

NOT_ON_DASK = ("method {name!r} does not run on Dask frames (it needs the data in memory); "
               "{on_dask} do; call .compute() for data that fits in memory")


def _methods_on_dask() -> str:
    """The registered methods with a Dask backend, as a message names them."""
    names = [f"method={name!r}" for name, m in METHODS.items() if m.dask is not None]
    return ", ".join(names) or "no method"

def _literal(value: object) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _call_string(formula: str, family: Family | list[Family], method: str, weights: object,
                 options: dict[str, Any], family_given: bool = True,
                 weight_kind: str = "prior") -> str:
    fam = "[" + ", ".join(map(repr, family)) + "]" if isinstance(family, list) else repr(family)
    parts = [_literal(formula), "data"]
    if family_given:
        parts.append(f"family={fam}")
    parts.append(f"method={_literal(method)}")
    if weights is not None:
        name = "weights" if weight_kind == "prior" else "freq_weights"
        parts.append(f"{name}=" + (_literal(weights) if isinstance(weights, str) else "<array>"))
    parts += [f"{k}={_literal(v)}" for k, v in options.items()]
    return f"ubreg.fit({', '.join(parts)})"


def resolve_weights(weights: Weights | None,
                    freq_weights: Weights | None) -> tuple[Weights | None, str]:
    """(the weights given, "prior" or "freq"); giving both kinds is an error."""
    if weights is not None and freq_weights is not None:
        raise ValueError("give weights= (prior weights, as R's glm) or freq_weights= "
                         "(frequency weights: weight 2 = the row twice), not both")
    return (weights, "prior") if freq_weights is None else (freq_weights, "freq")



def fit(formula: str, data: pd.DataFrame | dd.DataFrame, family: FamilyArgument = None,
        method: str = "uls", weights: Weights | None = None, na_action: str = "omit",
        positive: Any = None, trusted: bool = False, freq_weights: Weights | None = None,
        subset: ArrayLike | str | None = None, offset: ArrayLike | str | None = None,
        **options: Any) -> Result:
    """Fit a classification model given as a formula.

    Parameters
    ----------
    formula : str
        An R formula, ``"y ~ x1 + x2 + factor(g)"`` (docs: the formulas page).  The
        response: 0/1, bool, or a two-level string/categorical.
    data : pandas.DataFrame
        Never modified.
    family : Family or str, optional
        The loss.  Default: entropy (gini for ``udt``, as rpart; tboost: TemperedExponential).
    method : str
        ``"uls"`` (linear separator by ULS, paper 000 Algorithm 1); other
        methods as they are registered (:data:`METHODS`).
    weights : array-like or str, optional
        R's prior weights (``glm(weights = w)``; values ≥ 0 or a column name):
        ``nobs`` and df count the rows of non-zero weight, HC0 meat Σ wᵢ² rᵢ²
        xᵢxᵢᵀ, AIC/logLik R's binomial()$aic.  gnnb/unn repeat rows by weight.
    freq_weights : array-like or str, optional
        Frequency weights (statsmodels' name): weight 2 is the row twice.
        The same fit; ``nobs`` = Σ w, df Σ w − rank, HC0 meat Σ wᵢ (yᵢ − p̂ᵢ)²
        xᵢxᵢᵀ (statsmodels' ``GLM(freq_weights=...)`` HC0, which is NaN for a
        zero weight: here such a row counts as absent).  Not with ``weights``.
    na_action : {"omit", "exclude", "fail"}
        R's: drop rows with NA in a model variable (counted in the summary);
        drop them but pad residuals and fitted values with NaN to one entry per
        input row (``"exclude"``); or refuse them.  ``"drop"`` and ``"raise"`` are
        aliases of ``"omit"`` and ``"fail"``.
    subset : array-like of bool or str, optional
        R's ``subset``: the rows to use, as booleans or an expression over the
        columns (``"age > 30"``, checked like a formula term).
    offset : str or array-like, optional
        R's ``offset``: a known part of the linear predictor, as a column name,
        an expression (``"log(exposure)"``) or one value per row; ``offset()``
        terms of the formula add to it.  Methods with a linear predictor only.
    positive : optional
        The response level modelled as y = 1; by default the second level in
        sorted order, as in R.
    trusted : bool, default False
        ``True`` lets a formula call any numpy function as ``np.<name>(...)`` besides
        ubreg's own; nothing in a formula is ever run as Python code.
    **options
        Method options, e.g. for ``uls``: ``solver`` ("corrective" or
        "coordinate"), ``tol``, ``maxiter``, ``on_separation`` ("warn" or
        "raise").  An option the method does not take raises
        :class:`~ubreg.errors.OptionError` (a ``ValueError``) naming it and
        listing the method's options.

    Returns
    -------
    Result
        For ``uls`` a :class:`~ubreg.results.linear.LinearResult`.
    """
    family_given = family is not None
    weights, weight_kind = resolve_weights(weights, freq_weights)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; available: {sorted(METHODS)}")
    entry = METHODS[method]
    families = _resolve_families(family if family_given else entry.default_family)
    on_dask = is_dask_frame(data)
    checked = entry.resolve(options, on_dask=on_dask, type_name=_type_name(data))
    call = _call_string(formula, families, method, weights, options, family_given, weight_kind)
    # what R keeps in a fit's call: the arguments (for update, drop1, step), the data by
    # reference, and fit itself, which Result.update calls (results import no method)
    arguments = dict(
        formula=formula, family=families if family_given else None, method=method,
        weights=weights if weight_kind == "prior" else None,
        freq_weights=weights if weight_kind == "freq" else None, na_action=na_action,
        positive=positive, subset=subset, offset=offset, trusted=trusted, **options)
    spec = FitSpec(formula=formula, data=data, family=families, weights=weights,
                   na_action=na_action, positive=positive, call=call,
                   trusted=checked_trusted(trusted), family_given=family_given,
                   weight_kind=weight_kind, offset=offset, subset=subset,
                   arguments=arguments, refit=fit)
    return _run(entry, on_dask, spec, checked)


def _run(entry: Method, on_dask: bool, spec: FitSpec, options: dict) -> Result:
    """The method's in-memory fitter, or its Dask backend for a Dask frame, with every
    option checked (:meth:`Method.resolve`), once the family suits the method."""
    _check_glm_only(spec.family, entry.name, options)
    backend = entry.dask_backend() if on_dask else entry.fit
    if backend is None:
        raise DataError(NOT_ON_DASK.format(name=entry.name, on_dask=_methods_on_dask()))
    try:
        return backend(spec, **options)
    except SystemError as exc:          # Ctrl-C inside a compiled kernel
        if interrupt_behind(exc) is not None:
            raise KeyboardInterrupt from None
        raise


def _type_name(data: object) -> str:
    kind = type(data)
    return f"{kind.__module__.split('.')[0]}.{kind.__qualname__}"


def _check_glm_only(families: Family | list[Family], method: str, options: dict) -> None:
    """Refuse, by name, a family that only glm fits (``Family.glm_only``: R's binomial with
    a probit, cloglog or cauchit link) given to any other method or learner, or in a bag."""
    bag = families if isinstance(families, list) else [families]
    only = [f for f in bag if f.glm_only]
    if not only:
        return
    name = only[0].describe()
    if isinstance(families, list):
        raise ValueError(f"family {name} cannot join a bag of families: only method='uls' "
                         "with learner='linear' (R's glm) fits it")
    if method != "uls" or options.get("learner", "linear") != "linear":
        learner = options.get("learner")
        given = f"method={method!r}" + (f" with learner={learner!r}" if learner else "")
        raise ValueError(f"family {name} (the binomial likelihood with a non-canonical link, "
                         f"which has no permissible φ) is fitted by method='uls' with "
                         f"learner='linear' only (R's glm), not by {given}; use a permissible "
                         "family (e.g. 'entropy') there")


def _resolve_families(family: FamilyArgument) -> Family | list[Family]:
    """One family, or a bag of them (the adaptive strategies of boosting, paper 000 §7)."""
    if not isinstance(family, (list, tuple)):
        return resolve_family(family)
    bag = [resolve_family(f) for f in family]
    if not bag:
        raise ValueError("family is an empty list")
    return bag
