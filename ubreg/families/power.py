"""The power family φ_v(x) = −(x(1 − x))^v, v ∈ (0, 1): eq. (107) of paper 000.

The paper prints φ_v without the minus sign; (x(1 − x))^v is concave, so the
permissible (convex) function is its opposite (docs/math.md §2).  v = 1/2 gives
Matsushita's φ (eq. 28); v → 1 tends to Gini's (eq. 26).

∇φ has no closed-form inverse, so the posterior is found by Newton's method,
vectorised over rows (see :func:`_small_side`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import lambertw

from .base import ArrayOrFloat, PermissibleFamily, _as_float

__all__ = ["Power"]

_LOG_QUARTER = np.log(0.25)
_LOG_EIGHTH = np.log(0.125)
_LOG_SQRT_HALF = 0.5 * np.log(0.5)
_MAXITER = 60
_STEP_TOL = 4.0 * np.finfo(float).eps


def _newton(fun: Callable[..., tuple[np.ndarray, np.ndarray]], start: ArrayLike,
            args: tuple[np.ndarray, ...]) -> np.ndarray:
    """Vectorised Newton iteration ``t ← t − f(t)/f'(t)`` from a start where
    it decreases monotonically to the root (steps ≥ 0).

    ``fun(t, *args)`` returns (f, f').  An element stops when its step is at
    rounding level or has the wrong sign (rounding noise near the root); the
    others keep going, so the cost is that of the slowest element (a handful
    of steps with the starts used here).
    """
    t = np.array(start, dtype=np.float64)
    active = np.arange(t.size)
    for _ in range(_MAXITER):
        ta = t[active]
        f, fprime = fun(ta, *(a[active] for a in args))
        step = f / fprime
        t[active] = ta - step
        active = active[step > _STEP_TOL * (1.0 + np.abs(ta))]
        if active.size == 0:
            break
    return t


def _pow_m1(u: np.ndarray, v: float) -> np.ndarray:
    """u^(v−1) as u^v/u (+∞ at u = 0).

    v − 1 is rounded when formed in floating point, and that exponent error
    is amplified by |log u|: at u = 1e-300 it costs 4e-14 relative; u^v/u
    is accurate to two ulps.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(u > 0, u ** v / u, np.inf)


class Power(PermissibleFamily):
    """φ(x) = −(x(1 − x))^v, eq. (107) with the sign fixed, v ∈ (0, 1).

    With u = x(1 − x): a_φ = 0, b_φ = 4^−v,
    ∇φ(x) = v(2x − 1)u^(v−1) (domain ℝ),
    φ''(x) = v u^(v−2) (2u + (1 − v)(1 − 2x)²).

    The posterior ∇φ⁻¹(η) has no closed form; it is computed on the small side
    (η ≤ 0, x ≤ 1/2) by Newton's method in a chart where the equation is
    nearly linear, to about 1e-15 relative accuracy, and the large side by
    symmetry, 1 − ∇φ⁻¹(−η) (exact in floating point as 1 − small).

    Parameters
    ----------
    v : float, default 0.5
        Exponent in (0, 1).  v = 0.5 is Matsushita's family up to the scale
        of η; small v flattens the loss, v near 1 approaches the square loss.
    """

    name = "power"
    a = 0.0

    def __init__(self, v: float = 0.5):
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"family 'power' needs a number 0 < v < 1, got v={v!r}") from None
        if not 0.0 < v < 1.0:
            raise ValueError(f"family 'power' needs 0 < v < 1, got v={v!r}")
        self.v = v
        self.b = 4.0 ** -v
        # log|∇φ| at the switch point u = 1/8, where 1 − 4u = (1 − 2x)² = 1/2:
        # the two Newton charts of _small_side meet there.
        self._log_eta_switch = np.log(v) + _LOG_SQRT_HALF + (v - 1.0) * _LOG_EIGHTH

    def params(self) -> dict[str, Any]:
        return {"v": self.v}

    # ---- the generator ------------------------------------------------------
    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ(p) = −(p(1 − p))^v, eq. (107) (sign fixed)."""
        p = _as_float(p)
        return -(p * (1.0 - p)) ** self.v

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ(p) = v(2p − 1)(p(1 − p))^(v−1); ∓∞ at p = 0, 1."""
        p = _as_float(p)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.v * (2.0 * p - 1.0) * _pow_m1(p * (1.0 - p), self.v)

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ''(p) = v u^(v−2)(2u + (1 − v)(1 − 2p)²), u = p(1 − p); +∞ at 0, 1."""
        p = _as_float(p)
        u = p * (1.0 - p)
        with np.errstate(divide="ignore", over="ignore"):
            return (self.v * (_pow_m1(u, self.v) / u)
                    * (2.0 * u + (1.0 - self.v) * (1.0 - 2.0 * p) ** 2))

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ⁻¹(η), accurate on the small side (see :meth:`_small_side`)."""
        eta = _as_float(eta)
        x = self._small_side(np.abs(eta))[0]
        return np.where(eta > 0, 1.0 - x, x)

    # ---- the numerical inverse ------------------------------------------------
    def _small_side(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Solve ∇φ(x) = −t for x ≤ 1/2, given t = |η| ≥ 0.

        Returns ``(x, u, r2)`` with u = x(1 − x) and r2 = 1 − 4u = (1 − 2x)²,
        each accurate to a few ulps (r2 is what the curvature needs near 1/2).

        On the small side t = v √(1 − 4u) u^(v−1).  Its logarithm is solved by
        Newton's method in one of two charts, chosen exactly by comparing t
        with its value at u = 1/8:

        * t large (u < 1/8): s = log u,
          f(s) = log v + ½ log(1 − 4eˢ) + (v − 1)s − log t,
          concave and decreasing.  Since ½ log(1 − 4eˢ) ≤ −2eˢ, the root s₀ of
          c − 2eˢ − (1 − v)s (c = log v − log t), a Lambert-W expression, has
          f(s₀) ≤ 0; from there Newton decreases monotonically to the root.
          (The cruder start (log t − log v)/(v − 1) also works but needs
          hundreds of steps when v is close to 1: f is then nearly flat on
          the left and steep on the right.)
        * t small (u ≥ 1/8): ρ = log(1 − 2x),
          g(ρ) = log v + ρ + (v − 1) log((1 − e^{2ρ})/4) − log t,
          convex and increasing; the start ρ₀ = min(log(t 4^(v−1)/v), log √½)
          has g(ρ₀) ≥ 0, so Newton again converges monotonically from above.

        In both charts the equation is close to linear away from its own
        singularity (u = 1/4 for s, x = 0 for ρ), which the switch keeps out of
        reach, so a handful of steps reach rounding level.  t = 0 gives x = 1/2;
        t = ∞ gives x = 0.
        """
        with np.errstate(under="ignore"):
            # exp() of a very negative chart value underflows to 0: harmless
            return self._small_side_unguarded(_as_float(t))

    def _small_side_unguarded(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        v = self.v
        x = np.full(t.shape, 0.5)
        u = np.full(t.shape, 0.25)
        r2 = np.zeros(t.shape)
        x[np.isnan(t)] = u[np.isnan(t)] = r2[np.isnan(t)] = np.nan
        inf = np.isposinf(t)
        x[inf], u[inf], r2[inf] = 0.0, 0.0, 1.0

        finite = np.isfinite(t) & (t > 0)
        with np.errstate(divide="ignore"):
            log_t = np.where(finite, np.log(np.where(finite, t, 1.0)), 0.0)
        large = finite & (log_t > self._log_eta_switch)
        small = finite & ~large
        log_v = np.log(v)

        if np.any(large):
            c = log_v - log_t[large]

            def f_s(s: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                e = np.exp(s)
                one_m = 1.0 - 4.0 * e          # ≥ 1/2 on this chart: no cancellation
                return c + 0.5 * np.log(one_m) + (v - 1.0) * s, -2.0 * e / one_m + (v - 1.0)

            s0 = np.minimum(self._lambert_start(c), _LOG_EIGHTH)
            s = _newton(f_s, s0, (c,))
            uu = np.exp(s)
            # f(s) carries an absolute rounding error ~eps·|s| (through the
            # (v − 1)s term), i.e. a relative error ~eps·|log u| in u.  One
            # more Newton step on the ratio ∇φ(x)/η, evaluated at the float u
            # with pow (accurate relative to u), restores ~eps/(1 − v).
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                ratio = v * np.sqrt(1.0 - 4.0 * uu) * _pow_m1(uu, v) / t[large]
                polished = uu * np.exp(-np.log(ratio) / f_s(s, c)[1])
            ok = np.isfinite(polished) & (polished > 0) & (polished < 0.125)
            uu = np.where(ok, polished, uu)
            rr = 1.0 - 4.0 * uu
            # x = (1 − √(1 − 4u))/2 without cancellation
            x[large] = 2.0 * uu / (1.0 + np.sqrt(rr))
            u[large], r2[large] = uu, rr

        if np.any(small):
            c = log_v - log_t[small] - (v - 1.0) * np.log(4.0)

            def g_rho(rho: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                e2 = np.exp(2.0 * rho)
                one_m = -np.expm1(2.0 * rho)                  # 1 − r², r = e^ρ
                return (c + rho + (v - 1.0) * np.log(one_m),
                        1.0 + 2.0 * (1.0 - v) * e2 / one_m)

            rho0 = np.minimum(-c, _LOG_SQRT_HALF)
            rho = _newton(g_rho, rho0, (c,))
            r = np.exp(rho)
            x[small] = 0.5 * (1.0 - r)
            u[small] = -0.25 * np.expm1(2.0 * rho)
            r2[small] = r * r
        return x, u, r2

    def _lambert_start(self, c: np.ndarray) -> np.ndarray:
        """The root of c − 2eˢ − (1 − v)s = 0: s = L − W(α e^L) with
        α = 2/(1 − v), L = c/(1 − v).

        For log(α e^L) > 700 (only when v > 0.9996) the argument would
        overflow; W is then replaced by ℓ − log ℓ < W(e^ℓ), which moves the
        start to the right, keeping f(s₀) ≤ 0.
        """
        one_m_v = 1.0 - self.v
        L = c / one_m_v
        log_arg = np.log(2.0 / one_m_v) + L
        big = log_arg > 700.0
        with np.errstate(under="ignore"):
            w = lambertw(np.exp(np.minimum(log_arg, 700.0))).real
        log_arg_big = np.where(big, log_arg, 701.0)
        w = np.where(big, log_arg_big - np.log(log_arg_big), w)
        return L - w

    # ---- closed forms given the posterior ---------------------------------------
    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        """F_φ(z) = D_φ(1‖p)/b_φ with p = ∇φ⁻¹(z), eq. (30), (37).

        With x the small side posterior and u = x(1 − x):
        z ≤ 0 (p = x): b_φ F = u^v + (1 − x)|z|, a sum of positive terms;
        z > 0 (1 − p = x): b_φ F = u^v((1 − v) + x(2v − 1))/(1 − x), which
        avoids the cancellation of −φ(p) − (1 − p)z as F → 0.
        """
        z = _as_float(z)
        x, u, _ = self._small_side(np.abs(z))
        uv = u ** self.v
        neg = uv + (1.0 - x) * np.abs(z)
        pos = uv * ((1.0 - self.v) + x * (2.0 * self.v - 1.0)) / (1.0 - x)
        return np.where(z > 0, pos, neg) / self.b

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """1/φ''(∇φ⁻¹(η)) = u^(2−v) / (v(2u + (1 − v)(1 − 4u))), docs/math.md §3."""
        _, u, r2 = self._small_side(np.abs(_as_float(eta)))
        # u^(2−v) as u·(u/u^v): 2 − v may round, u/u^v does not lose accuracy
        with np.errstate(invalid="ignore"):
            u_2mv = np.where(u > 0, u * (u / u ** self.v), 0.0)
        return u_2mv / (self.v * (2.0 * u + (1.0 - self.v) * r2))
