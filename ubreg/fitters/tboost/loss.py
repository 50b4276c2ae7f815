"""The tempered exponential loss as a ubreg Family (docs/tempered.md §2.3, §2.6).

ℓ(y, H) = exp_t(−y*H)^{2−t}: what t-AdaBoost minimises (Π Z_j^{2−t}, §2.3);
the exponential loss at t = 1 and the squared hinge [1 − y*H]₊² at t = 0.
Posterior p̂ = exp_t(H)/(exp_t(H) + exp_t(−H)), the inverse of g_t (§2.6).
It is the family of a t-AdaBoost result, so that deviance, log-likelihood and
predictions on the response scale work as for every other method.
"""
from __future__ import annotations

import numpy as np

from ...families.base import Family
from .algebra import exp_t, g_t, posterior_g

__all__ = ["TemperedExponential"]


def _as_float(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


class TemperedExponential(Family):
    """ℓ(y, H) = exp_t(−y*H)^{2−t}, t < 2 (docs/tempered.md §2.3)."""

    name = "tempered-exponential"
    is_permissible = False

    def __init__(self, t: float):
        t = float(t)
        if not (np.isfinite(t) and t < 2):
            raise ValueError(f"t must be a finite number < 2, got t={t!r}")
        self.t = t

    def params(self):
        return {"t": self.t}

    def describe(self):
        return f"tempered exponential (t = {self.t:g})"

    def posterior(self, eta):
        return posterior_g(_as_float(eta), self.t)

    def posterior_pair(self, eta):
        eta = _as_float(eta)
        return posterior_g(eta, self.t), posterior_g(-eta, self.t)

    def link(self, p):
        return g_t(_as_float(p), self.t)

    def loss(self, y, eta):
        ystar = 2.0 * _as_float(y) - 1.0
        with np.errstate(over="ignore"):
            return exp_t(-ystar * _as_float(eta), self.t) ** (2.0 - self.t)

    def gradient(self, y, eta):
        """d/dH exp_t(−y*H)^{2−t} = −(2 − t) y* exp_t(−y*H) (exp_t′ = exp_t^t)."""
        ystar = 2.0 * _as_float(y) - 1.0
        return -(2.0 - self.t) * ystar * exp_t(-ystar * _as_float(eta), self.t)

    def hessian(self, y, eta):
        """(2 − t) exp_t(−y*H)^t."""
        ystar = 2.0 * _as_float(y) - 1.0
        with np.errstate(divide="ignore", over="ignore"):
            return (2.0 - self.t) * exp_t(-ystar * _as_float(eta), self.t) ** self.t

    def score_variance(self, eta):
        p = self.posterior(eta)
        return p * self.gradient(1.0, eta) ** 2 + (1 - p) * self.gradient(0.0, eta) ** 2
