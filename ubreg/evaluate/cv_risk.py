"""``ubreg.cv_risk``: the cross-validated risk path of a fitted U-Boost model.

Choosing the number of boosting iterations mstop by K-fold cross-validation
refits the model K times; that is evaluation, not part of the result (results
hold numbers and never refit).  :func:`cv_risk` takes any result that declares
``has_cv_path`` (:class:`~ubreg.results.base.Capabilities`) and returns a
:class:`CVRisk`, which :func:`ubreg.plots.cv_risk` draws.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..fitters.boost.uboost import boost_u
from ..learners.ensembles import staged_F, staged_scores
from ..methods.uboost import boost_multiclass, boosting_weights
from ..numerics.folds import stratified_folds
from ..numerics.softmax import log_softmax
from ..results.base import capabilities_of
from ..results.boost import UBoostResult, weighted_mean
from ..results.boost_multiclass import MulticlassBoostResult

__all__ = ["CVRisk", "cv_risk"]


@dataclass
class CVRisk:
    """K-fold cross-validated U-risk of U-Boost for mstop = 0..M.

    Attributes
    ----------
    risk : DataFrame (M + 1) × K
        Held-out risk Σ w U(y*F)/Σ w of each fold after m iterations.
    mean, se : Series
        Mean over folds and its standard error sd/√K (the ±1 SE band).
    mstop : int
        The m of least mean risk (0 included).
    mstop_1se : int
        The least m whose mean risk is within one SE of the minimum.
    folds : int
        K.
    seed : object
        The seed of the fold assignment.
    """

    risk: pd.DataFrame
    mean: pd.Series
    se: pd.Series
    mstop: int
    mstop_1se: int
    folds: int
    seed: object

    def frame(self) -> pd.DataFrame:
        """mean, se, lower = mean − se, upper = mean + se by mstop."""
        return pd.DataFrame({"mean": self.mean, "se": self.se, "lower": self.mean - self.se,
                             "upper": self.mean + self.se})


def cv_risk(result: UBoostResult | MulticlassBoostResult, folds: int = 10,
            seed: int | None = None) -> CVRisk:
    """Choose mstop by stratified K-fold cross-validation of the U-risk.

    Every fold refits the same model (same U, learner, ν, bins) on the other
    folds for ``result.mstop`` iterations, from the training design the result
    keeps, and records its held-out risk Σ w U(y*F)/Σ w after 0..mstop
    iterations (0 = the constant F₀).  On K > 2 classes the risk is the
    multinomial log-loss Σ w (−log p̂_y)/Σ w.  ``result`` is not modified.

    Parameters
    ----------
    result : UBoostResult or MulticlassBoostResult
        A fitted model whose capabilities include ``has_cv_path``
        (``method="uboost"``, on two classes or more).
    folds : int
        K, at least 2.
    seed : int or None
        Seed of the stratified fold assignment.

    Returns
    -------
    CVRisk
        The held-out risk of every fold, its mean and standard error by mstop,
        and the chosen mstop (least mean risk) and 1-SE mstop.

    Examples
    --------
    >>> m = ubreg.fit("diabetes ~ glucose + mass", data, method="uboost")  # doctest: +SKIP
    >>> path = ubreg.cv_risk(m, folds=5, seed=1)                             # doctest: +SKIP
    >>> ubreg.plots.cv_risk(path)                                            # doctest: +SKIP
    """
    # each class's refit is here (results never refit); another class that declares
    # has_cv_path has none yet
    if not capabilities_of(result).has_cv_path \
            or not isinstance(result, (MulticlassBoostResult, UBoostResult)):
        raise TypeError(f"cv_risk cross-validates the risk path of a U-Boost fit "
                        f"(method='uboost'); a {type(result).__name__} cannot be refitted "
                        "on folds")
    fold = stratified_folds(result.y, folds, seed)
    if isinstance(result, MulticlassBoostResult):
        cols = {k + 1: _held_out_log_loss(result, fold != k, fold == k) for k in range(folds)}
    else:
        cols = {k + 1: _held_out_risk(result, fold != k, fold == k) for k in range(folds)}
    risk = pd.DataFrame(cols, index=pd.RangeIndex(result.mstop + 1, name="mstop"))
    risk.columns.name = "fold"
    mean = risk.mean(axis=1).rename("mean")
    se = (risk.std(axis=1, ddof=1) / np.sqrt(folds)).rename("se")
    best = int(mean.to_numpy().argmin())
    within = mean.to_numpy() <= mean.iloc[best] + se.iloc[best]
    return CVRisk(risk=risk, mean=mean, se=se, mstop=best,
                  mstop_1se=int(np.flatnonzero(within)[0]), folds=folds, seed=seed)


def _held_out_risk(result: UBoostResult, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """U-risk Σ w U(y*F)/Σ w on the training rows ``test`` after 0..mstop iterations of
    ``result`` refitted on the rows ``train`` as :func:`ubreg.fit` fits them: the same U
    and options, the weights as U-Boost takes them (prior weights relative to their
    mean on ``train``)."""
    w = boosting_weights(result.weights[train], result.weight_kind)
    fit = boost_u(result.X[train], result.y[train], w, result.U,
                  term_slices=result.design.term_slices,
                  has_intercept=result.design.has_intercept, **result.options)
    F = staged_F(fit, result.X[test])
    ystar = 2.0 * result.y[test] - 1.0
    return np.asarray(weighted_mean(result.weights[test], result.U.U(ystar[:, None] * F)))


def _held_out_log_loss(result: MulticlassBoostResult, train: np.ndarray,
                       test: np.ndarray) -> np.ndarray:
    """Log-loss Σ w (−log p̂_y)/Σ w on the rows ``test`` after 0..mstop rounds of the
    K-class ``result`` refitted on the rows ``train`` as :func:`ubreg.fit` fits them."""
    codes = result.y.astype(np.intp)
    w = boosting_weights(result.weights[train], result.weight_kind)
    fit = boost_multiclass(result.X[train], codes[train], len(result.classes), w,
                           result.options)
    rows, y = np.arange(int(test.sum())), codes[test]
    return np.array([weighted_mean(result.weights[test], -log_softmax(F)[rows, y])
                     for F in staged_scores(fit, result.X[test])])
