"""Figures of a report: drawn on pyplot-free matplotlib Figures (Agg), encoded for HTML.

Using :class:`matplotlib.figure.Figure` directly (not pyplot) keeps report
rendering free of global state and of any interactive backend.
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from .. import plots

__all__ = ["ReportFigure", "model_figures", "figure_png_base64", "new_figure", "draw", "CAPTIONS"]

CAPTIONS = {
    "coefficients": "Coefficients with 95% Wald confidence intervals",
    "calibration": "Calibration (reliability) with Wilson intervals",
    "roc": "ROC curve",
    "margins": "Distribution of the normalised margins (eq. 42)",
    "risk_path": "Surrogate risk per iteration",
    "edge_path": "Largest |edge| per iteration",
    "cv_risk": "Cross-validated risk path (± 1 SE)",
    "tree": "Tree",
}


@dataclass
class ReportFigure:
    """One figure: its caption, the matplotlib Figure, and its PNG as base64."""

    name: str
    caption: str
    figure: object
    png_base64: str


def new_figure(width: float = 5.0, height: float = 3.8, layout=None):
    """A pyplot-free Figure.  Report figures use fixed margins (see
    :func:`_margins`): constrained layout doubles the drawing time."""
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout=layout)


def _margins(fig, left_chars: int = 6):
    w, h = fig.get_size_inches()
    left = min(0.6, (0.55 + 0.075 * left_chars) / w)
    fig.subplots_adjust(left=left, right=1 - 0.25 / w, bottom=0.55 / h, top=1 - 0.35 / h)


def figure_png_base64(fig, dpi: int = 100) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def draw(name, result, ax, newdata=None):
    """Draw the plot ``name`` of :mod:`ubreg.plots` for ``result`` on ``ax``."""
    fn = getattr(plots, name)
    if name in ("calibration", "roc", "margins"):
        return fn(result, ax=ax, newdata=newdata)
    if name == "cv_risk":
        return fn(result.cv_risk, ax=ax)
    return fn(result, ax=ax)


def model_figures(result, newdata=None) -> tuple[list[ReportFigure], list[str]]:
    """Every applicable diagnostic figure of ``result``, and notes on those that failed.

    A plot that raises is reported as a note instead of breaking the report.
    """
    figures, notes = [], []
    for name in plots.available(result):
        size = (7.0, 5.0) if name == "tree" else (5.0, 3.8)
        if name == "coefficients":
            n_terms = len(result.coef_table()) + 1
            size = (5.0, max(2.2, 0.32 * n_terms + 1.2))
        fig = new_figure(*size)
        ax = fig.add_subplot()
        labels = [str(t) for t in result.coef_table().index] if name == "coefficients" else []
        _margins(fig, max([6, *map(len, labels)]))
        try:
            draw(name, result, ax, newdata)
        except Exception as exc:  # noqa: BLE001 — one failed figure must not sink the report
            notes.append(f"{CAPTIONS.get(name, name)}: not drawn ({type(exc).__name__}: {exc})")
            continue
        figures.append(ReportFigure(name, CAPTIONS.get(name, name), fig, figure_png_base64(fig)))
    return figures, notes
