"""Plain data for the report templates, built from fitted models.

Templates only render; everything they show is computed here, from the
:class:`~ubreg.results.base.Result` protocol (duck-typed for what only some
methods have: ``coef_table``, ``summary().html()``, trees, CV).
"""
from __future__ import annotations

import datetime as _dt
import platform
import sys
from dataclasses import dataclass, field

from markupsafe import Markup

from .. import plots
from .._version import __version__
from ..evaluate.compare import as_model_and_cv, compare, model_label
from ..evaluate.metrics import METRIC_NAMES, metrics_of
from .figures import ReportFigure, error_text, model_figures

__all__ = ["ModelSection", "ReportContext", "build_context", "versions"]


def versions() -> dict[str, str]:
    """Versions of ubreg, its main dependencies and Python."""
    out = {"ubreg": __version__}
    for name in ("numpy", "pandas", "patsy", "scipy", "statsmodels", "matplotlib", "jinja2"):
        try:
            out[name] = __import__(name).__version__
        except Exception:  # noqa: BLE001
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
    cv: object = None
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
    comparison_html: Markup
    comparison: object          # the Comparison (text form for the PDF)
    sections: list[ModelSection]
    data_note: str | None = None
    notes: list[str] = field(default_factory=list)


def _summary(result) -> tuple[Markup | None, str]:
    try:
        s = result.summary()
        text = str(s)
    except Exception as exc:  # noqa: BLE001
        return None, f"(no summary: {error_text(exc)})"
    html = getattr(s, "html", None)
    try:
        # summary.html() is rendered by ubreg's own autoescaping templates
        return (Markup(html()) if callable(html) else None), text
    except Exception:  # noqa: BLE001 — the text form is shown instead
        return None, text


def _metric_rows(result, data) -> list[tuple[str, str, str]]:
    train = metrics_of(result)
    held = metrics_of(result, data) if data is not None else {}
    fmt = lambda v: "" if v is None else f"{v:.4f}"  # noqa: E731
    return [(label, fmt(train.get(k)), fmt(held.get(k))) for k, label in METRIC_NAMES.items()]


def _cv_risk_path(result, cv_risk, notes: list):
    """The CV risk path computed for the report (``cv_risk`` truthy), or None.

    Only for results with a ``cv_risk(folds, seed)`` method (U-Boost) that do
    not already hold a path; failures become a note.
    """
    if not cv_risk or "cv_risk" in plots.available(result):
        return None
    method = getattr(result, "cv_risk", None)
    if not callable(method):
        return None
    folds = 10 if cv_risk is True else int(cv_risk)
    try:
        path = method(folds=folds, seed=1)
    except Exception as exc:  # noqa: BLE001 — the report goes on without it
        notes.append(f"CV risk path: not computed ({error_text(exc)})")
        return None
    best, one_se = getattr(path, "mstop", None), getattr(path, "mstop_1se", None)
    if best is not None:
        used = getattr(result, "mstop", None)
        notes.append(f"CV risk path ({folds}-fold, seed 1): least mean held-out risk at "
                     f"mstop = {best}" + (f", 1-SE rule {one_se}" if one_se is not None else "")
                     + (f"; this model runs mstop = {used}." if used is not None else "."))
    return path


def build_context(models: dict, title: str, call: str, data=None,
                  cv_risk: bool | int = False) -> ReportContext:
    """Everything the HTML and PDF reports show, as plain data."""
    comparison = compare(models)
    sections, notes = [], []
    for i, (name, item) in enumerate(models.items()):
        result, cv = as_model_and_cv(item)
        summary_html, summary_text = _summary(result)
        path_notes: list[str] = []
        cv_path = _cv_risk_path(result, cv_risk, path_notes)
        figures, fig_notes = model_figures(result, newdata=data, cv_path=cv_path)
        fig_notes = path_notes + fig_notes
        try:
            metrics = _metric_rows(result, data)
        except Exception as exc:  # noqa: BLE001
            metrics = []
            fig_notes.append(f"metrics: not computed ({error_text(exc)})")
        sections.append(ModelSection(
            name=name, anchor=f"model-{i + 1}", call=str(getattr(result, "call", "")),
            method=str(getattr(result, "method", "?")),
            family=model_label(result).split(" · ", 1)[1],
            summary_html=summary_html, summary_text=summary_text, metrics=metrics,
            figures=figures, notes=fig_notes, cv=cv, result=result, newdata=data,
            cv_path=cv_path,
            cv_html=Markup(cv.html()) if cv is not None and callable(getattr(cv, "html", None))
            else None))
    data_note = None
    if data is not None:
        data_note = (f"Calibration, ROC, margins and the second metrics column are computed on "
                     f"the data passed to the report ({len(data)} rows), not the training rows.")
    now = _dt.datetime.now(_dt.timezone.utc)
    return ReportContext(title=title, call=call, versions=versions(),
                         generated=now.strftime("%Y-%m-%d %H:%M UTC"),
                         comparison_html=Markup(comparison.html()), comparison=comparison,
                         sections=sections, data_note=data_note, notes=notes)
