"""Raw predictor columns, for methods that split on variables (trees).
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass

import numpy as np
import pandas as pd
import patsy
from patsy import ModelDesc, NAAction, PatsyError

from ..errors import DataError, FormulaError, PredictionError
from .checks import (
    _as_categoricals,
    _check_numeric_columns,
    _check_real,
    _label_levels,
    _translate_patsy_error,
    as_frame,
    check_columns,
)
from .coerce import normalise_columns
from .design import variables_of
from .namespace import _dumps_design_info, _environment
from .prepare import prepare
from .response import Response, _check_weighted_classes, code_response
from .safety import variable_names

__all__ = ['RawColumn', 'RawDesign', 'RawFrame', 'build_raw_frame']


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

    Every right-hand term must be a single factor (``x``, ``np.log(x)``,
    ``C(g)``); interactions have no meaning for a tree and are refused.
    Categorical factors keep their levels (no dummy coding), numeric factors
    their values; NA stays NA (the method decides what to do with it).
    """

    def __init__(self, design_info, formula_rhs: str, label_levels: dict, term_order: list):
        self.design_info = design_info
        self.formula_rhs = formula_rhs
        self.label_levels = dict(label_levels)
        # patsy reorders terms (categorical first); ties between splits are
        # broken by the formula's order, so keep it
        self.term_order = list(term_order)

    @property
    def names(self) -> list[str]:
        return list(self.term_order)

    def _terms(self):
        by_name = {t.name(): t for t in self.design_info.terms if t.factors}
        return [by_name[n] for n in self.term_order]

    def columns(self, data, what="data") -> list[RawColumn]:
        data = as_frame(data, what)
        predicting = what != "data"
        check_columns(self.design_info, data, what)
        data = normalise_columns(data, variables_of(self.design_info))
        if predicting:
            data = _check_numeric_columns(self.design_info, data, self.label_levels, what)
        data = _as_categoricals(data, self.label_levels, what)
        error = PredictionError if predicting else FormulaError
        out = []
        for term in self._terms():
            factor = term.factors[0]
            info = self.design_info.factor_infos[factor]
            try:
                values = factor.eval(info.state, data)
            except PatsyError as exc:
                raise _translate_patsy_error(exc, None, predicting=predicting) from None
            except Exception as exc:  # the user's expression raised
                raise error(f"{what}: cannot evaluate {factor.name()!r}: {exc}") from None
            if info.type == "categorical":
                na = NAAction(NA_types=["None", "NaN"])
                try:
                    codes = patsy.categorical.categorical_to_int(values, info.categories, na)
                except PatsyError as exc:
                    raise _translate_patsy_error(exc, None, predicting=True) from None
                out.append(RawColumn(term.name(), "categorical", np.asarray(codes, np.int64),
                                     list(info.categories)))
                continue
            try:
                arr = np.asarray(values, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise error(f"{what}: {factor.name()!r} is not numeric: {exc}") from None
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr[:, 0]
            if arr.ndim == 1:
                out.append(RawColumn(term.name(), "numeric", arr))
            else:
                out += [RawColumn(f"{term.name()}[{j}]", "numeric", arr[:, j])
                        for j in range(arr.shape[1])]
        for col in out:
            if col.kind == "numeric" and np.isinf(col.values).any():
                raise DataError(f"{what}: infinite values in {col.name!r} "
                                f"({int(np.isinf(col.values).sum())} rows)")
        return out

    def __getstate__(self):
        return {"design_info": _dumps_design_info(self.design_info),
                "formula_rhs": self.formula_rhs, "label_levels": self.label_levels,
                "term_order": self.term_order}

    def __setstate__(self, state):
        self.design_info = pickle.loads(state["design_info"])
        self.formula_rhs = state["formula_rhs"]
        self.label_levels = state["label_levels"]
        self.term_order = state["term_order"]


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


def build_raw_frame(formula: str, data, weights=None, na_action: str = "omit",
                    positive=None, trusted: bool = False, subset=None) -> RawFrame:
    """Like :func:`build_model_frame`, but predictors stay raw columns.

    Rows with NA in the response are dropped (counted).  NA in predictors is
    kept for the method to handle, or refused with ``na_action="fail"``.  Trees
    take no offset and a binary response only.
    """
    prep = prepare(formula, data, weights, na_action, trusted, None, subset)
    if prep.offset_codes:
        raise FormulaError(f"formula {prep.formula!r}: offset() has no meaning for this method "
                           "(a tree has no linear predictor)")
    data, formula, desc, w_full = prep.data, prep.formula, prep.desc, prep.weights
    name, yvals, y_na = prep.response_name, prep.response_values, prep.response_na
    na_action = prep.na_action
    for term in desc.rhs_termlist:
        if len(term.factors) > 1:
            raise FormulaError(f"term {term.name()!r}: interactions are not supported by this "
                               "method (a tree finds interactions itself)")
    frame = data if not y_na.any() else data.loc[~y_na]
    if len(frame) == 0:
        raise DataError(f"no rows left: the response {name!r} is NA in all {len(data)} rows")
    used = set().union(*[variable_names(f.code) for t in desc.rhs_termlist for f in t.factors])
    _check_real(frame, used)
    label_levels = _label_levels(frame, sorted(used))
    frame_c = _as_categoricals(frame, label_levels, "data")
    rhs = [t for t in desc.rhs_termlist]
    try:
        (info,) = patsy.design_matrix_builders([rhs], lambda: iter([frame_c]), _environment(),
                                               NA_action=NAAction(NA_types=["None", "NaN"]))
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    order = list(dict.fromkeys(t.name() for t in rhs if t.factors))
    design = RawDesign(info, ModelDesc([], rhs).describe(), label_levels, order)
    if not design.names:
        raise FormulaError(f"formula {formula!r} has no predictors on the right-hand side")
    columns = design.columns(frame)
    na_counts = {}
    for col in columns:
        k = int(np.sum(col.values < 0) if col.kind == "categorical" else np.isnan(col.values).sum())
        if k:
            na_counts[col.name] = k
    if na_counts and na_action == "fail":
        detail = ", ".join(f"{n!r} ({k} rows)" for n, k in na_counts.items())
        raise DataError(f"missing values (NA) in {detail} and na_action='fail'")
    keep = ~y_na
    y, response = code_response(yvals[keep], name, positive, grouped=prep.grouped)
    w = np.ones(len(y)) if w_full is None else w_full[keep]
    if not (w > 0).any():
        raise DataError("weights are all zero on the rows used")
    _check_weighted_classes(y, w, name)
    return RawFrame(columns=columns, y=y, weights=w, design=design, response=response,
                    index=data.index[keep], n_input=len(data), dropped=data.index[~keep],
                    na_counts=na_counts)
