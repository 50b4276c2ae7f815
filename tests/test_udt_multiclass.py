"""``method="udt"`` grows rpart's classification trees of K classes and with priors.

Fixtures: tests/fixtures/rpart_multiclass.json, computed with R 4.2.2 / rpart 4.1.19 by
tests/fixtures/rpart_multiclass.R (each case keeps its R call as ``r_code``): Glass (6
classes; gini, information, priors, case weights, a factor searched over every subset
and values removed so that surrogates route rows), Fisher's iris grown out (ties of
classes), and Pima with priors (two classes, grown by the K-class engine).
"""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REF = json.loads((FIXTURES / "rpart_multiclass.json").read_text())


def _glass(name="glass"):
    if name == "glass_na":
        data = pd.read_csv(FIXTURES / "data" / "glass_na.csv")
        data["band"] = pd.Categorical(data["band"], categories=list("vwxyz"))
    else:
        data = ubreg.datasets.load("glass")
    data["Type"] = pd.Categorical(data["Type"].astype(str))
    return data


def _fit(case):
    """The ubreg call of each R call of the fixture."""
    if case.startswith("glass_na"):
        family = "entropy" if case.endswith("information") else "gini"
        return ubreg.fit("Type ~ .", _glass("glass_na"), method="udt", family=family,
                         xval=0, cp=0.005 if case == "glass_na" else 0.01)
    if case.startswith("glass"):
        data = _glass()
        kw = {"glass_information": dict(family="entropy", cp=0.005, min_split=10, min_leaf=3),
              "glass_prior": dict(prior=[1 / 6] * 6), "glass_gini": {}}.get(case)
        if case == "glass_weights":
            data["w"] = 1 + (np.arange(1, len(data) + 1) % 3)
            return ubreg.fit("Type ~ ri + na + mg + al + si + k + ca + ba + fe", data,
                             method="udt", weights="w", xval=0)
        return ubreg.fit("Type ~ .", data, method="udt", xval=0, **kw)
    if case == "iris_gini":
        data = pd.read_csv(FIXTURES / "data" / "iris.csv")
        return ubreg.fit("Species ~ .", data, method="udt", xval=0, cp=0, min_split=4,
                         min_leaf=1)
    data = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    return ubreg.fit("diabetes ~ .", data, method="udt", xval=0, prior=(0.5, 0.5))


CASES = [k for k in REF if isinstance(REF[k], dict)]


@pytest.fixture(scope="module", params=CASES)
def case(request):
    return request.param, REF[request.param], _fit(request.param)


@pytest.mark.slow
def test_tree_is_rpart(case):
    _, ref, m = case
    f, rf = m.frame, ref["frame"]
    assert m.classes == ref["ylevels"]
    assert list(f["node"]) == rf["node"]
    assert list(f["var"]) == rf["var"]
    assert list(f["n"]) == rf["n"]
    np.testing.assert_allclose(f["weight"], rf["wt"], rtol=1e-13)
    np.testing.assert_allclose(f["loss"], rf["dev"], rtol=1e-12, atol=1e-12)
    assert list(f["yval"] + 1) == rf["yval"]
    probs = f[[f"prob:{c}" for c in m.classes]].to_numpy()
    np.testing.assert_allclose(probs, np.array(rf["yprob"]).reshape(probs.shape),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(f["complexity"], rf["complexity"], rtol=1e-10, atol=1e-15)


def test_splits_improvements_and_importance_are_rpart(case):
    _, ref, m = case
    f = m.frame
    internal = f[~f["is_leaf"]]
    np.testing.assert_allclose(internal["improve"], ref["primary"]["improve"], rtol=1e-10)
    thresholds = internal["threshold"].to_numpy()
    ncat = np.abs(np.asarray(ref["primary"]["ncat"]))
    np.testing.assert_allclose(thresholds[ncat == 1],
                               np.asarray(ref["primary"]["index"])[ncat == 1], rtol=1e-13)
    imp = m.variable_importance
    ref_imp = pd.Series(ref["importance"])
    assert sorted(imp.index) == sorted(ref_imp.index)
    np.testing.assert_allclose(imp[ref_imp.index], ref_imp, rtol=1e-9)


@pytest.mark.slow
def test_cp_table_and_training_leaves_are_rpart(case):
    _, ref, m = case
    cp = ref["cptable"]
    np.testing.assert_allclose(m.cptable["CP"], cp["CP"], rtol=1e-10)
    assert list(m.cptable["nsplit"]) == cp["nsplit"]
    np.testing.assert_allclose(m.cptable["rel error"], cp["rel_error"], rtol=1e-10)
    np.testing.assert_array_equal(m.predict(type="leaf").to_numpy(dtype=int), ref["where"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["glass_na", "glass_na_information"])
def test_new_rows_missing_predictors_are_predicted_as_predict_rpart(name):
    ref = REF[name]
    m = _fit(name)
    data = _glass("glass_na")
    new = data.iloc[[0, 4, 9, 13, 21, 76, 109, 149, 199]].copy()
    new.iloc[1, new.columns.get_loc("ri")] = np.nan
    new.iloc[2, new.columns.get_loc("band")] = np.nan
    new.iloc[3, [new.columns.get_loc(c) for c in new.columns if c != "Type"]] = np.nan
    prob = m.predict(new, type="prob")
    assert list(prob.columns) == m.classes
    np.testing.assert_allclose(prob.to_numpy(), np.array(ref["newdata_prob"]), rtol=1e-12)
    assert list(m.predict(new, type="class").astype(str)) == ref["newdata_class"]
    pd.testing.assert_frame_equal(m.predict(new), prob)


@pytest.mark.slow
def test_probabilities_sum_to_one_and_the_class_is_the_most_probable():
    m = _fit("glass_information")
    p = m.predict(type="prob")
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-14)
    cls = m.predict(type="class")
    assert (p.to_numpy().argmax(axis=1) == cls.cat.codes.to_numpy()).all()


def test_a_tie_of_classes_predicts_the_first_class_as_rpart():
    m = _fit("iris_gini")
    f = m.frame
    p = f[[f"prob:{c}" for c in m.classes]].to_numpy()
    tied = np.isclose(p.max(axis=1), np.sort(p, axis=1)[:, -2])
    assert tied.any()                   # the root of versicolor and virginica, 50 / 50
    assert (f["yval"][tied] == p[tied].argmax(axis=1)).all()


@pytest.mark.slow
def test_pruning_and_the_cross_validated_cp_table():
    data = _glass()
    m = ubreg.fit("Type ~ .", data, method="udt", cp=0.001, xval=10, seed=1)
    assert {"xerror", "xstd"} <= set(m.cptable)
    assert m.cptable["xerror"].between(0, 2).all()
    cp = float(m.cptable["CP"].iloc[2])
    pruned = m.prune(cp)
    assert pruned.n_leaves == int(m.cptable["nsplit"].iloc[2]) + 1
    assert pruned.predict(type="prob").shape == (len(data), 6)
    chosen = ubreg.fit("Type ~ .", data, method="udt", cp=0.001, xval=10, seed=1, prune="1se")
    assert chosen.n_leaves <= m.n_leaves


def test_summary_and_print_show_every_class():
    m = _fit("glass_prior")
    text = str(m.summary())
    assert "classification tree of 6 classes" in text
    assert "priors 1: 0.1667" in text
    printed = "\n".join(m.print_lines())
    assert "node), split, n, loss, yval, (yprob)" in printed


@pytest.mark.parametrize("kw, message", [
    (dict(family="matsushita"), "family 'gini' or 'entropy'"),
    (dict(bins=32), "bins="),
    (dict(prior=[0.5, 0.5]), "prior needs 6 values"),
    (dict(prior=[0.2] * 6), "prior must sum to 1"),
    (dict(prior={"1": 0.5, "2": 0.5}), "missing"),
    (dict(prior="a,b"), "numbers separated by commas"),
])
def test_bad_options_are_refused_by_name(kw, message):
    with pytest.raises(ubreg.errors.OptionError, match=message):
        ubreg.fit("Type ~ .", _glass(), method="udt", xval=0, **kw)


def test_a_factor_of_too_many_levels_is_refused_by_name():
    data = _glass()
    data["many"] = pd.Categorical([f"l{i % 25}" for i in range(len(data))])
    with pytest.raises(ubreg.errors.DataError, match="'many'"):
        ubreg.fit("Type ~ many", data, method="udt", xval=0)


@pytest.mark.slow
def test_the_data_is_not_changed():
    data = _glass("glass_na")
    before = data.copy()
    _ = ubreg.fit("Type ~ .", data, method="udt", xval=3)
    pd.testing.assert_frame_equal(data, before)


@pytest.mark.slow
def test_cv_names_the_family_the_folds_were_fitted_with():
    # ubreg.cv of udt without family= showed entropy, while every fold grew gini trees
    cv = ubreg.cv("Type ~ .", _glass(), method="udt", folds=3, seed=1, xval=0)
    assert cv.family.name == "gini" and 'Permissible("entropy")' not in cv.call


def test_the_tree_is_drawn_with_every_class():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = _fit("iris_gini").prune(0.01)
    ax = ubreg.plots.tree(m)
    shown = " ".join(t.get_text() for t in ax.texts)
    assert all(c in shown for c in m.classes)
    plt.close(ax.figure)


@pytest.mark.slow
def test_the_report_prunes_and_shows_a_tree_of_k_classes(tmp_path):
    m = ubreg.fit("Type ~ .", _glass(), method="udt", cp=0.001, seed=1)
    out = tmp_path / "glass.html"
    ubreg.report([m], str(out))
    html = out.read_text()
    assert "Trees</h2>" in html and "pruned by the 1-SE rule" in html


def test_a_two_class_tree_predicts_rpart_type_prob():
    data = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    m = ubreg.fit("diabetes ~ glucose + mass", data, method="udt", xval=0)
    prob = m.predict(data.head(5), type="prob")
    assert list(prob.columns) == ["neg", "pos"]
    np.testing.assert_array_equal(prob["pos"], m.predict(data.head(5), type="response"))
    np.testing.assert_allclose(prob.sum(axis=1), 1.0)


@pytest.mark.parametrize("method", ["uls", "udt", "uboost"])
def test_positive_on_more_than_two_classes_is_refused(method):
    # positive= names the class of two; it was ignored without a word on three classes
    iris = pd.read_csv(FIXTURES / "data" / "iris.csv")
    with pytest.raises(ubreg.errors.ResponseError, match="positive='setosa'"):
        ubreg.fit("Species ~ Sepal.Length", iris, method=method, positive="setosa")
