"""Formula text: parsing, R's ``.`` expansion, names, the response's values.
"""
from __future__ import annotations

import io
import re
import tokenize
from functools import lru_cache

import numpy as np
import pandas as pd
from patsy import ModelDesc, PatsyError

from ..errors import FormulaError
from .namespace import _PATSY_BUILTINS, _environment, _known_names
from .safety import check_formula_code, variable_names
from .terms import bang_as_not, nfkc, quoted_name, rewrite_terms

__all__ = ['expand_dot', 'parse_formula', 'patsy_description', 'response_values']


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


def _split_tilde(formula: str) -> tuple[str, str] | None:
    """(left, right) of the first ``~`` outside string literals (``Q("a~b")``)."""
    for start, end in _outside_strings(formula):
        at = formula.find("~", start, end)
        if at >= 0:
            return formula[:at], formula[at + 1:]
    return None


_GROUPED = re.compile(r"^\s*cbind\s*\(")
_FLAT_TERMS = 100


def _balanced_sum(terms: list[str]) -> str:
    """``t1 + t2 + ...``, flat up to 100 terms, beyond that parenthesised as a balanced
    tree of flat sums: patsy evaluates a formula recursively, so a flat sum of
    10 000 columns would exhaust Python's stack."""
    if len(terms) <= _FLAT_TERMS:
        return " + ".join(terms)
    chunks = [" + ".join(terms[i:i + _FLAT_TERMS]) for i in range(0, len(terms), _FLAT_TERMS)]

    def tree(parts):
        if len(parts) == 1:
            return f"({parts[0]})"
        half = len(parts) // 2
        return f"({tree(parts[:half])} + {tree(parts[half:])})"

    return tree(chunks)


_CALL_BEFORE = frozenset({")", "]"})


def _formula_carets(formula: str) -> str:
    """R's ``^`` between terms as patsy's ``**``; a ``^`` inside a function call's
    parentheses is Python code of a term (:mod:`~ubreg.design.terms` reads it as
    a power)."""
    if "^" not in formula:
        return formula
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(formula).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return formula
    starts = [0]
    for line in formula.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    stack, pieces, last, previous = [], [], 0, None
    for tok in tokens:
        if tok.type == tokenize.OP and tok.string in "([":
            call = previous is not None and (previous.type == tokenize.NAME
                                             or previous.string in _CALL_BEFORE)
            stack.append(call or tok.string == "[")
        elif tok.type == tokenize.OP and tok.string in ")]" and stack:
            stack.pop()
        elif tok.type == tokenize.OP and tok.string == "^" and not any(stack):
            at = starts[tok.start[0] - 1] + tok.start[1]
            pieces += [formula[last:at], "**"]
            last = at + 1
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = tok
    return "".join(pieces) + formula[last:]


def expand_dot(formula: str, columns) -> str:
    """Replace a ``.`` term on the right of ``~`` by every other column (R's ``y ~ .``).

    Columns used on the left are left out; names Python would not read as
    written are quoted with ``Q("...")``.
    """
    if not isinstance(formula, str):
        return formula
    sides = _split_tilde(formula)
    if sides is None:
        return formula
    lhs, rhs = sides
    if _sub_dot(rhs, "")[1] == 0:
        return formula
    used = _all_names(lhs) if lhs.strip() else set()
    others = [c for c in map(str, columns) if c not in used and nfkc(c) not in used]
    if not others:
        raise FormulaError(f"formula {formula!r}: '.' stands for no column (the data have "
                           "only the response)")
    terms = _balanced_sum([quoted_name(c) for c in others])
    return f"{lhs}~{_sub_dot(rhs, f'({terms})')[0]}"


def _all_names(code: str) -> set[str]:
    try:
        return variable_names(code)
    except FormulaError:
        return set()


@lru_cache(maxsize=128)
def patsy_description(text: str) -> ModelDesc:
    """``ModelDesc.from_formula(text)``, kept for the next call with the same text.

    patsy's reading of a sum of many terms is quadratic in them (20 ms for the
    16 terms of ``y ~ .`` over LetterRecognition), and cross-validation, ``step``
    and ``update`` read one formula many times.  The description is shared:
    callers build new descriptions from it (:func:`~ubreg.design.terms.rewrite_terms`)
    and never change it.
    """
    return ModelDesc.from_formula(text)


def parse_formula(formula: str, columns=()) -> ModelDesc:
    """patsy's reading of ``formula``, its terms rewritten for the data's
    ``columns`` (:func:`~ubreg.design.terms.rewrite_terms`)."""
    if not isinstance(formula, str):
        raise FormulaError(f"formula must be a string like 'y ~ x1 + x2', got "
                           f"{type(formula).__name__}")
    if _split_tilde(formula) is None:
        raise FormulaError(f"formula {formula!r} has no '~': write it as 'response ~ terms'")
    try:
        desc = patsy_description(_formula_carets(bang_as_not(formula)))
    except PatsyError as exc:
        raise FormulaError(f"cannot parse formula {formula!r}: "
                           f"{str(exc).splitlines()[0]}") from None
    return rewrite_terms(desc, columns)


def _factors(desc: ModelDesc):
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        yield from term.factors


def formula_variables(desc: ModelDesc) -> list[str]:
    """The data variables both sides of ``desc`` read, in formula order."""
    names: dict[str, None] = {}
    for factor in _factors(desc):
        names.update(dict.fromkeys(sorted(variable_names(factor.code))))
    return list(names)


def _check_unicode_collisions(desc: ModelDesc, columns, formula: str) -> None:
    """Refuse names the formula reads that equal another column's after NFKC."""
    groups: dict[str, list[str]] = {}
    for col in map(str, columns):
        groups.setdefault(nfkc(col), []).append(col)
    for factor in _factors(desc):
        for name in variable_names(factor.code):
            group = groups.get(nfkc(name), [])
            if len(group) > 1:
                raise FormulaError(
                    f"formula {formula!r}: the columns {group} have the same name after Unicode "
                    "normalisation (NFKC, as Python reads names), so a formula cannot tell them "
                    "apart; rename one of them")


def _check_formula_names(desc: ModelDesc, data: pd.DataFrame, formula: str,
                         trusted: bool = False):
    _check_unicode_collisions(desc, data.columns, formula)
    known = _known_names() | set(data.columns)
    missing = set()
    for factor in _factors(desc):
        for name in variable_names(factor.code):
            if name not in known:
                missing.add(name)
    if missing:
        cols = list(map(str, data.columns))
        shown = cols if len(cols) <= 20 else cols[:20] + ["..."]
        raise FormulaError(f"formula {formula!r} names column(s) {sorted(missing)} that are "
                           f"not in the data (columns: {shown})")
    if not trusted:
        columns = frozenset(map(str, data.columns))
        for factor in _factors(desc):
            if _GROUPED.match(factor.code):
                continue                # cbind(successes, failures): each part is checked
            check_formula_code(factor.code, columns, n_rows=len(data), shown=factor.name())


def response_values(desc: ModelDesc, data: pd.DataFrame, formula: str):
    if len(desc.lhs_termlist) != 1 or len(desc.lhs_termlist[0].factors) != 1:
        raise FormulaError(f"formula {formula!r} needs exactly one response on the left of '~'")
    code = desc.lhs_termlist[0].factors[0].code
    if code in data.columns:
        return code, data[code]
    try:
        value = _environment().with_outer_namespace(_PATSY_BUILTINS).eval(
            code, inner_namespace=data)
    except Exception as exc:  # the user's expression: report whatever it raised
        raise FormulaError(f"cannot evaluate the response {code!r}: {exc}") from None
    return code, pd.Series(np.asarray(value), index=data.index) if np.ndim(value) == 1 else value
