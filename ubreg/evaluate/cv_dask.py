"""``ubreg.cv`` of a Dask frame: each fold fitted on the Dask frame, all folds scored in one pass.

:func:`ubreg.cv` sends a ``dask.dataframe.DataFrame`` here.  The data never come
to the client:

1. **Folds.**  A row's fold is drawn from the row itself: a hash of its index and
   of the values of the model's variables (pandas' ``hash_pandas_object``), mixed
   with the seed (SplitMix64's finaliser), modulo K.  It is computed partition
   by partition whenever a graph needs it, and gives the same fold every time,
   whatever the partitioning (dask may fuse the partitions of a parquet source
   differently in two graphs, so a fold drawn from a partition's number would
   not be reproducible).  Fold sizes and class shares are therefore balanced in
   expectation, not to within one row as in memory (``stratified`` has no
   effect); ``fold="column"`` takes the folds (1..K) from a column instead.
   Only the rows complete in the model's variables (and the weights) take part,
   as in memory.
2. **Fits.**  Fold k's model is ``ubreg.fit`` of the Dask frame without the rows
   of fold k: the method's Dask backend (``uls``, ``udt``, ``uboost``, ...), one
   fold after the other, each spread over the partitions (the active
   ``distributed.Client``, or dask's local scheduler).  A method without a Dask
   backend is refused before anything runs.
3. **Scoring.**  One pass: every partition's rows of fold k are predicted by
   model k (its in-memory ``predict``) and coded as it codes the response; the
   client receives (fold, p̂, y, w) for each complete row, about 40 bytes a row
   with the index, from which the folds' metrics and the pooled metrics (the
   exact AUC needs every row) are computed as in memory.

Given the same folds (``cv(pdf, fold=...)`` with ``result.fold``), the metrics are
the in-memory cross-validation's to the rounding of the fits.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import DataError
from ..numerics.folds import check_folds
from ..numerics.progress import progress
from ..numerics.warnings import record_warnings, reissue_warnings
from ..results.base import capabilities_of
from .cv_result import CVResult, Seed, cv_call_string, formula_variables_in, scored_result
from .metrics import classification_metrics, observed_classes

if TYPE_CHECKING:
    import dask.dataframe as dd

    from ..families import Family
    from ..methods.fit import Weights

__all__ = ["cv_dask", "fold_key", "fold_of_rows", "NOT_ON_DASK_CV", "INCOMPLETE",
           "NA_WEIGHT"]

#: why a method without a Dask backend cannot be cross-validated on a Dask frame
NOT_ON_DASK_CV = ("ubreg.cv of a Dask frame fits every fold on the Dask frame, and method "
                  "{name!r} does not run on Dask frames (it needs the data in memory); for "
                  "data that fit in memory call .compute() first, and ubreg.cv(..., "
                  "scheduler=client) spreads the folds over the cluster")

_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def fold_key(seed: Seed) -> int:
    """The 64-bit key that ``seed`` mixes into the row hashes: an int seed itself
    (mod 2⁶⁴), else one draw of ``numpy.random.default_rng(seed)``."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return int(seed) % 2**64
    return int(np.random.default_rng(seed).integers(2**63))


def _mix(h: np.ndarray, key: int) -> np.ndarray:
    """SplitMix64's finaliser of ``h`` xor ``key``: uniform 64-bit values, so that
    the fold (value mod K) depends on every bit of the row hash and the key."""
    z = h.astype(np.uint64) ^ np.uint64(key)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


#: the fold of a row missing a model variable, and of a complete row whose weight is NA
INCOMPLETE, NA_WEIGHT = -1, -2


def fold_of_rows(part: pd.DataFrame, names: list[str], key: int, folds: int,
                 column: str | None = None, weights: str | None = None) -> np.ndarray:
    """The 0-based fold of each row of a partition: from the fold ``column`` (1..K)
    when given, else drawn from the hash of the row's index and values of ``names``
    (the model's variables) and ``weights``, and from ``key``.  :data:`INCOMPLETE`
    for a row missing one of ``names``, :data:`NA_WEIGHT` for a complete row whose
    weight is NA."""
    complete = part[names].notna().all(axis=1).to_numpy()
    hashed = names + ([weights] if weights is not None else [])
    if column is None:
        h = pd.util.hash_pandas_object(part[hashed], index=True).to_numpy()
        fold = (_mix(h, key) % np.uint64(folds)).astype(np.int64)
    else:
        given = pd.to_numeric(part[column], errors="coerce").to_numpy(dtype=float)
        bad = complete & ~np.isin(given, np.arange(1, folds + 1))
        if bad.any():
            raise ValueError(f"fold column {column!r} must hold a fold number 1..{folds} in "
                             f"every complete row; {int(bad.sum())} row(s) do not")
        fold = np.where(complete, given, 0).astype(np.int64) - 1
    if weights is not None:
        fold = np.where(part[weights].isna().to_numpy(), NA_WEIGHT, fold)
    return np.where(complete, fold, INCOMPLETE)


def _fold_partition(part: pd.DataFrame, names: list[str], key: int, folds: int,
                    column: str | None, weights: str | None) -> pd.Series:
    return pd.Series(fold_of_rows(part, names, key, folds, column, weights), index=part.index,
                     name="fold")


def _score_partition(part: pd.DataFrame, payload: Any) -> pd.DataFrame:
    """(fold, y, w, p̂) of the partition's complete rows: each fold's rows predicted by
    that fold's model, in the partition's order; p̂ one column ``p`` (two classes) or a
    column per class of ``classes`` (``p:0``, ``p:1``, ...), in memory's order."""
    items = payload.items
    models, weights, classes = items["models"], items["weights"], items["classes"]
    fold = fold_of_rows(part, items["names"], items["key"], len(models), items["column"],
                        weights)
    p = np.full((len(part), 1 if classes is None else len(classes)), np.nan)
    y = np.full(len(part), np.nan)
    for k, model in enumerate(models):
        mask = fold == k
        if not mask.any():
            continue
        rows = part[mask]
        pk = model.predict(rows, type="response")
        if classes is None:
            p[mask, 0] = pk.to_numpy(dtype=float)
            y[mask] = observed_classes(model, rows).to_numpy(dtype=float)
        else:                                   # as cv._held_out: the first fold's order
            p[mask] = pk.reindex(columns=classes, fill_value=0.0).to_numpy(dtype=float)
            y[mask] = observed_classes(model, rows, levels=classes).to_numpy(dtype=float)
    keep = (fold >= 0) & ~np.isnan(p[:, 0])   # as in memory, rows the design drops are not scored
    w = (np.ones(len(part)) if weights is None
         else part[weights].to_numpy(dtype=float))
    out = pd.DataFrame({"fold": fold[keep], "y": y[keep], "w": w[keep]}, index=part.index[keep])
    for j, name in enumerate(_p_columns(classes)):
        out[name] = p[keep, j]
    return out


def _p_columns(classes: list | None) -> list[str]:
    return ["p"] if classes is None else [f"p:{j}" for j in range(len(classes))]


def _check(data: dd.DataFrame, method: str, weights: Weights | None, scheduler: Any,
           fold: Any) -> None:
    """Refuse, before anything runs, what a Dask frame's cross-validation cannot do."""
    from ..methods.registry import METHODS
    if method in METHODS and METHODS[method].dask is None:
        raise DataError(NOT_ON_DASK_CV.format(name=method))
    if weights is not None and not isinstance(weights, str):
        raise DataError("weights of a Dask frame must name one of its columns (an array "
                        "cannot be split with its partitions)")
    if scheduler is not None:
        raise ValueError("scheduler= spreads the folds of in-memory data over a Dask "
                         "cluster; a Dask frame's folds run on its own scheduler (the active "
                         "distributed.Client, or dask's default): leave scheduler unset")
    if fold is not None and not isinstance(fold, str):
        raise ValueError("fold= of a Dask frame must name one of its columns, holding the "
                         "fold 1..K of every row (an array cannot be split with its "
                         "partitions)")
    if isinstance(fold, str) and fold not in data.columns:
        raise DataError(f"fold column {fold!r} is not in the data")


def _tally(fold: pd.Series, folds: int) -> pd.Series:
    """Rows of a partition per fold, and :data:`NA_WEIGHT` and :data:`INCOMPLETE` rows."""
    counts = np.bincount(fold.to_numpy() - NA_WEIGHT, minlength=folds - NA_WEIGHT)
    return pd.Series(counts, index=np.arange(NA_WEIGHT, folds, dtype=np.int64))


def _fold_counts(folds_of: dd.Series, folds: int, na_action: str) -> np.ndarray:
    """Rows per fold (one pass over the model's columns), refusing what the in-memory
    model frame refuses (NA weights; NA rows with ``na_action="fail"``) and empty folds."""
    per_partition = folds_of.map_partitions(_tally, folds, meta=pd.Series(
        np.array([], dtype=np.int64), index=pd.Index([], dtype=np.int64)))
    counts = per_partition.compute().groupby(level=0).sum()   # no shuffle: K + 2 per partition
    if counts.get(NA_WEIGHT, 0):
        raise DataError(f"weights contain {int(counts[NA_WEIGHT])} NaN value(s)")
    if na_action in ("fail", "raise") and counts.get(INCOMPLETE, 0):
        raise DataError(f"missing values (NA) in the model's variables "
                        f"({int(counts[INCOMPLETE])} rows) and na_action={na_action!r}")
    out = np.array([int(counts.get(k, 0)) for k in range(folds)])
    n = int(out.sum())
    check_folds(folds, n)
    if (out == 0).any():
        empty = [int(k) + 1 for k in np.flatnonzero(out == 0)]
        raise ValueError(f"fold(s) {empty} of {folds} hold no complete row ({n} rows in all): "
                         "use fewer folds")
    return out


def cv_dask(formula: str, data: dd.DataFrame, *, fam: Family | list[Family],
            fit_kw: dict[str, Any], weights: Weights | None, kind: str, folds: int,
            seed: Seed, refit: bool, show_progress: bool | None, scheduler: Any,
            fold: Any, fit_options: dict[str, Any]) -> CVResult:
    """:func:`ubreg.cv` of a Dask frame (module notes); the arguments as :func:`ubreg.cv`
    resolves them (``fit_kw``: what every fold's ``ubreg.fit`` receives besides the
    formula, the data and the weights)."""
    from ..methods.fit import fit
    from ..results.dask_predict import Payload
    method = fit_kw["method"]
    _check(data, method, weights, scheduler, fold)
    names = formula_variables_in(formula, data)
    key, column = fold_key(seed), fold
    folds = check_folds(folds, folds)
    folds_of = data.map_partitions(_fold_partition, names, key, folds, column, weights,
                                   meta=pd.Series(np.array([], dtype=np.int64), name="fold"))
    _fold_counts(folds_of, folds, fit_kw["na_action"])
    models: list[Any] = []                  # any method's result
    for k in progress(range(folds), desc=f"{folds}-fold CV ({method}, Dask)", total=folds,
                      show=show_progress):
        with record_warnings() as caught:
            models.append(fit(formula, data[(folds_of >= 0) & (folds_of != k)],
                              weights=weights, **fit_kw))
        reissue_warnings(caught, f"fold {k + 1}")
    classes = (list(models[0].response.levels) if capabilities_of(models[0]).is_multiclass
               else None)
    payload = Payload(models=[m.shipped() for m in models], weights=weights, names=names,
                      key=key, column=column, classes=classes)
    meta = pd.DataFrame({"fold": np.array([], dtype=np.int64), "y": np.array([]),
                         "w": np.array([]),
                         **{name: np.array([]) for name in _p_columns(classes)}},
                        index=data._meta.index[:0])
    scored = data.map_partitions(_score_partition, payload, meta=meta).compute()
    weight_arg: dict[str, Any] = {"weights" if kind == "prior" else "freq_weights": weights}
    full = fit(formula, data, **weight_arg, **fit_kw) if refit else None
    out = scored_result(_score_table(scored, folds, classes), scored.index,
                        scored["fold"].to_numpy(), scored["w"].to_numpy(), full,
                        formula=formula, method=method, family=fam, seed=seed, stratified=False,
                        call=cv_call_string(formula, fam, method, folds, False, seed,
                                            fit_options))
    out.rows_note = ("a Dask frame: each row's fold drawn from a hash of its index and values "
                     "with the seed (fold sizes balanced in expectation, not stratified)"
                     if column is None else f"a Dask frame: folds from column {column!r}")
    return out


def _score_table(scored: pd.DataFrame, folds: int,
                 classes: list | None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, Any]:
    """The folds' metrics of the scored rows, as :func:`ubreg.evaluate.cv._score_folds`
    gives them in memory: (table, posteriors, observed classes, class order)."""
    fold, y, w = (scored[c].to_numpy() for c in ("fold", "y", "w"))
    p = scored[_p_columns(classes)].to_numpy()
    p = p[:, 0] if classes is None else p
    records = []
    for k in range(folds):
        test = fold == k
        rec: dict[str, float] = {"fold": k + 1, "n_train": len(fold) - int(test.sum()),
                                 "n_test": int(test.sum())}
        rec.update(classification_metrics(y[test], p[test], w[test]))
        records.append(rec)
    return pd.DataFrame.from_records(records), p, y, classes
