"""The leveraging loop of GNNB and UNN (paper 002, Algorithm 1; docs/math.md §8).

Arrays in, a fresh :class:`LeverageFit` out; inputs are never modified.

Notation (docs/math.md §8): ``Y`` (m, C) holds y_ic ∈ {−1, 1}; ``knn`` (m, k) the
training neighbours of each example (itself excluded); the inverse
neighbourhood of j is {i : j ∈ kNN(i)}, of size n_j.  The state is kept on the
link scale, z[i, c] = −y_ic h_c(x_i) (the loop keeps h itself), and the weights
are w_ic = ∇φ⁻¹(z_ic)/b_φ.  The weight update (11),
w ← ∇φ⁻¹(−δ_j y_ic y_jc + ∇φ(b_φ w))/b_φ, is the same thing written on the
probability scale, because ∇φ(b_φ w_ic) = z_ic (eq. 26), as long as its argument
stays in the range of ∇φ (always, for an unbounded link); keeping the link avoids
the round trip ∇φ(∇φ⁻¹(·)) and its rounding.

Bounded links: where the loop departs from (11).  For a family whose link ∇φ
has a bounded range (``family.link_domain`` finite: ``logcosh``, ``tempered``
with t < 1, a custom φ with finite ∇φ(0)), the argument of ∇φ⁻¹ in (11) can
leave that range, where (11) is undefined.  The loop does not iterate (11) on
the weights there: it keeps z_ic = −y_ic h_c(x_i) unclipped (h is the leveraged
sum, eq. 16) and takes w_ic = ∇φ⁻¹(clip(z_ic))/b_φ (``family.posterior_pair``),
which is 0 or 1/b_φ while z_ic lies beyond the range.  Iterating (11) on w, with
its argument clipped into the range, would restart a saturated weight from
∇φ(0) or ∇φ(1) and forget the part of h beyond the range: the weights, hence the
later δ_j, differ from the first step whose argument leaves the range on (they
are identical before it; tests/test_gnnb_math.py).  Why: the loop's weights stay
those of the current classifier h (eq. 26), the ones the surrogate risk (2), the
risk trace and Theorem 4's per-step bound are about.  Gini (row A of Table 1)
is not affected: its ∇φ⁻¹ is extended linearly past [−1, 1]
(``extends_past_domain``), which is Table 1's update w − 2δ_j y_ic y_jc exactly,
so its weights may leave [0, 1/b_φ] as in the paper.

All C classes are updated together: Algorithm 1 runs one independent
boosting per class, and with the sequential chooser every class leverages the
same example j at step t, so the per-class updates are columns of one array
operation.  The m sequential steps are further batched *exactly*: two steps
whose inverse neighbourhoods are disjoint read and write disjoint weights, so
they commute.  :func:`_levels` gives each step the level 1 + (largest level of
an earlier step sharing an example with it); the steps of one level are then
processed as one vectorised operation, in level order, with the same result as
the sequential loop (LetterRecognition: 16 000 steps fall into about 100 levels).
The sum over an inverse neighbourhood is added in increasing i, one term after
the other (:func:`_segment_sums`).

Compiled loops.  For GNNB without ``trace`` and a family that declares the
closed form of its posterior (``family.posterior_form``: gini, entropy,
entropy2, matsushita, mu), both choosers run as
numba kernels (:mod:`ubreg.fitters.gnnb._kernels`): the sequential chooser as the
literal loop of Algorithm 1, GNNB* with a tournament tree for the argmax.  They
do the numpy loops' floating-point operations in the same order (the
posteriors as the families compute them, scipy's expit with the C library's
exp), so their results are equal to the last bit (tests/test_gnnb_math.py);
blocks of classes run in threads.  LetterRecognition (m = 16 000, k = 10,
C = 26): about 0.05 s of CPU for the sequential loop against 0.17 s for the
numpy loop; GNNB* about 1 s against 26 s.  The first call compiles the kernels
(about 1.5 s each, once per machine: numba's cache, ``cache=True``).
Other families, ``trace=True`` and UNN run the numpy loops.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...numerics.progress import progress
from .neighbours import inverse_neighbourhoods

__all__ = ["LeverageFit", "lemma3_optimal_risk", "leverage", "surrogate_risk"]

CHOOSERS = ("sequential", "largest")
UPDATES = ("gnnb", "unn")
_REFRESH = 1024      # GNNB*: steps between recomputations of the inverse sums from scratch


@dataclass
class LeverageFit:
    """What the leveraging loop produces.

    Attributes
    ----------
    alpha : ndarray (m, C)
        Leveraging coefficients α_jc (Algorithm 1, step I.3).
    z : ndarray (m, C)
        −y_ic h_c(x_i) on the training sample (leave-self-out neighbourhoods).
    deltas : ndarray (T, C)
        δ of every step (0 for an example whose inverse neighbourhood is empty).
    chosen : ndarray (T,) or (T, C)
        Index leveraged at step t: one for all classes with the sequential
        chooser, one per class (T, C) with ``chooser="largest"``.
    n_updates : ndarray (C,)
        ℓ(T, c) = Σ_t n_e(t): weight updates per class (Theorem 4).
    risk_trace : ndarray (T + 1, C) or None
        Surrogate risk (2) after each step, with ``trace=True``.
    bound_trace : ndarray (T, C) or None
        The Theorem 4 guarantee on each step's change, −2ε(1−ε)η²/(H* n_j m)
        (eq. 32 into 31), with ``trace=True`` (GNNB only).
    edge_after : ndarray (T, C) or None
        Edge η(c, j) just after step t (zero for UNN), with ``trace=True``.
    n_capped : int
        UNN steps whose zero-edge root lies beyond ``delta_max`` (capped).
    """

    alpha: np.ndarray
    z: np.ndarray
    deltas: np.ndarray
    chosen: np.ndarray
    n_updates: np.ndarray
    h_star: float
    risk_trace: np.ndarray | None = None
    bound_trace: np.ndarray | None = None
    edge_after: np.ndarray | None = None
    n_capped: int = 0
    extra: dict = field(default_factory=dict)


def surrogate_risk(family, z: np.ndarray) -> np.ndarray:
    """Per-class surrogate risk (2): (1/m) Σ_i ψ_φ(y_ic h_c(x_i)) with ψ_φ = F_φ."""
    return np.mean(family.F(-z), axis=0)


def lemma3_optimal_risk(family, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Lemma 3: (ε*)_c = (φ(0) − φ_c(S))/(φ(0) − φ(1/2)), φ_c(S) from eq. (19).

    φ_c(S) = Σ_x p̂[x] φ(p̂[y_c = 1 | x]) over the *distinct* observations x
    of ``X``; repeated observations with different labels keep it below φ(0).
    """
    _, inverse, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    pos = np.zeros((counts.size, Y.shape[1]))
    np.add.at(pos, inverse, (Y > 0).astype(np.float64))
    p_hat = pos / counts[:, None]
    phi_c = (counts[:, None] * family.phi(p_hat)).sum(axis=0) / X.shape[0]
    phi0 = float(family.phi(0.0))
    return (phi0 - phi_c) / family.b


def _check(epsilon, chooser, update):
    if not (isinstance(epsilon, (int, float, np.floating)) and 0.0 < float(epsilon) < 1.0):
        raise ValueError(f"epsilon must lie in (0, 1) (eq. 10), got {epsilon!r}")
    if chooser not in CHOOSERS:
        raise ValueError(f"unknown chooser {chooser!r}; use 'sequential' (each example once in "
                         f"turn) or 'largest' (GNNB*: largest |δ_j|)")
    if update not in UPDATES:
        raise ValueError(f"unknown update {update!r}; use 'gnnb' or 'unn'")
    if update == "unn" and chooser != "sequential":
        raise ValueError("UNN is implemented with the sequential chooser only")


def leverage(knn: np.ndarray, Y: np.ndarray, family, *, epsilon: float = 0.5, T: int | None = None,
             chooser: str = "sequential", update: str = "gnnb", delta_max: float = 10.0,
             tol: float = 1e-12, trace: bool = False) -> LeverageFit:
    """Run Algorithm 1 (GNNB) or its UNN baseline for all classes at once.

    Parameters
    ----------
    knn : int ndarray (m, k)
        Training neighbours of each example (itself excluded).
    Y : ndarray (m, C)
        Class vectors in {−1, 1}.
    family : PermissibleFamily
        φ; weights w = ∇φ⁻¹(−y h)/b_φ start at 1/(2 b_φ).
    epsilon : float in (0, 1)
        δ_j = 2(1 − ε) η(c, j)/(H* n_j), eq. (10).
    T : int, optional
        Number of steps; default m (each example leveraged once, in turn).
    chooser : {"sequential", "largest"}
        Weak index chooser: examples in turn (cycling when T > m), or GNNB*
        (Section 4.4): for each class the example of largest |δ_j|.
    update : {"gnnb", "unn"}
        ``unn`` solves δ_j from the zero-edge condition (paper 000, eq. 70)
        Σ_{i: j∼i} y_ic y_jc ∇φ⁻¹(z_ic − δ y_ic y_jc) = 0 to ``tol``.
    delta_max : float
        UNN only: cap on |δ| when the root is farther (e.g. every inverse
        neighbour agrees with j, so the root is at infinity).
    trace : bool
        Record the surrogate risk after every step (costs O(T·C) memory).
    """
    _check(epsilon, chooser, update)
    knn = np.asarray(knn, dtype=np.int64)
    Y = np.asarray(Y, dtype=np.float64)
    m = Y.shape[0]
    T = m if T is None else T
    if not (isinstance(T, (int, np.integer)) and T >= 1):
        raise ValueError(f"T must be a positive integer, got {T!r}")
    hs = family.h_star()              # H*, eq. (8)
    indptr, indices = inverse_neighbourhoods(knn, m)
    kind = _compiled_kind(family) if (update == "gnnb" and not trace) else None
    if chooser == "largest":
        if kind is not None:
            return _largest_compiled(kind, knn, Y, family, indptr, indices, float(epsilon),
                                     int(T), hs)
        return _leverage_largest(knn, Y, family, indptr, indices, float(epsilon), int(T), hs, trace)
    if kind is not None:
        return _sequential_compiled(kind, Y, family, indptr, indices, float(epsilon), int(T), hs)
    plan = _Plan(int(T), indptr, indices, m)
    return _leverage_sequential(Y, family, plan, float(epsilon), hs, update, float(delta_max),
                                tol, trace)


# ---------------------------------------------------------------------------
# compiled loops (numba, :mod:`ubreg.fitters.gnnb._kernels`): GNNB without trace, for
# the families with a closed-form posterior; the same numbers as the numpy loops
# ---------------------------------------------------------------------------
#: use the compiled kernels where they apply (tests switch it off to compare)
COMPILED = True


def _compiled_kind(family):
    """(kind, parameter) for :mod:`._kernels`, or None (numpy loop): the kernel
    that repeats the operations of the family's ``posterior_form``."""
    if not COMPILED:
        return None
    from ._kernels import GINI, LOGISTIC, SQRT
    form = family.posterior_form
    if form is None:
        return None
    shape, c = form
    if shape == "linear" and c == 1.0:
        return GINI, 1.0
    if shape == "logistic":
        return LOGISTIC, float(c)
    if shape == "sqrt":
        return SQRT, float(c)
    return None


_THREAD_WORK = 2_000_000      # weight updates (pairs × classes) worth a second thread


def _class_parts(C, work):
    """Ranges of classes for the threads of a compiled loop.

    The classes are independent boostings (Algorithm 1 runs one per class), so
    the kernels run on blocks of classes in threads (they release the GIL), with
    the same numbers as one call on all classes.
    """
    from .neighbours import _workers
    p = min(_workers(), C) if work >= _THREAD_WORK else 1
    bounds = np.linspace(0, C, p + 1).round().astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _in_threads(run, parts):
    if len(parts) == 1:
        run(*parts[0])
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(len(parts)) as ex:
        list(ex.map(lambda ab: run(*ab), parts))


def _sequential_compiled(kind, Y, family, indptr, indices, epsilon, T, hs):
    from . import _kernels
    m, C = Y.shape
    p0, q0 = family.posterior_pair(np.zeros(1))
    coef = 2.0 * (1.0 - epsilon) / (hs * family.b)
    seq = np.arange(T, dtype=np.int64) % m
    n = np.diff(indptr)
    n_pairs = int(n[seq].sum())
    parts = _class_parts(C, n_pairs * C)
    out: list[Any] = [None] * len(parts)      # (h, alpha, deltas) of each block of classes

    def run(c0, c1):
        # each block of classes its own arrays: threads writing neighbouring columns
        # of shared rows would contend for the same cache lines
        h = np.zeros((m, c1 - c0))
        alpha = np.zeros((m, c1 - c0))
        deltas = np.zeros((T, c1 - c0))
        _kernels.sequential(kind[0], kind[1], np.ascontiguousarray(Y[:, c0:c1]), indptr, indices,
                            T, coef, float(p0[0]), float(q0[0]), h, np.empty((m, c1 - c0)), alpha,
                            deltas)
        out[parts.index((c0, c1))] = (h, alpha, deltas)

    _in_threads(run, parts)
    h, alpha, deltas = (np.concatenate(x, axis=1) if len(parts) > 1 else x[0] for x in zip(*out))
    return LeverageFit(alpha=alpha, z=-Y * h, deltas=deltas, chosen=seq,
                       n_updates=np.full(C, n_pairs), h_star=hs, n_capped=0,
                       extra={"compiled": True})


def _largest_compiled(kind, knn, Y, family, indptr, indices, epsilon, T, hs):
    from . import _kernels
    m, C = Y.shape
    b = family.b
    Yt = np.ascontiguousarray(Y.T)        # class-major: a class's state is contiguous
    knn = np.ascontiguousarray(knn)
    z = np.zeros((C, m))
    w = np.empty((C, m))
    alpha = np.zeros((C, m))
    deltas = np.zeros((T, C))
    chosen = np.zeros((T, C), dtype=np.int64)
    n_updates = np.zeros(C, dtype=np.int64)
    w0 = float(family.posterior_pair(0.0)[0]) / b
    coef = 2.0 * (1.0 - epsilon) / hs

    def run(c0, c1):        # class-major: each block of classes has its own rows
        _kernels.largest(kind[0], kind[1], Yt, knn, indptr, indices, T, coef, b, w0, _REFRESH,
                         z, w, alpha, deltas, chosen, n_updates, c0, c1)

    _in_threads(run, _class_parts(C, T * C * knn.shape[1] * 4))
    return LeverageFit(alpha=np.ascontiguousarray(alpha.T), z=np.ascontiguousarray(z.T),
                       deltas=deltas, chosen=chosen, n_updates=n_updates, h_star=hs,
                       extra={"compiled": True})


# ---------------------------------------------------------------------------
# sequential chooser: exact batching by levels
# ---------------------------------------------------------------------------
def _levels(seq: np.ndarray, indptr: np.ndarray, indices: np.ndarray, m: int) -> np.ndarray:
    """Level of each step: 1 + the largest level of an earlier step sharing an
    inverse neighbour; 0 for a step with an empty inverse neighbourhood (a no-op)."""
    from . import _kernels
    return _kernels.levels(np.asarray(seq, dtype=np.int64), indptr, indices, m)


def _segment_sums(V: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Row sums of the segments ``V[starts[s]:starts[s] + lens[s]]`` (lens ≥ 1),
    each added strictly in row order, ((v₀ + v₁) + v₂) + …, as the compiled
    loop does (``np.add.reduceat`` sums part of a segment pairwise)."""
    from . import _kernels
    return _kernels.segment_sums(np.ascontiguousarray(V), np.asarray(starts, dtype=np.int64),
                                 np.asarray(lens, dtype=np.int64))


class _Plan:
    """The steps of the sequential chooser, level by level (shared by all classes).

    Steps t = 0..T−1 leverage example t mod m.  ``js``, ``counts``: the example
    and n_j of each active step in level order (``order`` maps them back to t);
    ``it_bounds``: the steps of each level; ``pair_i`` / ``pair_step`` and
    ``pair_bounds``: the inverse neighbourhood of each step, step by step.
    """

    def __init__(self, T, indptr, indices, m):
        self.m, self.T = m, T
        self.n = n = np.diff(indptr)
        self.seq = seq = np.arange(T, dtype=np.int64) % m
        levels = _levels(seq, indptr, indices, m)
        active = np.flatnonzero(levels > 0)
        self.order = order = active[np.argsort(levels[active], kind="stable")]
        self.js = js = seq[order]
        self.counts = counts = n[js]
        self.n_levels = n_levels = int(levels.max()) if levels.size else 0
        self.it_bounds = np.searchsorted(levels[order], np.arange(1, n_levels + 2))
        self.pair_bounds = pb = np.zeros(len(js) + 1, dtype=np.int64)
        np.cumsum(counts, out=pb[1:])
        pos = np.repeat(indptr[js] - pb[:-1], counts) + np.arange(pb[-1])
        self.pair_i = indices[pos]
        self.pair_step = np.repeat(np.arange(len(js)), counts)
        self.n_pairs = int(pb[-1])


def _leverage_sequential(Y, family, plan, epsilon, hs, update, delta_max, tol, trace):
    m, C = Y.shape
    T = plan.T
    b = family.b
    n, seq, order, js, counts = plan.n, plan.seq, plan.order, plan.js, plan.counts
    n_levels, it_bounds, pair_bounds = plan.n_levels, plan.it_bounds, plan.pair_bounds
    pair_i, pair_step = plan.pair_i, plan.pair_step

    # State: the link h_c(x_i) and wy = b_φ w_ic y_ic.  The weight of i is
    # ∇φ⁻¹(z_ic)/b_φ with z = −y h, i.e. ∇φ⁻¹(−h) for y = 1 and 1 − ∇φ⁻¹(−h) for
    # y = −1 (φ is symmetric): both come, each to full precision, from one
    # posterior_pair(−h).  The edge (9) is η(c, j) = y_jc Σ_{i: j∼i} w_ic y_ic and
    # the update (11), z ← z − δ y_ic y_jc, is h ← h + δ y_jc: exactly the same
    # floating-point numbers as on the z scale (y = ±1), with no per-pair y_ic y_jc.
    pos_y = Y > 0
    # state[:, :C] = h, state[:, C:] = b w y: one gather and one scatter per level
    state = np.zeros((m, 2 * C))
    p0, q0 = family.posterior_pair(np.zeros(1))
    state[:, C:] = np.where(pos_y, p0[0], -q0[0])
    alpha = np.zeros((m, C))
    deltas = np.zeros((T, C))
    coef = 2.0 * (1.0 - epsilon) / (hs * b)
    n_capped = 0
    if trace:
        risk_change = np.zeros((T, C))
        bound = np.zeros((T, C))
        edge_after = np.zeros((T, C))
    for lev in progress(range(n_levels), "gnnb", total=n_levels):
        ia, ib = it_bounds[lev], it_bounds[lev + 1]
        if ia == ib:
            continue
        pa, pb = pair_bounds[ia], pair_bounds[ib]
        I = pair_i[pa:pb]  # noqa: E741 - the paper's I; distinct within a level
        seg = pair_step[pa:pb] - ia
        starts = pair_bounds[ia:ib] - pa
        jl = js[ia:ib]
        nj = counts[ia:ib, None].astype(np.float64)
        Yj = Y[jl]
        cur = state[I]
        hI, wI = cur[:, :C], cur[:, C:]
        S = _segment_sums(wI, starts, counts[ia:ib])             # b Σ w_i y_i
        if update == "gnnb":
            delta = coef * Yj * S / nj                            # eq. (10), η = y_j S / b
        else:
            YI = Y[I]
            s = YI * Yj[seg]                                      # y_ic y_jc
            delta, capped = _zero_edge(family, -YI * hI, s, starts, seg, Yj * S / b, hs, nj,
                                       delta_max, tol)
            n_capped += int(capped.sum())
        if trace:
            h_old = hI.copy()
        hI += (delta * Yj)[seg]                                   # eq. (11) on the link scale
        p, q = family.posterior_pair(-hI)
        np.negative(q, out=wI)
        np.copyto(wI, p, where=pos_y[I])
        state[I] = cur
        alpha[jl] += delta                                        # step I.3
        steps = order[ia:ib]
        deltas[steps] = delta
        if trace:
            YI = Y[I]
            dF = family.F(YI * hI) - family.F(YI * h_old)
            risk_change[steps] = np.add.reduceat(dF, starts, axis=0) / m
            eta = Yj * S / b
            bound[steps] = -2.0 * epsilon * (1.0 - epsilon) * eta ** 2 / (hs * nj * m)
            edge_after[steps] = Yj * np.add.reduceat(wI, starts, axis=0) / b
    chosen = seq                      # the same example for every class
    n_updates = np.full(C, int(n[seq].sum()))
    out = LeverageFit(alpha=alpha, z=-Y * state[:, :C], deltas=deltas, chosen=chosen,
                      n_updates=n_updates, h_star=hs, n_capped=n_capped,
                      extra={"levels": n_levels})
    if trace:
        out.risk_trace = np.vstack([np.ones((1, C)) * family.F(0.0), risk_change]).cumsum(axis=0)
        out.bound_trace = bound if update == "gnnb" else None
        out.edge_after = edge_after
    return out


def _zero_edge(family, zI, s, starts, seg, eta0, hs, nj, delta_max, tol, maxiter=200):
    """UNN step: δ with Σ_{i: j∼i} s_i ∇φ⁻¹(z_i − δ s_i) = 0, s_i = y_ic y_jc (eq. 70).

    The left side is decreasing in δ; safeguarded Newton inside a bracket
    (bisection when Newton leaves it), started from the GNNB step.  Returns
    (δ, capped) where capped marks roots beyond ±``delta_max`` (set to the cap).
    """
    b = family.b

    def edge(d):
        p = family.posterior_pair(zI - d[seg] * s)[0]
        return np.add.reduceat(s * p, starts, axis=0) / b

    lo = np.full(eta0.shape, -delta_max)
    hi = np.full(eta0.shape, delta_max)
    f_lo, f_hi = edge(lo), edge(hi)
    cap_hi = f_hi > 0          # still positive at +cap: root beyond it
    cap_lo = f_lo < 0
    d = np.clip(2.0 * eta0 / (hs * nj), lo, hi)
    done = cap_hi | cap_lo | (eta0 == 0)
    for _ in range(maxiter):
        f = edge(d)
        done |= np.abs(f) <= tol
        if done.all():
            break
        lo = np.where(f > 0, d, lo)
        hi = np.where(f < 0, d, hi)
        # d/dδ of the edge: −Σ s² ∇φ⁻¹'(u)/b_φ with ∇φ⁻¹' = 1/φ''(p) = hessian_eta
        slope = -np.add.reduceat(family.hessian_eta(zI - d[seg] * s), starts, axis=0) / b
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = d - f / slope
        ok = np.isfinite(newton) & (newton > lo) & (newton < hi)
        nxt = np.where(ok, newton, 0.5 * (lo + hi))
        done |= (hi - lo) <= 1e-15 * (1.0 + np.abs(d))
        d = np.where(done, d, nxt)
    d = np.where(cap_hi, delta_max, np.where(cap_lo, -delta_max, d))
    d = np.where(eta0 == 0, 0.0, d)
    return d, cap_hi | cap_lo


# ---------------------------------------------------------------------------
# GNNB*: per class, the example of largest |δ_j| (Section 4.4)
# ---------------------------------------------------------------------------
def _inverse_sums(wy, knn):
    """S[c, j] = Σ_{i: j∼i} wy[c, i], from scratch (class-major, rows of ``knn`` in order)."""
    C, m = wy.shape
    k = knn.shape[1]
    flat_knn = knn.ravel()
    rows_of = np.repeat(np.arange(m), k)
    S = np.zeros((C, m))
    for c in range(C):
        S[c] = np.bincount(flat_knn, weights=wy[c, rows_of], minlength=m)
    return S


def _inverse_rows(indptr, indices, j, nj, tot):
    """(i, c) of every pair of the step: the inverse neighbourhood of ``j[c]`` for each
    class c in turn (``nj[c]`` rows each, ``tot`` in all)."""
    offs = np.zeros(len(nj) + 1, dtype=np.int64)
    np.cumsum(nj, out=offs[1:])
    pos = np.repeat(indptr[j] - offs[:-1], nj) + np.arange(tot)
    return indices[pos], np.repeat(np.arange(len(nj)), nj)


def _leverage_largest(knn, Y, family, indptr, indices, epsilon, T, hs, trace):
    """GNNB*: one step per class per iteration, at the example of largest |δ_j|.

    Kept incrementally, class-major (rows = classes, so that the per-class
    argmax reads contiguous memory): S[c, j] = Σ_{i: j∼i} w_ic y_ic, whence
    η(c, j) = y_jc S[c, j] (eq. 9) and |δ_j| ∝ |S[c, j]|/n_j (eq. 10).  A step
    changes the weights of j's inverse neighbours i, hence S at the neighbours
    of those i only.
    """
    m, C = Y.shape
    k = knn.shape[1]
    b = family.b
    n = np.diff(indptr)
    inv_n = np.where(n > 0, 1.0 / np.maximum(n, 1), 0.0)
    Yt = np.ascontiguousarray(Y.T)                        # (C, m)
    z = np.zeros((C, m))
    w = np.full((C, m), float(family.posterior_pair(0.0)[0]) / b)
    alpha = np.zeros((C, m))
    deltas = np.zeros((T, C))
    chosen = np.zeros((T, C), dtype=np.int64)
    n_updates = np.zeros(C, dtype=np.int64)
    coef = 2.0 * (1.0 - epsilon) / hs
    cls = np.arange(C)
    S = _inverse_sums(w * Yt, knn)
    score = np.abs(S) * inv_n
    if trace:
        risk = [surrogate_risk(family, z.T)]
        bound = np.zeros((T, C))
        edge_after = np.zeros((T, C))
    for t in progress(range(T), "gnnb*", total=T):
        if t and t % _REFRESH == 0:
            S = _inverse_sums(w * Yt, knn)     # refresh: no drift from the incremental sums
            score = np.abs(S) * inv_n
        j = np.argmax(score, axis=1)
        chosen[t] = j
        nj = n[j]
        eta = Yt[cls, j] * S[cls, j]
        delta = np.where(nj > 0, coef * eta / np.maximum(nj, 1), 0.0)
        deltas[t] = delta
        n_updates += nj
        alpha[cls, j] += delta
        tot = int(nj.sum())
        if tot == 0:
            if trace:
                risk.append(risk[-1])
            continue
        I, c = _inverse_rows(indptr, indices, j, nj, tot)  # noqa: E741 - the paper's I
        yI = Yt[c, I]
        s = yI * Yt[c, j[c]]
        zold = z[c, I]
        znew = zold - delta[c] * s
        wnew = family.posterior_pair(znew)[0] / b
        dwy = (wnew - w[c, I]) * yI
        if trace:
            dF = family.F(-znew) - family.F(-zold)
            risk.append(risk[-1] + np.bincount(c, weights=dF, minlength=C) / m)
            bound[t] = -2.0 * epsilon * (1.0 - epsilon) * eta ** 2 / (hs * np.maximum(nj, 1) * m)
            edge_after[t] = np.bincount(c, weights=wnew * s, minlength=C)
        z[c, I] = znew
        w[c, I] = wnew
        # S[c, j'] += Δ(w y)_ic for every j' ∈ kNN(i): linear indices into (C, m)
        lin = (np.repeat(c * m, k) + knn[I].ravel())
        np.add.at(S.reshape(-1), lin, np.repeat(dwy, k))
        score.reshape(-1)[lin] = np.abs(S.reshape(-1)[lin]) * inv_n[lin % m]
    out = LeverageFit(alpha=np.ascontiguousarray(alpha.T), z=np.ascontiguousarray(z.T),
                      deltas=deltas, chosen=chosen, n_updates=n_updates, h_star=hs)
    if trace:
        out.risk_trace = np.vstack(risk)
        out.bound_trace = bound
        out.edge_after = edge_after
    return out
