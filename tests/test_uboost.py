"""U-Boost (method="uboost", paper 003 §4.4, docs/math.md §6)."""
import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.families.ulosses import ExponentialU, Logistic, Squared, U_alpha, U_custom


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 240
    X = rng.normal(size=(n, 3))
    eta = 1.2 * X[:, 0] - 0.8 * X[:, 1] ** 2 + 0.5
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    d = pd.DataFrame(X, columns=["a", "b", "c"])
    d["y"] = y
    return d


def _stump_wls(X, z, w):
    """Weighted least-squares regression stump, exhaustive over midpoints."""
    best = (np.inf, None)
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        for c in (v[:-1] + v[1:]) / 2:
            right = X[:, j] > c
            fl = np.average(z[~right], weights=w[~right])
            fr = np.average(z[right], weights=w[right])
            f = np.where(right, fr, fl)
            sse = np.sum(w * (z - f) ** 2)
            if sse < best[0]:
                best = (sse, f)
    return best[1]


def gentle_adaboost(X, y, rounds):
    """Friedman, Hastie & Tibshirani (2000), Algorithm 4."""
    ys = 2.0 * y - 1
    w = np.full(len(y), 1 / len(y))
    F = np.zeros(len(y))
    for _ in range(rounds):
        f = _stump_wls(X, ys, w)
        F += f
        w = w * np.exp(-ys * f)
        w /= w.sum()
    return F


def logitboost(X, y, rounds):
    """Friedman, Hastie & Tibshirani (2000), Algorithm 3 (two classes)."""
    F = np.zeros(len(y))
    p = np.full(len(y), 0.5)
    for _ in range(rounds):
        w = p * (1 - p)
        z = (y - p) / w
        F += 0.5 * _stump_wls(X, z, w)
        p = np.exp(F) / (np.exp(F) + np.exp(-F))
    return F


EXACT = dict(learner="stumps", nu=1.0, init="zero", min_child_weight=0.0, max_bins=1024)


@pytest.mark.slow
def test_exponential_U_is_gentle_adaboost(data):
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", family=ubreg.U("exponential"),
                  mstop=8, **EXACT)
    ref = gentle_adaboost(data[["a", "b", "c"]].to_numpy(), data["y"].to_numpy(), 8)
    # U = e^(−z/2) has the log-odds as minimiser, Gentle AdaBoost half of it
    np.testing.assert_allclose(m.predict(type="link") / 2, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.slow
def test_logistic_U_is_logitboost(data):
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", family=ubreg.U("logistic"), mstop=8,
                  **EXACT)
    ref = logitboost(data[["a", "b", "c"]].to_numpy(), data["y"].to_numpy(), 8)
    np.testing.assert_allclose(m.predict(type="link") / 2, ref, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(m.predict(type="response"), 1 / (1 + np.exp(-2 * ref)), atol=1e-9)


@pytest.mark.slow
def test_componentwise_linear_approaches_the_mle(data):
    mle = ubreg.fit("y ~ a + b + c", data, family="entropy").coef
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", family=ubreg.U("logistic"),
                  learner="linear", mstop=1500, nu=0.1)
    path = m.coef_path
    dist = [np.max(np.abs(path.loc[k] - mle)) for k in (50, 300, 1500)]
    assert dist[0] > dist[1] > dist[2]
    assert dist[2] < 1e-6
    # the path is sparse early on: the first iterations pick few terms
    assert (path.loc[3] != 0).sum() <= 3
    np.testing.assert_allclose(m.predict(type="link"), m.design.transform(data)[0] @ m.coef,
                               atol=1e-10)


def test_risk_decreases_and_posterior_is_expit(data):
    for U in [ubreg.U("logistic"), ubreg.U("exponential"), ubreg.U("squared"), U_alpha(0.3)]:
        m = ubreg.fit("y ~ a + b + c", data, family=U, method="uboost", learner="trees",
                      depth=2, mstop=30, nu=0.1)
        assert m.family == U
        assert np.all(np.diff(m.risk_path.to_numpy()) <= 1e-12)
        p = m.predict(type="response").to_numpy()
        np.testing.assert_allclose(p, 1 / (1 + np.exp(-m.eta)), rtol=1e-12)
        y = m.y
        loglik = np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))
        assert m.loglik == pytest.approx(loglik, rel=1e-9)
        # the deviance is the family's: 2 Σ [U(y*F) − U(∞)], the binomial deviance for the
        # logistic U; the U-risk it is twice n times
        u_inf = float(U.U(1e3))
        dev = 2 * np.sum(U.U((2 * y - 1) * m.eta) - u_inf)
        assert m.deviance == pytest.approx(dev, rel=1e-9)
        assert m.deviance == pytest.approx(2 * len(y) * (m.risk_path.iloc[-1] - u_inf),
                                           rel=1e-9)
        if U.name == "logistic":
            assert m.deviance == pytest.approx(-2 * loglik, rel=1e-9)


def test_init_mean_is_the_constant_minimiser(data):
    for U in ["logistic", "exponential", "squared"]:
        m = ubreg.fit("y ~ a", data, method="uboost", family=ubreg.U(U), learner="stumps",
                      mstop=0)
        F0 = m.fit_info.F0
        U_ = ubreg.families.ulosses.resolve_U(U)
        ys = 2.0 * m.y - 1
        def risk(c, U_=U_, ys=ys):
            return np.mean(U_.U(ys * c))
        assert risk(F0) <= min(risk(F0 - 1e-3), risk(F0 + 1e-3))


@pytest.mark.slow
def test_cv_risk(data):
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", learner="trees", depth=2, mstop=40,
                  nu=0.2)
    cv = ubreg.cv_risk(m, folds=4, seed=1)
    assert cv.risk.shape == (41, 4)
    assert list(cv.mean.index)[:2] == [0, 1]
    assert 0 <= cv.mstop_1se <= cv.mstop <= 40
    assert cv.mean.loc[cv.mstop] == cv.mean.min()
    assert np.all(cv.se >= 0)
    again = ubreg.cv_risk(m, folds=4, seed=1)
    pd.testing.assert_frame_equal(cv.risk, again.risk)
    assert m.mstop == 40 and not hasattr(m, "cv_risk")     # the result is not refitted
    # on pure noise the held-out risk rises from the start: choose (almost) 0 iterations
    rng = np.random.default_rng(0)
    noise = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    noise["y"] = rng.integers(0, 2, 200)
    mn = ubreg.fit("y ~ a + b + c", noise, method="uboost", learner="trees", depth=3,
                   mstop=30, nu=0.3)
    assert ubreg.cv_risk(mn, folds=5, seed=2).mstop_1se <= 3
    short = m.with_mstop(cv.mstop)
    assert short.mstop == cv.mstop and m.mstop == 40
    np.testing.assert_allclose(short.predict(data, type="link"),
                               m.staged_predict(data, type="link")[cv.mstop])


def test_importance_and_selection(data):
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", learner="stumps", mstop=60, nu=0.3)
    imp = m.importance()
    assert imp.index[0] in ("a", "b")           # the informative terms lead
    assert imp["risk_reduction"].sum() == pytest.approx(m.risk_path.iloc[0] - m.risk_path.iloc[-1])
    freq = m.selection_frequencies()
    assert freq.sum() == pytest.approx(1.0)     # a stump uses exactly one term
    assert "Variable importance" in str(m.summary())
    assert "<table" in m.summary().html()


def test_pickle_and_newdata(data):
    m = ubreg.fit("y ~ a + b + C(np.sign(c))", data, method="uboost", learner="trees",
                  depth=3, mstop=20)
    m2 = pickle.loads(pickle.dumps(m))
    new = data.iloc[:10]
    np.testing.assert_allclose(m2.predict(new), m.predict(new))
    staged = m.staged_predict(new, type="link")
    np.testing.assert_allclose(staged[20], m.predict(new, type="link"))


def test_U_functions():
    z = np.linspace(-30, 30, 201)
    np.testing.assert_allclose(U_alpha(1.0).d1(z), Logistic().d1(z), rtol=1e-12)
    np.testing.assert_allclose(U_alpha(0.0).d1(z), ExponentialU().d1(z), rtol=1e-12)
    np.testing.assert_allclose(U_alpha(1.0).U(z[z > -20]), Logistic().U(z[z > -20]),
                               rtol=1e-6, atol=1e-9)
    for U in [Logistic(), ExponentialU(), Squared(), U_alpha(0.4)]:
        U.check_bayes()
        # finite at |z| = 1e3
        for v in (U.U, U.d1, U.d2):
            assert np.all(np.isfinite(v(np.array([-1e3, 1e3]))))
        # U'' matches a finite difference of U'
        zz = np.linspace(-4, 4, 17)
        fd = (U.d1(zz + 1e-6) - U.d1(zz - 1e-6)) / 2e-6
        np.testing.assert_allclose(U.d2(zz), fd, rtol=1e-5, atol=1e-8)
    # squared U is not convex for z < −ln 2: the Newton weight stays positive
    S = Squared()
    assert S.d2(-2.0) < 0 and S.newton_weight(np.array([-2.0]), np.array([2.0]))[0] > 0


def test_user_defined_U(data):
    def d1(z):
        return -1 / (1 + np.exp(z))

    def d2(z):
        return np.exp(z) / (1 + np.exp(z)) ** 2

    m = ubreg.fit("y ~ a + b", data, method="uboost", family=U_custom(d1, d2),
                  learner="stumps", mstop=10)
    ref = ubreg.fit("y ~ a + b", data, method="uboost", family=ubreg.U("logistic"),
                    learner="stumps", mstop=10)
    np.testing.assert_allclose(m.eta, ref.eta, rtol=1e-9)
    np.testing.assert_allclose(m.risk_path, ref.risk_path, rtol=1e-6)
    with pytest.raises(ValueError, match=r"not Bayes optimal.*4\.3"):
        U_custom(lambda z: -np.exp(-z), lambda z: np.exp(-z))   # e^−z: minimiser is Λ/2
    with pytest.raises(ValueError, match="decreasing"):
        U_custom(lambda z: 2 * (z - 1), lambda z: 2 + 0 * z)    # (z − 1)², paper 003


def test_bad_options(data):
    f = "y ~ a"
    with pytest.raises(ValueError, match="nu"):
        ubreg.fit(f, data, method="uboost", nu=0)
    with pytest.raises(ValueError, match="nu"):
        ubreg.fit(f, data, method="uboost", nu=1.5)
    with pytest.raises(ValueError, match="mstop"):
        ubreg.fit(f, data, method="uboost", mstop=-1)
    with pytest.raises(ValueError, match="learner"):
        ubreg.fit(f, data, method="uboost", learner="rules")
    with pytest.raises(ValueError, match="unknown U"):
        ubreg.fit(f, data, method="uboost", family=ubreg.U("hinge"))
    with pytest.raises(ValueError, match="folds"):
        ubreg.cv_risk(ubreg.fit(f, data, method="uboost", mstop=2), folds=1)


def test_values_match_the_separate_functions():
    z = np.array([-1e3, -30.0, -1.0, 0.0, 0.5, 30.0, 1e3])
    for U in [Logistic(), ExponentialU(), Squared(), U_alpha(0.6)]:
        u, d1, d2 = U.values(z)
        np.testing.assert_allclose(u, U.U(z), rtol=1e-12)
        np.testing.assert_allclose(d1, U.d1(z), rtol=1e-12)
        np.testing.assert_allclose(d2, U.d2(z), rtol=1e-12, atol=1e-300)


def test_values_into_writes_the_numbers_values_returns():
    # the in-place path of the boosting loop: the same numbers to the bit, at
    # extreme margins, at 0 (both signs) and where the margin is NaN
    z = np.array([-1e3, -745.5, -30.0, -1.0, -0.0, 0.0, 1e-300, 0.5, 30.0, 745.5, 1e3, np.nan])
    z = np.concatenate([z, np.random.default_rng(0).normal(scale=5, size=1000)])
    for U in [Logistic(), ExponentialU(), Squared(), U_alpha(0.6)]:
        out = np.full((3, z.size), 7.0)
        with np.errstate(all="ignore"):
            U.values_into(z, out)
            want = U.values(z)
        for got, ref in zip(out, want):
            np.testing.assert_array_equal(got, ref)


def test_with_mstop_keeps_what_the_weights_mean(data):
    # a frequency-weighted fit cut at mstop is still frequency-weighted (nobs = Σ w)
    w = np.resize([1.0, 2.0, 3.0], len(data))
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", mstop=20, freq_weights=w)
    cut = m.with_mstop(10)
    assert cut.weight_kind == m.weight_kind == "freq"
    assert cut.nobs == m.nobs == w.sum()
    direct = ubreg.fit("y ~ a + b + c", data, method="uboost", mstop=10, freq_weights=w)
    assert cut.loglik == pytest.approx(direct.loglik, rel=1e-12)


def test_min_samples_leaf_bounds_every_leaf(data):
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", learner="trees", depth=3, mstop=15,
                  min_samples_leaf=25)
    X = m.design.transform(data)[0]
    for tree in m.fit_info.learners:
        counts = np.bincount(tree.apply(X))
        assert counts[counts > 0].min() >= 25
    with pytest.raises(ValueError, match="min_samples_leaf"):
        ubreg.fit("y ~ a", data, method="uboost", min_samples_leaf=-1)


def test_trees_are_exact_and_deterministic(data):
    # eta is F0 + ν Σ leaf values (the training leaves from the grower, not
    # re-routed); the risk path is Σ w U(y*F)/Σ w; an aliased copy of a column
    # is never chosen over it (ties go to the first column), so the copy gets
    # no importance and the fit does not change; row order does not matter
    m = ubreg.fit("y ~ a + b + c", data, method="uboost", learner="trees", depth=3, mstop=25,
                  min_samples_leaf=5)
    fit = m.fit_info
    X = m.design.transform(data)[0]
    F = fit.F0 + fit.nu * sum(t.predict(X) for t in fit.learners)
    np.testing.assert_allclose(fit.eta, F, rtol=1e-13, atol=1e-13)
    ystar = 2.0 * data["y"].to_numpy() - 1.0
    risk = [np.mean(Logistic().U(ystar * f))
            for f in np.asarray(m.staged_predict(data, type="link")).T]
    np.testing.assert_allclose(m.risk_path.to_numpy(), risk, rtol=1e-12)
    alias = ubreg.fit("y ~ a + b + c + I(2 * a)", data, method="uboost", learner="trees",
                      depth=3, mstop=25, min_samples_leaf=5)
    np.testing.assert_array_equal(alias.fit_info.eta, fit.eta)
    assert not alias.fit_info.selected[:, -1].any()
    perm = np.random.default_rng(1).permutation(len(data))
    shuffled = ubreg.fit("y ~ a + b + c", data.iloc[perm], method="uboost", learner="trees",
                         depth=3, mstop=25, min_samples_leaf=5)
    np.testing.assert_allclose(shuffled.fit_info.eta, fit.eta[perm], rtol=1e-12, atol=1e-12)
    for t, u in zip(fit.learners, shuffled.fit_info.learners):
        np.testing.assert_array_equal(t.feature, u.feature)


@pytest.mark.parametrize("method, options", [("uboost", {"mstop": 20}),
                                             ("uls", {"learner": "stumps", "rounds": 20})])
def test_boosting_summaries_lay_out_no_chi2_degrees_of_freedom(method, options):
    """Boosting rounds are not degrees of freedom and no χ² test applies to these
    deviances: the summary must not print them as R prints a glm's."""
    import re
    import warnings

    import ubreg
    data = ubreg.datasets.load_pima()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit("diabetes ~ glucose + mass + age", data, method=method, **options)
    text = str(m.summary())
    assert "Null deviance" in text
    assert not re.search(r"deviance[^\n]*\bon [0-9.]+ (df|degrees)", text), text


@pytest.mark.slow
def test_cv_risk_refits_the_folds_as_ubreg_fit_would(data):
    """The folds of cv_risk are the fits ubreg.fit makes of the same rows: prior weights
    count relative to their mean there too, so a constant multiple of the weights is the
    same CV path (the folds were once refitted on the raw weights: weights scaled by 1e-4
    made min_child_weight stop every split, a CV path 0.18 away)."""
    d = data.copy()
    d["w"] = np.random.default_rng(0).uniform(0.5, 1.5, len(d))
    d["w_small"] = d["w"] * 1e-4
    opts = dict(method="uboost", mstop=20, min_child_weight=1.0)
    a = ubreg.fit("y ~ a + b + c", d, weights="w", **opts)
    b = ubreg.fit("y ~ a + b + c", d, weights="w_small", **opts)
    np.testing.assert_allclose(a.eta, b.eta, rtol=1e-12)
    ca, cb = ubreg.cv_risk(a, folds=4, seed=3), ubreg.cv_risk(b, folds=4, seed=3)
    np.testing.assert_allclose(cb.risk.to_numpy(), ca.risk.to_numpy(), rtol=1e-10)
    # a fold is ubreg.fit on the other folds' rows
    from ubreg.numerics.folds import stratified_folds
    fold = stratified_folds(a.y, 4, 3)
    train, test = d[fold != 0], d[fold == 0]
    refit = ubreg.fit("y ~ a + b + c", train, weights="w_small", **opts)
    F = refit.staged_predict(test, type="link").to_numpy()
    ystar = 2.0 * test["y"].to_numpy()[:, None] - 1.0
    held_out = np.average(np.log1p(np.exp(-ystar * F)), axis=0, weights=test["w"])
    np.testing.assert_allclose(cb.risk[1].to_numpy(), held_out, rtol=1e-10)


#: families U-Boost boosts through their margin loss (FamilyLoss): smooth, saturating
#: (bounded link), the linear probability model, AdaBoost's and t-AdaBoost's losses
BOOSTED_FAMILIES = [ubreg.Permissible("matsushita"), ubreg.Permissible("gini"),
                    ubreg.Permissible("power", v=0.3), ubreg.Permissible("logcosh", zeta=-4),
                    ubreg.Permissible("tempered", t=0.0), ubreg.Permissible("tempered", t=-1),
                    ubreg.Exponential(), ubreg.TemperedExponential(0.5)]


def test_fitted_probabilities_of_0_or_1_are_warned_as_glm_does():
    """A bounded link saturates (tempered t = −1: past |η| = 2^{3/2} the posterior is 0 or
    1): glm's warning, with the count, the reason and what it does to the log-likelihood;
    the summary notes it.  An ordinary logistic fit is silent."""
    from ubreg.errors import SeparationWarning
    rng = np.random.default_rng(5)
    n = 2000
    d = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    d["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-2 * d.a + d.b))).astype(int)
    fam = ubreg.Permissible("tempered", t=-1)
    with pytest.warns(SeparationWarning, match=r"fitted probabilities numerically 0 or 1 "
                      r"occurred: \d+ training rows.*bounded link.*log-likelihood is -Inf"):
        m = ubreg.fit("y ~ a + b + c", d, family=fam, method="uboost", mstop=200)
    p = m.predict(type="response").to_numpy()
    assert np.any((p == 0) | (p == 1)) and m.loglik == -np.inf
    assert "Fitted probabilities numerically 0 or 1 occurred" in str(m.summary())
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = ubreg.fit("y ~ a + b + c", d, method="uboost", mstop=200)
    assert "numerically 0 or 1" not in str(ok.summary())


@pytest.mark.parametrize("family", [ubreg.Permissible("entropy"), ubreg.U("exponential")],
                         ids=repr)
def test_a_logistic_posterior_is_printed_as_expit(data, family):
    """The entropy family and the U-losses read F as a log-odds: the summary says expit(F)."""
    m = ubreg.fit("y ~ a + b + c", data, family=family, method="uboost", depth=2, mstop=5)
    text = str(m.summary())
    assert "= expit(F); n =" in text and "Eguchi & Copas 2001" in text


@pytest.mark.slow
@pytest.mark.parametrize("family", BOOSTED_FAMILIES, ids=repr)
def test_every_family_is_boosted_and_kept(data, family):
    """family= is the loss boosted (once ignored with a warning): the risk path falls, the
    posterior is the family's, the deviance the family's, print and summary say so; a
    saturating family runs without a division by zero."""
    import warnings

    from ubreg.errors import SeparationWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ubreg.fit("y ~ a + b + c", data, family=family, method="uboost", depth=2,
                      mstop=40)
    # the only warning: a bounded link's saturated rows (glm's 0-or-1 warning)
    bounded = np.isfinite(getattr(family, "link_domain", (-np.inf, np.inf))[1])
    assert all(w.category is SeparationWarning and bounded for w in caught), \
        [str(w.message) for w in caught]
    assert bool(caught) == (m.extreme_rows()[0] > 0)
    assert m.family == family
    assert np.all(np.diff(m.risk_path.to_numpy()) <= 1e-12)
    assert m.risk_path.iloc[-1] < m.risk_path.iloc[0]
    np.testing.assert_allclose(m.predict(type="response").to_numpy(),
                               family.posterior(m.eta), rtol=1e-12)
    dev = 2.0 * np.sum(family.divergence(m.y, m.eta))
    assert m.deviance == pytest.approx(dev, rel=1e-10)
    assert family.describe() in str(m) and family.describe() in str(m.summary())
    # the summary's posterior is the family's: expit(F) only where it is the logistic one
    F = np.linspace(-3.0, 3.0, 7)
    logistic = np.allclose(family.posterior(F), 1.0 / (1.0 + np.exp(-F)), rtol=1e-12)
    assert ("expit(F)" in str(m.summary())) is logistic


@pytest.mark.slow
@pytest.mark.parametrize("family", [ubreg.Permissible("matsushita"),
                                    ubreg.Permissible("tempered", t=0.0),
                                    ubreg.Exponential()], ids=repr)
def test_componentwise_linear_boosting_reaches_the_families_uls_optimum(data, family):
    """learner="linear" boosts the family's loss to its optimum: the coefficients of ULS
    with the same family (the exact minimiser), to 1e-9."""
    d = data.copy()
    uls = ubreg.fit("y ~ a + b + c", d, family=family)
    boost = ubreg.fit("y ~ a + b + c", d, family=family, method="uboost", learner="linear",
                      mstop=1500, nu=0.5)
    np.testing.assert_allclose(boost.coef.to_numpy(), uls.coef.to_numpy(), atol=1e-9)


def test_the_scale_of_a_loss_does_not_change_the_fit(data):
    """entropy in bits (entropy2: its link is the log-odds in bits) boosts the same model as
    entropy in nats, the logistic U: the same posteriors (min_child_weight sees the
    curvature scaled to the logistic U's at 0)."""
    nats = ubreg.fit("y ~ a + b + c", data, method="uboost", mstop=30)
    bits = ubreg.fit("y ~ a + b + c", data, family="entropy2", method="uboost", mstop=30)
    logistic = ubreg.fit("y ~ a + b + c", data, family=ubreg.U("logistic"), method="uboost",
                         mstop=30)
    np.testing.assert_allclose(bits.fitted_values, nats.fitted_values, rtol=1e-10)
    np.testing.assert_array_equal(logistic.fitted_values, nats.fitted_values)


def test_matsushitas_compiled_pass_is_its_loss_gradient_and_curvature():
    """U-Boost of Matsushita's loss evaluates (ℓ, ℓ', ℓ'') in one compiled pass a row:
    the family's own loss, gradient and curvature, scaled, to rounding (at |z| = 1e3 and
    past z² = ∞ too)."""
    from ubreg.families.ulosses import as_u_loss
    from ubreg.fitters.boost.margin_values import values_into
    U = as_u_loss(ubreg.Permissible("matsushita"))
    z = np.r_[np.random.default_rng(1).normal(size=50_000) * 5,
              [-1e3, 1e3, 0.0, -0.0, 1e140, 1e200, -1e200]]
    out = np.empty((3, z.size))
    values_into(U, z, out)
    fam = U.family
    for row, ref in zip(out, (fam.loss(1.0, z), fam.gradient(1.0, z), fam.hessian(1.0, z))):
        np.testing.assert_allclose(row, U.scale * ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("mu", [0.1, 0.5, 0.9])
def test_mus_compiled_pass_is_its_loss_gradient_and_curvature(mu):
    """U-Boost of the μ family's loss: one compiled pass a row (no NumPy power), the
    family's loss, gradient and curvature, scaled, to rounding (past z² = ∞ too)."""
    from ubreg.families.ulosses import as_u_loss
    from ubreg.fitters.boost.margin_values import values_into
    U = as_u_loss(ubreg.Permissible("mu", mu=mu))
    z = np.r_[np.random.default_rng(2).normal(size=50_000) * 5,
              [-1e3, 1e3, 0.0, -0.0, 1e140, 1e200, -1e200, 1e-300]]
    out = np.empty((3, z.size))
    values_into(U, z, out)
    fam = U.family
    for row, ref in zip(out, (fam.loss(1.0, z), fam.gradient(1.0, z), fam.hessian(1.0, z))):
        np.testing.assert_allclose(row, U.scale * ref, rtol=1e-12, atol=1e-300)


def test_tempered_halfs_compiled_pass_is_its_loss_gradient_and_curvature():
    """U-Boost of the tempered loss at t = ½ evaluates (ℓ, ℓ', ℓ'') in one compiled pass a
    row, with no root search: ``U.values``'s numbers to the bit, and the family's loss,
    gradient and curvature to 1e−12 (at the link domain's end, past it, at |z| = 1e3)."""
    from ubreg.families.ulosses import as_u_loss
    from ubreg.fitters.boost.margin_values import values_into
    U = as_u_loss(ubreg.Permissible("tempered", t=0.5))
    fam = U.family
    hi = fam.link_domain[1]
    z = np.r_[np.random.default_rng(1).normal(size=50_000) * 5,
              [-1e3, 1e3, 0.0, -0.0, hi, -hi, 8.0, -8.0, 7.9999999, -1e-300, 1e300]]
    out = np.empty((3, z.size))
    values_into(U, z, out)
    for got, want in zip(out, U.values(z)):
        np.testing.assert_array_equal(got, want)
    for row, ref in zip(out, (fam.loss(1.0, z), fam.gradient(1.0, z), fam.hessian(1.0, z))):
        np.testing.assert_allclose(row, U.scale * ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("t", [-5.0, -1.0, 0.25, 0.75, 0.9, 0.98, 0.995, 1.0 - 1e-6, 1.0 + 1e-6,
                               1.005, 1.02, 1.1, 1.5, 1.9])
@pytest.mark.parametrize("n", [60, 30_000])
def test_tempered_tables_compiled_passes_are_its_loss_gradient_and_curvature(t, n):
    """Any other t: the table start, NumPy's five transcendentals and one compiled Halley
    step (families/tempered_roots.py) give ``U.values``'s numbers to the bit, serial and
    split across the cores, near and past the link domain's end, for NaN and ±∞; and the
    family's loss, gradient and curvature (its own formulas) to 1e−12."""
    from ubreg.families.ulosses import as_u_loss
    from ubreg.fitters.boost.margin_values import values_into
    U = as_u_loss(ubreg.Permissible("tempered", t=t))
    fam = U.family
    assert fam.root_table() is not None
    hi = fam.link_domain[1]
    rng = np.random.default_rng(3)
    ends = [hi, -hi, np.nextafter(hi, 0), hi * (1 - 1e-9), -hi * (1 - 1e-15)] if np.isfinite(
        hi) else [1e250, -1e305]
    z = np.r_[ends, [0.0, -0.0, 1e-300, -1e3, 1e3, np.nan, np.inf, -np.inf],
              rng.normal(size=n) * 5, rng.standard_cauchy(size=n) * 50][:n]
    out = np.empty((3, z.size))
    values_into(U, z, out)
    for got, want in zip(out, U.values(z)):
        np.testing.assert_array_equal(got, want)
    ok = np.isfinite(z)
    zf = z[ok]
    for row, ref in zip(out, (fam.loss(1.0, zf), fam.gradient(1.0, zf), fam.hessian(1.0, zf))):
        np.testing.assert_allclose(row[ok], U.scale * ref, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", ["logistic", "exponential", "squared"])
def test_a_u_losses_tree_criterion_is_its_bayes_risk(name):
    """criterion_family's φ is minus the Bayes risk min_F p U(F) + (1 − p) U(−F) of the U,
    up to a constant factor (the same trees); a U without a closed form names none."""
    U = ubreg.U(name)
    p = np.linspace(0.05, 0.95, 19)
    F = np.log(p) - np.log1p(-p)                  # the minimiser (eq. 4.3: the log-odds)
    bayes = p * U.U(F) + (1 - p) * U.U(-F)
    ratio = bayes / -U.criterion_family.phi(p)
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-10)
    with pytest.raises(NotImplementedError, match="names no split criterion"):
        _ = U_alpha(0.3).criterion_family
