"""Sphinx extension of ubreg's documentation site (used by docs/conf.py only).

* The vignettes are run at every build: each ``vignettes/*.py`` goes through
  :func:`ubreg.render_vignette` into ``<html>/vignettes/<name>.html``, so their
  output in the site is what the installed ubreg prints and draws today.  A
  vignette that raises fails the build (``VignetteError``, naming the cell).
* The replication reports' pages with figures (``reports/*.html``, made by
  ``make reports-html`` and committed) are copied to ``<html>/reports/``.
* ``docs/math.md`` and ``docs/tempered.md`` are cited as "docs/math.md §N":
  every numbered heading of those pages gets the short anchor ``sN``
  (``math.html#s3``, ``tempered.html#s2.2``) and the cross-reference label
  ``math-N`` / ``tempered-N`` (``{ref}`math-3```), besides the slug MyST gives it.
* The formulas of ``docs/math.md`` and ``docs/tempered.md`` are plain text with ``_``
  for subscripts (``q′_i``, ``log_t``) and ``*`` for duals and ±1 labels (``y*H``,
  ``φ*``, ``H*``): CommonMark reads some of them as emphasis.  When the site reads
  those two pages, such ``_`` and ``*`` are escaped (outside code), and so are the
  absolute-value bars inside table cells (``|ζ|``, which GFM takes for a cell
  border), so the formulas show as written; the files are not changed.
* ``{ubreg-options}`` with a method's name inserts its option table, made from the
  method's schema (``Schema.markdown``), so the table is what ``ubreg.fit`` checks.
* ``{ubreg-help}`` with the words of a command line (``fit``) inserts the
  output of ``python -m ubreg <words> --help``, run at build time.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = pathlib.Path(__file__).resolve().parents[2]
VIGNETTES = ROOT / "vignettes"
REPORTS = ROOT / "reports"
#: the pages cited as "<page>.md §N"
SECTIONED = {"math": "math", "tempered": "tempered"}
_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")


def vignette_paths() -> list[pathlib.Path]:
    return sorted(VIGNETTES.glob("[0-9]*.py"))


def render_vignettes(app) -> None:
    """Run every vignette into ``<outdir>/vignettes/`` (HTML builders only)."""
    if app.builder.format != "html":
        return
    import ubreg

    out = pathlib.Path(app.outdir) / "vignettes"
    out.mkdir(parents=True, exist_ok=True)
    for path in vignette_paths():
        start = time.perf_counter()
        target = ubreg.render_vignette(path, out / f"{path.stem}.html")
        logger.info(f"vignette {path.name}: ran and rendered to {target.name} "
                    f"in {time.perf_counter() - start:.1f} s")


def copy_reports(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = pathlib.Path(app.outdir) / "reports"
    out.mkdir(parents=True, exist_ok=True)
    for page in sorted(REPORTS.glob("*.html")):
        shutil.copyfile(page, out / page.name)


def section_anchors(app, doctree) -> None:
    """Short ids and labels for the numbered headings of math.md and tempered.md."""
    prefix = SECTIONED.get(app.env.docname)
    if prefix is None:
        return
    std = app.env.domains.standard_domain if hasattr(app.env.domains, "standard_domain") \
        else app.env.get_domain("std")
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        m = _NUMBER.match(title.astext()) if title is not None else None
        if m is None:
            continue
        number = m.group(1)
        anchor = f"s{number}"
        if anchor not in section["ids"]:
            section["ids"].insert(0, anchor)
            doctree.ids[anchor] = section
        label = f"{prefix}-{number}"
        std.anonlabels[label] = (app.env.docname, anchor)
        std.labels[label] = (app.env.docname, anchor, f"{prefix}.md §{number}")


_CODE = re.compile(r"(`+)(?:.+?)\1")
#: a "*" written as a superscript: after y, φ, H, F or GNNB (y*H, φ*(u), H*, F*, GNNB*),
#: never one of a pair (**bold**)
_STAR = re.compile(r"(?<=[yφHFB])(?<!\*)\*(?!\*)")


def _escape_formula_text(text: str, stars: bool) -> str:
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if fenced:
            out.append(line)
            continue
        pieces, last = [], 0
        for m in _CODE.finditer(line):
            pieces.append((line[last:m.start()], True))
            pieces.append((m.group(0), False))
            last = m.end()
        pieces.append((line[last:], True))
        done = []
        for piece, plain in pieces:
            if plain:
                piece = re.sub(r"(?<!\\)_", r"\\_", piece)
                if stars:
                    piece = _STAR.sub(r"\\*", piece)
            done.append(piece)
        line = "".join(done)
        if line.lstrip().startswith("|") and not re.fullmatch(r"\s*\|[\s:|-]*", line):
            # in a table row, a bar between two characters is an absolute value
            # (|ζ|), not a cell separator (those stand between spaces)
            line = re.sub(r"(?<=[^\s\\|])\|(?=[^\s|])", r"\\|", line)
            line = re.sub(r"(?<=\()\|(?=\S)", r"\\|", line)
        out.append(line)
    return "\n".join(out)


def escape_formulas(app, docname, source) -> None:
    if docname in SECTIONED:
        source[0] = _escape_formula_text(source[0], stars=docname == "math")


class UbregHelp(Directive):
    """``python -m ubreg <arguments> --help`` as a literal block."""
    optional_arguments = 10
    has_content = False

    def run(self):
        argv = [sys.executable, "-m", "ubreg", *self.arguments, "--help"]
        env = dict(os.environ, COLUMNS="88")
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise self.error(f"{' '.join(argv[1:])} failed: {done.stderr.strip()}")
        text = f"$ ubreg {' '.join(self.arguments)} --help\n{done.stdout.rstrip()}".replace(
            "ubreg  --help", "ubreg --help")
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


class UbregOptions(Directive):
    """The option table of a method, from its schema (:mod:`ubreg.methods.schema`):
    ``{ubreg-options} udt``; ``uls linear`` (the linear fit's options) or ``uls stumps``
    (the learner and the weak learners' options)."""
    required_arguments = 1
    optional_arguments = 1
    has_content = False

    def run(self):
        from docutils.statemachine import StringList

        from ubreg.methods.registry import METHODS
        name, *learner = self.arguments
        if name not in METHODS:
            raise self.error(f"no method {name!r}")
        given = {"learner": learner[0]} if learner else {}
        exclude = ("learner",) if learner == ["linear"] else ()
        text = METHODS[name].schema_for(given).markdown(exclude=exclude)
        node = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source="ubreg-options"),
                                self.content_offset, node)
        return node.children


def setup(app):
    app.connect("builder-inited", render_vignettes)
    app.connect("build-finished", copy_reports)
    app.connect("doctree-read", section_anchors)
    app.connect("source-read", escape_formulas)
    app.add_directive("ubreg-help", UbregHelp)
    app.add_directive("ubreg-options", UbregOptions)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
