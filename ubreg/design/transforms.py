"""Stateful transforms that skip missing values, as R's do.

patsy's ``center``, ``standardize``, ``bs``, ``cr`` and ``cc`` learn their
state (mean, standard deviation, knots) from every row, so one NaN makes the
whole column NaN and every row is dropped.  R computes ``scale(x)`` and
``splines::bs(x)`` from the non-missing values and returns NA for a missing
one; the row is then dropped like any row with NA (``model.frame``).  These
subclasses do the same: the state is learned from the complete rows, and a
row with NaN in the input gives NaN in every output column.
"""
from __future__ import annotations

import numpy as np
from patsy.mgcv_cubic_splines import CC, CR
from patsy.splines import BS
from patsy.state import Center, Standardize, stateful_transform

__all__ = ["center", "standardize", "scale", "bs", "cr", "cc"]


def _complete_rows(values: np.ndarray) -> np.ndarray:
    if values.ndim == 1:
        return ~np.isnan(values)
    return ~np.isnan(values).any(axis=tuple(range(1, values.ndim)))


def _as_float(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class _SkipMissing:
    """Mixin: learn from the complete rows; NaN out for an incomplete row."""

    # The ignores below: super() is the patsy transform this is mixed into (the class
    # that follows it in the bases), which mypy cannot see from the mixin alone.
    def memorize_chunk(self, x, *args, **kwargs):
        values = _as_float(x)
        super().memorize_chunk(  # type: ignore[misc]
            values[_complete_rows(values)], *args, **kwargs)

    def transform(self, x, *args, **kwargs):
        values = _as_float(x)
        keep = _complete_rows(values)
        if keep.all():
            return super().transform(x, *args, **kwargs)  # type: ignore[misc]
        inner = np.asarray(super().transform(  # type: ignore[misc]
            values[keep], *args, **kwargs), dtype=np.float64)
        out = np.full((len(values),) + inner.shape[1:], np.nan)
        out[keep] = inner
        return out


class CenterSkipMissing(_SkipMissing, Center):
    """``center(x)``: subtract the mean of the non-missing values."""


class StandardizeSkipMissing(_SkipMissing, Standardize):
    """``standardize(x)`` / ``scale(x)``: centre and scale by the moments of the
    non-missing values."""


class BSSkipMissing(_SkipMissing, BS):
    """``bs(x, ...)``: B-spline basis with knots from the non-missing values."""


class CRSkipMissing(_SkipMissing, CR):
    """``cr(x, ...)``: natural cubic regression spline, knots from the non-missing values."""


class CCSkipMissing(_SkipMissing, CC):
    """``cc(x, ...)``: cyclic cubic regression spline, knots from the non-missing values."""


center = stateful_transform(CenterSkipMissing)
standardize = stateful_transform(StandardizeSkipMissing)
scale = standardize
bs = stateful_transform(BSSkipMissing)
cr = stateful_transform(CRSkipMissing)
cc = stateful_transform(CCSkipMissing)
