"""The allowlist: every node of a formula's syntax tree checked before anything is
evaluated.

:class:`Checker` walks an expression (a formula's variable, the response, an offset,
``subset=``) and refuses, with the reason and the R spelling that works, whatever is
not: a column of the data, a number or R constant, R's arithmetic, comparisons,
``&``, ``|``, ``!`` and ``%in%``, or a call of a function declared in
:mod:`ubreg.design.rfunctions` with arguments of the declared kinds.  A string is
allowed only where a declaration asks for a literal (``relevel(x, ref = "b")``), in a
comparison (``race == "white"``) and in ``%in% c(...)``.  Constant sub-expressions are
folded as they are checked and must stay finite, with exponents of at most
:data:`MAX_EXPONENT` (``10^10^8`` is refused before anything computes it); the sizes
of bases (``df``, ``degree``, knots) are at most the number of rows.

:meth:`Checker.literal` also reads the literal arguments for the interpreter, so the
two can never disagree about what an argument means.
"""
from __future__ import annotations

import difflib
import math
from typing import NoReturn

import numpy as np

from ..errors import FormulaError
from .contrasts import ContrastSpec
from .deparse import deparse
from .rfunctions import CONSTANTS, CONTRAST_NAMES, FUNCTIONS, RFunction, bind, numpy_function
from .rsyntax import Binary, Call, Chain, Const, Name, Num, Paren, Str, Unary
from .walker import ExpressionWalker, sub_expressions

__all__ = ["Checker", "MAX_EXPONENT", "NotConstant", "numpy_function", "checked_trusted",
           "R_ALTERNATIVES"]

#: the largest exponent ``^`` may have when it is a constant
MAX_EXPONENT = 1024
#: the most columns one basis (``df``, ``degree`` of a spline or polynomial) may have,
#: whatever the rows (a Dask frame's rows are not counted before its formula is checked)
MAX_BASIS = 10_000
_LARGEST = float(np.finfo(np.float64).max)
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%%", "%/%"})
_LOGICAL = frozenset({"&", "|"})
_COMPARE = frozenset({"==", "!=", "<", ">", "<=", ">="})
_SIZE_PARAMS = frozenset({"df", "degree"})
_PYTHON_CONSTANTS = {"True": "TRUE", "False": "FALSE", "None": "NULL"}
_LARGEST_INTEGER = 2 ** 31 - 1
_WHOLE_COLUMN = ("it reads other rows, which a formula's variables may not; compute the "
                 "column in pandas first (or center(x) and scale(x), which learn from the "
                 "training rows)")
_TEXT = "text functions are not supported: make the column in pandas first"
#: R functions a formula may not call, with what works instead
R_ALTERNATIVES = {
    "s": "mgcv's smooths are not available; ns(x, df = 4) or bs(x, df = 4) give a spline "
         "basis",
    "interaction": "write the interaction as a term, a:b",
    "as.character": "a text column is a factor already; factor(x) makes one of numbers",
    "mean": _WHOLE_COLUMN, "sd": _WHOLE_COLUMN, "var": _WHOLE_COLUMN,
    "median": _WHOLE_COLUMN, "sum": _WHOLE_COLUMN, "min": "use pmin(x, ...) (row by row)",
    "max": "use pmax(x, ...) (row by row)", "range": _WHOLE_COLUMN, "rank": _WHOLE_COLUMN,
    "rev": _WHOLE_COLUMN, "sort": _WHOLE_COLUMN, "order": _WHOLE_COLUMN,
    "cumsum": _WHOLE_COLUMN, "diff": _WHOLE_COLUMN, "lag": _WHOLE_COLUMN,
    "quantile": _WHOLE_COLUMN,
    "paste": _TEXT, "paste0": _TEXT, "substr": _TEXT, "nchar": _TEXT, "toupper": _TEXT,
    "tolower": _TEXT, "grepl": _TEXT, "sprintf": _TEXT,
    "Surv": "survival responses are not supported (ubreg classifies)",
    "strata": "survival models are not supported", "cluster": "use vcov(cluster=...) "
    "after the fit, where available",
    "as.logical": "write a comparison, as in x == 1",
}


class NotConstant(Exception):
    """The node is not a constant expression."""


def checked_trusted(trusted: object) -> bool:
    """``trusted`` widens what a formula may call, so only a real bool may set it (the
    string ``"False"`` is true to Python's ``bool``)."""
    if not isinstance(trusted, bool):
        raise TypeError(f"trusted must be True or False, got {trusted!r}")
    return trusted


class Checker(ExpressionWalker):
    """Checks expressions of one formula against the data's ``columns``:
    ``value(node)`` checks ``node`` as an expression and gives its folded value when
    it is a constant.

    Parameters
    ----------
    columns : collection of str
        The data's columns: the only names an expression may read.
    n_rows : int, optional
        The rows of the data, which bound the size of a basis.
    trusted : bool
        Also allow any numpy function as ``np.<name>(...)`` (arguments still checked:
        values, numbers and TRUE/FALSE only).
    formula : str
        The formula as written, quoted in every error.
    """

    def __init__(self, columns, n_rows: int | None = None, trusted: bool = False,
                 formula: str = ""):
        self.trusted = checked_trusted(trusted)
        self.columns = columns if isinstance(columns, frozenset) else frozenset(
            map(str, columns))
        self.n_rows = n_rows
        self.formula = formula

    def refuse(self, node, why: str) -> NoReturn:
        shown = deparse(node) if node is not None else self.formula
        where = f" in formula {self.formula!r}" if self.formula and shown != self.formula \
            else ""
        raise FormulaError(f"{shown!r}{where} is not allowed: {why}")

    # --- expressions of the columns ---------------------------------------------------------
    def _leaf(self, node):
        if isinstance(node, Num):
            return self._bounded(node.value, node)
        if isinstance(node, Const):
            if node.name == "NULL":
                self.refuse(node, "NULL is not a value here")
            return node.value
        if isinstance(node, Str):
            self.refuse(node, 'a string is allowed only as a literal argument '
                        '(relevel(x, ref = "b")), in a comparison (race == "white") or in '
                        '%in% c("a", "b")')
        if isinstance(node, Name):
            return self._name(node)
        self.refuse(node, f"{type(node).__name__} is not part of a formula")

    def _name(self, node: Name):
        if node.id in self.columns:
            return None
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.is_dot:
            self.refuse(node, "'.' stands for the other columns only as a term of the formula")
        close = difflib.get_close_matches(node.id, sorted(self.columns), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        if node.id in _PYTHON_CONSTANTS:
            hint = f" ({node.id} is Python's; R writes {_PYTHON_CONSTANTS[node.id]})"
        cols = sorted(self.columns)
        shown = cols if len(cols) <= 20 else cols[:20] + ["..."]
        raise FormulaError(f"formula {self.formula!r} names column(s) [{node.id!r}] that are "
                           f"not in the data{hint} (columns: {shown})")

    def _bounded(self, value, node):
        if isinstance(value, float) and math.isinf(value) and isinstance(node, Const):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and not abs(value) <= _LARGEST and value == value:
            self.refuse(node, f"the constant is too large (beyond {_LARGEST:.3g})")
        return value

    def _unary(self, node: Unary):
        if node.op == "~":
            self.refuse(node, "a formula cannot be part of an expression")
        value = self.value(node.operand)
        if value is None:
            return None
        if node.op == "!":
            return not value if isinstance(value, bool) else value == 0
        return -value if node.op == "-" else +value

    def _operand(self, node):
        """A comparison's or %in%'s operand: an expression, or a string literal."""
        if isinstance(node, Str):
            return node.value
        if isinstance(node, Call) and node.fn == "c":
            return self.literal(node, "levels", "%in%")
        return self.value(node)

    def _binary(self, node: Binary):
        if node.op == "~":
            self.refuse(node, "a formula cannot be part of an expression")
        if node.op in _COMPARE:
            self._operand(node.left)
            self._operand(node.right)
            return None
        left, right = self.value(node.left), self.value(node.right)
        if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
            self.refuse(node, f"the exponent {deparse(node.right)} is too large (at most "
                        f"{MAX_EXPONENT})")
        return self._fold("^", left, right, node)

    def _fold(self, op, left, right, node):
        if not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
            return None
        from .values import arithmetic
        return self._bounded(arithmetic(op, left, right, deparse(node)), node)

    def _chain(self, node: Chain):
        ops = set(node.ops)
        if "&&" in ops or "||" in ops:
            self.refuse(node, "&& and || take single values; R compares rows with & and |")
        if ":" in ops:
            self.refuse(node, "':' inside an expression is R's sequence operator, which a "
                        "formula does not use (an interaction a:b is written between terms)")
        unknown = ops - _ARITHMETIC - _LOGICAL - {"%in%"}
        if unknown:
            self.refuse(node, f"the operator {sorted(unknown)[0]} is not supported (allowed: "
                        "+ - * / ^ %% %/% & | ! %in% and comparisons)")
        value = self.value(node.operands[0]) if node.ops[0] != "%in%" else \
            self._operand(node.operands[0])
        for op, operand in zip(node.ops, node.operands[1:]):
            if op == "%in%":
                self._operand(operand)
                value = None
            elif op in _LOGICAL:
                self.value(operand)
                value = None
            else:
                value = self._fold(op, value, self.value(operand), node)
        return value

    # --- calls -------------------------------------------------------------------------------
    def _call(self, node: Call):
        where = deparse(node)
        if node.fn in ("offset", "cbind"):
            self.refuse(node, f"{node.fn}() belongs at the top of the formula, not inside "
                        "an expression")
        if node.fn == "c":
            self.refuse(node, "c() makes a vector of constants: it is allowed as a "
                        "function's argument or after %in%")
        if node.fn == "Q":
            return self._name(Name(self.q_name(node), quoted=True))
        fn = FUNCTIONS.get(node.fn)
        if fn is None:
            if self.trusted and numpy_function(node.fn) is not None:
                return self._numpy_call(node)
            self._unknown_function(node)
        args = bind(fn, node.args, where)
        values = self._arguments(fn, args, where)
        if fn.apply is not None and fn.transform is None and not fn.variadic and values \
                and all(isinstance(v, (int, float)) for v in values.values()):
            return self._constant_call(fn, node, where)
        return None

    def _constant_call(self, fn: RFunction, node: Call, where: str):
        from .evaluate import Environment, evaluate
        try:
            value = evaluate(node, Environment({}), {}, self)
        except FormulaError:
            return None
        return self._bounded(value, node) if isinstance(value, float) else None

    def q_name(self, node: Call) -> str:
        """The column ``Q("name")`` names (patsy's spelling of R's backticks)."""
        if len(node.args) != 1 or node.args[0].name is not None \
                or not isinstance(node.args[0].value, Str):
            self.refuse(node, 'Q() takes exactly one literal string, the name of a column '
                        '(R writes `odd name` in backticks)')
        return node.args[0].value.value

    def _unknown_function(self, node: Call) -> NoReturn:
        if node.fn in R_ALTERNATIVES:
            self.refuse(node, f"{node.fn}() is not supported: {R_ALTERNATIVES[node.fn]}")
        names = sorted(FUNCTIONS)
        close = difflib.get_close_matches(node.fn, names, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        if node.fn.startswith("np."):
            hint += "; other numpy functions need trusted=True"
        self.refuse(node, f"unknown function {node.fn!r}{hint}; the functions a formula may "
                    "call are listed in the formulas page of the documentation")

    def _numpy_call(self, node: Call):
        for arg in node.args:
            if arg.name is None:
                self.value(arg.value)
            else:
                self.literal(arg.value, "number", deparse(node))
        return None

    def _arguments(self, fn: RFunction, args: dict, where: str) -> dict:
        """Check each argument once; the folded values of the value arguments."""
        values = {}
        for p in fn.params:
            if p.name not in args:
                continue
            if p.name == fn.variadic:
                for item in args[p.name]:
                    self.value(item)
                continue
            if p.kind == "value":
                values[p.name] = self.value(args[p.name])
                continue
            value = self.literal(args[p.name], p.kind, where)
            if p.name in _SIZE_PARAMS and value is not None:
                self._size(fn.name, p.name, value, where)
            if p.name == "knots" and value is not None and self.n_rows is not None \
                    and len(value) > self.n_rows:
                raise FormulaError(f"{where}: {len(value)} knots, more than the "
                                   f"{self.n_rows} rows")
        return values

    def _size(self, fn: str, param: str, value: int, where: str) -> None:
        if value > MAX_BASIS:
            raise FormulaError(f"{where}: {param} = {value} of {fn}() is more than the "
                               f"{MAX_BASIS} columns a basis may have")
        if self.n_rows is not None and value > self.n_rows:
            raise FormulaError(f"{where}: {param} = {value} of {fn}() exceeds the "
                               f"{self.n_rows} rows of the data")

    # --- literals ------------------------------------------------------------------------------
    def literals(self, fn: RFunction, node: Call) -> dict:
        """The literal arguments of a call of ``fn`` (defaults for those not given)."""
        where = deparse(node)
        out = {p.name: p.default for p in fn.params if p.kind != "value"}
        kinds = {p.name: p.kind for p in fn.params}
        for name, arg in bind(fn, node.args, where).items():
            if name != fn.variadic and kinds[name] != "value":
                out[name] = self.literal(arg, kinds[name], where)
        return out

    def constant(self, node):
        """The value of a constant expression (numbers, TRUE/FALSE, strings), or raise
        :class:`NotConstant`."""
        if isinstance(node, Str):
            return node.value
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Name) and node.id in CONSTANTS and node.id not in self.columns:
            return CONSTANTS[node.id]
        if isinstance(node, (Num, Paren, Unary, Binary, Chain, Call)) and \
                not _reads_columns(node, self.columns):
            if isinstance(node, Call) and node.fn == "c":
                raise NotConstant
            value = self.value(node)
            if value is not None:
                return value
        raise NotConstant

    def literal(self, node, kind: str, where: str):
        """The value of a literal argument of ``kind`` (see :mod:`~ubreg.design.rfunctions`)."""
        if isinstance(node, Const) and node.name == "NULL":
            return None
        if kind == "contrast":
            return self._contrast(node, where)
        if kind in ("levels", "numbers"):
            items = node.args if isinstance(node, Call) and node.fn == "c" else None
            values = tuple(self._scalar(a.value, where) for a in items) if items is not None \
                else (self._scalar(node, where),)
            if items is not None and any(a.name is not None for a in items):
                raise FormulaError(f"{where}: c() of named values is not supported")
            if kind == "numbers" and not all(_is_number(v) for v in values):
                raise FormulaError(f"{where}: expected numbers, as in c(1, 2.5), got "
                                   f"{deparse(node)}")
            return values
        value = self._scalar(node, where)
        return _literal_of_kind(value, kind, node, where)

    def _scalar(self, node, where: str):
        if isinstance(node, Name) and node.id in _PYTHON_CONSTANTS \
                and node.id not in self.columns:
            raise FormulaError(f"{where}: {node.id} is Python's; R writes "
                               f"{_PYTHON_CONSTANTS[node.id]}")
        if isinstance(node, Name) and node.id not in self.columns \
                and node.id not in CONSTANTS:
            raise FormulaError(f"{where}: {deparse(node)} must be a value written in the "
                               "formula (a number, TRUE/FALSE or a quoted string)")
        try:
            return self.constant(node)
        except NotConstant:
            raise FormulaError(f"{where}: {deparse(node)} must be a value written in the "
                               "formula (a number, TRUE/FALSE or a string)") from None

    def _contrast(self, node, where: str) -> ContrastSpec:
        if isinstance(node, (Name, Str)):
            key = node.id if isinstance(node, Name) else node.value
            if key in CONTRAST_NAMES:
                return ContrastSpec(CONTRAST_NAMES[key])
        if isinstance(node, Call) and node.fn in CONTRAST_NAMES:
            kind = CONTRAST_NAMES[node.fn]
            named = {a.name: self._scalar(a.value, where) for a in node.args if a.name}
            plain = [self._scalar(a.value, where) for a in node.args if a.name is None]
            if kind == "treatment" and node.fn == "contr.treatment":
                base = named.get("base", plain[1] if len(plain) > 1 else 1)
                numbered = bool(plain) and _is_number(plain[0])
                return ContrastSpec("treatment", base=int(base),
                                    names="positions" if numbered else "levels")
            if kind == "treatment":
                ref = named.get("reference", plain[0] if plain else None)
                return ContrastSpec("treatment", reference=ref)
            if kind == "sum" and node.fn == "Sum":
                return ContrastSpec("sum", omit=named.get("omit", plain[0] if plain else None))
            return ContrastSpec(kind)
        raise FormulaError(f"{where}: {deparse(node)} is not a contrast (use contr.treatment, "
                           "contr.sum, contr.helmert, contr.poly, contr.SAS, or "
                           "Treatment(\"level\"))")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _literal_of_kind(value, kind: str, node, where: str):
    if kind == "text":
        if not isinstance(value, str):
            raise FormulaError(f"{where}: expected a string, got {deparse(node)}")
        return value
    if kind == "flag":
        if isinstance(value, bool) or (_is_number(value) and value in (0, 1)):
            return bool(value)
        raise FormulaError(f"{where}: expected TRUE or FALSE, got {deparse(node)}")
    if kind in ("number", "count", "integer"):
        if not _is_number(value) or not math.isfinite(value):
            raise FormulaError(f"{where}: expected a finite number, got {deparse(node)}")
        if kind == "number":
            return float(value)
        if not float(value).is_integer() or (kind == "count" and value < 0):
            raise FormulaError(f"{where}: expected a whole number{' ≥ 0' * (kind == 'count')}, "
                               f"got {deparse(node)}")
        if abs(value) > _LARGEST_INTEGER:
            raise FormulaError(f"{where}: {deparse(node)} is beyond R's integers "
                               f"(±{_LARGEST_INTEGER})")
        return int(value)
    return value                                # "level": a string, number or TRUE/FALSE


def _reads_columns(node, columns: frozenset) -> bool:
    """Whether an expression reads a column (a name that is not a constant)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Name):
            if item.id in columns or item.id not in CONSTANTS:
                return True
        else:
            stack += sub_expressions(item)
    return False
