"""What a method is: :class:`Method` declares it, :class:`FitSpec` is what it receives.

A method module (``methods/uls.py``, ``methods/udt.py``, ...) builds one
:class:`Method` naming its in-memory fitter, its options, its result class and
its Dask backend (a function that imports :mod:`ubreg.dask`'s backend when a Dask
frame arrives, so that ``import ubreg`` never loads Dask).
:mod:`ubreg.methods.registry` lists them all.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

from ..families.base import Family
from ..results.base import Provenance
from .schema import Option, Schema

__all__ = ["FitSpec", "Method", "model_frame", "raw_frame", "signature_schema"]


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
    #: whether the caller named a family (``family=None`` resolves to the method's
    #: ``default_family``); methods
    #: that take their loss from elsewhere (uboost's U=, tboost's t=) warn when it is ignored
    family_given: bool = True
    #: what ``weights`` mean: ``"prior"`` (R's glm(weights=): nobs and df count the rows
    #: of non-zero weight, HC0 meat Σ w² r² x xᵀ) or ``"freq"`` (frequency weights: a row
    #: of weight 2 is the row twice, nobs = Σ w)
    weight_kind: str = "prior"
    #: R's ``offset=`` (a column name, an expression or an array) and ``subset=``
    offset: object = None
    subset: object = None
    #: the arguments :func:`ubreg.fit` was given and the function that refits them,
    #: which the result keeps (:class:`~ubreg.results.base.Provenance`)
    arguments: dict | None = None
    refit: Callable | None = None

    def recorded(self) -> dict:
        """What every result is built with from the call: ``call``, ``weight_kind``
        and its :class:`~ubreg.results.base.Provenance`."""
        provenance = None if self.arguments is None or self.refit is None else \
            Provenance(self.arguments, self.data, self.refit)
        return {"call": self.call, "weight_kind": self.weight_kind, "provenance": provenance}


def model_frame(spec: FitSpec, method: str, *, offset: bool = False,
                proportions: bool = False, **kw):
    """:func:`ubreg.design.build_model_frame` of ``spec``; a method that has no linear
    predictor (``offset=False``) refuses an offset, one that needs a binary response
    (``proportions=False``) refuses proportions.  ``keep_na=True`` (a method that
    routes missing values) keeps the rows with NA predictors, NaN in the design."""
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


def raw_frame(spec: FitSpec, method: str, response: str = "binary"):
    """:func:`ubreg.design.build_raw_frame` of ``spec`` (no offset: trees have no
    linear predictor; ``response="auto"``: more than two classes are kept)."""
    from ..design import build_raw_frame
    from ..errors import FormulaError
    if spec.offset is not None:
        raise FormulaError(f"method {method!r} takes no offset (a tree has no linear "
                           "predictor)")
    return build_raw_frame(spec.formula, spec.data, weights=spec.weights,
                           na_action=spec.na_action, positive=spec.positive,
                           trusted=spec.trusted, subset=spec.subset, response=response)


def signature_schema(func, label: str) -> Schema:
    """The schema of a method declared without one (a user's :func:`register`): the
    keyword parameters of ``(spec, **options)``, their values taken as given."""
    params = list(inspect.signature(func).parameters.values())[1:]          # after spec
    if any(p.kind is p.VAR_KEYWORD for p in params):
        raise TypeError(f"method {label} forwards **options without declaring them: give "
                        "its Method a schema= (ubreg.methods.schema.Schema)")
    return Schema(tuple(
        Option(p.name, "value", None if p.default is p.empty else p.default, "",
               check=_as_given)
        for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)), label=label)


def _as_given(value):
    return value


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
    schema : Schema or callable, optional
        The method's options (:mod:`ubreg.methods.schema`), or ``options ->
        Schema`` when they depend on one of them (``uls``'s ``learner``).  By
        default the keyword parameters of ``fit``, taken as given.
    dask : callable, optional
        The Dask backend, ``(spec, **options) -> Result``, with the options the
        schema declares for Dask frames.  ``None``: the method needs its data in
        memory.
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
    default_family : str
        The family when ``family=`` is not given (``"gini"`` for ``udt``: rpart's
        default split).
    """

    name: str
    fit: Callable
    result: type
    schema: Schema | Callable | None = None
    dask: Callable | None = None
    quick: dict = field(default_factory=lambda: {"": {}})
    multiclass: bool = False
    keeps_missing: bool = False
    cv_options: Callable | None = None
    default_family: str = "entropy"

    def schema_for(self, options: dict) -> Schema:
        """The options the method takes, given those passed."""
        if isinstance(self.schema, Schema):
            return self.schema
        if self.schema is not None:
            return self.schema(options)
        return signature_schema(self.fit, repr(self.name))

    def resolve(self, options: dict, *, on_dask: bool = False, type_name: str = "") -> dict:
        """Every option of the method, checked (:meth:`Schema.resolve`)."""
        return self.schema_for(options).resolve(options, on_dask=on_dask, type_name=type_name)

    def dask_backend(self) -> Callable | None:
        """The Dask backend (``None`` if the method has none)."""
        return self.dask
