"""The log-cosh family of eq. (35), paper 000: a bounded link.

φ_ζ(x) = −(2/ζ) ln cosh(ζ(x − ½)/2), ζ < 0, shifted so that φ(0) = φ(1) = 0.
Its gradient tanh(|ζ|(x − ½)/2) is bounded, so the link takes values in
(−tanh(|ζ|/4), tanh(|ζ|/4)) only; past that domain the posterior saturates at
0 or 1 and the loss continues affinely (the Legendre conjugate of φ restricted
to [0, 1], as in :meth:`PermissibleFamily.F`).  As ζ → 0⁻ the family tends to
Gini's (scaled), as ζ → −∞ to −min(x, 1 − x), whose loss is the hinge
(Section 3.1 of the paper).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .base import ArrayOrFloat, PermissibleFamily, _as_float

__all__ = ["LogCosh"]

_LN2 = math.log(2.0)
#: |ζ| above which tanh(|ζ|/4) is within ~2e-9 of 1: posteriors near 0 and 1
#: are then no longer resolved by the link η (see the class docstring)
_MAX_ABS_ZETA = 40.0
#: Taylor coefficients 1/j!, j = 17, 16, …, 2, for expm1(x) − x (Horner order)
_EXPM1MX_COEF = [1.0 / math.factorial(j) for j in range(17, 1, -1)]


def _logcosh(y: ArrayOrFloat) -> np.ndarray:
    """ln cosh(y), accurate for every y: log1p(2 sinh²(y/2)) below |y| = 1
    (no cancellation near 0), |y| − ln 2 + log1p(e^(−2|y|)) above (no
    overflow)."""
    y = np.abs(_as_float(y))
    near = y < 1.0
    yn = np.where(near, y, 0.0)
    yf = np.where(near, 1.0, y)
    with np.errstate(under="ignore"):
        far = yf - _LN2 + np.log1p(np.exp(-2.0 * yf))
    return np.where(near, np.log1p(2.0 * np.sinh(0.5 * yn) ** 2), far)


def _expm1mx(x: ArrayOrFloat) -> np.ndarray:
    """eˣ − 1 − x ≥ 0 to full relative accuracy: Taylor series for |x| < 1/2,
    expm1(x) − x (cancellation at most a factor 5) above."""
    x = _as_float(x)
    near = np.abs(x) < 0.5
    xn = np.where(near, x, 0.0)
    poly = np.zeros_like(xn)
    for c in _EXPM1MX_COEF:
        poly = poly * xn + c
    xf = np.where(near, 0.0, x)
    return np.where(near, xn * xn * poly, np.expm1(xf) - xf)


class LogCosh(PermissibleFamily):
    """φ(x) = −(2/ζ) ln cosh(ζ(x − ½)/2) + c, eq. (35), with c such that
    φ(0) = φ(1) = 0.

    With k = −ζ/2 > 0 and T = tanh(k/2) = tanh(|ζ|/4) (docs/math.md §2):
    ∇φ(x) = −tanh(ζ(x − ½)/2) = tanh(k(x − ½)),
    ∇φ⁻¹(η) = ½ + (2/ζ) artanh(−η) = ½ + artanh(η)/k on (−T, T),
    φ''(x) = k sech²(k(x − ½)), a_φ = 0, b_φ = −(2/ζ) ln cosh(ζ/4).

    ``link_domain`` is (−T, T): past it the posterior is 0 or 1 and F_φ is
    affine (0 above T, −z/b_φ below −T), eq. (30) with φ restricted to [0, 1].

    Parameters
    ----------
    zeta : float, default -4
        ζ in [−40, 0).  The default −4 gives the link domain
        (−tanh 1, tanh 1) ≈ (−0.76, 0.76) and a curvature φ'' that varies by a
        factor cosh²(1) ≈ 2.4 over [0, 1], so the family is visibly between
        Gini's (ζ → 0⁻, constant φ'') and the hinge (ζ → −∞).  Beyond
        |ζ| = 40 the link domain is within 2e-9 of (−1, 1) and posteriors
        near 0 and 1 cannot be resolved from a double-precision η (the
        posterior moves by ε cosh²(|ζ|/4)/k per ulp of η), so larger |ζ| are
        rejected.

    Notes
    -----
    Near the edges of the link domain the posterior is ill-conditioned in η
    (its derivative is cosh²(|ζ|/4)/k there): it is accurate to that many ulps
    in absolute terms, not relative to a posterior near 0.
    """

    name = "logcosh"
    a = 0.0

    def __init__(self, zeta: float = -4.0):
        try:
            zeta = float(zeta)
        except (TypeError, ValueError):
            raise ValueError(
                f"family 'logcosh' needs a number zeta < 0, got zeta={zeta!r}") from None
        if not -_MAX_ABS_ZETA <= zeta < 0.0:
            raise ValueError(
                f"family 'logcosh' needs {-_MAX_ABS_ZETA:g} <= zeta < 0, got zeta={zeta!r} "
                "(zeta > 0 makes phi concave; |zeta| > 40 makes the link domain "
                "numerically indistinguishable from (-1, 1))")
        self.zeta = zeta
        self._k = -zeta / 2.0
        self._T = math.tanh(self._k / 2.0)
        self._t_quarter = math.tanh(self._k / 4.0)     # |η| where the posterior is ¼
        self.b = float(_logcosh(self._k / 2.0)) / self._k
        self.link_domain = (-self._T, self._T)

    def params(self) -> dict[str, Any]:
        return {"zeta": self.zeta}

    # ---- the generator --------------------------------------------------------
    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ(p) = (1/k)[ln cosh(k(p − ½)) − ln cosh(k/2)], eq. (35) shifted.

        With e = k·min(p, 1 − p): φ = (1/k) ln(cosh(k/2 − e)/cosh(k/2)) and
        cosh(k/2 − e)/cosh(k/2) − 1 = −sinh(e) sinh((k − e)/2)/(cosh(k/2) cosh(e/2)),
        a product without cancellation, so φ is accurate relative to its size
        near p = 0, 1 (where it vanishes).  When the ratio falls below ½ the
        difference of log-coshes is used instead (no cancellation there).
        """
        p = _as_float(p)
        k = self._k
        e = k * np.minimum(p, 1.0 - p)
        arg = -np.sinh(e) * np.sinh(0.5 * (k - e)) / (math.cosh(0.5 * k) * np.cosh(0.5 * e))
        near_edge = arg > -0.5
        with np.errstate(invalid="ignore"):
            by_ratio = np.log1p(np.where(near_edge, arg, 0.0))
        by_difference = _logcosh(0.5 * k - e) - _logcosh(0.5 * k)
        return np.where(near_edge, by_ratio, by_difference) / k

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ(p) = −tanh(ζ(p − ½)/2) = tanh(k(p − ½)); ±T at p = 0, 1."""
        return np.tanh(self._k * (_as_float(p) - 0.5))

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ''(p) = k sech²(k(p − ½)) > 0."""
        return self._k / np.cosh(self._k * (_as_float(p) - 0.5)) ** 2

    def _small_side(self, t: np.ndarray) -> np.ndarray:
        """∇φ⁻¹(−t) = ½ − artanh(t)/k for 0 ≤ t ≤ T (t is clipped to T).

        Below t = tanh(k/4) (posterior ≥ ¼) that formula is accurate as it
        stands; above, it cancels and artanh((T − t)/(1 − Tt))/k is used
        (artanh a − artanh b = artanh((a − b)/(1 − ab))), which is exactly 0
        at t = T.  The second form must not be used near t = 0: for large k,
        artanh(T) is ill-conditioned in the rounded T and would move the
        posterior at η = 0 away from ½.
        """
        T, k = self._T, self._k
        t = np.minimum(t, T)
        mid = t <= self._t_quarter
        near_half = 0.5 - np.arctanh(np.where(mid, t, 0.0)) / k
        tail = np.arctanh((T - t) / (1.0 - T * t)) / k
        return np.where(mid, near_half, tail)

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ⁻¹(η) = ½ + artanh(η)/k, saturating at 0 and 1 outside (−T, T)."""
        eta = _as_float(eta)
        x = self._small_side(np.abs(eta))
        return np.where(eta > 0, 1.0 - x, x)

    # ---- closed forms ------------------------------------------------------------
    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        """F_φ(z) = (−φ(q) − q z)/b_φ with q = 1 − ∇φ⁻¹(z), on the link domain
        (eq. 30, 37: b_φ F_φ(z) = D_φ(1‖p)); affine outside
        (:meth:`PermissibleFamily.F`).

        −φ(q) − qz is the value of the concave conjugate problem, stationary
        in q at the solution, so an error in q costs only its square.  With
        e = kq, A = (1 − T)/2, B = (1 + T)/2 it equals
        −(1/k) ln(A e^{e(1+z)} + B e^{−e(1−z)})
        = −(1/k) log1p(A E(e(1 + z)) + B E(−e(1 − z)) − e(T − z)),
        E(x) = eˣ − 1 − x ≥ 0.  The log1p form keeps relative accuracy as F
        decreases to 0 at z = T (its two parts differ by a factor about 2,
        where −φ(q) − qz loses all digits); the logaddexp form is used when the
        log1p argument is below −½ (F large).
        """
        z = _as_float(z)
        T, k = self._T, self._k
        inside = (z >= -T) & (z <= T)
        zc = np.clip(z, -T, T)
        small = self._small_side(np.abs(zc))
        e = k * np.where(zc > 0, small, 1.0 - small)       # e = k(1 − p)
        # A = (1 − T)/2 = 1/(1 + eᵏ) from k, not from the rounded T: for large
        # k the relative error of 1 − T would otherwise shift every F value
        A, B = 1.0 / (1.0 + math.exp(k)), 1.0 / (1.0 + math.exp(-k))
        s = A * _expm1mx(e * (1.0 + zc)) + B * _expm1mx(-e * (1.0 - zc)) - e * (T - zc)
        near_zero = s > -0.5
        by_log1p = -np.log1p(np.where(near_zero, s, 0.0))
        by_logaddexp = -np.logaddexp(-math.log1p(math.exp(k)) + e * (1.0 + zc),
                                     -math.log1p(math.exp(-k)) - e * (1.0 - zc))
        val = np.where(near_zero, by_log1p, by_logaddexp) / (k * self.b)
        if np.all(inside):
            return val
        return np.where(inside, val, super().F(z))

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """1/φ''(∇φ⁻¹(η)) = 1/(k(1 − η²)) on the closed link domain, 0 past its ends,
        where the posterior is saturated at 0 or 1 and the loss is affine
        (:meth:`PermissibleFamily.hessian_eta`)."""
        eta = _as_float(eta)
        inside = np.abs(eta) <= self._T          # the ends: the limit from inside
        e = np.where(inside, eta, 0.0)
        return np.where(inside, 1.0 / (self._k * (1.0 - e) * (1.0 + e)), 0.0)
