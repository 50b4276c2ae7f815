"""The tempered family of paper 004: φ = −L_t, the Bayes risk of the tempered loss.

docs/tempered.md §3.1-3.2, docs/math.md §7.  With s = 1 − t and c = 2 − t = 1 + s:

* partial losses ℓ₁(u) = ((1 − u)/M_s(u, 1 − u))^c, ℓ₋₁(u) = ℓ₁(1 − u);
* Bayes risk L_t(u) = u ℓ₁(u) + (1 − u) ℓ₋₁(u) = 2u(1 − u)/M_s(u, 1 − u);
* canonical link η_t(p) = −L_t′(p) = ℓ₋₁(p) − ℓ₁(p) (docs/tempered.md §3.2).

t = 0 gives L_0 = 4u(1 − u) (4 × Gini's −φ), t = 1 gives L_1 = 2√(u(1 − u))
(2 × Matsushita's −φ); t → −∞ tends to 2 min(u, 1 − u), t → 2 to 1 on (0, 1).

Everything is evaluated on the *small side* x = min(p, 1 − p), y = 1 − x, in
the log-odds ζ = ln(x/y) ≤ 0, through

    G(ζ) = ln(M_s(x, y)/y) = (1/s) ln((1 + e^{sζ})/2)      (ζ/2 at s = 0),

which is written with log1p/expm1 for small |sζ| (stable as t → 1) and with
logaddexp otherwise (no overflow).  Then ℓ₁(x) = e^{−cG}, ℓ₋₁(x) = e^{c(ζ − G)},
η_t(x) = e^{−cG} expm1(cζ) and φ''(x) = c e^{−cG}(e^{cζ}(1 − σ) + σ)/(xy),
σ = expit(sζ).

The ends, for t ∈ (1, 2)
------------------------
For t > 1 (s < 0) the power mean M_s(u, 1 − u) vanishes like u·2^{−1/s} as
u → 0, so L_t does **not** vanish at the ends: L_t(0⁺) = 2^{c/s} =
2^{−(2−t)/(t−1)} (0.002 at t = 1.1, 0.5 at t = 1.5, → 1 as t → 2).  A
permissible φ must satisfy φ(0) = φ(1) = −a_φ with φ continuous, so this
family takes a_φ = L_t(0⁺) and b_φ = L_t(½) − a_φ = 1 − a_φ for t > 1: the
loss D_φ(y‖p) is the tempered partial loss minus its infimum, ℓ_y(p) − a_φ,
which vanishes for a certain, correct prediction.  For t ≤ 1, a_φ = 0 and
b_φ = 1 exactly as docs/tempered.md states (there L_t(0) = 0).  Trees and
posteriors do not depend on a_φ.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .base import ArrayOrFloat, PermissibleFamily, _as_float
from .closed import _expit_scalar
from .tempered_roots import RootTable, arguments, finish, root_table, start, transcendentals

__all__ = ["Tempered"]

_LN2 = math.log(2.0)
#: below this |1 − t| the family is t = 1 exactly (docs/tempered.md §1)
_T_ONE = 1e-12
#: ζ = ln(x/(1 − x)) below which x underflows to 0 (expit(−746) = 0)
_ZETA_MIN = -746.0


def half_root(tv: np.ndarray) -> np.ndarray:
    """w ∈ [0, 1] with w³ − (2 − w)³ = tv, the link of t = ½ in w = 2 expit(ζ/2) (ζ the
    small-side log-odds; docs/tempered.md §3.2), for tv ∈ [−8, 0]; 0 below −8, NaN kept.

    With d = (tv + 8)/2 the cubic is w³ − 3w² + 6w = d, increasing on [0, 1] (slope
    3((w − 1)² + 1) ∈ [3, 6]).  The start d/(6 − d/2) is exact at both ends and within
    1.7 % inside; two Halley steps (cubic convergence: 6e−7, then rounding) leave the
    root within 2 ulps, with no transcendental function (``TEMPERED_VALUES`` of the
    U-Boost kernels repeats these operations, so its numbers are these to the bit).
    """
    d = np.maximum(0.5 * (tv + 8.0), 0.0)     # tv + 8 is exact near −8 (Sterbenz)
    a = d / (6.0 - 0.5 * d)
    for _ in range(2):
        g = ((a - 3.0) * a + 6.0) * a - d
        g1 = 3.0 * ((a - 2.0) * a + 2.0)
        g2 = 6.0 * (a - 1.0)
        a = a - 2.0 * g * g1 / (2.0 * g1 * g1 - g * g2)
    return a


def _log_odds_small(x: np.ndarray) -> np.ndarray:
    """ζ = ln(x/(1 − x)) for x ∈ [0, ½]; −∞ at x = 0."""
    with np.errstate(divide="ignore"):
        return np.log(x) - np.log1p(-x)


class Tempered(PermissibleFamily):
    """φ_t(u) = −L_t(u) = −2u(1 − u)/M_{1−t}(u, 1 − u), t < 2 (paper 004; docs/tempered.md §3).

    Parameters
    ----------
    t : float, default 0.5
        Temperature, t < 2 (finite).  The default 0.5 is t-AdaBoost's
        (``method="tboost"``); its link is bounded (|η| < 8).  t = 0 is
        4 × Gini's φ (square loss), t = 1 is 2 × Matsushita's φ; |1 − t| < 1e−12
        is treated as t = 1.

    Notes
    -----
    * a_φ = 0, b_φ = L_t(½) = 1 for t ≤ 1; for 1 < t < 2, a_φ = L_t(0⁺) =
      2^{−(2−t)/(t−1)} and b_φ = 1 − a_φ (see the module docstring).
    * Link: the canonical η_t = ∇φ = −L_t′ (docs/tempered.md §3.2).  For t < 1 it is
      bounded, |η_t| < 2^{(2−t)/(1−t)} (8 at t = ½, 4 at t = 0); past that
      domain the posterior saturates at 0 or 1 and the loss is affine.  For
      t ≥ 1 it is unbounded.
    * Posterior ∇φ⁻¹: closed forms at t = 0, ½ and 1; at any other t a start from a
      per-t table and one Halley step (:mod:`.tempered_roots`, docs/tempered.md §3.2).
    * Loss: b_φF_φ(v) = max(−v, 0) + R(x), R(x) = ℓ₋₁(x) − a_φ ≥ 0 with x the
      small-side posterior of |v| (from ℓ₁ = ℓ₋₁ − η); every term is
      cancellation-free, including R for t > 1, written as
      a_φ·expm1(−(c/s) log1p(e^{−sζ})).

    Examples
    --------
    >>> fam = Tempered(0.0)
    >>> float(fam.phi(0.25)), float(fam.dphi(0.75))
    (-0.75, 2.0)
    """

    name = "tempered"

    def __init__(self, t: float = 0.5):
        try:
            t = float(t)
        except (TypeError, ValueError):
            raise ValueError(f"family 'tempered' needs a number t < 2, got t={t!r}") from None
        if not (math.isfinite(t) and t < 2.0):
            raise ValueError(f"family 'tempered' needs a finite t < 2, got t={t!r} "
                             "(t = 2 gives a loss that is proper but not strictly proper)")
        self.t = t
        s = 1.0 - t
        self._s = 0.0 if abs(s) < _T_ONE else s
        self._c = 1.0 + self._s                           # 2 − t
        if self._s > 0:
            # bounded link: |η| < 2^{c/s}; overflow (t just below 1) means unbounded
            log_hi = self._c / self._s * _LN2
            hi = math.exp(log_hi) if log_hi < 709.0 else math.inf
            self.link_domain = (-hi, hi)
            self.a = 0.0
        else:
            self.link_domain = (-np.inf, np.inf)
            # L_t(0⁺) = 2^{c/s} for s < 0 (0 at s = 0)
            self.a = 0.0 if self._s == 0 else 2.0 ** (self._c / self._s)
        self.b = 1.0 - self.a

    def params(self) -> dict[str, Any]:
        return {"t": self.t}

    # ---- small-side building blocks -----------------------------------------
    def _G(self, zeta: np.ndarray) -> np.ndarray:
        """G(ζ) = ln(M_s(x, y)/y) = (1/s) ln((1 + e^{sζ})/2), ζ ≤ 0."""
        s = self._s
        if s == 0.0:
            return 0.5 * zeta
        sz = s * zeta
        near = np.abs(sz) < 1.0
        with np.errstate(invalid="ignore", over="ignore"):
            g_near = np.log1p(0.5 * np.expm1(np.where(near, sz, 0.0))) / s
            g_far = (np.logaddexp(0.0, np.where(near, 1.0, sz)) - _LN2) / s
        return np.where(near, g_near, g_far)

    def _H(self, zeta: np.ndarray) -> np.ndarray:
        """ζ − G(ζ) = ln(x/M_s(x, y)); −∞ at ζ = −∞ for s ≥ 0.

        For s < 0 it is written −log1p(expm1(−sζ)/2)/s (expm1(−sζ) ∈ (−1, 0]),
        which avoids ζ − G, a difference of two large numbers as x → 0.
        """
        s = self._s
        if s == 0.0:
            return 0.5 * zeta
        if s < 0:
            with np.errstate(under="ignore"):
                return -np.log1p(0.5 * np.expm1(-s * zeta)) / s
        with np.errstate(invalid="ignore"):
            h = zeta - self._G(zeta)
        return np.where(np.isneginf(zeta), -np.inf, h)

    def _eta_small(self, zeta: np.ndarray) -> np.ndarray:
        """η_t at the small-side log-odds ζ ≤ 0: e^{−cG} expm1(cζ) ≤ 0."""
        c = self._c
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.exp(-c * self._G(zeta)) * np.expm1(c * zeta)
        lo = self.link_domain[0]
        return np.where(np.isneginf(zeta), lo, out)

    def _R(self, zeta: np.ndarray) -> np.ndarray:
        """ℓ₋₁(x) − a_φ ≥ 0 at the small-side log-odds ζ (the loss of the
        correct side).

        For s < 0, ℓ₋₁ = e^{cH} = a_φ e^{w} with w = −(c/s) log1p(e^{−sζ}) ≥ 0,
        so ℓ₋₁ − a_φ = e^{cH}(−expm1(−w)): a product, no cancellation, and
        finite when a_φ underflows (t just above 1).
        """
        s, c = self._s, self._c
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            ell = np.exp(c * self._H(zeta))
            if s < 0:
                w = -(c / s) * np.log1p(np.exp(-s * zeta))
                return ell * -np.expm1(-w)
            return ell

    def _small_posterior(self, target: np.ndarray) -> np.ndarray:
        """x ∈ [0, ½] with η_t(x) = target, for target ≤ 0 (vectorised)."""
        target = _as_float(target)
        shape = target.shape
        tv = np.minimum(target.ravel(), 0.0)
        x = np.full(tv.shape, 0.5)
        x[np.isnan(tv)] = np.nan
        if self._s == 0.0:
            # η_1 = (2x − 1)/√(x(1 − x)): x = 2/((√(4 + η²) + |η|)√(4 + η²))
            r = np.hypot(2.0, tv)
            with np.errstate(over="ignore", under="ignore"):
                x = np.where(np.isnan(tv), np.nan, 2.0 / ((r - tv) * r))
            return x.reshape(shape)
        if self.t == 0.0:
            x = np.where(np.isnan(tv), np.nan, np.maximum(0.125 * (4.0 + tv), 0.0))
            return x.reshape(shape)
        if self.t == 0.5:
            # x/(1 − x) = (w/(2 − w))^{1/s} = (w/(2 − w))², w the root of a cubic
            a = np.where(tv <= self.link_domain[0], 0.0, half_root(tv))   # saturated
            b = 2.0 - a
            with np.errstate(under="ignore"):
                aa = a * a
                return (aa / (aa + b * b)).reshape(shape)
        return self._table_small(tv)[0].reshape(shape)

    def root_table(self) -> RootTable | None:
        """The start table of :mod:`.tempered_roots` (one a temperature, made on first use),
        or None where a closed form (t ∈ {0, ½, 1}) gives the posterior."""
        if "_tab" in self.__dict__:                 # every U-Boost round asks: kept
            return self.__dict__["_tab"]
        s, tab = self._s, None
        if not (self.t in (0.0, 0.5) or s == 0.0):
            tv_min = max(self.link_domain[0], float(self._eta_small(np.array(_ZETA_MIN))))
            tab = root_table(self.t, self.link_domain[1] if s > 0 else self.a, tv_min)
        self._tab = tab
        return tab

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_tab", None)                     # the table is remade on first use
        return state

    def _table_small(self, tv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, ℓ₋₁(x) − a_φ, 1/φ''(x)) at the targets tv ≤ 0 from the table start and one
        Halley step (:mod:`.tempered_roots`; docs/tempered.md §3.2); saturated rows (tv at
        or below the link domain's end, or x below e^{−746}) get (0, 0, 0), NaN keeps x NaN.
        ``TEMPERED_VALUES`` of the U-Boost kernels repeats these operations."""
        tab = self.root_table()
        assert tab is not None
        rho = start(tab, tv)
        e1, L, V, X, Em = (np.empty_like(rho) for _ in range(5))
        arguments(tab, rho, e1, X, Em)
        transcendentals(tab, e1, L, V, X, Em)
        x, r, h = finish(tab, tv, e1, L, V, X, Em)
        sat = ~(tv > tab.tv_min)
        return (np.where(sat, np.where(np.isnan(tv), np.nan, 0.0), x),
                np.where(sat, 0.0, r), np.where(sat, 0.0, h))

    # ---- the generator --------------------------------------------------------
    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ(p) = −L_t(p) = −2x(1 − x)/M_s(x, 1 − x) (docs/tempered.md §3.1); −a_φ at 0, 1."""
        p = _as_float(p)
        x = np.minimum(p, 1.0 - p)
        if self.t == 0.0:
            return -4.0 * (p * (1.0 - p))
        if self._s == 0.0:
            return -2.0 * np.sqrt(p * (1.0 - p))
        with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
            zeta = _log_odds_small(x)
            val = -2.0 * np.exp(np.log(x) - self._G(zeta))
        return np.where(x > 0, val, np.where(np.isnan(p), np.nan, -self.a))

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ(p) = η_t(p) = (p^{2−t} − (1 − p)^{2−t})/M_s(p, 1 − p)^{2−t}
        (docs/tempered.md §3.2); the ends of ``link_domain`` at p = 0, 1."""
        p = _as_float(p)
        if self.t == 0.0:
            return 4.0 * (2.0 * p - 1.0)
        x = np.minimum(p, 1.0 - p)
        if self._s == 0.0:
            with np.errstate(divide="ignore"):
                small = (2.0 * x - 1.0) / np.sqrt(x * (1.0 - x))
        else:
            small = self._eta_small(_log_odds_small(x))
        return np.where(p > 0.5, -small, small)

    def _log_d2phi(self, p: np.ndarray) -> np.ndarray:
        """ln φ''(p) = ln c − cG + ln(e^{cζ}(1 − σ) + σ) − ln x − ln(1 − x),
        σ = expit(sζ), at x = min(p, 1 − p) ≥ 1e−300."""
        x = np.clip(np.minimum(p, 1.0 - p), 1e-300, 0.5)
        s, c = self._s, self._c
        zeta = _log_odds_small(x)
        log_sig = -np.logaddexp(0.0, -s * zeta)
        log_1m_sig = -np.logaddexp(0.0, s * zeta)
        return (math.log(c) - c * self._G(zeta)
                + np.logaddexp(c * zeta + log_1m_sig, log_sig)
                - np.log(x) - np.log1p(-x))

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ''(p) = c e^{−cG}(e^{cζ}(1 − σ) + σ)/(x(1 − x)), σ = expit(sζ), in logs;
        the value at x = 1e−300 for p ∈ {0, 1}."""
        p = _as_float(p)
        if self.t == 0.0:
            return np.full_like(p, 8.0)
        with np.errstate(over="ignore", under="ignore"):
            return np.exp(self._log_d2phi(p))

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """1/φ''(∇φ⁻¹(η)) (docs/math.md §3); 0 for a saturated row (posterior exactly 0
        or 1: past a bounded link's domain the loss is affine,
        :meth:`PermissibleFamily.hessian_eta`).

        For t < 0, φ'' vanishes at p ∈ {0, 1} and the curvature in η is
        unbounded as η reaches the ends of the link domain from inside; it is
        capped at e^{700} (no overflow).
        """
        eta = _as_float(eta)
        p, q = self.posterior_pair(self._clip_eta(eta))
        return self._curvature(np.minimum(p, q), eta)

    def _curvature(self, small: np.ndarray, eta: np.ndarray) -> np.ndarray:
        """1/φ'' at the small posterior ``small`` of η (capped at e^{700}); 0 where a row
        is saturated, the limit from inside at an end of the link domain."""
        if self.t == 0.0:
            h = np.full_like(eta, 0.125)
        else:
            with np.errstate(over="ignore", under="ignore"):
                h = np.exp(np.minimum(-self._log_d2phi(small), 700.0))
        return np.where((small > 0.0) | self._at_domain_end(eta), h, 0.0)

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ⁻¹(η): the small-side root for η ≤ 0, 1 − root(−η) above."""
        eta = _as_float(eta)
        x = self._small_posterior(-np.abs(eta))
        return np.where(eta > 0, 1.0 - x, x)

    # ---- the loss --------------------------------------------------------------
    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        """F_φ(z) = (max(−z, 0) + R(x))/b_φ with x the small posterior of |z|
        (eq. 30, 37; see the class Notes).  Affine past a bounded link domain."""
        z = _as_float(z)
        x = self._small_posterior(-np.abs(z))
        with np.errstate(divide="ignore"):
            r = self._R(_log_odds_small(x))
        r = np.where(x > 0, r, 0.0)
        return (np.maximum(-z, 0.0) + r) / self.b

    def class_one_values(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ℓ(1, z), ℓ'(1, z), ℓ''(1, z)): ``loss``, ``gradient`` and ``hessian`` at y = 1,
        the same numbers from one root search instead of three.

        The three share the small posterior of −|z| (``F``, ``posterior_pair`` and
        ``hessian_eta`` each solve for it; their clipping of −|z| to the link domain
        changes no root, every target at or below its lower end giving 0), and the
        search is most of a boosting iteration's time.  At t = ½ there is no search
        (:meth:`_half_values`), nor where the family has a root table
        (:meth:`_table_small`: x, ℓ₋₁ − a_φ and 1/φ'' from the same Halley step).
        """
        z = _as_float(z)
        if self.t == 0.5:
            return self._half_values(z)
        if self.root_table() is not None:
            x, r, h = self._table_small(-np.abs(z).ravel())
            x, r, h = (v.reshape(z.shape) for v in (x, r, h))
            grad = np.where(z > 0, (1.0 - x) - 1.0, x - 1.0)
            # saturated: the curvature's limit at the domain's end, 0 past it (as below)
            h = np.where(x > 0.0, h, np.where(self._at_domain_end(z), self.end_curvature(), 0.0))
            return np.maximum(-z, 0.0) + r, grad, h
        x = self._small_posterior(-np.abs(z))
        with np.errstate(divide="ignore"):
            r = self._R(_log_odds_small(x))
        r = np.where(x > 0, r, 0.0)
        loss = self.b * ((np.maximum(-z, 0.0) + r) / self.b)
        small = self._clip_prob(x)                  # posterior_pair's small side
        large = 1.0 - small
        pos = z > 0
        p, q = np.where(pos, large, small), np.where(pos, small, large)
        return loss, p - 1.0, self._curvature(np.minimum(p, q), z) + 0.0

    def _half_values(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`class_one_values` at t = ½ in closed form: with w = :func:`half_root`
        (−|z|) and v = 2 − w, the small posterior is w²/(w² + v²), ℓ₋₁ = w³ (a_φ = 0,
        b_φ = 1) and 1/φ'' = dx/dη = 4wv/(3(w² + v²)³) (the derivatives of x and
        η = w³ − v³ in w; docs/tempered.md §3.2).  ``TEMPERED_VALUES`` of the U-Boost
        kernels performs these operations in this order (the same numbers to the bit).
        """
        tv = -np.abs(z)
        a = np.where(tv <= self.link_domain[0], 0.0, half_root(tv))    # saturated
        b = 2.0 - a
        with np.errstate(under="ignore", invalid="ignore"):
            aa = a * a
            ss = aa + b * b
            x = aa / ss
            loss = np.maximum(-z, 0.0) + aa * a
            h = 4.0 * (a * b) / (3.0 * (ss * ss * ss))
        grad = np.where(z > 0, (1.0 - x) - 1.0, x - 1.0)
        # the curvature of a saturated row is 0; at the domain's end, its limit
        # (hessian_eta's value there)
        h = np.where(x > 0.0, h, np.where(self._at_domain_end(z), self.end_curvature(), 0.0))
        return loss, grad, h

    def end_curvature(self) -> float:
        """:meth:`hessian_eta` at the upper end of the link domain (the limit from inside),
        computed once (U-Boost's passes read it every round)."""
        if "_h_end" not in self.__dict__:
            self._h_end = float(np.asarray(self.hessian_eta(np.array([self.link_domain[1]])))[0])
        return self._h_end

    def partial_losses(self, p: ArrayOrFloat) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ₁(p), ℓ₋₁(p)), the tempered partial losses of docs/tempered.md §3.1
        (without the shift a_φ)."""
        p = _as_float(p)
        x = np.minimum(p, 1.0 - p)
        zeta = _log_odds_small(x)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            big = np.exp(-self._c * self._G(zeta))          # ℓ at the wrong side
        small = self._R(zeta) + self.a
        small = np.where(x > 0, small, self.a)
        big = np.where(x > 0, big, np.where(np.isfinite(self.link_domain[0]),
                                            -self.link_domain[0], np.inf))
        low = p <= 0.5
        return np.where(low, big, small), np.where(low, small, big)

    def scalar_posterior(self) -> Callable[[float], float]:
        """∇φ⁻¹ for one float (the per-row loops): at t = 0 and t = 1 (the closed
        forms of :meth:`_small_posterior`) the generic way; otherwise Brent's root of the
        small-side link η_t(ζ) = target
        in the log-odds ζ ∈ [−746, 0] — the equation of :meth:`_small_posterior`
        in scalar math, about 50 µs a call instead of the vectorised solver's
        overhead."""
        if self.t == 0.0 or self._s == 0.0:        # _s = 0: |1 − t| < 1e-12 is t = 1
            return super().scalar_posterior()
        from scipy.optimize import brentq  # only when a row loop asks for it

        s, c = self._s, self._c
        lo = self.link_domain[0]

        def G(z: float) -> float:
            sz = s * z
            if abs(sz) < 1.0:
                return math.log1p(0.5 * math.expm1(sz)) / s
            return (max(sz, 0.0) + math.log1p(math.exp(-abs(sz))) - _LN2) / s

        def eta_small(z: float) -> float:
            e = -c * G(z)
            return -math.inf if e > 709.0 else math.exp(e) * math.expm1(c * z)

        eta_min = eta_small(_ZETA_MIN)

        def post(a: float) -> float:
            if a == 0.0:
                return 0.5
            target = -abs(a)
            if target <= max(lo, eta_min):
                x = 0.0
            else:
                z = brentq(lambda v: eta_small(v) - target, _ZETA_MIN, 0.0, xtol=1e-13,
                           rtol=4e-15)
                x = _expit_scalar(z)
            return 1.0 - x if a > 0 else x
        return post

    def describe(self) -> str:
        return f"tempered (t = {self.t:g})"
