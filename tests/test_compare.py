"""ubreg.compare: coefficients side by side, statistics, CV rows, renderings."""
import numpy as np
import pytest

import ubreg


@pytest.fixture(scope="module")
def pima_rows(pima):
    return pima.dropna(subset=["glucose", "mass", "age", "pregnant"])


@pytest.fixture(scope="module")
def models(pima_rows):
    return {"small": ubreg.fit("diabetes ~ glucose + mass", pima_rows),
            "large": ubreg.fit("diabetes ~ pregnant + glucose + mass + age", pima_rows,
                               family="matsushita"),
            "other": ubreg.fit("diabetes ~ age + glucose", pima_rows, family="gini")}


class NoCoefficients:
    """Not a ubreg result: every attribute but the coefficients delegated to one.  It
    declares no capabilities, so compare reads only its posteriors (the minimal protocol
    of ubreg.results.base), however much it could answer."""

    def __init__(self, result):
        self._r = result
        self.method = "fake"

    def __getattr__(self, name):
        if name in ("coef_table", "coef"):
            raise AttributeError(name)
        return getattr(self._r, name)


def test_terms_keep_first_appearance_order_and_values(models):
    c = ubreg.compare(models)
    coefs = c.coefficients()
    assert list(coefs.index) == ["(Intercept)", "glucose", "mass", "pregnant", "age"]
    for name, m in models.items():
        t = m.coef_table()
        np.testing.assert_allclose(coefs.loc[t.index, (name, "estimate")], t["estimate"])
        np.testing.assert_allclose(coefs.loc[t.index, (name, "std_error")], t["std_error"])
    assert np.isnan(coefs.loc["pregnant", ("small", "estimate")])


def test_statistics_are_the_models_numbers(models):
    s = ubreg.compare(models).statistics()
    for name, m in models.items():
        assert s.loc["deviance", name] == pytest.approx(m.deviance)
        assert s.loc["null_deviance", name] == pytest.approx(m.null_deviance)
        assert s.loc["aic", name] == pytest.approx(m.aic, nan_ok=True)
        assert s.loc["nobs", name] == m.nobs
        assert s.loc["auc", name] == pytest.approx(ubreg.evaluate.metrics.metrics_of(m)["auc"])
    assert s.loc["cv_auc"].isna().all()


def test_frame_text_and_html(models):
    c = ubreg.compare(models, statistic="z")
    f = c.frame()
    assert list(f.columns) == list(models)
    assert "Deviance" in f.index and "AUC (train)" in f.index
    z = models["small"].coef_table().loc["glucose", "z"]
    assert f"({z:#.4g})" in list(f["small"])              # z in parentheses
    text = str(c)
    assert "z statistics" in text and "large" in text
    html = c.html()
    assert html.count("<tr") == len(f) + 1
    assert "different numbers of rows" not in text
    narrow = c.text(width=60)
    assert max(map(len, narrow.splitlines()[:-1])) <= 60


def test_cv_results_add_mean_and_se(pima_rows):
    cvr = ubreg.cv("diabetes ~ glucose + mass", pima_rows, folds=4, seed=2)
    c = ubreg.compare([cvr, ubreg.fit("diabetes ~ glucose", pima_rows)])
    s = c.statistics()
    first = c.names[0]
    assert s.loc["cv_auc", first] == pytest.approx(cvr.mean["auc"])
    assert s.loc["cv_auc_se", first] == pytest.approx(cvr.se["auc"])
    assert np.isnan(s.loc["cv_auc", c.names[1]])
    assert "AUC (CV)" in c.frame().index
    assert "±" in c.frame().loc["AUC (CV)", first]


def test_models_without_coefficients_contribute_statistics(pima_rows, models):
    tree = ubreg.fit("diabetes ~ glucose + mass", pima_rows, method="udt", xval=0)
    c = ubreg.compare({"tree": tree, "small": models["small"]})
    coefs = c.coefficients()
    assert coefs[("tree", "estimate")].isna().all()
    s = c.statistics()
    assert s.loc["deviance", "tree"] == pytest.approx(tree.deviance)
    assert s.loc["null_deviance", "tree"] == pytest.approx(tree.null_deviance)
    assert s.loc["nobs", "tree"] == tree.nobs


def test_an_object_that_is_not_a_result_gives_its_metrics_only(models):
    fake = NoCoefficients(models["small"])
    c = ubreg.compare({"fake": fake, "small": models["small"]})
    s = c.statistics()
    for key in ("nobs", "n_dropped", "df_model", "deviance", "loglik", "aic", "bic"):
        assert np.isnan(s.loc[key, "fake"]), key           # never probed for
    assert s.loc["auc", "fake"] == pytest.approx(s.loc["auc", "small"])
    assert c.frame().loc["Method", "fake"] == "NoCoefficients"


def test_multiclass_and_online_models(pima_rows, models):
    gnnb = ubreg.fit("diabetes ~ glucose + mass", pima_rows, method="gnnb", k=5)
    online = ubreg.OnlineLearner("diabetes ~ glucose + mass").partial_fit(pima_rows)
    s = ubreg.compare({"gnnb": gnnb, "online": online, "small": models["small"]}).statistics()
    assert s.loc["nobs", "gnnb"] == gnnb.nobs and np.isnan(s.loc["deviance", "gnnb"])
    assert s.loc["auc", "gnnb"] == pytest.approx(
        ubreg.evaluate.metrics.metrics_of(gnnb)["auc"])
    assert s.loc["nobs", "online"] == online.n_seen        # no training rows kept:
    assert np.isnan(s.loc["auc", "online"])                 # nothing to score it on


def test_user_strings_are_escaped_in_html(pima_rows):
    m = ubreg.fit("diabetes ~ glucose", pima_rows)
    html = ubreg.compare({"<b>x</b>": m}).html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_errors(models):
    with pytest.raises(ValueError, match="no models"):
        ubreg.compare([])
    with pytest.raises(ValueError, match="named"):
        ubreg.compare(list(models.values())[:2], names=["a", "a"])
    with pytest.raises(ValueError, match="statistic"):
        ubreg.compare(models, statistic="t")


def test_different_rows_are_flagged():
    data = ubreg.datasets.load_pima()
    m1, m2 = ubreg.fit("diabetes ~ glucose", data), ubreg.fit("diabetes ~ glucose + insulin", data)
    c = ubreg.compare([m1, m2])
    assert f"different numbers of rows ({m2.nobs:g}, {m1.nobs:g})" in str(c)


def test_text_blocks_drop_coefficient_rows_empty_in_all_their_models(models):
    named = dict(models)
    named["no coefficients at all"] = NoCoefficients(models["small"])
    c = ubreg.compare(named)
    full = c.text()
    assert "pregnant" in full                              # one block: every term shown
    f = c.frame()
    first = max(len(str(i)) for i in f.index)
    width = first + sum(2 + max(len(n), *map(len, f[n])) for n in list(models))
    blocks = c.text(width=width).split("\n\n")
    last = blocks[-2]                                      # the block of the last model alone
    assert "no coefficients at all" in last and "small" not in last
    for term in ("(Intercept)", "glucose", "mass", "pregnant", "age"):
        assert term not in last, term
    assert all(line.strip() for line in last.strip("\n").splitlines())   # no empty SE rows
    assert "AUC (train)" in last
    # a block whose models lack some terms keeps only the terms they have
    only_small = ubreg.compare({"small": models["small"],
                                "fake": NoCoefficients(models["small"])}).text()
    assert "pregnant" not in only_small and "glucose" in only_small


def test_aic_only_for_linear_fits(pima_rows, models):
    tree = ubreg.fit("diabetes ~ glucose + mass", pima_rows, method="udt", xval=0)
    c = ubreg.compare({"small": models["small"], "tree": tree})
    s = c.statistics()
    assert s.loc["aic", "small"] == pytest.approx(models["small"].aic)
    assert np.isnan(s.loc["aic", "tree"]) and np.isnan(s.loc["bic", "tree"])
    f = c.frame()
    assert f.loc["AIC", "tree"] == "" and f.loc["BIC", "tree"] == ""
    assert f.loc["Parameters", "tree"] == f"{tree.df_model:g}†"
    assert f.loc["Parameters", "small"] == f"{models['small'].df_model:g}"
    assert "† Not degrees of freedom" in str(c) and "not for udt" in str(c)
    assert "†" not in str(ubreg.compare(models))           # only linear fits: no footnote


def test_uboost_has_no_aic(pima_rows):
    m = ubreg.fit("diabetes ~ glucose + mass", pima_rows, method="uboost", mstop=20)
    s = ubreg.compare({"uboost": m}).statistics()
    assert np.isnan(s.loc["aic", "uboost"])
    assert s.loc["deviance", "uboost"] == pytest.approx(m.deviance)   # the rest is kept
