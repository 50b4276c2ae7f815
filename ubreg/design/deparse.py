"""R's text of a syntax tree (``deparse``) and of a number (``as.character``).

A formula's variables are named as R names them, by deparsing their expression:
``relevel(race, ref = "black")``, ``I(age^2)``, ``poly(lwt, 2)``, `` `my var` ``.
Those names label terms and, with a level or a column number appended, the columns
of the design (R's ``model.matrix``), so coefficients carry R's names.
"""
from __future__ import annotations

import math

from .rsyntax import Binary, Call, Chain, Const, Name, Num, Paren, Str, Unary, is_syntactic

__all__ = ["deparse", "r_number", "r_name", "r_string", "r_level"]

#: operators R deparses without spaces around them (PP_BINARY2 in R's names.c)
_TIGHT = frozenset({"/", "^", ":", "%%", "%/%"})
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r",
                   "\0": "\\0", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}


def r_number(x: float, digits: int = 15) -> str:
    """``x`` as R's ``as.character`` and ``deparse`` write a double: the fewest
    significant digits (at most 15) that give ``x`` to 15 digits, in fixed notation
    unless scientific notation is shorter (R's ``formatReal`` with ``scipen = 0``)."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    target = float(f"{x:.{digits - 1}e}")
    for sig in range(1, digits + 1):
        if float(f"{x:.{sig - 1}e}") == target:
            break
    mantissa, exponent = f"{x:.{sig - 1}e}".split("e")
    exp10 = int(exponent)
    sci = f"{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    decimals = max(0, sig - 1 - exp10)
    fixed = f"{x:.{decimals}f}"
    return fixed if len(fixed) <= len(sci) else sci


def r_string(value: str) -> str:
    """A string literal as R deparses it (double quotes, R's escapes)."""
    return '"' + "".join(_STRING_ESCAPES.get(ch, ch) for ch in value) + '"'


def r_name(name: str) -> str:
    """A name as R deparses it: bare when syntactic, else in backticks."""
    if is_syntactic(name):
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def r_level(value) -> str:
    """A factor level as R labels it: text as it is, ``TRUE``/``FALSE``, numbers by
    :func:`r_number` (``as.character`` of a number)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)) or hasattr(value, "dtype"):
        try:
            return r_number(float(value))
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def _number(node: Num) -> str:
    # R labels a model's terms with deparse's default options, which drop an integer's L
    # (poly(x, 2L) is the term "poly(x, 2)")
    return r_number(node.value)


def deparse(node) -> str:
    """R's one-line deparse of ``node`` (``deparse1line``)."""
    if isinstance(node, Num):
        return _number(node)
    if isinstance(node, Const):
        return node.name
    if isinstance(node, Str):
        return r_string(node.value)
    if isinstance(node, Name):
        return "`.`" if node.id == "." and node.quoted else r_name(node.id)
    if isinstance(node, Paren):
        return f"({deparse(node.inner)})"
    if isinstance(node, Unary):
        if node.op == "~":
            return f"~{deparse(node.operand)}"
        return f"{node.op}{deparse(node.operand)}"
    if isinstance(node, Binary):
        return _binary(node.op, deparse(node.left), deparse(node.right))
    if isinstance(node, Chain):
        text = deparse(node.operands[0])
        for op, operand in zip(node.ops, node.operands[1:]):
            text = _binary(op, text, deparse(operand))
        return text
    if isinstance(node, Call):
        args = ", ".join(deparse(a.value) if a.name is None
                         else f"{r_name(a.name)} = {deparse(a.value)}" for a in node.args)
        return f"{r_name(node.fn)}({args})"
    raise TypeError(f"not a syntax node: {node!r}")


def _binary(op: str, left: str, right: str) -> str:
    if op in _TIGHT:
        return f"{left}{op}{right}"
    return f"{left} {op} {right}"
