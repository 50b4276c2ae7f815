"""Formula text: ``.`` written out, the formula read, the response's values.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import FormulaError
from .allowlist import Checker
from .deparse import deparse
from .evaluate import Environment, evaluate, learn
from .rformula import (
    Formula,
    _columns_read,
    canonical,
    lhs_names,
    parse_cached,
    read_formula,
)
from .rsyntax import Binary, Call, Chain, Name, Unary, has_dot, replace_dot
from .values import Factor, Logical

__all__ = ['expand_dot', 'parse_formula', 'response_values', 'formula_variables',
           'replace_dot', 'has_dot']


def column_name(name: str) -> Name:
    """The name node of a data column (a column called "." is `` `.` ``)."""
    return Name(name, quoted=(name == "."))


def _sum_of_names(names: list[str]):
    if len(names) == 1:
        return column_name(names[0])
    return Chain(("+",) * (len(names) - 1), tuple(column_name(n) for n in names))


def expand_dot(formula: str, columns) -> str:
    """``formula`` with a ``.`` on the right of ``~`` written out as every column not
    on its left (R's ``y ~ .``), as R deparses it; unchanged without a ``.``."""
    if not isinstance(formula, str):
        return formula
    tree = canonical(parse_cached(formula))
    if not isinstance(tree, Binary):
        lhs, rhs = None, tree.operand
    else:
        lhs, rhs = tree.left, tree.right
    if not has_dot(rhs):
        return formula
    used = lhs_names(lhs) if lhs is not None else set()
    others = [c for c in map(str, columns) if c not in used]
    if not others:
        raise FormulaError(f"formula {formula!r}: '.' stands for no column (the data have "
                           "only the response)")
    rhs = replace_dot(rhs, _sum_of_names(others))
    return deparse(Binary("~", lhs, rhs) if lhs is not None else Unary("~", rhs))


def parse_formula(formula: str, columns=(), n_rows: int | None = None,
                  trusted: bool = False) -> Formula:
    """``formula`` read, checked and expanded for data with ``columns``
    (:func:`~ubreg.design.rformula.read_formula`)."""
    if not isinstance(formula, str):
        raise FormulaError(f"formula must be a string like 'y ~ x1 + x2', got "
                           f"{type(formula).__name__}")
    return read_formula(formula, columns, n_rows=n_rows, trusted=trusted)


def formula_variables(formula: Formula) -> list[str]:
    """The data's columns every variable of ``formula`` reads, the response's first."""
    names: dict[str, None] = {}
    for variable in formula.variables:
        names.update(dict.fromkeys(variable.reads))
    return list(names)


def response_values(formula: Formula, data: pd.DataFrame, trusted: bool = False):
    """(R's name of the response, its values on ``data``): a column as it is, or the
    value of an expression (``diabetes == "pos"``, ``factor(y)``) as a Series."""
    response = formula.response
    if response is None:
        raise FormulaError(f"formula {formula.text!r} needs a response on the left of '~'")
    node = response.node
    if isinstance(node, Name):
        return response.label, data[node.id]
    if isinstance(node, Call) and node.fn == "cbind":
        raise FormulaError(f"response {response.label!r}: cbind() is read by the fit's "
                           "response coding")
    return response.label, evaluate_series(node, data, trusted, response.label)


def evaluate_series(node, data: pd.DataFrame, trusted: bool, label: str) -> pd.Series:
    """An expression of the columns evaluated on ``data``, as a pandas Series."""
    env = Environment({c: data[c].to_numpy() if not isinstance(data[c].dtype,
                                                                pd.CategoricalDtype)
                       else data[c].array for c in data.columns
                       if c in set(_reads(node, data.columns))}, trusted=trusted)
    checker = Checker(frozenset(map(str, data.columns)), trusted=trusted)
    try:
        transforms = learn(node, lambda: [env], checker)
        value = evaluate(node, env, transforms, checker)
    except FormulaError:
        raise
    except Exception as exc:  # an expression failing on the values: say which
        raise FormulaError(f"cannot evaluate {label!r}: {exc}") from None
    return as_series(value, data.index, label)


def _reads(node, columns) -> list[str]:
    known = set(map(str, columns))
    return [c for c in _columns_read(node) if c in known]


def as_series(value, index, label: str) -> pd.Series:
    """A value as a Series: a factor as a Categorical of its labels, a logical as
    booleans (NA as None), numbers as float."""
    if isinstance(value, Factor):
        cat = pd.Categorical.from_codes(value.codes, categories=list(value.labels),
                                        ordered=value.ordered)
        return pd.Series(cat, index=index)
    if isinstance(value, Logical):
        if value.na is None:
            return pd.Series(value.values, index=index)
        out = pd.array(value.values, dtype="boolean")
        out[value.na] = pd.NA
        return pd.Series(out, index=index)
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim != 1 or len(arr) != len(index):
        raise FormulaError(f"{label!r} must give one number per row")
    return pd.Series(arr, index=index)
