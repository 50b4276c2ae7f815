"""Out-of-core fitting with Dask (issue 9).

``ubreg.fit(formula, ddf, method="uls")`` with a ``dask.dataframe.DataFrame``
fits the linear ULS model partition by partition: every Newton iteration is
one pass of partition-wise sums (Xᵀ diag(w·ℓ'') X, Xᵀ(w·(p̂ − y)), the risk),
and the coefficient update happens on the client.  Standard errors, deviances,
n and the dropped-row count come out of the same sums, so the result equals
the in-memory fit (MATH.md §3-4).  See ``docs/dask.md``.

How ``ubreg.fit`` reaches this package: importing it (the last line of
``ubreg/__init__.py``) wraps every entry of :data:`ubreg.fit.METHODS`.  The
wrapper of ``"uls"`` sends a dask frame to :func:`fit_dask` and anything else
to the original in-memory method; the wrappers of the other methods refuse a
dask frame with a clear message.  Whether ``data`` is a dask frame is decided
without importing dask: if ``dask.dataframe`` is not in ``sys.modules`` the
data cannot be one.  Dask itself is an optional extra
(``pip install 'ubreg[dask]'``).
"""
from __future__ import annotations

import functools
import sys

from ..errors import DataError
from ..fit import METHODS

__all__ = ["fit_dask", "is_dask_frame", "require_dask", "INSTALL_HINT", "fit_folds", "fit_models"]

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


def _dispatching(name: str, method):
    if name == "uls":
        @functools.wraps(method)
        def uls(spec, **options):
            if is_dask_frame(spec.data):
                return fit_dask(spec, **options)
            return method(spec, **options)
        uls._ubreg_in_memory = method
        return uls

    @functools.wraps(method)
    def other(spec, **options):
        if is_dask_frame(spec.data):
            raise DataError(f"method {name!r} needs the data in memory; with a dask DataFrame "
                            "only method='uls' (learner='linear', solver='corrective') runs out "
                            "of core. Call ddf.compute() first if the data fit in memory.")
        return method(spec, **options)
    other._ubreg_in_memory = method
    return other


def _install_dispatch():
    for name, method in list(METHODS.items()):
        if not hasattr(method, "_ubreg_in_memory"):
            METHODS[name] = _dispatching(name, method)


_install_dispatch()
