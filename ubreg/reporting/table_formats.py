"""A table of strings written as HTML, LaTeX (booktabs), Markdown or Word.

What R's modelsummary writes for a models table, for any DataFrame of display strings:
the row labels in the first column, a header row, optional title and notes.  HTML and
Markdown are plain text made here; LaTeX uses booktabs' rules (``\\toprule``,
``\\midrule``, ``\\bottomrule``; ``\\usepackage{booktabs}`` in the preamble); Word
uses python-docx (an optional dependency, ``pip install ubreg[docx]``).
"""
from __future__ import annotations

import html
import pathlib
from collections.abc import Sequence

import pandas as pd

__all__ = ["FORMATS", "format_of", "render", "write"]

#: output formats by file suffix
FORMATS = {".html": "html", ".htm": "html", ".tex": "latex", ".md": "markdown",
           ".docx": "docx"}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def format_of(output: str) -> str:
    """The format a file name or a format name asks for."""
    if output in ("html", "latex", "markdown", "docx"):
        return output
    suffix = pathlib.Path(output).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"output {output!r}: give a file ending in "
                         f"{', '.join(FORMATS)}, or 'html', 'latex', 'markdown'")
    return FORMATS[suffix]


def _cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    header = [str(table.index.name or "")] + [str(c) for c in table.columns]
    rows = [[str(i)] + ["" if pd.isna(v) else str(v) for v in row]
            for i, row in zip(table.index, table.to_numpy())]
    return header, rows


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex(table: pd.DataFrame, title: str | None, notes: Sequence[str]) -> str:
    header, rows = _cells(table)
    lines = [r"\begin{table}[htbp]", r"\centering"]
    if title:
        lines.append(rf"\caption{{{_latex_escape(title)}}}")
    lines += [rf"\begin{{tabular}}{{l{'c' * (len(header) - 1)}}}", r"\toprule",
              " & ".join(_latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(_latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in notes:
        lines.append(rf"\par\smallskip{{\footnotesize {_latex_escape(note)}}}")
    return "\n".join(lines + [r"\end{table}", ""])


def _markdown(table: pd.DataFrame, title: str | None, notes: Sequence[str]) -> str:
    header, rows = _cells(table)

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    lines = ([f"**{title}**", ""] if title else []) + [line(header)]
    lines.append("|" + "|".join([":---"] + [":---:"] * (len(header) - 1)) + "|")
    lines += [line(r) for r in rows]
    return "\n".join(lines + ([""] + [f"*{n}*" for n in notes] if notes else []) + [""])


def _html(table: pd.DataFrame, title: str | None, notes: Sequence[str]) -> str:
    header, rows = _cells(table)
    esc = html.escape
    parts = ['<table class="ubreg-modelsummary">']
    if title:
        parts.append(f"<caption>{esc(title)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header)
                 + "</tr></thead><tbody>")
    parts += ["<tr>" + f'<th scope="row">{esc(r[0])}</th>'
              + "".join(f"<td>{esc(c)}</td>" for c in r[1:]) + "</tr>" for r in rows]
    parts.append("</tbody>")
    if notes:
        parts.append(f'<tfoot><tr><td colspan="{len(header)}">'
                     + "<br>".join(esc(n) for n in notes) + "</td></tr></tfoot>")
    return "\n".join(parts + ["</table>", ""])


def render(table: pd.DataFrame, kind: str, title: str | None = None,
           notes: Sequence[str] = ()) -> str:
    """``table`` as text of format ``kind`` (html, latex or markdown)."""
    makers = {"html": _html, "latex": _latex, "markdown": _markdown}
    if kind not in makers:
        raise ValueError(f"{kind!r} is written to a file: give a path ending in .docx")
    return makers[kind](table, title, list(notes))


def _docx(table: pd.DataFrame, path: pathlib.Path, title: str | None,
          notes: Sequence[str]) -> None:
    try:
        import docx
    except ImportError:
        raise ImportError("a .docx table needs python-docx: pip install 'ubreg[docx]'") from None
    header, rows = _cells(table)
    document = docx.Document()
    if title:
        document.add_heading(title, level=2)
    grid = document.add_table(rows=1 + len(rows), cols=len(header))
    for i, cells in enumerate([header, *rows]):
        for j, text in enumerate(cells):
            grid.cell(i, j).text = text
    for note in notes:
        document.add_paragraph(note).style = document.styles["Normal"]
    document.save(str(path))


def write(table: pd.DataFrame, output: str | pathlib.Path, title: str | None = None,
          notes: Sequence[str] = ()) -> pathlib.Path:
    """Write ``table`` to the file ``output`` in the format its suffix names."""
    path = pathlib.Path(output)
    kind = format_of(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "docx":
        _docx(table, path, title, notes)
    else:
        path.write_text(render(table, kind, title, notes), encoding="utf-8")
    return path
