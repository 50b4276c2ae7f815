"""Formula variables as patsy's factors, and R's model frame: what each variable is,
learned from the training rows.

patsy stays the design builder: it asks each factor of a design for its values
(``factor.eval(state, data)``) and multiplies them out.  :class:`RFactor` answers with
ubreg's interpreter (:mod:`ubreg.design.evaluate`) on the variable's checked tree; it
never hands patsy code to evaluate.

:func:`learn_variables` does what R's ``model.frame`` does before ``model.matrix``:
every variable's learning functions fitted on the rows of the data (``scale``, ``poly``
and the levels of ``factor()`` see every row, as in R), then each variable evaluated,
the rows with NA in any variable (response and offsets included) left out, and the
levels of each factor those it has on the rows left (R's ``drop.unused.levels``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from patsy import Origin
from patsy.design_info import FactorInfo

from ..errors import DataError, FormulaError, PredictionError, UbregError
from .allowlist import Checker
from .evaluate import Environment, evaluate, learn
from .rformula import Variable
from .rsyntax import Name
from .values import Factor, Logical, level_key

__all__ = ["RFactor", "LearnedVariable", "learn_variables", "na_of", "as_design_values"]


class RFactor:
    """A formula variable as a patsy factor (patsy's factor protocol: ``name``,
    ``eval``, ``origin``); equal to another when R would call them the same variable."""

    def __init__(self, variable: Variable, trusted: bool = False):
        self.node = variable.expression
        self.label = variable.label
        self.reads = tuple(variable.reads)
        self.trusted = bool(trusted)
        self.origin = Origin(self.label, 0, len(self.label))

    def name(self) -> str:
        return self.label

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["origin"]                     # patsy's Origin does not pickle
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.origin = Origin(self.label, 0, len(self.label))

    def __eq__(self, other):
        return isinstance(other, RFactor) and other.label == self.label

    def __hash__(self):
        return hash(("RFactor", self.label))

    def __repr__(self):
        return f"RFactor({self.label!r})"

    @property
    def is_bare_column(self) -> bool:
        """Whether the variable is one column as it is (it reads its own row only)."""
        return isinstance(self.node, Name) and self.reads == (self.node.id,)

    def value(self, state: dict, data) -> object:
        """The variable's value on ``data`` (a mapping of columns)."""
        env = Environment(data, state.get("text", ()), self.trusted)
        if isinstance(self.node, Name) and self.node.id in data:
            return env.column(self.node.id)          # a column as it is: nothing to walk
        checker = Checker(frozenset(self.reads), trusted=self.trusted)
        return evaluate(self.node, env, state["transforms"], checker)

    def eval(self, state: dict, data):
        """patsy's call: numbers as a float array, a factor as a pandas Categorical of
        its training levels."""
        return as_design_values(self.value(state, data), state, self.label)


def as_design_values(value, state: dict, label: str):
    """A value as patsy builds it: float64 numbers (one column or a matrix), or a
    Categorical over the levels learned in fitting (a value outside them refused)."""
    if isinstance(value, (Factor, Logical)):
        factor = _as_factor(value)
        codes = _codes_among(factor, state["levels"])
        unknown = (codes < 0) & (factor.codes >= 0)
        if unknown.any():
            new = sorted({factor.labels[c] for c in factor.codes[unknown]})[:5]
            raise PredictionError(f"factor {label!r} has new level(s) {new} not seen in "
                                  f"fitting (levels: {list(state['labels'])})")
        return pd.Categorical.from_codes(codes, categories=pd.Index(state["labels"],
                                                                    dtype=object))
    if isinstance(value, np.ndarray):
        return value.astype(np.float64, copy=False)
    raise FormulaError(f"{label!r} gives a single value, not one per row")


def _as_factor(value) -> Factor:
    if isinstance(value, Factor):
        return value
    codes = value.values.astype(np.int64)
    if value.na is not None:
        codes[value.na] = -1
    return Factor(codes, [False, True])


def _codes_among(factor: Factor, levels: list) -> np.ndarray:
    """``factor``'s codes re-expressed among ``levels`` (−1 where NA or not a level)."""
    if list(factor.levels) == list(levels):
        return factor.codes
    position = {level_key(v): i for i, v in enumerate(levels)}
    lookup = np.asarray([position.get(level_key(v), -1) for v in factor.levels] + [-1],
                        dtype=np.int64)
    return lookup[factor.codes]


def na_of(value) -> np.ndarray:
    """The rows where a value is NA (a matrix row with any NA is NA)."""
    if isinstance(value, Factor):
        return value.codes < 0
    if isinstance(value, Logical):
        return value.na if value.na is not None else np.zeros(len(value), dtype=bool)
    arr = np.asarray(value, dtype=np.float64)
    return np.asarray(np.isnan(arr) if arr.ndim == 1 else np.isnan(arr).any(axis=1), dtype=bool)


@dataclass
class LearnedVariable:
    """One variable after learning: its patsy factor, state and kind, and what the
    rows said of it (levels seen on complete rows, columns of a numeric one)."""

    variable: Variable
    factor: RFactor
    state: dict
    kind: str = "numerical"                 # or "categorical"
    num_columns: int = 1
    levels: list = field(default_factory=list)
    ordered: bool = False
    contrast: object = None
    n_na: int = 0                           # rows NA in this variable (not NA elsewhere)

    def info(self) -> FactorInfo:
        if self.kind == "categorical":
            return FactorInfo(self.factor, "categorical", self.state,
                              categories=tuple(self.state["labels"]))
        return FactorInfo(self.factor, "numerical", self.state, num_columns=self.num_columns)

    def value_on(self, data, what: str, name: str) -> object:
        """The variable's value on ``data`` (a mapping of columns) of a fit (``what``
        ``"data"``) or a prediction: a function failing on these values raises a
        FormulaError (a PredictionError in a prediction) naming the variable ``name``."""
        try:
            return self.factor.value(self.state, data)
        except UbregError:
            raise
        except Exception as exc:  # a function failing on these values
            error = PredictionError if what != "data" else FormulaError
            raise error(f"{what}: cannot evaluate {name}: {exc}") from None


def learn_variables(variables: list[Variable], chunks: Callable[[], Iterable[tuple]],
                    text_columns, trusted: bool, complete_cases: bool = True,
                    ) -> tuple[dict, list]:
    """R's ``model.frame`` for ``variables`` over the rows ``chunks()`` yields: a fresh
    iterator, each call, of (column mapping, rows NA elsewhere or None) pairs: one
    frame in memory, partitions on Dask.

    Returns (label → :class:`LearnedVariable`, each chunk's mask of the rows kept).
    A row is kept when it is not NA elsewhere and, with ``complete_cases`` (R's
    ``na.omit``), when no variable is NA in it; a factor's levels are those it has on
    the rows kept (where it is not NA, without ``complete_cases``).
    """
    text = frozenset(text_columns)
    learned: dict[str, LearnedVariable] = {}
    for variable in variables:
        factor = RFactor(variable, trusted)
        checker = Checker(frozenset(variable.reads), trusted=trusted)
        transforms = learn(factor.node, lambda: (Environment(c, text, trusted)
                                                 for c, _ in chunks()), checker)
        learned[variable.label] = LearnedVariable(variable, factor,
                                                  {"transforms": transforms, "text": text})
    seen: dict[str, dict] = {label: {} for label in learned}
    masks = []
    for chunk, elsewhere in chunks():
        values = {label: lv.factor.value(lv.state, chunk) for label, lv in learned.items()}
        n = _rows(chunk) if values or elsewhere is None else len(elsewhere)
        keep = np.ones(n, dtype=bool) if elsewhere is None else ~elsewhere
        nas = {}
        outside = keep.copy()
        for label, value in values.items():
            _check_rows(value, n, label)
            nas[label] = na_of(value)
            learned[label].n_na += int((nas[label] & outside).sum())
            if complete_cases:
                keep &= ~nas[label]
        masks.append(keep)
        for label, value in values.items():
            _observe(learned[label], value, keep & ~nas[label], seen[label])
    for label, lv in learned.items():
        if lv.kind == "categorical":
            _finish_levels(lv, seen[label])
    return learned, masks


def _rows(chunk) -> int:
    for values in chunk.values():
        return len(values)
    return 0


def _check_rows(value, n: int, label: str) -> None:
    if isinstance(value, (int, float, bool, str)) or value is None:
        raise FormulaError(f"{label!r} gives a single value, not one per row")
    rows = len(value) if isinstance(value, (Factor, Logical)) else np.shape(value)[0]
    if rows != n:
        raise FormulaError(f"{label!r} gives {rows} values for {n} rows")
    if isinstance(value, np.ndarray) and value.ndim > 2:
        raise FormulaError(f"{label!r} gives an array of {value.ndim} dimensions")


def _observe(lv: LearnedVariable, value, complete: np.ndarray, seen: dict) -> None:
    if isinstance(value, (Factor, Logical)):
        factor = _as_factor(value)
        lv.kind = "categorical"
        lv.ordered = factor.ordered
        lv.contrast = factor.contrast
        lv.state["all_levels"] = list(factor.levels)
        used = np.unique(factor.codes[complete & (factor.codes >= 0)])
        for code in used:
            level = factor.levels[code]
            seen.setdefault(level_key(level), (level, factor.labels[code]))
        return
    arr = np.asarray(value)
    lv.num_columns = 1 if arr.ndim == 1 else arr.shape[1]


def _finish_levels(lv: LearnedVariable, seen_levels: dict) -> None:
    """The levels seen on complete rows, in the factor's own level order."""
    order = {level_key(v): i for i, v in enumerate(lv.state.get("all_levels", []))}
    seen = sorted(seen_levels.values(), key=lambda item: order.get(level_key(item[0]), len(order)))
    if not seen:
        raise DataError(f"factor {lv.variable.label!r} has no level on the rows used")
    lv.state["levels"] = [v for v, _ in seen]
    lv.state["labels"] = [label for _, label in seen]
    lv.levels = list(lv.state["levels"])
