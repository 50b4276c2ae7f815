"""method="uboost" on K > 2 classes: K Newton trees a round on the multinomial loss, as
scikit-learn's HistGradientBoostingClassifier boosts it."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import log_loss

import ubreg
from ubreg.errors import OptionError


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    score = np.column_stack([np.zeros(n), X[:, 0] + X[:, 1] ** 2 - 1, -X[:, 2] + X[:, 0] * X[:, 3],
                             0.5 * X[:, 4] - X[:, 1]])
    p = np.exp(score) / np.exp(score).sum(axis=1, keepdims=True)
    y = (rng.uniform(size=n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    d = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)])
    d["y"] = np.array(["a", "b", "c", "d"])[y]
    return d


@pytest.mark.slow
def test_held_out_log_loss_is_histgradientboostings():
    train, test = _data(4000, 1), _data(4000, 2)
    m = ubreg.fit("y ~ x0 + x1 + x2 + x3 + x4", train, method="uboost", mstop=100, nu=0.1,
                  depth=3)
    p = m.predict(test)
    assert list(p.columns) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    cols = [f"x{j}" for j in range(5)]
    hgb = HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_depth=3,
                                         max_leaf_nodes=None, early_stopping=False,
                                         random_state=0).fit(train[cols], train["y"])
    ours = log_loss(test["y"], p.to_numpy(), labels=["a", "b", "c", "d"])
    theirs = log_loss(test["y"], hgb.predict_proba(test[cols]), labels=list(hgb.classes_))
    assert ours == pytest.approx(theirs, rel=0.03), (ours, theirs)
    cls = m.predict(test, type="class").astype(str)
    assert (cls == p.idxmax(axis=1)).all()


def test_the_training_risk_falls_and_is_the_log_loss():
    d = _data(600, 3)
    m = ubreg.fit("y ~ x0 + x1 + x2 + x3 + x4", d, method="uboost", mstop=30)
    risk = m.risk_path.to_numpy()
    assert np.all(np.diff(risk) < 0)
    p = m.predict()
    assert risk[-1] == pytest.approx(log_loss(d["y"], p.to_numpy(), labels=list(p.columns)),
                                     rel=1e-12)
    assert m.deviance == pytest.approx(2 * len(d) * risk[-1], rel=1e-12)
    np.testing.assert_allclose(m.predict(d).to_numpy(), p.to_numpy(), rtol=1e-12)
    assert "multinomial log-loss" in str(m.summary()) and "30 rounds of 4" in str(m)


@pytest.mark.slow
def test_weights_scale_free_and_zero_weight_rows_absent():
    d = _data(500, 4)
    w = np.random.default_rng(0).integers(1, 4, len(d)).astype(float)
    f = "y ~ x0 + x1 + x2"
    a = ubreg.fit(f, d, method="uboost", mstop=10, weights=w)
    b = ubreg.fit(f, d, method="uboost", mstop=10, weights=w * 1024)
    np.testing.assert_allclose(a.predict(d).to_numpy(), b.predict(d).to_numpy(), rtol=1e-12)
    w0 = w.copy()
    w0[:50] = 0
    c = ubreg.fit(f, d, method="uboost", mstop=10, weights=w0)
    e = ubreg.fit(f, d.iloc[50:], method="uboost", mstop=10, weights=w[50:])
    np.testing.assert_allclose(c.predict(d).to_numpy(), e.predict(d).to_numpy(), rtol=1e-10)


def test_what_has_no_k_class_form_is_refused_by_name():
    d = _data(200, 5)
    with pytest.raises(OptionError, match="multinomial log-loss.*matsushita"):
        ubreg.fit("y ~ x0", d, method="uboost", family="matsushita", mstop=5)
    with pytest.raises(OptionError, match="learner='linear' has no K-class form"):
        ubreg.fit("y ~ x0", d, method="uboost", learner="linear", mstop=5)


def test_a_dask_frame_of_three_classes_is_refused_by_other_methods_with_the_working_spelling():
    # the message counted the distinct values as "non-missing rows"
    dd = pytest.importorskip("dask.dataframe")
    d = _data(200, 6)
    with pytest.raises(ubreg.errors.ResponseError,
                       match=r"4 classes .*method='uboost' takes more than two .*in memory"):
        ubreg.fit("y ~ x0", dd.from_pandas(d, npartitions=2), method="udt")


# --- choosing mstop on K classes: ubreg.cv_risk and with_mstop ------------------------

def _frame_and_fit(mstop=12):
    d = _data(600, 5)
    return d, ubreg.fit("y ~ x0 + x1 + x2 + x3 + x4", d, method="uboost", mstop=mstop, depth=2)


def test_with_mstop_on_k_classes_is_the_fit_with_fewer_rounds():
    d, m = _frame_and_fit()
    short = ubreg.fit("y ~ x0 + x1 + x2 + x3 + x4", d, method="uboost", mstop=5, depth=2)
    cut = m.with_mstop(5)
    assert cut.mstop == 5 and m.mstop == 12
    np.testing.assert_array_equal(cut.predict(d).to_numpy(), short.predict(d).to_numpy())
    np.testing.assert_array_equal(cut.predict().to_numpy(), short.predict().to_numpy())
    np.testing.assert_array_equal(cut.risk_path.to_numpy(), short.risk_path.to_numpy())
    assert cut.deviance == short.deviance
    with pytest.raises(ValueError, match="mstop must be an integer in"):
        m.with_mstop(13)


@pytest.mark.slow
def test_cv_risk_on_k_classes_is_the_held_out_log_loss_of_each_folds_refit():
    d, m = _frame_and_fit()
    path = ubreg.cv_risk(m, folds=3, seed=4)
    assert path.risk.shape == (13, 3)
    # fold 1 by hand: refit on the other folds with ubreg.fit, the log-loss of its held-out
    # rows after 0..12 rounds (0: the class shares of the training folds)
    from ubreg.numerics.folds import stratified_folds
    fold = stratified_folds(m.y, 3, 4)
    train, test = d[fold != 0], d[fold == 0]
    refit = ubreg.fit("y ~ x0 + x1 + x2 + x3 + x4", train, method="uboost", mstop=12, depth=2)
    for r in (0, 5, 12):
        p = refit.with_mstop(r).predict(test)
        want = log_loss(test["y"], p.to_numpy(), labels=["a", "b", "c", "d"])
        assert path.risk.loc[r, 1] == pytest.approx(want, rel=1e-12)
    assert 0 <= path.mstop_1se <= path.mstop <= 12


@pytest.mark.parametrize("method", ["uboost", "uls"])
def test_frequency_weights_count_as_repeated_rows_in_nobs(method):
    d = _data(300, 8)
    d["w"] = np.random.default_rng(2).integers(0, 4, len(d))
    repeated = d.loc[d.index.repeat(d["w"])].reset_index(drop=True)
    kw = dict(mstop=3, depth=2) if method == "uboost" else {}
    m = ubreg.fit("y ~ x0 + x1 + x2", d, method=method, freq_weights="w", **kw)
    r = ubreg.fit("y ~ x0 + x1 + x2", repeated, method=method, **kw)
    assert m.nobs == r.nobs == d["w"].sum()
    assert m.deviance == pytest.approx(r.deviance, rel=1e-8)
