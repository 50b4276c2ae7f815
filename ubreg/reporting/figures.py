"""Figures of a report: drawn on pyplot-free matplotlib Figures (Agg), encoded for HTML.

Using :class:`matplotlib.figure.Figure` directly (not pyplot) keeps report
rendering free of global state and of any interactive backend.  A figure
that fails — while drawing or while rendering to PNG, e.g. a mathtext error
— is kept as a :class:`ReportFigure` with its ``error``: the report shows a
note in its place instead of failing.
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from .. import plots
from ..plots.treeplot import depth_for_leaves, figure_size
from ..summary.render import shown_names

__all__ = ["ReportFigure", "model_figures", "figure_png_base64", "new_figure", "draw", "CAPTIONS",
           "error_text", "MAX_TREE_LEAVES"]

CAPTIONS = {
    "coefficients": "Coefficients with 95% Wald confidence intervals",
    "calibration": "Calibration (reliability) with Wilson intervals",
    "roc": "ROC curve",
    "margins": "Distribution of the normalised margins (eq. 42)",
    "risk_path": "Training risk per iteration",
    "edge_path": "Largest |edge| per iteration",
    "cv_risk": "Cross-validated risk path (± 1 SE)",
    "tree": ("Tree: the condition under a node holds on its left branch; leaves show the "
             "predicted class, p(y = 1) and n, coloured by p(y = 1)"),
}

#: a larger tree is drawn down to the depth that keeps at most this many leaves
MAX_TREE_LEAVES = 28
#: figures that take the full width of the HTML page and a page of their own in the PDF
#: (so does any figure drawn wider than the default 5 inches: coefficients with long names)
WIDE = ("tree",)
#: inches per character of a tick label (DejaVu Sans at 10 points, a little generous)
_CHAR_IN = 0.085


@dataclass
class ReportFigure:
    """One figure: its caption, the matplotlib Figure and its PNG as base64,
    or (when it failed) ``error``, the one-line reason."""

    name: str
    caption: str
    figure: object
    png_base64: str | None
    error: str | None = None
    options: dict | None = None      # passed to the plot function (again for the PDF)

    @property
    def wide(self) -> bool:
        return self.name in WIDE or (self.figure is not None
                                     and bool(self.figure.get_size_inches()[0] > 5.0))


def error_text(exc: BaseException, limit: int = 300) -> str:
    """``Type: message`` on one line (multi-line messages, such as matplotlib's
    mathtext parse errors, are joined; lines of only punctuation dropped)."""
    lines = [ln.strip() for ln in str(exc).splitlines()]
    lines = [ln for ln in lines if any(ch.isalnum() for ch in ln)]
    text = f"{type(exc).__name__}: {' | '.join(lines)}" if lines else type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


def new_figure(width: float = 5.0, height: float = 3.8, layout=None):
    """A pyplot-free Figure.  Report figures use fixed margins (see
    :func:`_margins`): constrained layout doubles the drawing time."""
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout=layout)


def _margins(fig, left_chars: int = 6):
    w, h = fig.get_size_inches()
    left = min(0.65, (0.55 + _CHAR_IN * left_chars) / w)
    fig.subplots_adjust(left=left, right=1 - 0.25 / w, bottom=0.55 / h, top=1 - 0.35 / h)


def figure_png_base64(fig, dpi: int = 100) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")


#: report figures have no top x axis: a fixed title position skips matplotlib's search
#: for one (a tenth of the drawing time)
RC = {"axes.titley": 1.0}


def draw(name, result, ax, newdata=None, cv_path=None, **options):
    """Draw the plot ``name`` of :mod:`ubreg.plots` for ``result`` on ``ax``.

    ``cv_path`` is a cross-validated risk path computed for the report
    (default: the one the result holds).
    """
    import matplotlib

    fn = getattr(plots, name)
    with matplotlib.rc_context(RC):
        if name in ("calibration", "roc", "margins"):
            return fn(result, ax=ax, newdata=newdata, **options)
        if name == "cv_risk":
            return fn(cv_path if cv_path is not None else result, ax=ax, **options)
        return fn(result, ax=ax, **options)


def _tree_layout(result):
    """(figure size, plot options) of a tree result: legible, at most MAX_TREE_LEAVES
    leaves."""
    depth = depth_for_leaves(result.tree, MAX_TREE_LEAVES)
    return figure_size(result.tree, depth), ({} if depth is None else {"max_depth": depth})


def _prepare(name, result):
    """A Figure and Axes with the size and margins of plot ``name``, and its options."""
    options = {}
    if name == "tree":
        size, options = _tree_layout(result)
        fig = new_figure(*size)
        ax = fig.add_subplot()
        w, h = size
        fig.subplots_adjust(left=0.1 / w, right=1 - 0.1 / w, bottom=0.1 / h, top=1 - 0.4 / h)
        return fig, ax, options
    labels = []
    size = (5.0, 3.8)
    if name == "coefficients":
        labels = shown_names(result.coef_table().index)     # as the plot shows them
        chars = max([6, *map(len, labels)])
        # the names, then 3 inches of axes (its x label is about 2.9 inches long)
        size = (max(5.0, 0.55 + _CHAR_IN * chars + 3.25),
                max(2.2, 0.32 * (len(labels) + 1) + 1.2))
    fig = new_figure(*size)
    ax = fig.add_subplot()
    _margins(fig, max([6, *map(len, labels)]))
    return fig, ax, options


def model_figures(result, newdata=None, cv_path=None) -> tuple[list[ReportFigure], list[str]]:
    """Every applicable diagnostic figure of ``result``, and notes.

    A plot that raises while it is drawn or rendered is returned with its
    ``error`` (and no image) instead of breaking the report.  ``cv_path`` (a
    cross-validated risk path computed for the report) adds the CV risk figure.
    """
    figures, notes = [], []
    names = plots.available(result, newdata)
    if cv_path is not None and "cv_risk" not in names:
        names.append("cv_risk")
    for name in names:
        caption = CAPTIONS.get(name, name)
        options = {}
        try:
            fig, ax, options = _prepare(name, result)
            draw(name, result, ax, newdata, cv_path=cv_path, **options)
            png = figure_png_base64(fig)
        # Any error: drawing runs matplotlib on user strings and user models, and the
        # report's promise is that a figure that cannot be drawn (a plot raising, a
        # mathtext error in savefig) becomes a note in its place, the report still written.
        except Exception as exc:  # noqa: BLE001 — one failed figure must not sink the report
            figures.append(ReportFigure(name, caption, None, None, error=error_text(exc)))
            continue
        if options.get("max_depth") is not None:
            caption += f" (drawn to depth {options['max_depth']}; dashed boxes are cut subtrees)"
        figures.append(ReportFigure(name, caption, fig, png, options=options))
    return figures, notes
