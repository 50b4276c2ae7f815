"""The result of ``method="uboost"`` on K > 2 classes: K Newton trees a round on the
multinomial loss (:mod:`ubreg.fitters.boost.multinomial`).

F_k(x) = F0_k + ν Σ_m f_mk(x) and p_k(x) = exp(F_k) / Σ_l exp(F_l).  ``predict``:
``response`` a DataFrame of the K probabilities, ``link`` the K scores F_k, ``class`` the
most probable level (ties: the first).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..design import as_frame
from ..learners.ensembles import staged_scores, truncated
from ..numerics.softmax import log_softmax
from .base import Capabilities, Provenance, check_predict_type, class_series
from .classes import ClassProbabilityResult

if TYPE_CHECKING:
    from ..design import Design, Response
    from ..families import Family
    from ..summary.boost_multiclass import MulticlassBoostSummary

__all__ = ["MulticlassBoostResult"]


class MulticlassBoostResult(ClassProbabilityResult):
    """U-Boost of the multinomial loss (see the module notes).

    Attributes
    ----------
    classes : list
        The response's levels, the columns of ``predict``.
    mstop, nu, learner, depth : the rounds run, the step length and the trees
    risk_path : Series
        Training log-loss Σ w (−log p̂_y) / Σ w after 0..mstop rounds.
    deviance : float
        −2 Σ w log p̂_y (the saturated log-likelihood is 0).
    y, weights : class codes 0..K−1 and prior weights of the training rows
    X : the training design (ubreg.cv_risk refits on its rows; with_mstop recomputes F)
    """

    method = "uboost"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_risk_path=True,
                                has_cv_path=True, is_multiclass=True)

    def __init__(self, *, fit: Any, options: dict, X: np.ndarray, formula: str, family: Family,
                 call: str,
                 design: Design, response: Response, y: np.ndarray, weights: np.ndarray,
                 index: pd.Index, n_input: int, dropped: pd.Index, weight_kind: str = "prior",
                 provenance: Provenance | None = None) -> None:
        self.fit_info, self.options = fit, dict(options)
        self.X = X                       # the training design, for ubreg.cv_risk and with_mstop
        self.formula, self.family, self.call = formula, family, call
        self.design, self.response = design, response
        self.y, self.weights, self.index = np.asarray(y, dtype=float), weights, index
        self.n_input, self.dropped = n_input, dropped
        self.weight_kind, self.provenance = weight_kind, provenance
        self.learner, self.nu = options["learner"], fit.nu
        self.mstop = self.iterations = len(fit.learners)
        self.risk_path = pd.Series(fit.risk_path, index=pd.RangeIndex(self.mstop + 1,
                                                                      name="mstop"), name="risk")
        self.ubreg_version = __version__

    @property
    def deviance(self) -> float:
        codes = self.y.astype(np.intp)
        logp = log_softmax(self.fit_info.F)[np.arange(codes.size), codes]
        live = self.weights > 0
        return float(-2.0 * np.sum(self.weights[live] * logp[live]))

    @property
    def df_model(self) -> float:
        """Leaf values fitted (not degrees of freedom: the trees are chosen adaptively)."""
        return float(len(self.classes) + sum(t.leaves.size for trees in self.fit_info.learners
                                             for t in trees))

    @property
    def training_error(self) -> float:
        """Σ w [most probable class ≠ y] / Σ w over the training rows."""
        cls = np.argmax(self.fit_info.F, axis=1)
        return float(np.sum(self.weights * (cls != self.y)) / np.sum(self.weights))

    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """See the module notes; rows of ``newdata`` with a missing predictor get NA."""
        check_predict_type(type)
        if newdata is None:
            return self.on_scores(self.fit_info.F, np.zeros(len(self.index), dtype=bool),
                                  self.index, type)
        newdata = as_frame(newdata, "newdata")
        X, na = self.design.transform(newdata)
        return self.on_scores(self.scores(np.asarray(X)), na, newdata.index, type)

    def on_scores(self, F: np.ndarray, na: np.ndarray, index: pd.Index,
                  type: str) -> pd.Series | pd.DataFrame:
        """The prediction of ``type`` from the scores F of the rows ``~na`` (NA elsewhere)."""
        n, K = len(index), len(self.classes)
        if type == "class":
            codes = np.full(n, -1, dtype=np.int64)
            codes[~na] = np.argmax(F, axis=1)
            return class_series(self.classes, codes, index)
        full = np.full((n, K), np.nan)
        full[~na] = F if type == "link" else np.exp(log_softmax(F))
        return pd.DataFrame(full, index=index, columns=self.classes)

    def scores(self, X: np.ndarray) -> np.ndarray:
        """(n, K) scores F(x) of design rows X: F0 plus ν times every round's tree of each
        class."""
        *_, F = staged_scores(self.fit_info, X)
        return F

    def with_mstop(self, mstop: int) -> MulticlassBoostResult:
        """A new result keeping the first ``mstop`` rounds (this one is unchanged)."""
        if isinstance(mstop, bool) or not isinstance(mstop, (int, np.integer)) \
                or not 0 <= mstop <= self.mstop:
            raise ValueError(f"mstop must be an integer in [0, {self.mstop}], got {mstop!r}")
        return MulticlassBoostResult(
            fit=truncated(self.fit_info, int(mstop), self.X),
            options={**self.options, "mstop": int(mstop)}, X=self.X, formula=self.formula,
            family=self.family, call=self.call, design=self.design, response=self.response,
            y=self.y, weights=self.weights, index=self.index, n_input=self.n_input,
            dropped=self.dropped, weight_kind=self.weight_kind)

    def print_lines(self) -> list[str]:
        from ..summary.boost_multiclass import print_lines
        return print_lines(self)

    def summary(self) -> MulticlassBoostSummary:
        from ..summary.boost_multiclass import MulticlassBoostSummary
        return MulticlassBoostSummary(self)
