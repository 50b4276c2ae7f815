"""Checks of the data a formula reads: frame, column types, levels, finiteness.
"""
from __future__ import annotations

import numbers
import re
import sys
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from patsy import PatsyError

from ..errors import DataError, FormulaError, PredictionError
from ..numerics.factor_matrix import is_factor_matrix

if TYPE_CHECKING:
    from .design import Design

__all__ = ['is_dask_frame', 'patsy_input', 'as_frame', 'check_columns']


def as_frame(data, what) -> pd.DataFrame:
    if isinstance(data, dict):
        data = pd.DataFrame(data)
    if is_dask_frame(data):
        raise DataError(f"{what} is a Dask DataFrame, and this needs the rows in memory: "
                        "call .compute() on the rows you need (docs/dask.md lists what runs "
                        "on Dask frames)")
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"{what} must be a pandas DataFrame or a dict of columns, "
                        f"got {type(data).__name__}")
    dup = data.columns[data.columns.duplicated()]
    if len(dup):
        raise DataError(f"{what} has duplicated column names: {sorted(set(map(str, dup)))}")
    if not all(isinstance(c, str) for c in data.columns):
        data = _text_labels(data, what)
    return data


def _text_labels(data: pd.DataFrame, what: str) -> pd.DataFrame:
    """``data`` with its column labels as text (a formula names columns by text, as R's
    data frames do: the column 0 is `` `0` ``); the caller's frame is left as it is."""
    names = [str(c) for c in data.columns]
    seen: dict[str, object] = {}
    for label, name in zip(data.columns, names):
        if name in seen:
            raise DataError(f"{what} has the columns {seen[name]!r} and {label!r}, both named "
                            f"{name!r} in a formula; rename one")
        seen[name] = label
    return data.set_axis(names, axis=1)


def _check_real(data: pd.DataFrame, names, what="data"):
    """Complex columns would lose their imaginary part silently in the design."""
    for name in names:
        if name in data.columns and data[name].dtype.kind == "c":
            raise DataError(f"{what}: column {name!r} holds complex numbers; ubreg needs real "
                            "numbers")


def check_columns(design_info, data, what):
    missing = []
    for factor in design_info.factor_infos:
        for name in factor.reads:
            if name not in data.columns:
                missing.append(name)
    if missing:
        raise PredictionError(f"{what} lacks column(s) {sorted(set(missing))} used by the model")


def _check_numeric_columns(design_info, data: pd.DataFrame, label_levels: dict,
                           what: str) -> pd.DataFrame:
    """A column the model reads as a number must hold numbers in ``data``.

    patsy would fail on a string in a numeric factor with an unrelated error
    (an AttributeError inside its own message); name the column instead.  A
    column of another dtype that holds only numbers (object dtype, e.g.) is
    returned as float64.  Columns coded as labels in fitting
    (``label_levels``) are checked against their levels elsewhere.
    """
    converted = {}
    for factor, info in design_info.factor_infos.items():
        if info.type != "numerical":
            continue
        for name in factor.reads:
            if name in label_levels or name not in data.columns:
                continue
            col = data[name]
            if col.dtype.kind in "iufb":
                continue
            values = col.dropna()
            bad = [v for v in values.tolist() if not isinstance(v, numbers.Real)]
            if bad:
                raise PredictionError(
                    f"{what}: column {name!r} holds non-numeric values (e.g. {bad[0]!r}; "
                    f"dtype {col.dtype}) but the model uses it as a number in "
                    f"{factor.name()!r}")
            converted[name] = pd.to_numeric(col, errors="coerce").astype(np.float64)
    return data.assign(**converted) if converted else data


def _check_finite(X, names, what, nan: bool = False):
    """Refuse infinite design values (and NaN unless ``nan``: the design of a method
    that keeps rows with NA predictors holds NaN there)."""
    if is_factor_matrix(X):
        # a factor's columns are rows of its (finite) contrast matrix
        X, names = X.dense, [names[j] for j in X.dense_cols]
    # column sums first: finite sums mean finite entries (an inf or NaN makes its
    # sum inf or NaN), without the two n × p boolean arrays of the exact test
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(X.sum(axis=0)).all():
            return
    bad = np.isinf(X) if nan else ~np.isfinite(X)
    if bad.any():
        cols = [names[j] for j in np.flatnonzero(bad.any(axis=0))]
        raise DataError(f"{what}: infinite values in design column(s) {cols} "
                        f"({int(bad.any(axis=1).sum())} rows)")


def _is_label_column(col: pd.Series) -> bool:
    return (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)
            or pd.api.types.is_bool_dtype(col)) and not isinstance(col.dtype, pd.CategoricalDtype)


def _label_levels(data: pd.DataFrame, names) -> dict[str, list]:
    """Sorted levels of the string/bool columns a formula uses.

    patsy codes such columns value by value in Python; handing it a pandas
    Categorical with the same (sorted) levels lets it use the codes directly,
    which is what makes the design fast at 1e6 rows.
    """
    out = {}
    for name in names:
        if name in data.columns and _is_label_column(data[name]):
            values = data[name].dropna().unique()
            if len(values) == 0:
                raise DataError(f"column {name!r} has only missing values ({len(data)} rows)")
            try:
                out[name] = sorted(values.tolist())
            except TypeError:  # mixed types: leave the column to patsy
                continue
    return out


def _as_categoricals(data: pd.DataFrame, levels: dict[str, list], what: str) -> pd.DataFrame:
    """A new frame whose label columns are Categoricals with the given levels."""
    if not levels:
        return data
    converted = {}
    for name, lv in levels.items():
        if name not in data.columns:
            continue
        converted[name] = _categorical(data[name], lv, name, what)
    return data.assign(**converted)


def _categorical(col: pd.Series, levels: list, name: str, what: str) -> pd.Categorical:
    """``pd.Categorical(col, categories=levels)``, refusing a value not in ``levels``.

    The column's distinct values are looked up among the levels once
    (``pd.factorize``: NA is code −1), not each of its rows: a string column
    stored by pyarrow is never turned into an array of Python objects.  When
    some value is not found so, the rows are checked and coded one by one.
    """
    if _is_logical_levels(levels) and col.dtype.kind in "iuf":
        col = _logical_from_numbers(col, name, what)
    codes, uniques = pd.factorize(col)
    position = pd.Index(levels).get_indexer(uniques) if len(uniques) else np.zeros(0, np.intp)
    if not (position < 0).any():
        return pd.Categorical.from_codes(np.append(position, -1)[codes], categories=levels)
    new = ~np.asarray(col.isin(levels) | col.isna(), dtype=bool)
    out = pd.Categorical(col, categories=levels)
    new |= (np.asarray(out.codes) < 0) & ~np.asarray(col.isna(), dtype=bool)
    if new.any():
        unseen = pd.unique(np.asarray(col)[new])[:5].tolist()
        raise PredictionError(f"{what}: factor {name!r} has new level(s) {unseen} not seen "
                              f"in fitting (levels: {levels})")
    return out


def _is_logical_levels(levels: list) -> bool:
    return bool(levels) and all(isinstance(v, (bool, np.bool_)) for v in levels)


def _logical_from_numbers(col: pd.Series, name: str, what: str) -> pd.Series:
    """A TRUE/FALSE column given as the numbers 0 and 1, read exactly (anything else is
    refused, naming the column)."""
    values = col.dropna().unique()
    bad = [v for v in values.tolist() if v not in (0, 1)]
    if bad:
        raise PredictionError(f"{what}: column {name!r} was TRUE/FALSE in fitting; its numbers "
                              f"can only be 0 and 1, got {bad[:5]}")
    return col.map({0: False, 1: True})


_LEVEL_RE = re.compile(r"observation with value (.+?) does not match any of the expected levels")


def _translate_patsy_error(exc: PatsyError, design: Design | None, predicting: bool) -> Exception:
    msg = str(exc).split("\n")[0]
    code = None
    if exc.origin is not None:
        code = exc.origin.code[exc.origin.start:exc.origin.end]
    m = _LEVEL_RE.search(msg)
    if m:
        level = m.group(1)
        known = ""
        if design is not None and code is not None:
            for name, levels in design.levels().items():
                if code in name or name in code:
                    known = f"; levels seen in fitting: {levels}"
                    break
        return PredictionError(
            f"factor {code!r} has a new level {level} not seen in fitting{known}")
    where = f" in {code!r}" if code else ""
    cls = PredictionError if predicting else FormulaError
    return cls(f"cannot evaluate the formula{where}: {msg}")


def patsy_input(frame: pd.DataFrame, names) -> pd.DataFrame | dict:
    """What patsy evaluates a design on: the columns ``names`` of ``frame`` as NumPy
    arrays (pandas Categoricals for categorical columns), which patsy reads about ten
    times faster than a DataFrame's Series; ``frame`` itself when the formula reads no
    column (patsy then takes the number of rows from the frame)."""
    present = [n for n in dict.fromkeys(names) if n in frame.columns]
    if not present:
        return frame
    out = {}
    for name in present:
        col = frame[name]
        out[name] = col.array if isinstance(col.dtype, pd.CategoricalDtype) else col.to_numpy()
    return out


def is_dask_frame(data) -> bool:
    """True for a ``dask.dataframe.DataFrame``, decided without importing dask: if
    ``dask.dataframe`` is not in ``sys.modules`` the data cannot be one."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(data, dd.DataFrame)
