"""method="udt" through ubreg.fit: formulas, prediction, pruning, output."""
import json
import pathlib
import pickle

import matplotlib
import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError, FormulaError, PredictionError

matplotlib.use("Agg")
FIXTURES = pathlib.Path(__file__).parent / "fixtures"
FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"


@pytest.mark.parametrize("split, family", [("gini", "gini"), ("information", "entropy")])
def test_formula_fit_reproduces_rpart_fixture(split, family):
    ref = json.loads((FIXTURES / f"rpart_pima_{split}.json").read_text())
    data = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
    data = data.dropna(subset=ref["predictors"])
    c = ref["control"]
    m = ubreg.fit(FORMULA, data, family=family, method="udt", min_split=c["minsplit"],
                  min_leaf=c["minbucket"], max_depth=c["maxdepth"], cp=c["cp"], xval=0,
                  risk="misclass")  # rpart prunes by misclassification risk
    frame = m.frame
    assert list(frame["node"]) == [r["node"] for r in ref["frame"]]
    assert list(frame["var"]) == [r["var"] for r in ref["frame"]]
    assert list(frame["n"]) == [r["n"] for r in ref["frame"]]
    np.testing.assert_allclose(frame["yprob"], [r["yprob"]["pos"] for r in ref["frame"]],
                               rtol=1e-12)
    leaf = m.predict(type="leaf")
    expected = {r: k for r, k in zip(ref["leaf_by_row"]["row"], ref["leaf_by_row"]["leaf"])}
    assert all(leaf.loc[row - 1] == k for row, k in expected.items())


@pytest.mark.slow
def test_predict_newdata_equals_training_predictions(pima):
    m = ubreg.fit(FORMULA, pima, family="matsushita", method="udt")
    # rows missing a predictor are routed by the surrogates, as the training rows were
    for type in ("response", "link", "class", "leaf"):
        new, train = m.predict(pima, type=type), m.predict(type=type)
        pd.testing.assert_series_equal(new.loc[train.index], train, check_names=False)
        assert new.notna().all()


def test_categorical_predictor_splits_natively(pima):
    d = pima.assign(band=pd.cut(pima.age, [0, 25, 35, 50, 100],
                                labels=["a", "b", "c", "d"]).astype(str))
    m = ubreg.fit("diabetes ~ band + glucose", d, method="udt", family="gini", cp=0.0,
                  max_depth=2, xval=0, risk="surrogate")   # every impurity-lowering split
    cat_rows = m.frame[m.frame["var"] == "band"]
    assert len(cat_rows) >= 1
    assert all(isinstance(v, list) for v in cat_rows["left_levels"])
    with pytest.raises(PredictionError, match="new level"):
        m.predict(d.head(2).assign(band=["a", "zz"]))


@pytest.mark.slow
def test_na_action_raise_and_response_na(pima):
    with pytest.raises(DataError, match="glucose"):
        ubreg.fit(FORMULA, pima, method="udt", na_action="raise")
    d = pima.copy()
    d.loc[:9, "diabetes"] = None
    m = ubreg.fit(FORMULA, d, method="udt")
    assert m.n_dropped == 10 and m.nobs == len(d) - 10
    assert "routed by surrogate splits" in str(m.summary())


def test_interactions_are_refused(pima):
    with pytest.raises(FormulaError, match="interactions"):
        ubreg.fit("diabetes ~ glucose:mass", pima, method="udt")


def test_frequency_weights_two_equal_duplicated_rows(pima):
    d = pima.dropna(subset=["glucose", "mass"]).reset_index(drop=True)
    w = np.ones(len(d))
    w[:100] = 2
    a = ubreg.fit("diabetes ~ glucose + mass + age", d, method="udt", freq_weights=w, xval=0)
    b = ubreg.fit("diabetes ~ glucose + mass + age", pd.concat([d, d.iloc[:100]]),
                  method="udt", xval=0)
    pd.testing.assert_frame_equal(a.frame.drop(columns=["n"]), b.frame.drop(columns=["n"]))


@pytest.mark.slow
def test_prune_and_one_se_rule(pima):
    m = ubreg.fit(FORMULA, pima, method="udt", cp=0.001, seed=3)
    assert {"CP", "nsplit", "rel error", "xerror", "xstd"} <= set(m.cptable.columns)
    cp = m.cp_one_se()
    pruned = m.prune(cp)
    assert pruned.n_leaves <= m.n_leaves
    assert pruned.deviance >= m.deviance
    # the pruned training predictions equal predicting the training data afresh (the rows
    # missing a predictor routed by the surrogates in both)
    fresh = pruned.predict(pima.loc[pruned.index])
    np.testing.assert_allclose(fresh, pruned.predict())
    again = ubreg.fit(FORMULA, pima, method="udt", cp=0.001, seed=3)
    pd.testing.assert_frame_equal(again.cptable, m.cptable)


@pytest.mark.slow
def test_a_pruned_tree_does_not_keep_the_full_tree_s_cached_statistics(pima):
    # deviance, null deviance and log-likelihood are cached on first use; the pruned copy
    # must compute its own (it kept the full tree's log-likelihood)
    m = ubreg.fit(FORMULA, pima, method="udt", cp=0.001, xval=0)
    cp = float(m.cptable["CP"].iloc[1])
    fresh = ubreg.fit(FORMULA, pima, method="udt", cp=0.001, xval=0).prune(cp)
    full = (m.loglik, m.deviance, m.null_deviance)          # cached on the full tree
    assert all(np.isfinite(full))
    pruned = m.prune(cp)
    assert pruned.loglik == fresh.loglik != m.loglik
    assert pruned.deviance == fresh.deviance != m.deviance


def test_theorem_4_surrogate_risk(pima):
    m = ubreg.fit(FORMULA, pima, method="udt", family="matsushita", xval=0)
    fam = m.family
    leaves = m.frame[m.frame["is_leaf"]]
    theorem = (np.sum(leaves["weight"] * (-fam.phi(leaves["yprob"]))) / fam.b
               - m.nobs * fam.a / fam.b)
    assert m.surrogate_risk == pytest.approx(theorem, rel=1e-12)
    np.testing.assert_allclose(m.deviance, 2 * fam.b * m.surrogate_risk, rtol=1e-12)


@pytest.mark.slow
def test_summary_plot_pickle(pima):
    m = ubreg.fit(FORMULA, pima, method="udt", family="entropy")
    text = str(m.summary())
    for piece in ("node), split, n, loss, yval, (yprob)", "Cost-complexity table",
                  "Variable importance", "Null deviance", "Residual deviance"):
        assert piece in text
    assert "<pre" in m.summary().html()
    ax = ubreg.plots.tree(m)                          # drawing lives in ubreg.plots
    assert len(ax.texts) >= m.n_leaves
    assert not hasattr(m, "plot")
    m2 = pickle.loads(pickle.dumps(m))
    pd.testing.assert_series_equal(m2.predict(pima), m.predict(pima))


def test_udt_refuses_non_permissible_family(pima):
    with pytest.raises(ValueError, match="permissible"):
        ubreg.fit(FORMULA, pima, method="udt", family=ubreg.Exponential())
