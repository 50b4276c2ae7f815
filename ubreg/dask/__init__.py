"""Out-of-core fitting with Dask (issue 9).

``ubreg.fit(formula, ddf, method="uls")`` with a ``dask.dataframe.DataFrame``
fits the linear ULS model partition by partition: every Newton iteration is
one pass of partition-wise sums (Xᵀ diag(w·ℓ'') X, Xᵀ(w·(p̂ − y)), the risk),
and the coefficient update happens on the client.  Standard errors, deviances,
n and the dropped-row count come out of the same sums, so the result equals
the in-memory fit (docs/math.md §3-4).  See ``docs/dask.md``.

How ``ubreg.fit`` reaches this package: importing it (from
``ubreg/__init__.py``) wraps every entry of :data:`ubreg.fit.METHODS`, and
makes :func:`ubreg.fit.register_method` wrap every method registered later
(``tboost``, a user's own), so the import order does not matter.  The wrapper
of ``"uls"`` sends a dask frame to :func:`fit_dask` and anything else to the
original in-memory method, and declares the dask-only options (``persist``)
to ``ubreg.fit``'s option check (``options_for``); the wrappers of the other
methods refuse a dask frame with a clear message (:data:`NOT_ON_DASK`).  Whether ``data`` is a dask frame is decided
without importing dask: if ``dask.dataframe`` is not in ``sys.modules`` the
data cannot be one.  Dask itself is an optional extra
(``pip install 'ubreg[dask]'``).
"""
from __future__ import annotations

import functools
import sys

from ..errors import DataError, OptionError
from ..fit import METHODS

__all__ = ["fit_dask", "is_dask_frame", "require_dask", "INSTALL_HINT", "fit_folds", "fit_models",
           "dask_only_options", "NOT_ON_DASK"]

INSTALL_HINT = ("ubreg's Dask support needs the optional extra: pip install 'ubreg[dask]' "
                "(dask[dataframe,distributed] and pyarrow)")


def require_dask():
    """Import dask.dataframe, or raise ImportError saying how to install it."""
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc


def is_dask_frame(data) -> bool:
    """True for a ``dask.dataframe.DataFrame`` (without importing dask)."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(data, dd.DataFrame)


def fit_dask(spec, **options):
    """Method ``uls`` on a dask frame (see :func:`ubreg.dask.fitter.fit_linear_dask`)."""
    require_dask()
    from .fitter import fit_linear_dask
    learner = options.pop("learner", "linear")
    if learner != "linear":
        raise ValueError(f"learner={learner!r} needs the data in memory; a dask DataFrame is "
                         "fitted with learner='linear' (call .compute() for small data)")
    return fit_linear_dask(spec, **options)


def fit_folds(scheduler, fit, formula, frame, train_positions, weights, fit_kw):
    """Fit one model per training part on a Dask cluster (used by ``ubreg.cv``).

    See :func:`ubreg.dask.parallel.fit_folds`.
    """
    require_dask()
    from .parallel import fit_folds as _fit_folds
    return _fit_folds(scheduler, fit, formula, frame, train_positions, weights, fit_kw)


def fit_models(candidates: dict, data, scheduler) -> dict:
    """Fit candidate models (name → ``ubreg.fit`` keywords) of in-memory
    ``data`` on a Dask scheduler, for :func:`ubreg.compare`.

    See :func:`ubreg.dask.parallel.fit_models`.
    """
    require_dask()
    from .parallel import fit_models as _fit_models
    return _fit_models(candidates, data, scheduler)


NOT_ON_DASK = ("method {name!r} does not run on Dask frames (it needs the data in memory); "
               "only method='uls' (linear) does; call .compute() for data that fits in memory")


@functools.lru_cache(maxsize=None)
def dask_only_options() -> tuple[str, ...]:
    """Options of ``uls`` that only a dask frame takes (e.g. ``persist``): those of
    :func:`ubreg.dask.fitter.fit_linear_dask` the in-memory linear fit lacks."""
    from ..fit import method_options
    from ..methods.uls import fit_linear
    from .fitter import fit_linear_dask
    in_memory = set(method_options(fit_linear) or ())
    return tuple(o for o in method_options(fit_linear_dask) or () if o not in in_memory)


def _uls_options_hook(method):
    """``options_for`` of the routing ``uls``: the in-memory method's answer
    (its own hook's), plus the dask-only options among those given.

    :func:`ubreg.fit` calls the hook with the options only, not the data, so a
    dask-only option passes its check whatever the data; the router refuses
    it for in-memory data.  The dask-only options are added only when given,
    so the list of options shown for an unknown one stays the in-memory
    method's."""
    inner = getattr(method, "options_for", None)

    def options_for(options: dict):
        from ..fit import method_options
        if inner is not None:
            label, names = inner(options)
        else:
            label, names = "'uls'", method_options(method)
        if names is None:
            return label, None
        extra = [o for o in dask_only_options() if o in options and o not in names]
        return label, [*names, *extra]

    return options_for


def _type_name(data) -> str:
    kind = type(data)
    return f"{kind.__module__.split('.')[0]}.{kind.__qualname__}"


def _dispatching(name: str, method):
    if name == "uls":
        @functools.wraps(method)
        def uls(spec, **options):
            if is_dask_frame(spec.data):
                return fit_dask(spec, **options)
            misplaced = [k for k in options if k in dask_only_options()]
            if misplaced:
                raise OptionError(f"method 'uls' option {', '.join(map(repr, misplaced))} applies "
                                  "to dask DataFrames only; the data is a "
                                  f"{_type_name(spec.data)}")
            return method(spec, **options)
        # functools.wraps copied the in-memory hook; the router accepts more
        uls.options_for = _uls_options_hook(method)
        uls._ubreg_in_memory = method
        return uls

    @functools.wraps(method)
    def other(spec, **options):
        if is_dask_frame(spec.data):
            raise DataError(NOT_ON_DASK.format(name=name))
        return method(spec, **options)
    other._ubreg_in_memory = method
    return other


def _install_dispatch():
    """Wrap every registered method not wrapped yet (idempotent)."""
    for name, method in list(METHODS.items()):
        if not hasattr(method, "_ubreg_in_memory"):
            METHODS[name] = _dispatching(name, method)


def _route_later_registrations():
    """Make :func:`ubreg.fit.register_method` wrap what it registers, so that a
    method registered after this module is imported (``tboost``, a user's
    method) refuses a dask frame with the same message.  The original
    decorator still does the registering."""
    module = sys.modules[METHODS_MODULE]
    original = module.register_method
    if getattr(original, "_ubreg_routes_dask", False):
        return

    @functools.wraps(original)
    def register_method(*args, **kwargs):
        deco = original(*args, **kwargs)

        @functools.wraps(deco)
        def routed(func):
            out = deco(func)
            _install_dispatch()
            return out
        return routed

    register_method._ubreg_routes_dask = True
    module.register_method = register_method


METHODS_MODULE = "ubreg.fit"
_install_dispatch()
_route_later_registrations()
