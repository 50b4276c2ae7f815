"""Vignettes: Python scripts in cells, run and rendered to one HTML file.

A vignette is a plain script (it runs with ``python vignette.py``) split into
cells by ``# %%`` lines, the percent format of Jupytext, VS Code and Spyder.
A ``# %% [markdown]`` cell holds text as comment lines (``# ## A heading``,
``# Some *text* with `code`.``, ``# - a bullet``).  :func:`render_vignette`
runs the code cells in order in one namespace and records, per cell, what it
printed, the value of a final expression (its ``_repr_html_`` when it has
one, such as a summary or a comparison) and the matplotlib figures it drew.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import pathlib
import re
import traceback
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from ..summary.render import render_template
from .context import versions

__all__ = ["render_vignette", "parse_cells", "markdown_html", "Cell", "VignetteError"]

_CELL = re.compile(r"^# %%(.*)$")


class VignetteError(RuntimeError):
    """A vignette cell raised; the message names the cell and the error."""


@dataclass
class Cell:
    kind: str                      # "markdown" or "code"
    source: str
    #: (kind, payload): ("text", str), ("html", Markup) or ("image", base64 PNG)
    outputs: list[tuple[str, str]] = field(default_factory=list)


def parse_cells(text: str) -> list[Cell]:
    """Split a script into cells at ``# %%`` lines (text before the first is code)."""
    cells: list[Cell] = []
    kind = "code"
    lines: list[str] = []

    def flush() -> None:
        src = "\n".join(lines).strip("\n")
        if src.strip():
            cells.append(Cell(kind, src))

    for line in text.splitlines():
        m = _CELL.match(line)
        if m:
            flush()
            kind, lines = ("markdown" if "[markdown]" in m.group(1) else "code"), []
        else:
            lines.append(line)
    flush()
    return cells


def _inline(text: str) -> Markup:
    """Escape, then `code`, **bold**, *emphasis*.

    Code spans are set aside while bold and emphasis are marked, so that a
    ``*`` inside code stays literal; bold may contain a lone ``*`` ("F*").
    """
    codes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    s = str(escape(text.replace("\x00", "")))
    s = re.sub(r"`([^`]+)`", keep, s)
    s = re.sub(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", s)
    s = re.sub(r"\x00(\d+)\x00", lambda m: f"<code>{codes[int(m.group(1))]}</code>", s)
    return Markup(s)


def markdown_html(source: str) -> Markup:
    """A small, safe subset of Markdown from comment lines: headings, bullets, paragraphs.

    Every piece of text is escaped before the few tags are added.
    """
    lines = [re.sub(r"^# ?", "", ln) for ln in source.splitlines()]
    out: list[Markup] = []
    para: list[str] = []
    items: list[str] = []

    def close() -> None:
        if para:
            out.append(Markup("<p>") + _inline(" ".join(para)) + Markup("</p>"))
            para.clear()
        if items:
            out.append(Markup("<ul>") + Markup("").join(Markup("<li>") + _inline(i) +
                                                        Markup("</li>") for i in items)
                       + Markup("</ul>"))
            items.clear()

    for ln in lines:
        h = re.match(r"^(#{1,4})\s+(.*)$", ln)
        if h:
            close()
            level = len(h.group(1)) + 1          # '#' in a vignette is a section: <h2>
            out.append(Markup(f"<h{level}>") + _inline(h.group(2)) + Markup(f"</h{level}>"))
        elif re.match(r"^\s*[-*]\s+", ln):
            if para:
                close()
            items.append(re.sub(r"^\s*[-*]\s+", "", ln))
        elif not ln.strip():
            close()
        else:
            if items:
                close()
            para.append(ln.strip())
    close()
    return Markup("\n").join(out)


def _figures_png() -> list[tuple[str, str]]:
    import matplotlib.pyplot as plt

    from .figures import figure_png_base64
    out = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        out.append(("image", figure_png_base64(fig)))
        plt.close(fig)
    return out


def _run_cell(cell: Cell, namespace: dict[str, Any], filename: str, number: int) -> None:
    tree = ast.parse(cell.source, filename=filename)
    last = None
    final = tree.body[-1] if tree.body else None
    if isinstance(final, ast.Expr):         # a final expression: its value is shown
        tree.body.pop()
        last = ast.Expression(final.value)
    buf = io.StringIO()
    value = None
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(tree, f"{filename} [cell {number}]", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, f"{filename} [cell {number}]", "eval"), namespace)
    # Any error of the vignette's own code is re-raised as a VignetteError naming the cell
    # (the error is the vignette's, not ubreg's: its type is kept as the cause).
    except Exception as exc:  # noqa: BLE001 — re-raised, naming the cell
        tb = traceback.format_exc(limit=-3)
        raise VignetteError(f"{filename}, cell {number} raised {type(exc).__name__}: {exc}\n"
                            f"{tb}") from exc
    if buf.getvalue():
        cell.outputs.append(("text", buf.getvalue()))
    if value is not None:
        html = getattr(value, "_repr_html_", None)
        cell.outputs.append(("html", Markup(html())) if callable(html) else ("text", repr(value)))
    cell.outputs += _figures_png()


def render_vignette(path: str | os.PathLike[str],
                    out: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Run the vignette at ``path`` and write it as a self-contained HTML file.

    Parameters
    ----------
    path : str or path-like
        A ``.py`` vignette with ``# %%`` cells.
    out : str or path-like, optional
        Output file (default: ``path`` with suffix ``.html``).

    Returns
    -------
    pathlib.Path
        The HTML file.  The code, the text and the outputs are escaped by the
        autoescaping template ``report/vignette.html``; ``_repr_html_`` output
        comes from ubreg's own autoescaping templates.

    Raises
    ------
    VignetteError
        When a cell raises (the message names the cell).
    """
    import matplotlib
    matplotlib.use("Agg")            # figures are captured, never shown

    path = pathlib.Path(path)
    out = pathlib.Path(out) if out is not None else path.with_suffix(".html")
    cells = parse_cells(path.read_text(encoding="utf-8"))
    namespace = {"__name__": "__main__", "__file__": str(path)}
    for number, cell in enumerate(cells, start=1):
        if cell.kind == "code":
            _run_cell(cell, namespace, path.name, number)
    title = next((re.sub(r"^#\s*#+\s*", "", ln) for c in cells if c.kind == "markdown"
                  for ln in c.source.splitlines() if re.match(r"^#\s*#\s", ln)), path.stem)
    html = render_template("report/vignette.html", title=title, source=path.name,
                           cells=[(c.kind, markdown_html(c.source) if c.kind == "markdown"
                                   else c.source, c.outputs) for c in cells],
                           versions=versions())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out
