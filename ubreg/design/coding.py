"""R's ``model.matrix`` coding of a formula's terms, and the design's size before it
is built.

:func:`design_info` gives patsy the design R would build (patsy then builds it):

- columns in R's order: ``(Intercept)``, then the terms as :mod:`ubreg.design.rformula`
  orders them, within a term the first variable varying fastest;
- each factor of a term coded by contrasts or by one dummy per level, by R's rule
  (``TermCode``: contrasts when the term without that factor is the empty term or is
  contained in an earlier term, dummies otherwise; without an intercept the first
  factor of more than one level is dummy-coded);
- contrasts: the factor's own (``C(x, contr.sum)``), else ``contr.treatment``, or
  ``contr.poly`` for an ordered factor (R's default ``options(contrasts)``);
- column names R's: the variable's name, then a level (``raceblack``), a contrast's
  column (``C(race, contr.sum)1``, ``ftv3.L``) or a basis column (``poly(lwt, 2)1``;
  a one-column variable is its name alone), joined by ``:``.

:func:`estimate_columns` bounds the design from the syntax tree and the data's columns
before anything is evaluated, so that a design, its p × p matrices or a factor's
L × L contrasts over the memory cap are refused in well under a second.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd
from patsy import Term
from patsy.contrasts import ContrastMatrix
from patsy.design_info import DesignInfo, SubtermInfo

from ..errors import FormulaError
from ..numerics.limits import check_allocation
from .contrasts import POLY, TREATMENT, contrast_columns
from .rfunctions import FUNCTIONS
from .rsyntax import Binary, Call, Chain, Name, Paren, Unary

__all__ = ["RTerm", "design_info", "INTERCEPT", "estimate_columns", "check_design_size"]

#: R's name of the intercept's column and term
INTERCEPT = "(Intercept)"


class RTerm(Term):
    """patsy's term, named as R names it (the intercept is ``(Intercept)``)."""

    def name(self) -> str:
        return ":".join(f.name() for f in self.factors) if self.factors else INTERCEPT


def _term_codes(terms: list, intercept: bool, categorical: dict) -> list[dict]:
    """R's ``TermCode`` for every (term, factor): 1 contrasts, 2 dummies."""
    codes = []
    for j, term in enumerate(terms):
        code = {}
        for v in term:
            rest = set(term) - {v}
            contrasts = not rest or any(rest <= set(terms[k]) for k in range(j))
            code[v] = 1 if contrasts else 2
        codes.append(code)
    if not intercept:
        for j, term in enumerate(terms):
            first = next((v for v in term if categorical.get(v, 0) > 1), None)
            if first is not None:
                codes[j][first] = 2
                break
    return codes


def _coding(lv, code: int, label: str) -> tuple[np.ndarray, list[str]]:
    spec = lv.contrast or (POLY if lv.ordered else TREATMENT)
    levels, labels = lv.state["levels"], lv.state["labels"]
    if code == 1 and len(levels) < 2:
        raise FormulaError(f"factor {label!r} has only one level ({labels[0]!r}) on the rows "
                           "used: contrasts need 2 or more levels (as in R)")
    return contrast_columns(spec, levels, labels, reduced=(code == 1))


def design_info(formula, learned: dict) -> DesignInfo:
    """patsy's :class:`DesignInfo` of ``formula``'s right-hand side coded as R codes
    it; ``learned`` maps a variable's label to its
    :class:`~ubreg.design.rfactor.LearnedVariable`."""
    terms = list(formula.terms)
    variables = formula.variables
    categorical = {i: len(learned[variables[i].label].levels)
                   for term in terms for i in term
                   if learned[variables[i].label].kind == "categorical"}
    codes = _term_codes(terms, formula.intercept, categorical)
    codings: OrderedDict = OrderedDict()
    names: list[str] = []
    if formula.intercept:
        codings[RTerm([])] = [SubtermInfo([], {}, 1)]
        names.append(INTERCEPT)
    for term, code in zip(terms, codes):
        factors, matrices, parts = [], {}, []
        for i in term:
            lv = learned[variables[i].label]
            factors.append(lv.factor)
            if lv.kind == "categorical":
                matrix, suffixes = _coding(lv, code[i], lv.factor.label)
                matrices[lv.factor] = ContrastMatrix(matrix, suffixes)
                parts.append([lv.factor.label + s for s in suffixes])
            elif lv.num_columns == 1:
                parts.append([lv.factor.label])
            else:
                parts.append([f"{lv.factor.label}{j + 1}" for j in range(lv.num_columns)])
        width = int(np.prod([len(p) for p in parts]))
        codings[RTerm(factors)] = [SubtermInfo(factors, matrices, width)]
        names += _column_names(parts, width)
    _refuse_duplicates(names)
    used = {f for t in codings for f in t.factors}
    infos = {lv.factor: lv.info() for lv in learned.values() if lv.factor in used}
    return DesignInfo(names, factor_infos=infos, term_codings=codings)


def _column_names(parts: list[list[str]], width: int) -> list[str]:
    """R's names of a term's columns: the first variable varies fastest."""
    out = []
    for k in range(width):
        index, pieces = k, []
        for part in parts:
            pieces.append(part[index % len(part)])
            index //= len(part)
        out.append(":".join(pieces))
    return out


def _refuse_duplicates(names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise FormulaError(f"two columns of the design would both be named {name!r} (a "
                               "factor's level and another variable read alike); rename one")
        seen.add(name)


# --- sizes before anything is built ------------------------------------------------------------
def _column_levels(frame: pd.DataFrame, name: str, label_levels: dict) -> int:
    if name in label_levels:
        return len(label_levels[name])
    col = frame[name]
    if isinstance(col.dtype, pd.CategoricalDtype):
        return len(col.cat.categories)
    if col.dtype.kind == "b":
        return 2
    return 0


def _variable_columns(node, frame: pd.DataFrame, label_levels: dict, literal) -> float:
    """An upper bound of the columns a variable gives (a factor's all its levels)."""
    if isinstance(node, Name):
        if node.id not in frame.columns:
            return 1.0
        return float(_column_levels(frame, node.id, label_levels) or 1)
    if isinstance(node, Paren):
        return _variable_columns(node.inner, frame, label_levels, literal)
    if isinstance(node, (Binary, Unary, Chain)):
        return 2.0 if _is_logical(node) else 1.0
    if isinstance(node, Call):
        return _call_columns(node, frame, label_levels, literal)
    return 1.0


def _is_logical(node) -> bool:
    if isinstance(node, Binary):
        return node.op in ("==", "!=", "<", ">", "<=", ">=")
    if isinstance(node, Unary):
        return node.op == "!"
    return isinstance(node, Chain) and any(op in ("&", "|", "%in%") for op in node.ops)


def _call_columns(node: Call, frame, label_levels, literal) -> float:
    fn = FUNCTIONS.get(node.fn)
    if fn is None or fn.name in ("I", "offset"):
        inner = node.args[0].value if node.args else None
        return _variable_columns(inner, frame, label_levels, literal) if inner else 1.0
    if fn.factor:
        reads = [a.value for a in node.args if isinstance(a.value, Name)
                 and a.value.id in frame.columns]
        if not reads:
            return 2.0
        name = reads[0].id
        levels = _column_levels(frame, name, label_levels)
        return float(levels or frame[name].nunique())
    if fn.name == "te":
        total = 1.0
        for arg in node.args:
            if arg.name is None:
                total *= _variable_columns(arg.value, frame, label_levels, literal)
        return total
    if fn.columns is not None:
        return float(fn.columns(literal(fn, node)))
    return 1.0


def estimate_columns(formula, frame: pd.DataFrame, label_levels: dict, literal) -> tuple:
    """(columns of the design, the most levels of one factor), bounded from above from
    the syntax tree and the data's columns, before anything is evaluated.
    ``literal(fn, call)`` reads a call's literal arguments."""
    per_variable = [_variable_columns(v.expression, frame, label_levels, literal)
                    for v in formula.variables]
    total = 1.0 if formula.intercept else 0.0
    for term in formula.terms:
        width = 1.0
        for i in term:
            width *= per_variable[i]
        total += width
    widest = max([1.0, *(per_variable[i] for t in formula.terms for i in t)])
    return total, widest, max(per_variable, default=1.0)


def check_design_size(n_rows: int, n_columns: float, what: str = "the design matrix",
                      square: bool = False) -> None:
    """Refuse a design of more than the memory cap (8 bytes an entry) before it is
    built; with ``square`` also the p × p matrices that follow it (aliasing, the
    covariance)."""
    check_allocation(8.0 * n_rows * n_columns,
                     f"{what} ({n_rows} rows × {n_columns:.0f} columns)")
    if square:
        check_allocation(8.0 * n_columns * n_columns,
                         f"the {n_columns:.0f} × {n_columns:.0f} matrices that follow "
                         "the design (aliasing, covariance)")
