"""What a method is: :class:`Method` declares it, :class:`FitSpec` is what it receives.

A method module (``methods/uls.py``, ``methods/udt.py``, ...) builds one
:class:`Method` naming its in-memory fitter, its options, its result class and
its Dask backend (a ``"module:function"`` reference, imported only when a Dask
frame arrives, so that ``import ubreg`` never loads Dask).
:mod:`ubreg.methods.registry` lists them all.
"""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

from ..families.base import Family

__all__ = ["FitSpec", "Method", "method_options", "model_frame", "raw_frame"]


@dataclass(frozen=True)
class FitSpec:
    """What every method receives: the model as the user wrote it."""

    formula: str
    data: object
    family: Family | list[Family]  # a list: a bag of families, for methods that accept one
    weights: object
    na_action: str
    positive: object
    call: str
    trusted: bool = False
    #: whether the caller named a family (``family=None`` resolves to entropy); methods
    #: that take their loss from elsewhere (uboost's U=, tboost's t=) warn when it is ignored
    family_given: bool = True
    #: what ``weights`` mean: ``"prior"`` (R's glm(weights=): nobs and df count the rows
    #: of non-zero weight, HC0 meat Σ w² r² x xᵀ) or ``"freq"`` (frequency weights: a row
    #: of weight 2 is the row twice, nobs = Σ w)
    weight_kind: str = "prior"
    #: R's ``offset=`` (a column name, an expression or an array) and ``subset=``
    offset: object = None
    subset: object = None


def model_frame(spec: FitSpec, method: str, *, offset: bool = False,
                proportions: bool = False, **kw):
    """:func:`ubreg.design.build_model_frame` of ``spec``; a method that has no linear
    predictor (``offset=False``) refuses an offset, one that needs a binary response
    (``proportions=False``) refuses proportions."""
    from ..design import build_model_frame
    from ..errors import FormulaError
    mf = build_model_frame(spec.formula, spec.data, weights=spec.weights,
                           na_action=spec.na_action, positive=spec.positive,
                           trusted=spec.trusted, offset=spec.offset, subset=spec.subset,
                           proportions=proportions, **kw)
    if not offset and mf.design.has_offset:
        raise FormulaError(f"method {method!r} takes no offset (an offset is a known part of a "
                           "linear predictor: method='uls' with the design columns fits one)")
    return mf


def raw_frame(spec: FitSpec, method: str):
    """:func:`ubreg.design.build_raw_frame` of ``spec`` (no offset: trees have no
    linear predictor)."""
    from ..design import build_raw_frame
    from ..errors import FormulaError
    if spec.offset is not None:
        raise FormulaError(f"method {method!r} takes no offset (a tree has no linear "
                           "predictor)")
    return build_raw_frame(spec.formula, spec.data, weights=spec.weights,
                           na_action=spec.na_action, positive=spec.positive,
                           trusted=spec.trusted, subset=spec.subset)


def method_options(func) -> list[str] | None:
    """The options a method function ``(spec, **options)`` accepts, from its signature.

    ``None`` when the function forwards ``**options`` without declaring them
    (a forwarding function can declare them by ``__signature__``).
    """
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())[1:]          # after spec
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def option_defaults(func) -> dict:
    """Default values of a method function's options, from its signature."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.default for p in params if p.default is not p.empty}


@dataclass(frozen=True)
class Method:
    """One fitting method of :func:`ubreg.fit`.

    Parameters
    ----------
    name : str
        ``method=`` of :func:`ubreg.fit`.
    fit : callable
        ``(spec: FitSpec, **options) -> Result`` for data in memory.
    result : type
        The class of what ``fit`` returns.
    options : callable, optional
        ``options -> (label, accepted names or None)``: the options the method
        accepts given those passed (``uls`` answers per learner).  By default the
        keyword parameters of ``fit``.
    defaults : callable, optional
        ``options -> {name: default}`` (the command line reads yes/no options
        from it).  By default the defaults of ``fit``'s signature.
    dask : str, optional
        ``"module:function"`` of the Dask backend, ``(spec, **options) -> Result``.
        ``None``: the method needs its data in memory.
    dask_options : tuple of str
        Options only the Dask backend takes.
    quick : dict
        Small, fast settings by variant (``""`` the method itself, else a label
        such as ``"stumps"``): options for examples and for the package's tests,
        which fit every variant of every registered method on tiny data.
    multiclass : bool
        Whether the method fits responses of more than two classes.
    keeps_missing : bool
        Whether rows with NA predictors are kept and routed (trees) rather than
        dropped.
    cv_options : callable, optional
        ``(formula, frame, weights, fit_kw) -> dict``: options that :func:`ubreg.cv`
        computes once over all the rows and passes to every fold's fit (gnnb's
        neighbour graph).  They must not change the fits, only their speed.
    """

    name: str
    fit: Callable
    result: type
    options: Callable | None = None
    defaults: Callable | None = None
    dask: str | None = None
    dask_options: tuple = field(default_factory=tuple)
    quick: dict = field(default_factory=lambda: {"": {}})
    multiclass: bool = False
    keeps_missing: bool = False
    cv_options: Callable | None = None

    def accepted(self, options: dict) -> tuple[str, list | None]:
        """(label for messages, names of the options accepted, or None if unknown)."""
        if self.options is not None:
            return self.options(options)
        return repr(self.name), method_options(self.fit)

    def option_defaults(self, options: dict) -> dict:
        """Default values of the options, given the options passed."""
        if self.defaults is not None:
            return self.defaults(options)
        return option_defaults(self.fit)

    def dask_backend(self) -> Callable | None:
        """The Dask backend, imported now (``None`` if the method has none)."""
        if self.dask is None:
            return None
        module, _, name = self.dask.partition(":")
        return getattr(importlib.import_module(module), name)
