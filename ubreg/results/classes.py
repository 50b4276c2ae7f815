"""What the results of K-class likelihood fits share (the multinomial logit, U-Boost of
the multinomial loss): classes, counts, the null deviance and the log-likelihood."""
from __future__ import annotations

import abc
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .base import Result

if TYPE_CHECKING:
    from ..design import Response

__all__ = ["ClassProbabilityResult"]


class ClassProbabilityResult(Result):
    """A fit of K class probabilities by the multinomial log-likelihood, with class codes
    ``y`` (0..K−1), prior ``weights``, ``response``, ``dropped`` and a ``deviance``
    −2 Σ w log p̂_y (the saturated log-likelihood of classes is 0)."""

    y: np.ndarray
    weights: np.ndarray
    response: Response
    dropped: pd.Index

    @property
    @abc.abstractmethod
    def deviance(self) -> float:
        """−2 Σ w log p̂_y of the fit."""

    @property
    def classes(self) -> list:
        return list(self.response.levels)

    @property
    def nobs(self) -> float:
        """Rows of positive weight (R counts the rows of ``fitted.values``, zeros too); with
        frequency weights, the rows they stand for (Σ w, as each row repeated w times)."""
        if getattr(self, "weight_kind", "prior") == "freq":
            return float(np.sum(self.weights))
        return float(np.count_nonzero(self.weights > 0))

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)

    @property
    def loglik(self) -> float:
        return -0.5 * self.deviance

    @property
    def null_deviance(self) -> float:
        """−2 Σ w log π̂_y with π̂ the weighted class proportions (intercept only)."""
        codes = self.y.astype(np.intp)
        share = np.bincount(codes, weights=self.weights, minlength=len(self.classes))
        live = self.weights > 0
        return float(-2.0 * np.sum(self.weights[live] * np.log(share[codes[live]]
                                                               / share.sum())))
