"""Classification metrics of posteriors: Brier score, log loss, AUC, error rate.

Every metric takes observed classes ``y`` and posteriors ``p`` with optional
frequency weights ``w`` (a row of weight 2 counts as two identical rows), and
works for two classes (``y`` in {0, 1}, ``p`` = P(y = 1), a vector) or for C
classes (``y`` in {0..C−1}, ``p`` an n×C matrix of per-class posteriors).

:func:`metrics_of` evaluates a fitted model (any :class:`~ubreg.results.base.Result`,
or an object with the minimal protocol of :mod:`ubreg.results.base`) on its
training rows — when it declares ``has_training_rows`` — or on new data.
Nothing here modifies its inputs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..results.base import Result, capabilities_of

__all__ = ["brier_score", "log_loss", "auc", "error_rate", "classification_metrics",
           "metrics_of", "observed_and_posterior", "posteriors", "class_posteriors",
           "observed_classes", "training_classes", "METRIC_NAMES"]

#: metric names in display order, with their labels
METRIC_NAMES = {"brier": "Brier score", "log_loss": "Log loss", "auc": "AUC",
                "error_rate": "Error rate"}

_LOG_EPS = 1e-15   # posteriors are clipped to [eps, 1 − eps] in the log loss (as scikit-learn)


def _prepare(y, p, w):
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {y.shape}")
    if p.shape[0] != y.shape[0] or p.ndim not in (1, 2):
        raise ValueError(f"p must have one row per observation: y has {y.shape[0]}, "
                         f"p has shape {p.shape}")
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=np.float64)
    if w.shape != y.shape:
        raise ValueError(f"weights must have one value per observation, got shape {w.shape}")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite and non-negative")
    if w.sum() <= 0:
        raise ValueError("weights are all zero")
    if np.any(~np.isfinite(y)) or np.any(~np.isfinite(p)):
        raise ValueError("y and p must be finite (drop NA rows first)")
    return y, p, w


def _one_hot(y, n_classes):
    return (y[:, None] == np.arange(n_classes)[None, :]).astype(np.float64)


def brier_score(y, p, weights=None) -> float:
    """Weighted mean squared error of the posterior, Σ wᵢ (yᵢ − p̂ᵢ)² / Σ wᵢ.

    For C classes: Σᵢ wᵢ Σ_c (1[yᵢ = c] − p̂ᵢc)² / Σ wᵢ (Brier's original
    multiclass score; for C = 2 it is twice the binary score).
    """
    y, p, w = _prepare(y, p, weights)
    if p.ndim == 1:
        sq = (y - p) ** 2
    else:
        sq = ((_one_hot(y, p.shape[1]) - p) ** 2).sum(axis=1)
    return float(w @ sq / w.sum())


def log_loss(y, p, weights=None, eps: float = _LOG_EPS) -> float:
    """Weighted mean negative log-likelihood −Σ wᵢ ln p̂ᵢ(yᵢ) / Σ wᵢ (natural log).

    Posteriors are clipped to [eps, 1 − eps] so that a confident mistake costs
    −ln(eps) instead of infinity.
    """
    y, p, w = _prepare(y, p, weights)
    if p.ndim == 1:
        p_obs = np.where(y == 1, p, 1.0 - p)
    else:
        p_obs = p[np.arange(len(y)), y.astype(int)]
    p_obs = np.clip(p_obs, eps, 1.0 - eps)
    return float(-(w @ np.log(p_obs)) / w.sum())


def _binary_auc(y, score, w) -> float:
    """Weighted Mann–Whitney statistic: P(score₊ > score₋) + ½ P(tie)."""
    pos, neg = y == 1, y == 0
    wpos, wneg = w[pos].sum(), w[neg].sum()
    if wpos <= 0 or wneg <= 0:
        return float("nan")
    order = np.argsort(score, kind="mergesort")
    s, ys, ws = score[order], y[order], w[order]
    # group tied scores: each group has (negative weight, positive weight)
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    neg_g = np.add.reduceat(ws * (ys == 0), starts)
    pos_g = np.add.reduceat(ws * (ys == 1), starts)
    neg_below = np.cumsum(neg_g) - neg_g            # negatives with a strictly lower score
    total = pos_g @ (neg_below + 0.5 * neg_g)
    return float(total / (wpos * wneg))


def auc(y, p, weights=None) -> float:
    """Area under the ROC curve, rank based, ties counting ½ (weighted).

    Equals the weighted Mann–Whitney probability that a random positive has a
    larger score than a random negative.  For C classes: the unweighted mean of
    the one-vs-rest AUCs over the classes present with both outcomes
    (scikit-learn's ``multi_class="ovr", average="macro"``).  NaN when a class
    is missing.
    """
    y, p, w = _prepare(y, p, weights)
    if p.ndim == 1:
        return _binary_auc(y, p, w)
    values = [_binary_auc((y == c).astype(float), p[:, c], w) for c in range(p.shape[1])]
    values = [v for v in values if np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def error_rate(y, p, weights=None, threshold: float = 0.5) -> float:
    """Weighted misclassification rate of the Bayes rule.

    Two classes: predicted class 1 iff p̂ ≥ ``threshold`` (docs/math.md §1); C
    classes: the class of largest posterior.
    """
    y, p, w = _prepare(y, p, weights)
    pred = (p >= threshold).astype(float) if p.ndim == 1 else np.argmax(p, axis=1).astype(float)
    return float(w @ (pred != y) / w.sum())


def classification_metrics(y, p, weights=None) -> dict[str, float]:
    """All four metrics, keyed as :data:`METRIC_NAMES`.

    Posteriors outside [0, 1] (the linear probability model) are clipped for
    the log loss only; the Brier score and AUC use them as they are.
    """
    return {"brier": brier_score(y, p, weights), "log_loss": log_loss(y, p, weights),
            "auc": auc(y, p, weights), "error_rate": error_rate(y, p, weights)}


# ---------------------------------------------------------------------------
# fitted models
# ---------------------------------------------------------------------------
def posteriors(result, newdata=None):
    """Posteriors of a fitted model: a Series P(y = 1) for a binary result, or a
    DataFrame of per-class posteriors (columns = class levels) for a
    multiclass one: ``result.predict(newdata, type="response")``."""
    return result.predict(newdata, type="response")


def class_posteriors(result, newdata=None):
    """Per-class posteriors (DataFrame) of a multiclass result, or None for a binary one."""
    out = posteriors(result, newdata)
    return out if isinstance(out, pd.DataFrame) else None


def _need_training_rows(result):
    if not capabilities_of(result).has_training_rows:
        raise ValueError(f"a {type(result).__name__} keeps no training rows: evaluate it on "
                         "new data (newdata=, or data= of ubreg.report)")


def training_classes(result) -> np.ndarray:
    """Observed classes of the training rows, ``result.y``: 0/1, or codes 0..C−1
    for a multiclass result."""
    _need_training_rows(result)
    return np.asarray(result.y, dtype=float)


def observed_classes(result, newdata: pd.DataFrame, levels=None) -> pd.Series:
    """The response of ``newdata`` coded as the result codes it (NaN for NA):
    0/1 for a binary result, or positions in ``levels`` (the posterior columns)."""
    resp = result.response
    if resp.name not in newdata.columns:
        of = f" of {result.formula!r}" if isinstance(result, Result) else ""
        raise ValueError(f"newdata has no column {resp.name!r} (the response{of}); "
                         "evaluating on new data needs the observed classes")
    values = newdata[resp.name]
    na = values.isna().to_numpy()
    if levels is not None:  # multiclass: codes 0..C−1 in the order of the posterior columns
        lookup = {v: k for k, v in enumerate(levels)}
        coded = [lookup.get(v, np.nan) if not m else np.nan
                 for v, m in zip(values.tolist(), na)]
        return pd.Series(coded, index=newdata.index, dtype=float)
    raw = values.to_numpy(dtype=object)
    positive = resp.positive
    if resp.kind not in ("numeric 0/1", "bool"):
        known = set(resp.levels)
        bad = [v for v, m in zip(raw, na) if not m and v not in known]
        if bad:
            raise ValueError(f"newdata's response {resp.name!r} has level(s) the model has not "
                             f"seen: {sorted(map(str, set(bad)))[:5]}")
    is_positive = np.where(na, np.nan, raw == positive)
    return pd.Series(is_positive.astype(float), index=newdata.index)


def _row_weights(result, newdata, n: int, weights) -> np.ndarray:
    """The weights of the n evaluated rows (see :func:`observed_and_posterior`)."""
    if weights is None:
        return np.asarray(result.weights, dtype=float) if newdata is None else np.ones(n)
    if weights is False:
        return np.ones(n)
    if isinstance(weights, str):
        if newdata is None:
            raise ValueError(f"weights={weights!r} names a column: pass newdata holding it, "
                             f"or an array with one weight per training row ({n})")
        if weights not in newdata.columns:
            raise ValueError(f"newdata has no weights column {weights!r}")
        w = newdata[weights].to_numpy(dtype=float)
    else:
        w = np.asarray(weights, dtype=float)
    where = "training row the model used" if newdata is None else "row of newdata"
    if w.shape != (n,):
        raise ValueError(f"weights must have one value per {where} ({n}), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    return w


def observed_and_posterior(result, newdata=None, weights=None):
    """Observed classes, posteriors and weights of a fitted model.

    Parameters
    ----------
    result : Result
        Any fitted ubreg model.
    newdata : DataFrame, optional
        Evaluate on these rows (which must hold the response); rows with NA in
        the response or a predictor are left out.  Default: the training rows.
    weights : array, str or False, optional
        Frequency weights of the rows.  None (default): the model's prior
        weights on the training rows, ones on ``newdata``.  An array: one
        value per training row the model used (``len(result.y)``), or per row
        of ``newdata``.  A string: a column of ``newdata``.  False: ones.

    Returns
    -------
    y : ndarray
        0/1 (binary) or class codes 0..C−1 (multiclass).
    p : ndarray
        P(y = 1) (binary, length n) or n×C per-class posteriors.
    w : ndarray
        The weights of the rows kept.
    classes : list or None
        Class labels of the columns of ``p`` for a result with three or more
        classes.  Per-class posteriors of two classes are reduced to
        P(second level), so that every two-class model is scored alike.
    """
    if newdata is None:
        y = training_classes(result)
        w = _row_weights(result, None, len(y), weights)
    else:
        w = _row_weights(result, newdata, len(newdata), weights)
    post = posteriors(result, newdata)
    if isinstance(post, pd.DataFrame):
        classes = list(post.columns)
        if newdata is not None:
            y = observed_classes(result, newdata, levels=classes).to_numpy()
        P = post.to_numpy(dtype=float)
        ok = np.isfinite(y) & np.all(np.isfinite(P), axis=1)
        if len(classes) == 2:
            # two classes: P(second level), as binary results (same Brier scale, one AUC)
            return y[ok], P[ok, 1], w[ok], None
        return y[ok], P[ok], w[ok], classes
    p = np.asarray(post, dtype=float)
    if newdata is not None:
        y = observed_classes(result, newdata).to_numpy()
    ok = np.isfinite(y) & np.isfinite(p)
    return y[ok], p[ok], w[ok], None


def metrics_of(result, newdata=None, weights=None) -> dict[str, float]:
    """Brier score, log loss, AUC and error rate of a fitted model.

    On the training rows (default, with the model's prior weights) or on
    ``newdata``; ``weights`` as for :func:`observed_and_posterior`.
    """
    y, p, w, _ = observed_and_posterior(result, newdata, weights=weights)
    return classification_metrics(y, p, w)
