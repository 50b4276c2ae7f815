"""``build_model_frame``: formula and data to the arrays a fitter needs, as R's
``model.frame`` and ``model.matrix`` make them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import patsy
from patsy import PatsyError

from ..errors import DataError, FormulaError
from ..numerics.factor_matrix import FactorMatrix, is_factor_matrix
from ..numerics.limits import check_allocation
from .allowlist import Checker
from .checks import (
    _as_categoricals,
    _check_finite,
    _check_real,
    _label_levels,
    _translate_patsy_error,
    patsy_input,
)
from .coding import check_design_size, design_info, estimate_columns
from .design import Design
from .na import RecordingNAAction
from .offset import OffsetSpec
from .prepare import Prepared, prepare
from .response import (
    Response,
    _check_weighted_classes,
    code_classes,
)
from .rfactor import learn_variables
from .rformula import term_variables
from .sliced import build_in_slices, row_wise

__all__ = ['ModelFrame', 'build_model_frame', 'learn_model_frame']


@dataclass
class ModelFrame:
    """Everything a fitter needs, and what the result keeps about the data."""

    #: the design (a FactorMatrix only when asked for with ``factor_codes``)
    X: np.ndarray | FactorMatrix
    y: np.ndarray
    weights: np.ndarray
    design: Design
    response: Response
    index: pd.Index
    n_input: int
    dropped: pd.Index
    na_factors: list = field(default_factory=list)
    #: the offset of every row used (zeros without one): η = Xβ + offset
    offset: np.ndarray | None = None
    #: R's na.action: "omit", "exclude" (outputs padded to the input rows) or "fail"
    na_action: str = "omit"
    #: rows left out by ``subset`` (not counted as dropped)
    n_outside_subset: int = 0
    #: cbind's trials (successes + failures) of the rows used; None for other responses
    trials: np.ndarray | None = None
    #: the data's index after ``subset``, in order: what ``na_action="exclude"`` pads to
    input_index: pd.Index | None = None

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)


def check_sizes(prep: Prepared, frame: pd.DataFrame, label_levels: dict,
                square: bool = True) -> None:
    """Refuse, before anything is evaluated, a design whose estimated size (from the
    syntax tree and the data's columns), its p × p matrices or a factor's L × L
    contrasts would exceed the memory cap."""
    checker = Checker(frozenset(map(str, frame.columns)), len(frame), prep.trusted)
    columns, widest, _ = estimate_columns(prep.parsed, frame, label_levels, checker.literals)
    check_design_size(len(frame), columns, square=square)
    check_allocation(8.0 * widest * widest,
                     f"the contrast matrix of a factor with {int(widest)} levels")


def learn_model_frame(prep: Prepared, complete_cases: bool = True, square: bool = False):
    """The variables of ``prep``'s formula learned on its rows (R's ``model.frame``).

    Returns (the rows' columns as the design reads them, the label levels, the learned
    variables, the mask of rows kept, the offset spec and values)."""
    data, parsed = prep.data, prep.parsed
    rhs_reads = list(dict.fromkeys(c for v in term_variables(parsed) for c in v.reads))
    offset_reads = [c for v in prep.offsets for c in v.reads]
    reads = list(dict.fromkeys([*rhs_reads, *offset_reads]))
    _check_real(data, reads)
    label_levels = _label_levels(data, reads)
    check_sizes(prep, data, label_levels, square)
    frame = _as_categoricals(data, label_levels, "data")
    columns = patsy_input(frame, reads)
    elsewhere = prep.response_na.copy()
    if prep.offset_array is not None:
        elsewhere |= np.isnan(prep.offset_array)
    variables = [*term_variables(parsed), *(v for v in prep.offsets
                                            if v not in parsed.variables)]
    learned, (keep,) = learn_variables(variables, lambda: iter([(columns, elsewhere)]),
                                       label_levels, prep.trusted, complete_cases)
    offsets = OffsetSpec([learned[v.label] for v in prep.offsets],
                         prep.offset_array is not None)
    return frame, label_levels, learned, keep, offsets


def _design_matrix(design: Design, frame: pd.DataFrame, na_action: str,
                   factor_codes: bool = False):
    """patsy's design of ``frame``'s rows (complete already), built in row slices when
    every factor is a bare column (:mod:`ubreg.design.sliced`), then with
    ``factor_codes`` the columns of a factor's main effect kept as its codes."""
    info = design.design_info
    try:
        data_in = patsy_input(frame, design.variables())
        if row_wise(info, data_in):
            X, _ = build_in_slices(info, data_in, len(frame), na_action, factor_codes)
        else:
            na = RecordingNAAction("drop")
            (X,) = patsy.build_design_matrices([info], data_in, NA_action=na,
                                               return_type="matrix")
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except (DataError, FormulaError):
        raise
    except Exception as exc:  # anything else patsy or a function raised on the values
        raise FormulaError(f"cannot build the design of {design.formula_rhs!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    return X


def build_model_frame(formula: str, data, weights=None, na_action: str = "omit",
                      positive=None, response: str = "binary", trusted: bool = False,
                      offset=None, subset=None, proportions: bool = False,
                      factor_codes: bool = False, square: bool = False,
                      keep_na: bool = False) -> ModelFrame:
    """Evaluate ``formula`` on ``data``: design matrix, response, weights, offset.

    R's ``model.frame``: ``subset`` (a boolean array or an expression) first; every
    variable of the formula evaluated; rows with NA in the response, the offset or any
    variable dropped (``na_action="omit"`` or ``"exclude"``, counted in ``n_dropped``)
    or refused (``"fail"``); unused factor levels dropped.  Then R's ``model.matrix``
    (:mod:`ubreg.design.coding`).  Never modifies ``data``.  ``response="multiclass"``
    codes a response with two or more classes as 0..C−1 instead of 0/1, ``"auto"`` so
    when it has more than two classes (0/1 coding otherwise);
    ``proportions=True`` accepts proportions and ``cbind(successes, failures)``.  A
    ``.`` on the right of ``~`` stands for every other column.  With ``factor_codes``
    the design may be a :class:`~ubreg.numerics.factor_matrix.FactorMatrix`.
    ``trusted=True`` lets the formula call any numpy function as ``np.<name>``.  With
    ``square`` (a fitter that forms p × p matrices) those count against the memory cap
    too.  Sizes are checked before anything is evaluated (:func:`check_sizes`).
    With ``keep_na`` (a method that routes missing values, ``Method.keeps_missing``)
    rows with NA in a predictor are kept, with NaN in the columns of the terms that hold
    it (:class:`~ubreg.design.na.KeepingNAAction`): only rows with NA in the response,
    the weights or the offset are dropped (rpart's ``na.rpart``); ``na_action="fail"``
    still refuses NA predictors.
    """
    prep = prepare(formula, data, weights, na_action, trusted, offset, subset)
    data, parsed = prep.data, prep.parsed
    frame, label_levels, learned, keep, offsets = learn_model_frame(
        prep, complete_cases=not keep_na, square=square)
    if prep.na_action == "fail" and (~keep & ~prep.response_na).any():
        detail = ", ".join(f"{lv.variable.label!r} ({lv.n_na} rows)"
                           for lv in learned.values() if lv.n_na)
        raise DataError(f"missing values (NA) in {detail or 'the offset'} and "
                        "na_action='fail'")
    if not keep.any():
        raise DataError(f"no rows left after removing missing values: all {len(data)} rows have "
                        f"NA in a variable of the formula")
    info = design_info(parsed, learned)
    if len(info.column_names) == 0:
        raise FormulaError(f"formula {prep.formula!r} has no terms on the right-hand side")
    design = Design(info, parsed.rhs_text, label_levels, offsets, prep.time_zones,
                    keep_na=keep_na)
    kept = frame if keep.all() else frame.loc[keep]
    check_design_size(len(kept), len(info.column_names))
    if keep_na:
        X, _ = design.rows(kept, prep.na_action, predicting=False)
    else:
        X = _design_matrix(design, kept, prep.na_action, factor_codes)
    if not is_factor_matrix(X):
        X = np.asarray(X, dtype=np.float64)
    _check_finite(X, design.column_names, "data", nan=keep_na)
    y, response_info = _coded_response(prep, keep, response, positive, proportions)
    w = np.ones(len(y)) if prep.weights is None else prep.weights[keep]
    if not (w > 0).any():
        raise DataError("weights are all zero on the rows left after removing missing values")
    if response_info.kind != "proportion":
        _check_weighted_classes(y, w, prep.response_name)
    offset_values = offsets.values(kept) if offsets.learned else np.zeros(len(kept))
    if prep.offset_array is not None:
        offset_values = offset_values + prep.offset_array[keep]
    if not np.isfinite(offset_values).all():
        bad = int((~np.isfinite(offset_values)).sum())
        raise DataError(f"the offset has infinite values in {bad} row(s); an offset is a "
                        "finite part of the linear predictor")
    index, dropped = (data.index, data.index[:0]) if keep.all() else \
        (data.index[keep], data.index[~keep])
    return ModelFrame(X=X, y=y, weights=w, design=design, response=response_info,
                      index=index, n_input=len(data), dropped=dropped,
                      na_factors=_na_counts(prep, learned), offset=offset_values,
                      na_action=prep.na_action, n_outside_subset=prep.n_outside_subset,
                      trials=None if prep.trials is None else prep.trials[keep],
                      input_index=data.index)


def _coded_response(prep, keep, response, positive, proportions):
    yvals = prep.response_values
    yk = yvals[keep] if isinstance(yvals, pd.Series) else np.asarray(yvals)[keep]
    return code_classes(yk, prep.response_name, positive, response=response,
                        proportions=proportions, grouped=prep.grouped)


def _na_counts(prep, learned) -> list:
    """(variable, rows with NA) in R's order: the response, then the variables."""
    counts = []
    if prep.response_na.any():
        counts.append((prep.response_name, int(prep.response_na.sum())))
    if prep.offset_array is not None and np.isnan(prep.offset_array).any():
        counts.append(("offset", int(np.isnan(prep.offset_array).sum())))
    return counts + [(lv.variable.label, lv.n_na) for lv in learned.values() if lv.n_na]
