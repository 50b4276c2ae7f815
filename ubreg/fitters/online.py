"""The q-norm geodesic walk of Algorithm 2 of paper 000 (docs/math.md §9), on arrays.

One row at a time::

    θ_t = ∇ψ_q(w_t) = ∇ψ_q(w_{t−1}) − η_t (p̂_t − y_t) x_t,   p̂_t = ∇φ⁻¹(w_{t−1}ᵀx_t),

w_0 = 0 (eq. 93), with ψ_q(w) = ½‖w‖_q², ∇ψ_q(w)ᵢ = sign(wᵢ)|wᵢ|^{q−1}/‖w‖_q^{q−2}
and its inverse the dual p-norm map ∇ψ_p (1/p + 1/q = 1).  For q = 2 both
maps are the identity and the walk is a plain gradient step.  Theorem 3's
learning rate is η = λ/((p − 1)λ_p²) (eq. 98) with λ ≤ inf φ'' (eq. 97) and
λ_p ≥ sup‖x‖_p (eq. 96).

Arrays in, arrays out: the formula, the batches and the design are the
business of :class:`ubreg.methods.online.OnlineLearner`; the family supplies
the per-row posterior (``scalar_posterior``) and the curvature bound λ
(``curvature_lower_bound``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["grad_psi", "dual_exponent", "p_norms", "theorem3_eta", "regret_bound_penalty",
           "step_sizes", "walk"]


# ---------------------------------------------------------------------------
# the q-norm potential
# ---------------------------------------------------------------------------
def grad_psi(w, q):
    """∇ψ_q(w)ᵢ = sign(wᵢ)|wᵢ|^{q−1}/‖w‖_q^{q−2} (docs/math.md §9), 0 at w = 0.

    Computed on w/max|w| (scale-free: ∇ψ_q is 1-homogeneous), so no power
    overflows for large p.
    """
    w = np.asarray(w, dtype=np.float64)
    m = np.max(np.abs(w)) if w.size else 0.0
    if m == 0.0 or q == 2.0:
        return w.copy()
    u = w / m
    au = np.abs(u)
    norm = np.sum(au ** q) ** (1.0 / q)
    return m * np.sign(u) * au ** (q - 1.0) / norm ** (q - 2.0)


def dual_exponent(q):
    """p with 1/p + 1/q = 1 (q = 2 is self-dual)."""
    return q / (q - 1.0) if q < 2.0 else 2.0


def p_norms(X, p):
    """‖xᵢ‖_p of every row of X, scaled by the row's max|xᵢⱼ| so no power
    overflows; one 0 for an empty X (so that ``.max()`` is defined)."""
    if X.shape[0] == 0:
        return np.zeros(1)
    if p == 2.0:
        return np.sqrt(np.einsum("ij,ij->i", X, X))
    m = np.max(np.abs(X), axis=1, keepdims=True)
    m = np.where(m > 0, m, 1.0)
    return m[:, 0] * np.sum((np.abs(X) / m) ** p, axis=1) ** (1.0 / p)


# ---------------------------------------------------------------------------
# Theorem 3: rate and the penalty of the regret bound (the curvature bound
# λ ≤ inf φ'' of eq. 97 is the family's: ``family.curvature_lower_bound()``)
# ---------------------------------------------------------------------------
def theorem3_eta(lam, p, lambda_p):
    """η = λ/((p − 1)λ_p²), Theorem 3's learning rate (eq. 98)."""
    return lam / ((p - 1.0) * lambda_p ** 2)


def regret_bound_penalty(r, p, q, lam, lambda_p):
    """(p − 1)λ_p²‖r‖_q²/(2λ), the penalty of Theorem 3 for a reference r."""
    r = np.asarray(r, dtype=float)
    return (p - 1.0) * lambda_p ** 2 * np.sum(np.abs(r) ** q) ** (2.0 / q) / (2.0 * lam)


def step_sizes(n_seen, n, eta, rate):
    """η_t of the next n rows: None for the constant rate (η at every row), or
    η/√t with t = n_seen + 1, …, n_seen + n counting rows from 1."""
    if rate == "constant":
        return None
    t = np.arange(n_seen + 1, n_seen + n + 1, dtype=np.float64)
    return eta / np.sqrt(t)


# ---------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------
def walk(X, y, family, eta, rates, w, theta, w_sum, q, p):
    """The per-row loop of Algorithm 2 (eq. 93) from the iterates (w, θ).

    Compiled (:mod:`ubreg.fitters.online_kernels`) for a family with a closed-form
    posterior (``family.posterior_form``), interpreted otherwise.

    Parameters
    ----------
    X : ndarray (n, d), C-contiguous
    y : ndarray (n,) of 0/1
    family : Family
        Gives ∇φ⁻¹: its ``posterior_form`` to the compiled loop, else its
        ``scalar_posterior()``.
    eta : float
        The constant rate, used when ``rates`` is None.
    rates : ndarray (n,) or None
        Per-row rates η_t (:func:`step_sizes`).
    w, theta, w_sum : ndarray (d,)
        The iterate, its dual ∇ψ_q(w) and Σ_{s≤t} w_s so far.
    q, p : float
        The potential's exponent and its dual.

    Returns
    -------
    links, w, theta, w_sum
        w_{t−1}ᵀx_t per row and the new state, new arrays (the inputs are not
        modified).
    """
    from .online_kernels import run
    compiled = run(X, y, family, eta, rates, w, theta if q != 2.0 else w, w_sum, p)
    if compiled is not None:
        return compiled
    post = family.scalar_posterior()
    n = X.shape[0]
    links = np.empty(n)
    if q == 2.0:
        return _walk_q2(X, y, post, eta, rates, w, w_sum, links)
    w_sum = w_sum.copy()
    for i in range(n):
        x = X[i]
        a = float(x @ w)
        links[i] = a
        step = eta if rates is None else rates[i]
        theta = theta - (step * (post(a) - y[i])) * x
        w = grad_psi(theta, p)               # the dual p-norm map inverts ∇ψ_q
        w_sum += w
    return links, w, theta, w_sum


def _walk_q2(X, y, post, eta, rates, w, w_sum, links):
    """q = 2: ∇ψ_2 = id, so the geodesic walk is a plain gradient step on w,
    run on Python floats (faster than NumPy for one short row at a time)."""
    n = X.shape[0]
    rows = X.tolist()
    wl = w.tolist()
    yl = y.tolist()
    etas = [eta] * n if rates is None else rates.tolist()
    steps = [0.0] * n
    rng = range(len(wl))
    for i in range(n):
        x = rows[i]
        a = 0.0
        for k in rng:
            a += x[k] * wl[k]
        links[i] = a
        g = etas[i] * (post(a) - yl[i])
        if g != 0.0:
            steps[i] = g
            for k in rng:
                wl[k] -= g * x[k]
    # Σ_{i=1..n} w_i = n w_0 − Σ_s (n − s + 1) g_s x_s (no per-row sum in the loop)
    weight = np.arange(n, 0, -1, dtype=np.float64) * np.asarray(steps)
    w_new = np.array(wl)
    return links, w_new, w_new.copy(), w_sum + n * w - X.T @ weight
