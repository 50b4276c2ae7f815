"""ubreg.report: escaping, self-contained HTML, versions and call, PDF pages."""
import base64
import io
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import ubreg  # noqa: E402

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def hostile():
    rng = np.random.default_rng(1)
    n = 200
    x = rng.normal(size=n)
    g = rng.choice([IMG, "!plain"], size=n)     # "!" sorts first: IMG is not the baseline
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(x + (g == IMG))))).astype(int)
    return pd.DataFrame({"y": y, SCRIPT: x, "g": g})


def _img_sources(html):
    return re.findall(r'<img\s[^>]*src="([^"]*)"', html)


def _model_section(html, anchor="model-1"):
    """The HTML of one model's own section (its summary, metrics and diagnostics)."""
    found = re.search(rf'<section id="{anchor}" class="model">(.*?)</section>', html, re.S)
    assert found, anchor
    return found.group(1)


@pytest.mark.slow
def test_user_strings_are_escaped(hostile, tmp_path):
    m = ubreg.fit(f'y ~ Q("{SCRIPT}") + g', hostile)
    assert any(SCRIPT in name for name in m.coef.index)
    assert any(IMG in name for name in m.coef.index)
    path = ubreg.report({SCRIPT: m}, tmp_path / "r.html", title=IMG, data=hostile)
    html = path.read_text(encoding="utf-8")
    assert "<script" not in html.lower()                  # no script at all, user's or ours
    assert IMG not in html and SCRIPT not in html
    assert not re.search(r"<[^>]*onerror", html)           # no tag carries the handler
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    # every <img> is one of our figures: an inline PNG that decodes
    sources = _img_sources(html)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    for s in sources:
        Image.open(io.BytesIO(base64.b64decode(s.split(",", 1)[1]))).verify()


@pytest.mark.slow
def test_html_is_self_contained_and_states_versions_and_call(tmp_path):
    data = ubreg.datasets.load_pima()
    cvr = ubreg.cv("diabetes ~ glucose + mass", data, folds=3, seed=1)
    m = ubreg.fit("diabetes ~ glucose + mass + age", data, family="matsushita")
    path = ubreg.report([cvr, m], tmp_path / "sub" / "r.htm", title="T")
    html = path.read_text(encoding="utf-8")
    assert not re.search(r'(src|href)="(?!data:|#)', html)   # nothing external
    assert "<link" not in html and "@import" not in html
    for name in ("ubreg", "numpy", "pandas", "patsy", "python"):
        assert re.search(rf"<th scope=\"row\">{name}</th><td>[0-9]", html), name
    assert "ubreg.report([" in html                        # the call that produced it
    assert "ubreg.cv(&#34;diabetes ~ glucose + mass&#34;" in html or "ubreg.cv(&#39;" in html
    assert "Cross-validation" in html
    # cross-validated and not: the comparison says they are not on equal footing
    assert "not on equal footing" in html and 'id="comparison-cv"' in html
    # one section per model, each with its figures
    assert html.count('<section id="model-') == 2
    assert [len(_img_sources(_model_section(html, f"model-{i}"))) for i in (1, 2)] == [6, 6]
    # and the analysis sections: odds ratios of the entropy fit, calibration of both
    assert 'id="odds-ratios-figure-' in html and 'id="calibration-figure-' in html
    assert len(_img_sources(html)) == 14


@pytest.mark.slow
def test_pdf_report_and_its_pages(tmp_path):
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose + mass", data)
    html, pdf = ubreg.report(m, [tmp_path / "r.html", tmp_path / "r.pdf"], title="P")
    assert html.exists()
    raw = pdf.read_bytes()
    assert raw.startswith(b"%PDF") and raw.rstrip().endswith(b"%%EOF")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", raw))
    assert pages >= 3                                       # overview, model text, figures
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed: PDF not rendered")
    out = subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(tmp_path / "page")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rendered = sorted(tmp_path.glob("page-*.png"))
    assert len(rendered) == pages
    for png in rendered:
        img = np.asarray(Image.open(png).convert("L"))
        assert img.min() < 128                               # something is drawn on each page


@pytest.mark.slow
def test_duck_typed_results_and_held_out_data(tmp_path):
    """An object that is not a ubreg result is read by the minimal protocol of
    ubreg.results.base (predict, y, weights; response for held-out data), whatever
    else it could answer: its metrics and the figures of its posteriors."""
    data = ubreg.datasets.load_pima()

    class Proxy:                         # no capability declaration: like a future method
        method = "proxy"

        def __init__(self, r):
            self._r = r

        def __getattr__(self, name):
            return getattr(self._r, name)

    m = ubreg.fit("diabetes ~ glucose + mass", data.iloc[:500])
    path = ubreg.report({"proxy": Proxy(m)}, tmp_path / "p.html", data=data.iloc[500:])
    html = path.read_text(encoding="utf-8")
    assert len(_img_sources(_model_section(html))) == 3     # calibration, ROC, margins
    assert len(_img_sources(html)) == 4                     # and the calibration section
    assert "Report data" in html and "268 rows" in html
    assert "no summary: a Proxy is not a ubreg result" in html
    assert "not drawn" not in html and "not computed" not in html


@pytest.mark.slow
def test_a_model_without_training_rows_is_shown_on_the_report_data(tmp_path):
    data = ubreg.datasets.load_pima()
    online = ubreg.OnlineLearner("diabetes ~ glucose + mass").partial_fit(data.iloc[:500])
    plain = ubreg.report({"online": online}, tmp_path / "a.html").read_text(encoding="utf-8")
    assert not _img_sources(plain)                          # no rows to draw posteriors on
    assert "not drawn" not in plain and "not computed" not in plain
    assert "q-norm, q = 2" in plain                         # its summary
    held = ubreg.report({"online": online}, tmp_path / "b.html",
                        data=data.iloc[500:]).read_text(encoding="utf-8")
    assert len(_img_sources(_model_section(held))) == 3
    assert 'id="calibration"' in held and "Posteriors from the data passed to the report" in held
    auc = ubreg.evaluate.metrics.metrics_of(online, data.iloc[500:])["auc"]
    assert f"<td>{auc:.4f}</td>" in held                    # the held-out metrics column


@pytest.mark.slow
def test_format_errors(tmp_path):
    m = ubreg.fit("diabetes ~ glucose", ubreg.datasets.load_pima())
    with pytest.raises(ValueError, match="format"):
        ubreg.report(m, tmp_path / "r.txt")
    assert ubreg.report(m, tmp_path / "r.txt", format="html").exists()


# ---------------------------------------------------------------------------
# a `$` in user strings, failed figures, CV risk paths, the comparison table
# ---------------------------------------------------------------------------
MATHTEXT = "$\\undefinedmacro{$"      # matplotlib's mathtext cannot parse it


@pytest.fixture(scope="module")
def mathtext_data():
    rng = np.random.default_rng(4)
    n = 160
    x = rng.normal(size=n)
    g = rng.choice([MATHTEXT, "plain"], size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(2 * x + (g == MATHTEXT))))).astype(int)
    return pd.DataFrame({"y": y, MATHTEXT: x, "g": g})


@pytest.mark.slow
@pytest.mark.parametrize("method", sorted(ubreg.METHODS))
def test_mathtext_in_a_column_name_and_a_level_for_every_method(mathtext_data, method,
                                                                 tmp_path):
    from ubreg import plots
    quoted = MATHTEXT.replace("\\", "\\\\")
    m = ubreg.fit(f'y ~ Q("{quoted}") + g', mathtext_data, method=method)
    html, pdf = ubreg.report({MATHTEXT: m}, [tmp_path / "r.html", tmp_path / "r.pdf"],
                             title=MATHTEXT, data=mathtext_data)
    text = html.read_text(encoding="utf-8")
    assert "not drawn" not in text                        # every figure was drawn
    assert len(_img_sources(_model_section(text))) == len(plots.available(m))
    assert MATHTEXT in text                                 # escaped HTML keeps it literal
    if method == "udt":
        assert 'id="model-1-tree"' in text
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.slow
def test_a_failing_figure_is_a_note_in_its_place(tmp_path, monkeypatch):
    from ubreg import plots
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose + mass", data)

    def broken_roc(*args, **kwargs):
        raise ValueError("\nQ(x)< 0.3\n   ^\nParseException: Expected end of text")

    monkeypatch.setattr(plots, "roc", broken_roc)
    html, pdf = ubreg.report(m, [tmp_path / "r.html", tmp_path / "r.pdf"])
    text = html.read_text(encoding="utf-8")
    figure = re.search(r'<figure id="model-1-roc" class="[^"]*failed[^"]*">(.*?)</figure>',
                       text, re.S)
    assert figure, "the failed ROC keeps its place"
    assert ("ROC curve on the training rows (optimistic): not drawn (ValueError: Q(x)&lt; "
            "0.3 | ParseException: Expected end of text)") in figure.group(1)
    assert "<img" not in figure.group(1)
    assert len(_img_sources(_model_section(text))) == len(plots.available(m)) - 1
    assert pdf.read_bytes().startswith(b"%PDF")


@pytest.mark.slow
def test_a_figure_failing_while_rendered_is_a_note(tmp_path, monkeypatch):
    """An error raised by savefig (as a mathtext parse error is) is caught too."""
    from ubreg import plots
    m = ubreg.fit("diabetes ~ glucose + mass", ubreg.datasets.load_pima())
    original = plots.margins

    def margins_with_bad_mathtext(result, ax=None, **kwargs):
        ax = original(result, ax=ax, **kwargs)
        ax.set_title("$\\undefinedmacro{$")           # fails only when drawn
        return ax

    monkeypatch.setattr(plots, "margins", margins_with_bad_mathtext)
    text = ubreg.report(m, tmp_path / "r.html").read_text(encoding="utf-8")
    assert re.search(r"Distribution of the normalised margins [^<]*"
                     r"\(Nock &amp; Nielsen 2009\)[^<]* on the training rows \(optimistic\): "
                     r"not drawn "
                     r"\(ValueError: [^<\n]+\)", text)


@pytest.mark.slow
def test_cv_risk_path_of_uboost_on_request(tmp_path):
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose + mass + age", data, method="uboost", mstop=30)
    plain = ubreg.report(m, tmp_path / "a.html").read_text(encoding="utf-8")
    assert 'id="model-1-cv_risk"' not in plain               # cv_risk is not run unasked
    html, pdf = ubreg.report(m, [tmp_path / "b.html", tmp_path / "b.pdf"], cv_risk=3)
    text = html.read_text(encoding="utf-8")
    assert 'id="model-1-cv_risk"' in text
    assert re.search(r"CV risk path \(3-fold, seed 1\): least mean held-out risk at mstop = "
                     r"\d+, 1-SE rule \d+; this model runs mstop = 30\.", text)
    assert "cv_risk=3" in text                               # in the call it states
    assert pdf.read_bytes().startswith(b"%PDF")
    # the path is ubreg.cv_risk's, fold for fold
    path = ubreg.cv_risk(m, folds=3, seed=1)
    assert f"least mean held-out risk at mstop = {path.mstop}, 1-SE rule {path.mstop_1se}" in text
    # a model that cannot be cross-validated so is reported without the path or a note
    linear = ubreg.fit("diabetes ~ glucose + mass", data)
    text = ubreg.report(linear, tmp_path / "c.html", cv_risk=3).read_text(encoding="utf-8")
    assert 'id="model-1-cv_risk"' not in text and "CV risk path" not in text


@pytest.mark.slow
def test_tboost_report_shows_its_loss_path(tmp_path):
    m = ubreg.fit("diabetes ~ glucose + mass", ubreg.datasets.load_pima(), method="tboost",
                  rounds=6)
    text = ubreg.report(m, tmp_path / "t.html").read_text(encoding="utf-8")
    for name in ("calibration", "roc", "margins", "risk_path"):
        assert f'id="model-1-{name}"' in text, name


@pytest.mark.slow
def test_comparison_table_scrolls_inside_the_page(tmp_path):
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose + mass", data)
    html = ubreg.compare({f"model number {i} with a long name": m for i in range(10)}).html()
    assert re.search(r'^<div class="table-scroll">\s*<table class="ubreg-comparison">', html)
    text = ubreg.report(m, tmp_path / "w.html").read_text(encoding="utf-8")
    assert '<div class="table-scroll">' in text
    assert "div.table-scroll { overflow-x: auto;" in text
