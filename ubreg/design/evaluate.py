"""ubreg's interpreter of checked formula expressions: no text is ever given to Python.

:func:`evaluate` walks a syntax tree that :class:`~ubreg.design.allowlist.Checker` has
accepted.  A name is resolved by :meth:`Environment.column` (the data's columns, then
R's constants ``pi``, ``T``, ``F``), a call by :meth:`Environment.function` (the
declarations of :mod:`ubreg.design.rfunctions`, and numpy's functions only when the
formula is trusted): nothing else can be reached, whatever the tree holds.

A function that learns from the training rows (``scale``, ``poly``, ``factor``, ...)
is evaluated through its transform in ``transforms``, keyed by its call node;
:func:`learn` fits those transforms, innermost first (``scale(poly(x, 2))`` learns
``poly`` before ``scale`` reads it), over one chunk of rows or many (partitions).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from ..errors import FormulaError
from .deparse import deparse
from .rfunctions import CONSTANTS, FUNCTIONS, RFunction, bind, numpy_function
from .rsyntax import Binary, Call, Chain, Const, Name, Num, Str, Unary
from .values import (
    Factor,
    Logical,
    arithmetic,
    as_numbers,
    column_value,
    compare,
    logical_op,
    member,
    negate,
)
from .walker import ExpressionWalker, sub_expressions

if TYPE_CHECKING:
    from .allowlist import Checker

__all__ = ["Environment", "evaluate", "learn", "stateful_calls"]


class Environment:
    """What the names of an expression mean: ``data`` (column name → values, as
    :func:`~ubreg.design.checks.patsy_input` gives them) and R's constants.

    ``text`` names the columns that were text (read as factors, but refused by
    ``as.numeric``); ``trusted`` lets ``np.<name>`` reach any numpy function.
    """

    def __init__(self, data: Mapping, text: Iterable[str] = (), trusted: bool = False):
        self.data = data
        self.text = frozenset(text)
        self.trusted = trusted

    def column(self, name: str):
        """The value of the name ``name``: a column, else a constant."""
        if name in self.data:
            return column_value(self.data[name], text=name in self.text)
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise FormulaError(f"the data have no column {name!r}")

    def function(self, name: str) -> RFunction | Callable:
        """The declaration of the function ``name`` (a numpy function when trusted)."""
        fn = FUNCTIONS.get(name)
        if fn is not None:
            return fn
        if self.trusted and numpy_function(name) is not None:
            return numpy_function(name)
        raise FormulaError(f"unknown function {name!r}")


def evaluate(node, env: Environment, transforms: Mapping, checker: Checker):
    """The value of the expression ``node``, which ``checker`` has checked (see
    :mod:`~ubreg.design.values`)."""
    return _Evaluation(env, transforms, checker).value(node)


class _Evaluation(ExpressionWalker):
    def __init__(self, env: Environment, transforms: Mapping, checker: Checker):
        self.env, self.transforms, self.checker = env, transforms, checker

    def _leaf(self, node):
        if isinstance(node, Num):
            return float(node.value)
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Str):
            return node.value
        if isinstance(node, Name):
            return self.env.column(node.id)
        raise FormulaError(f"cannot evaluate {node!r}")

    def _operand(self, node):
        if isinstance(node, Call) and node.fn == "c":
            return self.checker.literal(node, "levels", "%in%")
        return self.value(node)

    def _unary(self, node: Unary):
        where = deparse(node)
        operand = self.value(node.operand)
        if node.op == "!":
            return negate(operand, where)
        if node.op == "-":
            return arithmetic("-", 0.0, operand, where)
        return as_numbers(operand, where)

    def _binary(self, node: Binary):
        where = deparse(node)
        if node.op == "^":
            return arithmetic("^", self.value(node.left), self.value(node.right), where)
        return compare(node.op, self._operand(node.left), self._operand(node.right), where)

    def _chain(self, node: Chain):
        where = deparse(node)
        out = self._operand(node.operands[0])
        for op, operand in zip(node.ops, node.operands[1:]):
            if op == "%in%":
                out = member(out, self._operand(operand), where)
            elif op in ("&", "|"):
                out = logical_op(op, out, self.value(operand), where)
            else:
                out = arithmetic(op, out, self.value(operand), where)
        return out

    def _call(self, node: Call):
        where = deparse(node)
        if node.fn == "Q":
            return self.env.column(self.checker.q_name(node))
        fn = self.env.function(node.fn)
        if not isinstance(fn, RFunction):
            return self._numpy(fn, node, where)
        args = self.arguments(fn, node, where)
        if fn.transform is None:
            assert fn.apply is not None             # a declaration has one or the other
            return fn.apply(args, where)
        transform = self.transforms.get(node)
        if transform is None:
            raise FormulaError(f"{where}: evaluated before it learned from the data")
        return transform.apply(args)

    def arguments(self, fn: RFunction, node: Call, where: str) -> dict:
        """The call's arguments: values evaluated, literals read."""
        out: dict = {}
        for p in fn.params:
            out.setdefault(p.name, p.default)
        for name, arg in bind(fn, node.args, where).items():
            param = next(p for p in fn.params if p.name == name)
            if name == fn.variadic:
                out[name] = [self.value(item) for item in arg]
            elif param.kind == "value":
                out[name] = self.value(arg)
            else:
                out[name] = self.checker.literal(arg, param.kind, where)
        return out

    def _numpy(self, fn, node: Call, where: str):
        args = [as_numbers(self.value(a.value), where) for a in node.args if a.name is None]
        kwargs = {a.name: self.checker.literal(a.value, "number", where)
                  for a in node.args if a.name is not None}
        try:
            with np.errstate(all="ignore"):
                out = fn(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            raise FormulaError(f"{where}: {exc}") from None
        out = np.asarray(out)
        if out.dtype.kind == "b":
            return Logical(out)
        return out.astype(np.float64) if out.ndim else float(out)


def stateful_calls(node) -> list[tuple[Call, int]]:
    """The calls of learning functions in ``node`` with their depth (1 + the deepest
    learning call inside their arguments), innermost first, each once."""
    found: dict = {}

    def depth(item) -> int:
        inner = 0
        children = sub_expressions(item)
        for child in children:
            inner = max(inner, depth(child))
        if isinstance(item, Call):
            fn = FUNCTIONS.get(item.fn)
            if fn is not None and fn.transform is not None:
                found.setdefault(item, inner + 1)
                return inner + 1
        return inner

    depth(node)
    return sorted(found.items(), key=lambda kv: kv[1])


def learn(node, chunks: Callable[[], Iterable[Environment]], checker: Checker) -> dict:
    """The transforms of every learning call in ``node``, fitted on the rows that
    ``chunks()`` yields (a fresh iterator of environments per pass; one pass per
    level of nesting)."""
    transforms: dict = {}
    calls = stateful_calls(node)
    for level in sorted({d for _, d in calls}):
        here = [call for call, d in calls if d == level]
        for call in here:
            fn = FUNCTIONS[call.fn]
            assert fn.transform is not None          # stateful_calls found it so
            transforms[call] = fn.transform(checker.literals(fn, call), deparse(call))
        for env in chunks():
            run = _Evaluation(env, transforms, checker)
            for call in here:
                fn = FUNCTIONS[call.fn]
                transforms[call].learn(run.arguments(fn, call, deparse(call)))
        for call in here:
            transforms[call].finish()
    return transforms


def is_factor_value(value) -> bool:
    """Whether a value is coded by levels in a design (a factor or a logical)."""
    return isinstance(value, (Factor, Logical))
