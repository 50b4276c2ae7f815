"""Class probabilities of a baseline-category (multinomial) logit."""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

__all__ = ["baseline_log_probabilities", "baseline_probabilities"]


def baseline_log_probabilities(eta: np.ndarray) -> np.ndarray:
    """(n, K) log p_k from the (n, K−1) linear predictors of classes 1..K−1 against
    class 0 (η_0 = 0): η_k − log(1 + Σ_l exp η_l), by log-sum-exp (finite at any η)."""
    full = np.column_stack([np.zeros(eta.shape[0]), eta])
    return full - logsumexp(full, axis=1, keepdims=True)


def baseline_probabilities(eta: np.ndarray) -> np.ndarray:
    """(n, K) probabilities p_k = exp(log p_k) (:func:`baseline_log_probabilities`)."""
    return np.exp(baseline_log_probabilities(eta))
