"""method="uboost" and "tboost" keep rows with missing predictors and route them by the
direction each split learned, as scikit-learn's HistGradientBoostingClassifier does."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import log_loss

import ubreg
from ubreg.errors import DataError
from ubreg.sklearn import TBoostClassifier, UBoostClassifier
from ubreg.trees.binning import bin_design

FORMULA = "y ~ x0 + x1 + x2 + g"


def _data(n, seed, p_missing=0.3):
    """y mostly 1 where x0 is missing, else logistic in x1; g a factor with NA."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    miss = rng.uniform(size=n) < p_missing
    y = np.where(miss, rng.uniform(size=n) < 0.9, rng.uniform(size=n) < 1 / (1 + np.exp(-X[:, 1])))
    X[miss, 0] = np.nan
    d = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    d["g"] = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    d.loc[rng.uniform(size=n) < 0.1, "g"] = None
    d["y"] = y.astype(int)
    d["y3"] = np.array(list("pqr"))[np.clip((X[:, 1] + 1.5).astype(int), 0, 2)]
    return d


@pytest.fixture(scope="module")
def train():
    return _data(1500, 0)


FITS = [dict(method="uboost", mstop=20), dict(method="uboost", learner="stumps", mstop=20),
        dict(method="uboost", mstop=20, family="matsushita", weights="w"),
        dict(method="tboost", rounds=5), dict(method="tboost", rounds=5, learner="udt"),
        dict(method="tboost", rounds=5, learner="stumps")]


@pytest.mark.parametrize("kw", FITS, ids=lambda kw: "-".join(map(str, kw.values())))
def test_rows_with_missing_predictors_are_kept_and_predicted(train, kw):
    d = train.assign(w=np.random.default_rng(1).integers(1, 4, len(train)).astype(float))
    kw = dict(kw)
    if kw.pop("weights", None):
        kw["weights"] = d["w"].to_numpy()
    m = ubreg.fit(FORMULA, d, **kw)
    assert m.n_dropped == 0 and m.nobs == len(d)
    p = m.predict(d)
    assert np.isfinite(p).all()
    # the routes of new data are the training rows' routes
    np.testing.assert_allclose(p, m.predict(), rtol=1e-12)


def test_rows_missing_the_response_are_still_dropped_and_fail_refuses(train):
    d = train.copy()
    d.loc[[3, 4], "y"] = np.nan
    m = ubreg.fit(FORMULA, d, method="uboost", mstop=3)
    assert m.n_dropped == 2 and m.nobs == len(d) - 2
    with pytest.raises(DataError, match="'x0'"):
        ubreg.fit(FORMULA, train, method="uboost", mstop=3, na_action="fail")


def test_a_stump_sends_missing_values_to_the_side_of_their_class(train):
    """x0 missing ⇒ y = 1 mostly: the stump on x0 alone splits "missing or not"."""
    m = ubreg.fit("y ~ x0", train, method="uboost", learner="stumps", mstop=1, nu=1.0)
    stump = m.fit_info.learners[0]
    assert stump.feature[0] == 1 and stump.threshold[0] == np.inf     # values left, NaN right
    assert not stump.nan_left[0] and stump.value[2] > 0 > stump.value[1]
    p = m.predict(pd.DataFrame({"x0": [np.nan, 0.0]}))
    assert p.iloc[0] > 0.8 > 0.6 > p.iloc[1]


@pytest.mark.slow
def test_keeping_the_missing_rows_beats_dropping_or_imputing_them(train):
    """Stumps cannot isolate an imputed value (deeper trees can: two splits around the
    median mark the missing rows almost as well)."""
    test = _data(1500, 9)
    kept = ubreg.fit(FORMULA, train, method="uboost", learner="stumps", mstop=50)
    median = train["x0"].median()
    imputed = ubreg.fit(FORMULA, train.fillna({"x0": median}), method="uboost",
                        learner="stumps", mstop=50)
    ours = log_loss(test["y"], kept.predict(test))
    theirs = log_loss(test["y"], imputed.predict(test.fillna({"x0": median})))
    assert ours < theirs - 0.02, (ours, theirs)
    # fitted without them, the trees send them to the larger child: no better
    dropped = ubreg.fit(FORMULA, train.dropna(), method="uboost", learner="stumps", mstop=50)
    assert ours < log_loss(test["y"], dropped.predict(test)) - 0.02


def _integer_data(n, seed):
    """Columns of at most 40 distinct values: HistGradientBoosting and ubreg cut them at
    the same midpoints."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 40, size=(n, 4)).astype(float)
    s = (X[:, 0] - 20) / 8 + np.sin(X[:, 1] / 5)
    miss = rng.uniform(size=n) < 0.25
    s = np.where(miss, 1.5, s)
    X[miss, 0] = np.nan
    X[rng.uniform(size=n) < 0.1, 2] = np.nan
    d = pd.DataFrame(X, columns=["a", "b", "c", "e"])
    d["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-s))).astype(int)
    return d


@pytest.mark.slow
def test_the_trees_are_histgradientboostings():
    """Same loss, depth, step, bins and leaf bounds: the same splits, missing directions
    (tie-breaks included) and predictions, also for NaN in a column without NaN in
    training (the child of more training rows)."""
    train, test = _integer_data(3000, 1), _integer_data(3000, 2)
    test.loc[:200, "b"] = np.nan
    cols = ["a", "b", "c", "e"]
    m = ubreg.fit("y ~ a + b + c + e", train, method="uboost", mstop=60, nu=0.1, depth=3)
    hgb = HistGradientBoostingClassifier(max_iter=60, learning_rate=0.1, max_depth=3,
                                         max_leaf_nodes=None, min_samples_leaf=1,
                                         early_stopping=False).fit(train[cols], train["y"])
    for it, tree in enumerate(m.fit_info.learners):
        ours = {int(i): (int(tree.feature[i]) - 1, tree.threshold[i], bool(tree.nan_left[i]))
                for i in np.flatnonzero(tree.feature >= 0)}
        assert ours == _hgb_splits(hgb._predictors[it][0].nodes), it
    for d in (train, test):
        np.testing.assert_allclose(m.predict(d), hgb.predict_proba(d[cols])[:, 1], rtol=0,
                                   atol=1e-7)


def _hgb_splits(nodes, i=0, heap=0, out=None):
    """HistGradientBoosting's splits by heap index: (feature, threshold, NaN left)."""
    out = {} if out is None else out
    node = nodes[i]
    if not node["is_leaf"]:
        out[heap] = (int(node["feature_idx"]), float(node["num_threshold"]),
                     bool(node["missing_go_to_left"]))
        _hgb_splits(nodes, node["left"], 2 * heap + 1, out)
        _hgb_splits(nodes, node["right"], 2 * heap + 2, out)
    return out


def test_k_classes_with_missing_predictors(train):
    m = ubreg.fit("y3 ~ x0 + x1 + g", train, method="uboost", mstop=10)
    assert m.n_dropped == 0
    p = m.predict(train)
    assert np.isfinite(p.to_numpy()).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("kw", [dict(method="uboost", mstop=10),
                                dict(method="tboost", rounds=4),
                                dict(method="tboost", rounds=4, learner="stumps")])
def test_newdata_missing_a_column_complete_in_training(train, kw):
    """x1 has no NaN in training: a NaN goes to the child of more training rows."""
    m = ubreg.fit(FORMULA, train, **kw)
    new = train.iloc[:50].assign(x1=np.nan)
    p = m.predict(new)
    assert np.isfinite(p).all()


def test_the_majority_child_takes_unseen_missing_values():
    x = np.r_[np.zeros(70), np.ones(30)]
    d = pd.DataFrame({"x": x, "y": (x == 0).astype(int) ^ (np.arange(100) % 10 == 0)})
    m = ubreg.fit("y ~ x", d, method="uboost", learner="stumps", mstop=1, nu=1.0)
    stump = m.fit_info.learners[0]
    assert stump.nan_left[0]                         # 70 rows left, 30 right
    p = m.predict(pd.DataFrame({"x": [np.nan, 0.0, 1.0]}))
    assert p.iloc[0] == p.iloc[1] != p.iloc[2]


def test_a_missing_level_is_nan_in_every_dummy(train):
    m = ubreg.fit("y ~ g", train, method="uboost", mstop=2)
    X, dropped = m.design.transform(pd.DataFrame({"g": ["a", None, "c"]}))
    assert not dropped.any()
    assert np.isnan(X[1, 1:]).all() and X[1, 0] == 1.0 and np.isfinite(X[[0, 2]]).all()


def test_the_tboost_tree_learns_the_direction_too(train):
    m = ubreg.fit("y ~ x0", train, method="tboost", rounds=1)
    tree = m.fit_info.hypotheses[0].hyp
    # the root: the missing rows with the few largest values, on the right
    assert tree.feature[0] == 0 and tree.threshold[0] > 2.5 and not tree.nan_left[0]
    p = m.predict(pd.DataFrame({"x0": [np.nan, 0.0]}))
    assert p.iloc[0] > p.iloc[1] + 0.1, p


def test_data_without_missing_values_are_binned_as_before(train):
    X = train[["x1", "x2"]].to_numpy()
    binned = bin_design(X, 255)
    assert binned.source is None and binned.nan_left is None and binned.d == 2
    nan = bin_design(train[["x0", "x1"]].to_numpy(), 255)
    assert list(nan.source) == [0, 1, 0] and list(nan.nan_left) == [False, False, True]


def test_the_linear_learner_leaves_them_out(train):
    m = ubreg.fit("y ~ x0 + x1", train, method="uboost", learner="linear", mstop=5)
    assert m.n_dropped == int(train["x0"].isna().sum())


@pytest.mark.parametrize("cls", [UBoostClassifier, TBoostClassifier])
def test_scikit_learn_estimators_take_nan(train, cls):
    X, y = train[["x0", "x1", "x2"]].to_numpy(), train["y"].to_numpy()
    est = cls(**({"mstop": 5} if cls is UBoostClassifier else {"rounds": 3})).fit(X, y)
    assert est.__sklearn_tags__().input_tags.allow_nan
    assert np.isfinite(est.predict_proba(X)).all()
    assert not UBoostClassifier(learner="linear").__sklearn_tags__().input_tags.allow_nan
