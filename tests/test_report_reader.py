"""The report read as its recipient reads it (issue 31 §1): a checklist over the text of
the demo report (Pima, the demo's models, few folds) and of a report of three models on
another data set (breast cancer), both built once per module, as HTML and as PDF (read
back with pdftotext -layout, page by page)."""
import re
import warnings
from html.parser import HTMLParser

import pytest

import ubreg
from ubreg import datasets
from ubreg.cli import demo_models
from ubreg.evaluate.compare import as_model_and_cv, named_models
from ubreg.evaluate.deviance_table import is_likelihood
from ubreg.reporting.blocks import Table
from ubreg.reporting.context import build_context
from ubreg.reporting.html import render_html
from ubreg.reporting.pdf import write_pdf

pytestmark = pytest.mark.slow


class _Text(HTMLParser):
    """The text a reader sees: no style, one line per block element."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("style", "script")
        if tag in ("p", "tr", "h1", "h2", "h3", "h4", "li", "div", "pre", "br", "table",
                   "figcaption"):
            self.parts.append("\n")
        if tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        self.skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def _text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return re.sub(r"\n\s*\n+", "\n", "".join(parser.parts))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The two reports, each computed once (as ``report`` does) and written as HTML and PDF:
    {name: (context, HTML text, PDF path, the models by name)}."""
    out = tmp_path_factory.mktemp("reader")
    pima = datasets.load_pima()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models, _ = demo_models(pima, folds=2, seed=1)
        bc = datasets.load("breast_cancer")
        f = "Class ~ cl_thickness + cell_size + bare_nuclei + mitoses"
        three = [ubreg.fit(f + " + cl_thickness:cell_size", bc), ubreg.fit(f, bc, family="gini"),
                 ubreg.fit(f, bc, method="udt", xval=3)]
        specs = {"demo": (models, dict(title="demo", cv_risk=2, training_data=pima)),
                 "breast_cancer": (three, dict(title="breast cancer", training_data=bc))}
        built = {}
        for name, (chosen, options) in specs.items():
            named = named_models(chosen, None)
            ctx = build_context(named, call=f"the reader's {name} report", **options)
            pdf = out / f"{name}.pdf"
            write_pdf(ctx, pdf)
            built[name] = (ctx, render_html(ctx), pdf, named)
    return built


@pytest.fixture(scope="module")
def reports(built):
    return {name: html for name, (_, html, _, _) in built.items()}


@pytest.fixture(params=["demo", "breast_cancer"])
def text(request, reports):
    return _text(reports[request.param])


def test_no_internal_references_in_the_text(text):
    """Papers by author and year, never file numbers, equation numbers or docs/ files."""
    for pattern in (r"paper 00\d", r"\beq\. ?\d", r"Theorem \d", r"Algorithm \d", r"Lemma \d",
                    r"docs/", r"math\.md", r"§\d"):
        found = re.findall(rf".{{0,40}}{pattern}.{{0,20}}", text)
        assert not found, (pattern, found[:3])


def test_significance_marks_set_apart_from_numbers(text):
    """'-1.40.' reads as a typo: a mark is never glued to the number it qualifies."""
    cells = [c.strip() for line in text.splitlines() for c in line.split(" | ")]
    glued = [c for c in cells if re.fullmatch(r"-?[\d.]+(?:e[-+]?\d+)?(?:\*{1,3}|\.)", c)]
    assert not glued, glued[:5]


def test_plurals_agree_with_their_counts(text):
    assert not re.search(r"\(s\)", text), re.findall(r".{0,30}\(s\).{0,10}", text)[:3]
    assert not re.search(r"\b1 (leaves|splits|rows|folds|models|observations)\b", text)


def test_sd_convention_stated(text):
    """One SD convention throughout (n − 1), and the report says which."""
    assert "n − 1" in text or "n-1" in text


def test_every_model_has_a_distinct_label(reports, text):
    contents = text.split("Appendix: the models one by one", 2)[1].split("Software versions")[0]
    labels = [line.strip() for line in contents.splitlines() if line.strip()]
    assert labels and len(labels) == len(set(labels)), labels


def test_binary_response_by_counts_and_percentages(text):
    row = next(line for line in text.splitlines() if "factor, 2 levels" in line)
    assert re.search(r"\d+ \(\d+\.\d%\)", row) and not re.search(r"\d\.\d+ \(\d", row), row


def test_no_infinite_aic(text):
    assert not re.search(r"(?i)\b-?inf\b|∞", text), \
        re.findall(r".{0,60}(?i:\binf\b|∞).{0,20}", text)[:3]


def test_pruned_tree_call_printed_once(text):
    assert "prune(prune(" not in text


def test_one_sd_convention_in_data_and_odds_ratios(text):
    """A predictor's SD in the data table is the one its odds ratio per SD uses."""
    data_sd = dict(re.findall(r"^ \| (\w+) \| numeric \| \d+ \| [-\d.e+]+ \(([-\d.e+]+)\)$", text,
                              flags=re.M))
    or_sd = dict(re.findall(r"^ \| (\w+) \| [\d.]+ \| \[[^]]+\] \| ([\d.]+) \|", text, flags=re.M))
    shared = set(data_sd) & set(or_sd)
    assert shared
    for name in shared:
        assert data_sd[name] == or_sd[name], name


def test_two_fits_of_one_model_are_one_model(reports):
    """The demo's coordinate-solver fit is the logistic regression again: not a second model."""
    text = _text(reports["demo"])
    contents = text.split("Appendix: the models one by one", 2)[1].split("Software versions")[0]
    labels = [line.strip() for line in contents.splitlines() if line.strip()]
    assert not any("coordinate solver" in label for label in labels), labels


def test_ties_are_ties_not_best():
    """Two models whose fold scores agree within 1e-12 are tied for best, not one 'best'."""
    import numpy as np
    import pandas as pd

    from ubreg.evaluate.cv import fold_differences
    from ubreg.reporting.comparison_section import _summary_text, _verdict, _with_ties

    folds = pd.DataFrame({"a": [0.5, 0.4, 0.6], "b": [0.5, 0.4, 0.6 + 1e-15],
                          "c": [0.9, 0.8, 1.0]})
    d = _with_ties(fold_differences(folds, lower_is_better=True))
    verdicts = {n: _verdict(d.loc[n]) for n in d.index}
    assert verdicts["a"] == verdicts["b"] != "best", verdicts
    text = _summary_text({"log_loss": d, "brier": d})
    assert "the best model is" not in text and "a" in text and "b" in text, text
    assert np.isfinite(d["mean"]).all()


def test_linear_probability_model_on_the_probability_scale(reports):
    """The linear probability model's coefficients are lm's (probability scale), not twice."""
    import numpy as np

    bc = datasets.load("breast_cancer")
    cols = ["cl_thickness", "cell_size", "bare_nuclei", "mitoses"]
    rows = bc[["Class", *cols]].dropna()
    X = np.column_stack([np.ones(len(rows)), rows[cols].to_numpy(float)])
    y = (rows["Class"] == "malignant").to_numpy(float)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    text = _text(reports["breast_cancer"])
    models = re.split(r"\n\d+\. Models\n", text, maxsplit=1)[1]
    models = re.split(r"\n\d+\. Odds ratios\n", models, maxsplit=1)[0]
    for term, b in zip(["(Intercept)", *cols], beta):
        cells = re.search(rf"^ \| {re.escape(term)} \|(.*)$", models, flags=re.M).group(1)
        gini = cells.split(" | ")[1].split()[0]            # the second model: uls · gini
        assert float(gini.replace("−", "-")) == pytest.approx(b, rel=5e-3, abs=5e-4), term


def test_training_set_figures_are_labelled(text):
    """A training-set ROC curve or calibration is labelled so, not shown as if validated."""
    captions = [line for line in text.splitlines()
                if line.startswith(("ROC curve", "Calibration (reliability)"))]
    assert captions
    assert all("training rows" in line for line in captions), captions[:3]


def test_no_odds_ratio_per_sd_for_an_interaction(reports):
    """An interaction's SD is not a change of one predictor: its odds ratio is per unit only."""
    text = _text(reports["breast_cancer"])
    row = next(line for line in text.splitlines() if line.startswith(" | cl_thickness:cell_size |")
               and "[" in line)
    cells = [c.strip() for c in row.split(" | ")[1:]]
    assert cells[0] == "cl_thickness:cell_size" and len(cells) == 6
    assert not re.fullmatch(r"[\d.]+", cells[3]) and not cells[4] and not cells[5], cells


def test_methods_first_in_plain_words(text):
    """A methods paragraph opens the report: data, models, comparison, intervals."""
    sections = re.findall(r"^(\d+)\. (.+)$", text, flags=re.M)
    assert sections[0] == ("1", "Methods"), sections[:3]
    methods = text.split("1. Methods", 1)[1].split("2. ", 1)[0]
    for word in ("rows", "model", "compared", "interval"):
        assert word in methods, word


def test_methods_describe_each_method_once(text):
    """Several models of one method share its description (the demo has four linear fits:
    the paragraph said 'a linear model fitted by ...' four times)."""
    methods = text.split("1. Methods", 1)[1].split("2. ", 1)[0]
    for phrase in ("a linear model fitted by", "a classification tree"):
        assert methods.count(phrase) <= 1, phrase


def test_references_by_author_and_year(text):
    """Every work cited by author and year in the body is in the reference list."""
    body, _, refs = text.rpartition("References")
    assert refs.strip(), "no reference list"
    cited = set(re.findall(r"([A-Z][\w']+(?: et al\.| & [A-Z][\w']+|, [A-Z][\w']+ & "
                           r"[A-Z][\w']+)?) ((?:19|20)\d\d)(?=[);])", body))
    assert ("Nock & Nielsen", "2009") in cited or ("Nock & Nielsen", "2008") in cited
    for authors, year in cited:
        first = authors.split()[0].rstrip(",")
        assert re.search(rf"{first}\b.*\({year}\)", refs), (authors, year)


def test_confidence_intervals_in_the_model_table(text):
    """Each estimate of the model table has its 95% interval, not only a standard error."""
    models = re.split(r"\n\d+\. Models\n", text, maxsplit=1)[1]
    models = re.split(r"\n\d+\. ", models, maxsplit=1)[0]
    lines = models.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(" | (Intercept) |"))
    assert "(" in lines[i + 1] and re.search(r"\[[-\d.e]+, [-\d.e]+\]", lines[i + 2]), \
        lines[i:i + 3]
    assert "95%" in models and "interval" in models


def test_internal_quantities_say_what_they_show(text):
    """Margins, risk and edge paths: each caption says in a sentence what it shows."""
    captions = [line for line in text.splitlines()
                if line.startswith(("Distribution of the normalised margins",
                                    "Training risk per iteration", "Largest |edge|"))]
    assert captions
    for caption in captions:
        assert re.search(r": [a-z].{20,}", caption), caption


def _section(text: str, title: str) -> str:
    """The text of the numbered section ``title``, up to the next numbered section."""
    body = re.split(rf"\n\d+\. {re.escape(title)}\n", text, maxsplit=1)[1]
    return re.split(r"\n\d+\. ", body, maxsplit=1)[0]


def _rows(block: str, caption: str) -> dict:
    """{first cell: the other cells} of the table under the line starting with ``caption``."""
    lines = block.split("\n" + caption, 1)[1].splitlines()[2:]
    rows = {}
    for line in lines:
        if not line.startswith(" | "):
            break
        cells = [c.strip() for c in line.split(" | ")[1:]]
        rows[cells[0]] = cells[1:]
    return rows


def _number(cell: str) -> float:
    return float(cell.replace("−", "-"))


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_average_marginal_effects_beside_odds_ratios(built, name):
    """Each odds-ratio table is followed by the model's average marginal effects on the
    probability scale (marginaleffects' avg_slopes), with standard errors and intervals,
    and a sentence says what an average marginal effect is."""
    ctx, html, _, models = built[name]
    odds = _section(_text(html), "Odds ratios")
    captions = [line for line in odds.splitlines() if ": odds ratios with 95% intervals" in line]
    assert captions
    assert re.search(r"average marginal effect \(AME\) is the change in the (predicted )?"
                     r"probability", odds), odds[:600]
    for caption in captions:
        label = caption.split(": odds ratios", 1)[0]
        after = odds.split(caption, 1)[1]
        tables = re.findall(r"^(.+?): (odds ratios with 95%|average marginal effects)", after,
                            flags=re.M)
        assert tables and tables[0] == (label, "average marginal effects"), tables[:2]
        ame = _rows(after, f"{label}: average marginal effects")
        expected = ubreg.avg_slopes(as_model_and_cv(models[label])[0])
        for _, row in expected.iterrows():
            change, est, se, interval = ame[row["term"]]
            assert _number(est) == pytest.approx(row["estimate"], rel=5e-3), row["term"]
            assert _number(se.strip("()")) == pytest.approx(row["std.error"], rel=5e-3)
            low, high = (_number(v) for v in interval.strip("[]").split(", "))
            assert (low, high) == pytest.approx((row["conf.low"], row["conf.high"]),
                                                rel=5e-3, abs=5e-5)
    if name == "breast_cancer":         # R: glm, then the forward difference of marginaleffects
        cells = _rows(odds, "(1) uls · entropy: average marginal effects")["cell_size"]
        assert _number(cells[1]) == pytest.approx(0.01871519625, rel=5e-3)


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_likelihood_ratio_tables_only_for_likelihood_fits(built, name):
    """drop1(m, test = "LRT") for the fits whose loss is the binomial likelihood (entropy),
    R's numbers; none for a family whose deviance is not a likelihood (gini, matsushita)."""
    _, html, _, models = built[name]
    text = _text(html)
    lrt = _section(text, "Likelihood-ratio tests")
    captions = [line.split(": ", 1)[0] for line in lrt.splitlines()
                if ": single term deletions" in line]
    likelihood = [n for n, m in models.items() if is_likelihood(as_model_and_cv(m)[0])]
    assert captions == likelihood and captions
    # R 4.2: drop1(glm(..., binomial), test = "LRT")
    expected = ({"pregnant": 12.80374121, "glucose": 120.34212521, "age": 2.95502549}
                if name == "demo" else
                {"bare_nuclei": 49.84080116, "mitoses": 2.64645866,
                 "cl_thickness:cell_size": 4.25371934})
    rows = _rows(lrt, f"{captions[0]}: single term deletions")
    for term, value in expected.items():
        assert _number(rows[term][3]) == pytest.approx(value, rel=1e-4), term
    if name == "breast_cancer":          # marginality: main effects inside the interaction stay
        assert "cell_size" not in rows and "cl_thickness" not in rows and "<none>" in rows
    assert "not a likelihood" in lrt


def _pdf_pages(path) -> list[str]:
    import subprocess

    out = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return out.split("\f")


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_pdf_breaks_no_word(built, name):
    """No word or code is broken between two lines of the PDF: the end of a line and the
    start of the next never make one word of the report ('me' + 'thod="uls")')."""
    ctx, html, pdf, _ = built[name]
    words = set(_text(html).split()) | {w for s in ctx.models for w in s.summary_text.split()}
    broken = []
    for page in _pdf_pages(pdf):
        lines = [line.split() for line in page.splitlines() if line.strip()]
        for a, b in zip(lines, lines[1:]):
            joined = a[-1] + b[0]
            if re.search("[A-Za-z]", joined) and joined in words and \
                    (a[-1] not in words or b[0] not in words):
                broken.append((a[-1], b[0]))
    assert not broken, broken[:5]


def _squeeze(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_pdf_keeps_each_summary_on_one_page(built, name):
    """A model's printed summary that fits on a page is not split across two."""
    ctx, _, pdf, _ = built[name]
    lines = [(k, _squeeze(line)) for k, page in enumerate(_pdf_pages(pdf))
             for line in page.splitlines() if line.strip()]
    start = next(i for i, (_, line) in enumerate(lines) if line.startswith("Appendix A"))
    for section in ctx.models:
        wanted = [_squeeze(line)[:24] for line in section.summary_text.splitlines()
                  if line.strip()]
        assert len(wanted) < 90            # each of these fits on a page
        pages = []
        for prefix in wanted:
            found = next((i for i in range(start, len(lines))
                          if lines[i][1].startswith(prefix)), None)
            if found is not None:
                pages.append(lines[found][0])
                start = found + 1
        assert len(pages) >= 0.8 * len(wanted), (section.name, len(pages), len(wanted))
        assert len(set(pages)) == 1, (section.name, sorted(set(pages)))


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_pdf_keeps_each_table_on_one_page(built, name):
    """A table that fits on a page is set on one: its caption and the notes under it are
    on the same page (the model table of the demo was split after its second term)."""
    ctx, _, pdf, _ = built[name]
    tables = [b for s in ctx.sections for b in s.blocks if isinstance(b, Table)]
    lines = [(k, _squeeze(line)) for k, page in enumerate(_pdf_pages(pdf))
             for line in page.splitlines() if line.strip()]
    start = 0
    for number, table in enumerate(tables, 1):
        assert len(table.rows) < 40                 # each of these fits on a page
        at = next(i for i in range(start, len(lines))
                  if lines[i][1].startswith(f"Table {number}. "))
        if table.notes:
            note = _squeeze(table.notes[0])[:30]
            end = next(i for i in range(at, len(lines)) if lines[i][1].startswith(note))
            assert lines[at][0] == lines[end][0], (number, table.caption)
        start = at + 1
    assert not any("(continued)" in line for _, line in lines)


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_pdf_leaves_no_heading_at_the_foot_of_a_page(built, name):
    """A heading is on the page of what it heads (a table or summary kept whole on the next
    page must not leave its heading behind)."""
    ctx, _, pdf, _ = built[name]
    headings = {f"{i} {s.title}" for i, s in enumerate(ctx.sections, 1)}
    headings |= {"Appendix A The models one by one", "Appendix B Software versions"}
    headings |= {_squeeze(s.name) for s in ctx.models}
    for k, page in enumerate(_pdf_pages(pdf)[:-1], 1):
        lines = [_squeeze(line) for line in page.splitlines() if line.strip()]
        if lines and lines[-1] == str(k):              # the page number
            lines = lines[:-1]
        assert not lines or lines[-1] not in headings, (k, lines[-3:])


@pytest.mark.parametrize("name", ["demo", "breast_cancer"])
def test_pdf_keeps_each_figure_caption_on_one_page(built, name):
    """A model's row of diagnostics and its caption ('Figure 4. name: ROC ...; ... .') are
    on one page: the caption is not continued overleaf."""
    ctx, _, pdf, _ = built[name]
    names = tuple(f"{_squeeze(s.name)}:" for s in ctx.models)
    appendix = False
    for k, page in enumerate(_pdf_pages(pdf), 1):
        lines = [_squeeze(line) for line in page.splitlines() if line.strip()]
        appendix = appendix or any(line.startswith("Appendix A") for line in lines)
        for i, line in enumerate(lines if appendix else []):
            head = re.match(r"Figure \d+\. (.*)", line)
            if head and head.group(1).startswith(names):
                rest = [line, *lines[i + 1:]]
                assert any(t.endswith(".") for t in rest), (k, line)
