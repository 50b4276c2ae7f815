"""The vignettes run (each in its own interpreter, with a timeout) and render to HTML."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # the vignettes run as scripts

VIGNETTES = sorted((pathlib.Path(__file__).parent.parent / "vignettes").glob("*.py"))
TIMEOUT = 120   # seconds per vignette; they take a few seconds on an idle machine

RENDER = ("import sys, ubreg; "
          "print(ubreg.render_vignette(sys.argv[1], sys.argv[2]))")


def test_there_are_at_least_three_vignettes():
    names = [v.stem for v in VIGNETTES]
    assert len(names) >= 3
    assert any("getting_started" in n for n in names)
    assert any("trees" in n and "boosting" in n for n in names)
    assert any("comparing" in n for n in names)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Run every vignette at once (one process each), rendering it to HTML."""
    out = tmp_path_factory.mktemp("vignettes")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    procs = {v: subprocess.Popen([sys.executable, "-c", RENDER, str(v),
                                  str(out / f"{v.stem}.html")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env, cwd=out)
             for v in VIGNETTES}
    results = {}
    for v, p in procs.items():
        try:
            _, stderr = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            pytest.fail(f"{v.name} did not finish in {TIMEOUT} s")
        results[v.stem] = (p.returncode, stderr, out / f"{v.stem}.html")
    return results


@pytest.mark.parametrize("vignette", [v.stem for v in VIGNETTES])
def test_vignette_runs_and_renders(rendered, vignette):
    code, stderr, html = rendered[vignette]
    assert code == 0, stderr[-3000:]
    text = html.read_text(encoding="utf-8")
    assert "<h2>" in text and 'class="cell-code"' in text
    assert "Traceback" not in text
    assert "data:image/png;base64," in text                 # every vignette draws something


def test_trees_vignette_shows_every_method(rendered):
    name = next(v.stem for v in VIGNETTES if "trees" in v.stem)
    html = rendered[name][2].read_text(encoding="utf-8")
    # the outputs only
    text = "".join(re.findall(r'<div class="cell-output">(.*?)</div>', html, re.S))
    assert "SKIPPED" not in text
    for shown in ("t-AdaBoost (paper 004)", "GNNB, family: entropy; k = 10",
                  "rounds", "UDT"):
        assert shown in text, shown
