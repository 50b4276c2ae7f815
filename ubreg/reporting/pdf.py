"""The PDF report, written with matplotlib's PdfPages: text pages and figures.

Why matplotlib and not an HTML-to-PDF converter: it needs nothing beyond the
pip-installed dependencies.  WeasyPrint needs the system libraries Pango and
HarfBuzz, wkhtmltopdf and Chromium are system programs; matplotlib ships its
own fonts (DejaVu) and PDF backend, so ``ubreg demo`` writes a PDF on any
machine where ``pip install ubreg`` worked.
"""
from __future__ import annotations

import textwrap

from ..summary.render import visible_text
from .context import ReportContext
from .figures import draw, error_text, new_figure

__all__ = ["write_pdf"]

_PAGE = (8.27, 11.69)          # A4 portrait, inches
_FONT_SIZE = 6.6
_LINES_PER_PAGE = 96
_WIDTH = 130                   # characters per line at that size


def _wrap(lines):
    for line in lines:
        if len(line) <= _WIDTH:
            yield line
        else:
            yield from textwrap.wrap(line, _WIDTH, subsequent_indent="    ",
                                     drop_whitespace=False) or [""]


def _lines(text) -> list[str]:
    """The lines of a text, split at newlines only: hidden characters that ``splitlines``
    would obey (U+2028, U+0085, form feed, ...) are shown as ``<U+XXXX>`` instead."""
    return visible_text(str(text)).split("\n")


def _text_pages(pdf, heading: str, lines: list[str]):
    """Monospaced text pages; every line and the heading shown by :func:`visible_text`."""
    heading = visible_text(heading, newlines=False)
    lines = list(_wrap([visible_text(line, newlines=False) for line in lines]))
    chunks = [lines[i:i + _LINES_PER_PAGE] for i in range(0, max(len(lines), 1), _LINES_PER_PAGE)]
    for k, chunk in enumerate(chunks):
        fig = new_figure(*_PAGE)
        title = heading if k == 0 else f"{heading} (continued)"
        fig.text(0.06, 0.97, title, fontsize=11, weight="bold", va="top", parse_math=False)
        fig.text(0.06, 0.945, "\n".join(chunk), family="monospace", fontsize=_FONT_SIZE,
                 va="top", linespacing=1.25, parse_math=False)
        pdf.savefig(fig)


_LANDSCAPE = (_PAGE[1], _PAGE[0])


def _failed_panel(ax, f):
    ax.axis("off")
    note = visible_text(f"{f.caption}: not drawn ({f.error})", newlines=False)
    ax.text(0.5, 0.5, "\n".join(textwrap.wrap(note, 48)),
            ha="center", va="center", fontsize=8, color="#8a4b00", parse_math=False,
            transform=ax.transAxes)


def _figure_pages(pdf, section):
    """The section's diagnostics re-drawn as vector graphics: six panels per
    A4 page, a wide figure (the tree) on an A4 landscape page of its own.  A
    figure that failed for the HTML is a note in its panel."""
    small = [f for f in section.figures if not f.wide]
    for start in range(0, len(small), 6):
        chunk = small[start:start + 6]
        fig = new_figure(*_PAGE)     # fixed spacing: constrained layout is several times slower
        fig.suptitle(visible_text(f"{section.name}: diagnostics", newlines=False), fontsize=11,
                     weight="bold", parse_math=False)
        grid = {"left": 0.1, "right": 0.96, "bottom": 0.05, "top": 0.92, "hspace": 0.38,
                "wspace": 0.6}
        axes = fig.subplots(3, 2, gridspec_kw=grid).ravel()
        for ax, f in zip(axes, chunk):
            if f.error is not None:
                _failed_panel(ax, f)
                continue
            try:
                draw(f.name, section.result, ax, section.newdata, cv_path=section.cv_path,
                     **(f.options or {}))
            # Any error, as for the HTML figures (figures.model_figures): a figure that
            # cannot be drawn is a note in its panel, and the PDF is still written.
            except Exception as exc:  # noqa: BLE001 — drawn once already for the HTML
                ax.clear()
                _failed_panel(ax, type(f)(f.name, f.caption, None, None, error=error_text(exc)))
        for ax in axes[len(chunk):]:
            ax.axis("off")
        pdf.savefig(fig)
    for f in section.figures:
        if f.wide:
            _wide_page(pdf, section, f)


def _wide_page(pdf, section, f):
    """A wide figure on a page of its own: the tree on A4 landscape; any other (coefficients
    with long names) on A4 portrait, with the left margin of its HTML figure for the names
    and tick labels small enough not to overlap."""
    tree = f.name == "tree"
    fig = new_figure(*(_LANDSCAPE if tree else _PAGE))
    fig.suptitle(visible_text(f"{section.name}: {f.name}", newlines=False), fontsize=11,
                 weight="bold", parse_math=False)
    fig.text(0.03, 0.02, "\n".join(textwrap.wrap(f.caption, 150 if tree else 110)),
             fontsize=8, color="0.3", va="bottom", parse_math=False)
    if tree or f.figure is None:
        ax = fig.add_axes((0.03, 0.07, 0.94, 0.84))
    else:
        width, height = f.figure.get_size_inches()
        left = min(0.7, f.figure.subplotpars.left * width / _PAGE[0])
        height = min(0.84, max(0.25, height / _PAGE[1]))      # the HTML figure's, at most
        ax = fig.add_axes((left, 0.91 - height, 0.96 - left, height))
    if f.error is not None:
        _failed_panel(ax, f)
    else:
        try:
            draw(f.name, section.result, ax, section.newdata, **(f.options or {}))
            if not tree:
                per_tick = height * _PAGE[1] * 72 / (len(ax.get_yticks()) + 1)
                ax.tick_params(axis="y", labelsize=min(10.0, 0.75 * per_tick))
        # Any error, as for the HTML figures: the page shows a note instead of the figure.
        except Exception as exc:  # noqa: BLE001 — one failed figure must not sink the report
            ax.clear()
            _failed_panel(ax, type(f)(f.name, f.caption, None, None, error=error_text(exc)))
    pdf.savefig(fig)


def write_pdf(ctx: ReportContext, path) -> None:
    """Write the report as a PDF: overview and comparison text, then per model
    its summary text, metrics and diagnostic figures."""
    from matplotlib.backends.backend_pdf import PdfPages

    meta = {"Title": visible_text(ctx.title, newlines=False),
            "Creator": f"ubreg {ctx.versions['ubreg']}"}
    with PdfPages(path, metadata=meta) as pdf:
        head = [f"Generated {ctx.generated}", "", "Produced by:", f"  {ctx.call}", "",
                "Versions: " + ", ".join(f"{k} {v}" for k, v in ctx.versions.items()), ""]
        if ctx.data_note:
            head += [ctx.data_note, ""]
        head += ["Model comparison", ""] + _lines(ctx.comparison.text(width=_WIDTH))
        _text_pages(pdf, ctx.title, head)
        for s in ctx.sections:
            lines = [f"Method: {s.method}    Family: {s.family}", ""]
            if s.call not in s.summary_text:
                lines += ["Call:", f"  {s.call}", ""]
            lines += _lines(s.summary_text)
            lines += ["", "Metrics (train / evaluation data):"]
            lines += [f"  {label:<12} {train:>8} {held:>8}" for label, train, held in s.metrics]
            if s.cv is not None:
                lines += ["", *_lines(s.cv)]
            lines += ["", *s.notes]
            _text_pages(pdf, s.name, lines)
            if s.figures:
                _figure_pages(pdf, s)
