"""The PDF report: a short paper typeset with matplotlib's PdfPages.

Why matplotlib and not an HTML-to-PDF converter: it needs nothing beyond the
pip-installed dependencies.  WeasyPrint needs the system libraries Pango and
HarfBuzz, wkhtmltopdf and Chromium are system programs; matplotlib ships its
own fonts (DejaVu) and PDF backend, so ``ubreg demo`` writes a PDF on any
machine where ``pip install ubreg`` worked.

The layout (:mod:`.pdf_layout`): A4 pages, numbered sections with the HTML
report's content (data, models, odds ratios, comparison, calibration, trees) as
wrapped text, booktabs tables and vector figures, then an appendix with each
model's summary (as R prints it, in a monospaced block wrapped to the page at
spaces, never inside a word: :func:`~.pdf_layout.wrap_code`) and a row of its
diagnostics, and the software versions.  All text stays inside the text block of
the page.  A table, or a model's heading with its printed summary, that fits on a
page is set on one page (:meth:`~.pdf_layout.Document.keep_together`).
"""
from __future__ import annotations

from .blocks import Paragraph, Row, Table
from .context import ReportContext
from .figures import ReportFigure, draw, error_text, paint
from .pdf_layout import PAGE, Document, wrap, wrap_code

__all__ = ["write_pdf", "APPENDIX_PANELS"]

#: the diagnostics drawn for each model in the appendix, the first three it has
#: (calibration is in its own section, the tree in the trees section)
APPENDIX_PANELS = ("roc", "coefficients", "cv_risk", "risk_path", "margins", "t_margins")
_MONO_SIZE = 6.3
_MONO_CHAR = 0.602      # advance of a DejaVu Sans Mono character, in ems


def _mono_lines(doc: Document, text: str) -> list[str]:
    """A printed summary's lines, wrapped to the text width at spaces (:func:`wrap_code`)."""
    from ..summary.render import visible_text

    per_line = int(doc.width / (_MONO_SIZE * _MONO_CHAR * 1.02))
    return [piece for raw in visible_text(str(text), newlines=True).split("\n")
            for piece in wrap_code(raw.replace("\t", "    "), per_line)]


def _mono_height(lines: list[str]) -> float:
    return len(lines) * _MONO_SIZE * 1.3 + 6


def _mono(doc: Document, lines: list[str]):
    """A monospaced block (a model's printed summary), one line of ``lines`` a line."""
    for piece in lines:
        doc.need(_MONO_SIZE * 1.3)
        doc.y += _MONO_SIZE * 1.3
        doc.canvas.text(doc.left / PAGE[0], 1 - doc.y / PAGE[1], piece,
                        fontsize=_MONO_SIZE, family="DejaVu Sans Mono", va="baseline",
                        parse_math=False)
    doc.y += 6


def _caption(doc: Document, text: str, number: int):
    doc.paragraph(f"Figure {number}. {text}", size=8, color="0.25", after=8)


def _caption_height(doc: Document, text: str, number: int) -> float:
    return doc.paragraph_height(f"Figure {number}. {text}", size=8, after=8)


def _failed(doc: Document, f: ReportFigure, number: int):
    doc.paragraph(f"Figure {number}. {f.caption}: not drawn ({f.error})", size=8,
                  color="#8a4b00", after=8)


def _wide_page(doc: Document, f: ReportFigure, number: int):
    """A section figure (calibration panels, a forest plot, a tree) across the text
    block, as tall as its HTML figure's proportions ask (at most most of a page),
    with its caption under it; a failed figure is a note in its place."""
    if f.error is not None:
        _failed(doc, f, number)
        return
    assert f.size is not None       # section_figure() sizes every figure it drew
    width, height = f.size
    tall = min(doc.width * height / width, (doc.bottom - doc.top) * 0.8)
    doc.keep_together(tall + _caption_height(doc, f.caption, number))     # with its caption
    rect = doc.region(tall)
    try:
        paint(f, doc.canvas, rect)
    # Any error, as for the HTML figures: the figure becomes a note, the PDF is written.
    except Exception as exc:  # noqa: BLE001 — one failed figure must not sink the report
        for ax in list(doc.canvas.axes):
            if _inside(ax, rect):
                ax.remove()
        f = ReportFigure(f.name, f.caption, None, None, error=error_text(exc))
        _failed(doc, f, number)
        return
    _caption(doc, f.caption, number)


def _inside(ax, rect) -> bool:
    box = ax.get_position()
    return rect[1] - 1e-9 <= box.y0 and box.y1 <= rect[1] + rect[3] + 1e-9


def _figure_pages(doc: Document, section, number: int) -> int:
    """A row of up to three of the model's diagnostics (:data:`APPENDIX_PANELS`), drawn
    again as vector graphics; a figure that failed for the HTML, or fails here, is a
    note in its panel.  Returns the next figure number."""
    chosen = [f for name in APPENDIX_PANELS for f in section.figures if f.name == name][:3]
    if not chosen:
        return number
    narrow = [f for f in chosen if not f.wide]
    caption = f"{section.name}: " + "; ".join(f.caption for f in chosen) + "."
    rects = []
    if narrow:
        # the row of panels on the page of its caption
        doc.keep_together(150.0 + (0.0 if len(narrow) < len(chosen) else
                                   _caption_height(doc, caption, number)))
        x0, y0, w, h = doc.region(150.0)
        # room inside each third for the y labels (left) and the x label (below)
        rects += [(x0 + (k + 0.22) * w / 3, y0 + 0.24 * h, 0.74 * w / 3, 0.64 * h)
                  for k in range(len(narrow))]
    for f in chosen:
        if f.wide:              # coefficients with long names: a row of their own
            rects.append(_wide_panel(doc, f))
    for f, rect in zip(narrow + [f for f in chosen if f.wide], rects):
        ax = doc.canvas.add_axes(rect)
        if f.error is None:
            try:
                draw(f.name, section.result, ax, section.newdata, cv_path=section.cv_path,
                     **(f.options or {}))
                _small(ax)
                continue
            # Any error, as for the HTML figures (figures.model_figures): a figure that
            # cannot be drawn is a note in its panel, and the PDF is still written.
            except Exception as exc:  # noqa: BLE001 — drawn once already for the HTML
                f = ReportFigure(f.name, f.caption, None, None, error=error_text(exc))
        ax.clear()
        ax.axis("off")
        ax.text(0.5, 0.5, "\n".join(wrap(f"{f.caption}: not drawn ({f.error})", 120, 6)),
                ha="center", va="center", fontsize=6, color="#8a4b00", parse_math=False,
                transform=ax.transAxes)
    _caption(doc, caption, number)
    return number + 1


def _wide_panel(doc: Document, f: ReportFigure):
    """The region of a panel across the text block, tall enough for its y labels (the
    HTML figure's), its left part wide enough for them at the appendix's size."""
    width, height = f.figure.get_size_inches() if f.figure is not None else (6.0, 3.0)
    tall = min(max(120.0, height * 72 * 0.6), (doc.bottom - doc.top) * 0.7)
    x0, y0, w, h = doc.region(tall)
    left = min(0.6 * w, (f.figure.subplotpars.left * width * 72 * 0.6 / PAGE[0]
                         if f.figure is not None else 0.2 * w))
    return (x0 + left, y0 + 0.3 * h * 120 / tall, w - left - 0.02 * w, h * (1 - 0.36 * 120 / tall))


def _small(ax):
    """Shrink a diagnostic panel's text to the appendix's size; a title wider than its
    panel is wrapped."""
    width = ax.get_position().width * PAGE[0] * 1.15      # a title may pass its axes a little
    ax.title.set_text("\n".join(wrap(ax.title.get_text(), width, 7)))
    ax.title.set_fontsize(7)
    ax.xaxis.label.set_fontsize(6)
    ax.yaxis.label.set_fontsize(6)
    ax.tick_params(labelsize=5.5)
    legend = ax.get_legend()
    if legend is not None:
        for text in legend.get_texts():
            text.set_fontsize(5.5)


def _front(doc: Document, ctx: ReportContext):
    doc.new_page()
    doc.heading(ctx.title, size=17, keep=40)
    doc.paragraph(f"Generated {ctx.generated} by ubreg {ctx.versions['ubreg']}.", size=8.5,
                  color="0.3", after=2)
    doc.paragraph(f"Produced by: {ctx.call}", size=7.5, color="0.3", after=8)
    if ctx.data_note:
        doc.paragraph(ctx.data_note, size=8.5, color="#8a4b00")


def _paragraph_size(block: Paragraph) -> float:
    return 8.5 if block.kind == "note" else 9.5


def _lead_height(doc: Document, title: str, blocks: list, number: int) -> float:
    """A section's heading, the paragraphs that open it and the table after them: kept on
    one page when they fit (a table moved on alone would leave its heading behind)."""
    height = doc.heading_height(title)
    for block in blocks:
        if isinstance(block, Paragraph):
            height += doc.paragraph_height(block.text, _paragraph_size(block))
            continue
        if isinstance(block, Table):
            height += doc.table_height(block, number)
        break
    return height


def _section_blocks(doc: Document, ctx: ReportContext) -> tuple[int, int]:
    """The numbered sections; returns the next table and figure numbers."""
    tables = figures = 1
    for i, section in enumerate(ctx.sections, 1):
        doc.keep_together(_lead_height(doc, f"{i}  {section.title}", section.blocks, tables))
        doc.heading(f"{i}  {section.title}")
        for block in section.blocks:
            if isinstance(block, Paragraph):
                doc.paragraph(block.text, size=_paragraph_size(block),
                              color="#7a4a10" if block.kind == "note" else "black")
            elif isinstance(block, Table):
                doc.table(block, tables)
                tables += 1
            else:
                _wide_page(doc, block, figures)
                figures += 1
    return tables, figures


def _entry_texts(s) -> list[tuple[str, float, str]]:
    """The lines of running text above a model's summary: (text, size, colour)."""
    texts = [(f"Method {s.method}, family {s.family}.", 8.5, "black")]
    metrics = "; ".join(f"{label} {train}" for label, train, _ in s.metrics if train)
    if metrics:
        texts.append((f"Training rows: {metrics}.", 8.5, "black"))
    if s.cv is not None:
        texts.append((f"Cross-validation ({s.cv.n_folds} folds, seed {s.cv.seed}): "
                      + "; ".join(f"{label} {mean} ± {se}"
                                  for label, mean, se, _ in s.cv.context()["rows"]) + ".",
                      8.5, "black"))
    return texts + [(note, 8, "#7a4a10") for note in s.notes]


def _entry_height(doc: Document, s, texts: list, lines: list[str]) -> float:
    """A model's heading, its paragraphs and its printed summary, in points."""
    return (doc.heading_height(s.name, 11)
            + sum(doc.paragraph_height(t, size, after=2) for t, size, _ in texts)
            + _mono_height(lines))


def _appendix(doc: Document, ctx: ReportContext, tables: int, figures: int) -> None:
    title = "Appendix A  The models one by one"
    entries = [(s, _entry_texts(s), _mono_lines(doc, s.summary_text)) for s in ctx.models]
    if entries:         # the appendix's heading not alone at the foot of a page
        doc.keep_together(doc.heading_height(title) + _entry_height(doc, *entries[0]))
    doc.heading(title)
    for s, texts, lines in entries:
        # the heading, its paragraphs and the printed summary on one page when they fit
        doc.keep_together(_entry_height(doc, s, texts, lines))
        doc.heading(s.name, size=11, keep=150)
        for text, size, color in texts:
            doc.paragraph(text, size=size, color=color, after=2)
        _mono(doc, lines)
        figures = _figure_pages(doc, s, figures)
    rows = [Row([name, version]) for name, version in ctx.versions.items()]
    versions = Table("versions", "Versions of ubreg, its dependencies and Python.",
                     ["Software", "Version"], rows, align="ll", stub_names=False)
    title = "Appendix B  Software versions"
    doc.keep_together(doc.heading_height(title, 11) + doc.table_height(versions, tables))
    doc.heading(title, size=11, keep=60)
    doc.table(versions, tables)


def write_pdf(ctx: ReportContext, path) -> None:
    """Write the report as a PDF (see the module notes)."""
    from matplotlib.backends.backend_pdf import PdfPages

    from ..summary.render import visible_text

    meta = {"Title": visible_text(ctx.title, newlines=False),
            "Creator": f"ubreg {ctx.versions['ubreg']}"}
    with PdfPages(path, metadata=meta) as pdf:
        doc = Document(pdf, ctx.title)
        _front(doc, ctx)
        _appendix(doc, ctx, *_section_blocks(doc, ctx))
        doc.finish_page()
