"""The right-hand side of a fitted formula: :class:`Design` rebuilds its columns on new data.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import patsy
from patsy import PatsyError

from ..errors import FormulaError, PredictionError, UbregError
from .checks import (
    _as_categoricals,
    _check_finite,
    _check_numeric_columns,
    _check_real,
    _translate_patsy_error,
    as_frame,
    check_columns,
    patsy_input,
)
from .coding import INTERCEPT, check_design_size
from .coerce import check_time_zones, normalise_columns
from .na import KeepingNAAction, RecordingNAAction
from .namespace import _dumps_design_info
from .sliced import build_in_slices, row_wise

__all__ = ['Design']


def variables_of(design_info) -> list[str]:
    """The data's columns the factors of a design read."""
    names: dict[str, None] = {}
    for factor in design_info.factor_infos:
        names.update(dict.fromkeys(factor.reads))
    return list(names)


class Design:
    """The right-hand side of a fitted formula: rebuilds its columns on new data.

    Wraps patsy's DesignInfo; pickles (see :class:`_DesignPickler`).
    """

    def __init__(self, design_info, formula_rhs: str, label_levels: dict | None = None,
                 offset=None, time_zones: dict | None = None, keep_na: bool = False):
        self.design_info = design_info
        #: rows with NA predictors are kept, NaN in the columns of the terms that hold
        #: the NA (:class:`~ubreg.design.na.KeepingNAAction`): the design of a method
        #: that routes missing values (``Method.keeps_missing``)
        self.keep_na = keep_na
        #: the model's offset (:class:`~ubreg.design.offset.OffsetSpec`), rebuilt on new data
        self.offset = offset
        self.formula_rhs = formula_rhs
        self.label_levels = dict(label_levels or {})
        #: datetime column -> whether it was time-zone-aware in fitting
        self.time_zones = dict(time_zones or {})

    @property
    def column_names(self) -> list[str]:
        return list(self.design_info.column_names)

    @property
    def term_names(self) -> list[str]:
        return list(self.design_info.term_names)

    @property
    def term_slices(self) -> dict[str, slice]:
        return dict(self.design_info.term_name_slices)

    @property
    def has_intercept(self) -> bool:
        return INTERCEPT in self.design_info.column_names

    def terms_in_formula_order(self) -> list[str]:
        """The term names in R's order (``terms.formula``), which is the design's:
        the intercept, then the terms by degree, in the order the formula writes them
        within a degree."""
        return self.term_names

    def variables(self) -> list[str]:
        """The data variables the right-hand side reads."""
        return variables_of(self.design_info)

    @property
    def factor_names(self) -> list[str]:
        return sorted({f.name() for t in self.design_info.terms for f in t.factors})

    @property
    def label_columns(self) -> list[str]:
        return list(self.label_levels)

    def levels(self) -> dict[str, list]:
        """Levels of every categorical factor, as learned from training data."""
        out = {}
        for factor, info in self.design_info.factor_infos.items():
            if info.type == "categorical":
                out[factor.name()] = list(info.categories)
        return out

    def transform(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Design matrix of ``data``'s complete rows and the mask of NA rows."""
        data = as_frame(data, "newdata")
        check_columns(self.design_info, data, "newdata")
        _check_real(data, data.columns, "newdata")
        check_time_zones(data, self.time_zones, "newdata")
        data = normalise_columns(data, self.variables())
        data = _check_numeric_columns(self.design_info, data, self.label_levels, "newdata")
        data = _as_categoricals(data, self.label_levels, "newdata")
        check_design_size(len(data), len(self.column_names), "the design matrix of newdata")
        X, na = self.rows(data, "omit", predicting=True)
        mask = na.mask if na.mask is not None else np.zeros(len(data), dtype=bool)
        return X, mask

    def transform_passing_na(self, data) -> np.ndarray:
        """Design matrix of every row of ``data``, NaN in the columns of each term that
        reads a missing value (R's ``model.matrix`` of ``model.frame(na.action =
        na.pass)``; :class:`~ubreg.design.na.KeepingNAAction`)."""
        passing = copy.copy(self)
        passing.keep_na = True
        return passing.transform(data)[0]

    def rows(self, data, na_action: str, predicting: bool):
        """(design matrix of ``data``'s complete rows, the NA bookkeeping); ``data``
        already checked and its label columns coded.  Every failure is an error
        naming the formula (a PredictionError for new data)."""

        na = KeepingNAAction(na_action) if self.keep_na else RecordingNAAction(na_action)
        what = "newdata" if predicting else "data"
        try:
            data_in = patsy_input(data, self.variables())
            if na.mode != "fail" and not self.keep_na and row_wise(self.design_info, data_in):
                X, na = build_in_slices(self.design_info, data_in, len(data), na_action)
            else:
                (X,) = patsy.build_design_matrices([self.design_info], data_in, NA_action=na,
                                                   return_type="matrix")
        except PatsyError as exc:
            raise _translate_patsy_error(exc, self, predicting=predicting) from None
        except UbregError:
            raise
        except Exception as exc:  # patsy or a transform failed on the values
            error = PredictionError if predicting else FormulaError
            raise error(f"{what}: cannot evaluate the formula's right-hand side "
                        f"{self.formula_rhs!r}: {type(exc).__name__}: {exc}") from None
        X = np.asarray(X, dtype=np.float64)
        if isinstance(na, KeepingNAAction):
            X = na.blank(X, self.design_info)
        _check_finite(X, self.column_names, what, nan=self.keep_na)
        return X, na

    def __getstate__(self):
        return {"design_info": _dumps_design_info(self.design_info),
                "formula_rhs": self.formula_rhs, "label_levels": self.label_levels,
                "offset": self.offset, "time_zones": self.time_zones,
                "keep_na": self.keep_na}

    def __setstate__(self, state):
        self.design_info = pickle.loads(state["design_info"])
        self.formula_rhs = state["formula_rhs"]
        self.label_levels = state.get("label_levels", {})
        self.offset = state.get("offset")
        self.time_zones = state.get("time_zones", {})
        self.keep_na = state.get("keep_na", False)

    @property
    def has_offset(self) -> bool:
        return self.offset is not None and self.offset.present

    def offset_of(self, data) -> np.ndarray:
        """The offset of every row of new ``data`` (zeros without one; NaN where a
        variable it reads is missing)."""
        if not self.has_offset:
            return np.zeros(len(data))
        return self.offset.for_new_data(data)

    def __repr__(self):
        return f"Design({self.formula_rhs!r}, columns={self.column_names})"
