"""Tempered algebra of paper 004 (docs/tempered.md §1, §2.2, §2.6, §3, §4).

Every function is vectorised over its array arguments and takes the
temperature t as a scalar.  |1 − t| < 1e−12 is t = 1 exactly; near t = 1
the stable forms of docs/tempered.md §1 are used (expm1/log1p).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, logit

from .tempered import Tempered

__all__ = [
    "K_t",
    "bayes_risk",
    "clip_level",
    "clipped_sum",
    "co_norm",
    "exp_t",
    "g_t",
    "is_one",
    "log_t",
    "log_tm1",
    "posterior_g",
    "power_mean",
    "tanh_t",
    "tensor_t",
]

#: below this |1 − t| the algebra is that of t = 1 (docs/tempered.md §1)
T_ONE = 1e-12


def is_one(t: float) -> bool:
    return abs(1.0 - float(t)) < T_ONE


def _f(x: ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def log_t(z: ArrayLike, t: float) -> np.ndarray:
    """log_t(z) = (z^{1−t} − 1)/(1 − t) = expm1((1 − t) ln z)/(1 − t), z ≥ 0 (§1).

    log_t(0) = −1/(1 − t) for t < 1 and −∞ for t ≥ 1.
    """
    z = _f(z)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        if is_one(t):
            return np.log(z)
        k = 1.0 - t
        return np.expm1(k * np.log(z)) / k


def log_tm1(z: ArrayLike, t: float) -> np.ndarray:
    """log_{t−1}(z) = (z^{2−t} − 1)/(2 − t), used in D_t (§1)."""
    return log_t(z, t - 1.0)


def exp_t(z: ArrayLike, t: float) -> np.ndarray:
    """exp_t(z) = [1 + (1 − t)z]₊^{1/(1 − t)} (§1): 0 below −1/(1 − t) for t < 1,
    +∞ from 1/(t − 1) on for t > 1; exp(log1p((1 − t)z)/(1 − t)) inside."""
    z = _f(z)
    if is_one(t):
        with np.errstate(over="ignore"):
            return np.exp(z)
    k = 1.0 - t
    base = k * z
    inside = base > -1.0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        val = np.exp(np.log1p(np.where(inside, base, 0.0)) / k)
    outside = 0.0 if t < 1 else np.inf
    return np.where(inside, val, np.where(np.isnan(z), np.nan, outside))


def tensor_t(a: ArrayLike, b: ArrayLike, t: float) -> np.ndarray:
    """a ⊗_t b = [a^{1−t} + b^{1−t} − 1]₊^{1/(1−t)} for a, b ≥ 0 (§1); a·b at t = 1.

    For t > 1, 0 ⊗_t b = 0 (0^{1−t} = +∞); a bracket ≤ 0 gives +∞ (the pole),
    and a ⊗_t ∞ = ∞ for a > 0 (an exp_t past its pole is +∞, as in [J]).
    """
    a, b = _f(a), _f(b)
    if is_one(t):
        return a * b
    k = 1.0 - t
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inner = a ** k + b ** k - 1.0
        if t < 1:
            return np.maximum(inner, 0.0) ** (1.0 / k)
        val = np.where(inner > 0, inner ** (1.0 / k), np.inf)
        inf = np.isinf(a) | np.isinf(b)
        return np.where(inf, np.where((a == 0) | (b == 0), 0.0, np.inf), val)


def power_mean(a: ArrayLike, b: ArrayLike, s: float) -> np.ndarray:
    """M_s(a, b) = ((a^s + b^s)/2)^{1/s}; √(ab) at s = 0 (§1).  M_s(0, b) = b·2^{−1/s}
    for s > 0 and 0 for s ≤ 0."""
    a, b = _f(a), _f(b)
    if abs(s) < T_ONE:
        return np.sqrt(a * b)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        val = ((a ** s + b ** s) / 2.0) ** (1.0 / s)
    if s < 0:
        val = np.where((a == 0) | (b == 0), 0.0, val)
    return val


def bayes_risk(u: ArrayLike, t: float) -> np.ndarray:
    """L_t(u) = 2u(1 − u)/M_{1−t}(u, 1 − u) (§3.1), L_t(0) = L_t(1) = 0.

    Evaluated through :class:`ubreg.families.Tempered` (stable for every t < 2).
    """
    u = _f(u)
    val = -Tempered(t).phi(u)
    return np.where((u <= 0) | (u >= 1), 0.0, val)


def K_t(z: ArrayLike, t: float) -> np.ndarray:
    """K_t(z) = (1 − z²)/M_{1−t}(1 − z, 1 + z) = L_t((1 + z)/2) (§2.7)."""
    return bayes_risk((1.0 + _f(z)) / 2.0, t)


def g_t(p: ArrayLike, t: float) -> np.ndarray:
    """Tempered link g_t(p) = (1/(1−t))(p^{1−t} − (1−p)^{1−t})/(p^{1−t} + (1−p)^{1−t}) (§2.2).

    Written tanh((1 − t) logit(p)/2)/(1 − t): exact for every t, ½ logit(p)
    at t = 1, finite (±1/|1 − t|) at p ∈ {0, 1} for t ≠ 1.
    """
    p = _f(p)
    with np.errstate(divide="ignore"):
        lg = logit(p)
    if is_one(t):
        return 0.5 * lg
    k = 1.0 - t
    return np.tanh(0.5 * k * lg) / k


def posterior_g(H: ArrayLike, t: float) -> np.ndarray:
    """p̂ = exp_t(H)/(exp_t(H) + exp_t(−H)), the inverse of g_t (§2.6):
    expit(2 artanh((1 − t)H)/(1 − t)), saturating at 0, 1 where |(1 − t)H| ≥ 1."""
    H = _f(H)
    if is_one(t):
        return expit(2.0 * H)
    k = 1.0 - t
    x = k * H
    inside = np.abs(x) < 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = expit(2.0 * np.arctanh(np.where(inside, x, 0.0)) / k)
    return np.where(inside, p, np.where(H > 0, 1.0, np.where(H < 0, 0.0, 0.5)))


def tanh_t(z: ArrayLike, t: float) -> np.ndarray:
    """tanh_t(z) = (1 − exp_t(−2z))/(1 + exp_t(−2z)) (§4); tanh at t = 1."""
    z = _f(z)
    if is_one(t):
        return np.tanh(z)
    e = exp_t(-2.0 * z, t)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(e), -1.0, (1.0 - e) / (1.0 + e))


def co_norm(w: ArrayLike, t: float, freq: ArrayLike | None = None) -> float:
    """Z = ‖w‖_{2−t} = (Σ_i f_i w_i^{2−t})^{1/(2−t)} for w ≥ 0 (§1), scaled by
    max w; ``freq`` are frequency weights f_i (default 1)."""
    w = _f(w)
    m = float(np.max(w)) if w.size else 0.0
    if m == 0.0 or not np.isfinite(m):
        return m
    terms = (w / m) ** (2.0 - t)
    if freq is not None:
        terms = terms * _f(freq)
    return m * float(np.sum(terms)) ** (1.0 / (2.0 - t))


def clip_level(t: float) -> float:
    """δ of the clipped model (§2.6): 1/(1 − t) for t < 1, 1/|1 − t| for t > 1, ∞ at t = 1."""
    return np.inf if is_one(t) else 1.0 / abs(1.0 - t)


def clipped_sum(terms: ArrayLike, delta: float) -> np.ndarray:
    """The clipped running sum S_0 = 0, S_j = clip_{[−δ, δ]}(S_{j−1} + v_j) (§2.6).

    ``terms`` is (J,) or (J, n): the terms v_j = α_j h_j(x) in boosting order.
    Non-commutative: with δ = 2, (−1, 3) gives 2 and (3, −1) gives 1.
    """
    terms = _f(terms)
    S = np.zeros(terms.shape[1:])
    for v in terms:
        S = np.clip(S + v, -delta, delta)
    return S
