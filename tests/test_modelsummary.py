"""ubreg.modelsummary and ubreg.datasummary_df: the tables of a paper in HTML, LaTeX
(booktabs), Markdown and Word."""
import shutil
import subprocess

import numpy as np
import pytest

import ubreg


@pytest.fixture(scope="module")
def models(pima):
    rows = pima.dropna(subset=["glucose", "mass", "age"])
    return {"Logit": ubreg.fit("diabetes ~ glucose + mass", rows),
            "Logit & age": ubreg.fit("diabetes ~ glucose + mass + age", rows),
            "Matsushita": ubreg.fit("diabetes ~ glucose + mass + age", rows,
                                    family="matsushita"),
            "Tree": ubreg.fit("diabetes ~ glucose + mass + age", rows, method="udt", xval=0)}


def test_the_table_holds_each_models_numbers(models):
    table = ubreg.modelsummary(models)
    assert list(table.columns) == list(models)
    m = models["Logit & age"]
    t = m.coef_table()
    for term in t.index:
        i = list(table.index).index(term)
        stars = " ***" if t.loc[term, "p"] < 0.001 else ""
        assert table.iloc[i]["Logit & age"] == f"{t.loc[term, 'estimate']:.3f}" + stars
        assert table.iloc[i + 1]["Logit & age"] == f"({t.loc[term, 'std_error']:.3f})"
    assert table.loc["age", "Logit"] == "" and table.loc["AIC", "Matsushita"] == ""
    assert table.loc["AIC", "Logit"] == f"{models['Logit'].aic:.1f}"
    assert table.loc["Num.Obs.", "Tree"] == f"{models['Tree'].nobs:.0f}"
    assert table.loc["(Intercept)", "Tree"] == ""          # a tree has no coefficients
    assert "+ p < 0.1" in table.attrs["notes"][1]


def test_intervals_and_z_below_the_estimates(models):
    m = models["Logit"]
    t = m.coef_table(level=0.9)
    ci = ubreg.modelsummary([m], statistic="conf.int", conf_level=0.9, stars=False)
    assert ci.iloc[1, 0] == f"[{t['conf_low'].iloc[0]:.3f}, {t['conf_high'].iloc[0]:.3f}]"
    assert ci.iloc[0, 0] == f"{t['estimate'].iloc[0]:.3f}"
    z = ubreg.modelsummary([m], statistic="statistic", digits=2)
    assert z.iloc[1, 0] == f"({t['z'].iloc[0]:.2f})"


def test_text_formats(models):
    two = {k: models[k] for k in ("Logit", "Logit & age")}
    md = ubreg.modelsummary(two, "markdown")
    assert md.splitlines()[0] == "|  | Logit | Logit & age |" and "| Num.Obs. | 752 | 752 |" in md
    html = ubreg.modelsummary(two, "html", title="<Models>")
    assert "<caption>&lt;Models&gt;</caption>" in html and "Logit &amp; age" in html
    tex = ubreg.modelsummary(two, "latex")
    assert r"\toprule" in tex and r"Logit \& age" in tex and r"\textless{}" in tex


def test_latex_compiles(models, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    ubreg.modelsummary(models, tmp_path / "table.tex", title="Models 100% $")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n"
                                      "\\begin{document}\n\\input{table.tex}\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0


def test_word_table_opens_with_python_docx(models, tmp_path):
    docx = pytest.importorskip("docx")
    path = ubreg.modelsummary(models, tmp_path / "table.docx", title="Models")
    document = docx.Document(str(path))
    assert len(document.tables) == 1
    rows = [[c.text for c in r.cells] for r in document.tables[0].rows]
    expected = ubreg.modelsummary(models)
    assert rows[0] == [""] + list(models)
    assert rows[1] == ["(Intercept)"] + list(expected.iloc[0])
    assert len(rows) == len(expected) + 1


def test_datasummary_df_writes_any_table(models, tmp_path):
    drop = ubreg.drop1(models["Logit & age"], test="Chisq")
    md = ubreg.datasummary_df(drop, "markdown")
    assert "| glucose | 1 |" in md and "<2e-16" in md
    coef = ubreg.datasummary_df(models["Logit"].coef_table(), tmp_path / "coef.html")
    assert "<table" in coef.read_text(encoding="utf-8")
    with pytest.raises(TypeError, match="DataFrame"):
        ubreg.datasummary_df([1, 2])


def test_bad_arguments_are_named(models):
    with pytest.raises(ValueError, match="statistic"):
        ubreg.modelsummary(models, statistic="se")
    with pytest.raises(ValueError, match="gof"):
        ubreg.modelsummary(models, gof=("r2",))
    with pytest.raises(ValueError, match="output"):
        ubreg.modelsummary(models, "table.pdf")
    assert np.isfinite(models["Logit"].aic)
