"""A formula read as R reads it: ``terms.formula``, on one syntax tree.

:func:`read_formula` parses the whole formula once (:mod:`ubreg.design.rsyntax`),
replaces ``Q("name")`` by the name and ``.`` by the data's other columns, checks every
node (:mod:`ubreg.design.allowlist`), and expands the right-hand side by R's own
algorithm (R's ``model.c``: ``ExtractVars``, ``EncodeVars`` and ``TermCode``):

- the *variables* in R's order (the response first, then as they first appear; a
  variable only removed by ``-`` comes last, as in R), each named by R's ``deparse``;
- the *terms*, each a set of variables: ``+`` and ``-`` (with ``1``, ``0``, ``-1`` for
  the intercept), ``:`` (interaction), ``*`` (``a + b + a:b``), ``/`` (``a + a:b``),
  ``%in%`` (``a:b``), ``^`` (all interactions up to the power), ``()`` for grouping;
  duplicates removed, ordered by degree and otherwise as written;
- a term's label joins its variables' names with ``:`` in the variables' order;
- ``offset(...)`` variables apart (a term holding one is refused, where R drops it
  silently); a term equal to the response dropped with R's warning.

Inside a variable (``I(a + b)``, ``cbind(s, n - s)``, ``log(x, 2)``) the same operators
are arithmetic, as in R.  The expansion is bounded before it runs: the number of terms
is estimated from the tree and refused above :data:`MAX_TERMS`.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NoReturn

from ..errors import FormulaError
from .allowlist import Checker
from .deparse import deparse
from .rsyntax import (
    Arg,
    Binary,
    Call,
    Chain,
    Const,
    Name,
    Num,
    Paren,
    Str,
    Unary,
    has_dot,
    parse_formula_text,
)
from .walker import sub_expressions

__all__ = ["Variable", "Formula", "read_formula", "MAX_TERMS", "parse_cached", "lhs_names"]

#: the most terms a formula may expand to
MAX_TERMS = 100_000
_FORMULA_OPS = frozenset({"+", "-", "*", "/", ":", "%in%"})


@dataclass
class Variable:
    """A variable of the model frame: its expression, R's name for it, and the data's
    columns it reads (in the order it reads them)."""

    node: Any
    label: str
    reads: tuple = ()

    @property
    def is_offset(self) -> bool:
        return isinstance(self.node, Call) and self.node.fn == "offset"

    @property
    def expression(self):
        """What is evaluated: the expression inside ``offset()``, else the node."""
        return self.node.args[0].value if self.is_offset else self.node


@dataclass
class Formula:
    """A formula after R's ``terms.formula``; the pieces every design is built from."""

    text: str
    response: Variable | None
    variables: list                   # Variable, R's order (response first)
    terms: list                       # tuple of variable indices, R's order
    intercept: bool
    offsets: list = field(default_factory=list)

    @property
    def term_labels(self) -> list[str]:
        return [":".join(self.variables[i].label for i in term) for term in self.terms]

    def term_variables(self, term) -> list[Variable]:
        return [self.variables[i] for i in term]

    @property
    def rhs_text(self) -> str:
        """The right-hand side, as R writes a formula's terms back."""
        parts = [*self.term_labels, *(v.label for v in self.offsets)] or ["1"]
        text = " + ".join(parts)
        return text if self.intercept else f"{text} - 1"

    def used_variables(self) -> list[Variable]:
        """The variables the terms use (not the response, not the offsets)."""
        used = sorted({i for term in self.terms for i in term})
        return [self.variables[i] for i in used]


def term_variables(formula: Formula) -> list:
    """The variables of a model frame besides the response: every variable but the
    response, and the response too when a term uses it (R's ``y ~ x:y``)."""
    in_terms = any(0 in term for term in formula.terms) and formula.response is not None
    return formula.variables if in_terms else formula.variables[1:]


@lru_cache(maxsize=256)
def parse_cached(text: str):
    """The syntax tree of a formula, kept for the next call with the same text (trees
    are immutable; cross-validation and ``step`` read one formula many times)."""
    return parse_formula_text(text)


def _columns_read(node) -> list[str]:
    out: dict[str, None] = {}
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            out.setdefault(item.id)
        elif (isinstance(item, Call) and item.fn == "Q" and item.args
              and isinstance(item.args[0].value, Str)):
            out.setdefault(item.args[0].value.value)
        else:
            stack += reversed(sub_expressions(item))     # popped left to right
    return list(out)


def lhs_names(node) -> set[str]:
    """The names the left-hand side reads (R's ``CheckRHS``: these leave ``.``)."""
    return set(_columns_read(node))


# --- canonical form: Q("x") is the name x ---------------------------------------------------
def canonical(node):
    """``node`` with every ``Q("name")`` replaced by the name (R's backticks)."""
    if isinstance(node, Call):
        if node.fn == "Q":
            if len(node.args) == 1 and node.args[0].name is None \
                    and isinstance(node.args[0].value, Str):
                return Name(node.args[0].value.value, quoted=True)
            raise FormulaError(f"{deparse(node)!r} is not allowed: Q() takes exactly one "
                               "literal string, the name of a column (R writes `odd name`)")
        return Call(node.fn, tuple(Arg(a.name, canonical(a.value)) for a in node.args))
    if isinstance(node, Paren):
        return Paren(canonical(node.inner))
    if isinstance(node, Unary):
        return Unary(node.op, canonical(node.operand))
    if isinstance(node, Binary):
        return Binary(node.op, canonical(node.left), canonical(node.right))
    if isinstance(node, Chain):
        return Chain(node.ops, tuple(canonical(o) for o in node.operands))
    return node


# --- the term algebra ---------------------------------------------------------------------------
class _Algebra:
    """R's ``ExtractVars`` and ``EncodeVars`` over one formula."""

    def __init__(self, formula: str, dot_columns: list[str], checker: Checker):
        self.formula = formula
        self.dot_columns = dot_columns
        self.checker = checker
        self.variables: list[Variable] = []
        self.index: dict[str, int] = {}
        self.intercept = True
        self.parity = True
        self.has_response = False

    def fail(self, why: str) -> NoReturn:
        raise FormulaError(f"formula {self.formula!r}: {why}")

    def install(self, node) -> int:
        label = deparse(node)
        if label not in self.index:
            if not isinstance(node, (Name, Call, Binary, Unary, Chain, Paren)):
                self.fail(f"{label} is not a term (only 1, 0 and -1 are numbers a formula's "
                          "terms may have)")
            self.index[label] = len(self.variables)
            self.variables.append(Variable(node, label))
        return self.index[label]

    # R's ExtractVars: the variables in the order R lists them
    def extract(self, node, check_only: bool = False) -> None:
        stack = [(node, check_only)]
        while stack:
            item, only = stack.pop()
            if isinstance(item, Num) and item.value in (0.0, 1.0):
                continue
            if isinstance(item, Name) and item.is_dot:
                for col in self.dot_columns:
                    if not only:
                        self.install(Name(col, quoted=(col == ".")))
                continue
            if isinstance(item, Name):
                if not only:
                    self.install(item)
                continue
            if isinstance(item, Paren):
                stack.append((item.inner, only))
            elif isinstance(item, Chain) and all(op in _FORMULA_OPS for op in item.ops):
                pushes = [(item.operands[0], only)]
                for op, operand in zip(item.ops, item.operands[1:]):
                    pushes.append((operand, only or op == "-"))
                stack += reversed(pushes)
            elif isinstance(item, Binary) and item.op == "^":
                if not isinstance(item.right, Num):
                    self.fail(f"invalid power in formula: {deparse(item)} (the power of a "
                              "sum of terms must be a number)")
                stack.append((item.left, only))
            elif isinstance(item, Unary) and item.op in "+-":
                stack.append((item.operand, only or item.op == "-"))
            elif isinstance(item, Chain) and any(op in _FORMULA_OPS for op in item.ops):
                head, rest = _split_chain(item)
                stack += reversed([(head, only), *[(o, only or op == "-") for op, o in rest]])
            else:
                self.install(item)               # R installs calls even when only checking

    # R's EncodeVars: the terms (frozensets of variable indices) in R's order
    def encode(self, node) -> list:
        if isinstance(node, Num):
            if node.value == 1.0:
                self.intercept = self.parity
                return []
            if node.value == 0.0:
                self.intercept = not self.parity
                return []
            self.fail(f"{deparse(node)} is not a term (only 1, 0 and -1 are numbers a "
                      "formula's terms may have; I(...) makes a computed variable)")
        if isinstance(node, Name) and node.is_dot:
            return [frozenset([self.install(Name(c, quoted=(c == ".")))])
                    for c in self.dot_columns]
        if isinstance(node, Paren):
            return self.encode(node.inner)
        if isinstance(node, Unary) and node.op in "+-":
            if node.op == "+":
                return self.encode(node.operand)
            return self._delete([], node.operand)
        if isinstance(node, Binary) and node.op == "^":
            return self._power(node)
        if isinstance(node, Chain) and any(op in _FORMULA_OPS for op in node.ops):
            return self._chain(node)
        if isinstance(node, (Binary, Unary)) and node.op == "~":
            self.fail("a formula has one '~'")
        if isinstance(node, (Str, Const)):
            self.fail(f"{deparse(node)} is not a term")
        return [frozenset([self.install(node)])]

    def _chain(self, node: Chain) -> list:
        if not all(op in _FORMULA_OPS for op in node.ops):
            head, rest = _split_chain(node)
        else:
            head, rest = node.operands[0], list(zip(node.ops, node.operands[1:]))
        left = self.encode(head)
        seen = set(left)
        for op, operand in rest:
            if op == "-":
                left = self._delete(left, operand)
                seen = set(left)
                continue
            right = self.encode(operand)
            if op == "+":                        # R's PlusTerms, kept linear in the terms
                for t in right:
                    if t and t not in seen:
                        seen.add(t)
                        left.append(t)
            else:
                left = _combine(op, left, right)
                seen = set(left)
            _bound(len(left), self.formula)
        return left

    def _delete(self, left: list, right_node) -> list:
        self.parity = not self.parity
        right = self.encode(right_node)
        self.parity = not self.parity
        removed = set(right)
        return [t for t in left if t not in removed]

    def _power(self, node: Binary) -> list:
        power = _power_of(node)
        if power is None:
            self.fail(f"invalid power in formula: {deparse(node)} (R needs a whole power of 2 "
                      "or more)")
        left = self.encode(node.left)
        _bound(_power_terms(len(left), power), self.formula)
        right = left
        # R multiplies power - 1 times; past the number of terms nothing changes
        for _ in range(min(power, len(left) + 1) - 1):
            right = _trim([a | b for a in left for b in right])
        return right


def _power_of(node: Binary) -> int | None:
    """The power of ``(terms)^k`` (R truncates it to an integer), or None when it is not
    a finite number of at least 2."""
    if not isinstance(node.right, Num) or not math.isfinite(node.right.value):
        return None
    power = int(min(node.right.value, 2 ** 31 - 1))
    return power if power >= 2 else None


def _split_chain(node: Chain):
    """A chain mixing formula operators with others (``a %in% b %% c``): the part up
    to the last non-formula operator is one variable, as R's left-to-right tree has it."""
    last = max(i for i, op in enumerate(node.ops) if op not in _FORMULA_OPS)
    head = Chain(node.ops[:last + 1], node.operands[:last + 2])
    return head, list(zip(node.ops[last + 1:], node.operands[last + 2:]))


def _trim(terms: list) -> list:
    """R's ``TrimRepeats``: no empty term, each term once (its first place)."""
    seen, out = set(), []
    for t in terms:
        if t and t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _combine(op: str, left: list, right: list) -> list:
    if op == "+":
        return _trim(left + right)
    if op == ":":
        return _trim([a | b for a in left for b in right])
    if op == "*":
        return _trim(left + right + [a | b for a in left for b in right])
    if op == "%in%":
        within = frozenset().union(*right) if right else frozenset()
        return _trim([t | within for t in left])
    if op == "/":
        within = frozenset().union(*left) if left else frozenset()
        return _trim(left + [t | within for t in right])
    raise FormulaError(f"unknown formula operator {op}")


def _power_terms(m: int, power: int) -> float:
    """The terms of ``(t1 + ... + tm)^power``: Σ_{j ≤ power} C(m, j), counted up to just
    past :data:`MAX_TERMS`."""
    total, term = 0, 1
    for j in range(1, min(power, m) + 1):
        term = term * (m - j + 1) // j
        total += term
        if total > MAX_TERMS:
            break
    return float(total)


def _bound(count: float, formula: str) -> None:
    if count > MAX_TERMS:
        raise FormulaError(f"formula {formula!r} expands to {count:,.0f} terms, more than "
                           f"the {MAX_TERMS:,} a model may have")


def _estimate_terms(node, dots: int) -> float:
    """An upper bound of the terms ``node`` expands to, from the tree alone (``.`` is
    ``dots`` terms)."""
    if isinstance(node, Name) and node.is_dot:
        return float(dots)
    if isinstance(node, Paren):
        return _estimate_terms(node.inner, dots)
    if isinstance(node, Unary) and node.op in "+-":
        return _estimate_terms(node.operand, dots)
    if isinstance(node, Binary) and node.op == "^" and _power_of(node) is not None:
        return _power_terms(int(min(_estimate_terms(node.left, dots), 1e6)),
                            _power_of(node) or 2)
    if isinstance(node, Chain) and any(op in _FORMULA_OPS for op in node.ops):
        total = _estimate_terms(node.operands[0], dots)
        for op, operand in zip(node.ops, node.operands[1:]):
            right = _estimate_terms(operand, dots)
            if op in ("+", "-"):
                total += right
            elif op == ":":
                total *= right
            else:
                total = total + right + total * right
            if total > 1e18:
                return total
        return total
    return 1.0


def formula_terms(text: str) -> Formula:
    """The terms of ``text`` without data (no ``.``, nothing checked against columns):
    what R's ``terms.formula`` gives of a formula alone, for ``update`` and scopes."""
    tree = canonical(parse_cached(text))
    lhs, rhs = (None, tree.operand) if isinstance(tree, Unary) else (tree.left, tree.right)
    if has_dot(rhs):
        raise FormulaError(f"formula {text!r}: '.' stands for the data's columns; expand it "
                           "before reading the terms")
    _bound(_estimate_terms(rhs, 0), text)
    algebra = _Algebra(text, [], Checker(frozenset(), formula=text))
    response = None
    if lhs is not None:
        response = algebra.variables[algebra.install(lhs)]
    algebra.extract(rhs)
    terms = algebra.encode(rhs)
    return _assemble(text, algebra, terms, response)


def read_formula(text: str, columns, n_rows: int | None = None, trusted: bool = False,
                 one_sided: bool = False) -> Formula:
    """Parse, check and expand ``text`` for data with ``columns`` (see the module
    docstring).  ``n_rows`` bounds the sizes of bases; ``trusted`` widens the
    functions to numpy's."""
    tree = canonical(parse_cached(text))
    columns = list(map(str, columns))
    checker = Checker(frozenset(columns), n_rows, trusted, text)
    if isinstance(tree, Unary):
        lhs, rhs = None, tree.operand
    else:
        lhs, rhs = tree.left, tree.right
        if isinstance(rhs, (Binary, Unary)) and getattr(rhs, "op", "") == "~":
            raise FormulaError(f"formula {text!r} has more than one '~'")
    if lhs is None and not one_sided:
        raise FormulaError(f"formula {text!r} has no response: write it as 'response ~ terms'")
    used_left = lhs_names(lhs) if lhs is not None else set()
    dot_columns = [c for c in columns if c not in used_left]
    _bound(_estimate_terms(rhs, len(dot_columns)), text)
    algebra = _Algebra(text, dot_columns, checker)
    response = None
    if lhs is not None:
        _check_response(lhs, checker, text)
        response = algebra.variables[algebra.install(lhs)]
        algebra.has_response = True
    algebra.extract(rhs)
    terms = algebra.encode(rhs)
    known = frozenset(columns)
    for variable in algebra.variables:
        variable.reads = tuple(c for c in _columns_read(variable.node) if c in known)
        if variable is not response:
            _check_variable(variable, checker, text)
    return _assemble(text, algebra, terms, response)


def _check_response(lhs, checker: Checker, text: str) -> None:
    if isinstance(lhs, Call) and lhs.fn == "cbind":
        if len(lhs.args) != 2 or any(a.name for a in lhs.args):
            raise FormulaError(f"response {deparse(lhs)!r}: cbind() takes two columns, "
                               "successes and failures")
        for arg in lhs.args:
            checker.value(arg.value)
        return
    if isinstance(lhs, Num):
        raise FormulaError(f"formula {text!r}: the response {deparse(lhs)} is a number")
    checker.value(lhs)
    if not _columns_read(lhs) or all(c not in checker.columns for c in _columns_read(lhs)):
        raise FormulaError(f"formula {text!r}: the response {deparse(lhs)} reads no column "
                           "of the data")


def _check_variable(variable: Variable, checker: Checker, text: str) -> None:
    node = variable.node
    if isinstance(node, Call) and node.fn == "offset":
        if len(node.args) != 1 or node.args[0].name:
            raise FormulaError(f"formula {text!r}: offset() takes one expression")
        checker.value(node.args[0].value)
        if not variable.reads:
            raise FormulaError(f"formula {text!r}: {variable.label} reads no column of the "
                               "data (an offset is one value per row)")
        return
    if isinstance(node, Call) and node.fn == "cbind":
        raise FormulaError(f"formula {text!r}: cbind() makes a response; it belongs on the "
                           "left of '~'")
    checker.value(node)
    if not variable.reads:
        raise FormulaError(f"formula {text!r}: the term {variable.label} reads no column of "
                           "the data")


def _assemble(text: str, algebra: _Algebra, terms: list, response) -> Formula:
    variables = algebra.variables
    offsets = [i for i, v in enumerate(variables) if v.is_offset and v is not response]
    kept = []
    for term in terms:
        if any(i in offsets for i in term):
            if len(term) > 1:
                raise FormulaError(f"formula {text!r}: offset() cannot enter an interaction "
                                   "(R would drop the term silently)")
            continue
        kept.append(term)
    if response is not None:
        self_term = frozenset([0])
        if self_term in kept:
            warnings.warn(f"formula {text!r}: the response appeared on the right-hand side "
                          "and was dropped (as R drops it)", UserWarning, stacklevel=4)
            kept = [t for t in kept if t != self_term]
    order = sorted(range(len(kept)), key=lambda k: len(kept[k]))
    ordered = [tuple(sorted(kept[k])) for k in order]
    return Formula(text, response, variables, ordered, algebra.intercept,
                   [variables[i] for i in offsets])
