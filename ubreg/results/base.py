"""The result protocol shared by every method.

A result knows its formula, family, response coding and design, the training
link values η and weights, and how to compute η for new data
(:meth:`Result._link_for`).  Everything else — predictions on every scale,
residuals, deviance, log-likelihood, information criteria — is derived here,
lazily, and identically for every method.
"""
from __future__ import annotations

import abc
from functools import cached_property

import numpy as np
import pandas as pd

from .._pickling import warn_if_other_version
from .._version import __version__
from ..design import Design, Response, as_frame
from ..families.base import Family
from .inference import bernoulli_loglik, deviance, null_eta

__all__ = ["Result"]

_PREDICT_TYPES = ("link", "response", "class")


class Result(abc.ABC):
    """A fitted ubreg model.

    Attributes
    ----------
    formula, family, method : the model as specified
    nobs : float
        The number of observations.  With prior weights (``weights=``, R's
        meaning) the rows used that have a non-zero weight (R's
        ``nobs.glm``); with frequency weights (``freq_weights=``) Σ w, a
        weight of 2 counting a row twice.  The row count when unweighted.
    weight_kind : {"prior", "freq"}
        What the weights mean (:func:`ubreg.fit`).
    n_dropped : int
        Rows dropped for missing values.
    """

    method: str = "?"
    #: results pickled before weight kinds existed had frequency weights
    weight_kind: str = "freq"

    def __init__(self, *, formula: str, family: Family, design: Design, response: Response,
                 y: np.ndarray, weights: np.ndarray, eta: np.ndarray, index: pd.Index,
                 n_input: int, dropped: pd.Index, call: str, na_factors=(),
                 weight_kind: str = "prior"):
        self.formula = formula
        self.family = family
        self.design = design
        self.response = response
        self.y = y
        self.weights = weights
        self.eta = eta
        self.index = index
        self.n_input = n_input
        self.dropped = dropped
        self.call = call
        self.na_factors = list(na_factors)
        if weight_kind not in ("prior", "freq"):
            raise ValueError(f"weight_kind must be 'prior' or 'freq', got {weight_kind!r}")
        self.weight_kind = weight_kind
        self.ubreg_version = __version__

    # ---- what each method provides --------------------------------------
    @abc.abstractmethod
    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """η for the complete rows of ``newdata`` and the mask of NA rows."""

    @property
    @abc.abstractmethod
    def df_model(self) -> float:
        """Number of estimated parameters (for AIC, BIC and df)."""

    @abc.abstractmethod
    def summary(self):
        """A summary object with text, HTML and DataFrame forms."""

    converged: bool = True
    iterations: int = 0

    # ---- data-derived quantities ----------------------------------------
    @property
    def nobs(self) -> float:
        if self.weight_kind == "freq":
            return float(self.weights.sum())
        return float(np.count_nonzero(self.weights))

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)

    @property
    def has_intercept(self) -> bool:
        return self.design.has_intercept

    @property
    def fitted_values(self) -> pd.Series:
        """Posterior p̂ᵢ of the training rows (unclipped for the LPM)."""
        return pd.Series(self.family.posterior(self.eta), index=self.index, name="fitted")

    @cached_property
    def deviance(self) -> float:
        """2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) (docs/math.md §3)."""
        return deviance(self.family, self.y, self.eta, self.weights)

    @cached_property
    def null_deviance(self) -> float:
        eta0 = null_eta(self.family, self.y, self.weights, self.has_intercept)
        return deviance(self.family, self.y, np.full_like(self.y, eta0), self.weights)

    @property
    def df_null(self) -> float:
        return self.nobs - (1.0 if self.has_intercept else 0.0)

    @property
    def df_resid(self) -> float:
        return self.nobs - self.df_model

    @cached_property
    def loglik(self) -> float:
        """Bernoulli log-likelihood of p̂ (the maximum only for entropy).

        Prior weights: R's binomial()$aic, Σ_{wᵢ>0} log dbinom(round(wᵢyᵢ),
        round(wᵢ), p̂ᵢ) (integer weights: Σ wᵢ[yᵢ ln p̂ᵢ + (1 − yᵢ) ln(1 − p̂ᵢ)]);
        frequency weights: Σ wᵢ[yᵢ ln p̂ᵢ + (1 − yᵢ) ln(1 − p̂ᵢ)].
        """
        return bernoulli_loglik(self.family, self.y, self.eta, self.weights, self.weight_kind)

    @property
    def aic(self) -> float:
        return -2.0 * self.loglik + 2.0 * self.df_model

    @property
    def bic(self) -> float:
        """−2 logLik + log(n) × parameters.  n is R's for prior weights (``BIC(glm)``
        takes logLik's nobs, the rows of the fit *including* those of weight 0), Σ w
        for frequency weights (statsmodels' ``bic_llf``)."""
        n = self.nobs if self.weight_kind == "freq" else float(self.n_rows)
        return -2.0 * self.loglik + np.log(n) * self.df_model

    @property
    def n_rows(self) -> int:
        """Rows the fit used (complete rows), those of weight 0 included."""
        return len(self.weights)

    # ---- prediction -------------------------------------------------------
    def predict(self, newdata=None, type: str = "response") -> pd.Series:
        """Predictions on the link, response or class scale.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows to predict; by default the training rows.  New data go
            through the stored design; rows with NA give NaN, aligned with
            ``newdata.index``.
        type : {"response", "link", "class"}
            ``response`` is p̂ = ∇φ⁻¹(η) (for the LPM it may leave [0, 1]);
            ``class`` is the response label with p̂ ≥ 1/2 (η ≥ 0).
        """
        if type not in _PREDICT_TYPES:
            raise ValueError(f"type must be one of {_PREDICT_TYPES}, got {type!r}")
        if newdata is None:
            eta, index, na = self.eta, self.index, np.zeros(len(self.eta), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            eta_ok, na = self._link_for(newdata)
            index = newdata.index
            eta = np.full(len(newdata), np.nan)
            eta[~na] = eta_ok
        return self._on_scale(eta, na, index, type)

    def _on_scale(self, eta, na, index, type):
        if type == "link":
            return pd.Series(eta, index=index, name="link")
        if type == "response":
            p = np.full(len(eta), np.nan)
            p[~na] = self.family.posterior(eta[~na])
            return pd.Series(p, index=index, name="response")
        labels = np.empty(len(eta), dtype=object)
        labels[~na] = self.response.labels((eta[~na] >= 0).astype(int))
        labels[na] = None
        return pd.Series(labels, index=index, name="class")

    def residuals(self, type: str = "deviance") -> pd.Series:
        """Residuals of the training rows, as R's ``residuals.glm``.

        ``deviance``: sign(y − p̂)·√(2 w D_φ(y‖p̂)); ``pearson``:
        √w (y − p̂)/√(p̂(1 − p̂)); ``response``: y − p̂.
        """
        p = self.family.posterior(self.eta)
        if type == "response":
            r = self.y - p
        elif type == "deviance":
            r = np.sign(self.y - p) * np.sqrt(2.0 * self.weights
                                              * self.family.divergence(self.y, self.eta))
        elif type == "pearson":
            var = self.family.score_variance(self.eta) if self.family.is_permissible else p * (1 - p)
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.sqrt(self.weights) * (self.y - p) / np.sqrt(var)
        else:
            raise ValueError(f"type must be 'deviance', 'pearson' or 'response', got {type!r}")
        return pd.Series(r, index=self.index, name=f"{type} residual")

    # ---- pickling ---------------------------------------------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        for key in ("deviance", "null_deviance", "loglik"):
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        warn_if_other_version(state.get("ubreg_version"))
        self.__dict__.update(state)

    def __repr__(self):
        return (f"<ubreg {type(self).__name__}: {self.formula!r}, family={self.family.describe()}, "
                f"method={self.method!r}, n={self.nobs:g}>")

