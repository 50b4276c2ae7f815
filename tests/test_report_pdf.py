"""The PDF report is typeset: A4 pages, tables and wrapped text in proportional type, and no
text outside the page (every word box that pdftotext -bbox reports is inside the page,
and inside the text block but for the running head and the page number)."""
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import ubreg  # noqa: E402
from ubreg.evaluate.cv import cv_models  # noqa: E402
from ubreg.reporting.blocks import Row, Table  # noqa: E402
from ubreg.reporting.pdf_layout import MARGINS, PAGE, layout, text_width  # noqa: E402
from ubreg.summary.render import shown_name  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                reason="pdftotext (poppler-utils) is not installed")

LONG = "a_predictor_with_a_very_long_name_indeed_" + "x" * 30


def word_boxes(path):
    """(page, page width, page height, x0, y0, x1, y1, word) of every word of the PDF."""
    out = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    boxes = []
    for k, page in enumerate(re.split(r"<page ", out.stdout)[1:], 1):
        w, h = map(float, re.match(r'width="([\d.]+)" height="([\d.]+)"', page).groups())
        for m in re.finditer(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" '
                             r'yMax="([-\d.]+)">(.*?)</word>', page):
            boxes.append((k, w, h, *map(float, m.groups()[:4]), m.group(5)))
    return boxes


def assert_inside(path):
    """Every word inside the page; inside the text block (the margins, with a point of
    slack) unless it is in the running head or the page number's band."""
    boxes = word_boxes(path)
    assert boxes
    left, right, top, bottom = MARGINS
    for page, w, h, x0, y0, x1, y1, word in boxes:
        assert (w, h) == pytest.approx(PAGE, abs=0.5), "A4 portrait"
        assert 0 <= x0 and x1 <= w and 0 <= y0 and y1 <= h, (page, word, x0, x1, y0, y1)
        if top - 12 < y0 and y1 < h - bottom + 12:              # the body of the page
            assert left - 1 <= x0 and x1 <= w - right + 1, (page, word, x0, x1)
    return boxes


@pytest.fixture(scope="module")
def pdf(tmp_path_factory):
    """A report of five methods, one with a very long predictor name, as a PDF."""
    d = ubreg.datasets.load_pima().rename(columns={"pedigree": LONG})
    formula = f"diabetes ~ glucose + mass + age + {LONG}"
    specs = {"logistic regression": dict(formula=formula),
             "matsushita": dict(formula=formula, family="matsushita"),
             "a tree": dict(formula=formula, method="udt", prune="1se"),
             "boosting": dict(formula=formula, method="uboost", mstop=40),
             "tempered": dict(formula=formula, method="tboost", rounds=10)}
    models = cv_models(specs, d, folds=4, seed=2)
    path = tmp_path_factory.mktemp("pdf") / "r.pdf"
    return ubreg.report(models, path, title="PDF layout " + "check " * 30, training_data=d)


@pytest.mark.slow
def test_no_text_outside_the_page_or_the_text_block(pdf):
    boxes = assert_inside(pdf)
    words = {b[-1] for b in boxes}
    assert {"Data", "Models", "Comparison", "Calibration", "Trees"} <= words
    head, tail = shown_name(LONG).split("…")                    # long names shortened
    assert head in words and tail in words                      # (pdftotext splits at …)
    calls = sum(LONG in b[-1] for b in boxes)                   # in full only in the calls
    assert calls <= 5 and sum(b[-1] == head for b in boxes) >= 5


@pytest.mark.slow
def test_pages_are_typeset_not_a_monospaced_dump(pdf):
    # proportional type on the first pages: the width per character of words set at one
    # size varies (in a monospaced dump it is the same for every word)
    per_char = {}
    for page, _, _, x0, y0, x1, y1, word in word_boxes(pdf):
        if page <= 2 and len(word) >= 4 and word.isalpha():
            per_char.setdefault(round(y1 - y0, 1), []).append((x1 - x0) / len(word))
    size, widths = max(per_char.items(), key=lambda kv: len(kv[1]))
    assert len(widths) > 50 and np.std(widths) / np.mean(widths) > 0.08, size
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", str(pdf), "-"],
                           capture_output=True, text=True, timeout=60).stdout
    # the methods paragraph first, then the data (issue 31 §1's order)
    assert re.search(r"1\s+Methods", first) and re.search(r"2\s+Data", first)
    assert "Table 1." in first
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))
    assert pages <= 12, pages


def test_table_layout_fits_the_text_block():
    """Wide tables shrink their type, wrap long cells, then split their columns."""
    width = PAGE[0] - MARGINS[0] - MARGINS[1]
    narrow = Table("t", "c", ["name", "value"], [Row(["a", "1"]), Row(["b", "22"])])
    (block,) = layout(narrow, width)
    assert block.size == 8.0 and block.cols == [0, 1]
    header = ["Model"] + [f"a long column header number {i}" for i in range(12)]
    rows = [Row([f"model {k} " * 4] + [f"{k * i:.4f} ± 0.0123" for i in range(12)])
            for k in range(5)]
    blocks = layout(Table("w", "c", header, rows), width)
    assert len(blocks) > 1 and all(b.cols[0] == 0 for b in blocks)   # first column repeated
    assert sorted({c for b in blocks for c in b.cols}) == list(range(13))
    for b in blocks:
        assert sum(b.widths) + 8.0 * len(b.widths) <= width + 0.01
        assert b.size >= 6.0


def test_text_width_is_the_rendered_width():
    """The glyph-sum measure agrees with matplotlib's layout to within 2.5%."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    text = "Cross-validated comparison: the same 724 rows (seed 1) ± 0.0123"
    exact, _, _ = TextToPath().get_text_width_height_descent(
        text, FontProperties(family="DejaVu Sans", size=9), ismath=False)
    assert exact <= text_width(text, 9) <= exact * 1.025


@pytest.mark.slow
def test_hostile_strings_stay_literal_and_inside(tmp_path):
    rng = np.random.default_rng(5)
    n = 150
    x = rng.normal(size=n)
    name = "dose\u202e$\\alpha$" + "y" * 60
    d = pd.DataFrame({"y": (x + rng.normal(size=n) > 0).astype(int), name: x})
    m = ubreg.fit(f'y ~ Q("{name.replace(chr(92), chr(92) * 2)}")', d)
    path = ubreg.report({"the model " + "z" * 80: m}, tmp_path / "h.pdf", training_data=d)
    boxes = assert_inside(path)
    text = " ".join(b[-1] for b in boxes)
    assert "\u202e" not in text and "&lt;U+202E&gt;" in text


def test_code_wraps_at_spaces_never_inside_a_word():
    """A printed summary's long line (a call) is broken at spaces, continuations indented;
    only a token longer than a line is cut, after a comma or parenthesis if it has one."""
    from ubreg.reporting.pdf_layout import wrap_code

    call = ('ubreg.fit("diabetes ~ pregnant + glucose + pressure + mass + pedigree + age", '
            'data, family=Permissible("entropy"), method="uls")')
    lines = wrap_code(call, 60)
    assert all(len(line) <= 60 for line in lines) and len(lines) == 3
    assert " ".join(line.strip() for line in lines) == call
    assert all(line.startswith("    ") for line in lines[1:])
    assert wrap_code("    Min   1Q  Median", 60) == ["    Min   1Q  Median"]   # alignment kept
    assert wrap_code("a" * 25 + ",b" + "c" * 10, 20) == ["a" * 20, "    " + "a" * 5 + ",",
                                                          "    b" + "c" * 10]
    assert wrap_code("f(x=1,y=2)" * 3, 16)[0] == "f(x=1,y=2)f(x=1,"


def test_a_table_that_fits_on_a_page_is_not_split(tmp_path):
    """Started near the foot of a page, a table that fits on one moves to the next page;
    a table longer than a page is broken between rows under a '(continued)' caption."""
    from matplotlib.backends.backend_pdf import PdfPages

    from ubreg.reporting.pdf_layout import Document

    short = Table("s", "short", ["a", "b"], [Row([f"r{i}", str(i)]) for i in range(20)])
    long = Table("l", "long", ["a", "b"], [Row([f"r{i}", str(i)]) for i in range(150)])
    with PdfPages(tmp_path / "t.pdf") as pdf:
        doc = Document(pdf, "t")
        doc.new_page()
        doc.y = doc.bottom - 120
        doc.table(short, 1)
        assert doc.page == 2
        doc.table(long, 2)
        assert doc.page >= 3
        doc.finish_page()
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "t.pdf"), "-"],
                          capture_output=True, text=True, timeout=60).stdout
    pages = text.split("\f")
    assert "Table 1. short" in pages[1] and "r19" in pages[1]
    assert "Table 2. long" in pages[1]                    # a longer table starts at once
    assert all("Table 2 (continued)." in page for page in pages[2:doc.page])
