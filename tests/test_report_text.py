"""User strings in reports and plots: invisible and bidirectional characters are shown as
visible escapes, very long names are shortened (distinctly, with the full name in a tooltip)."""
import re
import shutil
import subprocess
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from markupsafe import Markup  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import ubreg  # noqa: E402
from ubreg import plots  # noqa: E402

RLO, ZWSP = "\u202e", "\u200b"           # right-to-left override, zero-width space
HIDDEN = (RLO, ZWSP, "\u2066", "\u200f", "\u061c", "\ufeff", "\x07")


def _pdf_text(path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _pdf_pages(path) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", path.read_bytes()))


# ---------------------------------------------------------------------------
# 1. invisible and bidirectional characters
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bidi_data():
    rng = np.random.default_rng(3)
    n = 160
    x = rng.normal(size=n)
    g = rng.choice([f"lo{ZWSP}w", f"hi{RLO}gh", "mi\u2028d"], size=n)   # U+2028 splits lines
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(x + (g == g[0]))))).astype(int)
    return pd.DataFrame({"y": y, f"dose{RLO}gm": x, "g": g})


def test_visible_text_rule():
    from ubreg.summary.render import visible_text
    assert visible_text("plain ascii, ünïcode ∑ 1 ≥ 0") == "plain ascii, ünïcode ∑ 1 ≥ 0"
    assert visible_text(f"a{RLO}b{ZWSP}c") == "a<U+202E>b<U+200B>c"
    assert visible_text("\u2066\u2069\u200e\u200f\u061c\ufeff\x00\x1b\u2028") == (
        "<U+2066><U+2069><U+200E><U+200F><U+061C><U+FEFF><U+0000><U+001B><U+2028>")
    assert visible_text("\U000e0041") == "<U+E0041>"                     # a tag character
    assert visible_text("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert visible_text("a\nb\tc", newlines=False) == "a<U+000A>b<U+0009>c"
    assert visible_text("\ud800") == "<U+D800>"                  # a lone surrogate
    once = visible_text(f"x{RLO}")
    assert visible_text(once) == once                             # idempotent
    marked = visible_text(Markup(f"<b>{RLO}</b>"))                # HTML stays HTML
    assert isinstance(marked, Markup) and str(marked) == "<b>&lt;U+202E&gt;</b>"
    assert visible_text(3.5) == 3.5                               # not text: unchanged


@pytest.mark.slow
def test_html_and_pdf_show_hidden_characters_as_visible_escapes(bidi_data, tmp_path):
    before = bidi_data.copy()
    m = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', bidi_data)
    assert any(RLO in name for name in m.coef.index)             # the model keeps them
    assert any(ZWSP in name for name in m.coef.index)
    html, pdf = ubreg.report({f"model{ZWSP}1": m}, [tmp_path / "r.html", tmp_path / "r.pdf"],
                             title=f"T{RLO}itle\u2066x\u2069")
    pd.testing.assert_frame_equal(bidi_data, before)            # user input untouched
    text = html.read_text(encoding="utf-8")
    for ch in HIDDEN:
        assert ch not in text, repr(ch)
    for esc in ("&lt;U+202E&gt;", "&lt;U+200B&gt;", "&lt;U+2066&gt;"):
        assert esc in text, esc
    assert "`dose&lt;U+202E&gt;gm`" in text                    # the summary's coefficient
    assert "<title>T&lt;U+202E&gt;itle" in text
    words = _pdf_text(pdf)
    for ch in HIDDEN:
        assert ch not in words, repr(ch)
    assert "<U+202E>" in words and "<U+200B>" in words and "<U+2066>" in words
    assert '`dose<U+202E>gm`' in words
    assert "glo<U+200B>w" in words
    assert "gmi<U+2028>d" in words and "gmi&lt;U+2028&gt;d" in text


def test_summary_html_shows_hidden_characters_as_visible_escapes(bidi_data):
    m = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', bidi_data)
    for html in (m.summary().html(), ubreg.compare([m, m]).html()):
        assert RLO not in html and ZWSP not in html
        assert "&lt;U+202E&gt;" in html and "&lt;U+200B&gt;" in html


@pytest.mark.slow
def test_plots_draw_hidden_characters_as_visible_escapes(bidi_data):
    m = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', bidi_data)
    ax = plots.coefficients(m, ax=Figure().add_subplot())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert '`dose<U+202E>gm`' in labels and "glo<U+200B>w" in labels
    d = bidi_data.assign(y=np.where(bidi_data["y"] == 1, f"ye{RLO}s", "no"))
    t = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', d, method="udt", xval=0, cp=0.0,
                  min_split=10)
    ax = plots.tree(t, ax=Figure(figsize=(9, 6)).add_subplot())
    texts = [x.get_text() for x in ax.texts] + [ax.get_title()]
    assert not any(ch in s for s in texts for ch in HIDDEN)
    assert any("<U+202E>" in s for s in texts)


# ---------------------------------------------------------------------------
# 2. very long names
# ---------------------------------------------------------------------------
P300, Q150 = "p" * 300, "q" * 150
LONG_LEVELS = [f"{P300}_one", f"{P300}_two",                    # same head, different tails
               f"{Q150}_mid1_{Q150}", f"{Q150}_mid2_{Q150}",    # differ only in the middle
               "short"]
RUNS = re.compile(r"p{41}|q{41}|x{41}")


def _long_data(levels, n, seed=5):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    g = np.asarray(levels, dtype=object)[np.arange(n) % len(levels)]
    rng.shuffle(g)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-x))).astype(int)
    return pd.DataFrame({"y": y, "x": x, "g": g})


def _fit(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # separation and the like: not the point
        return ubreg.fit(formula, data, **kw)


def test_shown_names_rule():
    from ubreg.summary.render import NAME_LIMIT, shown_name, shown_names
    assert NAME_LIMIT == 40
    assert shown_names(["a", "(Intercept)", "x" * 40]) == ["a", "(Intercept)", "x" * 40]
    long = "abcdefghijklmnopqrstuvwxyz" * 4
    assert shown_name(long) == long[:22] + "…" + long[-17:]
    names = [f"g{lvl}" for lvl in LONG_LEVELS]
    shown = shown_names(names)
    assert all(len(s) <= 40 for s in shown)
    assert len(set(shown)) == len(names)                 # distinct after shortening
    assert shown[0].endswith("_one") and shown[1].endswith("_two")
    assert re.fullmatch(r"gq{15}…#[0-9a-f]{6}…q{15}", shown[2])
    assert shown_names(names[2:3])[0] == f"g{'q' * 21}…{'q' * 17}"   # alone: plain cut
    assert shown_names([names[0], names[0]]) == [shown[0], shown[0]]    # equal stay equal
    assert shown_name(f"lo{ZWSP}w\n") == "lo<U+200B>w<U+000A>"
    with pytest.raises(ValueError, match="at least 16"):
        shown_names(["x"], limit=8)


@pytest.mark.slow
def test_long_levels_are_shortened_in_html_with_the_full_name_as_tooltip(tmp_path):
    d = _long_data(LONG_LEVELS, 300)
    m = _fit("y ~ x + g", d)
    path = ubreg.report({"long": m}, tmp_path / "r.html", title="long levels")
    html = path.read_text(encoding="utf-8")
    tips = re.findall(r'title="([^"]*)"', html)
    for level in LONG_LEVELS[1:4]:                           # [0] is the baseline
        assert f"g{level}" in tips, level[:20]           # full name in a tooltip
    shown = re.sub(r'title="[^"]*"', "", html)             # what the reader sees
    assert not RUNS.search(shown)
    coef_table = re.search(r'<table class="coefficients">(.*?)</table>', html, re.S).group(1)
    heads = re.findall(r'<th scope="row">(.*?)</th>', coef_table)
    assert len(heads) == 6 and len(set(heads)) == 6          # distinct after shortening
    table = re.search(r'<table class="ubreg-table" id="model-table">(.*?)</table>', html,
                      re.S).group(1)
    coefficients = table.split('<tr class="first">')[0]          # before the fit statistics
    terms = re.findall(r'<tr class="body"><th scope="row">(.*?)</th>', coefficients)
    assert len(terms) == 6 and len(set(terms)) == 6
    odds = re.search(r'<table class="ubreg-table" id="odds-long">(.*?)</table>', html,
                     re.S).group(1)
    terms = re.findall(r'<th scope="row">(.*?)</th>', odds)
    assert len(terms) == 5 and len(set(terms)) == 5
    assert not RUNS.search(re.sub(r'title="[^"]*"', "", odds))


def test_long_levels_in_text_summaries_and_plots():
    d = _long_data(LONG_LEVELS, 300)
    m = _fit("y ~ x + g", d)
    for text in (str(m.summary()), ubreg.compare([m, m]).text()):
        assert not RUNS.search(text)
        rows = [line for line in text.splitlines() if line.startswith(("gp", "gq", "gs"))]
        assert len(rows) == 4 and max(map(len, rows)) <= 100
    assert len(m.coef_table().index[2]) > 300                # the data forms keep full names
    ax = plots.coefficients(m, ax=Figure().add_subplot())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 5 and len(set(labels)) == 5
    assert all(len(s) <= 40 for s in labels)


def test_long_levels_in_a_tree_listing():
    levels = [f"level{i:02d}_" + "x" * 290 for i in range(12)]
    d = _long_data(levels, 600)
    d["y"] = (d["g"].isin(levels[:6]) ^ (d["x"] > 1)).astype(int)
    m = _fit("y ~ x + g", d, method="udt", xval=0)
    text = str(m.summary())
    assert "level00_" in text and not RUNS.search(text)
    assert not RUNS.search(m.summary().html())


@pytest.mark.slow
def test_long_levels_keep_the_pdf_short(tmp_path):
    levels = [f"level{i:02d}_" + "x" * 290 for i in range(40)]
    m = _fit("y ~ x + g", _long_data(levels, 800))
    pdf = ubreg.report(m, tmp_path / "r.pdf")
    words = _pdf_text(pdf)
    assert not RUNS.search(words)
    # 41 terms: the model table (estimate, SE and interval rows), the odds ratios, the
    # average marginal effects beside them, their forest plot, the drop1 table and the
    # summary, after the methods paragraph; a table that fits on a page starts a page
    assert _pdf_pages(pdf) <= 10, _pdf_pages(pdf)
    one = _fit("y ~ x + h", _long_data(levels, 800).assign(
        h=lambda f: np.where(f["x"] > 0, "a" * 2000, "b" * 2000)))
    pdf = ubreg.report(one, tmp_path / "one.pdf")
    assert not re.search(r"a{41}|b{41}", _pdf_text(pdf))
    # the same sections; the model's summary and the versions each kept on a page
    assert _pdf_pages(pdf) <= 5, _pdf_pages(pdf)


@pytest.mark.slow
def test_long_coefficient_labels_fit_in_their_figure(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from ubreg.reporting.figures import model_figures
    m = _fit("y ~ x + g", _long_data(LONG_LEVELS, 300))
    short = _fit("y ~ x", _long_data(LONG_LEVELS, 300))
    for model, wide in ((m, True), (short, False)):
        figures, _ = model_figures(model)
        f = next(f for f in figures if f.name == "coefficients")
        assert f.wide is wide                # long labels: full width, a PDF page of its own
        canvas = FigureCanvasAgg(f.figure)
        canvas.draw()
        box = f.figure.bbox
        ax = f.figure.axes[0]
        for text in [*ax.get_yticklabels(), ax.xaxis.label, ax.title]:
            extent = text.get_window_extent(canvas.get_renderer())
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text()
    words = _pdf_text(ubreg.report({"long": m}, tmp_path / "r.pdf"))
    assert "Coefficients per SD of each numeric predictor" in words    # its panel's caption


@pytest.mark.slow
def test_line_separators_in_pdf_notes_are_shown_not_obeyed(tmp_path):
    """U+2028 would split a line of running text (a summary's note) in two."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=120)
    d = pd.DataFrame({"y": (x + rng.normal(size=120) > 0).astype(int), "x": x,
                      "dup\u2028x": x})
    m = _fit('y ~ x + Q("dup\u2028x")', d)
    assert "dup<U+2028>x" in str(m.summary())               # named in the aliasing note
    words = _pdf_text(ubreg.report(m, tmp_path / "r.pdf"))
    assert "\u2028" not in words
    assert words.count('`dup<U+2028>x`') == 3    # coefficient row, the note, its drop1 row
