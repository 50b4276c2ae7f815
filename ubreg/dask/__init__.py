"""Out-of-core fitting with Dask.

``ubreg.fit(formula, ddf, method="uls")`` with a ``dask.dataframe.DataFrame``
fits the linear ULS model partition by partition: every Newton iteration is
one pass of partition-wise sums (Xᵀ diag(w·ℓ'') X, Xᵀ(w·(p̂ − y)), the risk),
and the coefficient update happens on the client.  Standard errors, deviances,
n and the dropped-row count come out of the same sums, so the result equals
the in-memory fit (docs/math.md §3-4).  See ``docs/dask.md``.

How ``ubreg.fit`` reaches this package: each method with a Dask backend declares it
(``Method.dask``: ``uls``'s :func:`ubreg.methods.uls.fit_uls_on_dask`, ...), a
function that imports the backend here when, and only when, the data is a Dask frame;
a method without a Dask backend refuses one with a clear message.  This package sits
below :mod:`ubreg.methods`: it imports no method, and the independent in-memory fits
spread over a scheduler (folds, candidate models) are :mod:`ubreg.evaluate.parallel`.
Dask itself is an optional extra (``pip install 'ubreg[dask]'``).
"""
from __future__ import annotations

from ..design import is_dask_frame

__all__ = ["is_dask_frame", "require_dask", "INSTALL_HINT"]

INSTALL_HINT = ("ubreg's Dask support needs the optional extra: pip install 'ubreg[dask]' "
                "(dask[dataframe,distributed] and pyarrow)")


def require_dask():
    """Import dask.dataframe, or raise ImportError saying how to install it."""
    try:
        import dask  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
