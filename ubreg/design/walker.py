"""The walk over an expression's syntax tree that the checker and the interpreter share.

:class:`~ubreg.design.allowlist.Checker` (which folds constants as it checks) and the
interpreter of :mod:`ubreg.design.evaluate` both compute a value bottom-up over the
nodes of :mod:`ubreg.design.rsyntax`; :class:`ExpressionWalker` dispatches the nodes
that hold other expressions, so the two visit the same nodes in the same way and
differ only in what they do with each.  :func:`sub_expressions` gives a node's children,
for the walks that only look for names.
"""
from __future__ import annotations

import abc
from typing import Any

from .rsyntax import Binary, Call, Chain, Paren, Unary

__all__ = ["ExpressionWalker", "sub_expressions"]


def sub_expressions(node: Any) -> list:
    """The expressions ``node`` holds, left to right (none for a leaf): the inner one of
    parentheses, the operands of an operator, the arguments' values of a call."""
    if isinstance(node, Paren):
        return [node.inner]
    if isinstance(node, Unary):
        return [node.operand]
    if isinstance(node, Binary):
        return [node.left, node.right]
    if isinstance(node, Chain):
        return list(node.operands)
    if isinstance(node, Call):
        return [a.value for a in node.args]
    return []


class ExpressionWalker(abc.ABC):
    """``value(node)`` of an expression: a parenthesised expression is its inner
    expression's value; an operator or a call goes to the subclass's ``_unary``,
    ``_binary``, ``_chain`` or ``_call``; any other node (a number, a constant, a
    string, a name, or a node that is no part of an expression) to ``_leaf``."""

    def value(self, node: Any) -> Any:
        if isinstance(node, Paren):
            return self.value(node.inner)
        if isinstance(node, Unary):
            return self._unary(node)
        if isinstance(node, Binary):
            return self._binary(node)
        if isinstance(node, Chain):
            return self._chain(node)
        if isinstance(node, Call):
            return self._call(node)
        return self._leaf(node)

    @abc.abstractmethod
    def _leaf(self, node: Any) -> Any:
        ...

    @abc.abstractmethod
    def _unary(self, node: Unary) -> Any:
        ...

    @abc.abstractmethod
    def _binary(self, node: Binary) -> Any:
        ...

    @abc.abstractmethod
    def _chain(self, node: Chain) -> Any:
        ...

    @abc.abstractmethod
    def _call(self, node: Call) -> Any:
        ...
