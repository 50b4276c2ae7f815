"""Permissible families with closed forms (docs/math.md §2, Table 2 of paper 000)."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, logit, xlogy

from .base import ArrayOrFloat, PermissibleFamily, _as_float, has_proportions

__all__ = ["Gini", "Entropy", "Entropy2", "Matsushita", "Mu"]

_LN2 = np.log(2.0)


def _expit_scalar(a: float) -> float:
    """expit of one float, in ``math`` (the per-row loops' posterior)."""
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


def log1pexp(x: ArrayLike) -> np.ndarray:
    """log(1 + eˣ) without overflow (sklearn's ``log1pexp`` cut-offs)."""
    x = _as_float(x)
    return np.logaddexp(0.0, x)


class Gini(PermissibleFamily):
    """φ(x) = −x(1 − x), eq. (26): the square loss F(z) = (1 − z)².

    With a linear model this is the linear probability model: the loss keeps
    its closed form past the link domain [−1, 1], so the posterior (1 + η)/2
    may leave [0, 1] (docs/math.md §3).  It is clipped only for display, class and
    likelihood.
    """

    name = "gini"
    a = 0.0
    b = 0.25
    link_domain = (-1.0, 1.0)
    extends_past_domain = True

    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        return -p * (1.0 - p)

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return 2.0 * _as_float(p) - 1.0

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return 0.5 * (1.0 + _as_float(eta))

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return np.full_like(_as_float(p), 2.0)

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        p = 0.5 * (1.0 + _as_float(eta))
        return p, 1.0 - p

    def _posterior_extended(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return 0.5 * (1.0 + eta)

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        z = _as_float(z)
        return (1.0 - z) ** 2

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return np.full_like(_as_float(eta), 0.5)

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        p = np.clip(0.5 * (1.0 + _as_float(eta)), 0.0, 1.0)
        return p * (1.0 - p)

    # ---- closed forms --------------------------------------------------------
    impurity_form = ("gini", 1.0)         # −φ(p) = p(1 − p): CART
    posterior_form = ("linear", 1.0)      # p = (1 + η)/2, past [−1, 1] too

    def scalar_posterior(self) -> Callable[[float], float]:
        # the linear probability model: the posterior leaves [0, 1] as Gini's does
        return lambda a: 0.5 * (1.0 + a)


class Entropy(PermissibleFamily):
    """φ(x) = x ln x + (1 − x) ln(1 − x), eq. (29): logistic regression.

    F(z) = log₂(1 + e^−z); b_φ F_φ = ln(1 + e^−z) is the binomial negative
    log-likelihood, so a linear fit is R's ``glm(family = binomial)``.
    """

    name = "entropy"
    a = 0.0
    b = _LN2
    likelihood_deviance = True
    binomial_likelihood = True

    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        return xlogy(p, p) + xlogy(1.0 - p, 1.0 - p)

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return logit(_as_float(p))

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return expit(_as_float(eta))

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore"):          # +inf at p = 0, 1: the limit
            return 1.0 / (p * (1.0 - p))

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        eta = _as_float(eta)
        return expit(eta), expit(-eta)

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        return log1pexp(-_as_float(z)) / _LN2

    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        y, eta = _as_float(y), _as_float(eta)
        if has_proportions(y):
            return self.proportion_loss(y, eta)
        return log1pexp(-(2.0 * y - 1.0) * eta)

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        eta = _as_float(eta)
        return expit(eta) * expit(-eta)

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dℓ/dη = p − y with p = ∇φ⁻¹(η), the side of :meth:`posterior_pair` it uses
        (the same number; the other side is a pass over the rows for nothing)."""
        return self.dphi_inv(eta) - _as_float(y)

    # ---- closed forms --------------------------------------------------------
    impurity_form = ("entropy", 1.0)      # natural-log entropy: C4.5
    posterior_form = ("logistic", 1.0)    # expit(η)

    def scalar_posterior(self) -> Callable[[float], float]:
        return _expit_scalar


class Entropy2(Entropy):
    """Base-2 entropy (GNNB paper, row C): b_φ = 1, ∇φ = log₂(x/(1 − x)).

    The same posteriors as :class:`Entropy` with η scaled by 1/ln 2.
    """

    name = "entropy2"
    b = 1.0
    #: in bits: the deviance is the binomial deviance divided by ln 2, so its differences
    #: are likelihood-ratio statistics only once multiplied by ln 2
    likelihood_deviance = False
    likelihood_scale = _LN2

    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return super().phi(p) / _LN2

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return super().dphi(p) / _LN2

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return expit(_as_float(eta) * _LN2)

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return super().d2phi(p) / _LN2

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        eta = _as_float(eta) * _LN2
        return expit(eta), expit(-eta)

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        return log1pexp(-_as_float(z) * _LN2) / _LN2

    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        y = _as_float(y)
        if has_proportions(y):
            return self.proportion_loss(y, eta)
        return self.F((2.0 * y - 1.0) * _as_float(eta))

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        eta = _as_float(eta) * _LN2
        return _LN2 * expit(eta) * expit(-eta)

    # ---- closed forms --------------------------------------------------------
    impurity_form = ("entropy", 1.0 / _LN2)       # the entropy in bits
    posterior_form = ("logistic", float(_LN2))    # expit(η ln 2)

    def scalar_posterior(self) -> Callable[[float], float]:
        ln2 = math.log(2.0)
        return lambda a: _expit_scalar(a * ln2)


def _sqrt_posterior_pair(h: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(½(1 + h/√(1+h²)), ½(1 − h/√(1+h²))) without cancellation.

    For h ≤ 0, ½(1 − |h|/s) = 1/(2s(s + |h|)) with s = √(1 + h²).
    """
    h = _as_float(h)
    s = np.hypot(1.0, h)
    small = 0.5 / s / (s + np.abs(h))        # two divisions: s² overflows past |h| ~ 1e154
    large = 1.0 - small
    pos = h > 0
    return np.where(pos, large, small), np.where(pos, small, large)


def _sqrt_loss(z: ArrayLike) -> np.ndarray:
    """−z + √(1 + z²) without cancellation for large z."""
    z = _as_float(z)
    s = np.hypot(1.0, z)
    return np.where(z > 0, 1.0 / (s + np.abs(z)), s - z)


class Matsushita(PermissibleFamily):
    """φ(x) = −√(x(1 − x)), eq. (28): F(z) = −z + √(1 + z²).

    The Kearns–Mansour criterion for trees; Matsushita's loss for boosting.
    """

    name = "matsushita"
    a = 0.0
    b = 0.5

    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        return -np.sqrt(p * (1.0 - p))

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (2.0 * p - 1.0) / (2.0 * np.sqrt(p * (1.0 - p)))

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return _sqrt_posterior_pair(eta)[0]

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore"):          # +inf at p = 0, 1: the limit
            return 0.25 * (p * (1.0 - p)) ** -1.5

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        return _sqrt_posterior_pair(eta)

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        return _sqrt_loss(z)

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        # 4 (p(1 − p))^{3/2} with p(1 − p) = 1/(4(1 + η²))
        return 0.5 * np.hypot(1.0, _as_float(eta)) ** -3.0     # no overflow of η²

    # ---- closed forms --------------------------------------------------------
    impurity_form = ("sqrt", 1.0)         # √(p(1 − p)): Kearns–Mansour
    posterior_form = ("sqrt", 1.0)        # _sqrt_posterior_pair(η)

    def scalar_posterior(self) -> Callable[[float], float]:
        # ½(1 + η/√(1 + η²)); past |η| = 1e150, η² overflows and p is 0 or 1
        return lambda a: 0.5 * (1.0 + a / math.sqrt(1.0 + a * a)) if abs(a) < 1e150 else (
            1.0 if a > 0 else 0.0)


class Mu(PermissibleFamily):
    """φ(x) = −(μ + (1 − μ)√(x(1 − x))), eq. (27), μ ∈ (0, 1).

    F(z) = (−z + √((1 − μ)² + z²))/(1 − μ); a_φ = μ, b_φ = (1 − μ)/2.
    """

    name = "mu"

    def __init__(self, mu: float = 0.5):
        mu = float(mu)
        if not 0.0 < mu < 1.0:
            raise ValueError(f"family 'mu' needs 0 < mu < 1, got mu={mu!r}")
        self.mu = mu
        self.a = mu
        self.b = (1.0 - mu) / 2.0

    def params(self) -> dict[str, Any]:
        return {"mu": self.mu}

    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        return -(self.mu + (1.0 - self.mu) * np.sqrt(p * (1.0 - p)))

    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (1.0 - self.mu) * (2.0 * p - 1.0) / (2.0 * np.sqrt(p * (1.0 - p)))

    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return _sqrt_posterior_pair(_as_float(eta) / (1.0 - self.mu))[0]

    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore"):          # +inf at p = 0, 1: the limit
            return 0.25 * (1.0 - self.mu) * (p * (1.0 - p)) ** -1.5

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        return _sqrt_posterior_pair(_as_float(eta) / (1.0 - self.mu))

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        c = 1.0 - self.mu
        return _sqrt_loss(_as_float(z) / c)

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        c = 1.0 - self.mu
        return 0.5 / c * np.hypot(1.0, _as_float(eta) / c) ** -3.0

    # ---- closed forms --------------------------------------------------------
    @property
    def impurity_form(self) -> tuple[str, float] | None:
        """−φ(p) − a_φ = (1 − μ)√(p(1 − p))."""
        return ("sqrt", 1.0 - self.mu)

    @property
    def posterior_form(self) -> tuple[str, float] | None:
        """_sqrt_posterior_pair(η/(1 − μ))."""
        return ("sqrt", 1.0 - self.mu)
