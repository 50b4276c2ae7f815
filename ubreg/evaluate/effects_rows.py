"""The rows effects are computed on: the fit's own rows and their predictors' kinds.

:func:`ubreg.emmeans`, :func:`ubreg.avg_slopes` and :func:`ubreg.avg_comparisons` read
the data a model was fitted on (kept by :func:`ubreg.fit`), on the rows the fit used, and
change one predictor at a time: a factor (categorical, text or logical column) by level,
a numeric one by a step.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .update import data_of

__all__ = ["fitted_rows", "is_factor_like", "levels_of", "predictors_of"]


def fitted_rows(model: Any) -> pd.DataFrame:
    """The rows of the data the model used (after ``subset`` and missing values)."""
    data = data_of(model)
    if not data.index.is_unique:
        raise ValueError("the data's index has duplicate labels, so the rows a model used "
                         "cannot be found again; fit on data.reset_index(drop=True)")
    return data.loc[model.index]


def is_factor_like(column: pd.Series) -> bool:
    """Whether a predictor is a factor: categorical, text or logical (R's factor and
    logical columns)."""
    return bool(isinstance(column.dtype, pd.CategoricalDtype)
                or pd.api.types.is_object_dtype(column.dtype)
                or pd.api.types.is_string_dtype(column.dtype)
                or pd.api.types.is_bool_dtype(column.dtype))


def levels_of(column: pd.Series) -> list:
    """A factor's levels in R's order, those present in the rows: the categories' order,
    sorted text (R's ``factor``), False before True."""
    present = pd.unique(column.dropna())
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [c for c in column.cat.categories if c in set(present)]
    return sorted(present)


def predictors_of(model: Any) -> list[str]:
    """The data columns the model's right-hand side reads, in the formula's order."""
    return list(model.design.variables())


def numeric_values(column: pd.Series, name: str) -> np.ndarray:
    if is_factor_like(column):
        raise ValueError(f"{name!r} is a factor: its effects are contrasts of levels "
                         "(ubreg.avg_comparisons)")
    return column.to_numpy(dtype=np.float64)
