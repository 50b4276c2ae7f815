"""The command line: `ubreg demo` writes HTML and PDF reports; `ubreg fit`; clean errors."""
import re
import sys
import time

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import ubreg  # noqa: E402
from ubreg.cli import main, parse_option  # noqa: E402
from ubreg.errors import UbregError  # noqa: E402
from ubreg.numerics.progress import progress  # noqa: E402


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


@pytest.mark.slow
def test_demo_writes_both_reports_and_prints_their_paths(demo):
    code, out, out_dir = demo
    assert code == 0
    html, pdf = out_dir / "report.html", out_dir / "report.pdf"
    assert f"HTML report: {html.resolve()}" in out and f"PDF report:  {pdf.resolve()}" in out
    # where the reports are comes first, before the summaries (issue 28 §5)
    assert out.index("HTML report:") < out.index("== uls · entropy")
    assert pdf.read_bytes().startswith(b"%PDF")
    text = html.read_text(encoding="utf-8")
    assert "ubreg demo --out" in text                      # the command that produced it
    for label in ("uls · entropy (logistic regression)", "uls · matsushita", "uls · gini"):
        assert label in out and label in text
    assert re.search(r"\d\.\d{3} ± \d\.\d{3}", out)        # CV error rate ± SE in the summary
    for anchor in ("data", "models", "odds-ratios", "comparison", "calibration"):
        assert f'<section id="{anchor}">' in text, anchor
    # every model cross-validated on the same rows and folds, stated with n, K and the seed
    assert "the same 724 rows and the same 3 folds (seed 1) for every model" in text
    assert "768 rows were read; 724 are complete in every model variable" in text


@pytest.mark.slow
def test_fit_with_report(tmp_path, capsys):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    report = tmp_path / "fit.html"
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--family", "matsushita",
                 "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "Coefficients:" in out and f"report: {report.resolve()}" in out
    assert "ubreg fit" in report.read_text(encoding="utf-8")


def test_fit_without_family_takes_the_methods_own_loss(tmp_path, capsys):
    """No --family: each method's default loss (tboost's tempered exponential loss, once
    refused as 'entropy' was always passed)."""
    import warnings
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--method", "tboost",
                     "-o", "rounds=3"]) == 0
    assert "t = 0.5" in capsys.readouterr().out
    assert main(["fit", "diabetes ~ glucose + mass", str(csv), "--method", "uboost",
                 "--family", "entropy", "-o", "mstop=3"]) == 0
    assert "U(z) = ln(1 + e^−z)" in capsys.readouterr().out


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


@pytest.mark.slow
@pytest.mark.xdist_group("timing")        # its CPU time is bounded
def test_full_demo_labels_models_by_what_they_fit(tmp_path, capsys):
    """The whole demo (every method, 10-fold CV, both reports).  Its CPU time, unlike its
    wall time, does not depend on what else the machine runs (about 20 s here)."""
    cpu = time.process_time()
    assert main(["demo", "--out", str(tmp_path)]) == 0
    cpu = time.process_time() - cpu
    assert cpu < 60, f"ubreg demo used {cpu:.0f} s of CPU"
    out = capsys.readouterr().out
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    expected = {"tboost": "tboost · tempered exponential (t = 0.5)", "gnnb": "gnnb · entropy",
                "uboost": "uboost · entropy", "udt": "udt · entropy"}
    for label in expected.values():
        assert label in out and label in html, label
    assert "tboost · entropy" not in out
    # AIC only for the linear fits: blank for uboost, with the footnote
    line = next(ln for ln in out.splitlines() if ln.startswith("uboost · entropy"))
    assert re.match(r"uboost · entropy\s+\d\.\d{3} ± ", line), line
    assert re.search(r'id="model-\d+-cv_risk"', html)       # its CV risk path, drawn
    # one fit with a likelihood (the logistic regression; the coordinate solver's second fit
    # of it is no longer shown): no AIC table, a ΔAIC needs two
    assert "comparison-aic" not in html and "coordinate solver" not in html
    for anchor in ("data", "models", "odds-ratios", "comparison", "calibration", "trees"):
        assert f'<section id="{anchor}">' in html, anchor
    # the tree is cross-validated and shown pruned by the 1-SE rule
    assert "udt · entropy: pruned by the 1-SE rule" in html
    assert re.search(r"udt · entropy</th><td[^>]*>0\.\d{3} ± ", html)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", (tmp_path / "report.pdf").read_bytes()))
    assert pages <= 14, pages                                 # a short paper and its appendix


def test_errors_are_one_line_even_when_the_message_has_several(tmp_path, capsys,
                                                                  monkeypatch):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)

    def parse_error(*args, **kwargs):
        raise ValueError("\nQ(\"$\\\\undefinedmacro{$\")< 0.3551\n   ^\n"
                         "ParseException: Expected end of text, found '$'")

    monkeypatch.setattr("ubreg.methods.fit.fit", parse_error)
    monkeypatch.delenv("UBREG_DEBUG", raising=False)
    assert main(["fit", "diabetes ~ glucose", str(csv)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['ubreg: error: Q("$\\\\undefinedmacro{$")< 0.3551 | ParseException: '
                   "Expected end of text, found '$'"]

    def unexpected(*args, **kwargs):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr("ubreg.methods.fit.fit", unexpected)
    assert main(["fit", "diabetes ~ glucose", str(csv)]) == 2
    err = capsys.readouterr().err
    assert err == "ubreg: error: RuntimeError: something | broke\n"
    # tracebacks on request
    assert main(["--debug", "fit", "diabetes ~ glucose", str(csv)]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "RuntimeError: something" in err
    assert err.rstrip().splitlines()[-1] == "ubreg: error: RuntimeError: something | broke"
    monkeypatch.setenv("UBREG_DEBUG", "1")
    assert main(["fit", "diabetes ~ glucose", str(csv)]) == 2
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("text, expected", [
    ("k=5", ("k", 5)), ("nu=0.05", ("nu", 0.05)), ("eps=1e-3", ("eps", 0.001)),
    ("n=-2", ("n", -2)), ("trace=true", ("trace", True)), ("trace=False", ("trace", False)),
    ("T=none", ("T", None)), ("T=null", ("T", None)), ("learner=stumps", ("learner", "stumps")),
    ("name='5'", ("name", "5")), ('name="a=b"', ("name", "a=b")), ("x = 3 ", ("x", 3)),
    ("s=__import__('os')", ("s", "__import__('os')")),          # a string, never evaluated
])
def test_parse_option(text, expected):
    key, value = parse_option(text)
    assert (key, value) == expected and type(value) is type(expected[1])


@pytest.mark.parametrize("bad", ["k", "=5", "1k=5", "a b=1"])
def test_parse_option_errors(bad):
    with pytest.raises(UbregError, match="key=value"):
        parse_option(bad)


def test_fit_passes_method_options(tmp_path, capsys, monkeypatch):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    assert main(["fit", "diabetes ~ glucose + mass + age", str(csv), "--method", "gnnb",
                 "--option", "k=5", "-o", "epsilon=0.25"]) == 0
    out = capsys.readouterr().out
    assert "k = 5" in out and "k=5" in out             # the summary and the call
    seen = {}

    def spy(formula, data, **kwargs):
        seen.update(kwargs)
        raise UbregError("stop here")

    monkeypatch.setattr("ubreg.methods.fit.fit", spy)
    assert main(["fit", "diabetes ~ glucose", str(csv), "-o", "rounds=30", "-o", "nu=0.1",
                 "-o", "trace=true", "-o", "T=none", "-o", "learner=stumps"]) == 2
    assert {k: seen[k] for k in ("rounds", "nu", "trace", "T", "learner")} == {
        "rounds": 30, "nu": 0.1, "trace": True, "T": None, "learner": "stumps"}
    capsys.readouterr()
    for argv, message in [(["-o", "k"], "key=value"), (["-o", "k=1", "-o", "k=2"], "twice"),
                          (["-o", "family=gini"], "use the argument"),
                          (["--solver", "coordinate", "-o", "solver=corrective"], "disagree")]:
        assert main(["fit", "diabetes ~ glucose", str(csv), *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (argv, err)


def test_progress_bar_only_on_a_terminal(capsys):
    items = [1, 2, 3]
    assert progress(items, desc="x") is items               # pytest's stderr is not a TTY
    bar = progress(items, desc="x", show=True)
    assert list(bar) == items and bar is not items


def test_progress_helper_draws_on_a_fake_terminal_only(capsys, monkeypatch):
    monkeypatch.delenv("UBREG_PROGRESS", raising=False)
    items = list(range(5))
    # not a terminal: the iterable itself, nothing written
    assert progress(items, total=5, desc="rounds") is items
    assert list(progress(iter(items), desc="rounds")) == items
    assert capsys.readouterr().err == ""
    # a (fake) terminal: a bar on stderr
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = progress(items, total=5, desc="rounds", delay=0)
    assert bar is not items and list(bar) == items
    err = capsys.readouterr().err
    assert "rounds:" in err and "/5 " in err
    # short loops and show=False: unchanged, silent
    assert progress([1], desc="one") == [1]
    short = [1]
    assert progress(short, desc="one") is short
    assert progress(items, desc="off", show=False) is items
    # a fast loop draws nothing before the default delay
    assert list(progress(items, desc="fast")) == items
    assert capsys.readouterr().err == ""
    # the environment variable overrides the terminal test
    monkeypatch.setenv("UBREG_PROGRESS", "0")
    assert progress(items, desc="env") is items


# --- no option may switch a safety check off; option values are parsed strictly ----------
@pytest.mark.parametrize("value", ["true", "no", "1", "yes", "0", "False", "maybe"])
def test_trusted_cannot_be_given_on_the_command_line(tmp_path, capsys, value):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    target = tmp_path / "PWNED"
    formula = f"diabetes ~ glucose + I(__import__('os').system('touch {target}'))"
    assert main(["fit", formula, str(csv), "-o", f"trusted={value}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "trusted" in err[0] and "command line" in err[0]
    assert not target.exists()


@pytest.mark.parametrize("text, expected", [
    ("corrective=yes", True), ("corrective=no", False), ("corrective=1", True),
    ("corrective=0", False), ("corrective=TRUE", True), ("corrective=False", False)])
def test_boolean_options_accept_the_six_spellings(tmp_path, monkeypatch, text, expected):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    seen = {}

    def spy(formula, data, **kwargs):
        seen.update(kwargs)
        raise UbregError("stop here")

    monkeypatch.setattr("ubreg.methods.fit.fit", spy)
    assert main(["fit", "diabetes ~ glucose", str(csv), "-o", "learner=stumps",
                 "-o", text]) == 2
    assert seen["corrective"] is expected


@pytest.mark.parametrize("text", ["corrective=maybe", "corrective=2", "corrective=none",
                                  "corrective=0.5"])
def test_a_boolean_option_refuses_anything_else(tmp_path, capsys, text):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().to_csv(csv, index=False)
    assert main(["fit", "diabetes ~ glucose", str(csv), "-o", "learner=stumps",
                 "-o", text]) == 2
    err = capsys.readouterr().err.strip()
    assert "corrective" in err and "true/false/yes/no/1/0" in err


@pytest.mark.parametrize("value", ["no", "yes", 1, 0, "True", None])
def test_fit_takes_trusted_only_as_a_bool(value):
    data = ubreg.datasets.load_pima()
    with pytest.raises(TypeError, match="trusted must be True or False"):
        ubreg.fit("diabetes ~ glucose", data, trusted=value)


@pytest.mark.slow
def test_precompile_runs_every_method_and_says_how_long(capsys):
    """``ubreg precompile`` (run by make test and make demo after installing) fits every
    method once, in one process here."""
    assert main(["precompile", "--processes", "1"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"compiled: trees \d+ s, rest \d+ s\n", out), out
