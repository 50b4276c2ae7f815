"""The formula allowlist: what a formula term may contain before patsy evaluates it.

patsy evaluates formula terms as Python.  :func:`check_formula_code` reads each
term's syntax tree and refuses, before anything is evaluated, whatever is not
plain arithmetic on columns: unknown names and calls, attribute access other than
``np.<function>``, strings other than the literal arguments of ``Q()``, ``C()`` and
contrasts, and sizes that would exhaust the machine (huge constants and exponents,
spline bases wider than the data).
"""
from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from ..errors import FormulaError
from .namespace import ESCAPE, FORMULA_NAMESPACE, NUMPY_FUNCTIONS

__all__ = ["NUMPY_ALLOWED", "CALLS_ALLOWED", "MAX_EXPONENT", "check_formula_code",
           "variable_names"]

#: numpy functions a formula may call as ``np.<name>``
NUMPY_ALLOWED = frozenset({
    "log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "abs", "square", "power",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "clip", "minimum", "maximum", "where", "sign", "pi", "e",
})
_CONTRASTS = frozenset({"Treatment", "Sum", "Helmert", "Poly", "Diff"})
_SPLINES = frozenset({"bs", "cr", "cc", "ns", "poly"})
#: callables a formula may call by bare name
CALLS_ALLOWED = frozenset(FORMULA_NAMESPACE) | frozenset({"C", "I", "Q", "te"}) | _CONTRASTS
#: the largest constant exponent of ``**`` (or R's ``^``) in a formula
MAX_EXPONENT = 1024
_LARGEST = float(np.finfo(np.float64).max)

#: numpy functions that are not ufuncs: (most positional arguments, keywords allowed);
#: an ufunc takes exactly its ``nin`` inputs and no keyword (``out=`` and ``where=``
#: would write into or mask the data)
_NUMPY_SIGNATURES: dict[str, tuple[int, frozenset[str]]] = {
    "round": (2, frozenset({"decimals"})),
    "clip": (3, frozenset({"a_min", "a_max", "min", "max"})),
    "where": (3, frozenset()),
}
#: positional parameters of the spline transforms after ``x``
_SPLINE_POSITIONAL = {"bs": ("df", "knots", "degree"), "cr": ("df", "knots"),
                      "cc": ("df", "knots"), "ns": ("df", "knots", "intercept", "Boundary_knots"),
                      "poly": ("degree", "raw")}
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
    ast.Invert: operator.invert}
_NODES_ALLOWED = (ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp,
                  ast.Compare, ast.BoolOp, ast.Call, ast.keyword, ast.Attribute, ast.Tuple,
                  ast.List, ast.cmpop, ast.boolop)


def _parse_code(code: str) -> ast.Expression:
    try:
        return ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula term {code!r}: {exc.msg}") from None


def _callee(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id[len(ESCAPE):] if func.id.startswith(ESCAPE) else func.id
    return None


def variable_names(code: str) -> set[str]:
    """The data variables a term's Python code reads.

    Bare names that are not called (``x`` in ``log(x)``, not ``log``), not the
    ``np`` of ``np.sqrt``, and the literal names of ``Q("odd name")``.  Bare
    names come back as Python reads them (NFKC-normalised).
    """
    tree = _parse_code(code)
    names, skip = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            skip.add(id(node.func))
            if (_callee(node) == "Q" and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                names.add(node.args[0].value)
        elif isinstance(node, ast.Attribute):
            skip.add(id(node.value))
        elif isinstance(node, ast.Name) and id(node) not in skip:
            names.add(node.id)
    return names


def _numpy_arguments_refusal(name: str, node: ast.Call) -> str | None:
    """Why the call ``node`` of numpy function ``name`` is refused, or None."""
    func = getattr(np, name, None)
    label = f"np.{name}" if isinstance(node.func, ast.Attribute) else name
    keywords: frozenset[str]
    if isinstance(func, np.ufunc):
        most, keywords = func.nin, frozenset()
    elif name in _NUMPY_SIGNATURES:
        most, keywords = _NUMPY_SIGNATURES[name]
    else:
        return f"{label} is not a function"
    if len(node.args) > most:
        hint = "" if name == "where" else " (a further argument would be numpy's out=)"
        return (f"{label} takes at most {most} positional argument(s) here, got "
                f"{len(node.args)}{hint}")
    for kw in node.keywords:
        if kw.arg not in keywords:
            allowed = f" (allowed: {', '.join(sorted(keywords))})" if keywords else ""
            return f"keyword argument {kw.arg}= of {label}{allowed}"
    return None


def _is_literal(node, kinds=(str, int, float, bool)) -> bool:
    """A constant, or a list/tuple of constants, of the given types."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, kinds)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(isinstance(e, ast.Constant) and isinstance(e.value, kinds) for e in node.elts)
    return False


class _Checker:
    """One term's check: :meth:`visit` refuses or returns the folded constant value
    of the node (``None`` when the node is not a constant)."""

    def __init__(self, shown: str, columns, n_rows: int | None):
        self.code, self.columns, self.n_rows = shown, columns, n_rows

    def refuse(self, why: str) -> NoReturn:
        raise FormulaError(f"formula term {self.code!r} is not allowed: {why} "
                           "(pass trusted=True to evaluate arbitrary Python)")

    def visit(self, node):
        if not isinstance(node, _NODES_ALLOWED):
            self.refuse(f"{type(node).__name__} expressions are not permitted")
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("np", ESCAPE + "np")
                    and node.attr in NUMPY_ALLOWED):
                self.refuse(f"attribute access {ast.unparse(node)!r} (only np.<function> is "
                            "allowed)")
            return None
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node)
        if isinstance(node, ast.Call):
            self._call(node)
            return None
        for child in ast.iter_child_nodes(node):
            self.visit(child)
        return None

    def _name(self, node: ast.Name):
        name = node.id
        if name.startswith(ESCAPE):
            name = name[len(ESCAPE):]
        elif name.startswith("__"):
            self.refuse(f"name {node.id!r}")
        if node.id not in self.columns and name not in CALLS_ALLOWED and name != "np":
            self.refuse(f"unknown name {node.id!r}")
        return None

    def _constant(self, node: ast.Constant):
        value = node.value
        if isinstance(value, str):
            self.refuse("string constants are allowed only as the literal arguments of Q(), "
                        "C() and contrasts")
        if not isinstance(value, (int, float, bool, type(None))):
            self.refuse(f"constant {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._bounded(value, node)
        return value

    def _bounded(self, value, node):
        if isinstance(value, (int, float)) and not abs(value) <= _LARGEST:
            self.refuse(f"the constant {ast.unparse(node)!r} is too large (beyond "
                        f"{_LARGEST:.3g})")
        return value

    def _binary(self, node: ast.BinOp):
        if type(node.op) not in _BINARY:
            self.refuse(f"operator {type(node.op).__name__} is not permitted")
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)):
            if abs(right) > MAX_EXPONENT:
                self.refuse(f"the exponent {ast.unparse(node.right)} is too large (at most "
                            f"{MAX_EXPONENT})")
        if not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
            return None
        try:
            value = _BINARY[type(node.op)](left, right)
        except (ArithmeticError, ValueError, TypeError) as exc:
            self.refuse(f"the constant {ast.unparse(node)!r} cannot be computed ({exc})")
        if isinstance(value, complex):
            self.refuse(f"the constant {ast.unparse(node)!r} is complex")
        return self._bounded(value, node)

    def _unary(self, node: ast.UnaryOp):
        operand = self.visit(node.operand)
        if isinstance(operand, (int, float)):
            return self._bounded(_UNARY[type(node.op)](operand), node)
        return None

    def _call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            self.visit(func)
            why = _numpy_arguments_refusal(func.attr, node)
            if why:
                self.refuse(why)
        elif not isinstance(func, ast.Name):
            self.refuse("calls must name a function")
        name = _callee(node)
        if isinstance(func, ast.Name) and (name not in CALLS_ALLOWED or name == "np"):
            self.refuse(f"call of {func.id!r}")
        for kw in node.keywords:
            if kw.arg is None or kw.arg.startswith("__"):
                self.refuse("keyword unpacking")
        if name in NUMPY_FUNCTIONS:
            why = _numpy_arguments_refusal(NUMPY_FUNCTIONS[name].__name__, node)
            if why:
                self.refuse(why)
        if name == "Q":
            return self._q(node)
        if name == "C":
            return self._c(node)
        if name in _CONTRASTS:
            return self._contrast(node)
        if name in _SPLINES:
            self._spline(name, node)
        for arg in node.args:
            self.visit(arg)
        for kw in node.keywords:
            self.visit(kw.value)

    def _q(self, node: ast.Call):
        if (len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.Constant)
                or not isinstance(node.args[0].value, str)):
            self.refuse("Q() takes exactly one literal string, the name of a column")

    def _c(self, node: ast.Call):
        if not node.args:
            self.refuse("C() needs the variable to code as a factor")
        self.visit(node.args[0])
        extra = list(node.args[1:]) + [kw.value for kw in node.keywords
                                       if kw.arg in ("contrast", "levels")]
        if len(node.args) > 3 or any(kw.arg not in ("contrast", "levels") for kw in node.keywords):
            self.refuse("C() takes the variable, a contrast and levels= only")
        for arg in extra:
            if _is_literal(arg):
                continue
            if isinstance(arg, ast.Name) and arg.id in _CONTRASTS:
                continue
            if isinstance(arg, ast.Call) and _callee(arg) in _CONTRASTS:
                self._contrast(arg)
                continue
            self.refuse("the contrast and levels of C() must be a contrast or literal values")

    def _contrast(self, node: ast.Call):
        values = list(node.args) + [kw.value for kw in node.keywords]
        if not all(_is_literal(v) for v in values):
            self.refuse(f"{_callee(node)}() takes literal values only")

    def _spline(self, name: str, node: ast.Call):
        given: dict[str | None, ast.expr] = dict(zip(_SPLINE_POSITIONAL[name], node.args[1:]))
        given.update({kw.arg: kw.value for kw in node.keywords})
        limit = self.n_rows
        for key in ("df", "degree"):
            count = given.get(key)
            if count is not None and not (isinstance(count, ast.Constant)
                                          and count.value is None):
                self._spline_count(name, key, count, limit)
        knots = given.get("knots")
        if knots is not None and not (isinstance(knots, ast.Constant) and knots.value is None):
            # a literal that is not a constant: a list or tuple of constants
            if not (isinstance(knots, (ast.List, ast.Tuple)) and _is_literal(knots, (int, float))):
                self.refuse(f"knots= of {name}() must be a literal list of numbers")
            if limit is not None and len(knots.elts) > limit:
                self.refuse(f"{name}() has {len(knots.elts)} knots, more than the {limit} rows")
        bounds = given.get("Boundary_knots")
        if bounds is not None and not (isinstance(bounds, ast.Constant) and bounds.value is None):
            if not (isinstance(bounds, (ast.List, ast.Tuple))
                    and _is_literal(bounds, (int, float))) or len(bounds.elts) != 2:
                self.refuse(f"Boundary_knots= of {name}() must be a literal pair of numbers")
        constraints = given.get("constraints")
        if constraints is not None and not _is_literal(constraints, (str, int, float)):
            self.refuse(f"constraints= of {name}() must be a literal value")

    def _spline_count(self, name: str, key: str, node, limit: int | None):
        value = self.visit(node)
        if not isinstance(value, (int, float)) or isinstance(value, bool) \
                or not float(value).is_integer() or value < 0:
            self.refuse(f"{key}= of {name}() must be a whole number, got {ast.unparse(node)}")
        if limit is not None and value > limit:
            self.refuse(f"{key}={ast.unparse(node)} of {name}() exceeds the {limit} rows of "
                        "the data")
        if not math.isfinite(value):
            self.refuse(f"{key}= of {name}() must be finite")


def check_formula_code(code: str, columns, n_rows: int | None = None,
                       shown: str | None = None) -> None:
    """Refuse a formula term that is not plain arithmetic on columns.

    patsy evaluates formula terms as Python, so ``I(__import__('os')...)``
    would run.  Allowed: column names, ``Q("odd name")``, numbers, arithmetic
    (``+ - * / // % **``, ``&`` and ``|``) and comparisons, calls of
    :data:`CALLS_ALLOWED`, and ``np.<f>`` for f in :data:`NUMPY_ALLOWED`.

    - Strings only as literal arguments: ``Q()`` takes exactly one literal
      string; ``C()`` a variable, a contrast and literal ``levels=``; contrasts
      literal values.  No string arithmetic anywhere.
    - A numpy ufunc (``log``, ``np.exp``, ...) takes exactly its inputs: no
      ``out=``/``where=`` or other keyword, no extra positional argument (which
      numpy reads as ``out``).
    - Constant sub-expressions are folded as they are checked: each must stay
      within the range of a double, and a constant exponent must be at most
      :data:`MAX_EXPONENT` in absolute value (``10 ** 10 ** 8`` is refused
      before Python would spend hours on it).
    - Spline and polynomial transforms (``bs``, ``cr``, ``cc``, ``ns``, ``poly``): ``df``
      and ``degree`` are whole
      numbers and, with ``n_rows`` given, at most the number of rows; ``knots``
      a literal list no longer than that.

    Everything else raises :class:`FormulaError` before any evaluation; its
    message quotes ``shown`` (the term as written) when given.
    """
    columns = columns if isinstance(columns, frozenset) else frozenset(map(str, columns))
    checker = _Checker(shown or code, columns, n_rows)
    checker.visit(_parse_code(code))
