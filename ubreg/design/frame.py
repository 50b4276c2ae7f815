"""``build_model_frame``: formula and data to the arrays a fitter needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import patsy
from patsy import ModelDesc, PatsyError

from ..errors import DataError, FormulaError
from ..numerics.limits import check_allocation
from .checks import (
    _as_categoricals,
    _check_finite,
    _check_real,
    _label_levels,
    _translate_patsy_error,
    as_frame,
    patsy_input,
)
from .coerce import normalise_columns
from .design import Design, _RecordingNAAction, check_design_size
from .namespace import _environment
from .parse import (
    _check_formula_names,
    expand_dot,
    formula_variables,
    parse_formula,
    response_values,
)
from .response import (
    Response,
    _check_weighted_classes,
    check_response_finite,
    check_weights,
    code_response,
    code_response_multiclass,
    is_na,
)
from .safety import variable_names

__all__ = ['ModelFrame', 'build_model_frame']


@dataclass
class ModelFrame:
    """Everything a fitter needs, and what the result keeps about the data."""

    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    design: Design
    response: Response
    index: pd.Index
    n_input: int
    dropped: pd.Index
    na_factors: list = field(default_factory=list)

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)


@dataclass
class _Parsed:
    """What both frame builders learn before touching the predictors."""

    formula: str
    desc: ModelDesc
    weights: np.ndarray | None
    response_name: str
    response_values: object
    response_na: np.ndarray


def _prepare(formula, data, weights, na_action, trusted) -> tuple[pd.DataFrame, _Parsed]:
    """Validate the data and formula; evaluate the response and weights."""
    data = as_frame(data, "data")
    if na_action not in ("drop", "raise"):
        raise ValueError(f"na_action must be 'drop' or 'raise', got {na_action!r}")
    if len(data) == 0:
        raise DataError("data has 0 rows")
    formula = expand_dot(formula, data.columns)
    desc = parse_formula(formula, data.columns)
    _check_formula_names(desc, data, formula, trusted)
    data = normalise_columns(data, formula_variables(desc))
    w_full = check_weights(weights, data)
    name, yvals = response_values(desc, data, formula)
    check_response_finite(yvals, name)
    y_na = is_na(yvals)
    if y_na.any() and na_action == "raise":
        raise DataError(f"missing values (NA) in response {name!r} ({int(y_na.sum())} rows) "
                        f"and na_action='raise'")
    return data, _Parsed(formula, desc, w_full, name, yvals, y_na)


def _levels_of(factor, frame: pd.DataFrame) -> int:
    """How many columns a factor can give at most: the levels of a categorical
    variable it reads (``C(x)`` counts the distinct values of x), else 1."""
    size = 1
    coded = factor.code.lstrip().startswith(("C(", "_ubreg_fn_C("))
    for name in variable_names(factor.code):
        if name not in frame.columns:
            continue
        col = frame[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            size = max(size, len(col.cat.categories))
        elif coded:
            size = max(size, int(col.nunique()))
    return size


def _check_estimated_size(terms, frame: pd.DataFrame) -> None:
    """Refuse a design (or the contrast matrix of one of its factors) over the
    memory cap before patsy allocates it: a factor of L levels makes patsy build
    an L × L contrast matrix and the design L − 1 columns per term it enters."""
    columns, widest = 0, 1
    for term in terms:
        sizes = [_levels_of(f, frame) for f in term.factors]
        widest = max([widest, *sizes])
        columns += int(np.prod(sizes, dtype=float)) if sizes else 1
    check_design_size(len(frame), columns)
    check_allocation(8.0 * widest * widest, f"the contrast matrix of a factor with {widest} "
                     "levels")


def build_model_frame(formula: str, data, weights=None, na_action: str = "drop",
                      positive=None, response: str = "binary", trusted: bool = False) -> ModelFrame:
    """Evaluate ``formula`` on ``data``: design matrix, 0/1 response, weights.

    Rows with NA in the response or in any variable the formula uses are
    dropped (``na_action="drop"``, counted in ``n_dropped``) or refused
    (``na_action="raise"``).  Never modifies ``data``.  Formula terms must pass
    :func:`check_formula_code` unless ``trusted=True``.  ``response="multiclass"``
    codes a response with two or more classes as 0..C−1 instead of 0/1.
    A ``.`` on the right of ``~`` stands for every other column.
    """
    data, parsed = _prepare(formula, data, weights, na_action, trusted)
    formula, desc, w_full = parsed.formula, parsed.desc, parsed.weights
    name, yvals, y_na = parsed.response_name, parsed.response_values, parsed.response_na
    rhs = ModelDesc([], desc.rhs_termlist)
    frame = data if not y_na.any() else data.loc[~y_na]
    used = set().union(*[variable_names(f.code) for t in desc.rhs_termlist for f in t.factors])
    _check_real(frame, used)
    label_levels = _label_levels(frame, sorted(used))
    frame = _as_categoricals(frame, label_levels, "data")
    _check_estimated_size(rhs.rhs_termlist, frame)
    na = _RecordingNAAction(na_action)
    try:
        data_in = patsy_input(frame, used)
        (info,) = patsy.design_matrix_builders([rhs.rhs_termlist], lambda: iter([data_in]),
                                               _environment(), NA_action=na)
        check_design_size(len(frame), len(info.column_names))
        (X,) = patsy.build_design_matrices([info], data_in, NA_action=na, return_type="matrix")
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except DataError:
        raise
    except Exception as exc:  # anything else patsy or a user transform raised
        raise FormulaError(f"cannot build the design of {formula!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    design = Design(X.design_info, rhs.describe(), label_levels)
    X = np.asarray(X, dtype=np.float64)
    if X.shape[1] == 0:
        raise FormulaError(f"formula {formula!r} has no terms on the right-hand side")
    rhs_na = na.mask if na.mask is not None else np.zeros(len(frame), dtype=bool)
    keep = ~y_na
    keep[np.flatnonzero(keep)[rhs_na]] = False
    index = data.index[keep]
    if len(index) == 0:
        raise DataError(f"no rows left after removing missing values: all {len(data)} rows have "
                        f"NA in a variable of the formula")
    _check_finite(X, design.column_names, "data")
    yk = yvals[keep] if isinstance(yvals, pd.Series) else yvals[keep]
    if response == "multiclass":
        y, response_info = code_response_multiclass(pd.Series(yk), name)
    else:
        y, response_info = code_response(yk, name, positive)
    w = np.ones(len(y)) if w_full is None else w_full[keep]
    if not (w > 0).any():
        raise DataError("weights are all zero on the rows left after removing missing values")
    _check_weighted_classes(y, w, name)
    na_factors = list(na.na_factors)
    if y_na.any():
        na_factors.insert(0, (name, int(y_na.sum())))
    return ModelFrame(X=X, y=y, weights=w, design=design, response=response_info, index=index,
                      n_input=len(data), dropped=data.index[~keep], na_factors=na_factors)
