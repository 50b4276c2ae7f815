"""The result of ``method="uls"`` with the entropy family on K > 2 classes: a multinomial
logit, as R's ``nnet::multinom`` (baseline: the first level).

``coef`` and ``std_errors`` are (K−1) × p tables (a row per class after the first, a column
per design term, R's names); ``vcov`` is indexed by ``"class:term"``.  The standard errors
are the square roots of the diagonal of the inverse information matrix at the optimum
(statsmodels' ``MNLogit``; ``multinom`` differentiates its Hessian numerically).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from .._version import __version__
from ..design import as_frame
from ..numerics.softmax import baseline_probabilities
from .base import Capabilities, Provenance, check_predict_type, class_series
from .classes import ClassProbabilityResult

if TYPE_CHECKING:
    from ..design import Design, Response
    from ..families import Family
    from ..summary.multinomial import MultinomialSummary

__all__ = ["MultinomialResult"]


class MultinomialResult(ClassProbabilityResult):
    """A multinomial logit (see the module notes).

    Attributes
    ----------
    formula, family, method, call : the model as specified
    classes : list
        The response's levels; the first is the baseline.
    coef, std_errors : DataFrame (K−1, p)
    vcov : DataFrame ((K−1)p, (K−1)p), index ``"class:term"``
    deviance : float
        −2 Σ w log p̂_{y} (the saturated log-likelihood is 0); ``null_deviance`` that of
        the class proportions alone.
    converged, iterations : Newton's method
    y, weights : class codes 0..K−1 and prior weights of the training rows
    """

    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_likelihood=True,
                                is_multiclass=True)

    def __init__(self, *, fit: Any, aliased: np.ndarray, formula: str, family: Family,
                 call: str, design: Design,
                 response: Response, y: np.ndarray, weights: np.ndarray, index: pd.Index,
                 n_input: int, dropped: pd.Index, weight_kind: str = "prior",
                 provenance: Provenance | None = None) -> None:
        self.method = "uls"
        self.formula, self.family, self.call = formula, family, call
        self.design, self.response = design, response
        self.y, self.weights, self.index = np.asarray(y, dtype=float), weights, index
        self.n_input, self.dropped = n_input, dropped
        self.weight_kind, self.provenance = weight_kind, provenance
        self.converged, self.iterations = bool(fit.converged), int(fit.iterations)
        self._deviance = float(fit.deviance)
        self.probabilities = fit.probabilities
        terms = list(design.column_names)
        rows = [str(c) for c in self.classes[1:]]
        #: design columns not estimated (linear combinations of earlier ones: NA, as glm)
        self.aliased = np.asarray(aliased, dtype=bool)
        kept = np.flatnonzero(~self.aliased)
        coef = np.full((len(rows), len(terms)), np.nan)
        coef[:, kept] = fit.coef
        self.coef = pd.DataFrame(coef, index=rows, columns=terms)
        at = (np.arange(len(rows))[:, None] * len(terms) + kept[None, :]).ravel()
        vcov = np.full((coef.size, coef.size), np.nan)
        vcov[np.ix_(at, at)] = fit.vcov
        labels = [f"{r}:{t}" for r in rows for t in terms]
        self.vcov = pd.DataFrame(vcov, index=labels, columns=labels)
        se = np.sqrt(np.clip(np.diag(vcov), 0.0, None)).reshape(coef.shape)
        self.std_errors = pd.DataFrame(se, index=rows, columns=terms)
        self.ubreg_version = __version__

    # ---- numbers -------------------------------------------------------------
    @property
    def deviance(self) -> float:
        return self._deviance

    @property
    def df_model(self) -> int:
        """(K − 1) times the estimated columns: R's ``edf``."""
        return int(self.coef.shape[0] * np.count_nonzero(~self.aliased))

    @property
    def df_resid(self) -> float:
        """Rows of positive weight less the coefficients (multinom reports none)."""
        return float(self.nobs - self.df_model)

    @property
    def aic(self) -> float:
        """deviance + 2 edf, as ``multinom``'s AIC."""
        return self.deviance + 2.0 * self.df_model

    @property
    def bic(self) -> float:
        return self.deviance + np.log(self.nobs) * self.df_model

    def confint(self, level: float = 0.95) -> pd.DataFrame:
        """Wald intervals, estimate ± z σ, one row per ``"class:term"``."""
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        z = ndtri(0.5 + level / 2.0)
        est = self.coef.to_numpy().ravel()
        se = self.std_errors.to_numpy().ravel()
        a = (1 - level) / 2
        return pd.DataFrame({f"{100 * a:g} %": est - z * se,
                             f"{100 * (1 - a):g} %": est + z * se}, index=self.vcov.index)

    # ---- prediction ----------------------------------------------------------
    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """``response``: a DataFrame of the K class probabilities (columns: the levels);
        ``link``: the K log-odds against the first level (0 for it); ``class``: the most probable
        level (ties: the first), a categorical Series.  Rows of ``newdata`` with a missing
        predictor get NA."""
        check_predict_type(type)
        if newdata is None:
            P, index = self.probabilities, self.index
            na = np.zeros(len(index), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            X, na = self.design.transform(newdata)
            # an aliased column's coefficient is NA: it contributes nothing (predict.glm)
            beta = np.nan_to_num(self.coef.to_numpy(), nan=0.0)
            P, index = baseline_probabilities(np.asarray(X) @ beta.T), newdata.index
        n, K = len(index), len(self.classes)
        if type == "class":
            codes = np.full(n, -1, dtype=np.int64)
            codes[~na] = np.argmax(P, axis=1)
            return class_series(self.classes, codes, index)
        if type == "link":
            full = np.full((n, K), np.nan)
            with np.errstate(divide="ignore"):
                full[~na] = np.log(P) - np.log(P[:, :1])
            return pd.DataFrame(full, index=index, columns=self.classes)
        full = np.full((n, K), np.nan)
        full[~na] = P
        return pd.DataFrame(full, index=index, columns=self.classes)

    def print_lines(self) -> list[str]:
        """``print(multinom(...))``'s lines (:mod:`ubreg.summary.multinomial`)."""
        from ..summary.multinomial import print_lines
        return print_lines(self)

    def summary(self) -> MultinomialSummary:
        from ..summary.multinomial import MultinomialSummary
        return MultinomialSummary(self)
