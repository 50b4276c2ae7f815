"""Lazy predictions and training-row quantities on dask frames.

Every function here returns a dask collection built by ``map_partitions``; the
partition function goes through exactly the code of the in-memory result, so a
computed prediction equals ``result.predict(ddf.compute())``.

:func:`predict_frame` is where ``predict`` of every result sends a Dask
``newdata`` (:func:`ubreg.results.base.dask_dispatching`): each partition is
predicted by the result's own in-memory ``predict``, with the same ``type`` and
options.
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import build_partition_frame
from ..errors import PredictionError

if TYPE_CHECKING:
    import dask.dataframe as dd

    from ..results.base import Result

__all__ = ["predict_frame", "training_lazy", "TRAINING_QUANTITIES", "Payload"]

#: what :func:`training_lazy` computes per complete training row
TRAINING_QUANTITIES = ("y", "weights", "eta", "fitted", "response", "deviance", "pearson")


class Payload:
    """Objects a partition function needs, tokenised by a fixed random token.

    dask-expr tokenises ``map_partitions`` arguments deterministically, and
    patsy objects cannot be hashed; the payload is the same object for the
    life of the result, so one token per payload is exact.
    """

    def __init__(self, **items: Any) -> None:
        self.items = items
        self.token = uuid.uuid4().hex

    def __dask_tokenize__(self) -> tuple[str, str]:
        return ("ubreg-payload", self.token)


#: the name the Dask results of this package import
_Payload = Payload


def _meta(name: str) -> pd.Series:
    return pd.Series(np.array([], dtype=np.float64), name=name)


def _predict_partition(part: pd.DataFrame, payload: Payload) -> pd.Series | pd.DataFrame:
    # the in-memory path: the result's own predict on a pandas frame
    model, args, options = (payload.items[k] for k in ("model", "args", "options"))
    out = model.predict(part, *args, **options)
    if not isinstance(out, (pd.Series, pd.DataFrame)) or not out.index.equals(part.index):
        raise PredictionError(f"{type(model).__name__}.predict did not give one row per row of "
                              "a partition; it cannot predict a Dask frame partition by "
                              "partition (call .compute() for data that fit in memory)")
    return out


def _meta_frame(meta: pd.DataFrame) -> pd.DataFrame:
    """A Dask frame's ``meta`` (no rows) to predict for the ``meta`` of a prediction:
    a categorical column whose categories dask does not know (its placeholder
    category would be taken for a level) as an empty column of strings."""
    from dask.dataframe.utils import has_known_categories
    unknown = [c for c in meta.columns if isinstance(meta[c].dtype, pd.CategoricalDtype)
               and not has_known_categories(meta[c])]
    if not unknown:
        return meta
    out = meta.copy()
    for c in unknown:
        out[c] = pd.Series(np.array([], dtype=object), index=meta.index)
    return out


def predict_frame(model: Result, ddf: dd.DataFrame, *args: Any,
                  **options: Any) -> dd.Series | dd.DataFrame:
    """``model.predict(ddf, *args, **options)`` of a Dask frame, lazily.

    Every partition is predicted by ``model``'s in-memory ``predict`` (on the
    workers, when a ``distributed.Client`` is active): the same ``type``
    values and options, rows with NA predictors NA as in memory, the
    partition's index.  Nothing is computed here: the prediction of an empty
    frame with ``ddf``'s columns gives the ``meta`` (name and dtype: category
    with the response's levels for ``type="class"``), and checks ``type``,
    the options and the columns now rather than at compute.  (A categorical
    column whose categories dask does not know is checked against the model's
    levels partition by partition, as a pandas frame's would be.)

    Parameters
    ----------
    model : Result
        A fitted result (shipped to the workers as ``model.shipped()``).
    ddf : dask.dataframe.DataFrame
        The rows to predict.
    *args, **options
        ``predict``'s own (``type=``, and e.g. ``se_fit=`` of a linear result).

    Returns
    -------
    dask Series or DataFrame
        What ``predict`` gives for a pandas frame (a Series, or a DataFrame for
        per-class posteriors or ``se_fit=True``), one partition per partition
        of ``ddf``.
    """
    light = model.shipped()
    meta = light.predict(_meta_frame(ddf._meta), *args, **options)
    if not isinstance(meta, (pd.Series, pd.DataFrame)):
        raise PredictionError(f"{type(model).__name__}.predict gives a "
                              f"{type(meta).__name__}, not a Series or DataFrame; it cannot "
                              "predict a Dask frame partition by partition")
    payload = Payload(model=light, args=args, options=options)
    return ddf.map_partitions(_predict_partition, payload, meta=meta)


def _training_partition(part: pd.DataFrame, payload: Payload, what: str) -> pd.Series:
    partitioned, beta, family = (payload.items[k] for k in ("partitioned", "beta", "family"))
    mf = build_partition_frame(partitioned.parsed, partitioned.design, partitioned.response,
                               part, partitioned.weights, partitioned.na_action)
    X, y, w = mf["X"], mf["y"], mf["w"]
    eta = X @ beta
    if what == "y":
        out = y
    elif what == "weights":
        out = w
    elif what == "eta":
        out = eta
    elif what == "fitted":
        out = family.posterior(eta)
    elif what == "response":
        out = y - family.posterior(eta)
    elif what == "deviance":
        out = np.sign(y - family.posterior(eta)) * np.sqrt(2.0 * w * family.divergence(y, eta))
    else:  # pearson
        p = family.posterior(eta)
        var = family.score_variance(eta) if family.is_permissible else p * (1 - p)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.sqrt(w) * (y - p) / np.sqrt(var)
    return pd.Series(np.asarray(out, dtype=np.float64), index=mf["index"], name=what)


def training_lazy(partitioned: Any, beta: np.ndarray, family: Any, what: str) -> Any:
    """A per-row quantity of the complete training rows, as a lazy dask Series.

    ``what`` is one of :data:`TRAINING_QUANTITIES`; the residuals follow
    :meth:`ubreg.results.base.Result.residuals`.
    """
    if what not in TRAINING_QUANTITIES:
        raise ValueError(f"what must be one of {TRAINING_QUANTITIES}, got {what!r}")
    light = partitioned.without_frames()
    light.data = None
    payload = Payload(partitioned=light, beta=beta, family=family)
    return partitioned.data.map_partitions(_training_partition, payload, what, meta=_meta(what))
