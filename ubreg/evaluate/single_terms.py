"""``ubreg.drop1`` and ``ubreg.add1``: R's tables of single term deletions and additions.

Each candidate model is the model less (plus) one term, refitted on the rows
the model used, as ``drop1.glm`` and ``add1.glm`` refit columns of the model
matrix: a factor is dropped or added as a whole term, and R's marginality
holds (``drop.scope``: a main effect inside an interaction is not dropped;
``add.scope``: an interaction is not added before its main effects;
:mod:`ubreg.design.update`).  ``add1`` refits every model, ``<none>``
included, on the rows complete in all the terms of its scope, warning when
those are fewer than the model's, as R does (``"using the 532/724 rows from a
combined fit"``); the AIC column stays anchored at the model's own AIC.

``AIC`` is R's ``deviance + k × parameters``, shifted so that the ``<none>`` row
is ``extractAIC(fit, k = k)``; ``LRT`` the deviance change and ``Pr(>Chi)`` its
χ² p-value.  These three need a likelihood (``entropy``): for another family
the tables give ``Df`` and ``Deviance`` only, and say why (docs/math.md §3).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..design import build_model_frame
from ..design.update import ModelTerms, add_scope, drop_scope, model_terms, update_formula
from ..errors import FormulaError
from ..numerics.warnings import warn
from .deviance_table import (
    DevianceTable,
    aic_shift,
    check_test,
    chisq_pvalues,
    deviance_of,
    is_likelihood,
    likelihood_notes,
)
from .update import check_refittable, data_of, refit_on_rows, rows_mask, terms_of

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["drop1", "add1", "single_term_fits", "single_term_table"]


def _keys_of(labels: Iterable[str]) -> list:
    keys = []
    for label in labels:
        read = model_terms(f"~ {label}")
        if len(read.variables) != 1:
            raise FormulaError(f"{label!r} is not one term")
        keys.append(read.variables[0])
    return keys


def _scope_terms(terms: ModelTerms, scope: str | Sequence[str],
                 columns: Iterable[str]) -> tuple[list, list]:
    """(labels, variables) of a scope given as a formula (``"~ . + z"``, read against
    the model's formula as R's ``update.formula(object, scope)``) or as term labels."""
    if isinstance(scope, str) and "~" in scope:
        read = model_terms(update_formula(terms.formula(), scope, columns))
        return list(read.labels), list(read.variables)
    labels = [scope] if isinstance(scope, str) else list(scope)
    return labels, _keys_of(labels)


def _drop_candidates(terms: ModelTerms, scope: str | Sequence[str] | None,
                     columns: Iterable[str]) -> list[str]:
    if scope is None:
        return drop_scope(terms)
    labels, keys = _scope_terms(terms, scope, columns)
    missing = [lab for lab, key in zip(labels, keys) if key not in terms.variables]
    if missing:
        raise FormulaError(f"drop1: the scope's terms {missing} are not terms of the model "
                           f"{terms.formula()!r} (R: scope is not a subset of term labels)")
    return [terms.labels[terms.variables.index(key)] for key in keys]


def _add_candidates(terms: ModelTerms, scope: str | Sequence[str],
                    columns: Iterable[str]) -> tuple[list, list]:
    if isinstance(scope, str) and "~" in scope:
        upper = model_terms(update_formula(terms.formula(), scope, columns))
        labels = add_scope(terms, upper)
        return labels, [upper.key(lab) for lab in labels]
    labels, keys = _scope_terms(terms, scope, columns)
    new = [(lab, key) for lab, key in zip(labels, keys) if key not in terms.variables]
    return [lab for lab, _ in new], [key for _, key in new]


def _combined_rows(model: LinearResult, formula: str, mask: np.ndarray) -> np.ndarray:
    """The rows of ``mask`` complete in every variable of ``formula`` (R's model
    frame of the model with all of ``add1``'s scope)."""
    args = model.fit_arguments
    assert args is not None                 # check_refittable: made by ubreg.fit
    weights = args.get("weights")
    if weights is None:
        weights = args.get("freq_weights")
    frame = build_model_frame(formula, data_of(model), weights=weights, subset=mask,
                              proportions=True, trusted=args.get("trusted", False))
    return data_of(model).index.isin(frame.index)


def single_term_fits(model: LinearResult, direction: str, scope: str | Sequence[str] | None = None
                     ) -> tuple[LinearResult, list[str], list[LinearResult]]:
    """The ``<none>`` fit, the candidate labels and their fits of ``drop1``
    (``direction="drop"``) or ``add1`` (``"add"``), on R's rows."""
    check_refittable(model, "drop1" if direction == "drop" else "add1")
    terms, columns, mask = terms_of(model), data_of(model).columns, rows_mask(model)
    if direction == "drop":
        labels = _drop_candidates(terms, scope, columns)
        fits = [refit_on_rows(model, terms.formula([t for t in terms.labels if t != lab]),
                              mask, f"drop1, - {lab}") for lab in labels]
        return model, labels, fits
    if scope is None:
        raise ValueError("add1 needs a scope: the terms to add, e.g. '~ . + pressure'")
    labels, keys = _add_candidates(terms, scope, columns)
    if not labels:
        raise ValueError("add1: no terms in scope for adding to the model")
    every = terms.with_labels([*terms.labels, *labels], [*terms.variables, *keys])
    rows = _combined_rows(model, every.formula(), mask)
    base = model
    if rows.sum() < mask.sum():
        warn(f"using the {rows.sum()}/{mask.sum()} rows from a combined fit")
        base = refit_on_rows(model, terms.formula(), rows, "add1, <none>")
    fits = [refit_on_rows(model, terms.with_labels([*terms.labels, lab],
                                                   [*terms.variables, key]).formula(),
                          rows, f"add1, + {lab}") for lab, key in zip(labels, keys)]
    return base, labels, fits


def single_term_table(model: LinearResult, base: LinearResult, labels: Sequence[str],
                      fits: Sequence[LinearResult], direction: str, test: str | None,
                      k: float) -> DevianceTable:
    """The table of :func:`drop1` or :func:`add1` from the fits of :func:`single_term_fits`."""
    want_test = check_test(test)
    dfs = np.array([base.df_model] + [f.df_model for f in fits], float)
    dev = np.array([deviance_of(base)] + [deviance_of(f) for f in fits], float)
    change = dfs[0] - dfs if direction == "drop" else dfs - dfs[0]
    change[0] = np.nan
    table = pd.DataFrame({"Df": change, "Deviance": dev}, index=["<none>", *labels])
    likelihood = is_likelihood(model)
    if likelihood:
        anchor = deviance_of(model) + k * model.df_model + aic_shift(model, k)
        table["AIC"] = dev + k * dfs + (anchor - dev[0] - k * dfs[0])
        if want_test:
            lrt = np.maximum(0.0, dev - dev[0] if direction == "drop" else dev[0] - dev)
            lrt[0] = np.nan
            table["LRT"] = lrt
            table["Pr(>Chi)"] = chisq_pvalues(lrt, change)
    what = "deletions" if direction == "drop" else "additions"
    heading = [f"Single term {what}", "", "Model:", terms_of(model).formula()]
    notes = likelihood_notes(model)
    return DevianceTable(table, heading, notes)


def drop1(model: LinearResult, scope: str | Sequence[str] | None = None, test: str | None = None,
          k: float = 2.0) -> DevianceTable:
    """R's ``drop1(fit, scope, test = "Chisq", k = 2)``: the model less each term.

    Parameters
    ----------
    model : LinearResult
        A linear fit made by :func:`ubreg.fit`, its data at hand.
    scope : str or list of str, optional
        The terms to consider: by default every term R's marginality allows
        (``drop.scope``); a formula (``"~ age + mass"``) or term labels.
    test : {None, "Chisq", "LRT"}
        Add ``LRT`` and ``Pr(>Chi)`` (likelihood fits only).
    k : float
        The AIC's penalty per parameter (``log(n)`` for BIC).

    Returns
    -------
    DevianceTable
        Rows ``<none>`` and each term; columns ``Df``, ``Deviance``, and for a
        likelihood fit ``AIC`` (and ``LRT``, ``Pr(>Chi)``).
    """
    base, labels, fits = single_term_fits(model, "drop", scope)
    return single_term_table(model, base, labels, fits, "drop", test, k)


def add1(model: LinearResult, scope: str | Sequence[str], test: str | None = None,
         k: float = 2.0) -> DevianceTable:
    """R's ``add1(fit, scope, test = "Chisq", k = 2)``: the model plus each term.

    Parameters
    ----------
    model : LinearResult
        A linear fit made by :func:`ubreg.fit`, its data at hand.
    scope : str or list of str
        A formula read against the model's (``"~ . + pressure + pregnant"``;
        R's ``add.scope`` of ``update.formula(fit, scope)``), or term labels.
    test : {None, "Chisq", "LRT"}
        Add ``LRT`` and ``Pr(>Chi)`` (likelihood fits only).
    k : float
        The AIC's penalty per parameter.

    Returns
    -------
    DevianceTable
        Rows ``<none>`` and each term; columns as :func:`drop1`'s.
    """
    base, labels, fits = single_term_fits(model, "add", scope)
    return single_term_table(model, base, labels, fits, "add", test, k)
