"""The HTML report in a real browser (headless Chromium): loads without console
messages and shows every figure.  Skipped when Chromium is not installed
(.ci/run installs Debian's chromium)."""
import json
import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import ubreg  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                 "(apt-get install chromium); the browser check needs it")]

# a closed network and no user profile: flags that keep Chromium from reaching out
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--enable-logging=stderr", "--v=0"]

# test-only probe, injected into a copy of the report: records, at the load event, whether
# each image decoded (naturalWidth) and is laid out with a visible box
PROBE = """<script>
window.addEventListener("load", function () {
  var out = document.createElement("pre"); out.id = "ubreg-probe";
  out.textContent = JSON.stringify(Array.from(document.images).map(function (i) {
    var r = i.getBoundingClientRect();
    return {complete: i.complete, width: i.naturalWidth, box: r.width * r.height};
  }));
  document.body.appendChild(out);
});
</script>"""


def _chromium(tmp_path, url, *extra):
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    data = ubreg.datasets.load_pima()
    models = {"entropy": ubreg.cv("diabetes ~ glucose + mass + age", data, folds=3, seed=0),
              "gini": ubreg.fit("diabetes ~ glucose + mass", data, family="gini")}
    return ubreg.report(models, d / "report.html", title="browser check")


def _console_lines(stderr):
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Uncaught" in line or "Not allowed to load" in line]


def test_page_loads_without_console_messages(report_file, tmp_path):
    html = report_file.read_text(encoding="utf-8")
    out = _chromium(tmp_path, report_file.as_uri(), "--dump-dom")
    assert _console_lines(out.stderr) == []
    assert "<h1>browser check</h1>" in out.stdout
    # 6 diagnostics per model, the odds-ratio forest plot and the calibration panels
    assert len(re.findall(r"<img ", out.stdout)) == len(re.findall(r"<img ", html)) == 14
    for anchor in ("data", "models", "odds-ratios", "comparison", "calibration"):
        assert f'<section id="{anchor}">' in out.stdout, anchor


def test_every_figure_decodes_and_is_shown(report_file, tmp_path):
    probed = tmp_path / "probed.html"
    probed.write_text(report_file.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                      encoding="utf-8")
    out = _chromium(tmp_path, probed.as_uri(), "--dump-dom")
    found = re.search(r'<pre id="ubreg-probe">(.*?)</pre>', out.stdout, re.S)
    assert found, "the probe did not run"
    images = json.loads(found.group(1).replace("&quot;", '"'))
    assert len(images) == 14
    for img in images:
        assert img["complete"] and img["width"] >= 300 and img["box"] > 10_000, img


def test_screenshot_is_not_blank(report_file, tmp_path):
    shot = tmp_path / "shot.png"
    _chromium(tmp_path, report_file.as_uri(), f"--screenshot={shot}", "--window-size=1200,2400")
    pixels = np.asarray(Image.open(shot).convert("L"))
    assert pixels.shape[1] == 1200
    assert (pixels < 128).mean() > 0.005            # text, tables and figures are drawn
