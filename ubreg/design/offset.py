"""Offsets, as R's ``offset()`` term and ``offset=`` argument.

An offset is a known part of the linear predictor, η = xᵀβ + offset, with no
coefficient.  It is written in the formula (``y ~ x + offset(log(exposure))``;
several terms add up) or given as ``offset=``: the name of a column, an R expression
(``"0.02 * age"``), or an array with one value per row.  The offset is kept for
predict: new data must supply its variables.  An offset given as an array has no
variables, so a model fitted with one predicts the training rows only (R would
silently reuse the training values).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import DataError, FormulaError, PredictionError
from .checks import as_frame, patsy_input
from .deparse import deparse
from .rformula import Variable, _columns_read
from .rsyntax import Arg, Call, Name, parse_expression

__all__ = ["OffsetSpec", "offset_variable", "offset_array"]


def offset_variable(offset, columns) -> Variable | None:
    """The variable of an ``offset=`` given as text: a column's name, or an R
    expression of the columns (checked with the formula's variables)."""
    if not isinstance(offset, str):
        return None
    node = Name(offset, quoted=True) if offset in set(map(str, columns)) else \
        parse_expression(offset, "offset")
    call = Call("offset", (Arg(None, node),))
    known = set(map(str, columns))
    return Variable(call, deparse(call), tuple(c for c in _columns_read(node) if c in known))


def offset_array(offset) -> np.ndarray | None:
    """The values of an ``offset=`` given as an array (None otherwise)."""
    if offset is None or isinstance(offset, str):
        return None
    values = offset.to_numpy(dtype=np.float64) if isinstance(offset, pd.Series) \
        else np.asarray(offset, dtype=np.float64)
    if values.ndim != 1:
        raise DataError(f"offset must be one value per row, got an array of shape {values.shape}")
    return values


class OffsetSpec:
    """The offset of a model: its variables (learned as the formula's are), rebuilt on
    new data, and whether an array was given (which new data cannot rebuild)."""

    def __init__(self, learned: list, array_given: bool = False):
        self.learned = list(learned)
        self.array_given = bool(array_given)

    @property
    def codes(self) -> list[str]:
        """The offset expressions, as R writes them (``offset(log(age))``)."""
        return [lv.factor.label for lv in self.learned]

    @property
    def present(self) -> bool:
        return bool(self.learned) or self.array_given

    def reads(self) -> list[str]:
        return [c for lv in self.learned for c in lv.factor.reads]

    def values(self, data: pd.DataFrame, what: str = "data") -> np.ndarray:
        """The offset of every row of ``data`` (NaN where a variable is missing)."""
        n = len(data)
        total = np.zeros(n)
        if not self.learned:
            return total
        data = as_frame(data, what)
        columns = patsy_input(data, self.reads())
        for lv in self.learned:
            value = lv.value_on(columns, what, lv.factor.label)
            arr = np.asarray(value, dtype=np.float64) if isinstance(value, np.ndarray) \
                else None
            if arr is None or arr.ndim != 1:
                raise FormulaError(f"{lv.factor.label} must give one number per row")
            total = total + arr
        return total

    def for_new_data(self, data: pd.DataFrame) -> np.ndarray:
        """:meth:`values` for new data, refusing an offset given as an array."""
        if self.array_given:
            raise PredictionError("the model's offset was given as an array, which new data "
                                  "cannot supply: give it as a column name or an offset() term "
                                  "of the formula to predict on new data")
        return self.values(data, "newdata")
