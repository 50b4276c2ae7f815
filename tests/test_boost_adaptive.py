"""Adaptive choice of the loss out of a bag (paper 000 §7): strategies F*, F., E."""
import numpy as np
import pandas as pd
import pytest

import ubreg

P = ubreg.Permissible


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 200
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - X[:, 1] * X[:, 2] + 0.8 * rng.normal(size=n) > 0).astype(int)
    d = pd.DataFrame(X, columns=["a", "b", "c"])
    d["y"] = y
    return d


BAG = [P("gini"), P("mu", mu=0.5), P("matsushita"), P("entropy")]
F = "y ~ a + b + c"


def _single(data, fam, rounds):
    return ubreg.fit(F, data, family=fam, method="uls", learner="rules", literals=2,
                     rounds=rounds)


def test_fstar_keeps_the_family_of_least_training_risk(data):
    m = ubreg.fit(F, data, family=BAG, method="uls", learner="rules", literals=2, rounds=6,
                  strategy="F*")
    risks = [_single(data, f, 6).risk_path.iloc[-1] for f in BAG]
    assert m.family == BAG[int(np.argmin(risks))]
    np.testing.assert_allclose(sorted(m.fit_info.candidates.values()), sorted(risks))
    np.testing.assert_allclose(m.eta, _single(data, m.family, 6).eta)
    assert "F*" in str(m.summary())


def test_fstar_inner_cv_is_seeded(data):
    kw = dict(family=BAG, method="uls", learner="stumps", rounds=4, strategy="F*",
              select="cv", inner_folds=3)
    a = ubreg.fit(F, data, seed=5, **kw)
    b = ubreg.fit(F, data, seed=5, **kw)
    assert a.family == b.family and a.fit_info.candidates == b.fit_info.candidates
    assert all(0 <= v <= 1 for v in a.fit_info.candidates.values())   # CV error rates


def test_first_round_choices(data):
    # from H = 0 every family sees the same start: F. picks the least risk after
    # one step, E. the largest edge, among the single-family first rounds
    singles = [_single(data, f, 1) for f in BAG]
    f_dot = ubreg.fit(F, data, family=BAG, method="uls", learner="rules", literals=2,
                      rounds=1, strategy="F.")
    e_dot = ubreg.fit(F, data, family=BAG, method="uls", learner="rules", literals=2,
                      rounds=1, strategy="E.")
    risk = [s.risk_path.iloc[-1] for s in singles]
    edge = [s.edge_path.iloc[-1] for s in singles]
    assert f_dot.family_path[0] == BAG[int(np.argmin(risk))]
    assert e_dot.family_path[0] == BAG[int(np.argmax(edge))]


def test_per_round_families_reported_and_gini_renormalised(data):
    m = ubreg.fit(F, data, family=[P("gini"), P("entropy")], method="uls", learner="stumps",
                  rounds=12, strategy="F.")
    assert len(m.family_path) == m.rounds
    text = str(m.summary())
    assert "Family per round" in text and "F." in text
    assert m.family == m.family_path[-1]
    if m.family_path[-1] == P("gini"):
        assert np.max(np.abs(m.eta)) <= 1 + 1e-12
    # staged predictions read round r with the family of round r
    st = m.staged_predict(data.iloc[:5], type="response")
    r = int(np.argmax([f == P("gini") for f in m.family_path])) + 1
    link = m.staged_predict(data.iloc[:5], type="link")[r].to_numpy()
    np.testing.assert_allclose(st[r].to_numpy(), m.family_path[r - 1].posterior(link))


def test_bag_of_one_equals_the_single_family(data):
    for strategy in ("F.", "E."):
        m = ubreg.fit(F, data, family=[P("matsushita")], method="uls", learner="stumps",
                      rounds=5, strategy=strategy)
        np.testing.assert_allclose(m.eta, ubreg.fit(F, data, family="matsushita", method="uls",
                                                    learner="stumps", rounds=5).eta)


def test_bad_strategy(data):
    with pytest.raises(ValueError, match="strategy"):
        ubreg.fit(F, data, family=BAG, method="uls", learner="stumps", rounds=2, strategy="G")
    with pytest.raises(ValueError, match="select"):
        ubreg.fit(F, data, family=BAG, method="uls", learner="stumps", rounds=2, strategy="F*",
                  select="test")
