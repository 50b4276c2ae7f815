"""Class probabilities of a baseline-category (multinomial) logit."""
from __future__ import annotations

import numpy as np

__all__ = ["baseline_log_probabilities", "baseline_probabilities", "log_softmax"]


def log_softmax(scores: np.ndarray) -> np.ndarray:
    """(n, K) log p_k = s_k − log Σ_l exp s_l of scores s, by log-sum-exp about each row's
    largest score (finite at any score; scipy's ``logsumexp`` gives the same numbers with
    several times the passes over the rows)."""
    z = scores - scores.max(axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


def baseline_log_probabilities(eta: np.ndarray) -> np.ndarray:
    """(n, K) log p_k from the (n, K−1) linear predictors of classes 1..K−1 against
    class 0 (η_0 = 0): η_k − log(1 + Σ_l exp η_l) (:func:`log_softmax`)."""
    full = np.empty((eta.shape[0], eta.shape[1] + 1))
    full[:, 0] = 0.0
    full[:, 1:] = eta
    return log_softmax(full)


def baseline_probabilities(eta: np.ndarray) -> np.ndarray:
    """(n, K) probabilities p_k = exp(log p_k) (:func:`baseline_log_probabilities`)."""
    return np.exp(baseline_log_probabilities(eta))
