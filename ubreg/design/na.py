"""patsy's NA handler that remembers which rows had NA (R's ``na.action`` record)."""
from __future__ import annotations

import numpy as np
from patsy import NAAction

from ..errors import DataError

__all__ = ["RecordingNAAction"]


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
