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
from typing import TYPE_CHECKING, Any

from .. import plots
from ..plots.treeplot import depth_for_leaves, figure_size
from ..summary.render import shown_names

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = ["ReportFigure", "model_figures", "figure_png_base64", "new_figure", "draw", "CAPTIONS",
           "error_text", "MAX_TREE_LEAVES", "section_figure", "paint", "SECTION_CAPTIONS",
           "FIGURE_ERRORS"]

CAPTIONS = {
    "coefficients": ("Coefficients per SD of each numeric predictor (0/1 indicators per "
                     "unit) with 95% Wald confidence intervals"),
    "calibration": "Calibration (reliability) with Wilson intervals",
    "roc": "ROC curve",
    "margins": ("Distribution of the normalised margins μ = y*(2p̂ − 1) (Nock & Nielsen "
                "2009): how surely each row is put in its own class, from −1 (surely wrong) "
                "to 1 (surely right),"),
    "risk_path": ("Training risk per iteration: the surrogate risk the fit minimises, which "
                  "levels off as the fit converges"),
    "edge_path": ("Largest |edge| per iteration: how much the best next step could still "
                  "lower the risk, shrinking as the fit converges"),
    "cv_risk": "Cross-validated risk path (± 1 SE)",
    "tree": ("Tree: the condition under a node holds on its left branch; leaves show the "
             "predicted class, p(y = 1) and n, coloured by p(y = 1)"),
}

#: figures of the posteriors: drawn on the training rows unless held-out data are given,
#: and then labelled so (optimistic; the comparison's figures are cross-validated)
POSTERIOR_FIGURES = ("calibration", "roc", "margins")

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
    figure: Figure | None
    png_base64: str | None
    error: str | None = None
    options: dict | None = None      # passed to the plot function (again for the PDF)
    #: a section figure: what :func:`paint` draws (for the PDF, again, on a page)
    payload: object = None
    size: tuple[float, float] | None = None     # inches, of the HTML figure
    block = "figure"                 # what the templates dispatch on

    @property
    def wide(self) -> bool:
        if self.payload is not None:
            return True
        return self.name in WIDE or (self.figure is not None
                                     and bool(self.figure.get_size_inches()[0] > 5.0))


def error_text(exc: BaseException, limit: int = 300) -> str:
    """``Type: message`` on one line (multi-line messages, such as matplotlib's
    mathtext parse errors, are joined; lines of only punctuation dropped)."""
    lines = [ln.strip() for ln in str(exc).splitlines()]
    lines = [ln for ln in lines if any(ch.isalnum() for ch in ln)]
    text = f"{type(exc).__name__}: {' | '.join(lines)}" if lines else type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


def new_figure(width: float = 5.0, height: float = 3.8, layout=None) -> Figure:
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
RC: dict[RcKeyType, Any] = {"axes.titley": 1.0}


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
    figures: list[ReportFigure] = []
    notes: list[str] = []
    names = plots.available(result, newdata)
    if cv_path is not None and "cv_risk" not in names:
        names.append("cv_risk")
    for name in names:
        caption = CAPTIONS.get(name, name)
        if name in POSTERIOR_FIGURES:
            caption += (" on the training rows (optimistic)" if newdata is None
                        else " on the held-out data")
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


# ---------------------------------------------------------------------------
# section figures: several models at once, drawn by paint() on any region
# ---------------------------------------------------------------------------
#: what drawing a section figure may raise (matplotlib's mathtext errors are ValueErrors;
#: a singular covariance a LinAlgError, which is one too): a note in the figure's place
FIGURE_ERRORS = (ValueError, TypeError, ArithmeticError, LookupError, RuntimeError)

SECTION_CAPTIONS = {
    "odds_ratio_forest": ("Odds ratios per SD of each numeric predictor (0/1 indicators per "
                          "unit), log scale, with 95% intervals (profile likelihood where "
                          "available)"),
    "calibration_grid": ("Calibration of every model on shared axes: observed frequency "
                         "against mean posterior per bin of 0.1, with 95% Wilson intervals; "
                         "the number above a point is the rows in its bin"),
    "pruned_tree": CAPTIONS["tree"],
}


def _inches(fig, rect):
    w, h = fig.get_size_inches()
    return rect[0] * w, rect[1] * h, rect[2] * w, rect[3] * h


def _inset(fig, rect, left=0.1, right=0.1, bottom=0.1, top=0.1):
    """``rect`` (figure fractions) less margins given in inches."""
    w, h = fig.get_size_inches()
    x, y, rw, rh = rect
    return (x + left / w, y + bottom / h, max(rw - (left + right) / w, 0.05),
            max(rh - (bottom + top) / h, 0.05))


def _paint_forest(fig, rect, models):
    from ..plots.effects import has_term_scales
    scale = "sd" if all(has_term_scales(m) for m in models.values()) else "raw"
    from ..plots.effects import effects
    labels = shown_names(list(dict.fromkeys(
        t for m in models.values() for t in effects(m, scale="raw").index)))
    chars = max([6, *map(len, labels)])
    ax = fig.add_axes(_inset(fig, rect, left=0.2 + 0.8 * _CHAR_IN * chars, right=0.15,
                             bottom=0.5, top=0.15))
    plots.odds_ratio_forest(models, ax=ax, scale=scale)
    return ax


def _paint_calibration(fig, rect, posteriors):
    return plots.calibration_grid(posteriors, fig=fig, rect=_inset(fig, rect, left=0.6,
                                                                   right=0.1, bottom=0.45,
                                                                   top=0.3))


def _paint_tree(fig, rect, payload):
    result, options = payload
    ax = fig.add_axes(_inset(fig, rect, 0.05, 0.05, 0.05, 0.3))     # its title above
    return plots.tree(result, ax=ax, **options)


#: section figures are set at about the size of the report's running text
SECTION_RC: dict[RcKeyType, Any] = {**RC, "font.size": 8.0, "axes.titlesize": 8.5,
                                    "axes.labelsize": 8.0, "xtick.labelsize": 7.5,
                                    "ytick.labelsize": 7.5, "legend.fontsize": 7.0}


def with_rc(fn):
    """Call ``fn`` with the section figures' matplotlib settings."""
    import matplotlib
    with matplotlib.rc_context(SECTION_RC):
        return fn()


PAINTERS = {"odds_ratio_forest": _paint_forest, "calibration_grid": _paint_calibration,
            "pruned_tree": _paint_tree}


def paint(f: ReportFigure, fig, rect):
    """Draw the section figure ``f`` on ``fig`` inside ``rect`` (figure fractions)."""
    return with_rc(lambda: PAINTERS[f.name](fig, rect, f.payload))


def _section_size(name, payload) -> tuple[float, float]:
    if name == "odds_ratio_forest":
        from ..plots.effects import effects
        terms = {t for m in payload.values() for t in effects(m, scale="raw").index}
        return 6.8, max(2.4, 0.22 * len(terms) * max(1, len(payload)) ** 0.5 + 1.3)
    if name == "calibration_grid":
        rows, _ = plots.grid_shape(len(payload))
        return 6.8, 2.25 * rows + 0.8
    size, _ = _tree_layout(payload[0])
    return min(size[0], 9.5), min(size[1], 6.5)


def section_figure(name: str, payload, caption: str | None = None) -> ReportFigure:
    """A figure of a report section (``name`` one of :data:`PAINTERS`), drawn now for the
    HTML; the PDF paints it again on its page.  A figure that cannot be drawn becomes a
    :class:`ReportFigure` with its error, as in :func:`model_figures`."""
    caption = caption or SECTION_CAPTIONS[name]
    try:
        size = _section_size(name, payload)
        fig = new_figure(*size)
        paint(ReportFigure(name, caption, None, None, payload=payload), fig, (0, 0, 1, 1))
        png = figure_png_base64(fig)
    except FIGURE_ERRORS as exc:    # the section shows a note in its place
        return ReportFigure(name, caption, None, None, error=error_text(exc), payload=payload)
    return ReportFigure(name, caption, fig, png, payload=payload, size=size)
