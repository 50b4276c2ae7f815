"""The result of ``method="uboost"`` on a Dask frame of K > 2 classes: a
:class:`~ubreg.results.boost_multiclass.MulticlassBoostResult` without rows.

The trees, F₀, ν and the risk path are the in-memory result's; n, the deviances and the
training error come from the fit's final pass.  The training design is not held:
:func:`ubreg.cv_risk` and :meth:`with_mstop` are not available.  ``predict()`` (the
training rows) and ``predict(ddf)`` are lazy, ``predict(pandas_frame)`` the in-memory
prediction.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import build_partition_frame
from ..results.base import Capabilities, check_predict_type
from ..results.boost_multiclass import MulticlassBoostResult
from ..results.dask_predict import Payload
from .result_mixin import DaskResultMixin

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["DaskMulticlassBoostResult"]


def _training_partition(part: pd.DataFrame, payload: Payload, what: str):
    model, parts = payload.items["model"], payload.items["partitioned"]
    mf = build_partition_frame(parts.parsed, parts.design, parts.response, part, parts.weights,
                               parts.na_action)
    if what in ("y", "weights"):
        return pd.Series(mf["y"] if what == "y" else mf["w"], index=mf["index"], name=what)
    X = np.asarray(mf["X"])
    return model.on_scores(model.scores(X), np.zeros(len(X), dtype=bool), mf["index"], what)


class DaskMulticlassBoostResult(DaskResultMixin, MulticlassBoostResult):
    """K-class U-Boost fitted on a Dask frame's partitions
    (:mod:`ubreg.dask.uboost_multiclass`); ``passes`` are histogram passes over the
    partitions (one per level of each class's tree)."""

    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_risk_path=True,
                                is_multiclass=True)
    #: the sum of the user's weights (the fit's own sums are of weights scaled by 2⁻ᵉ)
    _WSUM = "wsum_user"

    def __init__(self, *, stats: dict, partitioned: Any, **kwargs: Any) -> None:
        self._stats: dict[str, Any] = {**stats, "loglik": -0.5 * stats["deviance"]}
        self._partitioned = partitioned
        # ignored [arg-type]: no training rows here (module docstring)
        super().__init__(X=None, y=None, weights=None, index=None,  # type: ignore[arg-type]
                         n_input=stats["n_input"], dropped=pd.Index([]), **kwargs)
        # here the per-row arrays are lazy dask Series
        self.y = self._training("y")
        self.weights = self._training("weights")

    def shipped(self) -> MulticlassBoostResult:
        light = copy.copy(self)
        light.__dict__.update(y=None, weights=None, _partitioned=None, _data=None)
        return light

    def _training(self, what: str):
        parts = copy.copy(self._partitioned)
        parts.data = None
        payload = Payload(model=self.shipped(), partitioned=parts)
        if what in ("y", "weights"):
            meta: Any = pd.Series(np.array([], dtype=np.float64), name=what)
        else:
            meta = self.on_scores(np.zeros((0, len(self.classes))), np.zeros(0, dtype=bool),
                                  pd.RangeIndex(0), what)
        return self._partitioned.data.map_partitions(_training_partition, payload, what,
                                                     meta=meta)

    # ---- statistics from the sums (the rest: DaskResultMixin) -------------
    @property
    def deviance(self) -> float:
        return float(self._stats["deviance"])

    @property
    def null_deviance(self) -> float:
        share = np.asarray(self._stats["class_w_user"], dtype=np.float64)
        return float(-2.0 * np.sum(share * np.log(share / share.sum())))

    @property
    def training_error(self) -> float:
        return float(self._stats["errors"]) / float(self._stats["wsum_user"])

    @property
    def fitted_values(self) -> dd.DataFrame:       # type: ignore[override]
        """The K class probabilities of the training rows (a lazy dask DataFrame)."""
        return self._training("response")

    def residuals(self, type: str = "deviance") -> dd.Series:
        raise NotImplementedError("residuals of a K-class fit are not defined (as for the "
                                  "in-memory fit)")

    def predict(self, newdata: pd.DataFrame | dd.DataFrame | None = None,
                type: str = "response") -> Any:
        """As :meth:`MulticlassBoostResult.predict`: ``newdata`` None (the training rows)
        gives a lazy dask frame, a pandas frame the in-memory prediction (a dask frame,
        as for every result, goes to :func:`ubreg.results.dask_predict.predict_frame`)."""
        check_predict_type(type)
        if newdata is None:
            return self._training(type)
        return MulticlassBoostResult.predict(self.shipped(), newdata, type)

    def with_mstop(self, mstop: int) -> MulticlassBoostResult:
        raise NotImplementedError("with_mstop on a fit of a Dask frame: it recomputes F on the "
                                  "training design, which is not held; refit with mstop=")
