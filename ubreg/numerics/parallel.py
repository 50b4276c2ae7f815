"""Compiled kernels run on every core through numba's threading layer, safely.

A kernel with a ``prange`` loop over independent parts (disjoint columns of a
histogram, disjoint nodes of a tree level, disjoint rows of an elementwise
map) is compiled twice from one body (:func:`parallel_pair`): with
``parallel=True`` and as plain serial code, where ``prange`` is ``range``.
Each part computes what the serial code computes for it, in the same order,
so both give the same numbers to the bit.  A parallel launch costs about 2 µs,
a dispatch to Python threads (:mod:`ubreg.numerics.threads`) about 50 µs,
which is what makes the small parts of a boosting iteration worth splitting.

:func:`run` picks the serial twin where numba's threading layers are unsafe:

* in a process forked from one that has launched parallel kernels (GNU
  OpenMP, numba's ``omp`` layer on Linux, is not fork-safe: the child would
  abort);
* with one core, or ``UBREG_THREADS=1``;

and holds a lock around each launch unless the layer is known to be
thread-safe (``tbb`` or ``omp``): ``workqueue``, numba's fallback, must not
be entered by two threads at once.

Before the first launch loads numba's OpenMP layer, ``OMP_WAIT_POLICY`` is set to
``PASSIVE`` when the cores are already busy (as many other tasks running as cores, or a
1-minute load average that high) and the user has not set it.  GNU OpenMP's threads
spin at each barrier: on an idle machine that is fastest (passive waits made the
benchmark's 100 000-row fit 0.53 -> 0.83 s and a 25 000-row one 0.17 -> 0.46 s), but
when another process holds a core the spinning thread waits for a time slice at every
one of the thousands of small parallel regions a boosting fit launches (a 25 000-row
U-Boost fit beside two busy processes: 24 s spinning, 0.97 s passive).  The
layer reads the policy once, when it loads.

Nothing here imports numba until a kernel is first run.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from .threads import workers

__all__ = ["parallel_pair", "run", "run_driver", "parts"]

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")
_LOCK = threading.Lock()
#: the threading layers that may be entered by several threads at once
_THREAD_SAFE = ("tbb", "omp")
_state: dict[str, Any] = {"launched": False, "forked_after_launch": False, "layer": None}
#: the thread count this thread last gave numba (numba's setting is per thread)
_local = threading.local()


def _after_fork_in_child() -> None:
    if _state["launched"]:
        _state["forked_after_launch"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def parallel_pair(body):
    """(parallel, serial) numba compilations of ``body`` (a function whose
    ``prange`` loops run over independent parts).

    The serial twin is compiled from a copy of ``body`` under another name:
    numba's on-disk cache keys a function by its name and line, not by its
    ``parallel`` flag, so the twins would otherwise load each other's code.
    """
    import types

    from numba import njit
    twin = types.FunctionType(body.__code__, body.__globals__, body.__name__ + "_serial",
                              body.__defaults__, body.__closure__)
    twin.__qualname__ = body.__qualname__ + "_serial"
    twin.__module__ = body.__module__
    return njit(parallel=True, **_JIT)(body), njit(**_JIT)(twin)


def parts() -> int:
    """How many parts to split a kernel's work into: the cores it may use, 1 in
    a forked child of a process that has launched parallel kernels."""
    if _state["forked_after_launch"]:
        return 1
    return workers()


def run(pair, split: bool, *args):
    """``pair[0](*args)`` on the cores, or ``pair[1](*args)`` when the caller's
    work is not worth splitting (``split`` false) or splitting is unsafe (see the
    module docstring); both give the same result."""
    parallel, serial = pair
    if not split or parts() <= 1:
        return serial(*args)
    return _launch(parallel, args)


def run_driver(driver, *args):
    """``driver(*args, par, n)``: a compiled driver that calls the parallel twins
    of kernels itself (``par``: it may, on ``n`` parts) or only their serial
    ones, where :func:`run` would not split."""
    n = parts()
    if n <= 1:
        return driver(*args, False, 1)
    return _launch(driver, args + (True, n))


def busy_cores() -> bool:
    """Whether other work already occupies the cores: the tasks running now (Linux's
    ``/proc/loadavg``, this one left out) or the 1-minute load average (which lags a
    minute behind) reach the core count; False where neither can be read."""
    cores = os.cpu_count() or 1
    try:
        with open("/proc/loadavg") as f:
            fields = f.read().split()
        running = int(fields[3].split("/")[0]) - 1
        load = float(fields[0])
    except (OSError, IndexError, ValueError):
        try:
            running, load = 0, os.getloadavg()[0]
        except (AttributeError, OSError):
            return False
    return running >= cores or load >= cores


def _launch(fn, args):
    if not _state["launched"] and busy_cores():
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # the module notes
    n = parts()
    if getattr(_local, "threads", None) != n:
        import numba
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
        _local.threads = n
    if _state["layer"] in _THREAD_SAFE:
        return fn(*args)
    with _LOCK:
        out = fn(*args)
        import numba
        try:
            _state["layer"] = numba.threading_layer()
            _state["launched"] = True
        except ValueError:              # nothing was launched: no layer yet
            pass
    return out
