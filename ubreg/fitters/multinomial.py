"""Multinomial logistic regression: the entropy family on a response of K > 2 classes.

With two classes, ULS with the entropy family is logistic regression (docs/math.md §4);
its K-class form is the multinomial logit of R's ``nnet::multinom``: class 0 (the first
level) is the baseline, and class k = 1..K−1 has the linear predictor η_k = x β_k, so that

    p_k(x) = exp(η_k) / (1 + Σ_{l≥1} exp(η_l)),      p_0(x) = 1 / (1 + Σ_{l≥1} exp(η_l)).

The fit maximises Σ_i w_i log p_{y_i}(x_i) by Newton's method on the (K−1)p coefficients,
halving a step that does not lower the deviance −2 Σ w log p.  At the optimum the
information matrix I = Σ_i w_i (x_i x_iᵀ) ⊗ (diag(p_i) − p_i p_iᵀ) (over classes 1..K−1)
is inverted for the covariance.  The papers give no K-class construction for other
families; the method refuses them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ..errors import DataError
from ..numerics.softmax import baseline_log_probabilities, baseline_probabilities

__all__ = ["MultinomialFit", "fit_multinomial"]


@dataclass(frozen=True)
class MultinomialFit:
    """What :func:`fit_multinomial` returns.

    ``coef`` is (K−1, p): row k − 1 holds β_k against the first class.  ``vcov`` is the
    ((K−1)p)² inverse information, ordered class by class (β_1 then β_2 ...).
    """

    coef: np.ndarray
    vcov: np.ndarray
    deviance: float
    iterations: int
    converged: bool
    probabilities: np.ndarray       # (n, K) fitted p_k(x_i)


def class_probabilities(X: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """(n, K) probabilities of the K classes at ``coef`` ((K−1, p))."""
    return baseline_probabilities(X @ coef.T)


def _deviance(X, Y, w, coef):
    return float(-2.0 * np.sum(w * np.sum(Y * baseline_log_probabilities(X @ coef.T), axis=1)))


def _information(X, w, P):
    """I = Σ w_i (x_i x_iᵀ) ⊗ (diag(p_i) − p_i p_iᵀ) over classes 1..K−1, in blocks."""
    K1, p = P.shape[1] - 1, X.shape[1]
    info = np.empty((K1 * p, K1 * p))
    for a in range(K1):
        for b in range(a, K1):
            r = w * P[:, a + 1] * ((a == b) - P[:, b + 1])
            block = (X * r[:, None]).T @ X
            info[a * p:(a + 1) * p, b * p:(b + 1) * p] = block
            info[b * p:(b + 1) * p, a * p:(a + 1) * p] = block.T
    return info


def fit_multinomial(X: np.ndarray, y: np.ndarray, K: int, w: np.ndarray, *,
                    tol: float = 1e-10, maxiter: int = 100) -> MultinomialFit:
    """Maximum-likelihood multinomial logit (see the module notes).

    Parameters
    ----------
    X : (n, p) design (full column rank on the rows of positive weight: the method
        leaves aliased columns out first)
    y : class codes 0..K−1
    K : number of classes (≥ 3)
    w : prior weights ≥ 0 (case weights, as ``multinom(weights=)``)
    tol : the fit stops when a Newton step changes the deviance by less than
        ``tol`` × (|deviance| + 0.1), glm's rule, after at least one step
    maxiter : at most this many Newton steps
    """
    n, p = X.shape
    Y = np.zeros((n, K))
    Y[np.arange(n), y.astype(np.intp)] = 1.0
    coef = np.zeros((K - 1, p))
    dev = _deviance(X, Y, w, coef)
    converged = False
    iterations = 0
    for step_number in range(1, maxiter + 1):
        iterations = step_number
        P = class_probabilities(X, coef)
        grad = ((Y[:, 1:] - P[:, 1:]) * w[:, None]).T @ X          # (K−1, p)
        try:
            step = cho_solve(cho_factor(_information(X, w, P)), grad.ravel())
        except LinAlgError:
            raise DataError("the multinomial information matrix is singular: a class is "
                            "separated from the others, or a column is constant within the "
                            "rows of positive weight") from None
        step = step.reshape(K - 1, p)
        new_dev, scale = _deviance(X, Y, w, coef + step), 1.0
        while not new_dev <= dev and scale > 1e-10:                  # step halving
            scale /= 2.0
            new_dev = _deviance(X, Y, w, coef + scale * step)
        change = abs(dev - new_dev)
        coef, dev = coef + scale * step, new_dev
        if change <= tol * (abs(dev) + 0.1):
            converged = True
            break
    P = class_probabilities(X, coef)
    vcov = np.linalg.inv(_information(X, w, P))
    return MultinomialFit(coef=coef, vcov=vcov, deviance=dev, iterations=iterations,
                          converged=converged, probabilities=P)
