"""Compiled loops of a fold's reading of a neighbour graph (numba; :mod:`.graph`).

:func:`~.graph.graph_neighbours` gathers, for every query, its graph
candidates that are training rows of the fold, ranks them by their squared
distance in the fold's standardisation, and keeps the first k.  numpy did it
with a gather of an (m·K_g, d) array of differences, a boolean scan and
``np.lexsort`` of every row: memory passes over tens of MB per fold.  Here

* :func:`pair_differences` writes the differences of a block of pairs into a
  small reused buffer (each coordinate's ``x − q`` is one IEEE subtraction: the
  values of numpy's ``X[cols] − Q[rows]``); the squares are summed by the same
  ``np.einsum`` as :func:`~.neighbours._sq_dist`, so every distance is the one
  the fold's own search computes, to the bit;
* :func:`first_k` takes each row's k first candidates in the order
  (distance, training index): ``np.lexsort((cand, d2))[:, :k]`` without the
  sort of the whole row.

``cache=True`` compiles once per machine; ``nogil=True``.  Imported by the
graph path only (the leveraging loop has loaded numba already).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["fold_pairs", "pair_differences", "first_k"]

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def fold_pairs(lists, query_rows, to_fold):
    """``cand[i, j] = to_fold[lists[query_rows[i], j]]`` (−1: not a training row of
    the fold) and the positions ``i·K + j`` of the entries ≥ 0, in row order."""
    q = query_rows.shape[0]
    K = lists.shape[1]
    cand = np.empty((q, K), dtype=np.int64)
    flat = np.empty(q * K, dtype=np.int64)
    n = 0
    for i in range(q):
        src = lists[query_rows[i]]
        for j in range(K):
            c = to_fold[src[j]]
            cand[i, j] = c
            if c >= 0:
                flat[n] = i * K + j
                n += 1
    return cand, flat[:n]


@njit(**_JIT)
def pair_differences(X, Q, cand_flat, flat, K, start, out):
    """``out[t] = X[cand_flat[flat[p]]] − Q[flat[p] // K]`` for the pairs
    p = start, start + 1, ... that fill ``out``'s rows (fewer at the end);
    returns their number."""
    m = min(out.shape[0], flat.shape[0] - start)
    d = X.shape[1]
    for t in range(m):
        p = flat[start + t]
        x = X[cand_flat[p]]
        qv = Q[p // K]
        for c in range(d):
            out[t, c] = x[c] - qv[c]
    return m


@njit(inline="always", **_JIT)
def _before(v, c, w, e):
    """(v, c) before (w, e) in the order (distance, training index)."""
    return v < w or (v == w and c < e)


@njit(**_JIT)
def first_k(d2, cand, k):
    """Per row, the indices ``cand`` of its k smallest entries in the order
    (``d2``, ``cand``) and the k-th smallest ``d2`` (``np.partition``'s value):
    an insertion into the k kept so far.  Entries with ``d2 = inf`` (no training
    row) come last, as in ``np.lexsort``; a row with fewer than k entries gets
    ``inf``."""
    q, K = d2.shape
    out = np.empty((q, k), dtype=np.int64)
    kth = np.empty(q)
    dist = np.empty(k)
    for i in range(q):
        n = 0
        for j in range(K):
            v = d2[i, j]
            c = cand[i, j]
            if n < k:
                pos = n
                n += 1
            elif _before(v, c, dist[k - 1], out[i, k - 1]):
                pos = k - 1
            else:
                continue
            while pos > 0 and _before(v, c, dist[pos - 1], out[i, pos - 1]):
                dist[pos] = dist[pos - 1]
                out[i, pos] = out[i, pos - 1]
                pos -= 1
            dist[pos] = v
            out[i, pos] = c
        kth[i] = dist[k - 1] if n == k else np.inf
    return out, kth
