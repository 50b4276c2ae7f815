"""The values of R expressions inside a formula, and R's operators on them.

Three kinds of vector, one value per row, as R has them: numbers (a float64 array,
NaN for NA; a matrix for a basis such as ``poly(x, 2)``), logicals (:class:`Logical`:
TRUE/FALSE with NA) and factors (:class:`Factor`: level codes, −1 for NA, and the
levels).  Scalars and ``c(...)`` of literals are plain Python values and tuples.  The
operators follow R: arithmetic on numbers (logicals count as 0/1), comparisons and
``&``, ``|``, ``!`` with R's three-valued NA logic, ``%in%`` by value, a factor
compared with a level by the level's label.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import FormulaError
from .deparse import r_level

__all__ = ["Logical", "Factor", "as_numbers", "as_logical", "as_factor", "arithmetic",
           "compare", "logical_op", "negate", "member", "column_value", "rows_of", "level_key"]


@dataclass
class Logical:
    """R's logical vector: ``values`` (bool) and ``na`` (bool mask, or None)."""

    values: np.ndarray
    na: np.ndarray | None = None

    def __len__(self):
        return len(self.values)

    def numbers(self) -> np.ndarray:
        out = self.values.astype(np.float64)
        if self.na is not None:
            out[self.na] = np.nan
        return out


@dataclass
class Factor:
    """R's factor: ``codes`` (0..L−1, −1 for NA) into ``levels`` (the values they
    stand for), ``labels`` as R prints them; ``text`` marks a factor made from a text
    column (R's character vector), ``ordered`` an ordered factor; ``contrast`` is
    set by ``C()``."""

    codes: np.ndarray
    levels: list
    labels: list = field(default_factory=list)
    text: bool = False
    ordered: bool = False
    contrast: object = None

    def __post_init__(self):
        if not self.labels:
            self.labels = [r_level(v) for v in self.levels]

    def __len__(self):
        return len(self.codes)

    @property
    def na(self) -> np.ndarray:
        return self.codes < 0


def rows_of(value) -> int | None:
    """The number of rows of a vector value; None for a scalar or a constant vector."""
    if isinstance(value, (Logical, Factor)):
        return len(value)
    if isinstance(value, np.ndarray):
        return value.shape[0]
    return None


def column_value(values, text: bool = False):
    """A data column as a formula value: a pandas Categorical of TRUE/FALSE is a
    logical, another Categorical a factor (``text`` when it was a text column),
    booleans a logical, numbers float64."""
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.Categorical):
        cats = list(values.categories)
        codes = np.asarray(values.codes, dtype=np.int64)
        if cats and all(isinstance(c, (bool, np.bool_)) for c in cats):
            truth = np.asarray([bool(c) for c in cats])[np.maximum(codes, 0)]
            na = codes < 0
            return Logical(truth, na if na.any() else None)
        return Factor(codes, cats, text=text, ordered=bool(values.ordered))
    arr = np.asarray(values)
    if arr.dtype.kind == "b":
        return Logical(arr.astype(bool))
    if arr.dtype.kind in "iuf":
        return arr.astype(np.float64, copy=False)
    if arr.dtype.kind in "OUS" or str(arr.dtype) in ("str", "string"):
        return _text_factor(arr)
    raise FormulaError(f"a column of dtype {arr.dtype} cannot be used in a formula")


def _text_factor(arr: np.ndarray) -> Factor:
    codes, uniques = pd.factorize(pd.Series(arr, dtype=object), sort=True)
    return Factor(np.asarray(codes, dtype=np.int64), list(uniques), text=True)


def _what(value) -> str:
    if isinstance(value, Factor):
        return "a factor" if not value.text else "text"
    if isinstance(value, str):
        return "a string"
    return "this value"


def as_numbers(value, where: str):
    """``value`` as numbers (float64 array or float), as R's arithmetic reads it."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Logical):
        return value.numbers()
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if value is None:
        raise FormulaError(f"{where}: NULL is not a number")
    raise FormulaError(f"{where}: {_what(value)} is not a number (R's arithmetic needs "
                       "numbers; as.numeric() of a factor gives its level codes)")


def as_logical(value, where: str) -> Logical | bool:
    """``value`` as R's logical (numbers: non-zero is TRUE, NaN is NA)."""
    if isinstance(value, Logical):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float)):
        return bool(value) if value == value else Logical(np.zeros(1, bool), np.ones(1, bool))
    if isinstance(value, np.ndarray) and value.ndim == 1:
        na = np.isnan(value)
        return Logical(np.where(na, False, value != 0), na if na.any() else None)
    raise FormulaError(f"{where}: {_what(value)} is not a logical (TRUE/FALSE) value")


def _broadcast_logical(value, n: int) -> Logical:
    if isinstance(value, Logical):
        if len(value) == 1 and n != 1:
            na = None if value.na is None else np.repeat(value.na, n)
            return Logical(np.repeat(value.values, n), na)
        return value
    return Logical(np.full(n, bool(value)))


def _length(*values) -> int:
    sizes = {len(v) for v in values if isinstance(v, Logical)}
    return max(sizes) if sizes else 1


def negate(value, where: str):
    """R's ``!``."""
    value = as_logical(value, where)
    if isinstance(value, bool):
        return not value
    return Logical(~value.values, value.na)


def logical_op(op: str, left, right, where: str):
    """R's ``&`` and ``|`` with three-valued logic: ``FALSE & NA`` is FALSE,
    ``TRUE | NA`` is TRUE, otherwise NA propagates."""
    a, b = as_logical(left, where), as_logical(right, where)
    if isinstance(a, bool) and isinstance(b, bool):
        return (a and b) if op == "&" else (a or b)
    n = _length(a, b)
    a, b = _broadcast_logical(a, n), _broadcast_logical(b, n)
    a_na = a.na if a.na is not None else np.zeros(n, bool)
    b_na = b.na if b.na is not None else np.zeros(n, bool)
    if op == "&":
        values = a.values & b.values
        decided = (~a_na & ~a.values) | (~b_na & ~b.values)     # a FALSE decides
    else:
        values = a.values | b.values
        decided = (~a_na & a.values) | (~b_na & b.values)       # a TRUE decides
    na = (a_na | b_na) & ~decided
    return Logical(values & ~na, na if na.any() else None)


_ARITHMETIC = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "^": np.power,
    "%%": np.mod, "%/%": np.floor_divide,
}


def arithmetic(op: str, left, right, where: str):
    """R's ``+ - * / ^ %% %/%`` (NaN for what R gives NaN or NA)."""
    a, b = as_numbers(left, where), as_numbers(right, where)
    with np.errstate(all="ignore"):
        if op == "^" and isinstance(a, float) and isinstance(b, float):
            return _scalar_power(a, b)
        out = _ARITHMETIC[op](a, b)
    return float(out) if np.ndim(out) == 0 else out


def _scalar_power(a: float, b: float) -> float:
    if a == 1.0 or b == 0.0:
        return 1.0                          # R: 1^NA and NA^0 are 1
    try:
        value = a ** b
    except OverflowError:
        return float("inf")
    return float("nan") if isinstance(value, complex) else float(value)


_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater,
            "<=": np.less_equal, ">=": np.greater_equal}


def _labels_of(value) -> tuple[np.ndarray, np.ndarray] | None:
    """(labels as object array, NA mask) of a factor; None otherwise."""
    if isinstance(value, Factor):
        labels = np.asarray(value.labels + [""], dtype=object)[value.codes]
        return labels, value.na
    return None


def _as_text(value) -> str:
    return value if isinstance(value, str) else r_level(value)


def compare(op: str, left, right, where: str):
    """R's comparisons; a factor is compared by its labels (``race == "white"``,
    ``factor(ftv) == 1``), and only with ``==`` and ``!=``."""
    fl, fr = _labels_of(left), _labels_of(right)
    if fl is not None or fr is not None or isinstance(left, str) or isinstance(right, str):
        return _compare_text(op, left, right, fl, fr, where)
    a, b = as_numbers(left, where), as_numbers(right, where)
    with np.errstate(invalid="ignore"):
        values = _COMPARE[op](a, b)
    if np.ndim(values) == 0:
        return bool(values) if not (np.isnan(a) or np.isnan(b)) else \
            Logical(np.zeros(1, bool), np.ones(1, bool))
    na = np.isnan(a) | np.isnan(b)
    return Logical(np.asarray(values) & ~na, na if np.any(na) else None)


def _compare_text(op, left, right, fl, fr, where):
    if op not in ("==", "!="):
        raise FormulaError(f"{where}: '{op}' is not meaningful for factors or text (R "
                           "compares them with == and != only)")
    if fl is not None and fr is not None:
        values = fl[0] == fr[0]
        na = fl[1] | fr[1]
    elif fl is not None or fr is not None:
        labels, na = fl if fl is not None else fr
        other = right if fl is not None else left
        if isinstance(other, (np.ndarray, Logical)):
            raise FormulaError(f"{where}: a factor compared with a numeric column; compare "
                               "it with a level, as in race == \"white\"")
        values = labels == _as_text(other)
    else:
        return (_as_text(left) == _as_text(right)) == (op == "==")
    values = np.asarray(values, dtype=bool)
    if op == "!=":
        values = ~values
    return Logical(values & ~na, na if na.any() else None)


def member(left, right, where: str) -> Logical | bool:
    """R's ``x %in% table``: TRUE where x is one of the table's values (never NA)."""
    table = right if isinstance(right, tuple) else (right,)
    if isinstance(left, Factor):
        wanted = {_as_text(v) for v in table}
        hit = np.asarray([label in wanted for label in left.labels] + [False])
        return Logical(hit[left.codes])
    if isinstance(left, str):
        return left in {_as_text(v) for v in table}
    values = as_numbers(left, where)
    numbers = [float(v) for v in table if isinstance(v, (int, float)) and not
               isinstance(v, str)]
    if isinstance(values, float):
        return values in numbers
    hit = np.isin(values, numbers)
    if any(v != v for v in numbers):
        hit |= np.isnan(values)
    return Logical(hit)


def as_factor(value, where: str) -> Factor:
    """A value as a factor (levels: the sorted distinct values; a factor as it is)."""
    if isinstance(value, Factor):
        return value
    if isinstance(value, Logical):
        codes = value.values.astype(np.int64)
        if value.na is not None:
            codes[value.na] = -1
        return Factor(codes, [False, True])
    if isinstance(value, np.ndarray) and value.ndim == 1:
        na = np.isnan(value)
        levels, codes = np.unique(value[~na], return_inverse=True)
        out = np.full(len(value), -1, dtype=np.int64)
        out[~na] = codes
        return Factor(out, levels.tolist())
    raise FormulaError(f"{where}: {_what(value)} cannot be made a factor")


def level_key(value):
    """A level's identity across types: ``True``, ``1`` and ``1.0`` are different
    levels, ``1`` and ``1.0`` the same (R's factor levels compare as text, numbers as
    numbers)."""
    if isinstance(value, (bool, np.bool_)):
        return ("b", bool(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        return ("n", float(value))
    return ("s", str(value))
