"""What every frame builder does first: R's ``model.frame`` up to the predictors.

``na_action`` and ``subset`` with R's meaning, the formula read and checked whole (its
``offset()`` terms and ``offset=`` apart), the response evaluated (a binary variable, a
proportion, or R's ``cbind(successes, failures)``) and the weights checked.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError, FormulaError
from .allowlist import Checker
from .checks import as_frame
from .coerce import normalise_columns, time_zones
from .deparse import deparse
from .evaluate import Environment, evaluate
from .offset import offset_array, offset_variable
from .parse import expand_dot, formula_variables, parse_formula, response_values
from .response import check_response_finite, check_weights, is_na
from .rformula import Formula, _columns_read
from .rsyntax import Call, parse_expression
from .values import Logical, as_logical

__all__ = ["NA_ACTIONS", "na_action_of", "Prepared", "prepare", "subset_mask"]

#: R's na.action names and ubreg's earlier ones: what each means here
NA_ACTIONS = {"omit": "omit", "drop": "omit", "exclude": "exclude", "fail": "fail",
              "raise": "fail"}


def na_action_of(na_action) -> str:
    """R's name of ``na_action``: ``"omit"`` (alias ``"drop"``), ``"exclude"`` or
    ``"fail"`` (alias ``"raise"``)."""
    if na_action not in NA_ACTIONS:
        raise ValueError(f"na_action must be one of 'omit', 'exclude', 'fail' (or 'drop', "
                         f"'raise'), got {na_action!r}")
    return NA_ACTIONS[na_action]


def _raw_columns(data: pd.DataFrame, names) -> dict:
    return {n: data[n].array if isinstance(data[n].dtype, pd.CategoricalDtype)
            else data[n].to_numpy() for n in names if n in data.columns}


def subset_mask(subset, data: pd.DataFrame, trusted: bool = False) -> np.ndarray:
    """R's ``subset``: a boolean array (one value per row) or an R expression over the
    columns (``"age > 30 & mass < 40"``, checked as a formula's variables are); rows
    where the expression is NA are left out, as R does."""
    if isinstance(subset, str):
        node = parse_expression(subset, "subset")
        checker = Checker(frozenset(map(str, data.columns)), len(data), trusted, subset)
        checker.value(node)
        reads = [c for c in _columns_read(node) if c in data.columns]
        data_n = normalise_columns(data, reads)
        try:
            value = evaluate(node, Environment(_raw_columns(data_n, reads), trusted=trusted),
                             {}, checker)
        except FormulaError:
            raise
        except Exception as exc:  # the expression failing on these values
            raise FormulaError(f"cannot evaluate subset {subset!r}: {exc}") from None
        value = as_logical(value, f"subset {subset!r}")
        if not isinstance(value, Logical) or len(value) != len(data):
            raise DataError(f"subset {subset!r} must give one TRUE/FALSE per row")
        mask = value.values & (~value.na if value.na is not None else True)
        return np.asarray(mask, dtype=bool)
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
    parsed: Formula
    offsets: list                   # offset Variables: the formula's and offset='s
    offset_array: np.ndarray | None
    weights: np.ndarray | None      # per row of ``data``, trials included
    response_name: str
    response_values: pd.Series
    response_na: np.ndarray
    grouped: bool                   # cbind(successes, failures): a proportion response
    na_action: str
    n_outside_subset: int
    trials: np.ndarray | None = None    # cbind's successes + failures, per row of ``data``
    trusted: bool = False
    reads: list = field(default_factory=list)
    #: datetime column -> time-zone-aware, as the data gave it (before normalising)
    time_zones: dict = field(default_factory=dict)


def _grouped_response(node: Call, data: pd.DataFrame, trusted: bool, label: str):
    """``cbind(successes, failures)``: (proportions, trials), R's binomial coding
    (a row of zero trials has proportion 0 and weight 0)."""
    from .parse import evaluate_series
    counts = []
    for arg in node.args:
        values = evaluate_series(arg.value, data, trusted, label)
        if values.dtype.kind not in "iuf":
            raise DataError(f"response {label!r}: cbind() takes counts, and "
                            f"{deparse(arg.value)!r} is not a number")
        counts.append(np.asarray(values, dtype=np.float64))
    successes, failures = counts
    bad = (successes < 0) | (failures < 0)
    if bad.any():
        raise DataError(f"response {label!r}: counts must be >= 0 ({int(bad.sum())} rows "
                        "are not)")
    trials = successes + failures
    with np.errstate(invalid="ignore", divide="ignore"):
        proportion = np.where(trials > 0, successes / trials, 0.0)
    proportion[np.isnan(trials)] = np.nan
    return pd.Series(proportion, index=data.index), trials


def aligned(values, data: pd.DataFrame, what: str):
    """An argument given per row: a pandas Series is matched to the data's rows by its
    index, as pandas aligns (in any order; refused when its labels are not the data's);
    anything else is taken by position."""
    if not isinstance(values, pd.Series):
        return values
    if values.index.equals(data.index):
        return values.to_numpy()
    if len(values) == len(data) and values.index.is_unique and data.index.is_unique \
            and values.index.sort_values().equals(data.index.sort_values()):
        return values.reindex(data.index).to_numpy()
    raise DataError(f"{what} is a pandas Series whose index does not match the data's index; "
                    f"give it the data's index, or its values (.to_numpy()) in the data's "
                    "row order")


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


def _offsets(parsed: Formula, offset, data: pd.DataFrame, trusted: bool):
    """The offset variables (the formula's, then ``offset=``'s) and the array given."""
    variables = list(parsed.offsets)
    extra = offset_variable(offset, data.columns)
    if extra is not None:
        checker = Checker(frozenset(map(str, data.columns)), len(data), trusted,
                          f"offset={offset!r}")
        checker.value(extra.expression)
        variables.append(extra)
    array = offset_array(offset)
    if array is not None and len(array) != len(data):
        raise DataError(f"offset has {len(array)} values but the data have {len(data)} rows")
    return variables, array


def prepare(formula, data, weights, na_action, trusted, offset=None,
            subset=None) -> Prepared:
    """Validate the data and formula; evaluate the response, weights and offsets."""
    data = as_frame(data, "data")
    na_action = na_action_of(na_action)
    n_before = len(data)
    weights, offset = aligned(weights, data, "weights"), aligned(offset, data, "offset")
    subset = aligned(subset, data, "subset")
    mask = None if subset is None else subset_mask(subset, data, trusted)
    if mask is not None:
        data = data.loc[mask]
        weights = _subset_of(weights, mask, "weights")
        offset = _subset_of(offset, mask, "offset")
    if len(data) == 0:
        raise DataError("data has 0 rows" if n_before == 0 else
                        f"subset leaves none of the {n_before} rows")
    formula = expand_dot(formula, data.columns)
    parsed = parse_formula(formula, data.columns, n_rows=len(data), trusted=trusted)
    offsets, array = _offsets(parsed, offset, data, trusted)
    reads = list(dict.fromkeys([*formula_variables(parsed),
                                *(c for v in offsets for c in v.reads)]))
    zones = time_zones(data, reads)
    data = normalise_columns(data, reads)
    assert parsed.response is not None          # read_formula requires one
    response = parsed.response.node
    grouped = isinstance(response, Call) and response.fn == "cbind"
    name = parsed.response.label
    if isinstance(response, Call) and response.fn == "cbind":
        yvals, trials = _grouped_response(response, data, trusted, name)
    else:
        (name, yvals), trials = response_values(parsed, data, trusted), None
    check_response_finite(yvals, name)
    y_na = is_na(yvals)
    if y_na.any() and na_action == "fail":
        raise DataError(f"missing values (NA) in response {name!r} ({int(y_na.sum())} rows) "
                        f"and na_action='fail'")
    return Prepared(data, formula, parsed, offsets, array,
                    _weights_with_trials(weights, data, trials), name, yvals, y_na, grouped,
                    na_action, n_before - len(data), trials, trusted, reads, zones)
