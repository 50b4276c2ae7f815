"""The result of ``method="uboost"`` on a Dask frame: a :class:`UBoostResult` without rows.

The trees, F₀, ν, the risk path, the importance and the summary are the
in-memory result's; n, the deviances, the log-likelihood and the training
error come from the fit's final pass.  The training design is not held
(``X`` is None): :func:`ubreg.cv_risk`, which refits folds of it, and
:meth:`with_mstop` are not available, and the class does not declare
``has_cv_path``.  Per-row quantities of the training rows (``y``, ``weights``,
``eta``, ``fitted_values``, ``predict()``) are lazy dask Series; ``predict(ddf)``
is lazy, ``predict(pandas_frame)`` the in-memory prediction.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import build_partition_frame
from ..results.base import Capabilities, check_predict_type
from ..results.boost import UBoostResult
from ..results.dask_predict import Payload as _Payload
from .result_mixin import DaskResultMixin

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["DaskUBoostResult"]

_TRAINING = ("y", "weights", "link", "response", "class")
#: residuals of a partition's rows, as the in-memory result computes them
_RESIDUALS = ("residuals:deviance", "residuals:pearson", "residuals:response")


def _meta(result: UBoostResult, what: str) -> pd.Series:
    if what == "class":
        return pd.Series(pd.Categorical([], categories=list(result.response.levels)),
                         name="class")
    if what in _RESIDUALS:
        return pd.Series(np.array([], dtype=np.float64), name=f"{what[10:]} residual")
    return pd.Series(np.array([], dtype=np.float64), name=what)


def _training_partition(part: pd.DataFrame, payload: _Payload, what: str) -> pd.Series:
    model, parts = payload.items["model"], payload.items["partitioned"]
    mf = build_partition_frame(parts.parsed, parts.design, parts.response, part, parts.weights,
                               parts.na_action)
    if what in ("y", "weights"):
        return pd.Series(mf["y"] if what == "y" else mf["w"], index=mf["index"], name=what)
    F = np.full(len(mf["y"]), model.fit_info.F0)        # UBoostResult._link_for's sum
    for base in model.fit_info.learners:
        F += model.nu * base.predict(mf["X"])
    if what in _RESIDUALS:
        rows = copy.copy(model)
        rows.y, rows.weights, rows.eta, rows.index = mf["y"], mf["w"], F, mf["index"]
        return UBoostResult.residuals(rows, what[10:])
    return model.on_scale(F, np.zeros(len(F), dtype=bool), mf["index"], what)


class DaskUBoostResult(DaskResultMixin, UBoostResult):
    """U-Boost fitted on a Dask frame's partitions (:mod:`ubreg.dask.uboost`); its
    ``passes`` are histogram passes over the partitions (one per tree level, as far as
    grown)."""

    #: UBoostResult's, without has_cv_path: the training design is not held
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True,
                                has_risk_path=True)
    #: the sum of the user's weights (the fit's own sums are of weights scaled by 2⁻ᵉ)
    _WSUM = "wsum_user"

    def __init__(self, *, stats: dict, partitioned: Any, **kwargs: Any) -> None:
        self._stats: dict[str, Any] = dict(stats)
        self._partitioned = partitioned
        # ignored [arg-type]: no training design here (module docstring)
        super().__init__(X=None, y=None, weights=None, eta=None,  # type: ignore[arg-type]
                         index=None, n_input=stats["n_input"], dropped=pd.Index([]), **kwargs)
        # ignored [assignment]: here the per-row arrays are lazy dask Series (module docstring)
        self.y = self._training("y")                    # type: ignore[assignment]
        self.weights = self._training("weights")        # type: ignore[assignment]
        self.eta = self._training("link")               # type: ignore[assignment]

    def shipped(self) -> UBoostResult:
        light = copy.copy(self)
        light.__dict__.update(y=None, weights=None, eta=None, _partitioned=None, _data=None)
        return light

    def _training(self, what: str) -> dd.Series:
        parts = copy.copy(self._partitioned)
        parts.data = None
        payload = _Payload(model=self.shipped(), partitioned=parts)
        return self._partitioned.data.map_partitions(_training_partition, payload, what,
                                                     meta=_meta(self, what))

    # ---- statistics from the sums (the rest: DaskResultMixin) -------------
    @property
    def deviance(self) -> float:
        return 2.0 * float(self._stats["divergence"])

    @property
    def null_deviance(self) -> float:
        return 2.0 * float(self._stats["null_divergence"])

    @property
    def training_error(self) -> float:
        return float(self._stats["errors"]) / float(self._stats["wsum_user"])

    def extreme_rows(self) -> tuple[int, int]:
        """:meth:`UBoostResult.extreme_rows`, counted in the fit's final pass."""
        return int(self._stats["n_extreme"]), int(self._stats["n_extreme_wrong"])

    def predict(self, newdata: pd.DataFrame | dd.DataFrame | None = None,
                type: str = "response") -> pd.Series | dd.Series:
        """As :meth:`UBoostResult.predict`: ``newdata`` None (the training rows) gives a
        lazy dask Series, a pandas frame the in-memory prediction (a dask frame, as for
        every result, goes to :func:`ubreg.results.dask_predict.predict_frame`)."""
        check_predict_type(type)
        if newdata is None:
            return self._training(type)
        return UBoostResult.predict(self.shipped(), newdata, type)

    def with_mstop(self, mstop: int) -> UBoostResult:
        raise NotImplementedError("with_mstop on a fit of a Dask frame: it recomputes F on the "
                                  "training design, which is not held; refit with mstop= (or "
                                  "use staged_predict(newdata))")
