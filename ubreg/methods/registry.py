"""Every fitting method of :func:`ubreg.fit`, listed explicitly.

A method is declared once, in its own module (:class:`~ubreg.methods.spec.Method`:
fitter, options, result class, Dask backend); this module only lists them.  A
user's method is added with :func:`register`.
"""
from __future__ import annotations

from . import gnnb, tboost, uboost, udt, uls
from .spec import Method

__all__ = ["METHODS", "register"]

#: the fitting methods by name
METHODS: dict[str, Method] = {m.name: m for m in (
    uls.METHOD, udt.METHOD, uboost.METHOD, gnnb.GNNB, gnnb.UNN, tboost.METHOD)}


def register(method: Method) -> Method:
    """Add a method of one's own to :data:`METHODS` (the name must be new)."""
    if not isinstance(method, Method):
        raise TypeError(f"register() takes a ubreg.methods.spec.Method, got "
                        f"{type(method).__name__}")
    if method.name in METHODS:
        raise ValueError(f"a method {method.name!r} exists already")
    METHODS[method.name] = method
    return method
