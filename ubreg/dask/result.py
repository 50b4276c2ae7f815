"""The result of a linear ULS fit on a dask DataFrame.

A :class:`~ubreg.results.linear.LinearResult` whose statistics come from the
partition-wise sums of the fit (no per-row arrays on the client): n, the
dropped-row count, deviance, null deviance and log-likelihood are stored
numbers; the per-row quantities (``y``, ``weights``, ``eta``,
``fitted_values``, ``residuals``) are lazy dask Series over the complete
training rows; ``predict`` of a dask frame is a lazy dask Series (as for every
result: :func:`ubreg.results.dask_predict.predict_frame`), of a pandas frame the
in-memory prediction.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..results.base import check_predict_type, class_series
from ..results.dask_predict import training_lazy
from ..results.linear import LinearResult, one_vcov
from ..summary.linear import (
    LinearSummary,
    aliased_note,
    convergence_note,
    saturated_note,
    standard_error_notes,
)
from .result_mixin import DaskResultMixin, check_residual_type

if TYPE_CHECKING:
    import dask.dataframe as dd

    from ..design import Response
    from .frame import Partitioned

__all__ = ["DaskLinearResult", "DaskLinearSummary"]


class DaskLinearResult(DaskResultMixin, LinearResult):
    """Linear ULS fitted partition by partition (``ubreg.fit`` on a dask frame).

    Attributes
    ----------
    coef, bse, vcov(), coef_table(), conf_int() : as :class:`LinearResult`
    nobs, n_dropped, deviance, null_deviance, loglik, aic, bic : numbers
        From the partition-wise sums (equal to the in-memory fit's).
    y, weights, eta : dask Series
        Lazy, over the complete training rows.
    passes : int
        Passes over the partitions the fit made (setup, Newton, final).
    persisted : bool
        Whether the designs stayed in worker memory for those passes.
    """

    def __init__(self, *, stats: dict, partitioned: Partitioned, **kwargs: Any) -> None:
        self._stats: dict[str, Any] = dict(stats)
        self._partitioned = partitioned.without_frames()   # never keep the persisted matrices
        super().__init__(y=None, weights=None, eta=None, index=None,
                         n_input=stats["n_input"], dropped=pd.Index([]), **kwargs)
        self._beta = np.nan_to_num(self.coef.to_numpy(), nan=0.0)   # aliased columns: 0
        # ignored [assignment]: here the per-row arrays are lazy dask Series (module docstring)
        self.y = self._training("y")                    # type: ignore[assignment]
        self.weights = self._training("weights")        # type: ignore[assignment]
        self.eta = self._training("eta")                # type: ignore[assignment]

    def _training(self, what: str) -> dd.Series:
        return training_lazy(self._partitioned, self._beta, self.family, what)

    # ---- statistics from the sums (the rest: DaskResultMixin) -------------
    @property
    def deviance(self) -> float:
        return float(self._stats["deviance"])

    @property
    def null_deviance(self) -> float:
        return float(self._stats["null_deviance"])

    @property
    def persisted(self) -> bool:
        """Whether the partitions' designs were kept in worker memory
        (``persist``; ``"auto"`` decides by :func:`ubreg.dask.frame.should_persist`)."""
        return bool(self._stats.get("persisted", False))

    # ---- per-row quantities, lazily ---------------------------------------
    @property
    def fitted_values(self) -> dd.Series:
        """Posterior p̂ᵢ of the complete training rows (lazy dask Series)."""
        return self._training("fitted").rename("fitted")

    def residuals(self, type: str = "deviance") -> dd.Series:
        """Residuals of the complete training rows as a lazy dask Series
        (definitions of :meth:`ubreg.results.base.Result.residuals`)."""
        check_residual_type(type)
        return self._training(type).rename(f"{type} residual")

    def shipped(self) -> LinearResult:
        """A copy without the training frame, shipped to the workers."""
        light = copy.copy(self)
        light.__dict__.update(y=None, weights=None, eta=None, _partitioned=None)
        return light

    def predict(self, newdata: pd.DataFrame | dd.DataFrame | None = None,
                type: str = "response", *, se_fit: bool = False, interval: str | None = None,
                level: float = 0.95, **kwargs: Any) -> pd.Series | pd.DataFrame | dd.Series:
        """Predictions on the link, response or class scale.

        ``newdata`` a dask DataFrame: a lazy dask Series aligned with its index
        (NaN, or NA for ``class``, where a model variable is NA), as for every
        result (:func:`ubreg.results.dask_predict.predict_frame`); ``se_fit`` and
        ``interval`` as :meth:`LinearResult.predict` (a lazy DataFrame).  ``None``:
        the complete training rows only, as in memory, lazily; ``se_fit`` and
        ``interval`` need ``newdata`` (the training design is not held).  A pandas
        frame: the in-memory prediction.
        """
        if newdata is None:
            if se_fit or interval is not None:
                raise ValueError("se_fit and interval of the training rows of a fit of a Dask "
                                 "frame: the training design is not held; give the rows, "
                                 "predict(ddf, se_fit=True)")
            return self._training_predict(type)
        return LinearResult.predict(self.shipped(), newdata, type, se_fit=se_fit,
                                    interval=interval, level=level, **kwargs)

    def _training_predict(self, type: str) -> dd.Series:
        check_predict_type(type)
        if type == "link":
            return self._training("eta").rename("link")
        if type == "response":
            return self._training("fitted").rename("response")
        meta = class_series(self.response.levels, [], pd.RangeIndex(0))
        return self._training("eta").map_partitions(_classes, self.response, meta=meta)

    def concentration_note(self) -> str | None:
        """None: the rows' curvature stays on the workers (the in-memory fit measures it)."""
        return None

    def summary(self, vcov: str | None = None, *, cov: str | None = None,
                cluster: Any = None) -> DaskLinearSummary:
        """R ``summary.glm``-style summary with the covariance ``vcov`` (``"model"``,
        ``"HC0"``/``"robust"`` or ``"HC1"``: HC2 and HC3 need the rows' hat values,
        which a fit of a Dask frame does not hold, and so does ``cluster``); the
        deviance-residual quantiles are dask's approximate quantiles (exact min and
        max)."""
        if cluster is not None:
            self._training_matrix("summary(cluster=...)")     # raises: no rows held
        return DaskLinearSummary(self, cov=one_vcov(vcov, cov, self.default_vcov))


def _classes(eta: pd.Series, response: Response) -> pd.Series:
    # as Result.on_scale: the response label of η ≥ 0, category dtype with the levels
    levels = list(response.levels)
    positive = levels.index(response.positive)
    codes = np.where(eta.to_numpy() >= 0, positive, 1 - positive)
    return class_series(levels, codes, eta.index)


class DaskLinearSummary(LinearSummary):
    """:class:`~ubreg.summary.linear.LinearSummary` of a :class:`DaskLinearResult`: its
    notes come from the partition-wise sums, its residual quantiles from dask's
    approximate quantiles."""

    def _residual_quantiles(self) -> pd.Series:
        r = self.result.residuals("deviance")
        q = r.quantile([0, 0.25, 0.5, 0.75, 1.0]).compute()
        return pd.Series(np.asarray(q, dtype=float), index=["Min", "1Q", "Median", "3Q", "Max"])

    def notes(self) -> list[str]:
        """The notes of :meth:`LinearSummary.notes`, from the partition-wise sums, and
        how the fit ran."""
        r = self.result
        stats = r._stats
        notes = []
        if r.is_linear_probability_model:
            notes.append("gini with a linear model is the linear probability model: least squares "
                         f"of y on x; {stats['lpm_outside']} fitted "
                         f"value{'s' if stats['lpm_outside'] != 1 else ''} outside [0, 1] "
                         "(clipped only for class and likelihood).")
        if r.rank < len(r.coef):
            notes.append(aliased_note(r))
        if not r.is_linear_probability_model and stats["pq_min"] < 10 * np.finfo(float).eps:
            notes.append("Fitted probabilities numerically 0 or 1 occurred.")
        if stats.get("n_saturated", 0):
            notes.append(saturated_note(stats["n_saturated"]))
        if not r.fit_info.converged:
            notes.append(convergence_note(r))
        notes += standard_error_notes(r, self.table)
        notes.append(f"Fitted out of core: {stats['partitions']} partitions, "
                     f"{stats['passes']} passes; residual quantiles are approximate.")
        return notes
