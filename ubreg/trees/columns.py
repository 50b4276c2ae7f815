"""Predictor columns for the tree engine, and validation of its inputs.

The engine works on a list of :class:`TreeColumn`, one per predictor, in the
order of the model formula (that order breaks ties between equally good splits,
as in rpart).  A numeric column holds float64 values with NaN for missing; a
categorical column holds int64 codes 0..L-1 into ``levels``, with -1 for
missing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TreeColumn", "check_columns", "check_response", "ColumnSpec"]

NUMERIC = "numeric"
CATEGORICAL = "categorical"


@dataclass(frozen=True)
class TreeColumn:
    """One predictor: its name, kind, values and (categorical) level names.

    Parameters
    ----------
    name : str
        Predictor name, as printed in splits (``glucose< 143.5``).
    kind : {"numeric", "categorical"}
        Numeric predictors split at midpoints between consecutive distinct
        values; categorical predictors split into two sets of levels.
    values : ndarray
        Numeric: float64, NaN for missing.  Categorical: int64 codes
        ``0..len(levels)-1``, -1 for missing.
    levels : list of str or None
        Level names of a categorical predictor (``None`` for numeric).
    """

    name: str
    kind: str
    values: np.ndarray
    levels: list | None = None

    def __post_init__(self):
        if self.kind not in (NUMERIC, CATEGORICAL):
            raise ValueError(f"column {self.name!r}: kind must be 'numeric' or 'categorical', "
                             f"got {self.kind!r}")


@dataclass(frozen=True)
class ColumnSpec:
    """What a fitted tree remembers about a column: no data, only its shape."""

    name: str
    kind: str
    levels: tuple | None


def _numeric_values(col: TreeColumn) -> np.ndarray:
    vals = np.asarray(col.values)
    if vals.ndim != 1:
        raise ValueError(f"column {col.name!r}: values must be one-dimensional")
    if not np.issubdtype(vals.dtype, np.number) and vals.dtype != bool:
        raise ValueError(f"column {col.name!r}: numeric values must be numbers, got {vals.dtype}")
    return np.ascontiguousarray(vals, dtype=np.float64)


def _categorical_values(col: TreeColumn) -> np.ndarray:
    vals = np.asarray(col.values)
    if vals.ndim != 1:
        raise ValueError(f"column {col.name!r}: values must be one-dimensional")
    if col.levels is None:
        raise ValueError(f"column {col.name!r}: a categorical column needs its levels")
    if not np.issubdtype(vals.dtype, np.integer):
        raise ValueError(f"column {col.name!r}: categorical codes must be integers, "
                         f"got {vals.dtype}")
    vals = np.ascontiguousarray(vals, dtype=np.int64)
    if vals.size and (vals.min() < -1 or vals.max() >= len(col.levels)):
        raise ValueError(f"column {col.name!r}: codes must lie in -1..{len(col.levels) - 1} "
                         f"(-1 = missing)")
    return vals


def check_columns(columns, n: int | None = None):
    """Validate predictor columns; return (values list, specs list, n rows).

    Raises
    ------
    ValueError
        No columns, duplicated names, unequal lengths, wrong kinds or codes.
    """
    columns = list(columns)
    if not columns:
        raise ValueError("a tree needs at least one predictor column")
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicated predictor names: {names}")
    values, specs = [], []
    for col in columns:
        if not isinstance(col, TreeColumn):
            raise TypeError(f"columns must be TreeColumn, got {type(col).__name__}")
        if col.kind == NUMERIC:
            v = _numeric_values(col)
            specs.append(ColumnSpec(col.name, NUMERIC, None))
        else:
            v = _categorical_values(col)
            assert col.levels is not None       # _categorical_values requires them
            specs.append(ColumnSpec(col.name, CATEGORICAL, tuple(str(s) for s in col.levels)))
        if n is None:
            n = v.shape[0]
        elif v.shape[0] != n:
            raise ValueError(f"column {col.name!r} has {v.shape[0]} rows, expected {n}")
        values.append(v)
    return values, specs, n


def check_response(y, weight, n: int):
    """Validate y (0/1) and frequency weights (≥ 0, finite); return float64 arrays."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y has shape {y.shape}, expected ({n},) to match the columns")
    yf = y.astype(np.float64)
    if not np.all((yf == 0.0) | (yf == 1.0)):
        raise ValueError("y must hold only 0 and 1")
    if weight is None:
        w = np.ones(n)
    else:
        w = np.asarray(weight, dtype=np.float64)
        if w.ndim != 1 or w.shape[0] != n:
            raise ValueError(f"weight has shape {w.shape}, expected ({n},) to match the columns")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights must be finite")
        if np.any(w < 0):
            raise ValueError("weights must be non-negative (frequency weights)")
    if not np.sum(w) > 0:
        raise ValueError("the total weight is zero: nothing to grow a tree on")
    return yf, np.ascontiguousarray(w)


def align_columns(columns, specs):
    """Values of new-data ``columns`` laid out like the training ``specs``.

    Columns are matched by name (extra columns are ignored).  Categorical codes
    are remapped through level names, so new data may order or extend the
    levels differently; a level unseen in training gets code -1 only when it
    is missing, and otherwise a code past the training levels (routed like a
    missing value at every split, see :mod:`ubreg.trees.route`).
    """
    by_name = {c.name: c for c in columns}
    out, n = [], None
    for spec in specs:
        if spec.name not in by_name:
            raise ValueError(f"new data lacks the predictor {spec.name!r}")
        col = by_name[spec.name]
        if col.kind != spec.kind:
            raise ValueError(f"predictor {spec.name!r} was {spec.kind} in training, got {col.kind}")
        if spec.kind == NUMERIC:
            v = _numeric_values(col)
        else:
            v = _categorical_values(col)
            new_levels = [str(s) for s in col.levels]
            if tuple(new_levels) != spec.levels:
                index = {lev: i for i, lev in enumerate(spec.levels)}
                unseen = len(spec.levels)
                table = np.array([index.get(lev, unseen) for lev in new_levels] + [-1],
                                 dtype=np.int64)
                v = table[v]  # code -1 indexes the trailing -1 (missing stays missing)
        if n is None:
            n = v.shape[0]
        elif v.shape[0] != n:
            raise ValueError(f"column {spec.name!r} has {v.shape[0]} rows, expected {n}")
        out.append(v)
    return out, (0 if n is None else n)


def weight_floor(k, total):
    """``k`` less a rounding tolerance, for comparing a sum of frequency weights
    with the count ``k``: a child or node of weight at least this holds at least
    ``k`` observations.  Integer weights give exact sums (the tolerance, < 1,
    changes nothing); for other weights it absorbs the rounding of cumulative
    sums whose magnitude is up to ``total`` (the weight of all rows)."""
    return k - min(1e-12 * max(float(total), float(k)), 0.5)
