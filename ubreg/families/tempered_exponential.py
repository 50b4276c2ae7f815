"""The tempered exponential loss as a ubreg Family (docs/tempered.md §2.3, §2.6).

ℓ(y, H) = exp_t(−y*H)^{2−t}: what t-AdaBoost minimises (Π Z_j^{2−t}, §2.3);
the exponential loss at t = 1 and the squared hinge [1 − y*H]₊² at t = 0.
Posterior p̂ = exp_t(H)/(exp_t(H) + exp_t(−H)), the inverse of g_t (§2.6).
It is the family of a t-AdaBoost result, so that deviance, log-likelihood and
predictions on the response scale work as for every other method.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .base import ArrayOrFloat, Family
from .tempered_algebra import exp_t, g_t, posterior_g

__all__ = ["TemperedExponential"]


#: exp(700) and 1e100 are finite, and so are their squares' share of a loss
_Z_CAP, _EXP_T_CAP = 700.0, 1e100


def _as_float(x: ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class TemperedExponential(Family):
    """ℓ(y, H) = exp_t(−y*H)^{2−t}, t < 2 (docs/tempered.md §2.3)."""

    name = "tempered-exponential"
    is_permissible = False

    def __init__(self, t: float = 0.5):
        t = float(t)
        if not (np.isfinite(t) and t < 2):
            raise ValueError(f"t must be a finite number < 2, got t={t!r}")
        self.t = t
        if abs(1.0 - t) > 1e-12:
            # the posterior is 0 or 1 from |H| = 1/|1 − t| on (§2.6); for t > 1 the loss
            # is +∞ there (the pole of exp_t)
            self.link_domain = (-1.0 / abs(1.0 - t), 1.0 / abs(1.0 - t))

    def _exp_t_edge(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> np.ndarray:
        """exp_t(−y*H), at most 1e100 (so that its powers stay finite; t = 1: e^700)."""
        z = -(2.0 * _as_float(y) - 1.0) * _as_float(eta)
        with np.errstate(over="ignore"):
            return np.minimum(exp_t(np.minimum(z, _Z_CAP), self.t), _EXP_T_CAP)

    def intercept_only_eta(self, ybar: float) -> float:
        if not 0.0 < ybar < 1.0:
            raise ValueError("the intercept-only optimum is at infinity when y has one class")
        return float(self.link(ybar))

    def params(self) -> dict[str, float]:
        return {"t": self.t}

    def describe(self) -> str:
        return f"tempered exponential (t = {self.t:g})"

    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return posterior_g(_as_float(eta), self.t)

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        eta = _as_float(eta)
        return posterior_g(eta, self.t), posterior_g(-eta, self.t)

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return g_t(_as_float(p), self.t)

    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self._exp_t_edge(y, eta) ** (2.0 - self.t)

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """d/dH exp_t(−y*H)^{2−t} = −(2 − t) y* exp_t(−y*H) (exp_t′ = exp_t^t)."""
        ystar = 2.0 * _as_float(y) - 1.0
        return -(2.0 - self.t) * ystar * self._exp_t_edge(y, eta)

    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """(2 − t) exp_t(−y*H)^t; 0 where exp_t(−y*H) = 0 (t < 1, past the hinge), also
        at t ≤ 0 where 0^t is not 0."""
        e = self._exp_t_edge(y, eta)
        with np.errstate(divide="ignore"):
            return (2.0 - self.t) * np.where(e > 0, e ** self.t, 0.0)

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        p = self.posterior(eta)
        return p * self.gradient(1.0, eta) ** 2 + (1 - p) * self.gradient(0.0, eta) ** 2
