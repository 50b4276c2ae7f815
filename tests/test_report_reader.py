"""The report read as its recipient reads it (issue 31 §1): a checklist over the text of
the demo report (Pima, the demo's models, few folds) and of a report of three models on
another data set (breast cancer), both built once per module."""
import re
import warnings
from html.parser import HTMLParser

import pytest

import ubreg
from ubreg import datasets
from ubreg.cli import demo_models
from ubreg.reporting import report

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
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("reader")
    pima = datasets.load_pima()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models, _ = demo_models(pima, folds=2, seed=1)
        demo = report(models, out / "demo.html", title="demo", cv_risk=2, training_data=pima)
        bc = datasets.load("breast_cancer")
        f = "Class ~ cl_thickness + cell_size + bare_nuclei + mitoses"
        three = [ubreg.fit(f + " + cl_thickness:cell_size", bc), ubreg.fit(f, bc, family="gini"),
                 ubreg.fit(f, bc, method="udt", xval=3)]
        other = report(three, out / "bc.html", title="breast cancer", training_data=bc)
    return {"demo": demo.read_text(encoding="utf-8"),
            "breast_cancer": other.read_text(encoding="utf-8")}


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
