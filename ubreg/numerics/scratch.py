"""Working arrays kept by a thread between calls, instead of allocated each time.

A task that runs again and again on blocks of the same size (a pass of a
boosting fit over a partition) and allocates its temporaries afresh pays for
every page of them each time: the allocator returns large freed blocks to the
system (at once under Dask's workers, whose ``MALLOC_TRIM_THRESHOLD_`` is 64 kB)
and touching them again page-faults.  :func:`scratch` hands out a thread's
array of a given name, grown when too small and otherwise reused.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ["scratch"]

_LOCAL = threading.local()


def scratch(name: str, size: int, dtype=np.float64) -> np.ndarray:
    """A 1-D array of ``size`` elements of ``dtype``, this thread's under ``name``.

    Its contents are whatever the last user left, and it stays valid until the
    next call with the same name in this thread: use it for temporaries only,
    never for what a call returns.  The thread keeps the largest such array of
    each name for its lifetime.
    """
    bufs = getattr(_LOCAL, "bufs", None)
    if bufs is None:
        bufs = _LOCAL.bufs = {}
    dtype = np.dtype(dtype)
    buf = bufs.get(name)
    if buf is None or buf.size < size or buf.dtype != dtype:
        buf = bufs[name] = np.empty(max(int(size), 1), dtype=dtype)
    return buf[:size]
