"""On-line learning, Algorithm 2 of paper 000 (docs/math.md §9).

Checks: q = 2 is the plain gradient step and q = 1.5 the p-norm walk (against
loops written here); Theorem 3's inequality on simulated streams (q = 2 and q
close to 1), tight at low noise and broken by a rate far above eq. 98; on a
stationary stream the on-line predictor's loss approaches the batch ULS fit's
(averaged iterates; a vanishing gap with the η/√t rate); the design is fixed by
the first batch and errors name the batch.
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg import OnlineLearner
from ubreg.families import Permissible
from ubreg.fitters.online import grad_psi

FORMULA = "y ~ x0 + x1 + x2 + x3"


def stream(n, seed, beta=(0.3, 1.0, -0.8, 0.5, 0.0), uniform=True):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 4)) if uniform else rng.normal(size=(n, 4))
    eta = beta[0] + X @ np.asarray(beta[1:])
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * eta))).astype(int)
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(4)])
    df["y"] = y
    return df


def feed(learner, df, size):
    links = []
    for start in range(0, len(df), size):
        learner.partial_fit(df.iloc[start:start + size])
        links.append(learner.last_links_)
    return np.concatenate(links)


def test_q2_is_the_plain_gradient_step():
    df = stream(600, 1)
    fam = Permissible("matsushita")
    ol = OnlineLearner(FORMULA, family=fam, q=2.0, eta=0.3)
    links = feed(ol, df, 250)
    X = np.c_[np.ones(len(df)), df[[f"x{i}" for i in range(4)]].to_numpy()]
    w = np.zeros(5)
    ref, iterates = [], []
    for x, y in zip(X, df.y.to_numpy()):
        ref.append(x @ w)
        w = w - 0.3 * (float(fam.posterior(x @ w)) - y) * x
        iterates.append(w)
    np.testing.assert_allclose(links, ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ol.walk_coef_.to_numpy(), w, rtol=1e-12)
    # the default predictor is the average of the iterates w_1..w_T (Polyak–Ruppert)
    assert ol.average
    np.testing.assert_allclose(ol.coef_.to_numpy(), np.mean(iterates, axis=0), rtol=1e-10)
    new = stream(40, 9)
    Xn = np.c_[np.ones(len(new)), new[[f"x{i}" for i in range(4)]].to_numpy()]
    np.testing.assert_allclose(ol.predict(new, type="link"), Xn @ np.mean(iterates, axis=0),
                               rtol=1e-10, atol=1e-12)


def p_norm_map(theta, p):
    """∇ψ_p(θ)ᵢ = sign(θᵢ)|θᵢ|^{p−1}/‖θ‖_p^{p−2}, written out (no rescaling)."""
    norm = np.sum(np.abs(theta) ** p) ** (1 / p)
    if norm == 0:
        return np.zeros_like(theta)
    return np.sign(theta) * np.abs(theta) ** (p - 1) / norm ** (p - 2)


@pytest.mark.parametrize("rate", ["constant", "sqrt"])
def test_q_below_2_is_the_p_norm_walk(rate):
    """q = 1.5 end to end against a loop written here: θ ← θ − η_t(p̂_t − y_t)x_t,
    w = ∇ψ_p(θ) with p = q/(q − 1) = 3, p̂_t from w_{t−1} (eq. 93); η_t = η or
    η/√t; the averaged predictor is the mean of w_1..w_T."""
    df = stream(700, 4)
    fam = Permissible("entropy")
    q, eta = 1.5, 0.4
    ol = OnlineLearner(FORMULA, family=fam, q=q, eta=eta, rate=rate, average=True)
    links = feed(ol, df, 300)
    X = np.c_[np.ones(len(df)), df[[f"x{i}" for i in range(4)]].to_numpy()]
    theta, w = np.zeros(5), np.zeros(5)
    ref, iterates = [], []
    for t, (x, y) in enumerate(zip(X, df.y.to_numpy()), start=1):
        a = x @ w
        ref.append(a)
        step = eta if rate == "constant" else eta / np.sqrt(t)
        theta = theta - step * (1 / (1 + np.exp(-a)) - y) * x
        w = p_norm_map(theta, 3.0)
        iterates.append(w)
    np.testing.assert_allclose(links, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ol.walk_coef_.to_numpy(), w, rtol=1e-10)
    np.testing.assert_allclose(ol.coef_.to_numpy(), np.mean(iterates, axis=0), rtol=1e-10)
    assert np.count_nonzero(np.abs(w) > 1e-3) == 5          # the walk really moved


def test_q_norm_maps_are_inverse():
    rng = np.random.default_rng(3)
    for q in (1.1, 1.5, 1.9):
        p = q / (q - 1)
        w = rng.normal(size=7) * 10.0 ** rng.integers(-3, 3, size=7)
        np.testing.assert_allclose(grad_psi(grad_psi(w, q), p), w, rtol=1e-10)
        # ∇ψ_q is the gradient of ½‖w‖_q²
        h = 1e-6
        num = [(0.5 * np.linalg.norm(w + h * e, q) ** 2 - 0.5 * np.linalg.norm(w - h * e, q) ** 2)
               / (2 * h) for e in np.eye(7)]
        np.testing.assert_allclose(grad_psi(w, q), num, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("q", [2.0, 1.1])
@pytest.mark.parametrize("family", ["entropy", "gini", "matsushita"])
def test_theorem3_inequality(q, family):
    """Σ D_φ(p̂_t‖p_r,t) ≤ Σ D_φ(y_t‖p_r,t) + (p − 1)λ_p²‖r‖_q²/(2λ) for any r,
    with η of eq. 98 and λ_p the true sup ‖x‖_p of the stream."""
    df = stream(3000, 7)
    fam = Permissible(family)
    X = np.c_[np.ones(len(df)), df[[f"x{i}" for i in range(4)]].to_numpy()]
    p = 2.0 if q == 2 else q / (q - 1)
    lam_p = float(np.max(np.sum(np.abs(X) ** p, axis=1) ** (1 / p)))
    ol = OnlineLearner(FORMULA, family=fam, q=q, lambda_p=lam_p)
    links = feed(ol, df, 1000)
    assert "Theorem 3" in ol.eta_source
    p_hat = fam.posterior(links)
    batch = ubreg.fit(FORMULA, df, family=Permissible("entropy"), method="uls")
    rng = np.random.default_rng(0)
    y = df.y.to_numpy().astype(float)
    refs = [batch.coef.to_numpy(), rng.normal(size=5), np.zeros(5)]
    for r in refs:
        if family == "gini" and np.abs(r).sum() > 0:
            r = r / (4 * np.abs(r).sum())     # keep the gini reference inside its link domain
        pr = fam.posterior(X @ r)
        lhs = float(np.sum(fam.D(p_hat, pr)))
        rhs = float(np.sum(fam.D(y, pr))) + ol.regret_bound_penalty(r)
        assert lhs <= rhs


def _test_risk(fam, predictor, test):
    return float(np.mean(fam.loss(test.y.to_numpy(), predictor.predict(test, type="link"))))


LOW_NOISE = (0.3, 8.0, -6.0, 4.0, 0.0)


def _theorem3_sides(df, fam, q, eta_factor=1.0):
    """(Σ D_φ(p̂_t‖p_r,t), Σ D_φ(y_t‖p_r,t), penalty) for r = the batch fit,
    with η = eta_factor × eq. 98's rate and λ_p the true sup ‖x‖_p."""
    X = np.c_[np.ones(len(df)), df[[f"x{i}" for i in range(4)]].to_numpy()]
    p = 2.0 if q == 2 else q / (q - 1)
    lam_p = float(np.max(np.sum(np.abs(X) ** p, axis=1) ** (1 / p)))
    lam = 1.0 / float(np.max(fam.hessian_eta(np.linspace(-50, 50, 2001))))
    eta = eta_factor * lam / ((p - 1) * lam_p ** 2)
    ol = OnlineLearner(FORMULA, family=fam, q=q, eta=eta, lambda_=lam, lambda_p=lam_p)
    links = feed(ol, df, 1000)
    r = ubreg.fit(FORMULA, df, family=Permissible("entropy"), method="uls").coef.to_numpy()
    if fam.name == "gini":
        r = r / (4 * np.abs(r).sum())         # keep the gini reference inside its link domain
    pr = fam.posterior(X @ r)
    y = df.y.to_numpy().astype(float)
    return (float(np.sum(fam.D(fam.posterior(links), pr))), float(np.sum(fam.D(y, pr))),
            ol.regret_bound_penalty(r))


@pytest.mark.parametrize("family", ["entropy", "matsushita"])
def test_theorem3_is_tight_at_low_noise(family):
    """The test of Theorem 3 has power.  With nearly noiseless labels, q = 1.1 and
    the batch fit as reference, the inequality holds with less slack than the
    penalty term: without (p − 1)λ_p²‖r‖_q²/(2λ) it would fail."""
    lhs, base, penalty = _theorem3_sides(stream(3000, 7, beta=LOW_NOISE), Permissible(family),
                                         q=1.1)
    assert lhs <= base + penalty
    assert lhs > base                          # the penalty is needed
    assert lhs > 0.3 * (base + penalty)


@pytest.mark.slow
def test_theorem3_fails_for_a_rate_far_above_eq98():
    """η = 3× eq. 98's rate breaks the inequality (gini, q = 2): the check can
    fail.  (For entropy and matsushita even 100× the rate does not break it on
    these streams: eq. 98 is conservative there.)"""
    df = stream(3000, 7, beta=LOW_NOISE)
    fam = Permissible("gini")
    lhs, base, penalty = _theorem3_sides(df, fam, q=2.0)
    assert lhs <= base + penalty
    lhs, base, penalty = _theorem3_sides(df, fam, q=2.0, eta_factor=3.0)
    assert lhs > 1.5 * (base + penalty)


@pytest.mark.slow
def test_approaches_the_batch_fit_on_a_stationary_stream():
    """On a stationary stream the on-line predictor's risk on fresh data
    approaches the batch ULS fit's (risks relative to the batch fit of the same
    rows, on 20 000 fresh rows):

    * the default (Theorem 3's constant η, averaged iterates) is within 0.5%
      at 20 000 and at 80 000 rows (about 0.1% here: a bias of order η stays);
    * the constant-rate last iterate w_T is worse (it fluctuates at a level
      set by η; see the OnlineLearner notes);
    * rate="sqrt" (η/√t, last iterate): the gap shrinks as the stream grows —
      at 4× the rows it is under a third of what it was, and under 0.1%.
    With η/√t the prequential loss of later rows beats that of early rows."""
    train, test = stream(80000, 11, uniform=False), stream(20000, 12, uniform=False)
    fam = Permissible("entropy")
    gaps = {}
    for n in (20000, 80000):
        rows = train.iloc[:n]
        batch = ubreg.fit(FORMULA, rows, family=fam, method="uls")
        risk_batch = _test_risk(fam, batch, test)
        default = OnlineLearner(FORMULA, family=fam, q=2.0)
        feed(default, rows, 10000)
        assert "Theorem 3" in default.eta_source and default.average
        risk_avg = _test_risk(fam, default, test)
        assert risk_avg <= 1.005 * risk_batch
        walk = float(np.mean(fam.loss(test.y.to_numpy(), (np.c_[np.ones(len(test)), test[
            [f"x{i}" for i in range(4)]].to_numpy()] @ default.walk_coef_.to_numpy()))))
        assert walk > risk_avg
        sqrt = OnlineLearner(FORMULA, family=fam, q=2.0, rate="sqrt")
        links = feed(sqrt, rows, 10000)
        assert not sqrt.average
        gaps[n] = _test_risk(fam, sqrt, test) / risk_batch - 1
    assert gaps[80000] < gaps[20000] / 3
    assert abs(gaps[80000]) < 1e-3
    pre = fam.loss(train.y.to_numpy(), links)
    assert pre[40000:].mean() < pre[:2000].mean()


def test_design_is_fixed_by_the_first_batch():
    df = stream(200, 2)
    df["g"] = np.where(df.x0 > 0, "a", "b")
    ol = OnlineLearner("y ~ x0 + g", q=1.5)
    ol.partial_fit(df.iloc[:100])
    bad = df.iloc[100:].copy()
    bad.loc[bad.index[0], "g"] = "c"
    with pytest.raises(ValueError, match=r"batch 2: factor 'g' has new level\(s\) \['c'\]") \
            as err:
        ol.partial_fit(bad)
    assert "newdata" not in str(err.value) and "first batch" in str(err.value)
    with pytest.raises(ValueError, match=r"batch 2 lacks column\(s\) \['g'\]"):
        ol.partial_fit(df.iloc[100:].drop(columns="g"))
    with pytest.raises(ValueError, match="batch 2: .*response"):
        ol.partial_fit(df.iloc[100:].drop(columns="y"))
    with pytest.raises(ValueError, match="batch 2: .*infinite"):
        ol.partial_fit(df.iloc[100:].assign(x0=np.inf))
    extra = df.iloc[100:].assign(z=1.0)
    with pytest.raises(ValueError, match="columns"):
        ol.partial_fit(extra)
    newy = df.iloc[100:].assign(y=df.y.iloc[100:].replace({1: 2}))
    with pytest.raises(ValueError, match="not among the levels"):
        ol.partial_fit(newy)
    # a batch with one class and NA rows is fine
    one = df.iloc[100:].copy()
    one = one[one.y == 1]
    one.loc[one.index[0], "x0"] = np.nan
    n0 = ol.n_seen
    ol.partial_fit(one)
    assert ol.n_seen == n0 + len(one) - 1 and ol.n_dropped == 1
    assert df.shape == (200, 6)


@pytest.mark.parametrize("kwargs, match", [
    ({"q": 1.0}, "1 < q <= 2"), ({"q": 2.5}, "1 < q <= 2"), ({"q": "x"}, "q"),
    ({"eta": -1.0}, "eta"), ({"lambda_p": 0.0}, "lambda_p"),
    ({"rate": "linear"}, "rate"), ({"average": "yes"}, "average"),
    ({"family": ubreg.Exponential()}, "permissible"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OnlineLearner(FORMULA, **kwargs)


def test_predict_pickle_and_summary():
    df = stream(500, 5)
    ol = OnlineLearner(FORMULA, family="entropy", q=1.5)
    with pytest.raises(ValueError, match="partial_fit"):
        ol.predict(df)
    feed(ol, df, 200)
    clone = pickle.loads(pickle.dumps(ol))
    new = stream(50, 6)
    pd.testing.assert_series_equal(clone.predict(new), ol.predict(new))
    cls = ol.predict(new, type="class")
    assert set(cls.unique()) <= {0, 1}
    s = ol.summary()
    assert "Theorem 3" in str(s) and "<table" in s.html()
    assert s.frame().shape == (5, 1)


@pytest.mark.parametrize("t", [-0.5, 0.0, 0.3, 0.9, 1.0 - 1e-13, 1.0, 1.0 + 1e-13, 1.5])
def test_tempered_scalar_posterior_matches_the_family(t):
    fam = Permissible("tempered", t=t)
    post = fam.scalar_posterior()
    hi = fam.link_domain[1]
    eta = np.r_[-1e3, -20.0, -3.0, -0.4, 0.0, 0.2, 2.5, 30.0, 1e3]
    eta = np.r_[eta[np.abs(eta) < 0.999 * hi], -1e3, 1e3] if np.isfinite(hi) else eta
    np.testing.assert_allclose([post(float(a)) for a in eta], fam.posterior(eta),
                               rtol=1e-11, atol=1e-12)


def test_pickle_records_the_version_and_warns_on_another():
    import pickle
    import warnings

    import ubreg._pickling as online

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"x": rng.normal(size=200)})
    df["y"] = (df.x + rng.normal(size=200) > 0).astype(int)
    ol = ubreg.OnlineLearner("y ~ x").partial_fit(df)
    blob = pickle.dumps(ol)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = pickle.loads(blob)                      # same version: silent
    np.testing.assert_array_equal(back.predict(df), ol.predict(df))
    real = online.__version__
    try:
        online.__version__ = "0.0.0-other"
        with pytest.warns(UserWarning, match=r"pickled by ubreg .* loaded by 0\.0\.0-other"):
            pickle.loads(blob)
    finally:
        online.__version__ = real


# --------------------------------------------------------------------------- interruptions
class _Boom(Exception):
    pass


def _failing_posterior(monkeypatch, family, after, exc):
    """The per-row posterior raises ``exc`` at its ``after``-th call (mid-batch)."""
    real = type(family).scalar_posterior

    def make(self):
        post, calls = real(self), [0]

        def wrapped(a):
            calls[0] += 1
            if calls[0] == after:
                raise exc
            return post(a)
        return wrapped

    monkeypatch.setattr(type(family), "scalar_posterior", make)
    # the interpreted walk, which calls the per-row posterior (the compiled one does not)
    monkeypatch.setattr(type(family), "posterior_form", property(lambda self: None))


def _state(learner):
    """Every attribute, as pickled bytes (arrays compared bit for bit)."""
    return {k: pickle.dumps(v) for k, v in vars(learner).items()}


def _with_na(df):
    out = df.copy()
    out.loc[out.index[3], "x1"] = np.nan
    return out


@pytest.mark.parametrize("q", [2.0, 1.5])
@pytest.mark.parametrize("where", ["first batch", "later batch", "after the walk"])
@pytest.mark.parametrize("exc", [KeyboardInterrupt(), _Boom("mid-batch")])
def test_interrupted_partial_fit_leaves_the_learner_as_it_was(monkeypatch, q, where, exc):
    df = stream(300, seed=21)
    ol = OnlineLearner(FORMULA, q=q)
    if where != "first batch":
        ol.partial_fit(df.iloc[:100])
    before = pickle.dumps(ol)
    batch = _with_na(df.iloc[100:200])
    if where == "after the walk":            # the walk is done, the loss raises
        def boom(*args, **kwargs):
            raise exc
        monkeypatch.setattr(type(ol.family), "loss", boom)
    else:
        _failing_posterior(monkeypatch, ol.family, 40, exc)
    state = _state(ol)
    with pytest.raises(type(exc)):
        ol.partial_fit(batch)
    assert _state(ol) == state
    assert pickle.dumps(ol) == before
    monkeypatch.undo()
    # and it goes on as a learner that never saw the failed batch
    ref = pickle.loads(before)
    for learner in (ol, ref):
        learner.partial_fit(batch).partial_fit(df.iloc[200:])
    assert _state(ol) == _state(ref)


@pytest.mark.parametrize("name", ["entropy", "entropy2", "matsushita", "gini", "mu"])
@pytest.mark.parametrize("q", [2.0, 1.5, 1.2])
@pytest.mark.parametrize("rate", ["constant", "sqrt"])
def test_compiled_walk_equals_the_interpreted_walk(name, q, rate):
    """The numba walk (families with a closed-form posterior) and the per-row Python
    loop (the others) are the same algorithm: the same links and iterates."""
    from ubreg.fitters import online as qnorm
    from ubreg.fitters.online_kernels import run
    rng = np.random.default_rng(3)
    X = np.c_[np.ones(400), rng.normal(size=(400, 4))]
    y = (rng.uniform(size=400) < 0.4).astype(float)
    fam = ubreg.Permissible(name, **({"mu": 0.3} if name == "mu" else {}))
    p = qnorm.dual_exponent(q)
    eta = 0.05 if name == "gini" else 0.2
    rates = qnorm.step_sizes(7, len(y), eta, rate)
    w0 = rng.normal(size=5) * 0.1
    theta0 = qnorm.grad_psi(w0, q)
    compiled = run(X, y, fam, eta, rates, w0, theta0 if q != 2.0 else w0, np.zeros(5), p)

    class Interpreted(type(fam)):
        posterior_form = None
    slow = Interpreted(**({"mu": 0.3} if name == "mu" else {}))
    interpreted = qnorm.walk(X, y, slow, eta, rates, w0, theta0, np.zeros(5), q, p)
    for a, b in zip(compiled, interpreted):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
