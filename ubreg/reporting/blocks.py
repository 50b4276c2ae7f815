"""The building blocks of a report, rendered alike by the HTML template and the PDF writer.

A report is a list of :class:`Section` objects (each with a stable anchor), each an
ordered list of blocks: :class:`Paragraph`, :class:`Table` and
:class:`~ubreg.reporting.figures.ReportFigure`.  Blocks hold plain strings and
numbers already formatted; the renderers only lay them out.  User strings stay raw
here: the HTML template escapes them (autoescaping) and shows hidden characters,
the PDF writer applies :func:`~ubreg.summary.render.visible_text`, and both shorten
long names in a table's first column (:func:`~ubreg.summary.render.shown_names`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Paragraph", "Row", "Table", "Section", "fmt", "fmt_interval", "fmt_count",
           "fixed_pm", "slug"]


@dataclass
class Paragraph:
    """Running text; ``kind`` ``"note"`` is set apart (smaller, coloured)."""

    text: str
    kind: str = "p"
    block = "paragraph"          # what the templates dispatch on


@dataclass
class Row:
    """One table row.

    ``kind``: ``"body"``; ``"second"`` (the standard errors under an estimate row,
    greyed, no rule); ``"first"`` (a body row with a rule above it: the start of
    a block, such as the goodness-of-fit rows); ``"mark"`` (a highlighted row: the
    chosen tree, the best model).
    """

    cells: list
    kind: str = "body"


@dataclass
class Table:
    """A table: header, rows, caption and notes (footnotes under the table)."""

    id: str
    caption: str
    header: list
    rows: list
    notes: list = field(default_factory=list)
    #: one letter per column: "l" left, "r" right
    align: str = ""
    #: the first column holds user names (terms, models, variables): shown shortened
    stub_names: bool = True
    block = "table"

    def __post_init__(self):
        if not self.align:
            self.align = "l" + "r" * (len(self.header) - 1)
        for row in self.rows:
            if len(row.cells) != len(self.header):
                raise ValueError(f"table {self.id}: a row has {len(row.cells)} cells for "
                                 f"{len(self.header)} columns")


@dataclass
class Section:
    """A section of the report, with its anchor (``id``) and ordered blocks."""

    id: str
    title: str
    blocks: list = field(default_factory=list)

    def add(self, *blocks) -> Section:
        self.blocks.extend(b for b in blocks if b is not None)
        return self

    def text(self, text: str, kind: str = "p") -> Section:
        return self.add(Paragraph(text, kind))


def fmt(v, digits: int = 3) -> str:
    """A number with ``digits`` significant digits (at least one decimal when below
    10^digits), positional for moderate values; empty for NaN or None."""
    if v is None:
        return ""
    v = float(v)
    if v != v:
        return ""
    if v in (float("inf"), float("-inf")):
        return "Inf" if v > 0 else "-Inf"
    if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
        return f"{v:.{digits - 1}e}"
    if abs(v) >= 10 ** digits:
        return f"{v:.0f}"
    return f"{v:#.{digits}g}".rstrip(".")


def fmt_interval(lo, hi, digits: int = 3) -> str:
    """``[lo, hi]``; empty when a limit is missing."""
    a, b = fmt(lo, digits), fmt(hi, digits)
    return f"[{a}, {b}]" if a and b else ""


def fmt_count(v) -> str:
    """A count (rows, observations): an integer when it is one, else 4 significant digits."""
    if v is None or float(v) != float(v):
        return ""
    v = float(v)
    return f"{v:.0f}" if v == round(v) else fmt(v, 4)


def fixed_pm(mean, se, decimals: int = 4) -> str:
    """``mean ± se`` with a fixed number of decimals (scores of one scale, side by side)."""
    if mean is None or float(mean) != float(mean):
        return ""
    text = f"{float(mean):.{decimals}f}"
    return text if se is None or float(se) != float(se) else f"{text} ± {float(se):.{decimals}f}"


def slug(name: str) -> str:
    """A model name as part of an HTML ``id`` (a table's anchor): letters and digits, the
    rest hyphens, at most 40 characters."""
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:40] or "model"
