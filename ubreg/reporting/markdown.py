"""Markdown files (the replication reports) rendered to one self-contained HTML page.

A small, safe subset of Markdown, enough for the ``reports/*.md`` files that
ubreg's replication scripts write: ATX headings (``#`` to ``####``),
paragraphs, bullet lists (nested by indentation, with continuation lines),
GitHub pipe tables and fenced code blocks.  Inline markup is that of the
vignettes (:func:`ubreg.reporting.vignette._inline`: ```code```, ``**bold**``,
``*emphasis*``).  Every piece of text is escaped before the few tags are
added; nothing the file says is ever marked safe as it stands, so raw HTML in
the file is shown as text.
"""
from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from ..summary.render import render_template
from .context import versions
from .vignette import _inline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["markdown_to_html", "render_markdown", "markdown_title"]

_HEADING = re.compile(r"^(#{1,4})\s+(.*?)(?:\s+#+)?\s*$")
_BULLET = re.compile(r"^( *)[-*+]\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
# a number (optionally signed, with a unit or ± after it) starts a numeric cell
_NUMERIC = re.compile(r"^[-+−]?\d")


def _tag(name: str, content: Markup, attrs: str = "") -> Markup:
    """``<name attrs>content</name>``; ``content`` is Markup already (escaped)."""
    return Markup(f"<{name}{attrs}>") + content + Markup(f"</{name}>")


# ---------------------------------------------------------------- tables

def _split_row(line: str) -> list[str]:
    r"""Cells of a pipe-table row: outer pipes dropped, ``\|`` kept as a literal pipe."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", s)]


def _alignments(separator: str, header: list[str], body: list[list[str]]) -> list[str]:
    """Per column "left", "right" or "center": the separator's colons when given,
    otherwise right for columns whose every non-empty body cell starts with a number."""
    out = []
    for j, spec in enumerate(_split_row(separator)[:len(header)]):
        if spec.startswith(":") and spec.endswith(":"):
            out.append("center")
        elif spec.endswith(":"):
            out.append("right")
        elif spec.startswith(":"):
            out.append("left")
        else:
            cells = [r[j] for r in body if j < len(r) and r[j]]
            out.append("right" if cells and all(_NUMERIC.match(c) for c in cells) else "left")
    return out + ["left"] * (len(header) - len(out))


def table_html(header_line: str, separator: str, rows: list[str]) -> Markup:
    """A GitHub pipe table as ``<table>`` (in a sideways-scrolling ``div``).

    Body rows are padded or cut to the header's width, as GitHub does.  The
    first cell of a body row is its label (``<th scope="row">``).
    """
    header = _split_row(header_line)
    n = len(header)
    body = [(_split_row(r) + [""] * n)[:n] for r in rows]
    align = _alignments(separator, header, body)

    def cell(tag: str, text: str, j: int, scope: str = "") -> Markup:
        # "mean ± sd" never breaks across lines in a narrow cell
        text = text.replace(" ± ", "\u00a0±\u00a0")
        return _tag(tag, _inline(text), f'{scope} class="{align[j]}"')

    head = Markup("").join(cell("th", h, j, ' scope="col"') for j, h in enumerate(header))
    lines = [_tag("tr", Markup("").join(
        cell("th", c, j, ' scope="row"') if j == 0 else cell("td", c, j)
        for j, c in enumerate(r))) for r in body]
    table = Markup('<table class="md">') + _tag("thead", _tag("tr", head)) + \
        _tag("tbody", Markup("\n").join(lines)) + Markup("</table>")
    return _tag("div", table, ' class="table-scroll"')


# ---------------------------------------------------------------- lists

@dataclass
class _Item:
    indent: int                       # column of the bullet marker
    text: list[str]
    children: list[_Item] = field(default_factory=list)


def _list_items(lines: list[str]) -> list[_Item]:
    """Bullet lines and their continuations as a tree of items, nested by indentation."""
    roots: list[_Item] = []
    stack: list[_Item] = []
    for line in lines:
        m = _BULLET.match(line)
        if not m:
            stack[-1].text.append(line.strip())          # continuation of the open item
            continue
        item = _Item(len(m.group(1)), [m.group(2)])
        while stack and stack[-1].indent >= item.indent:
            stack.pop()
        (stack[-1].children if stack else roots).append(item)
        stack.append(item)
    return roots


def _list_html(items: list[_Item]) -> Markup:
    lis = [_tag("li", _inline(" ".join(i.text)) +
                (_list_html(i.children) if i.children else Markup("")))
           for i in items]
    return _tag("ul", Markup("\n").join(lis))


# ---------------------------------------------------------------- blocks

def _is_table_start(lines: list[str], i: int) -> bool:
    return (lines[i].lstrip().startswith("|") and i + 1 < len(lines)
            and bool(_SEPARATOR.match(lines[i + 1])))


def _starts_block(lines: list[str], i: int) -> bool:
    """Does line ``i`` start a heading, list, table or code block (ending a paragraph)?"""
    ln = lines[i]
    return bool(_HEADING.match(ln) or _BULLET.match(ln) or _FENCE.match(ln)
                or _is_table_start(lines, i))


def _take_list(lines: list[str], i: int) -> tuple[Markup, int]:
    """The lines of a bullet list from ``i``: bullets, indented continuations and
    lazy (unindented) continuations of a paragraph, up to a blank line followed
    by something that is not part of the list."""
    out: list[str] = []
    while i < len(lines):
        ln = lines[i]
        if not ln.strip():
            # a blank line ends the list unless a bullet or an indented line follows
            if i + 1 < len(lines) and (_BULLET.match(lines[i + 1])
                                       or lines[i + 1].startswith("  ")):
                i += 1
                continue
            break
        if out and not _BULLET.match(ln) and not ln.startswith(" ") and _starts_block(lines, i):
            break
        out.append(ln)
        i += 1
    return _list_html(_list_items(out)), i


def _take_table(lines: list[str], i: int) -> tuple[Markup, int]:
    j = i + 2
    while j < len(lines) and lines[j].lstrip().startswith("|"):
        j += 1
    return table_html(lines[i], lines[i + 1], lines[i + 2:j]), j


def _take_code(lines: list[str], i: int) -> tuple[Markup, int]:
    opening = _FENCE.match(lines[i])
    assert opening is not None      # markdown_to_html takes a code block at a fence
    fence = opening.group(1)
    j = i + 1
    while j < len(lines) and not lines[j].lstrip().startswith(fence):
        j += 1
    code = escape("\n".join(lines[i + 1:j]))
    return _tag("pre", _tag("code", code)), j + 1


def _take_paragraph(lines: list[str], i: int) -> tuple[Markup, int]:
    out: list[str] = []
    while i < len(lines) and lines[i].strip() and not (out and _starts_block(lines, i)):
        out.append(lines[i].strip())
        i += 1
    return _tag("p", _inline(" ".join(out))), i


def markdown_to_html(text: str) -> Markup:
    """Render Markdown text (the subset in the module docstring) as safe HTML.

    Parameters
    ----------
    text : str
        Markdown source.  ``#`` is ``<h1>`` down to ``####``, ``<h4>``.

    Returns
    -------
    markupsafe.Markup
        The HTML.  All text is escaped before tags are added, so the result
        can be placed unescaped in an autoescaping template.
    """
    lines = text.splitlines()
    out: list[Markup] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        h = _HEADING.match(ln)
        if not ln.strip():
            i += 1
            continue
        if h:
            level = len(h.group(1))
            out.append(_tag(f"h{level}", _inline(h.group(2))))
            i += 1
            continue
        take = (_take_code if _FENCE.match(ln) else _take_list if _BULLET.match(ln)
                else _take_table if _is_table_start(lines, i) else _take_paragraph)
        block, i = take(lines, i)
        out.append(block)
    return Markup("\n").join(out)


def markdown_title(text: str, default: str) -> str:
    """The text of the first ``#`` heading, without inline markup characters, or ``default``."""
    for ln in text.splitlines():
        m = re.match(r"^#\s+(.*?)(?:\s+#+)?\s*$", ln)
        if m:
            return re.sub(r"[`*]", "", m.group(1))
    return default


# ---------------------------------------------------------------- page

def _figure_entries(figures: Iterable[tuple[str, Figure]]) -> list[tuple[str, str]]:
    """(caption, base64 PNG) for each (caption, matplotlib Figure)."""
    from .figures import figure_png_base64
    return [(str(caption), figure_png_base64(fig)) for caption, fig in figures]


def render_markdown(md_path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
                    figures: Iterable[tuple[str, Figure]] = ()) -> pathlib.Path:
    """Render a Markdown file as one self-contained HTML page.

    Parameters
    ----------
    md_path : str or path-like
        The Markdown file (UTF-8), e.g. one of the replication reports in
        ``reports/``.  Its first ``#`` heading is the page title.
    out : str or path-like, optional
        Output file (default: ``md_path`` with suffix ``.html``).  Its folder
        is created when missing.
    figures : sequence of (str, matplotlib.figure.Figure)
        Figures with their captions, embedded as base64 PNG after the text.

    Returns
    -------
    pathlib.Path
        The HTML file: inline CSS (the reports' style sheet), no script, no
        external resource, the source file's name and the software versions.

    Notes
    -----
    The Markdown subset is described in :mod:`ubreg.reporting.markdown`; text
    is escaped before tags are added, and the page is rendered by the
    autoescaping template ``report/markdown.html``.  The figures are not
    closed (they are the caller's).
    """
    md_path = pathlib.Path(md_path)
    out = pathlib.Path(out) if out is not None else md_path.with_suffix(".html")
    text = md_path.read_text(encoding="utf-8")
    html = render_template("report/markdown.html", title=markdown_title(text, md_path.stem),
                           source=md_path.name, body=markdown_to_html(text),
                           figures=_figure_entries(figures), versions=versions())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out
