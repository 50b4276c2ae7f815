"""``build_model_frame``: formula and data to the arrays a fitter needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import patsy
from patsy import ModelDesc, PatsyError

from ..errors import DataError, FormulaError, ResponseError
from ..numerics.factor_matrix import FactorMatrix, is_factor_matrix
from ..numerics.limits import check_allocation
from .checks import (
    _as_categoricals,
    _check_finite,
    _check_real,
    _label_levels,
    _translate_patsy_error,
    patsy_input,
)
from .design import Design, _RecordingNAAction, check_design_size
from .namespace import _environment
from .offset import OffsetSpec
from .prepare import prepare
from .response import (
    Response,
    _check_weighted_classes,
    code_response,
    code_response_multiclass,
)
from .safety import variable_names
from .sliced import build_in_slices, row_wise

__all__ = ['ModelFrame', 'build_model_frame']


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


def _design_matrix(rhs: ModelDesc, frame: pd.DataFrame, used, na_action: str, formula: str,
                   factor_codes: bool = False):
    """patsy's design of ``frame`` (size checked before it is built), the NA
    bookkeeping of its rows, and patsy's design info; built in row slices when every
    factor is a bare column (:mod:`ubreg.design.sliced`), then with
    ``factor_codes`` the columns of a factor's main effect kept as its codes (a
    :class:`~ubreg.numerics.factor_matrix.FactorMatrix`)."""
    _check_estimated_size(rhs.rhs_termlist, frame)
    na = _RecordingNAAction("raise" if na_action == "fail" else "drop")
    try:
        data_in = patsy_input(frame, used)
        (info,) = patsy.design_matrix_builders([rhs.rhs_termlist], lambda: iter([data_in]),
                                               _environment(), NA_action=na)
        check_design_size(len(frame), len(info.column_names))
        if na_action != "fail" and row_wise(info, data_in):
            # bare columns only: slice by slice, one slice's transient memory
            X, na = build_in_slices(info, data_in, len(frame), na_action, factor_codes)
        else:
            (X,) = patsy.build_design_matrices([info], data_in, NA_action=na,
                                               return_type="matrix")
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except DataError:
        raise
    except Exception as exc:  # anything else patsy or a user transform raised
        raise FormulaError(f"cannot build the design of {formula!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    if X.shape[1] == 0:
        raise FormulaError(f"formula {formula!r} has no terms on the right-hand side")
    return X, na, info


def _offset_of(prep, frame: pd.DataFrame, keep_rows: np.ndarray, trusted: bool):
    """The offset spec and its values on ``frame``; rows where it is NA join the
    rows to drop (``keep_rows`` is updated)."""
    spec = OffsetSpec.learn(prep.offset_codes, frame, prep.data.columns, trusted,
                            prep.offset_array is not None)
    values = spec.values(frame)
    if prep.offset_array is not None:
        values = values + prep.offset_array[keep_rows]
    bad = np.isnan(values)
    if bad.any() and prep.na_action == "fail":
        raise DataError(f"missing values (NA) in the offset ({int(bad.sum())} rows) and "
                        "na_action='fail'")
    return spec, values, bad


def build_model_frame(formula: str, data, weights=None, na_action: str = "omit",
                      positive=None, response: str = "binary", trusted: bool = False,
                      offset=None, subset=None, proportions: bool = False,
                      factor_codes: bool = False) -> ModelFrame:
    """Evaluate ``formula`` on ``data``: design matrix, response, weights, offset.

    R's ``model.frame``: ``subset`` (a boolean array or an expression) first; rows
    with NA in the response, the offset or any variable the formula uses dropped
    (``na_action="omit"`` or ``"exclude"``, counted in ``n_dropped``) or refused
    (``"fail"``).  Never modifies ``data``.  Formula terms must pass
    :func:`check_formula_code` unless ``trusted=True``.  ``response="multiclass"``
    codes a response with two or more classes as 0..C−1 instead of 0/1;
    ``proportions=True`` accepts proportions and ``cbind(successes, failures)``.
    A ``.`` on the right of ``~`` stands for every other column.  With
    ``factor_codes`` the design may be a
    :class:`~ubreg.numerics.factor_matrix.FactorMatrix` (a factor's main effect
    kept as codes; for fitters that read it through that module's functions).
    """
    prep = prepare(formula, data, weights, na_action, trusted, offset, subset)
    data, desc, formula, y_na = prep.data, prep.desc, prep.formula, prep.response_na
    rhs = ModelDesc([], desc.rhs_termlist)
    frame = data if not y_na.any() else data.loc[~y_na]
    offset_spec, offset_values, offset_na = _offset_of(prep, frame, ~y_na, trusted)
    if offset_na.any():
        frame = frame.loc[~offset_na]
    used = set().union(*[variable_names(f.code) for t in desc.rhs_termlist for f in t.factors])
    _check_real(frame, used)
    label_levels = _label_levels(frame, sorted(used))
    frame = _as_categoricals(frame, label_levels, "data")
    X, na, info = _design_matrix(rhs, frame, used, prep.na_action, formula, factor_codes)
    design = Design(info, rhs.describe(), label_levels, offset_spec)
    if not is_factor_matrix(X):
        X = np.asarray(X, dtype=np.float64)
    rhs_na = na.mask if na.mask is not None else np.zeros(len(frame), dtype=bool)
    keep = ~y_na
    if offset_na.any():
        keep[np.flatnonzero(keep)[offset_na]] = False
    if rhs_na.any():
        keep[np.flatnonzero(keep)[rhs_na]] = False
    if not keep.any():
        raise DataError(f"no rows left after removing missing values: all {len(data)} rows have "
                        f"NA in a variable of the formula")
    _check_finite(X, design.column_names, "data")
    y, response_info = _coded_response(prep, keep, response, positive, proportions)
    w = np.ones(len(y)) if prep.weights is None else prep.weights[keep]
    if not (w > 0).any():
        raise DataError("weights are all zero on the rows left after removing missing values")
    if response_info.kind != "proportion":
        _check_weighted_classes(y, w, prep.response_name)
    na_factors = _na_counts(prep, offset_na, na.na_factors)
    # every row kept: the index as it is (an Index is immutable), no mask over it
    index, dropped = (data.index, data.index[:0]) if keep.all() else \
        (data.index[keep], data.index[~keep])
    return ModelFrame(X=X, y=y, weights=w, design=design, response=response_info,
                      index=index, n_input=len(data), dropped=dropped,
                      na_factors=na_factors, offset=_kept(offset_values, offset_na, rhs_na),
                      na_action=prep.na_action, n_outside_subset=prep.n_outside_subset,
                      trials=None if prep.trials is None else prep.trials[keep],
                      input_index=data.index)


def _kept(values: np.ndarray, *dropped: np.ndarray) -> np.ndarray:
    """``values`` without the rows each mask drops in turn (``values[~a][~b]``),
    copied only when some row is dropped."""
    for mask in dropped:
        if mask.any():
            values = values[~mask]
    return values


def _coded_response(prep, keep, response, positive, proportions):
    yvals = prep.response_values
    yk = yvals[keep] if isinstance(yvals, pd.Series) else np.asarray(yvals)[keep]
    if response == "multiclass":
        if prep.grouped:
            raise ResponseError(f"response {prep.response_name!r}: cbind() gives a proportion, "
                                "not classes")
        return code_response_multiclass(pd.Series(yk), prep.response_name)
    return code_response(pd.Series(yk) if not isinstance(yk, pd.Series) else yk,
                         prep.response_name, positive, proportions, prep.grouped)


def _na_counts(prep, offset_na, factor_counts) -> list:
    """(variable, rows with NA) in R's order: the response, the offset, the terms."""
    counts = []
    if prep.response_na.any():
        counts.append((prep.response_name, int(prep.response_na.sum())))
    if offset_na.any():
        counts.append(("offset", int(offset_na.sum())))
    return counts + list(factor_counts)
