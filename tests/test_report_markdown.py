"""Markdown pages: the renderer's subset, its escaping, and the replication reports as HTML."""
import base64
import io
import os
import pathlib
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from ubreg.reporting import render_markdown  # noqa: E402
from ubreg.reporting.markdown import markdown_to_html  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
REPORTS = ROOT / "reports"
SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def _md_tables(text):
    """The pipe tables of a Markdown text, each as its list of lines (header first)."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append(lines[i:j])
            i = j
        else:
            i += 1
    return out


def test_headings_paragraphs_and_inline_markup():
    html = str(markdown_to_html("# Title\n\n## Two ##\n### Three\n#### Four\n##### not one\n\n"
                                "A paragraph\non two lines with `co*de*`, **F* bold** and *em*."))
    for level, text in [(1, "Title"), (2, "Two"), (3, "Three"), (4, "Four")]:
        assert f"<h{level}>{text}</h{level}>" in html
    assert "<p>##### not one</p>" in html
    assert ("<p>A paragraph on two lines with <code>co*de*</code>, <strong>F* bold</strong> "
            "and <em>em</em>.</p>") in html


def test_bullets_with_continuations_and_nesting():
    md = ("Intro:\n\n- first item\n  continued here\n- second\n  * nested one\n    still nested\n"
          "  * nested two\n- third\n\nAfter.")
    html = str(markdown_to_html(md))
    assert html.count("<ul>") == 2 and html.count("<li>") == 5
    assert "<li>first item continued here</li>" in html
    assert re.search(r"<li>second<ul>\s*<li>nested one still nested</li>\s*<li>nested two</li>"
                     r"\s*</ul></li>", html)
    assert html.endswith("<p>After.</p>")


def test_pipe_table():
    md = ("| flavour | rank | note |\n|---|---|---|\n| power | 3.67 | a \\| b |\n"
          "| F*cv | 10.5 ± 3.6 |\n\nText after.")
    html = str(markdown_to_html(md))
    assert html.count("<table") == 1 and html.count("<tr>") == 3
    assert '<th scope="col" class="left">flavour</th>' in html
    assert '<th scope="row" class="left">power</th>' in html
    assert '<td class="right">3.67</td>' in html              # a numeric column
    assert '<td class="left">a | b</td>' in html               # an escaped pipe is a pipe
    assert '<td class="right">10.5\u00a0±\u00a03.6</td><td class="left"></td>' in html  # padded
    assert "<p>Text after.</p>" in html


def test_hostile_text_is_escaped_everywhere():
    md = (f"# {SCRIPT}\n\n{SCRIPT} in a paragraph\n\n- {SCRIPT}\n  {SCRIPT}\n\n"
          f"| a | b |\n|---|---|\n| {SCRIPT} | `{SCRIPT}` |\n\n```\n{SCRIPT}\n```\n"
          '<img src=x onerror="alert(1)">')
    html = str(markdown_to_html(md))
    assert "<script" not in html and "<img" not in html
    assert html.count(ESCAPED) == 7
    assert f"<h1>{ESCAPED}</h1>" in html
    assert f"<li>{ESCAPED} {ESCAPED}</li>" in html
    assert f'<th scope="row" class="left">{ESCAPED}</th>' in html
    assert f'<td class="left"><code>{ESCAPED}</code></td>' in html


@pytest.mark.slow
def test_render_markdown_page(tmp_path):
    from ubreg.reporting.figures import new_figure
    md = tmp_path / "hostile.md"
    md.write_text(f"# Title {SCRIPT}\n\n| x |\n|---|\n| {SCRIPT} |\n", encoding="utf-8")
    fig = new_figure(3, 2)
    fig.add_subplot().plot([0, 1], [1, 0])
    out = render_markdown(md, tmp_path / "sub" / "page.html", figures=[(SCRIPT, fig)])
    html = out.read_text(encoding="utf-8")
    assert "<script" not in html.lower() and SCRIPT not in html
    assert f"<title>Title {ESCAPED}</title>" in html
    assert "<code>hostile.md</code>" in html                     # the source file is named
    assert not re.search(r'(src|href)="(?!data:)', html) and "<link" not in html
    for name in ("ubreg", "numpy", "matplotlib", "python"):
        assert re.search(rf"<th scope=\"row\">{name}</th><td>[0-9]", html), name
    sources = re.findall(r'<img src="([^"]*)" alt="([^"]*)"', html)
    assert len(sources) == 1 and sources[0][1] == ESCAPED
    Image.open(io.BytesIO(base64.b64decode(sources[0][0].split(",", 1)[1]))).verify()
    assert render_markdown(md) == md.with_suffix(".html")        # default: next to the .md


@pytest.mark.slow
def test_every_table_of_the_uls_report_is_in_its_page(tmp_path):
    md = REPORTS / "uls_flavours.md"
    text = md.read_text(encoding="utf-8")
    tables = _md_tables(text)
    assert len(tables) == 6
    html = render_markdown(md, tmp_path / "uls.html").read_text(encoding="utf-8")
    assert html.count('<table class="md">') == len(tables)
    for lines in tables:
        assert str(markdown_to_html("\n".join(lines))) in html
        n_body = len(lines) - 2
        first_cells = [ln.strip("|").split("|")[0].strip() for ln in lines[2:]]
        assert len(first_cells) == n_body
        for cell in first_cells:
            assert f'<th scope="row" class="left">{cell}</th>' in html
    assert '<td class="right">0.0901</td>' in html
    assert "<strong>&#34;F* is best on average&#34; — does not hold here.</strong>" in html


@pytest.mark.slow
def test_render_script_end_to_end(tmp_path):
    """reports/render_html.py renders the three stored reports with their figures (~5 s)."""
    proc = subprocess.run([sys.executable, str(REPORTS / "render_html.py"), "--out-dir",
                           str(tmp_path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MPLBACKEND": "Agg"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected = {"gnnb_replication": 1, "tempered_replication": 2, "uls_flavours": 1}
    for name, n_figures in expected.items():
        html = (tmp_path / f"{name}.html").read_text(encoding="utf-8")
        assert html.count("data:image/png;base64,") == n_figures, name
        assert html.count('<table class="md">') == len(
            _md_tables((REPORTS / f"{name}.md").read_text(encoding="utf-8")))
        assert "<script" not in html.lower()
