"""Work split across the cores, for kernels that release the GIL.

numba kernels compiled with ``nogil=True`` and NumPy's elementwise loops run
without the GIL, so splitting their work into independent parts (disjoint
columns of a histogram, disjoint rows of an elementwise map) and running the
parts in threads uses every core with the same numbers as one call: each part
computes what the single call would have computed for it, in the same order.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["workers", "run_parts"]

_POOL: list = []


_CORES: list = []
#: the most threads UBREG_THREADS may ask for
MAX_THREADS = 4096


def _threads(text: str) -> int:
    """``UBREG_THREADS`` read: a whole number of threads from 1 to :data:`MAX_THREADS`."""
    value = text.strip()
    if not value.isdigit() or not 1 <= int(value) <= MAX_THREADS:
        raise ValueError(f"UBREG_THREADS={text!r}: expected a whole number of threads from 1 "
                         f"to {MAX_THREADS}")
    return int(value)


def workers() -> int:
    """The cores this process may run on (``UBREG_THREADS`` overrides).  The
    affinity is read once per process (a boosting fit asks thousands of times)."""
    env = os.environ.get("UBREG_THREADS")
    if env:
        return _threads(env)
    if not _CORES:
        try:
            _CORES.append(max(1, len(os.sched_getaffinity(0))))
        except AttributeError:     # not on Linux
            _CORES.append(max(1, os.cpu_count() or 1))
    return _CORES[0]


if hasattr(os, "register_at_fork"):     # a child may be given other cores
    os.register_at_fork(after_in_child=_CORES.clear)


def _pool(n: int) -> ThreadPoolExecutor:
    if not _POOL or _POOL[0]._max_workers < n:
        _POOL[:] = [ThreadPoolExecutor(max_workers=n, thread_name_prefix="ubreg")]
    return _POOL[0]


def run_parts(fn, parts: list) -> list:
    """``[fn(part) for part in parts]``, the parts in threads (the first in this one)."""
    if len(parts) <= 1:
        return [fn(p) for p in parts]
    futures = [_pool(len(parts) - 1).submit(fn, p) for p in parts[1:]]
    return [fn(parts[0])] + [f.result() for f in futures]
