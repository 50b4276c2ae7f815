"""t-AdaBoost on separable data (docs/tempered.md §2.2, "A perfect weak hypothesis").

AdaBoost keeps a weak hypothesis that classifies every training row correctly and
stops; t-AdaBoost does the same, with the step that reaches the infimum of the
tempered loss (§2.3): for t < 1 the finite μ* at which every weight is forgotten,
for t ≥ 1 [J]'s stand-in μ r = 100 for the infinite step.  The §3.3 trees admit a
split that separates its node perfectly, so the obvious split is found.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.families import tempered_algebra as A
from ubreg.fitters.tboost.boost import tboost
from ubreg.fitters.tboost.learners import fit_tempered_tree

TE = ubreg.TemperedExponential


def _separable(n=200, seed=0, noise=True):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=n)
    d = pd.DataFrame({"x": x, "y": (x > 0.3).astype(int)})
    if noise:
        d["z"] = rng.normal(size=n)
    return d


@pytest.mark.parametrize("learner", ["trees", "udt", "stumps"])
@pytest.mark.parametrize("t", [-0.5, 0.0, 0.5, 1.0, 1.5])
def test_a_perfect_weak_hypothesis_is_kept_and_ends_boosting(learner, t):
    d = _separable()
    m = ubreg.fit("y ~ x + z", d, method="tboost", family=TE(t), learner=learner, rounds=10)
    for clipped in (False, True):
        cls = m.predict(d, type="class", clipped=clipped).to_numpy()
        assert np.array_equal(cls.astype(int), d["y"].to_numpy()), clipped
    assert m.rounds == 1
    assert "perfect weak hypothesis" in m.stopped
    assert "perfect weak hypothesis" in str(m.summary())


@pytest.mark.parametrize("learner", ["trees", "udt", "stumps"])
@pytest.mark.parametrize("t", [0.0, 0.5, 1.0])
def test_one_separating_predictor_fits(learner, t):
    # was the DataError "could not take a single round"
    d = _separable(40, noise=False)
    m = ubreg.fit("y ~ x", d, method="tboost", family=TE(t), learner=learner, rounds=3)
    assert np.array_equal(m.predict(d, type="class").to_numpy().astype(int), d["y"].to_numpy())


class _Sequence:
    """A weak learner handing out fixed hypotheses (values on the rows) in turn."""

    def __init__(self, *values):
        self.values = list(values)

    def __call__(self, q):
        h = self.values.pop(0)
        return object(), h


@pytest.mark.parametrize("t", [-1.0, 0.0, 0.3, 0.7])
@pytest.mark.parametrize("mu", ["closed", "exact"])
def test_below_one_the_step_reaches_zero_loss_and_every_margin_reaches_delta(t, mu):
    rng = np.random.default_rng(1)
    n = 30
    ystar = np.where(rng.uniform(size=n) > 0.4, 1.0, -1.0)
    first = np.where(rng.uniform(size=n) > 0.3, ystar, -ystar) * rng.uniform(0.5, 2, n)
    perfect = ystar * rng.uniform(0.2, 3.0, n)          # y h > 0 on every row, unequal
    fit = tboost(np.zeros((n, 1)), ystar, t, 5, _Sequence(first, perfect), mu=mu)
    assert len(fit.hypotheses) == 2
    assert "perfect weak hypothesis" in fit.stopped
    delta = 1.0 / (1.0 - t)
    # Z_2 = 0: every weight forgotten, the tempered loss (§2.3) is 0
    assert fit.Z[-1] == 0.0 and np.all(fit.weights == 0.0)
    np.testing.assert_allclose(fit.margin_clipped, delta, rtol=1e-12)
    # μ_2 is the smallest step with that property: one row sits exactly at δ
    H = fit.alpha[0] * first * ystar + fit.alpha[1] * perfect * ystar
    assert np.all(H >= delta * (1 - 1e-12))
    smaller = fit.alpha[0] * first * ystar + 0.999 * fit.alpha[1] * perfect * ystar
    loss = np.mean(A.exp_t(-np.minimum(smaller, delta), t) ** (2 - t))
    assert loss > 0


@pytest.mark.parametrize("t", [1.0, 1.5])
def test_from_one_the_step_is_the_capped_one_of_the_authors_code(t):
    rng = np.random.default_rng(2)
    n = 25
    ystar = np.where(rng.uniform(size=n) > 0.5, 1.0, -1.0)
    perfect = ystar * rng.uniform(0.2, 3.0, n)
    fit = tboost(np.zeros((n, 1)), ystar, t, 5, _Sequence(perfect))
    assert len(fit.hypotheses) == 1 and "perfect weak hypothesis" in fit.stopped
    assert fit.mu[0] * fit.r[0] == pytest.approx(100.0)
    assert np.all(np.isfinite(fit.weights))


def test_a_row_of_zero_margin_is_not_perfect():
    n = 10
    ystar = np.array([1.0, -1.0] * 5)
    h = ystar.copy()
    h[3] = 0.0
    fit = tboost(np.zeros((n, 1)), ystar, 0.5, 2, _Sequence(h, ystar))
    assert fit.stopped.startswith("perfect weak hypothesis") and len(fit.hypotheses) == 2


@pytest.mark.parametrize("t", [0.0, 1.0])
def test_the_tree_takes_a_split_that_separates_its_node(t):
    d = _separable(60, noise=False)
    X = d[["x"]].to_numpy()
    ystar = 2.0 * d["y"].to_numpy() - 1
    q = np.full(len(d), 1.0 / len(d))
    tree = fit_tempered_tree(X, ystar, q, t, max_size=5, rng=np.random.default_rng(0))
    lo = X[d["y"] == 0, 0].max()
    hi = X[d["y"] == 1, 0].min()
    assert tree.threshold[0] == pytest.approx(0.5 * (lo + hi))
    assert np.all(np.sign(tree.predict(X)) == ystar)


def test_forgotten_rows_count_and_a_hypothesis_wrong_everywhere_is_not_perfect():
    # a row forgotten by [J]'s t > 1 fallback (or at t < 1) that h misclassifies makes h
    # imperfect: a hypothesis perfect on a few live rows is not a perfect weak hypothesis
    from ubreg.fitters.tboost.boost import is_perfect
    q = np.array([0.5, 0.5, 0.0])
    w = np.ones(3)
    assert not is_perfect(q, np.array([1.0, 2.0, -1.0]), w)
    assert is_perfect(q, np.array([1.0, 2.0, 0.0]), w)
    assert not is_perfect(np.full(3, 0.5), -np.ones(3), w)
