"""Raw predictor columns, for methods that split on variables (trees).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ..errors import DataError, FormulaError, PredictionError
from .checks import (
    _as_categoricals,
    _check_numeric_columns,
    _check_real,
    as_frame,
    check_columns,
    patsy_input,
)
from .coerce import check_time_zones, normalise_columns
from .prepare import prepare
from .response import Response, _check_weighted_classes, code_classes
from .rfactor import _as_factor, _codes_among
from .values import Factor, Logical

__all__ = ['RawColumn', 'RawDesign', 'RawFrame', 'build_raw_frame', 'raw_design_of']


@dataclass
class RawColumn:
    """One predictor as a tree sees it: numeric values or categorical codes.

    ``values`` is float64 with NaN for missing (numeric) or int64 codes
    0..L−1 with −1 for missing (categorical, ``levels`` names the codes).
    """

    name: str
    kind: str  # "numeric" or "categorical"
    values: np.ndarray
    levels: list | None = None


class RawDesign:
    """Rebuilds a formula's predictors as raw columns, one per term.

    Every right-hand term must be a single variable (``x``, ``log(x)``, ``factor(g)``);
    interactions have no meaning for a tree and are refused.  A factor keeps its
    levels (no dummy coding), a numeric variable its values (a basis such as
    ``poly(x, 2)`` its columns, ``poly(x, 2)1`` and ``poly(x, 2)2``); NA stays NA
    (the method decides what to do with it).
    """

    def __init__(self, learned: list, formula_rhs: str, label_levels: dict,
                 time_zones: dict | None = None):
        self.learned = list(learned)
        self.formula_rhs = formula_rhs
        self.label_levels = dict(label_levels)
        self.time_zones = dict(time_zones or {})

    @property
    def names(self) -> list[str]:
        return [lv.factor.label for lv in self.learned]

    @property
    def design_info(self):
        """What the column checks read of a design: each factor and its kind."""
        return SimpleNamespace(factor_infos={lv.factor: lv.info() for lv in self.learned})

    def variables(self) -> list[str]:
        return list(dict.fromkeys(c for lv in self.learned for c in lv.factor.reads))

    def columns(self, data, what="data") -> list[RawColumn]:
        data = as_frame(data, what)
        predicting = what != "data"
        check_columns(self.design_info, data, what)
        if predicting:
            check_time_zones(data, getattr(self, "time_zones", {}), what)
        data = normalise_columns(data, self.variables())
        if predicting:
            data = _check_numeric_columns(self.design_info, data, self.label_levels, what)
        data = _as_categoricals(data, self.label_levels, what)
        values = patsy_input(data, self.variables())
        out: list[RawColumn] = []
        for lv in self.learned:
            value = lv.value_on(values, what, repr(lv.factor.label))
            out += _raw_columns(lv, value, len(data))
        for col in out:
            if col.kind == "numeric" and np.isinf(col.values).any():
                raise DataError(f"{what}: infinite values in {col.name!r} "
                                f"({int(np.isinf(col.values).sum())} rows)")
        return out


def _raw_columns(lv, value, n: int) -> list[RawColumn]:
    label = lv.factor.label
    if isinstance(value, (Factor, Logical)):
        factor = _as_factor(value)
        codes = _codes_among(factor, lv.state["levels"])
        unknown = (codes < 0) & (factor.codes >= 0)
        if unknown.any():
            new = sorted({factor.labels[c] for c in factor.codes[unknown]})[:5]
            raise PredictionError(f"factor {label!r} has new level(s) {new} not seen in "
                                  f"fitting (levels: {list(lv.state['labels'])})")
        return [RawColumn(label, "categorical", np.asarray(codes, np.int64),
                          list(lv.state["labels"]))]
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        raise FormulaError(f"{label!r} gives a single value, not one per row")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        return [RawColumn(label, "numeric", arr)]
    return [RawColumn(f"{label}{j + 1}", "numeric", arr[:, j]) for j in range(arr.shape[1])]


@dataclass
class RawFrame:
    """Raw predictor columns, 0/1 response and weights of the rows used."""

    columns: list
    y: np.ndarray
    weights: np.ndarray
    design: RawDesign
    response: Response
    index: pd.Index
    n_input: int
    dropped: pd.Index
    na_counts: dict

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)


def refuse_interactions(parsed) -> None:
    """Trees take single variables: an interaction term is refused."""
    for term, label in zip(parsed.terms, parsed.term_labels):
        if len(term) > 1:
            raise FormulaError(f"term {label!r}: interactions are not supported by this "
                               "method (a tree finds interactions itself)")


def raw_design_of(parsed, learned: dict, label_levels: dict,
                  time_zones: dict | None = None) -> RawDesign:
    """The raw design of the formula's terms (each one variable)."""
    refuse_interactions(parsed)
    order = [parsed.variables[term[0]].label for term in parsed.terms]
    design = RawDesign([learned[label] for label in order], parsed.rhs_text, label_levels,
                       time_zones)
    if not design.names:
        raise FormulaError(f"formula {parsed.text!r} has no predictors on the right-hand side")
    return design


def build_raw_frame(formula: str, data, weights=None, na_action: str = "omit",
                    positive=None, trusted: bool = False, subset=None,
                    response: str = "binary") -> RawFrame:
    """Like :func:`build_model_frame`, but predictors stay raw columns.

    Rows with NA in the response are dropped (counted).  NA in predictors is
    kept for the method to handle, or refused with ``na_action="fail"``.  Trees
    take no offset.  ``response``: ``"binary"`` (two classes), or ``"auto"``: more
    than two classes are coded 0..K−1 (:func:`code_response_multiclass`).
    """
    from .frame import learn_model_frame

    prep = prepare(formula, data, weights, na_action, trusted, None, subset)
    if prep.offsets:
        raise FormulaError(f"formula {prep.formula!r}: offset() has no meaning for this method "
                           "(a tree has no linear predictor)")
    data, parsed = prep.data, prep.parsed
    name, yvals, y_na = prep.response_name, prep.response_values, prep.response_na
    refuse_interactions(parsed)
    if y_na.all():
        raise DataError(f"no rows left: the response {name!r} is NA in all {len(data)} rows")
    frame, label_levels, learned, _, _ = learn_model_frame(prep, complete_cases=False,
                                                           square=False)
    design = raw_design_of(parsed, learned, label_levels, prep.time_zones)
    keep = ~y_na
    columns = design.columns(data.loc[keep] if not keep.all() else data)
    na_counts = {}
    for col in columns:
        k = int(np.sum(col.values < 0) if col.kind == "categorical" else np.isnan(col.values).sum())
        if k:
            na_counts[col.name] = k
    if na_counts and prep.na_action == "fail":
        detail = ", ".join(f"{n!r} ({k} rows)" for n, k in na_counts.items())
        raise DataError(f"missing values (NA) in {detail} and na_action='fail'")
    y, coded = code_classes(yvals[keep], name, positive,
                            response="binary" if prep.grouped else response,
                            grouped=prep.grouped)
    w = np.ones(len(y)) if prep.weights is None else prep.weights[keep]
    if not (w > 0).any():
        raise DataError("weights are all zero on the rows used")
    if coded.kind != "multiclass":
        _check_weighted_classes(y, w, name)
    _check_real(data, design.variables())
    return RawFrame(columns=columns, y=y, weights=w, design=design, response=coded,
                    index=data.index[keep], n_input=len(data), dropped=data.index[~keep],
                    na_counts=na_counts)
