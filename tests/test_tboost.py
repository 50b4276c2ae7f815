"""t-AdaBoost (paper 004; docs/tempered.md §1, §2, §4, §7).

The tempered algebra, the closed-form and exact μ_j, the co-simplex, the
per-round bound Z_j^{2−t} ≤ K_t(ρ_j), Π Z^{2−t} = tempered exponential loss,
the margin bound, the clipped running sum, t = 1 = AdaBoost, and the result
object (predict, clipped, margins, pickle, summary) and its t-margins plot.
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar

import ubreg
from ubreg.families import tempered_algebra as A
from ubreg.fitters.tboost.boost import (
    closed_form_mu,
    closed_form_mu_logt,
    exact_mu,
    tboost,
    tempered_update,
)
from ubreg.fitters.tboost.learners import fit_tempered_tree

#: t-AdaBoost's loss, the family of method="tboost"
TE = ubreg.TemperedExponential


# --------------------------------------------------------------------------- data
def make_data(n=160, seed=0, noise=0.15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.7 * X[:, 1] ** 2 - 0.5 + noise * rng.normal(size=n) * 3 > 0).astype(int)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    df["y"] = y
    return df


FORMULA = "y ~ a + b + c + d"


def tree_weak(X, ystar, t, checks=None, max_size=5):
    rng = np.random.default_rng(1)

    def weak(q):
        if checks is not None:
            checks.append(q.copy())
        tree = fit_tempered_tree(X, ystar, q, t, max_size=max_size, rng=rng)
        if tree.n_nodes == 1:
            return None, None
        return tree, tree.predict(X)
    return weak


# --------------------------------------------------------------------------- §1 algebra
@pytest.mark.parametrize("t", [-0.5, 0.0, 0.3, 0.8, 1.0, 1.4])
def test_log_exp_inverse_and_product_rule(t):
    z = np.linspace(-0.9, 0.9, 19)
    if t != 1:
        z = z / abs(1 - t) * 0.95          # where 1 + (1 − t)z > 0
    np.testing.assert_allclose(A.log_t(A.exp_t(z, t), t), z, rtol=1e-12, atol=1e-12)
    a, b = z[:, None] / 2, z[None, :] / 2
    ok = (1 + (1 - t) * a > 0) & (1 + (1 - t) * b > 0) & (1 + (1 - t) * (a + b) > 0)
    lhs = A.exp_t(a + b, t)
    rhs = A.tensor_t(A.exp_t(a, t), A.exp_t(b, t), t)
    np.testing.assert_allclose(lhs[ok], rhs[ok], rtol=1e-11)
    # exp_t(a)/Z = exp_t((a − log_t Z)/Z^{1−t})
    Z = 1.7
    np.testing.assert_allclose(A.exp_t(z, t) / Z, A.exp_t((z - A.log_t(Z, t)) / Z ** (1 - t), t),
                               rtol=1e-12, atol=1e-15)


def test_limits_at_t_one():
    z = np.linspace(-2, 2, 9)
    for t in (1 - 1e-9, 1 + 1e-9):
        np.testing.assert_allclose(A.exp_t(z, t), np.exp(z), rtol=1e-7)
        np.testing.assert_allclose(A.log_t(np.exp(z), t), z, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(A.tanh_t(z, t), np.tanh(z), rtol=1e-7)
    assert A.exp_t(-3.0, 0.5) == 0.0 and np.isinf(A.exp_t(3.0, 1.5))
    np.testing.assert_array_equal(A.exp_t(z, 1 + 1e-13), np.exp(z))


@pytest.mark.parametrize("t", [0.0, 0.25, 0.5, 0.9, 1.0, 1.3])
def test_g_t_link(t):
    """g_t (§2.2): the printed ratio form, g_t = g_{2−t}, inverted by the
    posterior of §2.6, and the variational minimiser of §3.1."""
    p = np.array([0.01, 0.2, 0.45, 0.5, 0.7, 0.99])
    if t != 1:
        k = 1 - t
        printed = (p ** k - (1 - p) ** k) / (p ** k + (1 - p) ** k) / k
        np.testing.assert_allclose(A.g_t(p, t), printed, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(A.g_t(p, t), A.g_t(p, 2 - t), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(A.posterior_g(A.g_t(p, t), t), p, rtol=1e-11)
    for pi in (0.2, 0.7):
        def risk(h, pi=pi):
            return pi * A.exp_t(-h, t) ** (2 - t) + (1 - pi) * A.exp_t(h, t) ** (2 - t)
        res = minimize_scalar(risk, bounds=(-3, 3), method="bounded", options={"xatol": 1e-10})
        assert res.x == pytest.approx(float(A.g_t(pi, t)), abs=1e-6)
        assert res.fun == pytest.approx(float(A.bayes_risk(pi, t)), rel=1e-9)


def test_K_t_special_cases():
    z = np.linspace(-0.95, 0.95, 11)
    np.testing.assert_allclose(A.K_t(z, 1.0), np.sqrt(1 - z ** 2), rtol=1e-13)
    np.testing.assert_allclose(A.K_t(z, 0.0), 1 - z ** 2, rtol=1e-13)


def test_tanh_t_reaches_one_at_delta():
    t = 0.5
    delta = 1 / (1 - t)
    assert A.tanh_t(delta / 2, t) == 1.0 and A.tanh_t(delta / 2 - 0.01, t) < 1.0


def test_clipped_sum_poster_example():
    """δ = 2: adding (−1, 3) gives 2; adding (3, −1) gives 1 (§2.6)."""
    assert A.clipped_sum([-1.0, 3.0], 2.0) == 2.0
    assert A.clipped_sum([3.0, -1.0], 2.0) == 1.0
    np.testing.assert_array_equal(A.clipped_sum(np.array([[-1.0, 3.0], [3.0, -1.0]]), 2.0), [2, 1])


# --------------------------------------------------------------------------- §2.2 μ
@pytest.mark.parametrize("t", [0.0, 0.2, 0.5, 0.8, 0.95])
def test_closed_form_mu_two_forms(t):
    """μ: the log_t form equals the g_t form; |μ| r ≤ 1/(1 − t) (§2.2a)."""
    rng = np.random.default_rng(int(t * 100))
    for _ in range(20):
        w = rng.random(30)
        q = w / A.co_norm(w, t)
        u = rng.normal(size=30)
        mu, rho, r = closed_form_mu(q, u, t)
        assert -1 <= rho <= 1
        assert mu == pytest.approx(closed_form_mu_logt(q, u, t), rel=1e-10)
        assert abs(mu) * r <= 1 / (1 - t) + 1e-12


def test_closed_form_mu_t1_is_adaboost():
    rng = np.random.default_rng(3)
    q = rng.random(50)
    q /= q.sum()
    h = np.where(rng.random(50) < 0.5, 1.0, -1.0)
    y = np.where(rng.random(50) < 0.7, h, -h)
    mu, _, r = closed_form_mu(q, y * h, 1.0)
    e = q[y != h].sum()
    assert r == 1.0 and mu == pytest.approx(0.5 * np.log((1 - e) / e), rel=1e-12)


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0, 1.2])
def test_exact_mu_zeroes_the_edge_and_minimises_Z(t):
    rng = np.random.default_rng(7)
    w = rng.random(40)
    q = w / A.co_norm(w, t)
    u = rng.normal(size=40) * 0.3 + 0.1
    mu = exact_mu(q, u, t)
    q_next, Z = tempered_update(q, u, mu, t)
    assert abs(float(np.sum(q_next * u))) < 1e-8
    mu_c = closed_form_mu(q, u, t)[0]
    assert Z <= tempered_update(q, u, mu_c, t)[1] + 1e-12
    for eps in (1e-4, -1e-4):
        assert Z <= tempered_update(q, u, mu + eps, t)[1] + 1e-14
    # a perfect hypothesis has no root
    assert exact_mu(q, np.abs(u) + 0.1, t) is None


def test_infinite_weight_fallback_t_above_one():
    """t > 1: examples whose weight is +∞ share the mass, the others get 0, Z = 1 [J]."""
    t = 1.5
    q = np.full(4, 4 ** (-1 / (2 - t)))
    u = np.array([-10.0, -10.0, 1.0, 1.0])
    q_next, Z = tempered_update(q, u, 1.0, t)
    assert Z == 1.0
    np.testing.assert_allclose(q_next, [2 ** (-1 / (2 - t))] * 2 + [0, 0])
    assert np.sum(q_next ** (2 - t)) == pytest.approx(1.0)


# --------------------------------------------------------------------------- §2 the loop
@pytest.mark.parametrize("t", [0.0, 0.3, 0.7, 1.0])
def test_co_simplex_bound_and_loss_identity(t):
    """Σ q^{2−t} = 1 after every update, no zero weight (closed form),
    Z_j^{2−t} ≤ K_t(ρ_j), Π Z^{2−t} = (1/m) Σ exp_t^{2−t}(−y H) (§2.3, §2.7, §7)."""
    df = make_data()
    X = df[["a", "b", "c", "d"]].to_numpy()
    ystar = 2.0 * df.y.to_numpy() - 1
    seen = []
    fit = tboost(X, ystar, t, 15, tree_weak(X, ystar, t, seen))
    seen.append(fit.weights)
    for q in seen:
        assert np.sum(q ** (2 - t)) == pytest.approx(1.0, abs=1e-12)
        assert np.all(q > 0)
    assert np.all(fit.n_forgotten == 0)
    assert np.all(fit.Z ** (2 - t) <= fit.K * (1 + 1e-12))
    H = np.sum(fit.alpha[:, None] * np.array(fit.train_values), axis=0)
    loss = np.mean(A.exp_t(-ystar * H, t) ** (2 - t))
    assert float(np.prod(fit.Z ** (2 - t))) == pytest.approx(loss, rel=1e-10)
    # and the weights are exp_t(−yH) normalised (§2.3)
    q_pred = A.exp_t(-ystar * H, t) / (len(ystar) ** (1 / (2 - t)) * np.prod(fit.Z))
    np.testing.assert_allclose(fit.weights, q_pred, rtol=1e-9)


@pytest.mark.parametrize("t", [0.0, 0.5])
def test_exact_mu_forgets_and_identity_holds_with_clipped_margins(t):
    """The exact μ may zero weights (§2.5); Π Z^{2−t} is then the tempered loss of
    the one-sided clipped margins γ_i ← min(γ_i + α_j u_ji, δ)."""
    df = make_data(noise=0.0)
    X = df[["a", "b", "c", "d"]].to_numpy()
    ystar = 2.0 * df.y.to_numpy() - 1
    seen = []
    fit = tboost(X, ystar, t, 15, tree_weak(X, ystar, t, seen), mu="exact")
    for q in seen[1:] + [fit.weights]:
        assert np.sum(q ** (2 - t)) == pytest.approx(1.0, abs=1e-12)
    assert fit.n_forgotten.max() > 0
    loss = np.mean(A.exp_t(-fit.margin_clipped, t) ** (2 - t))
    assert float(np.prod(fit.Z ** (2 - t))) == pytest.approx(loss, rel=1e-9)
    np.testing.assert_array_equal(fit.weights == 0, fit.margin_clipped >= 1 / (1 - t) - 1e-12)


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0])
def test_margin_bound(t):
    """F_{t,θ} = mean[ν_t ≤ θ] ≤ ((1 + θ)/(1 − θ))^{2−t} Π K_t(ρ_j) (§2.7), for H and H^(δ)."""
    df = make_data(n=200, seed=4)
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=12)
    theta = np.linspace(-0.95, 0.95, 39)
    for clipped in (False, True):
        nu = res.margins(clipped=clipped).to_numpy()
        F = np.array([np.mean(nu <= th) for th in theta])
        assert np.all(F <= res.margin_bound(theta) + 1e-12)


# --------------------------------------------------------------------------- t = 1: AdaBoost
def independent_adaboost(X, ystar, rounds):
    """Textbook AdaBoost with ±1 stumps h = +1 if x_j > c (c: midpoints of
    consecutive distinct values), the stump of largest |weighted edge|."""
    m = len(ystar)
    w = np.full(m, 1.0 / m)
    H = np.zeros(m)
    for _ in range(rounds):
        best = None
        for j in range(X.shape[1]):
            vals = np.unique(X[:, j])
            for c in 0.5 * (vals[:-1] + vals[1:]):
                h = np.where(X[:, j] > c, 1.0, -1.0)
                edge = float(np.sum(w * ystar * h))
                if best is None or abs(edge) > abs(best[0]):
                    best = (edge, h)
        edge, h = best
        s = np.sign(edge)
        err = float(np.sum(w[s * h != ystar]))
        alpha = s * 0.5 * np.log((1 - err) / err)
        H += alpha * h
        w = w * np.exp(-alpha * ystar * h)
        w /= w.sum()
    return H


def ionosphere(cols=8):
    data = ubreg.datasets.load("ionosphere")
    names = [f"v{j}" for j in range(3, 3 + cols)]          # v2 is constant
    df = data[names].round(2)                               # < 255 distinct values: every cut
    df["y"] = data["Class"]
    return df, "y ~ " + " + ".join(names), names


def test_t1_stumps_is_adaboost():
    """(Continuous data, so that no two stumps tie exactly in edge: with ties,
    AdaBoost's choice depends on the rounding of the weights.)"""
    df = make_data(n=120, seed=9)
    df[["a", "b", "c", "d"]] = df[["a", "b", "c", "d"]].round(1)   # < 255 distinct values
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(1.0), rounds=12, learner="stumps")
    X = df[["a", "b", "c", "d"]].to_numpy()
    ref = independent_adaboost(X, 2.0 * df.y.to_numpy() - 1, 12)
    np.testing.assert_allclose(res.eta, ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res.eta_clipped, res.eta)      # no clipping at t = 1


def test_t1_stumps_is_uls_with_exponential():
    df, formula, _ = ionosphere()
    res = ubreg.fit(formula, df, method="tboost", family=TE(1.0), rounds=10, learner="stumps")
    uls = ubreg.fit(formula, df, method="uls", learner="stumps", rounds=10,
                    family=ubreg.Exponential())
    np.testing.assert_allclose(res.eta, uls.eta, rtol=1e-9, atol=1e-10)


# --------------------------------------------------------------------------- the result
def test_result_predict_clipped_pickle_margins_summary(tmp_path):
    df = make_data(n=180, seed=5)
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(0.5), rounds=10, learner="trees")
    assert res.delta == 2.0
    np.testing.assert_allclose(res.predict(df, type="link"), res.eta, rtol=1e-12)
    np.testing.assert_allclose(res.predict(df, type="link", clipped=True), res.eta_clipped,
                               rtol=1e-12)
    assert np.all(np.abs(res.eta_clipped) <= 2.0)
    p = res.predict(df.iloc[:20])
    assert np.all((p >= 0) & (p <= 1))
    assert set(res.predict(df, type="class").unique()) <= {0, 1}
    clone = pickle.loads(pickle.dumps(res))
    pd.testing.assert_series_equal(clone.predict(df.iloc[:30], clipped=True),
                                   res.predict(df.iloc[:30], clipped=True))
    nu = res.margins()
    assert isinstance(nu, pd.Series) and np.all((nu > -1) & (nu <= 1))
    s = res.summary()
    assert "t = 0.5" in str(s) and "<table" in s.html() and len(s.frame()) == 10
    import matplotlib
    matplotlib.use("Agg")
    ax = ubreg.plots.t_margins(res)                     # drawing lives in ubreg.plots
    assert ax.get_xlabel() == "t-margin θ"
    assert not hasattr(res, "plot_margins")
    assert df.shape == (180, 5)


@pytest.mark.parametrize("kwargs, match", [
    ({"t": 2.0}, "t must"), ({"t": 2.5}, "t must"), ({"t": "hot"}, "t must"),
    ({"t": 0.5, "rounds": 0}, "rounds"), ({"t": 0.5, "learner": "forest"}, "learner"),
    ({"t": 0.5, "mu": "newton"}, "mu"), ({"t": 0.5, "depth": 0}, "depth"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ubreg.fit(FORMULA, make_data(n=40), method="tboost", **kwargs)


def test_family_gives_t_and_depth_option():
    df = make_data(n=100)
    res = ubreg.fit(FORMULA, df, family=ubreg.Permissible("tempered", t=0.25), method="tboost",
                    rounds=5, depth=2)
    assert res.t == 0.25
    assert all(h.hyp.n_leaves <= 4 for h in res.hypotheses)


@pytest.mark.parametrize("learner", ["trees", "stumps"])
def test_frequency_weights_equal_duplicated_rows(learner):
    df = make_data(n=90, seed=8)
    w = np.random.default_rng(0).integers(0, 3, size=len(df))
    dup = df.loc[df.index.repeat(w)].reset_index(drop=True)
    # (few rounds: later trees can reach near-pure leaves whose value, ±100 or
    # η_t(p ≈ 1), depends on the rounding of Σq, which differs between the two)
    rounds = 3 if learner == "trees" else 6
    a = ubreg.fit(FORMULA, df, method="tboost", family=TE(0.5), rounds=rounds, learner=learner,
                  weights=w)
    b = ubreg.fit(FORMULA, dup, method="tboost", family=TE(0.5), rounds=rounds, learner=learner)
    np.testing.assert_allclose(a.predict(df, type="link"), b.predict(df, type="link"),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.rounds_table["Z"], b.rounds_table["Z"], rtol=1e-10)


# --------------------------------------------------------------------------- clipping, result level
@pytest.mark.slow
def test_clipped_predictions_are_the_left_to_right_clipped_sum():
    """With the exact μ (t = 0.5, δ = 2) |H| passes δ, so the clipping acts: the
    clipped prediction is the poster's running sum S_j = clip(S_{j−1} + α_j h_j(x)),
    which is neither H nor np.clip(H, −δ, δ) (§2.6)."""
    df = make_data(n=200, seed=2, noise=0.0)
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(0.5), rounds=12, mu="exact")
    assert res.delta == 2.0
    new = make_data(n=300, seed=12, noise=0.0)
    for data in (df, new):
        H = res.predict(data, type="link").to_numpy()
        Hc = res.predict(data, type="link", clipped=True).to_numpy()
        # the running sum, written out here from the hypotheses and the α_j
        X = np.c_[np.ones(len(data)), data[["a", "b", "c", "d"]].to_numpy()]
        expected = []
        for x in X:
            S = 0.0
            for a, h in zip(res.alpha, res.hypotheses):
                S = min(2.0, max(-2.0, S + a * float(h.predict(x[None, :])[0])))
            expected.append(S)
        np.testing.assert_allclose(Hc, expected, rtol=1e-12, atol=1e-12)
        assert np.max(np.abs(H)) > 2.0                       # the clipping acts ...
        moved = np.abs(Hc - H) > 1e-9
        assert moved.mean() > 0.1                             # ... on many rows,
        assert np.any(np.abs(Hc - np.clip(H, -2.0, 2.0)) > 1e-6)   # and not as a final clip
    np.testing.assert_allclose(res.predict(df, type="link", clipped=True), res.eta_clipped,
                               rtol=1e-12, atol=1e-12)


def test_rounds_table_with_the_exact_mu_labels_the_closed_form_values():
    df = make_data(n=160, seed=1, noise=0.0)
    t = 0.5
    ex = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=6, mu="exact")
    tab = ex.rounds_table
    assert {"mu", "mu_closed", "Z", "Z_closed", "rho", "K_t(rho)"} <= set(tab.columns)
    assert not np.allclose(tab["mu"], tab["mu_closed"])
    # K_t(ρ) bounds the closed-form Z; the exact μ minimises Z (§2.2b, §2.7)
    assert np.all(tab["Z_closed"] ** (2 - t) <= tab["K_t(rho)"] * (1 + 1e-12))
    assert np.all(tab["Z"] <= tab["Z_closed"] * (1 + 1e-12))
    s = ex.summary()
    assert "mu_closed" in str(s) and "closed form" in str(s) and "mu_closed" in s.html()
    cl = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=6)
    assert "mu_closed" not in cl.rounds_table and "Z_closed" not in cl.rounds_table


def test_t_above_one_exact_mu_without_root_says_why():
    """t > 1: the exact projection may have no root below the pole of exp_t; the
    error says so (not "perfect weak hypothesis")."""
    df = make_data(n=300, seed=3)
    with pytest.raises(ubreg.errors.DataError, match="no root below the pole"):
        ubreg.fit(FORMULA, df, method="tboost", family=TE(1.5), rounds=3, mu="exact")


# --------------------------------------------------------------------------- learner="udt"
def rounded(n=200, seed=3, noise=0.15):
    df = make_data(n=n, seed=seed, noise=noise)
    df[["a", "b", "c", "d"]] = df[["a", "b", "c", "d"]].round(2)   # < 255 values: every cut
    return df


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0, 1.1])
def test_udt_learner_runs_and_reduces_the_tempered_loss(t):
    df = rounded()
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=8, learner="udt", depth=2)
    assert res.rounds >= 1 and res.options["depth"] == 2
    assert np.all(np.isfinite(res.eta)) and np.all(np.isfinite(res.predict(df, type="link")))
    assert all(h.kind == "tree" and h.hyp.n_leaves <= 4 for h in res.hypotheses)
    # the first tree, fitted on the uniform weights, lowers the tempered exponential
    # loss from 1 (H = 0): Z_1^{2−t} = (1/m) Σ exp_t^{2−t}(−y α_1 h_1) < 1 (§2.3)
    ystar = 2.0 * res.y - 1
    h1 = res.alpha[0] * np.asarray(res.fit_info.train_values[0])
    loss1 = np.mean(A.exp_t(-ystar * h1, t) ** (2 - t))
    assert loss1 == pytest.approx(res.fit_info.Z[0] ** (2 - t), rel=1e-10)
    assert loss1 < 1.0
    # the leaves hold η_t(p_leaf), p_leaf from Σq of the leaf's rows
    from ubreg.families import Tempered
    hyp = res.hypotheses[0].hyp
    X = np.c_[df[["a", "b", "c", "d"]].to_numpy()]
    leaf = hyp.apply(X)
    for k in np.unique(leaf):
        p = np.mean(ystar[leaf == k] > 0)                    # q uniform in round 1
        assert hyp.value[k] == pytest.approx(float(Tempered(t).dphi(p)), rel=1e-10)
    assert "leaf [" in "\n".join(res.hypotheses[0].describe(list(res.design.column_names)))


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0, 1.3])
@pytest.mark.parametrize("depth", [1, 2])
def test_udt_learner_is_the_section_3_3_tree_grown_to_the_same_depth(t, depth):
    """The shared trees on the tempered weights make the same splits as the §3.3
    tree grown to the same depth over every candidate (a separate implementation:
    exact midpoints, its own admissibility and Δ), with the same η_t leaves."""
    df = rounded()
    a = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=8, learner="udt", depth=depth)
    b = ubreg.fit(FORMULA, df, method="tboost", family=TE(t), rounds=8, learner="trees",
                  depth=depth,
                  max_candidates=10 ** 6)
    assert a.rounds == b.rounds
    np.testing.assert_allclose(a.eta, b.eta, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(a.rounds_table["Z"], b.rounds_table["Z"], rtol=1e-10)


def test_udt_t1_depth1_is_real_adaboost_with_the_matsushita_stump():
    """t = 1, depth 1, one round, written out: the split of least
    Σ_leaves √(W⁺W⁻) (Matsushita) over every midpoint, leaves
    η_1(p) = (2p − 1)/√(p(1 − p)), μ = ½ ln((1 + ρ)/(1 − ρ))/r with
    r = max|h|, ρ = Σ q y h/r (§2.2a at t = 1)."""
    df = rounded(n=150, seed=6)
    X = df[["a", "b", "c", "d"]].to_numpy()
    y = 2.0 * df.y.to_numpy() - 1
    m = len(y)
    q = np.full(m, 1.0 / m)
    best = None
    for j in range(X.shape[1]):
        vals = np.unique(X[:, j])
        for c in 0.5 * (vals[:-1] + vals[1:]):
            right = X[:, j] > c
            score, ok = 0.0, True
            for side in (~right, right):
                wp, wn = q[side & (y > 0)].sum(), q[side & (y < 0)].sum()
                ok &= wp > 0 and wn > 0
                score += np.sqrt(wp * wn)
            if ok and (best is None or score < best[0] - 1e-15):
                best = (score, right)
    right = best[1]
    h = np.empty(m)
    for side in (~right, right):
        p = q[side & (y > 0)].sum() / q[side].sum()
        h[side] = (2 * p - 1) / np.sqrt(p * (1 - p))
    r = np.max(np.abs(h))
    rho = np.sum(q * y * h) / r
    mu = 0.5 * np.log((1 + rho) / (1 - rho)) / r
    res = ubreg.fit(FORMULA, df, method="tboost", family=TE(1.0), rounds=1, learner="udt", depth=1)
    np.testing.assert_allclose(res.fit_info.train_values[0], h, rtol=1e-12)
    assert res.alpha[0] == pytest.approx(mu, rel=1e-12)
    np.testing.assert_allclose(res.eta, mu * h, rtol=1e-12)


@pytest.mark.slow
def test_udt_learner_row_order_and_frequency_weights():
    df = rounded(n=150, seed=4)
    opts = dict(method="tboost", family=TE(0.5), rounds=5, learner="udt", depth=2)
    a = ubreg.fit(FORMULA, df, **opts)
    perm = np.random.default_rng(1).permutation(len(df))
    b = ubreg.fit(FORMULA, df.iloc[perm], **opts)
    np.testing.assert_allclose(a.predict(df, type="link"), b.predict(df, type="link"),
                               rtol=1e-9, atol=1e-9)
    w = np.random.default_rng(0).integers(0, 3, size=len(df))
    c = ubreg.fit(FORMULA, df, weights=w, **opts)
    d = ubreg.fit(FORMULA, df.loc[df.index.repeat(w)].reset_index(drop=True), **opts)
    np.testing.assert_allclose(c.predict(df, type="link"), d.predict(df, type="link"),
                               rtol=1e-9, atol=1e-9)
    p = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(p.predict(df), a.predict(df))
    assert "udt" in str(a.summary())


# --------------------------------------------------------------------------- the loss is family=
def test_a_family_the_method_does_not_boost_is_refused():
    """tboost minimises a tempered exponential loss: it takes it from family= and refuses,
    by name, a family that is not one (it was once ignored); uboost boosts every family
    (tests/test_uboost.py), one at a time."""
    df = make_data(n=80)
    with pytest.raises(ubreg.errors.OptionError,
                       match=r"'tboost' minimises the tempered exponential.*gini"):
        ubreg.fit(FORMULA, df, method="tboost", rounds=2, family=ubreg.Permissible("gini"))
    for method in ("tboost", "uboost"):
        with pytest.raises(ValueError, match="not a bag of families"):
            ubreg.fit(FORMULA, df, method=method,
                      family=[ubreg.Permissible("gini"), ubreg.Permissible("entropy")])


@pytest.mark.slow
def test_the_loss_families_fit_without_a_warning():
    import warnings

    df = make_data(n=80)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        base = ubreg.fit(FORMULA, df, method="tboost", rounds=2)
        same = [ubreg.fit(FORMULA, df, method="tboost", rounds=2, family=f)
                for f in (ubreg.TemperedExponential(0.5), ubreg.Permissible("tempered"))]
        u = ubreg.fit(FORMULA, df, method="uboost", mstop=3)
        u_named = ubreg.fit(FORMULA, df, method="uboost", mstop=3, family="entropy")
        u_logistic = ubreg.fit(FORMULA, df, method="uboost", mstop=3, family=ubreg.U("logistic"))
        ubreg.cv(FORMULA, df, method="uboost", mstop=3, folds=2, seed=0)
    assert "family=" not in base.call and base.family == ubreg.TemperedExponential(0.5)
    for m in same:
        np.testing.assert_array_equal(m.eta, base.eta)
        assert m.family == ubreg.TemperedExponential(0.5)
    # entropy is the logistic U: the same fit, and the result keeps the family it was given
    np.testing.assert_array_equal(u_named.eta, u.eta)
    np.testing.assert_array_equal(u_logistic.eta, u.eta)
    assert u_named.family == ubreg.Permissible("entropy") and u_logistic.family.name == "logistic"
    assert u_logistic.deviance == pytest.approx(u.deviance, rel=1e-12)


def test_the_old_loss_arguments_warn_and_give_the_same_fit():
    df = make_data(n=80)
    with pytest.warns(FutureWarning, match=r"t= is deprecated.*TemperedExponential\(0.3\)") \
            as rec:
        old = ubreg.fit(FORMULA, df, method="tboost", rounds=3, t=0.3)
    assert rec[0].filename == __file__
    new = ubreg.fit(FORMULA, df, method="tboost", rounds=3,
                    family=ubreg.TemperedExponential(0.3))
    np.testing.assert_array_equal(old.eta, new.eta)
    with pytest.warns(FutureWarning, match=r"U= is deprecated.*family=U\('exponential'\)") \
            as rec:
        old = ubreg.fit(FORMULA, df, method="uboost", mstop=3, U="exponential")
    assert rec[0].filename == __file__
    new = ubreg.fit(FORMULA, df, method="uboost", mstop=3, family=ubreg.U("exponential"))
    np.testing.assert_array_equal(old.eta, new.eta)
    assert old.family == new.family
    with pytest.raises(ValueError, match="give the loss once"):
        ubreg.fit(FORMULA, df, method="tboost", t=0.3, family=ubreg.TemperedExponential(0.3))
    with pytest.raises(ValueError, match="give the loss once"):
        ubreg.fit(FORMULA, df, method="uboost", U="logistic", family="entropy")
