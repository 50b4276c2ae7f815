"""Lazy predictions and training-row quantities on dask frames.

Every function here returns a dask Series built by ``map_partitions``; the
partition function goes through exactly the code of the in-memory result
(the stored :class:`~ubreg.design.Design`, then ``Result._on_scale``), so a
computed prediction equals ``result.predict(ddf.compute())``.
"""
from __future__ import annotations

import uuid

import numpy as np
import pandas as pd

from ..design import build_partition_frame, check_columns
from ..results.base import check_predict_type

__all__ = ["predict_lazy", "training_lazy", "TRAINING_QUANTITIES"]

#: what :func:`training_lazy` computes per complete training row
TRAINING_QUANTITIES = ("y", "weights", "eta", "fitted", "response", "deviance", "pearson")


class _Payload:
    """Objects a partition function needs, tokenised by a fixed random token.

    dask-expr tokenises ``map_partitions`` arguments deterministically, and
    patsy objects cannot be hashed; the payload is the same object for the
    life of the result, so one token per payload is exact.
    """

    def __init__(self, **items):
        self.items = items
        self.token = uuid.uuid4().hex

    def __dask_tokenize__(self):
        return ("ubreg-payload", self.token)


def _meta(name: str, kind: str = "float") -> pd.Series:
    dtype = object if kind == "object" else np.float64
    return pd.Series(np.array([], dtype=dtype), name=name)


def _predict_partition(part: pd.DataFrame, payload: _Payload, type: str) -> pd.Series:
    # the in-memory path: Result.predict on a pandas frame
    from ..results.linear import LinearResult
    return LinearResult.predict(payload.items["model"], part, type=type)


def predict_lazy(model, ddf, type: str = "response"):
    """``model.predict`` of every partition of ``ddf``, as a lazy dask Series
    aligned with ``ddf``'s index (NaN / None for rows with NA)."""
    check_predict_type(type)
    check_columns(model.design.design_info, ddf._meta, "newdata")   # fail now, not at compute
    meta = _meta(type, "object" if type == "class" else "float")
    return ddf.map_partitions(_predict_partition, _Payload(model=model), type, meta=meta)


def _training_partition(part: pd.DataFrame, payload: _Payload, what: str) -> pd.Series:
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


def training_lazy(partitioned, beta, family, what: str):
    """A per-row quantity of the complete training rows, as a lazy dask Series.

    ``what`` is one of :data:`TRAINING_QUANTITIES`; the residuals follow
    :meth:`ubreg.results.base.Result.residuals`.
    """
    if what not in TRAINING_QUANTITIES:
        raise ValueError(f"what must be one of {TRAINING_QUANTITIES}, got {what!r}")
    light = partitioned.without_frames()
    light.data = None
    payload = _Payload(partitioned=light, beta=beta, family=family)
    return partitioned.data.map_partitions(_training_partition, payload, what, meta=_meta(what))
