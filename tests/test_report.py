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
    assert "AUC (CV)" in html and "Cross-validation" in html
    # one section per model, each with its figures
    assert html.count('<section id="model-') == 2
    assert len(_img_sources(html)) == 12


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


def test_duck_typed_results_and_held_out_data(tmp_path):
    data = ubreg.datasets.load_pima()

    class Proxy:                         # no coef_table, no fit_info: like a future method
        method = "proxy"

        def __init__(self, r):
            self._r = r

        def __getattr__(self, name):
            if name in ("coef_table", "coef", "fit_info"):
                raise AttributeError(name)
            return getattr(self._r, name)

    m = ubreg.fit("diabetes ~ glucose + mass", data.iloc[:500])
    path = ubreg.report({"proxy": Proxy(m)}, tmp_path / "p.html", data=data.iloc[500:])
    html = path.read_text(encoding="utf-8")
    assert len(_img_sources(html)) == 3                     # calibration, ROC, margins
    assert "Report data" in html and "268 rows" in html


def test_format_errors(tmp_path):
    m = ubreg.fit("diabetes ~ glucose", ubreg.datasets.load_pima())
    with pytest.raises(ValueError, match="format"):
        ubreg.report(m, tmp_path / "r.txt")
    assert ubreg.report(m, tmp_path / "r.txt", format="html").exists()
