"""The result of ``method="udt"`` on a Dask frame: a :class:`TreeResult` without rows.

The tree, its node table, cp table, importance, deviances and summary are the
in-memory result's (they live in the :class:`~ubreg.trees.model.Tree`); n,
the dropped rows and the weights' counts come from the fit's sums.  The
per-row quantities of the training rows (``y``, ``weights``, ``eta``,
``fitted_values``, ``predict()``) are lazy dask Series, computed by sending
each partition's rows down the tree as :meth:`TreeResult.predict` does;
``predict(ddf)`` is lazy too, ``predict(pandas_frame)`` the in-memory
prediction.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import build_partition_raw
from ..results.base import check_predict_type
from ..results.dask_predict import Payload as _Payload
from ..results.inference import bernoulli_loglik
from ..results.tree import TreeResult, to_tree_columns
from ..trees.prune import pruned_call
from .result_mixin import DaskResultMixin

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["DaskTreeResult"]

#: per training row: the response, the weight, or a prediction type of TreeResult
_TRAINING = ("y", "weights", "response", "link", "class", "leaf")
#: computed from a partition's rows as the in-memory result computes them over all rows
_FROM_ROWS = ("loglik", "residuals:deviance", "residuals:pearson", "residuals:response")


def _meta(result: TreeResult, what: str) -> pd.Series:
    if what == "class":
        return pd.Series(pd.Categorical([], categories=list(result.response.levels)),
                         name="class")
    if what == "leaf":
        return pd.Series(pd.array([], dtype="Int64"), name="leaf")
    if what.startswith("residuals:"):
        return pd.Series(np.array([], dtype=np.float64), name=f"{what[10:]} residual")
    return pd.Series(np.array([], dtype=np.float64), name=what)


def _training_partition(part: pd.DataFrame, payload: _Payload, what: str) -> pd.Series:
    model, source = payload.items["model"], payload.items["source"]
    raw = build_partition_raw(source.parsed, source.design, source.response, part,
                              source.weights)
    if what in ("y", "weights"):
        values = raw["y"] if what == "y" else raw["w"]
        return pd.Series(np.asarray(values, dtype=np.float64), index=raw["index"], name=what)
    leaf = model.tree.apply(to_tree_columns(raw["columns"]))
    out = copy.copy(model)
    out.training_leaf, out.index = leaf, raw["index"]
    if what in _FROM_ROWS:
        out.y = np.asarray(raw["y"], dtype=np.float64)
        out.weights = np.asarray(raw["w"], dtype=np.float64)
        out.eta = TreeResult.predict(out, None, type="link").to_numpy()
        if what == "loglik":        # a sum over rows: the partitions' sums add up
            return pd.Series([bernoulli_loglik(out.family, out.y, out.eta, out.weights,
                                               out.weight_kind)], name=what)
        return TreeResult.residuals(out, what[10:])
    return TreeResult.predict(out, None, type=what)


class DaskTreeResult(DaskResultMixin, TreeResult):
    """A UDT tree grown from the histograms of a Dask frame's partitions
    (:mod:`ubreg.dask.udt`).

    Attributes
    ----------
    tree, frame, cptable, variable_importance, deviance, null_deviance : as TreeResult
    nobs, n_dropped, n_rows : numbers from the fit's sums
    y, weights, eta : dask Series
        Lazy, over the training rows (those whose response is not NA).
    passes : int
        Histogram passes over the partitions (one per level of the tree).
    """

    #: the udt fitter's keys of the rows of positive weight and of the complete rows
    _NPOS = "npos"
    _NROWS = "n"

    def __init__(self, *, stats: dict, source: Any, **kwargs: Any) -> None:
        self._stats: dict[str, Any] = dict(stats)
        self._source = source
        super().__init__(y=None, weights=None, eta=None, index=None,
                         n_input=stats["n_input"], dropped=pd.Index([]), **kwargs)
        self._lazy()

    def _lazy(self) -> None:
        # ignored [assignment]: here the per-row arrays are lazy dask Series (module docstring)
        self.y = self._training("y")                    # type: ignore[assignment]
        self.weights = self._training("weights")        # type: ignore[assignment]
        self.eta = self._training("link")               # type: ignore[assignment]
        self.training_leaf = self._training("leaf")     # type: ignore[assignment]

    def shipped(self) -> TreeResult:
        """A copy without the lazy series and the frame, shipped to the workers."""
        light = copy.copy(self)
        light.__dict__.update(y=None, weights=None, eta=None, training_leaf=None, _source=None,
                              _data=None)
        return light

    def _training(self, what: str) -> dd.Series:
        source = self._source
        payload = _Payload(model=self.shipped(), source=copy.copy(source))
        payload.items["source"].data = None
        return source.data.map_partitions(_training_partition, payload, what,
                                          meta=_meta(self, what))

    # ---- by a pass on first use (the sums' statistics: DaskResultMixin) ---
    @property
    def loglik(self) -> float:
        """The Bernoulli log-likelihood of p̂ (as :attr:`TreeResult.loglik`), by one pass
        over the partitions on first use."""
        if "loglik" not in self._stats:
            self._stats["loglik"] = float(self._training("loglik").sum().compute())
        return float(self._stats["loglik"])

    def predict(self, newdata: pd.DataFrame | dd.DataFrame | None = None,
                type: str = "response") -> pd.Series | dd.Series:
        """As :meth:`TreeResult.predict`: ``newdata`` None (the training rows) gives a
        lazy dask Series, a pandas frame the in-memory prediction (a dask frame, as for
        every result, goes to :func:`ubreg.results.dask_predict.predict_frame`)."""
        check_predict_type(type, _TRAINING[2:])
        if newdata is None:
            return self._training(type)
        return TreeResult.predict(self.shipped(), newdata, type)

    def prune(self, cp: float) -> DaskTreeResult:
        """A new result with the tree pruned at ``cp`` (rpart's ``prune``)."""
        out = copy.copy(self)
        out._stats = {k: v for k, v in self._stats.items() if k != "loglik"}   # another tree
        out.tree = self.tree.prune(cp)
        out.call = pruned_call(self.call, cp)
        out._lazy()
        return out
