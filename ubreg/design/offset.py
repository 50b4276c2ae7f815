"""Offsets, as R's ``offset()`` term and ``offset=`` argument.

An offset is a known part of the linear predictor, η = xᵀβ + offset, with no
coefficient.  It is written in the formula (``y ~ x + offset(log(exposure))``;
several terms add up) or given as ``offset=``: the name of a column, a formula
expression (``"0.02 * age"``), or an array with one value per row.  The offset is
kept for predict: new data must supply its variables.  An offset given as an
array has no variables, so a model fitted with one predicts the training rows
only (R would silently reuse the training values).
"""
from __future__ import annotations

import pickle
import re

import numpy as np
import pandas as pd
import patsy
from patsy import EvalFactor, ModelDesc, PatsyError, Term

from ..errors import DataError, FormulaError, PredictionError
from .checks import as_frame
from .namespace import _dumps_design_info, _environment
from .safety import check_formula_code
from .terms import quoted_name, rewrite_code

__all__ = ["OffsetSpec", "split_offsets", "offset_codes"]

_OFFSET_CALL = re.compile(r"^\s*offset\s*\((.*)\)\s*$", re.S)


def split_offsets(desc: ModelDesc) -> tuple[ModelDesc, list[str]]:
    """``desc`` without its ``offset(...)`` terms, and the code inside each."""
    kept, codes = [], []
    for term in desc.rhs_termlist:
        if len(term.factors) == 1:
            m = _OFFSET_CALL.match(term.factors[0].code)
            if m:
                codes.append(m.group(1).strip())
                continue
        elif any(_OFFSET_CALL.match(f.code) for f in term.factors):
            raise FormulaError(f"offset() cannot enter an interaction ({term.name()!r})")
        kept.append(term)
    return ModelDesc(desc.lhs_termlist, kept), codes


def offset_codes(formula_codes: list[str], offset, columns) -> tuple[list[str], np.ndarray | None]:
    """The offset expressions of a fit (formula terms and ``offset=``), and the
    array given as ``offset=`` (None when none was)."""
    codes = list(formula_codes)
    if offset is None:
        return codes, None
    if isinstance(offset, str):
        codes.append(quoted_name(offset) if offset in set(map(str, columns)) else offset)
        return codes, None
    values = np.asarray(offset, dtype=np.float64) if not isinstance(offset, pd.Series) \
        else offset.to_numpy(dtype=np.float64)
    if values.ndim != 1:
        raise DataError(f"offset must be one value per row, got an array of shape {values.shape}")
    return codes, values


class OffsetSpec:
    """The offset of a model: expressions rebuilt on new data, and whether an array
    was given (which new data cannot rebuild)."""

    def __init__(self, codes: list[str], design_info=None, array_given: bool = False):
        self.codes = list(codes)
        self.design_info = design_info
        self.array_given = bool(array_given)

    @property
    def present(self) -> bool:
        return bool(self.codes) or self.array_given

    @classmethod
    def learn(cls, codes, data: pd.DataFrame, columns, trusted: bool, array_given: bool):
        """Check the expressions (the formula allowlist) and learn them on ``data``."""
        if not codes:
            return cls([], None, array_given)
        factors = []
        for code in codes:
            shown = f"offset({code})"
            code = rewrite_code(code, columns)
            if not trusted:
                check_formula_code(code, columns, n_rows=len(data), shown=shown)
            factors.append(EvalFactor(f"I({code})"))
        desc = ModelDesc([], [Term([f]) for f in factors])
        try:
            (info,) = patsy.design_matrix_builders([desc.rhs_termlist], lambda: iter([data]),
                                                   _environment())
        except PatsyError as exc:
            raise FormulaError(f"cannot evaluate the offset: {str(exc).splitlines()[0]}") from None
        return cls(codes, info, array_given)

    def values(self, data: pd.DataFrame, what: str = "data") -> np.ndarray:
        """The offset of every row of ``data`` (NaN where a variable is missing)."""
        n = len(data)
        if self.design_info is None:
            return np.zeros(n)
        data = as_frame(data, what)
        na = patsy.NAAction(on_NA="raise", NA_types=[])     # keep NaN rows: the caller drops
        try:
            (X,) = patsy.build_design_matrices([self.design_info], data, NA_action=na,
                                               return_type="matrix")
        except PatsyError as exc:
            error = PredictionError if what != "data" else FormulaError
            raise error(f"{what}: cannot evaluate the offset: {str(exc).splitlines()[0]}") from None
        return np.asarray(X, dtype=np.float64).sum(axis=1)

    def for_new_data(self, data: pd.DataFrame) -> np.ndarray:
        """:meth:`values` for new data, refusing an offset given as an array."""
        if self.array_given:
            raise PredictionError("the model's offset was given as an array, which new data "
                                  "cannot supply: give it as a column name or an offset() term "
                                  "of the formula to predict on new data")
        return self.values(data, "newdata")

    def __getstate__(self):
        return {"codes": self.codes, "array_given": self.array_given,
                "design_info": None if self.design_info is None
                else _dumps_design_info(self.design_info)}

    def __setstate__(self, state):
        self.codes = state["codes"]
        self.array_given = state["array_given"]
        info = state["design_info"]
        self.design_info = None if info is None else pickle.loads(info)
