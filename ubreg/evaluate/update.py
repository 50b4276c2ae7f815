"""``ubreg.update``: R's ``update``, and refits on the rows a model used.

``update(m, ". ~ . - age")`` refits ``m`` through the call it recorded
(:meth:`~ubreg.results.base.Result.update`).  :func:`refit_on_rows` is what
``anova``, ``drop1``, ``add1`` and ``step`` build on: the model refitted with
another formula on exactly the rows it used, as R refits the columns of a
model's own model matrix (``anova.glm``, ``drop1.glm``) — a term's missing
values elsewhere in the data cannot change the rows.
"""
from __future__ import annotations

from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

from ..design import expand_dot, is_dask_frame
from ..design.update import ModelTerms, model_terms
from ..numerics.warnings import record_warnings, reissue_warnings
from ..results.base import BinaryResult, Result, capabilities_of

#: a result refitted through its call (another formula, other rows) keeps its class
ResultT = TypeVar("ResultT", bound=BinaryResult)

__all__ = ["update", "refit_on_rows", "terms_of", "rows_mask", "check_refittable", "data_of"]


def update(model: Result, formula: str | None = None, **changes: Any) -> Result:
    """Refit ``model`` with a changed formula or arguments: R's ``update``.

    Parameters
    ----------
    model : Result
        A model made by :func:`ubreg.fit`.
    formula : str, optional
        R's formula update: ``". ~ . - age"``, ``"log(.) ~ ."``, ``"~ . + z"``
        (a ``.`` is the old side; :func:`~ubreg.design.update.update_formula`).
    **changes
        Arguments of :func:`ubreg.fit` to change, ``data=`` included (required
        after unpickling: a pickle does not keep the data).

    Returns
    -------
    Result

    Examples
    --------
    >>> small = ubreg.update(m, ". ~ . - age")                           # doctest: +SKIP
    >>> other = ubreg.update(m, data=d[d.age > 25], family="entropy")    # doctest: +SKIP
    """
    if not isinstance(model, Result):
        raise TypeError(f"update refits a model made by ubreg.fit; {type(model).__name__} "
                        "is not a ubreg result")
    return model.update(formula, **changes)


def check_refittable(model: object, what: str) -> None:
    """Refuse a model ``what`` (``"drop1"``, ...) cannot refit: not a linear fit
    with a deviance, or not made by ``ubreg.fit``, or without its data."""
    caps = capabilities_of(model)
    if not (isinstance(model, Result) and caps.has_coefficients and caps.has_deviance):
        raise TypeError(f"{what} refits linear models (results with coefficients and a "
                        f"deviance); got a {type(model).__name__}")
    if model.fit_arguments is None:
        raise TypeError(f"{what}: this {type(model).__name__} was not made by ubreg.fit, so "
                        "it cannot be refitted")
    if is_dask_frame(data_of(model)):
        raise TypeError(f"{what} refits in memory; the model was fitted on a Dask frame")


def data_of(model: Result) -> pd.DataFrame:
    """The data ``model`` was fitted on (kept by reference by ``ubreg.fit``)."""
    data = None if model.provenance is None else model.provenance.data
    if data is None:
        raise ValueError("the data this model was fitted on are not kept in a pickle; refit "
                         "it first (m = m.update(data=...))")
    return data


def terms_of(model: Result) -> ModelTerms:
    """The model's terms as R's ``terms(fit)``: a ``.`` read as the data's columns."""
    return model_terms(_expanded_formula(model))


def _expanded_formula(model: Result) -> str:
    return expand_dot(model.formula, data_of(model).columns)


def rows_mask(model: BinaryResult) -> np.ndarray:
    """Which rows of the model's data it used (its complete rows, in its subset)."""
    index = data_of(model).index
    if not index.is_unique:
        raise ValueError("the data's index has duplicate labels, so the rows a model used "
                         "cannot be found again; fit on data.reset_index(drop=True)")
    return index.isin(model.index)


def refit_on_rows(model: ResultT, formula: str, mask: np.ndarray | None = None,
                  unit: str = "") -> ResultT:
    """``model`` refitted with ``formula`` on the rows it used (or on ``mask``):
    every other argument of its call kept.  Its warnings are re-issued once each,
    named after ``unit`` (``"drop1, - age"``), as the warnings policy has it."""
    if mask is None:
        mask = rows_mask(model)
    with record_warnings() as caught:
        refit = model.update(formula, subset=mask)
    reissue_warnings(caught, unit or formula)
    return cast(ResultT, refit)     # the same call with another formula: the same class
