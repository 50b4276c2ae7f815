"""AdaBoost's exponential loss exp(−y*η): strictly convex, not balanced."""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from .base import ArrayOrFloat, Family, PermissibleFamily, _as_float

__all__ = ["Exponential"]

# exp(709) is the largest finite double; past it the loss is +inf, not NaN
_EXP_CAP = 700.0


class Exponential(Family):
    """ψ(z) = exp(−z) of AdaBoost (docs/math.md §4).

    It is strictly convex with domain ℝ but not a balanced convex loss:
    F(0) = 1 holds, yet no permissible φ gives it with the canonical link.
    Its population minimiser is half the log-odds (Friedman, Hastie and
    Tibshirani 2000), so the posterior is expit(2η).  Example weights of ULS
    are AdaBoost's unnormalised exp(−y*η).
    """

    name = "exponential"
    is_permissible = False
    divergence_formula = "2 Σ wᵢ exp(−y*ᵢηᵢ)"
    adaboost_closed_form = True

    @property
    def criterion_family(self) -> PermissibleFamily:
        """Matsushita's family: its criterion is exactly the exponential loss after
        solving (70) on each leaf (Kearns–Mansour; real AdaBoost)."""
        from .closed import Matsushita
        return Matsushita()

    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return expit(2.0 * _as_float(eta))

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        eta = _as_float(eta)
        return expit(2.0 * eta), expit(-2.0 * eta)

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _as_float(p)
        with np.errstate(divide="ignore"):
            return 0.5 * (np.log(p) - np.log1p(-p))

    def intercept_only_eta(self, ybar: float) -> float:
        if not 0.0 < ybar < 1.0:
            raise ValueError("the intercept-only optimum is at infinity when y has one class")
        return float(self.link(ybar))

    @staticmethod
    def _exp_neg_edge(y: ArrayOrFloat, eta: ArrayOrFloat) -> np.ndarray:
        z = (2.0 * _as_float(y) - 1.0) * _as_float(eta)
        return np.exp(np.minimum(-z, _EXP_CAP))

    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self._exp_neg_edge(y, eta)

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        ystar = 2.0 * _as_float(y) - 1.0
        return -ystar * self._exp_neg_edge(y, eta)

    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self._exp_neg_edge(y, eta)

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        # E[exp(−2y*η)] under p = expit(2η) equals 1 for every η
        return np.ones_like(_as_float(eta))
