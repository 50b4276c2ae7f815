"""One reading of a column's type, the same at fit and at predict.

A model must read a column the same way when it is fitted and when it predicts,
whatever dtype pandas happened to give it.  :func:`normalise_columns` applies
these rules to the columns a formula reads:

- numbers stored as ``object`` are numbers (what ``pandas.Series.infer_objects``
  and ``pandas.api.types.infer_dtype`` call integer, floating or decimal),
  never factor levels; an ``object`` column of ``True``/``False`` is a factor
  with levels ``False`` < ``True``, as a ``bool`` column is;
- pandas' nullable dtypes behave exactly as their NumPy counterparts with NaN:
  ``Int64``/``Float64``/``UInt8``... are float64 with NaN for ``pd.NA``;
  ``boolean`` and ``string`` are ``object`` columns with NaN for ``pd.NA``;
- dates and durations are numbers of seconds, as R's ``POSIXct`` is: a
  ``datetime64`` column is seconds since 1970-01-01 UTC (a time-zone-aware one is
  converted to UTC first), a ``timedelta64`` column seconds; ``NaT`` is NaN.

Categorical columns are left alone (they keep their levels and order).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["normalise_columns", "normalise_column", "time_zones", "check_time_zones"]

_NUMERIC_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal"})
_EPOCH = pd.Timestamp("1970-01-01")
_SECOND = pd.Timedelta(1, "s")


def _with_nan(col: pd.Series) -> pd.Series:
    """An ``object`` copy of ``col`` with NaN where it is NA."""
    out = col.astype(object)
    return out.where(col.notna(), np.nan)


def normalise_column(col: pd.Series) -> pd.Series | None:
    """``col`` as ubreg reads it, or ``None`` when it is read as it is."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return None
    if pd.api.types.is_datetime64_any_dtype(dtype):
        if getattr(dtype, "tz", None) is not None:
            col = col.dt.tz_convert("UTC").dt.tz_localize(None)
        return (col - _EPOCH) / _SECOND
    if pd.api.types.is_timedelta64_dtype(dtype):
        return col / _SECOND
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        if isinstance(dtype, pd.BooleanDtype):
            return _with_nan(col) if col.isna().any() else col.astype(bool)
        if isinstance(dtype, pd.StringDtype):
            return _with_nan(col) if dtype.na_value is pd.NA else None
        if dtype.kind in "iuf":
            return pd.Series(col.to_numpy(dtype=np.float64, na_value=np.nan), index=col.index,
                             name=col.name)
        return None
    if dtype == object:  # noqa: E721 - a dtype, not a type: np.dtype("O") == object
        kind = pd.api.types.infer_dtype(col, skipna=True)
        if kind in _NUMERIC_KINDS:
            return pd.to_numeric(col.where(col.notna(), np.nan), errors="coerce").astype(np.float64)
        if kind == "boolean" or col.isna().any():
            return _with_nan(col)
    return None


def time_zones(data: pd.DataFrame, names) -> dict[str, bool]:
    """For each datetime column of ``names``: whether it is time-zone-aware."""
    out = {}
    for name in names:
        if name in data.columns and pd.api.types.is_datetime64_any_dtype(data[name].dtype):
            out[name] = getattr(data[name].dtype, "tz", None) is not None
    return out


def check_time_zones(data: pd.DataFrame, zones: dict[str, bool], what: str) -> None:
    """Refuse new data whose datetime column is time-zone-aware where the training column
    was naive, or the other way round: a naive time is not an instant (reading it as UTC
    would move it silently)."""
    from ..errors import PredictionError
    for name, aware in zones.items():
        if name not in data.columns or not pd.api.types.is_datetime64_any_dtype(
                data[name].dtype):
            continue
        now = getattr(data[name].dtype, "tz", None) is not None
        if now != aware:
            had = "a time zone" if aware else "no time zone"
            has = "has one" if now else "has none"
            raise PredictionError(f"{what}: column {name!r} had {had} in fitting and {has} "
                                  "here; give the times as the model was fitted "
                                  "(Series.dt.tz_localize / tz_convert)")


def normalise_columns(data: pd.DataFrame, names) -> pd.DataFrame:
    """``data`` with the columns ``names`` read by the module's rules.

    Returns ``data`` itself when nothing changes, else a new frame (the
    caller's frame is never modified).
    """
    out = None
    for name in names:
        if name not in data.columns:
            continue
        new = normalise_column(data[name])
        if new is None:
            continue
        if out is None:
            out = data.copy(deep=False)
        out[name] = new.to_numpy() if isinstance(new, pd.Series) else new
    return data if out is None else out
