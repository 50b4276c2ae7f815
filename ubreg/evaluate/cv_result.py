"""What cross-validation returns: :class:`CVResult`, made from scored folds, in memory
(:mod:`ubreg.evaluate.cv`) and on Dask frames (:mod:`ubreg.evaluate.cv_dask`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd

from ..summary.render import render_template
from .metrics import METRIC_NAMES, classification_metrics

if TYPE_CHECKING:
    from ..families import Family
    from ..results.base import Result

__all__ = ["CVResult", "Seed", "ScoredFolds", "LOWER_IS_BETTER", "cv_call_string",
           "scored_result", "formula_variables_in"]

#: the seed of a fold split (:func:`numpy.random.default_rng`'s)
Seed: TypeAlias = "int | np.random.Generator | None"
#: the scored folds (:func:`_score_folds`): the table of the folds' metrics, the
#: out-of-fold posteriors, the observed classes and the class order (None: binary)
ScoredFolds: TypeAlias = "tuple[pd.DataFrame, np.ndarray, np.ndarray, list[Any] | None]"

#: metrics of which less is better (the AUC is the other way round)
LOWER_IS_BETTER = {"brier": True, "log_loss": True, "auc": False, "error_rate": True}


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
    observed, row_weights : Series
        The observed classes (coded as the posteriors: 0/1, or codes in the order of
        the prediction columns) and the weights of the rows in ``predictions``.
    rows_note : str
        Which rows were used, when they were chosen for a comparison (:func:`cv_models`).
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
    rows_note: str = ""
    observed: object = None
    row_weights: object = None

    @property
    def n_folds(self) -> int:
        return len(self.folds)

    def summary(self) -> pd.DataFrame:
        """Metric × (mean, se, pooled)."""
        return pd.DataFrame({"mean": self.mean, "se": self.se,
                             "pooled": pd.Series(self.pooled)}).rename_axis("metric")

    def _rows(self) -> list[tuple[str, str, str, str]]:
        return [(METRIC_NAMES[k], f"{self.mean[k]:.4f}", f"{self.se[k]:.4f}",
                 f"{self.pooled[k]:.4f}") for k in METRIC_NAMES]

    def __str__(self) -> str:
        head = (f"{self.n_folds}-fold {'stratified ' if self.stratified else ''}cross-validation "
                f"(seed {self.seed})\n{self.call}\n")
        rows = [("metric", "mean", "se", "pooled")] + self._rows()
        w = [max(len(r[j]) for r in rows) for j in range(4)]
        body = "\n".join("  ".join([r[0].ljust(w[0])] + [c.rjust(x) for c, x in zip(r[1:], w[1:])])
                         for r in rows)
        return head + body

    def __repr__(self) -> str:
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

    def _repr_html_(self) -> str:
        return self.html()


def cv_call_string(formula: str, family: Family | list[Family], method: str, folds: int,
                 stratified: bool, seed: Seed, options: dict[str, Any]) -> str:
    fam = "[" + ", ".join(map(repr, family)) + "]" if isinstance(family, list) else repr(family)
    parts = [repr(formula), "data", f"family={fam}", f"method={method!r}", f"folds={folds}",
             f"stratified={stratified}", f"seed={seed!r}"]
    parts += [f"{k}={v!r}" for k, v in options.items()]
    return f"ubreg.cv({', '.join(parts)})"


def scored_result(scored: ScoredFolds, index: pd.Index, fold: np.ndarray, weights: np.ndarray,
            model: Result | None, **fields: Any) -> CVResult:
    """The CVResult of the scored folds (:func:`_score_folds`) of the complete rows
    ``index``."""
    table, oof, y_oof, classes = scored
    metrics = list(METRIC_NAMES)
    predictions = (pd.DataFrame(oof, index=index, columns=classes) if oof.ndim == 2
                   else pd.Series(oof, index=index, name="cv_response"))
    return CVResult(folds=table, mean=table[metrics].mean(),
                    se=table[metrics].std(ddof=1) / np.sqrt(len(table)),
                    pooled=classification_metrics(y_oof, oof, weights), predictions=predictions,
                    fold=pd.Series(fold + 1, index=index, name="fold"), model=model,
                    observed=pd.Series(y_oof, index=index, name="observed"),
                    row_weights=pd.Series(np.asarray(weights, dtype=float), index=index,
                                          name="weights"), **fields)


def formula_variables_in(formula: str, data: pd.DataFrame) -> list[str]:
    """The columns of ``data`` that ``formula`` reads (response first; ``y ~ .`` expanded)."""
    from ..design.parse import expand_dot, formula_variables, parse_formula

    desc = parse_formula(expand_dot(formula, data.columns), data.columns)
    return [v for v in formula_variables(desc) if v in data.columns]
