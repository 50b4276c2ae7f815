"""patsy's NA handler that remembers which rows had NA (R's ``na.action`` record)."""
from __future__ import annotations

import numpy as np
from patsy import NAAction

from ..errors import DataError

__all__ = ["KeepingNAAction", "RecordingNAAction"]


class RecordingNAAction(NAAction):
    """patsy's NA handler that remembers which rows had NA, and where."""

    def __init__(self, on_NA="drop"):
        super().__init__(on_NA="drop", NA_types=["None", "NaN"])
        self.mode = "fail" if on_NA in ("fail", "raise") else "omit"
        self.mask = None
        self.na_factors = []

    def handle_NA(self, values, is_NAs, origins):
        n = len(is_NAs[0]) if is_NAs else 0
        mask = np.zeros(n, dtype=bool)
        for is_na, origin in zip(is_NAs, origins):
            if np.any(is_na):
                name = origin.code[origin.start:origin.end] if origin is not None else "?"
                self.na_factors.append((name, int(np.sum(is_na))))
            mask |= is_na
        self.mask = mask
        if self.mode == "fail" and mask.any():
            detail = ", ".join(f"{name!r} ({k} rows)" for name, k in self.na_factors)
            raise DataError(f"missing values (NA) in {detail} and na_action='fail'")
        return super().handle_NA(values, is_NAs, origins)


class KeepingNAAction(RecordingNAAction):
    """patsy's NA handler for the methods that keep rows with NA predictors
    (``Method.keeps_missing``: U-Boost, t-AdaBoost): no row is dropped.

    patsy evaluates every factor on every row; where a factor is NA its values are
    filled with a placeholder (0, or a categorical factor's first level) so that
    patsy can code them, and :meth:`blank` then writes NaN into every column of
    every term that holds the factor.  A missing level of a factor is thus NaN in
    each of its dummy columns (and in its interactions): the trees send it along
    the missing-value direction each split learned.
    """

    def __init__(self, on_NA="drop"):
        super().__init__(on_NA)
        self.by_origin: dict = {}

    def handle_NA(self, values, is_NAs, origins):
        n = len(is_NAs[0]) if is_NAs else 0
        mask = np.zeros(n, dtype=bool)
        out = []
        for value, is_na, origin in zip(values, is_NAs, origins):
            is_na = np.asarray(is_na, dtype=bool)
            if is_na.any():
                name = origin.code[origin.start:origin.end] if origin is not None else "?"
                self.na_factors.append((name, int(is_na.sum())))
                self.by_origin[origin] = is_na
                value = np.array(value, copy=True)
                # categorical codes are −1 where NA; numbers NaN
                value[is_na] = 0
            mask |= is_na
            out.append(value)
        self.mask = np.zeros(n, dtype=bool)
        if self.mode == "fail" and mask.any():
            detail = ", ".join(f"{name!r} ({k} rows)" for name, k in self.na_factors)
            raise DataError(f"missing values (NA) in {detail} and na_action='fail'")
        return out

    def blank(self, X: np.ndarray, design_info) -> np.ndarray:
        """``X`` with NaN in the columns of every term holding a factor NA in the row."""
        if not self.by_origin:
            return X
        X = np.array(X, dtype=np.float64, copy=True)
        for term, cols in design_info.term_slices.items():
            rows = np.zeros(X.shape[0], dtype=bool)
            for factor in term.factors:
                na = self.by_origin.get(factor.origin)
                if na is not None:
                    rows |= na
            X[rows, cols] = np.nan
        return X
