"""The tempered family's small-side posterior at any t, without a root search a row.

docs/tempered.md §3.2 (the inverse link, "any t").  On the small side (target
η = tv ≤ 0) everything is a function of ρ = |s ζ| ≥ 0, ζ the log-odds, s = 1 − t:
with e₁ = e^{−ρ}, L = log1p(e₁), K = |k| = |(2 − t)/(1 − t)|,

* s > 0: η = T expm1(−Kρ), T = 2^k e^{−kL} = (2 − w)^k; x = Y/(1 + Y), Y = e^{−Kρ}/e₁;
  ℓ₋₁ = T e^{−Kρ}; −dη/dρ = K T (e^{−Kρ} + e₁)/(1 + e₁);
* s < 0: η = T expm1(−Kρ), T = 2^k (1 + U) X, X = e^{Kρ}, U = expm1(K L) = (w/2)^k − 1;
  x = Z/(1 + Z), Z = e₁/X; ℓ₋₁ − a_φ = 2^k U; −dη/dρ = K T (1 + Z)/(1 + e₁);

and 1/φ'' = dx/dη = p x(1 − x)/(−dη/dρ), p = 1/|s|.  A start ρ₀ is read from a table
made once per t (cubic Hermite cells, 32 an octave, in q = −tv, or near a bounded link's
end in d = tv + 2^k; the cell and its coordinate come from ``frexp``, exactly), good to
~1e−8; the five exponentials and logarithms at ρ₀ (:func:`transcendentals`, NumPy's
vectorised ones, shared with U-Boost's compiled pass) give η and its first two
derivatives, one Halley step gives ρ₁ = ρ₀ + δ, and the quantities at ρ₁ are those at ρ₀
times exp(±Kδ), exp(−δ)... by short series (|δ| ≲ 1e−7: no further transcendental).
Each term is a product or a sum of like signs: the posterior keeps relative precision
down to the smallest doubles.

Near t = 1 (K > :data:`WIDE_K`, |1 − t| < 1/99) 2^k and e^{−kL} leave the doubles
(k = ±1/|1 − t| + 1), and T = 2^k e^{−kL} formed from them, or as e^{−k(L − ln 2)}, carries
an error of K ε ln 2: the table is *wide*.  Its transcendentals are taken of
ℓ = L − ln 2 = log1p(expm1(−ρ)/2), accurate to its last bits: E = expm1(−ρ), ℓ, and
T = e^{−Kℓ} (s > 0) or W = e^{Kℓ} = 2^k(1 + U) (s < 0), with e₁ = 1 + E (ρ ≤ 746/99 there:
its rounding, ε e^ρ/2 relative, stays below the ε|ζ| of the log-odds' own rounding where x
is a normal double) and ℓ₋₁ − a_φ = W − 2^k.  The errors are then of the order of ε|ζ| at
any t, however near 1; the operations are otherwise the same.
"""
from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

_LN2 = math.log(2.0)

__all__ = ["RootTable", "root_table", "start", "arguments", "transcendentals", "finish",
           "expm1_small",
           "expm1_series", "halley_step", "neg_values", "pos_values", "WIDE_K"]

#: cells of the start's table per octave of its variable
CELLS = 32
#: the q-table's lowest octave: below 2^(Q_LOW − 1), ρ₀ = q × (1/K) (error O(q²))
Q_LOW = -59
#: octaves of the d-table below 2^k: a target above −2^k is at least ulp(2^k)/2 from it
D_OCTAVES = 60
#: |k| above which (|1 − t| < 1/99) the table is wide (see the module docstring)
WIDE_K = 100.0
#: s < 0: targets below −2^Q_TOP (or where Kρ > 700) are saturated (x < 1e−300: the
#: bracketed search gave x ~ 1e−301 or 0 there)
Q_TOP = 1000


class RootTable(NamedTuple):
    """The start's table and the constants of one t (see the module docstring)."""
    neg: bool          # s < 0
    k: float           # K = |k|
    p: float           # 1/|s|
    two_k: float       # 2^k (s > 0: the end of the link domain)
    tv_min: float      # targets at or below: saturated (x = 0)
    q_split: float     # q above: the d-table (s > 0); inf for s < 0
    n_q: int           # cells of the q-table
    e_lo_d: int        # the d-table's lowest octave
    coef: np.ndarray   # (cells, 4): ρ₀ = ((c₃θ + c₂)θ + c₁)θ + c₀
    wide: bool         # K > WIDE_K: transcendentals of ℓ = L − ln 2 (module docstring)
    v_mul: float       # 2^−k (s > 0, wide): V = e^{−kL} = T 2^−k near the bounded end


def _eta_of_rho(neg: bool, k: float, two_k: float, rho: np.ndarray,
                wide: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(η, η + 2^k, −dη/dρ) at ρ, the first two without cancellation (the table's nodes);
    ``wide``: T from ℓ = L − ln 2 (the module docstring)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e1 = np.exp(-rho)
        L = np.log1p(e1)
        ell = np.log1p(0.5 * np.expm1(-rho))
        if not neg:
            T = np.exp(-k * ell) if wide else two_k * np.exp(-k * L)
            X = np.exp(-k * rho)
            eta = T * np.expm1(-k * rho)
            dist = T * X - two_k * np.expm1(-k * L)
            slope = k * T * (X + e1) / (1.0 + e1)
        else:
            # 2^k e^{K(L + ρ)}, k = −K
            T = np.exp(k * (ell + rho)) if wide else np.exp(k * (L + rho) - k * _LN2)
            eta = T * np.expm1(-k * rho)
            dist = eta + two_k
            slope = k * T * (1.0 + e1 * np.exp(-k * rho)) / (1.0 + e1)
    return eta, dist, slope


def _node_rho(neg: bool, k: float, two_k: float, v: np.ndarray, on_d: bool,
              rho_hi: float, wide: bool) -> tuple[np.ndarray, np.ndarray]:
    """ρ with −η(ρ) = v (q-table) or η(ρ) + 2^k = v (d-table), by bisection to the last
    bit, and dρ/dv."""
    lo, hi = np.zeros_like(v), np.full_like(v, rho_hi)
    for _ in range(400):
        mid = 0.5 * (lo + hi)
        eta, dist, _ = _eta_of_rho(neg, k, two_k, mid, wide)
        past = np.where(on_d, dist < v, -eta > v)       # ρ too large
        done = (mid == lo) | (mid == hi)
        hi, lo = np.where(past, mid, hi), np.where(past, lo, mid)
        if done.all():
            break
    rho = 0.5 * (lo + hi)
    slope = _eta_of_rho(neg, k, two_k, rho, wide)[2]
    return rho, np.where(on_d, -1.0, 1.0) / slope


def _cells(neg: bool, k: float, two_k: float, e_lo: int, e_hi: int, on_d: bool,
           rho_hi: float, wide: bool) -> np.ndarray:
    """Hermite coefficients of the octaves e_lo..e_hi of one table (v = f 2^e, f ∈ [½, 1))."""
    e = np.arange(e_lo, e_hi + 1)
    i = np.arange(CELLS + 1)
    width = np.ldexp(0.5, e)[:, None] / CELLS                   # dv/dθ in octave e
    v = np.ldexp(0.5, e)[:, None] * (1.0 + i[None, :] / CELLS)
    rho, drho = _node_rho(neg, k, two_k, v.ravel(), on_d, rho_hi, wide)
    rho, slope = rho.reshape(v.shape), drho.reshape(v.shape) * width
    y0, y1, m0, m1 = rho[:, :-1], rho[:, 1:], slope[:, :-1], slope[:, 1:]
    c = np.stack([y0, m0, 3.0 * (y1 - y0) - 2.0 * m0 - m1, 2.0 * (y0 - y1) + m0 + m1], -1)
    return c.reshape(-1, 4)


@functools.lru_cache(maxsize=32)
def root_table(t: float, two_k: float, tv_min: float) -> RootTable:
    """The table of temperature t (t ∉ {0, ½, 1}), made once (about 0.1 s): ``two_k`` is
    2^k (s > 0: the link domain's end, inf where it is beyond the doubles) and ``tv_min``
    the family's saturation threshold, so that the table and the family agree on both."""
    s = 1.0 - t
    neg, k, p = s < 0, abs((2.0 - t) / s), 1.0 / abs(s)
    wide = k > WIDE_K
    if neg:
        # saturated past 2^Q_TOP or Kρ = 700 (e^{Kρ} finite; x < e^{−700/c} there); a wide
        # table's step divides by T: Kρ = 709 (x < e^{−709/c}, subnormal: c < 1)
        rho_end = (709.0 if wide else 700.0) / k
        tv_min = max(tv_min, -math.ldexp(1.0, Q_TOP),
                     float(_eta_of_rho(True, k, two_k, np.array(rho_end), wide)[0]))
        q_split = math.inf
        rho_hi = 746.0 / p + (Q_TOP + 100) * math.log(2.0) / k + 2.0
    else:
        q_split = 0.5 * two_k
        rho_hi = min(746.0 / p + 1.0, 200.0)
    bounded = math.isfinite(q_split)
    e_hi_q = math.frexp(q_split if bounded else -tv_min)[1]
    cq = _cells(neg, k, two_k, Q_LOW, e_hi_q, False, rho_hi, wide)
    e_lo_d = math.frexp(math.ldexp(two_k, -D_OCTAVES))[1] if bounded else 0
    cd = (_cells(neg, k, two_k, e_lo_d, math.frexp(q_split)[1], True, rho_hi, wide)
          if bounded else np.zeros((0, 4)))
    coef = np.ascontiguousarray(np.vstack([cq, cd]))
    v_mul = 2.0 ** -k if wide and not neg else 1.0
    return RootTable(neg, k, p, two_k, tv_min, q_split, len(cq), e_lo_d, coef, wide, v_mul)


def start(tab: RootTable, tv: np.ndarray) -> np.ndarray:
    """ρ₀ at the targets tv ≤ 0 from the table (0 for saturated or NaN targets);
    ``TEMPERED_START`` of the U-Boost kernels does these operations in this order."""
    q = -tv
    live = (tv > tab.tv_min) & (tv < 0.0)
    on_d = q > tab.q_split
    with np.errstate(invalid="ignore"):         # −∞ + 2^k at an unbounded link's ends
        v = np.where(live, np.where(on_d, tv + tab.two_k, q), 0.5)
    f, e = np.frexp(v)
    u = (f - 0.5) * (2 * CELLS)
    j = np.floor(u)
    th = u - j
    base = np.where(on_d, tab.n_q + (e - tab.e_lo_d) * CELLS, (e - Q_LOW) * CELLS)
    tiny = ~on_d & (q < math.ldexp(1.0, Q_LOW - 1))
    idx = np.where(live & ~tiny, base + j.astype(np.int64), 0)
    c = tab.coef[idx]
    rho = ((c[:, 3] * th + c[:, 2]) * th + c[:, 1]) * th + c[:, 0]
    rho = np.where(tiny, q * (1.0 / tab.k), rho)
    return np.where(live, rho, 0.0)


def arguments(tab: RootTable, rho: np.ndarray, e1: np.ndarray, X: np.ndarray,
              Em: np.ndarray) -> None:
    """The arguments of :func:`transcendentals` at ρ₀, into e1, X and Em: −ρ, ∓Kρ and (s < 0)
    −Kρ (``TEMPERED_START`` writes these itself)."""
    np.negative(rho, out=e1)
    np.multiply(rho, tab.k if tab.neg else -tab.k, out=X)
    if tab.neg:
        np.multiply(rho, -tab.k, out=Em)


def transcendentals(tab: RootTable, e1: np.ndarray, L: np.ndarray, V: np.ndarray,
                    X: np.ndarray, Em: np.ndarray) -> None:
    """The five vectorised exponentials and logarithms at ρ₀, in place from
    :func:`arguments`: e₁ = e^{−ρ}, L = log1p(e₁), V = e^{−kL} (s > 0) or expm1(KL)
    (s < 0), X = e^{−Kρ} (s > 0) or e^{Kρ} (s < 0), and for s < 0 Em = expm1(−Kρ) (for
    s > 0, :func:`finish` takes X − 1: its rounding, ulp(1) × T ≈ ulp(1) where X ≈ 1, moves
    x by at most ulp(1)/(4(2 − t)) < ulp(½)/2 there, and the pass costs 1/6 of the time).
    A wide table's (the module docstring): e₁ holds E = expm1(−ρ), L holds ℓ = log1p(E/2),
    V holds T = e^{−Kℓ} (s > 0) or W = e^{Kℓ} (s < 0)."""
    k = tab.k
    with np.errstate(over="ignore", under="ignore"):
        if tab.wide:
            np.expm1(e1, out=e1)
            np.multiply(e1, 0.5, out=L)
            np.log1p(L, out=L)
            np.multiply(L, k if tab.neg else -k, out=V)
            np.exp(V, out=V)
        else:
            np.exp(e1, out=e1)
            np.log1p(e1, out=L)
            np.multiply(L, k if tab.neg else -k, out=V)
            if tab.neg:
                np.expm1(V, out=V)
            else:
                np.exp(V, out=V)
        if tab.neg:
            np.expm1(Em, out=Em)
        np.exp(X, out=X)


def expm1_small(y: Any) -> Any:
    """expm1(y) for |y| ≲ 1e−3 (relative error y⁶/720); scalars (the kernels) or arrays."""
    return y * (1.0 + y * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0 + y * (1.0 / 120.0)))))


def expm1_series(y: Any) -> Any:
    """expm1(y) for |y| ≤ 1/16 (ten terms, Horner: relative error below 1e−19)."""
    return y * (1.0 + y * (_F2 + y * (_F3 + y * (_F4 + y * (_F5 + y * (
        _F6 + y * (_F7 + y * (_F8 + y * (_F9 + y * _F10)))))))))


#: 1/n! (the series of :func:`expm1_series`)
_F2, _F3, _F4, _F5, _F6, _F7, _F8, _F9, _F10 = (1.0 / math.factorial(n) for n in range(2, 11))


def finish(tab: RootTable, tv: np.ndarray, e1: np.ndarray, L: np.ndarray, V: np.ndarray,
           X: np.ndarray, Em: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, R, h) at the targets: the Halley step from ρ₀ and the quantities at ρ₁ (the
    module docstring); R = ℓ₋₁(x) − a_φ, h = 1/φ''(x).  Saturated rows are the caller's.
    ``TEMPERED_VALUES`` of the U-Boost kernels does these operations in this order.  A wide
    table's transcendentals (:func:`transcendentals`) give e₁ = 1 + E, L = ℓ + ln 2 and T
    (s > 0) or 2^k(1 + V) (s < 0) directly; the rest is the same."""
    K, two_k, ph = tab.k, tab.two_k, tab.p / tab.k
    wide = tab.wide
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if wide:
            e1 = 1.0 + e1
        u1 = 1.0 + e1
        if tab.neg:
            T = (V if wide else two_k * (1.0 + V)) * X
            Z = e1 / X
            D = 1.0 + Z
            cD = (K + e1) * D - (K + 1.0) * Z * u1
            if wide:            # f/T and T = 1 below: K T overflows where e^{Kρ} nears 2^1024
                f = Em - tv / T
                T = np.ones_like(T)
            else:
                f = T * Em - tv
        else:
            T = V if wide else two_k * V
            D = X + e1
            cD = (K + 1.0) * e1 * D - (K * X + e1) * u1
            # near the bounded end, η + 2^k = ℓ₋₁ − 2^k expm1(−kL) against d = tv + 2^k
            # (exact): no cancellation of T expm1(−Kρ) against tv
            y = -K * (L + _LN2 if wide else L)
            dm = np.where(y >= -0.0625, expm1_series(y), V * tab.v_mul - 1.0)
            f = np.where(-tv > tab.q_split, (T * X - two_k * dm) - (tv + two_k),
                         T * (X - 1.0) - tv)
        delta, e1n, dL = halley_step(K, T, D, f, cD, u1, e1)
        if tab.neg:
            x, R, h = neg_values(wide, K, two_k, ph, V, X, e1n, dL, delta)
        else:
            x, R, h = pos_values(wide, K, two_k, ph, V, X, e1n, dL, delta)
    return x, R, h


# The three below are arithmetic only (+, −, ×, ÷ and expm1_small), on arrays here and on
# scalars in U-Boost's compiled pass, which compiles these same functions: one source for
# the family's numbers and the kernel's, equal to the bit.
def halley_step(K: float, T: Any, D: Any, f: Any, cD: Any, u1: Any, e1: Any) -> tuple:
    """(δ, e₁ at ρ₁, the change of L): Halley's step −2ff'/(2f'² − ff'') as
    −fD/(f'D − f(f''D/f')/2), times 1 + e₁: no square of f' ~ T (T reaches 2^1000 for
    s < 0), and one division gives it and g = 1/(1 + e₁) (a few ulps: g only scales the
    step's own tiny correction)."""
    den = -K * T * D * D - 0.5 * f * cD
    j0 = 1.0 / (u1 * den)
    delta = -(f * D) * u1 * u1 * j0
    g = den * j0
    ea = expm1_small(-delta)
    e1n = e1 + e1 * ea
    w = e1 * ea * g
    dL = w * (1.0 - w * (0.5 - w * (1.0 / 3.0)))           # log1p(w)
    return delta, e1n, dL


def neg_values(wide: bool, K: float, two_k: float, ph: float, V: Any, X: Any, e1n: Any,
               dL: Any, delta: Any) -> tuple:
    """(x, R, h) at ρ₁ for s < 0: x = e₁/(Xn + e₁) and h = (p/K) x(1 − x)(1 + e₁)/(P (Xn + e₁))
    share one division (P = T/Xn, finite); a wide table's V is 2^k(1 + U), so P = V and
    R = P − 2^k."""
    if wide:
        P = V + V * expm1_small(K * dL)
        R = P - two_k
    else:
        Vn = V + (1.0 + V) * expm1_small(K * dL)
        P = two_k * (1.0 + Vn)
        R = two_k * Vn
    Xn = X + X * expm1_small(K * delta)
    j = 1.0 / (P * (Xn + e1n))
    x = e1n * P * j
    h = ph * x * (1.0 - x) * (1.0 + e1n) * j
    return x, R, h


def pos_values(wide: bool, K: float, two_k: float, ph: float, V: Any, X: Any, e1n: Any,
               dL: Any, delta: Any) -> tuple:
    """(x, R, h) at ρ₁ for s > 0: x = Xn/(Xn + e₁), h as :func:`neg_values` (P = T); a wide
    table's V is T."""
    Vn = V + V * expm1_small(-K * dL)
    Xn = X + X * expm1_small(-K * delta)
    P = Vn if wide else two_k * Vn
    R = P * Xn
    j = 1.0 / (P * (Xn + e1n))
    x = Xn * P * j
    h = ph * x * (1.0 - x) * (1.0 + e1n) * j
    return x, R, h
