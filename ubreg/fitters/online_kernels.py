"""The compiled walk of the on-line learner (numba; paper 000, Algorithm 2, eq. 93).

The walk is sequential (each row's step depends on the iterate the previous rows
left), so NumPy cannot vectorise it across the batch; per row it is a handful of
operations on d numbers.  Interpreted, a row costs microseconds of call overhead
(10 µs and more for q ≠ 2, where the dual p-norm map runs on every row); compiled,
a row of 11 numbers costs tens of nanoseconds (``benchmarks/bench_online.py``).

The posterior is the family's closed form (``family.posterior_form``: the linear
probability model, expit(cη), the Matsushita/μ square-root form), written as
:mod:`ubreg.fitters.gnnb._kernels` writes it; families without one take the
interpreted walk of :mod:`ubreg.fitters.online`.  numba is imported by the first
on-line fit, not by ``import ubreg``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

__all__ = ["walk_compiled", "LINEAR", "LOGISTIC", "SQRT"]

LINEAR, LOGISTIC, SQRT = 0, 1, 2
# Any: njit types each keyword apart (cache: bool, error_model: str, ...)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(inline="always", **_JIT)
def _posterior(kind, c, a):
    if kind == LINEAR:
        return 0.5 * (1.0 + a / c)
    if kind == LOGISTIC:
        x = c * a
        if x >= 0.0:
            return 1.0 / (1.0 + math.exp(-x))
        e = math.exp(x)
        return e / (1.0 + e)
    u = a / c
    s = math.hypot(1.0, u)
    small = 0.5 / s / (s + abs(u))
    return 1.0 - small if u > 0.0 else small


@njit(inline="always", **_JIT)
def _dual_map(theta, p, w):
    """w = ∇ψ_p(θ) (the inverse of ∇ψ_q), on θ/max|θ| as :func:`grad_psi` computes it."""
    d = theta.shape[0]
    m = 0.0
    for k in range(d):
        m = max(m, abs(theta[k]))
    if m == 0.0 or p == 2.0:
        for k in range(d):
            w[k] = theta[k]
        return
    norm = 0.0
    for k in range(d):
        norm += (abs(theta[k]) / m) ** p
    scale = m / (norm ** (1.0 / p)) ** (p - 2.0)
    for k in range(d):
        u = theta[k] / m
        w[k] = scale * math.copysign(abs(u) ** (p - 1.0), u) if u != 0.0 else 0.0


@njit(**_JIT)
def walk_compiled(X, y, kind, c, eta, rates, has_rates, w, theta, w_sum, p, links):
    """The rows of X in turn: link a = wᵀx, θ ← θ − η_t(∇φ⁻¹(a) − y)x, w = ∇ψ_p(θ),
    Σw += w.  ``w``, ``theta``, ``w_sum`` and ``links`` are updated in place (the
    caller passes copies)."""
    n, d = X.shape
    for i in range(n):
        a = 0.0
        for k in range(d):
            a += X[i, k] * w[k]
        links[i] = a
        step = rates[i] if has_rates else eta
        g = step * (_posterior(kind, c, a) - y[i])
        if g != 0.0:
            for k in range(d):
                theta[k] -= g * X[i, k]
            _dual_map(theta, p, w)
        for k in range(d):
            w_sum[k] += w[k]


def compiled_kind(family):
    """(kind, c) of the family's closed-form posterior for :func:`walk_compiled`, or
    None (no closed form: the interpreted walk)."""
    form = family.posterior_form
    if form is None:
        return None
    shape, c = form
    kinds = {"linear": LINEAR, "logistic": LOGISTIC, "sqrt": SQRT}
    return (kinds[shape], float(c)) if shape in kinds else None


def run(X, y, family, eta, rates, w, theta, w_sum, p):
    """:func:`walk_compiled` on copies of the state; (links, w, θ, Σw), or None
    when the family has no closed form."""
    kind = compiled_kind(family)
    if kind is None:
        return None
    w, theta, w_sum = (np.array(v, dtype=np.float64) for v in (w, theta, w_sum))
    links = np.empty(X.shape[0])
    has_rates = rates is not None
    rates = np.asarray(rates, dtype=np.float64) if has_rates else np.empty(0)
    walk_compiled(np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64),
                  kind[0], kind[1], float(eta), rates, has_rates, w, theta, w_sum, float(p),
                  links)
    return links, w, theta, w_sum
