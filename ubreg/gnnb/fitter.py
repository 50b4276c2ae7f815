"""The leveraging loop of GNNB and UNN (paper 002, Algorithm 1; MATH.md §8).

Arrays in, a fresh :class:`LeverageFit` out; inputs are never modified.

Notation (MATH.md §8): ``Y`` (m, C) holds y_ic ∈ {−1, 1}; ``knn`` (m, k) the
training neighbours of each example (itself excluded); the inverse
neighbourhood of j is {i : j ∈ kNN(i)}, of size n_j.  The state is kept on the
link scale, ``z[i, c] = −y_ic h_c(x_i)``, and the weights are
w_ic = ∇φ⁻¹(z_ic)/b_φ.  The weight update (11),
w ← ∇φ⁻¹(−δ_j y_ic y_jc + ∇φ(b_φ w))/b_φ, is the same thing written on the
probability scale, because ∇φ(b_φ w_ic) = z_ic (eq. 26); keeping z avoids the
round trip ∇φ(∇φ⁻¹(·)) and its rounding.

All C classes are updated together: Algorithm 1 runs one independent
boosting per class, and with the sequential chooser every class leverages the
same example j at step t, so the per-class updates are columns of one array
operation.  The m sequential steps are further batched *exactly*: two steps
whose inverse neighbourhoods are disjoint read and write disjoint weights, so
they commute.  :func:`_levels` gives each step the level 1 + (largest level of
an earlier step sharing an example with it); the steps of one level are then
processed as one vectorised operation, in level order, with the same result as
the sequential loop (LetterRecognition: 16 000 steps fall into about 100 levels).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .neighbours import inverse_neighbourhoods

__all__ = ["LeverageFit", "h_star", "lemma3_optimal_risk", "leverage", "surrogate_risk"]

CHOOSERS = ("sequential", "largest")
UPDATES = ("gnnb", "unn")


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


def h_star(family) -> float:
    """H*_ψ = sup_z 1/(b_φ φ''(∇φ⁻¹(z))) = 1/(b_φ min_{(0,1)} φ''), eq. (8).

    It is 1/(b_φ φ''(1/2)) for the families of Table 1 (MATH.md §8); the
    minimum is taken on a grid so that families whose φ'' is smallest at the
    ends (``logcosh``) are covered too.
    """
    p = np.concatenate([np.linspace(1e-6, 1.0 - 1e-6, 4001), [0.5]])
    with np.errstate(all="ignore"):
        d2 = np.asarray(family.d2phi(p), dtype=np.float64)
    d2 = d2[np.isfinite(d2) & (d2 > 0)]
    if d2.size == 0:
        raise ValueError(f"family {family.describe()}: φ'' is not positive and finite on (0, 1)")
    return 1.0 / (family.b * float(d2.min()))


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
    hs = h_star(family)
    indptr, indices = inverse_neighbourhoods(knn, m)
    if chooser == "largest":
        return _leverage_largest(knn, Y, family, indptr, indices, float(epsilon), int(T), hs, trace)
    return _leverage_sequential(Y, family, indptr, indices, float(epsilon), int(T), hs, update,
                                float(delta_max), tol, trace)


# ---------------------------------------------------------------------------
# sequential chooser: exact batching by levels
# ---------------------------------------------------------------------------
def _levels(seq: np.ndarray, indptr: np.ndarray, indices: np.ndarray, m: int) -> np.ndarray:
    """Level of each step: 1 + the largest level of an earlier step sharing an
    inverse neighbour; 0 for a step with an empty inverse neighbourhood (a no-op)."""
    last = [0] * m
    ip = indptr.tolist()
    ii = indices.tolist()
    out = [0] * len(seq)
    getter = last.__getitem__
    for t, j in enumerate(seq.tolist()):
        a, b = ip[j], ip[j + 1]
        if a == b:
            continue
        members = ii[a:b]
        lev = 1 + max(map(getter, members))
        for i in members:
            last[i] = lev
        out[t] = lev
    return np.asarray(out, dtype=np.int64)


def _leverage_sequential(Y, family, indptr, indices, epsilon, T, hs, update, delta_max, tol, trace):
    m, C = Y.shape
    b = family.b
    n = np.diff(indptr)
    seq = np.arange(T, dtype=np.int64) % m
    levels = _levels(seq, indptr, indices, m)
    active = np.flatnonzero(levels > 0)
    order = active[np.argsort(levels[active], kind="stable")]   # steps, level by level
    js = seq[order]
    counts = n[js]
    n_levels = int(levels.max()) if levels.size else 0
    it_bounds = np.searchsorted(levels[order], np.arange(1, n_levels + 2))
    pair_bounds = np.zeros(len(js) + 1, dtype=np.int64)
    np.cumsum(counts, out=pair_bounds[1:])
    # (i, step) pairs: the inverse neighbourhood of each step's example, step by step
    pos = np.repeat(indptr[js] - pair_bounds[:-1], counts) + np.arange(pair_bounds[-1])
    pair_i = indices[pos]
    pair_step = np.repeat(np.arange(len(js)), counts)
    del pos

    z = np.zeros((m, C))
    w = np.full((m, C), float(family.posterior_pair(0.0)[0]) / b)
    alpha = np.zeros((m, C))
    deltas = np.zeros((T, C))
    coef = 2.0 * (1.0 - epsilon) / hs
    n_capped = 0
    if trace:
        risk_change = np.zeros((T, C))
        bound = np.zeros((T, C))
        edge_after = np.zeros((T, C))
    for lev in range(n_levels):
        ia, ib = it_bounds[lev], it_bounds[lev + 1]
        if ia == ib:
            continue
        pa, pb = pair_bounds[ia], pair_bounds[ib]
        I = pair_i[pa:pb]                      # distinct within a level
        seg = pair_step[pa:pb] - ia
        starts = pair_bounds[ia:ib] - pa
        jl = js[ia:ib]
        nj = counts[ia:ib, None].astype(np.float64)
        s = Y[I] * Y[jl][seg]                  # y_ic y_jc
        zI = z[I]
        eta = np.add.reduceat(w[I] * s, starts, axis=0)          # eq. (9)
        if update == "gnnb":
            delta = coef * eta / nj                               # eq. (10)
        else:
            delta, capped = _zero_edge(family, zI, s, starts, seg, eta, hs, nj, delta_max, tol)
            n_capped += int(capped.sum())
        znew = zI - delta[seg] * s                                # eq. (11) on the link scale
        wnew = family.posterior_pair(znew)[0] / b
        z[I] = znew
        w[I] = wnew
        alpha[jl] += delta                                        # step I.3
        steps = order[ia:ib]
        deltas[steps] = delta
        if trace:
            dF = family.F(-znew) - family.F(-zI)
            risk_change[steps] = np.add.reduceat(dF, starts, axis=0) / m
            bound[steps] = -2.0 * epsilon * (1.0 - epsilon) * eta ** 2 / (hs * nj * m)
            edge_after[steps] = np.add.reduceat(wnew * s, starts, axis=0)
    chosen = seq                      # the same example for every class
    n_updates = np.full(C, int(n[seq].sum()))
    out = LeverageFit(alpha=alpha, z=z, deltas=deltas, chosen=chosen, n_updates=n_updates,
                      h_star=hs, n_capped=n_capped, extra={"levels": n_levels})
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
    flat_knn = knn.ravel()
    rows_of = np.repeat(np.arange(m), k)

    def inverse_sums():
        S = np.zeros((C, m))
        wy = w * Yt
        for c in range(C):
            S[c] = np.bincount(flat_knn, weights=wy[c, rows_of], minlength=m)
        return S

    S = inverse_sums()
    score = np.abs(S) * inv_n
    if trace:
        risk = [surrogate_risk(family, z.T)]
        bound = np.zeros((T, C))
        edge_after = np.zeros((T, C))
    for t in range(T):
        if t and t % 1024 == 0:
            S = inverse_sums()          # refresh: no drift from the incremental sums
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
        offs = np.zeros(C + 1, dtype=np.int64)
        np.cumsum(nj, out=offs[1:])
        pos = np.repeat(indptr[j] - offs[:-1], nj) + np.arange(tot)
        I = indices[pos]
        c = np.repeat(cls, nj)
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
