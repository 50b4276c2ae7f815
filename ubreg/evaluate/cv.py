"""``ubreg.cv``: K-fold cross-validation of any method, by calling ``ubreg.fit`` per fold.

The protocol of the papers' experiments: (stratified) K-fold splits of the
complete rows, one fit per training part, the metrics of its posteriors on the
held-out part, and the mean ± standard error over the folds.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..design import ModelFrame, aligned, as_frame, build_model_frame, is_dask_frame
from ..errors import ResponseError
from ..numerics.folds import fold_assignment
from ..numerics.progress import progress
from ..numerics.warnings import record_warnings, reissue_warnings
from .cv_result import (
    LOWER_IS_BETTER,
    CVResult,
    ScoredFolds,
    Seed,
    cv_call_string,
    formula_variables_in,
    scored_result,
)
from .metrics import METRIC_NAMES, classification_metrics, observed_classes, posteriors

if TYPE_CHECKING:
    import dask.dataframe as dd

    from ..families import Family
    from ..methods.fit import FamilyArgument, Weights
    from ..results.base import Result

__all__ = ["cv", "CVResult", "cv_models", "common_rows", "same_folds", "paired_differences",
           "fold_differences", "NOISE_LEVEL", "LOWER_IS_BETTER", "formula_variables_in"]


def _model_frame(formula: str, data: pd.DataFrame, weights: np.ndarray | str | None,
                 na_action: str, positive: Any) -> ModelFrame:
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


def _held_out(model: Result, newdata: pd.DataFrame,
              classes: list[Any] | None) -> tuple[np.ndarray, np.ndarray, list[Any] | None]:
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


def cv(formula: str, data: pd.DataFrame | dd.DataFrame | dict[str, Any],
       family: FamilyArgument = None,
       method: str = "uls", folds: int = 10, stratified: bool = True, seed: Seed = None,
       weights: Weights | None = None, na_action: str = "drop", positive: Any = None,
       refit: bool = True, show_progress: bool | None = None, scheduler: Any = None,
       freq_weights: Weights | None = None, fold: ArrayLike | None = None,
       **fit_options: Any) -> CVResult:
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
    fold : array-like of int, optional
        The fold (1..K) of every row of ``data``, instead of a split drawn here
        (:func:`cv_models` gives every model the same folds so).
    refit : bool
        Also fit on all the data (``result.model``), for :func:`ubreg.compare`
        and :func:`ubreg.report`.
    show_progress : bool, optional
        tqdm bar over the folds; by default only when stderr is a terminal.
    scheduler : distributed.Client or str, optional
        Fit the folds in parallel on a Dask cluster (or a local dask
        scheduler named "threads", "processes", "sync"); the split and the
        scoring stay here, so the results are identical (``ubreg[dask]``).
        Either way the warnings raised inside a fold reach the caller once
        each, in fold order, as ``"fold k: message"``.

    A Dask ``data`` (methods with a Dask backend): every fold fitted on it, the
    folds drawn from the rows' hashes, not stratified (:mod:`ubreg.evaluate.cv_dask`).

    Returns
    -------
    CVResult
        Per-fold metrics (Brier score, log loss, AUC, error rate on the
        held-out part), their mean ± SE (SE = sd/√K), the pooled out-of-fold
        metrics and predictions.
    """
    from ..methods.fit import fit, resolve_weights  # late: it imports the method registry

    weights, kind = resolve_weights(weights, freq_weights)
    fam = _family_of_folds(family, method)
    fit_kw = _fold_fit_kw(family, fam, method, na_action, positive, fit_options)
    if is_dask_frame(data):     # every fold fitted on the Dask frame (ubreg.evaluate.cv_dask)
        from .cv_dask import cv_dask
        return cv_dask(formula, cast("dd.DataFrame", data), fam=fam, fit_kw=fit_kw,
                       weights=weights, kind=kind, folds=folds, seed=seed, refit=refit,
                       show_progress=show_progress, scheduler=scheduler, fold=fold,
                       fit_options=fit_options)
    data = as_frame(data, "data")
    frame = data.reset_index(drop=True)       # a new frame: positions as labels
    weights = _row_weights(aligned(weights, data, "weights"), len(data))
    mf = _model_frame(formula, frame, weights, na_action, positive)
    pos = np.asarray(mf.index, dtype=int)     # positions of the complete rows
    fold, folds = _given_folds(fold, len(data), pos) if fold is not None else \
        (fold_assignment(mf.y, folds, stratified, seed), folds)
    fold_kw = _with_shared_options(formula, frame, weights, fit_kw, scheduler)
    models = _fold_models(fit, formula, frame, pos, fold, folds, weights, fold_kw, scheduler,
                          progress(range(folds), desc=f"{folds}-fold CV ({method})",
                                   total=folds, show=show_progress))
    scored = _score_folds(models, frame, pos, fold, mf.weights)
    weight_arg: dict[str, Any] = {"weights" if kind == "prior" else "freq_weights": weights}
    full = fit(formula, data, **weight_arg, **fit_kw) if refit else None
    return scored_result(scored, data.index[pos], fold, mf.weights, full, formula=formula,
                   method=method, family=fam, seed=seed, stratified=stratified,
                   call=cv_call_string(formula, fam, method, folds, stratified, seed, fit_options))


def _with_shared_options(formula: str, frame: pd.DataFrame, weights: np.ndarray | str | None,
                         fit_kw: dict[str, Any], scheduler: Any) -> dict[str, Any]:
    """``fit_kw`` and what the method computes once for all the folds
    (``Method.cv_options``: gnnb's neighbour graph) when they are fitted here."""
    from ..methods.registry import METHODS  # late: it imports every method

    entry = METHODS.get(fit_kw["method"])
    if scheduler is not None or entry is None or entry.cv_options is None:
        return fit_kw
    return {**fit_kw, **entry.cv_options(formula, frame, weights, fit_kw)}


def _family_of_folds(family: FamilyArgument, method: str) -> Family | list[Family]:
    """The family (or families) the folds are fitted with: ``family``, or with none named
    the method's default (udt: gini)."""
    from ..families import resolve_family
    from ..methods.registry import METHODS
    if family is None and method in METHODS:
        family = METHODS[method].default_family
    if isinstance(family, (list, tuple)):
        return [resolve_family(f) for f in family]
    return resolve_family(family)


def _fold_fit_kw(family: FamilyArgument, fam: Family | list[Family], method: str,
                 na_action: str, positive: Any, fit_options: dict[str, Any]) -> dict[str, Any]:
    """What every fold's ``ubreg.fit`` receives besides the formula, data and weights;
    ``family=None`` stays None, so that each fit knows no family was named."""
    fit_kw = dict(family=None if family is None else fam, method=method,
                  na_action=na_action, **fit_options)
    if positive is not None:
        fit_kw["positive"] = positive
    return fit_kw


def _given_folds(fold: ArrayLike, n: int, pos: np.ndarray) -> tuple[np.ndarray, int]:
    """The 0-based folds of the complete rows ``pos`` from ``fold`` (1..K, one per row of
    the data), and K."""
    fold = np.asarray(fold)
    if fold.shape != (n,) or not np.issubdtype(fold.dtype, np.integer) or fold.min() < 1:
        raise ValueError(f"fold must hold one fold number 1..K per row of data ({n})")
    mine = fold[pos] - 1
    k = int(fold.max())
    if len(np.unique(mine)) != k:
        raise ValueError(f"fold: some of the folds 1..{k} hold no complete row of this model")
    return mine, k


def _row_weights(weights: Weights | None, n: int) -> np.ndarray | str | None:
    """Weights given as values: a float array of one value per row of the data."""
    if weights is None or isinstance(weights, str):
        return weights
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (n,):
        raise ValueError(f"weights must have one value per row of data ({n}), "
                         f"got shape {weights.shape}")
    return weights


def _fold_models(fit: Callable[..., Result], formula: str, frame: pd.DataFrame,
                 pos: np.ndarray, fold: np.ndarray, folds: int,
                 weights: np.ndarray | str | None, fit_kw: dict[str, Any], scheduler: Any,
                 ks: Iterable[int]) -> Iterator[Result]:
    """Yield the model of each fold k of ``ks``, fitted on the other folds' rows: here,
    or all at once on a Dask scheduler; either way each fold's warnings reach the
    caller once each as ``"fold k: message"``."""
    if scheduler is not None:   # the same fits, on a Dask scheduler
        from .parallel import fit_folds
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


def _score_folds(models: Iterable[Result], frame: pd.DataFrame, pos: np.ndarray,
                 fold: np.ndarray, w: np.ndarray) -> ScoredFolds:
    """Each fold's metrics on its held-out rows, and the out-of-fold posteriors:
    (table, posteriors, observed classes, class order)."""
    records = []
    oof: np.ndarray | None = None
    y_oof, classes = np.full(len(pos), np.nan), None
    for k, model in enumerate(models):
        in_test = fold == k
        test = pos[in_test]
        p, yk, classes = _held_out(model, frame.iloc[test], classes)
        if oof is None:
            oof = np.full((len(pos),) + p.shape[1:], np.nan)
        oof[in_test] = p
        y_oof[in_test] = yk
        rec: dict[str, float] = {"fold": k + 1, "n_train": len(pos) - len(test),
                                 "n_test": len(test)}
        rec.update(classification_metrics(yk, p, w[in_test]))
        records.append(rec)
    assert oof is not None, "no fold scored"    # folds >= 1: the loop ran
    return pd.DataFrame.from_records(records), oof, y_oof, classes


# ---------------------------------------------------------------------------
# several models on equal footing: the same rows, the same folds
# ---------------------------------------------------------------------------
def common_rows(data: pd.DataFrame | dict[str, Any], formulas: Iterable[str],
                weights: Weights | None = None) -> pd.Index:
    """The rows of ``data`` complete in every variable any of ``formulas`` reads (and in
    ``weights``, a column name): the rows on which models of different methods can be
    compared.  A tree (``udt``) would otherwise keep rows that a linear fit drops.

    Returns
    -------
    pandas.Index
        The labels of the complete rows, in the order of ``data``.
    """
    data = as_frame(data, "data")
    names: dict[str, None] = {}
    for formula in formulas:
        names.update(dict.fromkeys(formula_variables_in(formula, data)))
    if isinstance(weights, str):
        names[weights] = None
    complete = data[list(names)].notna().all(axis=1)
    return data.index[complete.to_numpy()]


def cv_models(specs: Mapping[str, Mapping[str, Any]], data: pd.DataFrame | dict[str, Any],
              folds: int = 10, seed: int = 1, stratified: bool = True,
              show_progress: bool | None = None, **common: Any) -> dict[str, CVResult]:
    """Cross-validate several models on equal footing: the same rows, the same folds.

    Parameters
    ----------
    specs : dict
        ``{name: {"formula": ..., "family": ..., "method": ..., **options}}``; each
        value holds the arguments of :func:`cv` for one model.
    data : DataFrame
        The data; only the rows complete in every variable of every formula are used
        (:func:`common_rows`), so that no model is scored on rows another drops.
    folds, seed, stratified
        One split of those rows, drawn once (on the response of the first formula) and
        given to every model.
    **common
        Further arguments of :func:`cv` for every model (``weights=``, ...).

    Returns
    -------
    dict
        ``{name: CVResult}``; every result has the same ``fold`` (:func:`same_folds`),
        so fold-paired differences are meaningful (:func:`paired_differences`).
    """
    data = as_frame(data, "data")
    formulas = [spec["formula"] for spec in specs.values()]
    rows = common_rows(data, formulas, common.get("weights"))
    used = data.loc[rows]
    first = _model_frame(formulas[0], used.reset_index(drop=True), None, "drop",
                         common.get("positive"))
    if len(first.y) != len(used):
        raise ValueError("cv_models: the complete rows lost rows in the model frame")
    fold = fold_assignment(first.y, folds, stratified, seed) + 1
    out = {}
    for name, spec in specs.items():
        spec = dict(spec)
        formula = spec.pop("formula")
        res = cv(formula, used, folds=folds, stratified=stratified, seed=seed, fold=fold,
                 show_progress=show_progress, **spec, **common)
        res.call = (f"ubreg.evaluate.cv.cv_models({{{name!r}: ...}}, data, folds={folds}, "
                    f"seed={seed!r}, stratified={stratified}): {res.call}")
        res.rows_note = (f"the {len(used)} rows of {len(data)} complete in the variables of all "
                         f"{len(specs)} models")
        out[name] = res
    return out


def same_folds(cvs: Iterable[CVResult]) -> bool:
    """Whether cross-validations were run on the same rows with the same folds (their
    ``fold`` Series are equal, labels and fold numbers)."""
    cvs = list(cvs)
    first = cvs[0].fold
    return all(c.fold.index.equals(first.index) and np.array_equal(c.fold.to_numpy(),
                                                                   first.to_numpy())
               for c in cvs[1:])


#: the familywise level of the report's "within noise / clearly worse" verdict
NOISE_LEVEL = 0.05


def paired_differences(cvs: Mapping[str, CVResult], metric: str = "log_loss",
                       alpha: float = NOISE_LEVEL) -> pd.DataFrame:
    """Each model's cross-validated ``metric`` and its fold-paired difference to the best.

    Parameters
    ----------
    cvs : dict
        ``{name: CVResult}`` on the same rows and folds (:func:`same_folds`).
    metric : str
        A key of :data:`~ubreg.evaluate.metrics.METRIC_NAMES`; the best model has the
        least mean (the largest for the AUC).
    alpha : float
        The familywise level of the verdicts (:func:`fold_differences`).

    Returns
    -------
    DataFrame
        :func:`fold_differences` of the folds' metrics.
    """
    if metric not in METRIC_NAMES:
        raise ValueError(f"metric must be one of {list(METRIC_NAMES)}, got {metric!r}")
    if not same_folds(cvs.values()):
        raise ValueError("paired differences need cross-validations on the same rows and "
                         "folds (ubreg.evaluate.cv.cv_models)")
    table = pd.DataFrame({name: c.folds.set_index("fold")[metric] for name, c in cvs.items()})
    return fold_differences(table, LOWER_IS_BETTER[metric], alpha)


#: fold scores that differ by no more than this are ties (two fits of one model)
TIE_TOLERANCE = 1e-12


def fold_differences(table: pd.DataFrame, lower_is_better: bool,
                     alpha: float = NOISE_LEVEL) -> pd.DataFrame:
    """Each model's difference to the best, paired fold by fold, and its verdict.

    A model is "within noise" of the best unless a two-sided paired t test of its K
    fold differences (K − 1 degrees of freedom) rejects at familywise level ``alpha``
    after Holm's adjustment over all m(m − 1)/2 pairs of models: the best is chosen on
    the same folds, so adjusting over the m − 1 comparisons with it alone is not enough
    (7% false calls among four equally good models at K = 5); over every pair, any
    "worse" among equally good models is a false rejection of that family.  (Two
    standard errors on the normal scale, unadjusted, called one of four equally good
    models worse in 9.5% of comparisons at K = 10 and 37% at K = 5.)  The standard
    errors treat the folds as independent; the training parts overlap, so they
    understate the uncertainty somewhat.

    Parameters
    ----------
    table : DataFrame
        One row per fold, one column per model: the fold's metric.
    lower_is_better : bool
        The best model has the least mean (else the largest).
    alpha : float
        The familywise level.

    Returns
    -------
    DataFrame
        Indexed by model: ``mean`` and ``se`` (over the folds), ``diff`` (the model's
        metric minus the best model's, fold by fold, averaged), ``diff_se`` (the standard
        deviation of the fold differences over √K), ``t``, ``p_adjusted`` (Holm),
        ``within_noise``, ``best`` and ``tied`` (the model's fold scores equal the best
        model's within :data:`TIE_TOLERANCE` on every fold: the best model and every
        model tied with it).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    means = table.mean()
    best = means.idxmin() if lower_is_better else means.idxmax()
    diff = table.sub(table[best], axis=0)
    k = len(table)
    out = pd.DataFrame({"mean": means, "se": table.std(ddof=1) / np.sqrt(k),
                        "diff": diff.mean(), "diff_se": diff.std(ddof=1) / np.sqrt(k)})
    values = table.to_numpy(dtype=float)
    pairs = [(i, j) for i in range(values.shape[1]) for j in range(i + 1, values.shape[1])]
    p_pairs = _holm(np.array([_paired_t(values[:, i] - values[:, j])[1] for i, j in pairs]))
    b = out.index.get_loc(best)
    adjusted = np.ones(len(out))
    for (i, j), q in zip(pairs, p_pairs):
        if b in (i, j):
            adjusted[j if i == b else i] = q
    out["t"] = [_paired_t(diff.iloc[:, c].to_numpy())[0] for c in range(len(out))]
    out["p_adjusted"] = adjusted
    out["within_noise"] = ~(out["p_adjusted"] < alpha)
    out["best"] = out.index == best
    out["tied"] = (diff.abs() <= TIE_TOLERANCE).all().to_numpy()
    return out.rename_axis("model")


def _paired_t(d: np.ndarray) -> tuple[float, float]:
    """t and the two-sided p-value of K paired differences (K − 1 df); (0, 1) when the
    differences are all zero."""
    from scipy import stats
    k, mean = len(d), float(np.mean(d))
    sd = float(np.std(d, ddof=1)) if k > 1 else 0.0
    if mean == 0.0 or not sd > 0.0:
        return (0.0, 1.0) if mean == 0.0 else (float(np.sign(mean) * np.inf), 0.0)
    t = mean / (sd / np.sqrt(k))
    return t, float(2.0 * stats.t.sf(abs(t), df=k - 1))


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values."""
    order = np.argsort(p, kind="mergesort")
    m = len(p)
    out = np.empty(m)
    out[order] = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    return out
