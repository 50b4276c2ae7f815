"""The stable partition of a level's orderings into its children's segments.

Every numeric predictor keeps its rows sorted by value within each open node
(an ordering); when a level splits, each ordering is partitioned so that each
child's rows stay sorted (:func:`partition`).  The destinations are given by
``A`` and ``C`` of :func:`ubreg.fitters.udt.grow._relayout`.
"""
from __future__ import annotations

import sys

import numpy as np

from ...numerics.threads import run_parts, workers

__all__ = ["partition", "partition_rows", "partition_orderings"]


def partition(order, go_left, A, C, m_new, ibuf, bbuf):
    """Stable partition of ``order`` into the children's segments.

    Position i holding a left-going row moves to cl[i] + A[i], a right-going
    one to C[i] − cl[i] (C = i + B), with cl the running count of left-going
    rows: each child keeps the parent's sort order.
    """
    m = order.shape[0]
    cl, t, gl = ibuf[0][:m], ibuf[1][:m], bbuf[:m]
    np.take(go_left, order, out=gl)
    np.cumsum(gl, out=cl)
    np.subtract(C, cl, out=t)
    cl += A
    np.copyto(t, cl, where=gl)
    new = np.empty(m, dtype=order.dtype)
    new[t] = order
    return new[:m_new]


def _partition_kernel(m: int):
    """The compiled :func:`partition` (``_partition_kernel.stable_partition``, one pass: about
    half numpy's time at 10^6 rows) for orderings of ``m`` positions when numba is
    loaded anyway (by the compiled gains, or another method), else None: numba's
    start-up costs ~100 MB of memory, which a gini tree (numpy only) does not pay."""
    if m >= 1 << 16 and "numba" in sys.modules:
        from ._partition_kernel import stable_partition
        return stable_partition
    return None


def partition_rows(orders, go_left, A, C, m_new):
    """:func:`partition` of every row of ``orders`` (g, m) at once."""
    g, m = orders.shape
    gl = np.take(go_left, orders)
    cl = np.cumsum(gl, axis=1)
    t = np.subtract(C, cl)
    cl += A
    np.copyto(t, cl, where=gl)
    t += (np.arange(g, dtype=np.intp) * m)[:, None]
    new = np.empty(g * m, dtype=orders.dtype)
    new[t.ravel()] = orders.ravel()
    return new.reshape(g, m)[:, :m_new]


def partition_orderings(orders: list, go_left, A, C, m_new, ibuf, ws) -> None:
    """Replace each ordering of the list ``orders`` by its :func:`partition`, one
    after the other, so that an ordering is released as soon as its partition
    is made (one ordering's worth of memory in flight, not all of them).

    Compiled when :func:`_partition_kernel` allows, the orderings then shared out
    among the cores (the kernel runs without the GIL); the same positions either
    way.  ``ws`` is the splitter's :class:`~.splitter.Workspace` (the numpy
    route's bool buffer)."""
    kernel = _partition_kernel(A.shape[0])
    if kernel is None:
        for i in range(len(orders)):
            orders[i] = partition(orders[i], go_left, A, C, m_new, ibuf,
                                  ws.bools(A.shape[0])[0])
        return

    # the new orderings are allocated here, by the calling thread, a few at a
    # time: memory a worker thread allocates comes from its own malloc arena,
    # which the next level's arrays could not reuse
    n = workers()
    for k in range(0, len(orders), n):
        batch = list(range(k, min(k + n, len(orders))))
        new = {i: np.empty_like(orders[i]) for i in batch}
        run_parts(lambda i, new=new: kernel(orders[i], go_left, A, C, new[i]), batch)
        for i in batch:
            orders[i] = new[i][:m_new]
