"""The command line: `ubreg demo` writes HTML and PDF reports; `ubreg fit`; clean errors."""
import re

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import ubreg  # noqa: E402
from ubreg.cli import main  # noqa: E402
from ubreg.progress import progress  # noqa: E402


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """`ubreg demo` with its first three models (the full demo takes ~15 s; `make demo`)."""
    import contextlib
    import io

    from ubreg import cli
    out_dir = tmp_path_factory.mktemp("demo")
    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(buf):
        mp.setattr(cli, "DEMO_SPECS", cli.DEMO_SPECS[:3])
        mp.setattr(cli, "DEMO_OTHER_METHODS", {})
        code = main(["demo", "--out", str(out_dir), "--folds", "3"])
    return code, buf.getvalue(), out_dir


def test_demo_writes_both_reports_and_prints_their_paths(demo):
    code, out, out_dir = demo
    assert code == 0
    html, pdf = out_dir / "report.html", out_dir / "report.pdf"
    assert f"HTML report: {html.resolve()}" in out and f"PDF report:  {pdf.resolve()}" in out
    assert pdf.read_bytes().startswith(b"%PDF")
    text = html.read_text(encoding="utf-8")
    assert "ubreg demo --out" in text                      # the command that produced it
    for label in ("uls · entropy (logistic regression)", "uls · matsushita", "uls · gini"):
        assert label in out and label in text
    assert re.search(r"\d\.\d{3} ± \d\.\d{3}", out)        # CV error rate ± SE in the summary


def test_fit_with_report(tmp_path, capsys):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    report = tmp_path / "fit.html"
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--family", "matsushita",
                 "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Coefficients:" in out and f"report: {report.resolve()}" in out
    assert "ubreg fit" in report.read_text(encoding="utf-8")


@pytest.mark.parametrize("argv, message", [
    (["fit", "y ~ x", "/nonexistent.csv"], "cannot read"),
    (["fit", "diabetes ~ glucose", "{csv}", "--family", "nope"], "unknown permissible family"),
    (["fit", "diabetes ~ glucose", "{csv}", "--report", "{tmp}/r.txt"], "report format"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, message):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    argv = [a.format(csv=csv, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ubreg: error:") and message in err[0]


def test_progress_bar_only_on_a_terminal(capsys):
    items = [1, 2, 3]
    assert progress(items, desc="x") is items               # pytest's stderr is not a TTY
    bar = progress(items, desc="x", show=True)
    assert list(bar) == items and bar is not items
