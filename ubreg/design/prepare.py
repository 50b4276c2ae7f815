"""What every frame builder does first: R's ``model.frame`` up to the predictors.

``na_action`` and ``subset`` with R's meaning, the formula parsed and checked, its
``offset()`` terms split off, the response evaluated (a binary variable, a
proportion, or R's ``cbind(successes, failures)``) and the weights checked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
from patsy import ModelDesc

from ..errors import DataError, FormulaError
from .checks import as_frame
from .coerce import normalise_columns
from .namespace import _PATSY_BUILTINS, _environment
from .offset import offset_codes, split_offsets
from .parse import (
    _check_formula_names,
    expand_dot,
    formula_variables,
    parse_formula,
    response_values,
)
from .response import check_response_finite, check_weights, is_na
from .safety import check_formula_code, variable_names
from .terms import bang_as_not, rewrite_code

__all__ = ["NA_ACTIONS", "na_action_of", "Prepared", "prepare", "subset_mask"]

#: R's na.action names and ubreg's earlier ones: what each means here
NA_ACTIONS = {"omit": "omit", "drop": "omit", "exclude": "exclude", "fail": "fail",
              "raise": "fail"}
_CBIND = re.compile(r"^\s*cbind\s*\((.*)\)\s*$", re.S)


def na_action_of(na_action) -> str:
    """R's name of ``na_action``: ``"omit"`` (alias ``"drop"``), ``"exclude"`` or
    ``"fail"`` (alias ``"raise"``)."""
    if na_action not in NA_ACTIONS:
        raise ValueError(f"na_action must be one of 'omit', 'exclude', 'fail' (or 'drop', "
                         f"'raise'), got {na_action!r}")
    return NA_ACTIONS[na_action]


def subset_mask(subset, data: pd.DataFrame, trusted: bool = False) -> np.ndarray:
    """R's ``subset``: a boolean array (one value per row) or an expression over the
    columns (``"age > 30 & mass < 40"``, checked by the formula allowlist); rows
    where the expression is NA are left out, as R does."""
    if isinstance(subset, str):
        code = rewrite_code(bang_as_not(subset), data.columns)
        if not trusted:
            check_formula_code(code, data.columns, n_rows=len(data), shown=subset)
        names = variable_names(code)
        try:
            value = _environment().with_outer_namespace(_PATSY_BUILTINS).eval(
                code, inner_namespace={n: data[n] for n in names if n in data.columns})
        except Exception as exc:  # the user's expression: report whatever it raised
            raise FormulaError(f"cannot evaluate subset {subset!r}: {exc}") from None
        mask = np.asarray(pd.Series(value, index=data.index).fillna(False), dtype=object)
    else:
        mask = np.asarray(subset, dtype=object)
    if mask.ndim != 1 or len(mask) != len(data):
        raise DataError(f"subset has {mask.size} values but the data have {len(data)} rows")
    if not all(isinstance(v, (bool, np.bool_)) for v in mask):
        raise DataError("subset must be booleans (or an expression giving them), one per row")
    return mask.astype(bool)


@dataclass
class Prepared:
    """What every frame builder learns before touching the predictors."""

    data: pd.DataFrame
    formula: str
    desc: ModelDesc                 # without offset() terms
    offset_codes: list
    offset_array: np.ndarray | None
    weights: np.ndarray | None      # per row of ``data``, trials included
    response_name: str
    response_values: pd.Series
    response_na: np.ndarray
    grouped: bool                   # cbind(successes, failures): a proportion response
    na_action: str
    n_outside_subset: int
    trials: np.ndarray | None = None    # cbind's successes + failures, per row of ``data``


def _grouped_response(code: str, data: pd.DataFrame, trusted: bool):
    """``cbind(successes, failures)``: (proportions, trials), R's binomial coding
    (a row of zero trials has proportion 0 and weight 0)."""
    m = _CBIND.match(code)
    parts = [p.strip() for p in m.group(1).split(",")] if m else []
    if len(parts) != 2:
        raise FormulaError(f"response {code!r}: cbind() takes two columns, successes and "
                           "failures")
    values = []
    for part in parts:
        part_code = rewrite_code(part, data.columns)
        if not trusted:
            check_formula_code(part_code, data.columns, n_rows=len(data), shown=part)
        desc = ModelDesc.from_formula(f"{part_code} ~ 1")
        values.append(np.asarray(response_values(desc, data, code)[1], dtype=np.float64))
    successes, failures = values
    bad = (successes < 0) | (failures < 0)
    if bad.any():
        raise DataError(f"response {code!r}: counts must be >= 0 ({int(bad.sum())} rows are not)")
    trials = successes + failures
    with np.errstate(invalid="ignore", divide="ignore"):
        proportion = np.where(trials > 0, successes / trials, 0.0)
    proportion[np.isnan(trials)] = np.nan
    return pd.Series(proportion, index=data.index), trials


def _subset_of(values, mask: np.ndarray, what: str):
    """An array argument given for every row of the data, cut to the subset (a
    column name is read from the subset data itself)."""
    if values is None or isinstance(values, str):
        return values
    arr = np.asarray(values)
    if arr.ndim != 1 or len(arr) != len(mask):
        raise DataError(f"{what} has {arr.size} values but the data have {len(mask)} rows")
    return arr[mask]


def _weights_with_trials(weights, data, trials):
    w = check_weights(weights, data)
    if trials is None:
        return w
    t = np.where(np.isnan(trials), 0.0, trials)
    return t if w is None else w * t


def prepare(formula, data, weights, na_action, trusted, offset=None,
            subset=None) -> Prepared:
    """Validate the data and formula; evaluate the response, weights and offsets."""
    data = as_frame(data, "data")
    na_action = na_action_of(na_action)
    n_before = len(data)
    mask = None if subset is None else subset_mask(subset, data, trusted)
    if mask is not None:
        data = data.loc[mask]
        weights = _subset_of(weights, mask, "weights")
        offset = _subset_of(offset, mask, "offset")
    if len(data) == 0:
        raise DataError("data has 0 rows" if n_before == 0 else
                        f"subset leaves none of the {n_before} rows")
    formula = expand_dot(formula, data.columns)
    desc, formula_offsets = split_offsets(parse_formula(formula, data.columns))
    _check_formula_names(desc, data, formula, trusted)
    codes, offset_array = offset_codes(formula_offsets, offset, data.columns)
    if offset_array is not None and len(offset_array) != len(data):
        raise DataError(f"offset has {len(offset_array)} values but the data have {len(data)} "
                        "rows")
    offset_vars = set().union(*[variable_names(rewrite_code(c, data.columns)) for c in codes])
    data = normalise_columns(data, [*formula_variables(desc), *sorted(offset_vars)])
    code = desc.lhs_termlist[0].factors[0].code if desc.lhs_termlist else ""
    grouped = bool(_CBIND.match(code))
    if grouped:
        name, (yvals, trials) = code, _grouped_response(code, data, trusted)
    else:
        (name, yvals), trials = response_values(desc, data, formula), None
    check_response_finite(yvals, name)
    y_na = is_na(yvals)
    if y_na.any() and na_action == "fail":
        raise DataError(f"missing values (NA) in response {name!r} ({int(y_na.sum())} rows) "
                        f"and na_action='fail'")
    return Prepared(data, formula, desc, codes, offset_array,
                    _weights_with_trials(weights, data, trials), name, yvals, y_na, grouped,
                    na_action, n_before - len(data), trials)
