"""Compiled kernels of the GNNB leveraging loop (numba; paper 002, Algorithm 1).

Two kernels, for the families whose posterior has a closed form that numba
can evaluate with the same floating-point operations as the family's numpy
``posterior_pair`` (so that the kernels' numbers are those of the numpy loop
of :mod:`ubreg.fitters.gnnb.fitter`, bit for bit):

* :func:`sequential` — the sequential chooser: every example once in turn,
  all classes together, written as the literal loop of Algorithm 1 (the
  numpy loop batches commuting steps by levels, an exact reordering; the
  sums over an inverse neighbourhood run in increasing i in both).
* :func:`largest` — GNNB* (largest |δ_j| per class): one class at a time
  (classes are independent boostings), the argmax over the m scores kept by a
  tournament tree (the winner of a node is the lowest index of largest score
  in its subtree, as ``np.argmax``), so that a step costs O(n_j k log m)
  instead of O(m).

Both are called on blocks of classes from threads (``nogil``).  Two helpers
serve the numpy loop of the other families: :func:`segment_sums` (the same
in-order sums) and :func:`levels` (its exact batching of commuting steps).

Compile time on first use (2-core Xeon, numba 0.68): about 1.5 s for each of
the two kernels, then a cache load of about 0.2 s per process.

Family kinds (``fitter._compiled_kind``, from the family's ``posterior_form``):
``GINI`` p = (1 + η)/2 (``"linear"``); ``LOGISTIC`` p = expit(s η)
(``"logistic"``: ``entropy`` s = 1, ``entropy2`` s = ln 2), computed as scipy's
expit, 1/(1 + exp(−x)) with the C library's exp; ``SQRT``
p = ½(1 + u/√(1 + u²)) with u = η/c (``"sqrt"``: ``matsushita`` c = 1, ``mu``
c = 1 − μ), computed as the small side ½/s/(s + |u|), s = hypot(1, u), and the
large side 1 minus it, as those families do.  Families that declare no
``posterior_form`` (numeric inverses: ``power``, ``logcosh``, ``tempered``,
custom) keep the numpy loop.

``cache=True`` compiles each kernel once per machine (numba's cache in
``__pycache__``, or ``NUMBA_CACHE_DIR``); the module (and numba) is imported
by the first GNNB fit, not by ``import ubreg``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")

GINI, LOGISTIC, SQRT = 0, 1, 2


@njit(inline="always", **_JIT)
def _post(kind, par, eta, y):
    """p = ∇φ⁻¹(η) for y = 1 and −(1 − p) for y = −1, each as the family's
    ``posterior_pair(η)`` computes it (y = ±1 exactly)."""
    if kind == LOGISTIC:
        # expit(η s) = 1/(1 + exp(−η s)) and expit(−η s) = 1/(1 + exp(η s))
        return y / (1.0 + math.exp(-y * (eta * par)))
    if kind == GINI:
        p = 0.5 * (1.0 + eta)
        return p if y > 0 else -(1.0 - p)
    u = eta / par
    s = math.hypot(1.0, u)
    small = 0.5 / s / (s + abs(u))
    large = 1.0 - small
    if u > 0:
        return large if y > 0 else -small
    return small if y > 0 else -large


@njit(**_JIT)
def sequential(kind, par, Y, indptr, indices, T, coef, p0, q0, h, wy, alpha, deltas):
    """Algorithm 1 with the sequential chooser, all classes (columns of ``Y``) at once.

    State (modified in place): ``h`` (m, C) the link h_c(x_i), ``wy`` (m, C)
    b_φ w_ic y_ic (= ∇φ⁻¹(−h) for y = 1, −(1 − ∇φ⁻¹(−h)) for y = −1),
    ``alpha`` (m, C) and ``deltas`` (T, C); (p0, q0) = posterior_pair(0).  Step
    t leverages j = t mod m: S = Σ_{i: j∼i} b w_i y_i (increasing i),
    δ = coef y_j S / n_j (eq. 10, coef = 2(1 − ε)/(H* b)), h_i += δ y_j (eq. 11
    on the link scale).
    """
    m, C = Y.shape
    S = np.empty(C)
    dy = np.empty(C)
    for i in range(m):
        for c in range(C):
            wy[i, c] = p0 if Y[i, c] > 0 else -q0
    # the last step that updates each example: its new weight is never read
    # (about 1 weight in n_j + 1 of the m k updates; wy is not an output)
    last = np.full(m, -1, dtype=np.int64)
    for t in range(T):
        j = t % m
        for r in range(indptr[j], indptr[j + 1]):
            last[indices[r]] = t
    for t in range(T):
        j = t % m
        a = indptr[j]
        b = indptr[j + 1]
        if a == b:
            continue
        nj = float(b - a)
        i0 = indices[a]
        for c in range(C):
            S[c] = wy[i0, c]
        for r in range(a + 1, b):
            i = indices[r]
            for c in range(C):
                S[c] += wy[i, c]
        for c in range(C):
            d = coef * Y[j, c] * S[c] / nj
            deltas[t, c] = d
            alpha[j, c] += d
            dy[c] = d * Y[j, c]
        for r in range(a, b):
            i = indices[r]
            if last[i] == t:
                for c in range(C):
                    h[i, c] += dy[c]
                continue
            for c in range(C):
                hh = h[i, c] + dy[c]
                h[i, c] = hh
                wy[i, c] = _post(kind, par, -hh, Y[i, c])


@njit(inline="always", **_JIT)
def _win(score, u, v):
    # the lower index wins ties (u < v always): np.argmax's first maximum
    if v < 0:
        return u
    return u if score[u] >= score[v] else v


@njit(**_JIT)
def _build(tree, score, P, m):
    for x in range(P):
        tree[P + x] = x if x < m else -1
    for node in range(P - 1, 0, -1):
        u = tree[2 * node]
        v = tree[2 * node + 1]
        tree[node] = v if u < 0 else _win(score, u, v)


@njit(inline="always", **_JIT)
def _climb(tree, score, P, j):
    """Replay the matches on the path from leaf j to the root after score[j] changed."""
    node = (P + j) >> 1
    while node >= 1:
        tree[node] = _win(score, tree[2 * node], tree[2 * node + 1])
        node >>= 1


@njit(inline="always", **_JIT)
def _refresh(S, score, tree, wc, y, knn, inv_n, P):
    """S_j = Σ_{i: j∼i} w_i y_i from scratch (as ``np.bincount`` over the rows of
    ``knn``), the scores |S_j|/n_j and the tournament tree over them."""
    m, k = knn.shape
    S[:] = 0.0
    for i in range(m):
        wyi = wc[i] * y[i]
        for q in range(k):
            S[knn[i, q]] += wyi
    for j in range(m):
        score[j] = abs(S[j]) * inv_n[j]
    _build(tree, score, P, m)


@njit(**_JIT)
def largest(kind, par, Yt, knn, indptr, indices, T, coef, b, w0, refresh, z, w, alpha, deltas,
            chosen, n_updates, c0, c1):
    """GNNB*: per class, T steps at the example of largest |δ_j| ∝ |S_j|/n_j.

    Class-major state (modified in place): ``z`` (C, m) = −y h, ``w`` (C, m)
    the weights ∇φ⁻¹(z)/b, ``alpha`` (C, m); ``deltas``, ``chosen`` (T, C),
    ``n_updates`` (C,), for the classes c0 ≤ c < c1.  S_j = Σ_{i: j∼i} w_i y_i
    is recomputed from scratch every ``refresh`` steps (as ``np.bincount`` over
    the rows of ``knn``) and updated incrementally in between (as ``np.add.at``,
    in the same order).
    """
    m = Yt.shape[1]
    k = knn.shape[1]
    n = np.empty(m, dtype=np.int64)
    inv_n = np.empty(m)
    for j in range(m):
        n[j] = indptr[j + 1] - indptr[j]
        inv_n[j] = 1.0 / n[j] if n[j] > 0 else 0.0
    P = 1
    while P < m:
        P *= 2
    tree = np.empty(2 * P, dtype=np.int64)
    S = np.empty(m)
    score = np.empty(m)
    stamp = np.full(m, -1, dtype=np.int64)
    touched = np.empty(m, dtype=np.int64)
    for c in range(c0, c1):
        y = Yt[c]
        zc = z[c]
        wc = w[c]
        ac = alpha[c]
        for i in range(m):
            wc[i] = w0
        for t in range(T):
            if t % refresh == 0:
                _refresh(S, score, tree, wc, y, knn, inv_n, P)
            j = tree[1]
            chosen[t, c] = j
            nj = n[j]
            if nj == 0:
                deltas[t, c] = 0.0
                continue
            eta = y[j] * S[j]
            d = coef * eta / nj
            deltas[t, c] = d
            n_updates[c] += nj
            ac[j] += d
            yj = y[j]
            nt = 0
            for r in range(indptr[j], indptr[j + 1]):
                i = indices[r]
                yi = y[i]
                znew = zc[i] - d * (yi * yj)
                wnew = _post(kind, par, znew, 1.0) / b
                dwy = (wnew - wc[i]) * yi
                zc[i] = znew
                wc[i] = wnew
                for q in range(k):
                    jj = knn[i, q]
                    S[jj] += dwy
                    if stamp[jj] != t:
                        stamp[jj] = t
                        touched[nt] = jj
                        nt += 1
            for e in range(nt):
                jj = touched[e]
                score[jj] = abs(S[jj]) * inv_n[jj]
                _climb(tree, score, P, jj)
        for j in range(m):
            stamp[j] = -1


@njit(**_JIT)
def segment_sums(V, starts, lens):
    """Row sums of the segments ``V[starts[s]:starts[s] + lens[s]]`` (lens ≥ 1),
    each added in row order, ((v₀ + v₁) + v₂) + …, as :func:`sequential` does."""
    out = np.empty((starts.shape[0], V.shape[1]))
    for s in range(starts.shape[0]):
        a = starts[s]
        for c in range(V.shape[1]):
            out[s, c] = V[a, c]
        for r in range(a + 1, a + lens[s]):
            for c in range(V.shape[1]):
                out[s, c] += V[r, c]
    return out


@njit(**_JIT)
def levels(seq, indptr, indices, m):
    """Level of each step of the numpy loop: 1 + the largest level of an earlier
    step sharing an inverse neighbour; 0 for a step with an empty inverse
    neighbourhood (a no-op)."""
    last = np.zeros(m, dtype=np.int64)
    out = np.zeros(seq.shape[0], dtype=np.int64)
    for t in range(seq.shape[0]):
        j = seq[t]
        a = indptr[j]
        b = indptr[j + 1]
        if a == b:
            continue
        lev = 0
        for r in range(a, b):
            lev = max(lev, last[indices[r]])
        lev += 1
        for r in range(a, b):
            last[indices[r]] = lev
        out[t] = lev
    return out
