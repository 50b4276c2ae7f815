"""The formula allowlist: what a formula term may contain before patsy evaluates it.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import FormulaError
from .namespace import FORMULA_NAMESPACE

__all__ = ['NUMPY_ALLOWED', 'CALLS_ALLOWED', 'check_formula_code']


def _formula_names(code: str) -> set[str]:
    """Bare names a factor's Python code uses (``Q("x")`` counts as x)."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula term {code!r}: {exc.msg}") from None
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "Q" and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(str(node.args[0].value))
    return names


#: numpy functions a formula may call as ``np.<name>``
NUMPY_ALLOWED = frozenset({
    "log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "abs", "square", "power",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "clip", "minimum", "maximum", "where", "sign", "pi", "e",
})


#: callables a formula may call by bare name
CALLS_ALLOWED = frozenset(FORMULA_NAMESPACE) | frozenset(
    {"C", "I", "Q", "center", "standardize", "scale", "bs", "cr", "cc", "te", "Treatment",
     "Sum", "Helmert", "Poly", "Diff"})


_STRING_CALLS = frozenset({"Q", "C", "Treatment", "Sum", "Helmert", "Poly", "Diff"})


#: numpy functions that are not ufuncs: (most positional arguments, keywords allowed);
#: an ufunc takes exactly its ``nin`` inputs and no keyword (``out=`` and ``where=``
#: would write into or mask the data)
_NUMPY_SIGNATURES = {
    "round": (2, frozenset({"decimals"})),
    "clip": (3, frozenset({"a_min", "a_max", "min", "max"})),
    "where": (3, frozenset()),
}


def _numpy_arguments_refusal(name: str, node: ast.Call) -> str | None:
    """Why the call ``node`` of numpy function ``name`` is refused, or None."""
    func = getattr(np, name, None)
    label = f"np.{name}" if isinstance(node.func, ast.Attribute) else name
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


_NODES_ALLOWED = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare,
    ast.BoolOp, ast.Call, ast.keyword, ast.Attribute, ast.Tuple, ast.List,
    ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
)


def check_formula_code(code: str, columns) -> None:
    """Refuse a formula term that is not plain arithmetic on columns.

    patsy evaluates formula terms as Python, so ``I(__import__('os')...)``
    would run.  Allowed: column names, ``Q("odd name")``, numbers,
    arithmetic and comparisons, calls of :data:`CALLS_ALLOWED`, and
    ``np.<f>`` for f in :data:`NUMPY_ALLOWED`; strings only inside ``Q``,
    ``C`` and contrast calls.  A numpy ufunc (``log``, ``np.exp``, ...) takes
    exactly its inputs: no ``out=``/``where=`` or other keyword, no extra
    positional argument (which numpy reads as ``out``).  Everything else
    raises :class:`FormulaError` before any evaluation.
    """
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula term {code!r}: {exc.msg}") from None
    columns = set(map(str, columns))

    def refuse(why):
        raise FormulaError(f"formula term {code!r} is not allowed: {why} "
                           "(pass trusted=True to evaluate arbitrary Python)")

    def visit(node, in_string_call=False):
        if not isinstance(node, _NODES_ALLOWED):
            refuse(f"{type(node).__name__} expressions are not permitted")
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                refuse(f"name {node.id!r}")
            if node.id not in columns and node.id not in CALLS_ALLOWED and node.id != "np":
                refuse(f"unknown name {node.id!r}")
        elif isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "np"
                    and node.attr in NUMPY_ALLOWED):
                refuse(f"attribute access {ast.unparse(node)!r} (only np.<function> is allowed)")
            return
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and not in_string_call:
                refuse("string constants are allowed only inside Q(), C() and contrasts")
            if not isinstance(node.value, (int, float, str, bool, type(None))):
                refuse(f"constant {node.value!r}")
        elif isinstance(node, ast.Call):
            func = node.func
            numpy_name = None
            if isinstance(func, ast.Name):
                if func.id not in CALLS_ALLOWED or func.id == "np":
                    refuse(f"call of {func.id!r}")
                in_string_call = in_string_call or func.id in _STRING_CALLS
                if func.id in FORMULA_NAMESPACE:   # log, exp, ...: numpy ufuncs
                    numpy_name = FORMULA_NAMESPACE[func.id].__name__
            elif isinstance(func, ast.Attribute):
                visit(func)
                numpy_name = func.attr
            else:
                refuse("calls must name a function")
            if numpy_name is not None:
                why = _numpy_arguments_refusal(numpy_name, node)
                if why:
                    refuse(why)
            for arg in node.args:
                visit(arg, in_string_call)
            for kw in node.keywords:
                if kw.arg is None or kw.arg.startswith("__"):
                    refuse("keyword unpacking")
                visit(kw.value, in_string_call)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, in_string_call)

    visit(tree)
