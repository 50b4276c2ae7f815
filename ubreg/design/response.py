"""The response: coding a binary or multiclass response, and the row weights.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DataError, ResponseError

__all__ = ['Response', 'is_na', 'check_response_finite', 'code_response',
           'code_response_multiclass', 'more_than_two_classes', 'code_response_as',
           'code_classes',
           'check_weights', 'kept_response_and_weights']


@dataclass
class Response:
    """How the response was coded: ``y = 1`` means ``positive``."""

    name: str
    levels: list
    positive: Any          # a label of the response's own type (a level, True, 1)
    kind: str  # "numeric 0/1", "bool", "factor"

    @property
    def negative(self):
        return self.levels[0] if self.levels[1] == self.positive else self.levels[1]

    def labels(self, cls01: np.ndarray) -> np.ndarray:
        """Map 0/1 classes to the response's labels."""
        out = np.where(cls01 == 1, self.positive, self.negative)
        return out


def is_na(values: pd.Series) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


def _infinite(values) -> np.ndarray:
    """Mask of ±inf entries of a 1-D column (numeric, or object holding floats)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        return np.zeros(len(arr), dtype=bool)
    if arr.dtype.kind == "f":
        return np.isinf(arr)
    if arr.dtype.kind == "O":
        if not any(issubclass(t, (float, np.floating)) for t in set(map(type, arr))):
            return np.zeros(len(arr), dtype=bool)      # no float at all (labels as strings)
        return np.fromiter((isinstance(v, (float, np.floating)) and bool(np.isinf(v))
                            for v in arr), dtype=bool, count=len(arr))
    return np.zeros(len(arr), dtype=bool)


def check_response_finite(values, name: str) -> None:
    """Refuse ±inf in the response: not a class label, for binary and multiclass
    responses alike (it would otherwise be counted as a class of its own)."""
    bad = _infinite(values)
    if not bad.any():
        return
    rows = (list(values.index[bad]) if isinstance(values, pd.Series)
            else np.flatnonzero(bad).tolist())
    shown = rows[:10] + (["..."] if len(rows) > 10 else [])
    signs = sorted({"+inf" if v > 0 else "-inf" for v in np.asarray(values)[bad].astype(float)})
    raise ResponseError(f"response {name!r} has infinite values ({', '.join(signs)}) in "
                        f"{int(bad.sum())} row(s) {shown}; a class label must be finite "
                        "(use NaN for a missing label)")


def _proportion(values: pd.Series, name: str, allowed: bool, grouped: bool):
    """0/1 and fractional values in [0, 1] (R's binomial proportions, fitted with the
    number of trials as weights), coded as they are; None when not proportions."""
    arr = np.asarray(values[~is_na(values)])
    if arr.dtype.kind not in "iuf" or not len(arr):
        return None
    fractional = grouped or bool(np.any((arr > 0) & (arr < 1)))
    if not fractional or arr.min() < 0 or arr.max() > 1:
        return None
    if not allowed:
        raise ResponseError(f"response {name!r} holds proportions (values in [0, 1]); this "
                            "method needs a binary response (only method='uls' with the "
                            "design columns fits proportions and cbind(successes, failures))")
    y = np.asarray(values, dtype=np.float64)
    return y, Response(name=name, levels=[0, 1], positive=1, kind="proportion")


def code_response(values: pd.Series, name: str, positive=None, proportions: bool = False,
                  grouped: bool = False) -> tuple[np.ndarray, Response]:
    """Code a binary response as 0/1; NA rows give NaN.

    The positive class (y = 1) is the second level in sorted order, as in R,
    unless ``positive`` names it.  A pandas Categorical keeps its own level
    order, as an R factor does.  Numbers in [0, 1] that are not all 0 or 1, and a
    ``cbind(successes, failures)`` response (``grouped``), are proportions: coded as
    they are (kind ``"proportion"``) when ``proportions`` is allowed, else refused.
    """
    check_response_finite(values, name)
    coded = _proportion(values, name, proportions, grouped)
    if coded is not None:
        return coded
    na = is_na(values)
    present = values[~na]
    if isinstance(values.dtype, pd.CategoricalDtype):
        observed = set(present.unique())
        levels = [c for c in values.cat.categories if c in observed]
        kind = "factor"
    else:
        arr = np.asarray(present)
        if arr.dtype.kind == "b":
            levels, kind = [False, True], "bool"
        elif arr.dtype.kind in "iuf":
            levels = sorted(set(arr.tolist()))
            kind = "numeric 0/1" if set(levels) <= {0, 1} else "numeric"
            if set(levels) <= {0, 1}:
                levels = [0, 1]
        elif arr.dtype.kind == "c":
            raise ResponseError(f"response {name!r} is complex; it must be binary")
        else:
            try:
                levels = sorted(set(arr.tolist()))
            except TypeError:
                raise ResponseError(
                    f"response {name!r} mixes types that cannot be ordered") from None
            kind = "factor"
    if kind != "bool" and len(levels) != 2:
        shown = levels[:10] + (["..."] if len(levels) > 10 else [])
        raise ResponseError(f"response {name!r} has {len(levels)} distinct value(s) {shown} "
                            f"among {len(present)} non-missing rows; a binary response needs "
                            "exactly 2")
    if positive is None:
        positive = levels[1]
    elif positive not in levels:
        raise ResponseError(f"positive={positive!r} is not a level of {name!r} (levels: {levels})")
    y = np.full(len(values), np.nan)
    y[~na] = (np.asarray(present) == positive).astype(np.float64)
    observed = y[~na]
    if observed.size == 0 or observed.min() == observed.max():
        raise ResponseError(f"response {name!r} has only one class among the {observed.size} "
                            f"rows used")
    return y, Response(name=name, levels=list(levels), positive=positive, kind=kind)


def more_than_two_classes(values, grouped: bool) -> bool:
    """Whether a response is a factor of three or more classes: more than two distinct
    values, unless it is a cbind() count or numeric within [0, 1] (0/1 or proportions)."""
    if grouped:
        return False
    s = pd.Series(values).dropna()
    if s.dtype.kind in "biuf" and bool(s.between(0, 1).all()):
        return False
    return s.nunique() > 2


def code_response_multiclass(values: pd.Series, name: str) -> tuple[np.ndarray, Response]:
    """Code a response with two or more classes as 0..C−1 (NaN for NA).

    Levels are sorted (a pandas Categorical keeps its own order).
    """
    check_response_finite(values, name)
    na = is_na(values)
    present = values[~na]
    if isinstance(values.dtype, pd.CategoricalDtype):
        observed = set(present.unique())
        levels = [c for c in values.cat.categories if c in observed]
    else:
        try:
            levels = sorted(set(np.asarray(present).tolist()))
        except TypeError:
            raise ResponseError(f"response {name!r} mixes types that cannot be ordered") from None
    if len(levels) < 2:
        raise ResponseError(f"response {name!r} has {len(levels)} class(es) among "
                            f"{len(present)} non-missing rows; classification needs at least 2")
    lookup = {v: k for k, v in enumerate(levels)}
    y = np.full(len(values), np.nan)
    y[~na] = [lookup[v] for v in np.asarray(present).tolist()]
    return y, Response(name=name, levels=list(levels), positive=None, kind="multiclass")


def _check_weighted_classes(y: np.ndarray, w: np.ndarray, name: str) -> None:
    """A row of weight 0 counts as a removed row: refuse a fit whose rows of
    positive weight hold one class only, as :func:`code_response` refuses it
    when the rows are removed (the optimum would be at infinity)."""
    if not len(w) or w.min() > 0:
        return                          # every row counts: code_response has checked them
    present = y[w > 0]
    if present.size and np.unique(present).size < 2 and np.unique(y).size >= 2:
        raise ResponseError(f"response {name!r} has only one class among the {present.size} "
                            f"rows of positive weight ({int((w == 0).sum())} rows have weight 0)")


def code_response_as(values, response: Response) -> np.ndarray:
    """0/1 coding (class codes 0..K−1 of a multiclass ``response``) of a partition's
    response with a coding learned on all the data (:func:`combine_levels`); NaN for NA."""
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    na = is_na(values)
    y = np.full(len(values), np.nan)
    if response.kind == "multiclass":
        lookup = {v: k for k, v in enumerate(response.levels)}
        y[~na] = [lookup[v] for v in np.asarray(values[~na]).tolist()]
        return y
    y[~na] = (np.asarray(values[~na]) == response.positive).astype(np.float64)
    return y


def _finite_nonnegative_weights(w: np.ndarray) -> np.ndarray:
    """float64 weights, or a DataError naming the NaN, infinite or negative ones."""
    if w.dtype.kind not in "iufb":
        raise DataError(f"weights must be numeric, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if np.isnan(w).any():
        raise DataError(f"weights contain {int(np.isnan(w).sum())} NaN value(s)")
    if not np.isfinite(w).all():
        raise DataError(f"weights contain {int(np.isinf(w).sum())} infinite value(s)")
    if (w < 0).any():
        raise DataError(f"weights contain {int((w < 0).sum())} negative value(s)")
    return w


def check_weights(weights, data: pd.DataFrame) -> np.ndarray | None:
    """Frequency weights: a column name or an array with one value per row."""
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in data.columns:
            raise DataError(f"weights column {weights!r} is not in the data")
        weights = data[weights]
    w = np.asarray(weights)
    if w.ndim != 1 or len(w) != len(data):
        raise DataError(f"weights has {w.size} values but the data have {len(data)} rows")
    w = _finite_nonnegative_weights(w)
    if not (w > 0).any():
        raise DataError("weights are all zero")
    if not np.isfinite(w.sum()):
        raise DataError("the weights add up to more than the largest double (1.8e308); divide "
                        "them by a constant (a fit does not depend on the scale of prior "
                        "weights)")
    return w


def kept_response_and_weights(yvals, keep: np.ndarray, response: Response, frame,
                              weights: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The coded response and the weights (checked; ones without a weights column) of
    the rows ``keep`` of a partition."""
    yk = yvals[keep] if isinstance(yvals, pd.Series) else np.asarray(yvals)[keep]
    y = code_response_as(yk, response)
    if weights is None:
        return y, np.ones(len(y))
    return y, _finite_nonnegative_weights(np.asarray(frame[weights]))[keep]


def code_classes(values, name: str, positive=None, *, response: str = "binary",
                 proportions: bool = False, grouped: bool = False
                 ) -> tuple[np.ndarray, Response]:
    """The coding of a response: ``response="binary"`` (:func:`code_response`),
    ``"multiclass"`` (:func:`code_response_multiclass`) or ``"auto"`` (multiclass when it
    has more than two classes); a ``cbind()`` proportion is never classes."""
    if response == "auto":
        response = "multiclass" if more_than_two_classes(values, grouped) else "binary"
    if response == "multiclass":
        if grouped:
            raise ResponseError(f"response {name!r}: cbind() gives a proportion, not classes")
        y, coded = code_response_multiclass(pd.Series(values), name)
        if positive is not None and len(coded.levels) > 2:
            raise ResponseError(f"positive={positive!r} names the positive of two classes; "
                                f"the response {name!r} has {len(coded.levels)} "
                                f"({coded.levels[:10]}): leave positive unset")
        return y, coded
    return code_response(values if isinstance(values, pd.Series) else pd.Series(values), name,
                         positive, proportions, grouped)
