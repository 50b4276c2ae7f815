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
    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                         text=True, timeout=60)
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
    g = rng.choice([f"lo{ZWSP}w", f"hi{RLO}gh"], size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(x + (g == g[0]))))).astype(int)
    return pd.DataFrame({"y": y, f"dose{RLO}gm": x, "g": g})


def test_visible_text_rule():
    from ubreg.render import visible_text
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
    assert "Q(&#34;dose&lt;U+202E&gt;gm&#34;)" in text          # the summary's coefficient
    assert "<title>T&lt;U+202E&gt;itle" in text
    words = _pdf_text(pdf)
    for ch in HIDDEN:
        assert ch not in words, repr(ch)
    assert "<U+202E>" in words and "<U+200B>" in words and "<U+2066>" in words
    assert 'Q("dose<U+202E>gm")' in words
    assert "g[T.lo<U+200B>w]" in words


def test_summary_html_shows_hidden_characters_as_visible_escapes(bidi_data):
    m = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', bidi_data)
    for html in (m.summary().html(), ubreg.compare([m, m]).html()):
        assert RLO not in html and ZWSP not in html
        assert "&lt;U+202E&gt;" in html and "&lt;U+200B&gt;" in html


def test_plots_draw_hidden_characters_as_visible_escapes(bidi_data):
    m = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', bidi_data)
    ax = plots.coefficients(m, ax=Figure().add_subplot())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert 'Q("dose<U+202E>gm")' in labels and "g[T.lo<U+200B>w]" in labels
    if "udt" not in ubreg.METHODS:
        return
    d = bidi_data.assign(y=np.where(bidi_data["y"] == 1, f"ye{RLO}s", "no"))
    t = ubreg.fit(f'y ~ Q("dose{RLO}gm") + g', d, method="udt", xval=0, cp=0.0,
                  min_split=10)
    ax = plots.tree(t, ax=Figure(figsize=(9, 6)).add_subplot())
    texts = [x.get_text() for x in ax.texts] + [ax.get_title()]
    assert not any(ch in s for s in texts for ch in HIDDEN)
    assert any("<U+202E>" in s for s in texts)
