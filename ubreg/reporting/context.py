"""Plain data for the report templates, built from fitted models.

Templates only render; everything they show is computed here, from the
:class:`~ubreg.results.base.Result` contract: a model's summary, metrics,
figures and CV risk path are those its declared capabilities promise
(:class:`~ubreg.results.base.Capabilities`).  An object that is not a Result
is shown by its metrics and the figures of its posteriors only.
"""
from __future__ import annotations

import datetime as _dt
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from markupsafe import Markup

from .._version import __version__
from ..design import as_frame
from ..evaluate.compare import as_model_and_cv, method_label, model_label
from ..evaluate.cv import CVResult
from ..evaluate.cv_risk import cv_risk as cross_validated_risk
from ..evaluate.metrics import METRIC_NAMES, metrics_of
from ..results.base import Result, capabilities_of
from ..results.linear import LinearResult
from .comparison_section import calibration_section, comparison_section
from .data_section import data_section
from .figures import ReportFigure, error_text, model_figures
from .lrt_section import likelihood_ratio_section
from .methods_section import methods_section, references_section
from .model_section import models_section, odds_ratio_section
from .trees_section import prune_trees, trees_section

__all__ = ["ModelSection", "ReportContext", "build_context", "versions"]


def versions() -> dict[str, str]:
    """Versions of ubreg, its main dependencies and Python (installed distributions,
    read without importing them)."""
    out = {"ubreg": __version__}
    for name in ("numpy", "pandas", "patsy", "scipy", "statsmodels", "matplotlib", "jinja2"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["python"] = sys.version.split()[0]
    out["platform"] = platform.platform()
    return out


@dataclass
class ModelSection:
    name: str
    anchor: str
    call: str
    method: str
    family: str
    summary_html: Markup | None
    summary_text: str
    metrics: list[tuple[str, str, str]]   # label, training value, evaluation-data value
    figures: list[ReportFigure]
    notes: list[str]
    cv: CVResult | None = None
    cv_html: Markup | None = None
    result: object = None       # the model, for re-drawing figures (PDF)
    newdata: object = None
    cv_path: object = None      # a CV risk path computed for the report


@dataclass
class ReportContext:
    title: str
    generated: str
    call: str
    versions: dict
    #: the analysis, in order: data, models, odds ratios, comparison, calibration, trees
    sections: list
    #: one section per model (its summary, metrics, diagnostics): the appendix
    models: list[ModelSection]
    data_note: str | None = None
    notes: list[str] = field(default_factory=list)


def _summary(result, cluster: Any = None) -> tuple[Markup | None, str]:
    """(HTML, text) of the model's summary (cluster-robust for a linear fit, with
    ``cluster``); an object that is not a Result has none."""
    if not isinstance(result, Result):
        return None, f"(no summary: a {type(result).__name__} is not a ubreg result)"
    s = (result.summary(cluster=cluster)
         if cluster is not None and isinstance(result, LinearResult) else result.summary())
    # summary.html() is rendered by ubreg's own autoescaping templates
    return Markup(s.html()), str(s)


def _metric_rows(result, data) -> list[tuple[str, str, str]]:
    train = metrics_of(result) if capabilities_of(result).has_training_rows else {}
    held = metrics_of(result, data) if data is not None else {}
    fmt = lambda v: "" if v is None else f"{v:.4f}"  # noqa: E731
    return [(label, fmt(train.get(k)), fmt(held.get(k))) for k, label in METRIC_NAMES.items()]


def _cv_risk_path(result, cv_risk, notes: list):
    """The CV risk path computed for the report (``cv_risk`` truthy), or None.

    Only for results that declare ``has_cv_path`` (U-Boost); :func:`ubreg.cv_risk`
    refits them on the folds, seed 1.  Folds that cannot be formed (more folds
    than rows of a class, say) give a note instead.
    """
    if not cv_risk or not capabilities_of(result).has_cv_path:
        return None
    folds = 10 if cv_risk is True else int(cv_risk)
    try:
        path = cross_validated_risk(result, folds=folds, seed=1)
    except ValueError as exc:       # bad folds: the report goes on without the path
        notes.append(f"CV risk path: not computed ({error_text(exc)})")
        return None
    notes.append(f"CV risk path ({folds}-fold, seed 1): least mean held-out risk at "
                 f"mstop = {path.mstop}, 1-SE rule {path.mstop_1se}; this model runs "
                 f"mstop = {result.mstop}.")
    return path


def _section(i: int, name: str, item, data, cv_risk, cluster: Any = None) -> ModelSection:
    """One model's section: summary, metrics, figures and notes."""
    result, cv = as_model_and_cv(item)
    summary_html, summary_text = _summary(result, cluster)
    notes: list[str] = []
    cv_path = _cv_risk_path(result, cv_risk, notes)
    figures, fig_notes = model_figures(result, newdata=data, cv_path=cv_path)
    notes += fig_notes
    try:
        metrics = _metric_rows(result, data)
    except ValueError as exc:       # the data cannot be scored (no response column, ...)
        metrics = []
        notes.append(f"metrics: not computed ({error_text(exc)})")
    return ModelSection(
        name=name, anchor=f"model-{i + 1}",
        call=str(result.call) if isinstance(result, Result) else "",
        method=method_label(result), family=model_label(result).split(" · ", 1)[1],
        summary_html=summary_html, summary_text=summary_text, metrics=metrics,
        figures=figures, notes=notes, cv=cv, result=result, newdata=data, cv_path=cv_path,
        cv_html=Markup(cv.html()) if cv is not None else None)


def build_context(models: dict, title: str, call: str, data=None, cv_risk: bool | int = False,
                  training_data=None, prune: str | None = "1se",
                  cluster: Any = None) -> ReportContext:
    """Everything the HTML and PDF reports show, as plain data.

    ``models`` maps names to results or CV results; trees are pruned first
    (:func:`~ubreg.reporting.trees_section.prune_trees`), so that the pruned tree
    stands for its model in every section; ``cluster`` makes the standard errors of
    the linear fits cluster-robust (summaries and the models table).
    """
    models, trees = prune_trees(models, prune)
    results, cvs = {}, {}
    for name, item in models.items():
        results[name], cvs[name] = as_model_and_cv(item)
    training = None if training_data is None else as_frame(training_data, "training_data")
    sections = [methods_section(results, cvs, training),
                data_section(training, results), models_section(results, cvs, cluster),
                odds_ratio_section(results, cluster), likelihood_ratio_section(results),
                comparison_section(results, cvs),
                calibration_section(results, cvs, data), trees_section(trees),
                references_section(results)]
    model_sections = [_section(i, name, item, data, cv_risk, cluster)
                      for i, (name, item) in enumerate(models.items())]
    data_note = None
    if data is not None:
        data_note = (f"Calibration, ROC, margins and the second metrics column are computed on "
                     f"the data passed to the report ({len(data)} rows), not the training rows.")
    now = _dt.datetime.now(_dt.timezone.utc)
    return ReportContext(title=title, call=call, versions=versions(),
                         generated=now.strftime("%Y-%m-%d %H:%M UTC"),
                         sections=[s for s in sections if s is not None],
                         models=model_sections, data_note=data_note)
