"""The analysis sections of ubreg.report: data, model table, odds ratios, comparison on
equal footing, calibration, effects per SD; each checked against numbers computed
independently (pandas, numpy, the fitted results' own tables)."""
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import ubreg  # noqa: E402
from ubreg import plots  # noqa: E402
from ubreg.evaluate.cv import common_rows, cv_models, paired_differences, same_folds  # noqa: E402
from ubreg.reporting.comparison_section import comparison_section  # noqa: E402
from ubreg.reporting.data_section import data_summary  # noqa: E402
from ubreg.reporting.model_section import models_section  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    """300 rows; NA in x1 (12), x2 (7) and g (5), some rows missing two."""
    rng = np.random.default_rng(11)
    n = 300
    x1 = rng.normal(50, 10, n)
    x2 = rng.gamma(2.0, 3.0, n)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    eta = -0.8 + 0.06 * (x1 - 50) + 0.15 * x2 - 0.7 * (g == "c")
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "yes", "no")
    d = pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g, "unused": rng.normal(size=n)})
    d.loc[rng.choice(n, 12, replace=False), "x1"] = np.nan
    d.loc[rng.choice(n, 7, replace=False), "x2"] = np.nan
    d.loc[rng.choice(n, 5, replace=False), "g"] = None
    d.loc[rng.choice(n, 9, replace=False), "unused"] = np.nan    # not a model variable
    return d


@pytest.fixture(scope="module")
def fits(frame):
    return {"logit": ubreg.fit("y ~ x1 + g", frame),
            "gini": ubreg.fit("y ~ x1 + x2", frame, family="gini"),
            "tree": ubreg.fit("y ~ x1 + x2 + g", frame, method="udt", xval=5)}


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_data_summary_numbers_equal_pandas(frame, fits):
    s = data_summary(frame, fits)
    model_vars = ["y", "x1", "g", "x2"]                        # response first, formula order
    assert s.variables == model_vars
    complete = frame[model_vars].dropna()
    assert (s.rows_read, s.rows_used) == (300, len(complete))
    assert s.missing == {v: int(frame[v].isna().sum()) for v in model_vars}
    assert "unused" not in s.missing                          # not a model variable
    counts = complete["y"].value_counts()
    assert s.balance == [(lev, int(counts[lev]), counts[lev] / len(complete))
                         for lev in ("no", "yes")]
    lines = {name: (kind, missing, summary) for name, kind, missing, summary in s.lines}
    for v in ("x1", "x2"):
        kind, missing, summary = lines[v]
        mean, sd = complete[v].mean(), complete[v].std()
        assert kind == "numeric" and missing == frame[v].isna().sum()
        assert summary == f"{mean:#.4g} ({sd:#.3g})".replace(". ", " ")
    kind, missing, summary = lines["g"]
    assert kind == "factor, 3 levels" and missing == 5
    level_counts = complete["g"].value_counts()
    for level in "abc":
        share = 100 * level_counts[level] / len(complete)
        assert f"{level}: {level_counts[level]} ({share:.1f}%)" in summary
    # every fit's own rows: the tree keeps rows with missing predictors
    assert s.model_rows["tree"] == frame["y"].notna().sum() > s.model_rows["logit"]
    assert s.model_rows["logit"] == len(frame[["y", "x1", "g"]].dropna())


@pytest.mark.slow
def test_data_section_in_the_html(frame, fits, tmp_path):
    html = ubreg.report(fits, tmp_path / "r.html", training_data=frame).read_text("utf-8")
    section = re.search(r'<section id="data">(.*?)</section>', html, re.S).group(1)
    used = len(frame[["y", "x1", "g", "x2"]].dropna())
    assert f"300 rows were read; {used} are complete in every model variable" in section
    assert "were dropped for missing values. Rows missing each variable: x1 12, x2 7, g 5" \
        in section
    row = re.search(r'<th scope="row">x2</th>(.*?)</tr>', section).group(1)
    assert re.findall(r"<td[^>]*>(.*?)</td>", row)[:2] == ["numeric", "7"]
    # without the data: what the fits record, and how to get more
    plain = ubreg.report(fits, tmp_path / "p.html").read_text("utf-8")
    assert 'id="data-fits"' in plain and "training_data=" in plain


# ---------------------------------------------------------------------------
# the model table (modelsummary's layout)
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_model_table_terms_estimates_and_fit_block(frame, fits):
    from ubreg.summary.linear import significance_stars

    more = dict(fits, logit2=ubreg.fit("y ~ x2 + x1", frame), mats=ubreg.fit(
        "y ~ x1 + g", frame, family="matsushita"))
    table = models_section(more, {n: None for n in more}).blocks[0]
    assert table.header == ["", "logit", "gini", "logit2", "mats"]     # no tree: no coefficients
    cells = {r.cells[0]: r.cells[1:] for r in table.rows if r.kind != "second"}
    terms = [r.cells[0] for r in table.rows if r.kind == "body" and r.cells[0] in
             ("(Intercept)", "x1", "gb", "gc", "x2")]
    assert terms == ["(Intercept)", "x1", "gb", "gc", "x2"]     # first appearance order
    t = more["logit"].coef_table()
    row = next(i for i, r in enumerate(table.rows) if r.cells[0] == "x1")
    mark = significance_stars(t.loc["x1", "p"])
    assert table.rows[row].cells[1] == f"{t.loc['x1', 'estimate']:#.3g}" + f" {mark}" * bool(mark)
    assert table.rows[row + 1].kind == "second"
    assert table.rows[row + 1].cells[1] == f"({t.loc['x1', 'std_error']:#.3g})"
    assert cells["x2"][0] == ""                                        # not in logit
    # deviance only for entropy (a likelihood-ratio deviance), AIC only for a likelihood
    assert cells["Deviance"][0] == f"{more['logit'].deviance:#.4g}"
    assert cells["Deviance"][1] == "" and cells["Deviance"][3] == ""
    assert cells["AIC"][0] == f"{more['logit'].aic:#.4g}"
    assert cells["AIC"][3] == ""                                       # matsushita has none
    assert cells["Num. obs."] == [str(int(more[n].nobs)) for n in table.header[1:]]
    assert cells["Link"] == ["logit", "probability", "logit", "Matsushita"]  # LPM as lm
    assert "CV log loss" not in cells                                  # not cross-validated
    assert any("different numbers of rows" in note for note in table.notes)


# ---------------------------------------------------------------------------
# odds ratios and effects per SD
# ---------------------------------------------------------------------------
def _sd(column, weights):
    """The weighted SD with divisor n − 1 (n rows of positive weight): pandas' std at
    unit weights."""
    w = weights / weights.sum()
    n = np.count_nonzero(weights > 0)
    return float(np.sqrt(w @ (column - w @ column) ** 2 * n / (n - 1)))


@pytest.mark.slow
def test_odds_ratios_with_profile_intervals_and_per_sd(fits):
    m = fits["logit"]
    t = plots.effects(m, scale="raw", interval="profile", odds_ratios=True)
    ci = m.confint(method="profile")
    assert list(t.index) == ["x1", "gb", "gc"]               # the formula's order
    np.testing.assert_allclose(t["estimate"], np.exp(m.coef[t.index]))
    np.testing.assert_allclose(t["lower"], np.exp(ci.loc[t.index].iloc[:, 0]))
    np.testing.assert_allclose(t["upper"], np.exp(ci.loc[t.index].iloc[:, 1]))
    assert set(t["interval"]) == {"profile likelihood"}
    per_sd = plots.effects(m, scale="sd", interval="profile", odds_ratios=True)
    sd = _sd(m.model_matrix[:, list(m.coef.index).index("x1")], m.weights)
    assert per_sd.loc["x1", "sd"] == pytest.approx(sd)
    assert per_sd.loc["x1", "estimate"] == pytest.approx(np.exp(m.coef["x1"] * sd))
    assert per_sd.loc["x1", "lower"] == pytest.approx(np.exp(ci.loc["x1"].iloc[0] * sd))
    assert per_sd.loc["gb", "per"] == "unit"              # an indicator stays per unit
    assert per_sd.loc["gb", "estimate"] == pytest.approx(np.exp(m.coef["gb"]))


@pytest.mark.slow
def test_odds_ratios_of_entropy2_and_the_other_families(frame):
    m2 = ubreg.fit("y ~ x1 + g", frame, family="entropy2")
    t = plots.effects(m2, scale="raw", interval="profile", odds_ratios=True)
    np.testing.assert_allclose(t["estimate"], 2.0 ** m2.coef[t.index])
    assert t["interval"].iloc[0] == "profile likelihood"     # the binomial likelihood, too
    e = plots.effects(ubreg.fit("y ~ x1 + g", frame), scale="raw", interval="profile",
                      odds_ratios=True)
    np.testing.assert_allclose(t[["lower", "upper"]], e[["lower", "upper"]], rtol=1e-6)
    mats = ubreg.fit("y ~ x1 + g", frame, family="matsushita")
    with pytest.raises(ValueError, match="no odds ratios"):
        plots.effects(mats, odds_ratios=True)
    ax = plots.odds_ratio_forest({"e": ubreg.fit("y ~ x1 + g", frame), "e2": m2},
                                 ax=Figure().add_subplot())
    assert ax.get_xscale() == "log" and len(ax.containers) == 2
    # the first term at the top
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x1", "gb", "gc"]
    assert list(ax.get_yticks()) == [2, 1, 0]


def test_average_marginal_effects_of_slopes_factors_and_indicators(frame):
    """Beside the odds ratios: a numeric predictor's avg_slopes (per unit), a factor's levels
    against the reference and a 0/1 indicator's 1 vs 0 (avg_comparisons), with
    cluster-robust standard errors when the report asks for them."""
    from ubreg.reporting.marginal_effects import ame_table

    d = frame.assign(flag=(frame["unused"] > 0).astype(float))
    m = ubreg.fit("y ~ x1 + g + flag", d)
    t = ame_table("logit", "logit", m)
    cells = {(r.cells[0], r.cells[1]): r.cells[2:] for r in t.rows}
    assert list(cells) == [("x1", "per unit"), ("g", "b vs a"), ("g", "c vs a"),
                           ("flag", "1 vs 0")]
    slope = ubreg.avg_slopes(m, "x1").iloc[0]
    assert float(cells["x1", "per unit"][0]) == pytest.approx(slope["estimate"], rel=5e-3)
    levels = ubreg.avg_comparisons(m, "g")
    assert float(cells["g", "c vs a"][0]) == pytest.approx(levels["estimate"].iloc[1], rel=5e-3)
    flag = ubreg.avg_comparisons(m, "flag").iloc[0]
    assert flag["contrast"] == "1 - 0"
    assert float(cells["flag", "1 vs 0"][1].strip("()")) == pytest.approx(flag["std.error"],
                                                                         rel=5e-3)
    clusters = np.arange(len(d)) % 7
    robust = ame_table("logit", "logit", m, cluster=clusters)
    expected = ubreg.avg_slopes(m, "x1", vcov=m.vcov(cluster=clusters)).iloc[0]
    assert float(robust.rows[0].cells[3].strip("()")) == pytest.approx(expected["std.error"],
                                                                       rel=5e-3)
    assert "cluster-robust" in robust.notes[0]


def test_an_aliased_predictor_has_no_average_marginal_effect(frame):
    """A predictor whose columns are aliased (R's NA coefficient) has no identified effect:
    its AME row says so, instead of a precise-looking 0.000 (0.000)."""
    from ubreg.reporting.marginal_effects import ame_table

    d = frame.assign(twice=2.0 * frame["x1"])
    m = ubreg.fit("y ~ x1 + twice + g", d)
    assert np.isnan(m.coef["twice"])
    t = ame_table("logit", "logit", m)
    cells = {r.cells[0]: r.cells[2:] for r in t.rows}
    assert cells["twice"][0] == "aliased"
    assert all(c == "" for c in cells["twice"][1:])
    assert "aliased" in " ".join(t.notes)
    assert float(cells["x1"][0]) != 0.0


def test_coefficient_plot_is_per_sd_by_default_and_raw_on_request(fits):
    m = fits["logit"]
    ax = plots.coefficients(m, ax=Figure().add_subplot())
    x = ax.containers[0].lines[0].get_xdata()
    sd = _sd(m.model_matrix[:, list(m.coef.index).index("x1")], m.weights)
    # formula order (R's), not patsy's factor-first order; the intercept left out
    np.testing.assert_allclose(x, [m.coef["x1"] * sd, m.coef["gb"], m.coef["gc"]])
    assert "per-SD" in ax.get_xlabel()
    raw = plots.coefficients(m, ax=Figure().add_subplot(), scale="raw")
    np.testing.assert_allclose(raw.containers[0].lines[0].get_xdata(),
                               m.coef[["x1", "gb", "gc"]])
    # the first term at the top
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x1", "gb", "gc"]
    assert list(ax.get_yticks()) == [2, 1, 0]
    assert "per-SD" not in raw.get_xlabel()


# ---------------------------------------------------------------------------
# comparison on equal footing
# ---------------------------------------------------------------------------
SPECS = {"logit": dict(formula="y ~ x1 + g"), "gini": dict(formula="y ~ x1 + x2", family="gini"),
         "tree": dict(formula="y ~ x1 + x2 + g", method="udt", xval=3, prune="1se")}


@pytest.fixture(scope="module")
def equal(frame):
    return cv_models(SPECS, frame, folds=5, seed=3)


@pytest.mark.slow
def test_separate_cvs_use_different_rows(frame):
    """The problem: each model alone drops only the rows missing its own variables, and a
    tree's refit keeps even those."""
    alone = {n: ubreg.cv(s.pop("formula"), frame, folds=5, seed=3, **s)
             for n, s in ((n, dict(v)) for n, v in SPECS.items())}
    sizes = {n: len(c.fold) for n, c in alone.items()}
    assert sizes["logit"] != sizes["gini"] and sizes["tree"] < 300
    assert alone["tree"].model.nobs == 300
    assert not same_folds(alone.values())
    with pytest.raises(ValueError, match="same rows and folds"):
        paired_differences(alone)


@pytest.mark.slow
def test_cv_models_use_the_same_rows_and_folds(frame, equal):
    rows = frame[["y", "x1", "g", "x2"]].dropna().index
    assert common_rows(frame, [s["formula"] for s in SPECS.values()]).equals(rows)
    for c in equal.values():
        assert c.fold.index.equals(rows) and c.n_folds == 5
        assert c.model.nobs == len(rows)                      # the refit too
    assert same_folds(equal.values())
    folds = [c.fold.to_numpy() for c in equal.values()]
    assert all(np.array_equal(folds[0], f) for f in folds)


@pytest.mark.slow
def test_paired_differences_are_fold_by_fold(equal):
    d = paired_differences(equal, "log_loss")
    table = pd.DataFrame({n: c.folds["log_loss"].to_numpy() for n, c in equal.items()})
    best = table.mean().idxmin()
    assert d["best"].sum() == 1 and d.loc[best, "best"]
    # the verdict: scipy's paired t tests of every pair, Holm-adjusted by statsmodels
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests
    names = list(equal)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    raw = [ttest_rel(table[a], table[b]).pvalue for a, b in pairs]
    holm = dict(zip(pairs, multipletests(raw, method="holm")[1]))
    for name in equal:
        diff = table[name] - table[best]
        assert d.loc[name, "diff"] == pytest.approx(diff.mean())
        assert d.loc[name, "diff_se"] == pytest.approx(diff.std(ddof=1) / np.sqrt(5))
        if name != best:
            q = holm.get((name, best), holm.get((best, name)))
            assert d.loc[name, "p_adjusted"] == pytest.approx(q)
            assert d.loc[name, "within_noise"] == (q >= 0.05)
    auc = paired_differences(equal, "auc")
    assert auc.loc[auc["best"]].index[0] == pd.Series(
        {n: c.mean["auc"] for n, c in equal.items()}).idxmax()      # larger is better


def test_comparison_section_states_n_k_seed_and_noise(equal):
    results = {n: c.model for n, c in equal.items()}
    section = comparison_section(results, equal)
    table = next(b for b in section.blocks if getattr(b, "id", "") == "comparison-cv")
    n = len(next(iter(equal.values())).fold)
    assert f"the same {n} rows and the same 5 folds (seed 3)" in table.caption
    d = paired_differences(equal, "log_loss")
    for row in table.rows:
        name, verdict = row.cells[0], row.cells[3]
        expected = "best" if d.loc[name, "best"] else (
            "within noise" if d.loc[name, "within_noise"] else "worse")
        assert verdict == expected
        if not d.loc[name, "best"]:
            assert row.cells[2] == f"{d.loc[name, 'diff']:.4f} ± {d.loc[name, 'diff_se']:.4f}"
    text = " ".join(b.text for b in section.blocks if getattr(b, "block", "") == "paragraph")
    assert "By cross-validated log loss the best model is" in text
    # AIC only among the fits of a likelihood: gini has none, so logit has nothing to rank
    assert not any(getattr(b, "id", "") == "comparison-aic" for b in section.blocks)


@pytest.mark.slow
def test_unequal_cvs_are_flagged_and_aics_of_other_rows_not_compared(frame, fits):
    a = ubreg.cv("y ~ x1 + g", frame, folds=4, seed=1)
    b = ubreg.cv("y ~ x1 + x2", frame, folds=4, seed=1, family="entropy2")
    section = comparison_section({"a": a.model, "b": b.model}, {"a": a, "b": b})
    text = " ".join(getattr(x, "text", "") for x in section.blocks)
    assert "not run on the same rows with the same folds" in text
    cv_table = next(x for x in section.blocks if getattr(x, "id", "") == "comparison-cv")
    assert "Δ log loss" not in cv_table.header and cv_table.header[1] == "n"
    aic = next(x for x in section.blocks if getattr(x, "id", "") == "comparison-aic")
    assert [r.cells[1] for r in aic.rows] == ["1", "2"]        # different rows: two groups
    assert [r.cells[5] for r in aic.rows] == ["", ""]          # so no ΔAIC


# ---------------------------------------------------------------------------
# calibration panels
# ---------------------------------------------------------------------------
def test_calibration_grid_counts_and_shared_axes(equal):
    posteriors = {n: (c.observed.to_numpy(), c.predictions.to_numpy(), c.row_weights.to_numpy())
                  for n, c in equal.items()}
    fig = Figure(figsize=(9, 3))
    axes = plots.calibration_grid(posteriors, fig=fig)
    assert len(axes) == 3
    assert all(axes[0].get_shared_x_axes().joined(axes[0], ax) for ax in axes[1:])
    assert all(axes[0].get_shared_y_axes().joined(axes[0], ax) for ax in axes[1:])
    for ax, (y, p, w) in zip(axes, posteriors.values()):
        counts = [float(t.get_text()) for t in ax.texts]
        expected = plots.calibration_table(y, p, w)["count"]
        np.testing.assert_allclose(counts, expected)
        assert sum(counts) == len(y)
        assert len(ax.containers[0].lines[2][0].get_segments()) == len(expected)   # intervals


def test_model_table_orders_terms_as_r_and_the_summary(frame):
    """R's terms.formula order: the intercept, then by degree, as written (patsy would put
    the factor g first and the interaction where it was written)."""
    m = ubreg.fit("y ~ x1 * g + x2", frame)
    table = models_section({"m": m}, {"m": None}).blocks[0]
    terms = [r.cells[0] for r in table.rows if r.kind == "body" and r.cells[0] in m.coef.index]
    assert terms == ["(Intercept)", "x1", "gb", "gc", "x2", "x1:gb", "x1:gc"]
    assert terms == list(m.summary().frame().index)
    assert list(plots.effects(m, scale="raw").index) == terms[1:]
