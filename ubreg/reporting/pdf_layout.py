"""A small typesetter for the PDF report: flowing text, booktabs tables and figures on
A4 pages, drawn with matplotlib (nothing beyond the pip-installed dependencies).

:class:`Document` keeps a cursor on the current page and breaks pages itself:
paragraphs are wrapped to the text width with the widths of the DejaVu Sans
glyphs (measured once per character, :func:`text_width`), tables are laid out to
the text width (their font shrinks to :data:`MIN_TABLE_SIZE`, then long header and
first-column cells wrap, then the columns are split into blocks, the first column
repeated) and split across pages with their header repeated; figures get a
region of the page to draw in.  Every string drawn goes through
:func:`~ubreg.summary.render.visible_text` (hidden characters shown as
``<U+XXXX>``) and is drawn as literal text (``parse_math=False``).  Nothing is
drawn outside the text block, so no text leaves the page.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ..summary.render import shown_names, visible_text
from .blocks import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Document", "text_width", "wrap", "wrap_code", "layout", "TableBlock", "PAGE",
           "MARGINS", "MIN_TABLE_SIZE"]

#: A4 portrait in points
PAGE = (595.28, 841.89)
#: left, right, top, bottom margins in points (the text block is 15.5 × 24.5 cm)
MARGINS = (70.0, 70.0, 64.0, 64.0)
BODY_SIZE = 9.5
TABLE_SIZE = 8.0
MIN_TABLE_SIZE = 6.0
_NOTE_SIZE = max(MIN_TABLE_SIZE, TABLE_SIZE - 1)       # a table's notes
_PAD = 4.0            # points between table columns, each side
_SAFETY = 1.02        # measured widths are sums of glyph advances: a margin for kerning


@cache
def _glyph_width(ch: str, bold: bool) -> float:
    """Advance of one character of DejaVu Sans at 10 points, in points."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop = FontProperties(family="DejaVu Sans", size=10, weight="bold" if bold else "normal")
    width, _, _ = TextToPath().get_text_width_height_descent(ch if ch != " " else "a a", prop,
                                                               ismath=False)
    if ch == " ":
        width -= 2 * _glyph_width("a", bold)
    return float(width)


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width in points of ``text`` set in DejaVu Sans at ``size`` points."""
    return _SAFETY * size / 10.0 * sum(_glyph_width(ch, bold) for ch in text)


def _break_word(word: str, width: float, size: float, bold: bool) -> list[str]:
    pieces, current = [], ""
    for ch in word:
        if current and text_width(current + ch, size, bold) > width:
            pieces.append(current)
            current = ""
        current += ch
    return pieces + [current]


def wrap(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    """``text`` broken into lines no wider than ``width`` points (at spaces; a word
    longer than a line is broken between characters)."""
    lines = []
    for paragraph in str(text).split("\n"):
        current = ""
        for word in paragraph.split(" "):
            trial = f"{current} {word}" if current else word
            if text_width(trial, size, bold) <= width:
                current = trial
                continue
            if current:
                lines.append(current)
            pieces = _break_word(word, width, size, bold)
            lines += pieces[:-1]
            current = pieces[-1]
        lines.append(current)
    return lines


#: where a token of code longer than a line may be broken: after these characters
_CODE_BREAKS = ",;(=+"


def _code_pieces(token: str, first: int, rest: int) -> list[str]:
    """A token longer than a line cut after the last break character that fits (a comma,
    an opening parenthesis, ...), between characters only where there is none."""
    pieces, room = [], first
    while len(token) > room:
        cut = max((token.rfind(ch, 0, room) for ch in _CODE_BREAKS), default=-1) + 1
        cut = cut if cut > room // 3 else room
        pieces.append(token[:cut])
        token, room = token[cut:], rest
    return pieces + [token]


def wrap_code(line: str, per_line: int, indent: int = 4) -> list[str]:
    """A line of monospaced text (a printed summary) in lines of at most ``per_line``
    characters, broken at spaces (the runs of spaces that align columns kept), each
    continuation indented by ``indent`` more than the line; only a token longer than a
    line is cut, after a comma or another break character where it has one."""
    line = line.rstrip()
    if len(line) <= per_line:
        return [line]
    lead = " " * min(len(line) - len(line.lstrip(" ")) + indent, per_line // 3)
    lines, current = [], ""
    for piece in re.findall(r" *\S+", line):
        if len(current) + len(piece) <= per_line:
            current += piece
            continue
        start, token = ("", piece) if not current else (lead, piece.lstrip(" "))
        if current:
            lines.append(current)
        cut = _code_pieces(token, per_line - len(start), per_line - len(lead))
        texts = [start + cut[0]] + [lead + c for c in cut[1:]]
        lines += texts[:-1]
        current = texts[-1]
    return lines + [current]


class Document:
    """Pages of a PDF report, filled from the top with a cursor ``y`` (points from the
    top of the page)."""

    def __init__(self, pdf, running_title: str):
        self.pdf = pdf
        self.running_title = visible_text(running_title, newlines=False)
        self.fig: Figure | None = None       # the current page, once started
        self.page = 0
        self.y = 0.0
        self.left, right, self.top, bottom = MARGINS
        self.width = PAGE[0] - self.left - right
        self.bottom = PAGE[1] - bottom

    # ---- pages --------------------------------------------------------------
    def new_page(self):
        """Finish the current page (with its page number) and start the next."""
        from matplotlib.figure import Figure

        self.finish_page()
        self.fig = Figure(figsize=(PAGE[0] / 72, PAGE[1] / 72))
        self.page += 1
        self.y = self.top
        if self.page > 1:
            head = wrap(self.running_title, self.width * 0.8, 7.5)[0]
            self._text(self.left, self.top - 22, head, 7.5, color="0.45")

    def finish_page(self):
        if self.fig is not None:
            self._text(PAGE[0] / 2, self.bottom + 30, str(self.page), 8, color="0.45",
                       ha="center")
            self.pdf.savefig(self.fig)
            self.fig = None

    @property
    def canvas(self) -> Figure:
        """The current page; drawing comes after :meth:`need`, :meth:`region` or
        :meth:`new_page`, which start one."""
        assert self.fig is not None, "no page started"
        return self.fig

    def room(self) -> float:
        """Points left on the current page."""
        return self.bottom - self.y

    def need(self, height: float):
        """Start a new page unless ``height`` points fit on this one."""
        if self.fig is None or height > self.room():
            self.new_page()

    def keep_together(self, height: float):
        """Start a new page when ``height`` points do not fit on this one but fit on a page
        (a block longer than a page starts where it is, and breaks where it must)."""
        if self.fig is not None and self.room() < height <= self.bottom - self.top:
            self.new_page()

    # ---- drawing primitives ---------------------------------------------------
    def _text(self, x, y, text, size, bold=False, color="black", ha="left", style="normal"):
        """One line of text with its baseline at (x, y), points from the top left."""
        self.canvas.text(x / PAGE[0], 1 - y / PAGE[1], visible_text(text, newlines=False),
                         fontsize=size, weight="bold" if bold else "normal", color=color,
                         ha=ha, va="baseline", family="DejaVu Sans", style=style,
                         parse_math=False)

    def rule(self, y, x0=None, x1=None, width=0.6, color="black"):
        from matplotlib.lines import Line2D

        x0 = self.left if x0 is None else x0
        x1 = self.left + self.width if x1 is None else x1
        fig = self.canvas
        fig.add_artist(Line2D([x0 / PAGE[0], x1 / PAGE[0]], [1 - y / PAGE[1]] * 2,
                              transform=fig.transFigure, lw=width, color=color))

    def region(self, height: float) -> tuple[float, float, float, float]:
        """The text block's width × ``height`` points at the cursor, as figure fractions
        (left, bottom, width, height), on a new page if need be; the cursor moves past it."""
        self.need(height)
        rect = (self.left / PAGE[0], 1 - (self.y + height) / PAGE[1], self.width / PAGE[0],
                height / PAGE[1])
        self.y += height
        return rect

    # ---- flowing text -----------------------------------------------------------
    def heading(self, text: str, size: float = 13.0, keep: float = 90.0):
        """A heading, kept on a page with ``keep`` points of what follows."""
        lines = wrap(visible_text(text, newlines=False), self.width, size, bold=True)
        self.need(len(lines) * size * 1.3 + keep)
        self.y += size * 0.6 if self.y > self.top else 0.0
        for line in lines:
            self.y += size * 1.15
            self._text(self.left, self.y, line, size, bold=True)
        self.y += size * 0.5

    def heading_height(self, text: str, size: float = 13.0) -> float:
        """The points :meth:`heading` takes below the top of a page's text block or more."""
        lines = wrap(visible_text(text, newlines=False), self.width, size, bold=True)
        return size * 0.6 + len(lines) * size * 1.15 + size * 0.5

    def paragraph_height(self, text: str, size: float = BODY_SIZE, indent: float = 0.0,
                         after: float = 5.0, bold: bool = False) -> float:
        """The points :meth:`paragraph` takes."""
        lines = wrap(visible_text(str(text), newlines=True), self.width - indent, size, bold)
        return len(lines) * size * 1.35 + after

    def paragraph(self, text: str, size: float = BODY_SIZE, color="black", indent: float = 0.0,
                  after: float = 5.0, bold: bool = False, style: str = "normal"):
        """Running text wrapped to the text width, across pages if need be."""
        text = visible_text(str(text), newlines=True)
        for line in wrap(text, self.width - indent, size, bold):
            self.need(size * 1.35)
            self.y += size * 1.35
            self._text(self.left + indent, self.y, line, size, bold=bold, color=color,
                       style=style)
        self.y += after

    def space(self, points: float):
        self.y += points

    # ---- tables -----------------------------------------------------------------
    def table(self, table: Table, number: int):
        """A booktabs table with its caption above and notes below (see :func:`layout`);
        set on one page when it fits on one (with its notes), else broken between rows,
        each page's part under a "(continued)" caption and the header."""
        caption = f"Table {number}. {table.caption}"
        blocks = layout(table, self.width)
        for k, block in enumerate(blocks):
            size, header = block.size, block.header
            text = caption if k == 0 else f"Table {number} (continued)."
            self.keep_together(self._part_height(table, blocks, k, text))
            self.need(3 * size * 1.4 + len(header) * size * 1.25 + 30)
            self.paragraph(text, size=size + 0.5, after=3, bold=False)
            self._table_block(table, block, number)
        for note in table.notes:
            self.paragraph(note, size=_NOTE_SIZE, color="0.3", after=1.5)
        self.y += 8

    def table_height(self, table: Table, number: int) -> float:
        """The points :meth:`table` takes before it may break a page: its caption and its
        first group of columns (with the notes when it has only one)."""
        blocks = layout(table, self.width)
        return self._part_height(table, blocks, 0, f"Table {number}. {table.caption}")

    def _part_height(self, table: Table, blocks: list, k: int, caption: str) -> float:
        """The caption and group ``k`` of the columns of a table, with the notes after the
        last group."""
        block = blocks[k]
        notes = (sum(self.paragraph_height(n, _NOTE_SIZE, after=1.5) for n in table.notes) + 8
                 if k == len(blocks) - 1 else 0.0)
        return (self.paragraph_height(caption, block.size + 0.5, after=3)
                + self._block_height(table, block) + notes)

    def _block_height(self, table: Table, block: TableBlock) -> float:
        """The points :meth:`_table_block` takes, a line of slack included (it breaks the
        page when a row and a line no longer fit)."""
        size, line = block.size, block.size * 1.28
        rows = _wrapped_rows(table, block.cols, block.widths, size)
        return (0.55 * size + max(len(h) for h in block.header) * line
                + sum(max(len(w) for w in cells) * line for cells in rows)
                + 0.2 * size + 4 + line)

    def _table_block(self, table: Table, block: TableBlock, number: int):
        cols, size, widths, header = block.cols, block.size, block.widths, block.header
        line = size * 1.28
        x = [self.left]
        for w in widths:
            x.append(x[-1] + w + 2 * _PAD)
        right = x[-1]
        self.rule(self.y, self.left, right, 0.9)
        self._header(header, cols, table.align, x, widths, size, line)
        for row, wrapped in zip(table.rows, _wrapped_rows(table, cols, widths, size)):
            height = max(len(w) for w in wrapped) * line
            if height + line > self.room():
                self.rule(self.y + 0.2 * size, self.left, right, 0.9)
                self.new_page()
                # a reader who turns the page is told which table goes on
                self.paragraph(f"Table {number} (continued).", size=size + 0.5, after=3)
                self.rule(self.y, self.left, right, 0.9)
                self._header(header, cols, table.align, x, widths, size, line)
            if row.kind == "first":
                self.rule(self.y + 0.1 * size, self.left, right, 0.4)
            if row.kind == "mark":
                self._shade(self.y + 0.1 * size, height, self.left, right)
            self._cells(wrapped, cols, table.align, x, widths, size, line,
                        "0.35" if row.kind == "second" else "black")
            self.y += height
        self.rule(self.y + 0.2 * size, self.left, right, 0.9)
        self.y += 0.2 * size + 4

    def _header(self, header, cols, align, x, widths, size, line):
        """The header under the top rule (drawn by the caller at the cursor), then the
        rule under it."""
        self.y += 0.25 * size
        height = max(len(h) for h in header) * line
        self._cells(header, cols, align, x, widths, size, line, "black", bold=True,
                    bottom=True, height=height)
        self.y += height + 0.15 * size
        self.rule(self.y, x[0], x[-1], 0.5)
        self.y += 0.15 * size

    def _cells(self, wrapped, cols, align, x, widths, size, line, color, bold=False,
               bottom=False, height=None):
        for k, lines in enumerate(wrapped):
            a = align[cols[k]] if len(align) > cols[k] else "r"
            offset = (height - len(lines) * line) if bottom else 0.0
            for i, text in enumerate(lines):
                y = self.y + offset + (i + 1) * line - size * 0.25
                if a == "l":
                    self._text(x[k] + _PAD, y, text, size, bold=bold, color=color)
                else:
                    self._text(x[k] + _PAD + widths[k], y, text, size, bold=bold, color=color,
                               ha="right")

    def _shade(self, y, height, x0, x1):
        from matplotlib.patches import Rectangle

        fig = self.canvas
        fig.add_artist(Rectangle((x0 / PAGE[0], 1 - (y + height) / PAGE[1]),
                                 (x1 - x0) / PAGE[0], height / PAGE[1],
                                 transform=fig.transFigure, color="#e8eef7", lw=0, zorder=-1))


def _wrapped_rows(table: Table, cols, widths, size) -> list[list[list[str]]]:
    """Each row's cells of the columns ``cols``, wrapped to their widths (a list of lines
    per cell); the first column's names shortened."""
    stubs = _stub_texts(table)
    return [[wrap(stubs[i] if j == 0 else row.cells[j], widths[k], size)
             for k, j in enumerate(cols)] for i, row in enumerate(table.rows)]


def _stub_texts(table: Table) -> list[str]:
    first = [visible_text(str(r.cells[0]), newlines=False) for r in table.rows]
    return shown_names(first) if table.stub_names else first


def _natural(texts, size, bold=False) -> float:
    return max([text_width(t, size, bold) for t in texts] + [0.0])


def _widths(table: Table, size: float):
    """Natural width of every column at ``size``: its widest cell (the first column's
    names shortened), headers counted by their longest word (they wrap)."""
    stubs = _stub_texts(table)
    widths = []
    for j, head in enumerate(table.header):
        cells = stubs if j == 0 else [str(r.cells[j]) for r in table.rows]
        body = _natural(cells, size)
        word = _natural(str(head).split(" "), size, bold=True)
        whole = text_width(str(head), size, bold=True)
        # a header sets its column's width when it is not much wider than the cells
        widths.append(max(body, word, whole if whole <= max(1.5 * body, 50.0) else 0.0))
    return widths


def _header_lines(table: Table, widths, size):
    return [wrap(str(h), w, size, bold=True) for h, w in zip(table.header, widths)]


@dataclass
class TableBlock:
    """One group of columns of a table as set: font size, column widths, the wrapped
    header and the columns (indices into the table's) it holds."""

    size: float
    widths: list
    header: list
    cols: list


def layout(table: Table, width: float) -> list[TableBlock]:
    """How ``table`` is set: one :class:`TableBlock` per group of columns.  The font shrinks
    from :data:`TABLE_SIZE` to :data:`MIN_TABLE_SIZE` until the columns fit ``width``;
    then long cells wrap (the widest columns narrowed to the mean width); then the
    columns are split into blocks, each repeating the first column."""
    size = TABLE_SIZE
    while True:
        widths = _widths(table, size)
        total = sum(widths) + 2 * _PAD * len(widths)
        if total <= width or size <= MIN_TABLE_SIZE:
            break
        size = max(MIN_TABLE_SIZE, size - 0.5)
    if total > width:
        widths = _narrowed(widths, width - 2 * _PAD * len(widths), size)
    total = sum(widths) + 2 * _PAD * len(widths)
    if total <= width + 0.01:
        return [TableBlock(size, widths, _header_lines(table, widths, size),
                           list(range(len(widths))))]
    return _blocks(table, widths, width, size)


def _narrowed(widths, available, size):
    """Columns narrowed, widest first, towards equal widths (no column below ten
    characters), to fit ``available`` points when that is possible."""
    floor = text_width("m" * 10, size)
    widths = list(widths)
    for _ in range(60):
        excess = sum(widths) - available
        if excess <= 0:
            break
        j = max(range(len(widths)), key=lambda i: widths[i])
        if widths[j] <= floor:
            break
        widths[j] = max(floor, widths[j] - max(excess, 1.0))
    return widths


def _blocks(table, widths, width, size) -> list[TableBlock]:
    groups, current = [], [0]
    used = widths[0] + 2 * _PAD
    for j in range(1, len(widths)):
        if used + widths[j] + 2 * _PAD > width and len(current) > 1:
            groups.append(current)
            current, used = [0], widths[0] + 2 * _PAD
        current.append(j)
        used += widths[j] + 2 * _PAD
    groups.append(current)
    return [TableBlock(size, [widths[j] for j in cols],
                       [wrap(str(table.header[j]), widths[j], size, True) for j in cols], cols)
            for cols in groups]
