"""Functions of a formula that learn from the training rows: their state is kept for
predict, as R's ``makepredictcall`` keeps ``poly``'s and ``scale``'s.

Each is a class with ``learn(args)`` (one chunk of rows: one frame in memory, one
partition on Dask), ``finish()`` and ``apply(args)``; ``args`` maps the function's
parameters to evaluated values (:mod:`ubreg.design.rfunctions` declares them).

- Factors: ``factor``, ``as.factor``, ``ordered``, ``relevel`` and ``C`` learn their
  levels, so new data are coded with the training levels (a value not seen in fitting
  is refused, where R's own ``factor()`` would silently re-level new data).
- ``scale(x)`` is R's: centred by the mean and divided by the standard deviation
  (n − 1) of the non-missing values; ``center`` and ``standardize`` are patsy's
  (``standardize`` divides by the n − 0 deviation unless ``ddof`` says otherwise).
- Bases: ``poly``, ``ns`` (R's, :mod:`ubreg.design.splines`), ``bs`` (R's
  ``splines::bs``, by patsy), ``cr``, ``cc``, ``te`` (patsy's mgcv-style splines).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..errors import FormulaError, PredictionError
from .contrasts import ContrastSpec
from .deparse import r_level
from .splines import NaturalSpline, PolyBasis
from .transforms import BSSkipMissing, CCSkipMissing, CRSkipMissing
from .values import Factor, as_factor, as_numbers, level_key

__all__ = ["FactorLevels", "Scale", "Basis", "TensorBasis"]


def _observed(value, where: str) -> list:
    """The distinct non-NA values of a chunk, in the order their levels have."""
    factor = as_factor(value, where)
    used = np.zeros(len(factor.levels), dtype=bool)
    if len(factor.codes):
        used[np.unique(factor.codes[factor.codes >= 0])] = True
    return [lv for lv, u in zip(factor.levels, used) if u]


class FactorLevels:
    """``factor(x, levels, labels)``, ``as.factor(x)``, ``ordered(x)``, ``C(x, contrast,
    levels)`` and ``relevel(x, ref)``: levels learned from the training rows (the
    levels given, or the distinct values in the order R sorts them), kept."""

    def __init__(self, where: str, levels=None, labels=None, ordered=None, ref=None,
                 contrast: ContrastSpec | None = None):
        self.where = where
        self.given = None if levels is None else list(levels)
        self.labels = None if labels is None else list(labels)
        self.ordered = ordered
        self.ref = ref
        self.contrast = contrast
        self.seen: list = []
        self.input_order: list | None = None
        self.levels: list | None = None
        self.input_ordered = False

    def learn(self, args: dict) -> None:
        x = args["x"]
        if isinstance(x, Factor):
            self.input_order = list(x.levels)
            self.input_ordered = x.ordered
        for value in _observed(x, self.where):
            if value not in self.seen:
                self.seen.append(value)

    def finish(self) -> None:
        if self.given is not None:
            levels = list(self.given)
        elif self.input_order is not None:
            levels = [v for v in self.input_order if v in self.seen]
        else:
            levels = sorted(self.seen)
        if self.ref is not None:
            levels = self._relevelled(levels)
        if self.labels is not None and len(self.labels) != len(levels):
            raise FormulaError(f"{self.where}: {len(self.labels)} labels for {len(levels)} "
                               "levels")
        self.levels = levels

    def _relevelled(self, levels: list) -> list:
        if self.input_ordered:
            raise FormulaError(f"{self.where}: relevel() is only for unordered factors")
        for i, level in enumerate(levels):
            if level == self.ref or r_level(level) == str(self.ref):
                return [levels[i]] + levels[:i] + levels[i + 1:]
        raise FormulaError(f"{self.where}: ref = {self.ref!r} is not a level of the "
                           f"factor (levels: {[r_level(v) for v in levels]})")

    def apply(self, args: dict) -> Factor:
        if self.levels is None:
            raise FormulaError(f"{self.where}: used before its levels were learned")
        x = args["x"]
        codes = _codes(as_factor(x, self.where), self.levels)
        strict = self.given is None
        unknown = (codes < 0) & ~as_factor(x, self.where).na
        if strict and unknown.any():
            values = as_factor(x, self.where)
            new = sorted({values.labels[c] for c in values.codes[unknown]})[:5]
            raise PredictionError(f"{self.where}: new level(s) {new} not seen in fitting "
                                  f"(levels: {[r_level(v) for v in self.levels]})")
        ordered = self.ordered if self.ordered is not None else \
            (isinstance(x, Factor) and x.ordered and self.ref is None)
        labels = self.labels or [r_level(v) for v in self.levels]
        return Factor(codes, list(self.levels), list(labels), text=False,
                      ordered=bool(ordered), contrast=self.contrast)


def _codes(factor: Factor, levels: list) -> np.ndarray:
    """The codes of ``factor``'s values among ``levels`` (−1: NA or not a level)."""
    position: dict = {}
    for i, level in enumerate(levels):
        position.setdefault(level_key(level), i)
    lookup = np.asarray([position.get(level_key(v), -1) for v in factor.levels] + [-1],
                        dtype=np.int64)
    return lookup[factor.codes]


class Scale:
    """``scale(x, center, scale)`` (R: the n − 1 standard deviation, or the root mean
    square when not centred), ``center(x)`` and ``standardize(x, center, rescale,
    ddof)`` (patsy's), learned from the non-missing values."""

    def __init__(self, where: str, center: bool = True, scale: bool = True, ddof: int = 1):
        self.where = where
        self.center, self.scale, self.ddof = bool(center), bool(scale), int(ddof)
        self._chunks: list[np.ndarray] = []
        self.shift = 0.0
        self.divisor = 1.0

    def learn(self, args: dict) -> None:
        x = np.asarray(as_numbers(args["x"], self.where), dtype=np.float64)
        self._chunks.append(x[~np.isnan(x)])

    def finish(self) -> None:
        x = np.concatenate(self._chunks) if self._chunks else np.zeros(0)
        self._chunks = []
        if self.center:
            self.shift = float(np.mean(x)) if len(x) else 0.0
        if self.scale:
            dof = len(x) - self.ddof
            if dof <= 0:
                raise FormulaError(f"{self.where}: too few non-missing values to scale")
            self.divisor = float(np.sqrt(np.sum((x - self.shift) ** 2) / dof))
            if self.divisor == 0.0:
                raise FormulaError(f"{self.where}: the values are constant, so they cannot "
                                   "be scaled")

    def apply(self, args: dict) -> np.ndarray:
        x = np.asarray(as_numbers(args["x"], self.where), dtype=np.float64)
        return (x - self.shift) / self.divisor


@contextmanager
def _as_formula_error(where: str):
    """patsy's and numpy's complaints about a basis's arguments, as a FormulaError
    naming the call."""
    try:
        yield
    except FormulaError:
        raise
    except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as exc:
        raise FormulaError(f"{where}: {exc}") from None


_BASES = {"poly": PolyBasis, "ns": NaturalSpline, "bs": BSSkipMissing, "cr": CRSkipMissing,
          "cc": CCSkipMissing}
#: R's argument names for patsy's (bs: R's intercept, Boundary.knots)
_PATSY_NAMES = {"intercept": "include_intercept"}


class Basis:
    """``poly``, ``ns``, ``bs``, ``cr``, ``cc``: a basis learned from the training rows
    by the class in :data:`_BASES` (its ``memorize_chunk``/``transform`` protocol)."""

    def __init__(self, name: str, where: str, options: dict):
        self.name, self.where = name, where
        self.options = self._patsy_options(name, options)
        self.impl: Any = _BASES[name]()

    @staticmethod
    def _patsy_options(name: str, options: dict) -> dict:
        out = {}
        for key, value in options.items():
            if value is None:
                continue
            if key == "Boundary.knots":
                if name == "ns":
                    out["Boundary_knots"] = list(value)
                else:
                    out["lower_bound"], out["upper_bound"] = value
                continue
            if isinstance(value, tuple):
                value = list(value)
            out[_PATSY_NAMES.get(key, key) if name == "bs" else key] = value
        return out

    def _x(self, args: dict) -> np.ndarray:
        return np.asarray(as_numbers(args["x"], self.where), dtype=np.float64)

    def learn(self, args: dict) -> None:
        with _as_formula_error(self.where):
            self.impl.memorize_chunk(self._x(args), **self.options)

    def finish(self) -> None:
        with _as_formula_error(self.where):
            self.impl.memorize_finish()

    def apply(self, args: dict) -> np.ndarray:
        with _as_formula_error(self.where):
            out = self.impl.transform(self._x(args), **self.options)
        return np.asarray(out.to_numpy() if isinstance(out, pd.DataFrame) else out,
                          dtype=np.float64)


class TensorBasis:
    """``te(b1, b2, ...)``: patsy's tensor product of the bases its arguments give."""

    def __init__(self, where: str, constraints=None):
        from patsy.mgcv_cubic_splines import TE
        self.where = where
        self.options = {} if constraints is None else {"constraints": constraints}
        self.impl = TE()

    def _bases(self, args: dict) -> list:
        bases = [np.asarray(as_numbers(b, self.where)) for b in args["bases"]]
        if not bases or any(b.ndim != 2 for b in bases):
            raise FormulaError(f"{self.where}: te() multiplies spline bases, as in "
                               "te(cr(x, df = 4), cc(z, df = 4))")
        return bases

    def learn(self, args: dict) -> None:
        with _as_formula_error(self.where):
            self.impl.memorize_chunk(*self._bases(args), **self.options)

    def finish(self) -> None:
        with _as_formula_error(self.where):
            self.impl.memorize_finish()

    def apply(self, args: dict) -> np.ndarray:
        with _as_formula_error(self.where):
            out = self.impl.transform(*self._bases(args), **self.options)
        return np.asarray(out, dtype=np.float64)

