"""The HTML report: one self-contained file (inline CSS, figures as base64 PNG, no script)."""
from __future__ import annotations

from ..summary.render import render_template
from .context import ReportContext

__all__ = ["render_html"]


def render_html(ctx: ReportContext) -> str:
    """Render with the autoescaping template ``report/report.html``."""
    return render_template("report/report.html", ctx=ctx)
