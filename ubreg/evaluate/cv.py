"""``ubreg.cv``: K-fold cross-validation of any method, by calling ``ubreg.fit`` per fold.

The protocol of the papers' experiments: (stratified) K-fold splits of the
complete rows, one fit per training part, the metrics of its posteriors on the
held-out part, and the mean ± standard error over the folds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..design import as_frame, build_model_frame
from ..errors import ResponseError
from ..numerics.folds import fold_assignment
from ..numerics.progress import progress
from ..numerics.warnings import record_warnings, reissue_warnings
from ..summary.render import render_template
from .metrics import METRIC_NAMES, classification_metrics, observed_classes, posteriors

__all__ = ["cv", "CVResult"]


@dataclass
class CVResult:
    """Cross-validated metrics of one model specification.

    Attributes
    ----------
    folds : DataFrame
        One row per fold: n_train, n_test and the metrics of the held-out part.
    mean, se : Series
        Mean over the folds and its standard error sd/√K, per metric.
    pooled : dict
        The metrics of all out-of-fold posteriors at once.
    predictions : Series or DataFrame
        Out-of-fold posteriors, indexed like the complete rows of the data.
    fold : Series
        Fold number of each complete row.
    model : Result or None
        The fit on all the data (``refit=True``), for coefficients and reports.
    """

    folds: pd.DataFrame
    mean: pd.Series
    se: pd.Series
    pooled: dict
    predictions: object
    fold: pd.Series
    model: object
    call: str
    formula: str
    method: str
    family: object
    seed: object
    stratified: bool
    warnings: list = field(default_factory=list)

    @property
    def n_folds(self) -> int:
        return len(self.folds)

    def summary(self) -> pd.DataFrame:
        """Metric × (mean, se, pooled)."""
        return pd.DataFrame({"mean": self.mean, "se": self.se,
                             "pooled": pd.Series(self.pooled)}).rename_axis("metric")

    def _rows(self):
        return [(METRIC_NAMES[k], f"{self.mean[k]:.4f}", f"{self.se[k]:.4f}",
                 f"{self.pooled[k]:.4f}") for k in METRIC_NAMES]

    def __str__(self):
        head = (f"{self.n_folds}-fold {'stratified ' if self.stratified else ''}cross-validation "
                f"(seed {self.seed})\n{self.call}\n")
        rows = [("metric", "mean", "se", "pooled")] + self._rows()
        w = [max(len(r[j]) for r in rows) for j in range(4)]
        body = "\n".join("  ".join([r[0].ljust(w[0])] + [c.rjust(x) for c, x in zip(r[1:], w[1:])])
                         for r in rows)
        return head + body

    def __repr__(self):
        return str(self)

    def context(self) -> dict:
        """Plain data for templates."""
        return {"call": self.call, "n_folds": self.n_folds, "stratified": self.stratified,
                "seed": self.seed, "rows": self._rows(),
                "fold_header": list(self.folds.columns),
                "fold_rows": [[f"{v:.4f}" if isinstance(v, float) else str(v) for v in r]
                              for r in self.folds.itertuples(index=False)]}

    def html(self) -> str:
        return render_template("report/cv.html", **self.context())

    def _repr_html_(self):
        return self.html()


def _model_frame(formula, data, weights, na_action, positive):
    try:
        return build_model_frame(formula, data, weights=weights, na_action=na_action,
                                 positive=positive)
    except ResponseError as exc:
        if "distinct value" not in str(exc):   # not "more than two classes"
            raise
        try:
            return build_model_frame(formula, data, weights=weights, na_action=na_action,
                                     response="multiclass")
        except ResponseError:
            raise exc from None


def _held_out(model, newdata, classes):
    """(posteriors, observed classes, class order) of a fold's held-out rows;
    per-class posteriors in the order of the first fold (two classes: scored as
    P(second level), as binary fits)."""
    post = posteriors(model, newdata)
    if not isinstance(post, pd.DataFrame):
        return post.to_numpy(dtype=float), observed_classes(model, newdata).to_numpy(), classes
    if classes is None:
        classes = list(post.columns)
    post = post.reindex(columns=classes, fill_value=0.0)
    yk = observed_classes(model, newdata, levels=classes).to_numpy()
    p = post.to_numpy(dtype=float)
    return (p[:, 1] if len(classes) == 2 else p), yk, classes


def _call_string(formula, family, method, folds, stratified, seed, options) -> str:
    fam = "[" + ", ".join(map(repr, family)) + "]" if isinstance(family, list) else repr(family)
    parts = [repr(formula), "data", f"family={fam}", f"method={method!r}", f"folds={folds}",
             f"stratified={stratified}", f"seed={seed!r}"]
    parts += [f"{k}={v!r}" for k, v in options.items()]
    return f"ubreg.cv({', '.join(parts)})"


def cv(formula: str, data, family=None, method: str = "uls", folds: int = 10,
       stratified: bool = True, seed=None, weights=None, na_action: str = "drop",
       positive=None, refit: bool = True, show_progress: bool | None = None,
       scheduler=None, freq_weights=None, **fit_options) -> CVResult:
    """K-fold cross-validation of ``ubreg.fit(formula, data, family, method, ...)``.

    Parameters
    ----------
    formula, data, family, method, weights, na_action, positive, **fit_options
        As for :func:`ubreg.fit`; every fold calls it with these.  ``data`` is
        never modified.  ``weights`` (R's prior weights) or ``freq_weights``
        (frequency weights), a column name or one value per row of ``data``;
        the held-out metrics use them too.  The two kinds fit the same
        models (they differ in nobs, df and the robust covariance), so the
        folds are fitted with ``weights=`` and only the refit ``model``
        records which kind was given.
    folds : int
        Number of folds K (the papers use 10).
    stratified : bool
        Keep each class's share in every fold (to within one row).
    seed : int or numpy Generator, optional
        Makes the split reproducible.
    refit : bool
        Also fit on all the data (``result.model``), so that the CV result can
        be passed to :func:`ubreg.compare` and :func:`ubreg.report`.
    show_progress : bool, optional
        tqdm bar over the folds; by default only when stderr is a terminal.
    scheduler : distributed.Client or str, optional
        Fit the folds in parallel on a Dask cluster (or a local dask
        scheduler named "threads", "processes", "sync"); the split and the
        scoring stay here, so the results are identical (``ubreg[dask]``).
        Either way the warnings raised inside a fold reach the caller once
        each, in fold order, as ``"fold k: message"``.

    Returns
    -------
    CVResult
        Per-fold metrics (Brier score, log loss, AUC, error rate on the
        held-out part), their mean ± SE (SE = sd/√K), the pooled out-of-fold
        metrics and predictions.
    """
    from ..families import resolve_family
    from ..methods.fit import (  # late: ubreg.fit imports the method registry
        fit,
        resolve_weights,
    )

    data = as_frame(data, "data")
    weights, kind = resolve_weights(weights, freq_weights)
    fam = ([resolve_family(f) for f in family] if isinstance(family, (list, tuple))
           else resolve_family(family))
    frame = data.reset_index(drop=True)       # a new frame: positions as labels
    weights = _row_weights(weights, len(data))
    mf = _model_frame(formula, frame, weights, na_action, positive)
    pos = np.asarray(mf.index, dtype=int)     # positions of the complete rows
    fold = fold_assignment(mf.y, folds, stratified, seed)
    # family=None stays None, so that each fit knows no family was named
    fit_kw = dict(family=None if family is None else fam, method=method,
                  na_action=na_action, **fit_options)
    if positive is not None:
        fit_kw["positive"] = positive
    models = _fold_models(fit, formula, frame, pos, fold, folds, weights, fit_kw, scheduler,
                          progress(range(folds), desc=f"{folds}-fold CV ({method})",
                                   total=folds, show=show_progress))
    table, oof, y_oof, classes = _score_folds(models, frame, pos, fold, mf.weights)
    metrics = list(METRIC_NAMES)
    index = data.index[pos]
    predictions = (pd.DataFrame(oof, index=index, columns=classes) if oof.ndim == 2
                   else pd.Series(oof, index=index, name="cv_response"))
    weight_arg = {"weights" if kind == "prior" else "freq_weights": weights}
    full = fit(formula, data, **weight_arg, **fit_kw) if refit else None
    return CVResult(folds=table, mean=table[metrics].mean(),
                    se=table[metrics].std(ddof=1) / np.sqrt(folds),
                    pooled=classification_metrics(y_oof, oof, mf.weights),
                    predictions=predictions, fold=pd.Series(fold + 1, index=index, name="fold"),
                    model=full, formula=formula, method=method, family=fam, seed=seed,
                    stratified=stratified,
                    call=_call_string(formula, fam, method, folds, stratified, seed, fit_options))


def _row_weights(weights, n):
    """Weights given as values: a float array of one value per row of the data."""
    if weights is None or isinstance(weights, str):
        return weights
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (n,):
        raise ValueError(f"weights must have one value per row of data ({n}), "
                         f"got shape {weights.shape}")
    return weights


def _fold_models(fit, formula, frame, pos, fold, folds, weights, fit_kw, scheduler, ks):
    """Yield the model of each fold k of ``ks``, fitted on the other folds' rows: here,
    or all at once on a Dask scheduler; either way each fold's warnings reach the
    caller once each as ``"fold k: message"``."""
    if scheduler is not None:   # the same fits, on a Dask scheduler
        from ..dask import fit_folds
        fitted = fit_folds(scheduler, fit, formula, frame,
                           [pos[fold != k] for k in range(folds)], weights, fit_kw)
        yield from (fitted[k] for k in ks)
        return
    for k in ks:
        train = pos[fold != k]
        wk = (weights if isinstance(weights, str) or weights is None else weights[train])
        with record_warnings() as caught:
            model = fit(formula, frame.iloc[train], weights=wk, **fit_kw)
        reissue_warnings(caught, f"fold {k + 1}")
        yield model


def _score_folds(models, frame, pos, fold, w):
    """Each fold's metrics on its held-out rows, and the out-of-fold posteriors:
    (table, posteriors, observed classes, class order)."""
    records = []
    oof, y_oof, classes = None, np.full(len(pos), np.nan), None
    for k, model in enumerate(models):
        in_test = fold == k
        test = pos[in_test]
        p, yk, classes = _held_out(model, frame.iloc[test], classes)
        if oof is None:
            oof = np.full((len(pos),) + p.shape[1:], np.nan)
        oof[in_test] = p
        y_oof[in_test] = yk
        rec = {"fold": k + 1, "n_train": len(pos) - len(test), "n_test": len(test)}
        rec.update(classification_metrics(yk, p, w[in_test]))
        records.append(rec)
    return pd.DataFrame.from_records(records), oof, y_oof, classes
