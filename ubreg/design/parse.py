"""Formula text: parsing, R's ``.`` expansion, names, the response's values.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from patsy import ModelDesc, PatsyError

from ..errors import FormulaError
from .namespace import _PATSY_BUILTINS, _environment, _known_names
from .safety import _formula_names, check_formula_code

__all__ = ['expand_dot', 'parse_formula', 'response_values']


_DOT = re.compile(r"(?<![\w.\]])\.(?![\w.(])")


_STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'" r'|"(?:[^"\\]|\\.)*"')


def _outside_strings(text: str):
    """(start, end) spans of ``text`` that are not inside a string literal."""
    pos = 0
    for m in _STRING_LITERAL.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


def _sub_dot(rhs: str, replacement: str) -> tuple[str, int]:
    """Replace every ``.`` term of ``rhs`` outside string literals
    (``Q('a.b')``, ``Treatment('.')`` keep their dots)."""
    pieces, count, last = [], 0, 0
    for start, end in _outside_strings(rhs):
        pieces.append(rhs[last:start])
        new, k = _DOT.subn(lambda _: replacement, rhs[start:end])
        pieces.append(new)
        count += k
        last = end
    pieces.append(rhs[last:])
    return "".join(pieces), count


def expand_dot(formula: str, columns) -> str:
    """Replace a ``.`` term on the right of ``~`` by every other column (R's ``y ~ .``).

    Columns used on the left are left out; names that are not Python
    identifiers are quoted with ``Q("...")``.
    """
    if not isinstance(formula, str) or "~" not in formula:
        return formula
    lhs, rhs = formula.split("~", 1)
    if _sub_dot(rhs, "")[1] == 0:
        return formula
    used = _formula_names(lhs) if lhs.strip() else set()
    others = [c for c in map(str, columns) if c not in used]
    terms = " + ".join(c if c.isidentifier() else f"Q({c!r})" for c in others)
    return f"{lhs}~{_sub_dot(rhs, f'({terms})')[0]}"


def parse_formula(formula: str) -> ModelDesc:
    if not isinstance(formula, str):
        raise FormulaError(f"formula must be a string like 'y ~ x1 + x2', got {type(formula).__name__}")
    if "~" not in formula:
        raise FormulaError(f"formula {formula!r} has no '~': write it as 'response ~ terms'")
    try:
        return ModelDesc.from_formula(formula)
    except PatsyError as exc:
        raise FormulaError(f"cannot parse formula {formula!r}: {str(exc).splitlines()[0]}") from None


def _check_formula_names(desc: ModelDesc, data: pd.DataFrame, formula: str,
                         trusted: bool = False):
    known = _known_names()
    missing = set()
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        for factor in term.factors:
            for name in _formula_names(factor.code):
                if name not in data.columns and name not in known:
                    missing.add(name)
    if missing:
        cols = list(map(str, data.columns))
        shown = cols if len(cols) <= 20 else cols[:20] + ["..."]
        raise FormulaError(f"formula {formula!r} names column(s) {sorted(missing)} that are not in "
                           f"the data (columns: {shown})")
    if not trusted:
        for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
            for factor in term.factors:
                check_formula_code(factor.code, data.columns)


def response_values(desc: ModelDesc, data: pd.DataFrame, formula: str):
    if len(desc.lhs_termlist) != 1 or len(desc.lhs_termlist[0].factors) != 1:
        raise FormulaError(f"formula {formula!r} needs exactly one response on the left of '~'")
    code = desc.lhs_termlist[0].factors[0].code
    if code in data.columns:
        return code, data[code]
    try:
        value = _environment().with_outer_namespace(_PATSY_BUILTINS).eval(code, inner_namespace=data)
    except Exception as exc:  # the user's expression: report whatever it raised
        raise FormulaError(f"cannot evaluate the response {code!r}: {exc}") from None
    return code, pd.Series(np.asarray(value), index=data.index) if np.ndim(value) == 1 else value
