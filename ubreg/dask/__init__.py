"""Out-of-core fitting with Dask.

``ubreg.fit(formula, ddf, method="uls")`` with a ``dask.dataframe.DataFrame``
fits the linear ULS model partition by partition: every Newton iteration is
one pass of partition-wise sums (Xᵀ diag(w·ℓ'') X, Xᵀ(w·(p̂ − y)), the risk),
and the coefficient update happens on the client.  Standard errors, deviances,
n and the dropped-row count come out of the same sums, so the result equals
the in-memory fit (docs/math.md §3-4).  See ``docs/dask.md``.

How ``ubreg.fit`` reaches this package: the method ``uls`` declares
:func:`fit_dask` as its Dask backend (``Method.dask`` in
:mod:`ubreg.methods.uls`), which :func:`ubreg.fit` imports when, and only when,
the data is a Dask frame; a method without a Dask backend refuses one with a
clear message.  Dask itself is an optional extra (``pip install 'ubreg[dask]'``).
"""
from __future__ import annotations

from ..design import is_dask_frame

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
