"""ULS with weak learners (method="uls", learner="stumps"|"rules"|"trees")."""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import ConvergenceWarning


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 300
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + X[:, 1] ** 2 - 1 + 0.7 * rng.normal(size=n) > 0).astype(int)
    d = pd.DataFrame(X, columns=["a", "b", "c"])
    d["y"] = y
    return d


def adaboost(X, y, rounds):
    """Discrete AdaBoost (Freund & Schapire) with exhaustive stumps, written
    independently of ubreg: returns the training F after each round."""
    ys = 2 * y - 1
    n, p = X.shape
    D = np.full(n, 1.0 / n)
    F = np.zeros(n)
    staged, alphas = [], []
    for _ in range(rounds):
        best = (np.inf, None)
        for j in range(p):
            v = np.unique(X[:, j])
            for c in (v[:-1] + v[1:]) / 2:
                h = np.where(X[:, j] > c, 1.0, -1.0)
                for pol in (1.0, -1.0):
                    err = D[(pol * h) != ys].sum()
                    if err < best[0]:
                        best = (err, pol * h)
        err, h = best
        alpha = 0.5 * np.log((1 - err) / err)
        F = F + alpha * h
        D = D * np.exp(-alpha * ys * h)
        D /= D.sum()
        staged.append(F.copy())
        alphas.append(alpha)
    return np.array(staged).T, np.array(alphas)


@pytest.mark.slow
def test_exponential_stumps_is_adaboost(data):
    rounds = 12
    m = ubreg.fit("y ~ a + b + c", data, family=ubreg.Exponential(), method="uls",
                  learner="stumps", rounds=rounds, max_bins=1024)  # exact: 300 distinct values
    staged_ref, alphas = adaboost(data[["a", "b", "c"]].to_numpy(), data["y"].to_numpy(), rounds)
    np.testing.assert_allclose(m.predict(type="link"), staged_ref[:, -1], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(m.staged_link(data)[0], staged_ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(np.abs(m.fit_info.coef), alphas, rtol=1e-9)
    # AdaBoost's normalised edge is 1 − 2ε = tanh(α)
    np.testing.assert_allclose(m.edge_path.to_numpy(), np.tanh(alphas), rtol=1e-9)
    # the exponential risk is the product of the normalisers Z_t = √(1 − edge²)
    np.testing.assert_allclose(m.risk_path.to_numpy()[1:],
                               np.cumprod(np.sqrt(1 - np.tanh(alphas) ** 2)), rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("family", ["entropy", "matsushita", "gini", "mu", "power"])
@pytest.mark.parametrize("learner,kw", [("stumps", {}), ("rules", {"literals": 2}),
                                        ("trees", {"depth": 2})])
def test_risk_decreases_and_eq70_holds(data, family, learner, kw):
    fam = ubreg.Permissible(family, **({"mu": 0.3} if family == "mu" else {}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = ubreg.fit("y ~ a + b + c", data, family=fam, method="uls", learner=learner,
                      rounds=8, **kw)
    risk = m.risk_path.to_numpy()
    assert risk[0] == pytest.approx(1.0)            # F_φ(0) = 1
    assert np.all(np.diff(risk) <= 1e-12)            # each step solves (70): no increase
    # after the last round the weights have zero edge on its features (eq. 70)
    last = m.hypotheses[-1].transform(m.design.transform(data)[0])
    g = fam.gradient(m.y, m.eta)
    for k in range(last.shape[1]):
        h = last[:, k]
        if abs(m.fit_info.coef[-last.shape[1] + k]) < 19:   # not a capped (pure) leaf
            assert abs(g @ h) <= 1e-8 * np.abs(g * h).sum() + 1e-300


def test_corrective_solves_all_coefficients(data):
    m = ubreg.fit("y ~ a + b + c", data, family="entropy", method="uls", learner="stumps",
                  rounds=6, corrective=True)
    X = m.design.transform(data)[0]
    Hm = np.hstack([h.transform(X) for h in m.hypotheses])
    g = ubreg.Permissible("entropy").gradient(m.y, m.eta)
    # totally corrective: zero edge on every feature so far
    assert np.max(np.abs(Hm.T @ g)) / len(g) < 1e-8
    classic = ubreg.fit("y ~ a + b + c", data, family="entropy", method="uls", learner="stumps",
                        rounds=6)
    assert m.risk_path.iloc[-1] <= classic.risk_path.iloc[-1] + 1e-12
    staged = m.staged_link(data)[0]
    np.testing.assert_allclose(staged[:, -1], m.eta, atol=1e-10)


def test_rules_respect_literal_bound_and_beat_stumps(data):
    m1 = ubreg.fit("y ~ a + b + c", data, family="matsushita", method="uls", learner="rules",
                   rounds=1, literals=1)
    s1 = ubreg.fit("y ~ a + b + c", data, family="matsushita", method="uls", learner="stumps",
                   rounds=1)
    # a one-literal rule is a stump
    assert m1.edge_path.iloc[0] == pytest.approx(s1.edge_path.iloc[0], rel=1e-12)
    m3 = ubreg.fit("y ~ a + b + c", data, family="matsushita", method="uls", learner="rules",
                   rounds=5, literals=3)
    assert all(len(h.literals) <= 3 for h in m3.hypotheses)
    assert m3.edge_path.iloc[0] >= s1.edge_path.iloc[0] - 1e-12   # greedy starts from the stump


def test_staged_predictions_pickle_and_newdata(data):
    m = ubreg.fit("y ~ a + b + c", data, family="entropy", method="uls", learner="rules",
                  rounds=7, literals=2)
    m2 = pickle.loads(pickle.dumps(m))
    new = data.iloc[::7].copy()
    np.testing.assert_allclose(m2.predict(new), m.predict(new))
    staged = m.staged_predict(new)
    assert staged.shape == (len(new), 7)
    np.testing.assert_allclose(staged[7].to_numpy(), m.predict(new).to_numpy())
    new.loc[new.index[0], "a"] = np.nan
    assert np.isnan(m.predict(new).iloc[0])
    assert set(m.predict(new, type="class").dropna()) <= {0, 1}


def test_summary_reports_rounds_risk_and_features(data):
    m = ubreg.fit("y ~ a + b + c", data, family="matsushita", method="uls", learner="stumps",
                  rounds=15)
    s = m.summary(top=5)
    text = str(s)
    assert "Rounds: 15" in text and "deviance" in text
    assert f"{m.risk_path.iloc[-1]:.4g}" in text
    assert len(s.frame()) == 5
    top = m.feature_table()
    assert abs(top["coef"].iloc[0]) >= abs(top["coef"].iloc[-1])
    # features repeated over rounds are merged: their coefficients add up
    assert top["coef"].sum() == pytest.approx(m.fit_info.coef.sum())
    assert "<table" in s.html()


def test_categorical_predictors_are_dummy_columns():
    rng = np.random.default_rng(0)
    g = rng.choice(["u", "v", "w"], size=200)
    y = ((g == "v") ^ (rng.uniform(size=200) < 0.1)).astype(int)
    d = pd.DataFrame({"y": y, "g": g})
    m = ubreg.fit("y ~ g", d, family="entropy", method="uls", learner="stumps", rounds=3)
    assert "gv" in m.feature_table()["feature"].iloc[0]


def test_bad_options(data):
    f = "y ~ a + b + c"
    with pytest.raises(ValueError, match="rounds"):
        ubreg.fit(f, data, method="uls", learner="stumps", rounds=0)
    with pytest.raises(ValueError, match="literals"):
        ubreg.fit(f, data, method="uls", learner="rules", rounds=2, literals=0)
    with pytest.raises(ValueError, match="depth"):
        ubreg.fit(f, data, method="uls", learner="trees", rounds=2, depth=0)
    with pytest.raises(ValueError, match="strategy"):
        ubreg.fit(f, data, family=["gini", "entropy"], method="uls", learner="stumps", rounds=2)
    with pytest.raises(ValueError, match="bag"):
        ubreg.fit(f, data, method="uls", learner="stumps", rounds=2, strategy="F.")
    with pytest.raises(ValueError, match="learner"):
        ubreg.fit(f, data, method="uls", learner="forest", rounds=2)


def test_no_overflow_with_large_links():
    # a perfectly separable sample: coefficients are capped, never inf/nan
    d = pd.DataFrame({"x": np.arange(40.0), "y": (np.arange(40) >= 20).astype(int)})
    for fam in [ubreg.Exponential(), "entropy", "matsushita"]:
        with pytest.warns(ConvergenceWarning, match="separates"):
            m = ubreg.fit("y ~ x", d, family=fam, method="uls", learner="stumps", rounds=3)
        assert np.all(np.isfinite(m.eta)) and np.all(np.isfinite(m.predict()))
        assert m.training_error == 0.0


@pytest.mark.filterwarnings("ignore::ubreg.errors.ConvergenceWarning")
def test_user_data_not_modified(data):
    before = data.copy()
    ubreg.fit("y ~ a + b + c", data, family="entropy", method="uls", learner="trees", rounds=2,
              depth=2)
    pd.testing.assert_frame_equal(data, before)


@pytest.mark.filterwarnings("ignore::ubreg.errors.ConvergenceWarning")
def test_tree_leaves_are_features_and_pickle(data):
    m = ubreg.fit("y ~ a + b + c", data, family=ubreg.Exponential(), method="uls",
                  learner="trees", depth=2, rounds=4)
    assert sum(m.fit_info.blocks) == len(m.coef) <= 4 * 4
    X = m.design.transform(data)[0]
    for h in m.hypotheses:                         # each row lies in exactly one leaf
        np.testing.assert_array_equal(h.transform(X).sum(axis=1), 1.0)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_allclose(m2.predict(data, type="link"), m.eta)
