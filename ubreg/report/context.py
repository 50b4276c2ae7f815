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

from .. import __version__
from ..compare import as_model_and_cv, compare, model_label
from ..metrics import METRIC_NAMES, metrics_of
from .figures import ReportFigure, model_figures

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
    except Exception as exc:  # noqa: BLE001
        return None, f"(no summary: {type(exc).__name__}: {exc})"
    html = getattr(s, "html", None)
    # summary.html() is rendered by ubreg's own autoescaping templates
    return (Markup(html()) if callable(html) else None), str(s)


def _metric_rows(result, data) -> list[tuple[str, str, str]]:
    train = metrics_of(result)
    held = metrics_of(result, data) if data is not None else {}
    fmt = lambda v: "" if v is None else f"{v:.4f}"  # noqa: E731
    return [(label, fmt(train.get(k)), fmt(held.get(k))) for k, label in METRIC_NAMES.items()]


def build_context(models: dict, title: str, call: str, data=None) -> ReportContext:
    """Everything the HTML and PDF reports show, as plain data."""
    comparison = compare(models)
    sections, notes = [], []
    for i, (name, item) in enumerate(models.items()):
        result, cv = as_model_and_cv(item)
        summary_html, summary_text = _summary(result)
        figures, fig_notes = model_figures(result, newdata=data)
        try:
            metrics = _metric_rows(result, data)
        except Exception as exc:  # noqa: BLE001
            metrics = []
            fig_notes.append(f"metrics: not computed ({type(exc).__name__}: {exc})")
        sections.append(ModelSection(
            name=name, anchor=f"model-{i + 1}", call=str(getattr(result, "call", "")),
            method=str(getattr(result, "method", "?")),
            family=model_label(result).split(" · ", 1)[1],
            summary_html=summary_html, summary_text=summary_text, metrics=metrics,
            figures=figures, notes=fig_notes, cv=cv, result=result, newdata=data,
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
