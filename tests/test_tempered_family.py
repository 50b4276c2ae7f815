"""Property tests of the tempered family (docs/tempered.md §3, docs/math.md §2 and §7).

Parametrised over several temperatures t (bounded links for t < 1, a_φ > 0
for t > 1, t near 1) with the identities of docs/math.md §2: eq. 32, eq. 37,
properness, symmetry, F(0) = 1, finite differences, posterior∘link = id;
plus the special cases t = 0 (4 × Gini), t = 1 (2 × Matsushita), the limits
t → −∞ and t → 2, and numerics at |η| = 1e3 and p ∈ {0, 1}.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.families import FAMILIES, Gini, Matsushita, Permissible, Tempered

TS = [-3.0, -0.5, 0.0, 0.25, 0.5, 0.9, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.1, 1.5, 1.9]


@pytest.fixture(params=TS, ids=lambda t: f"t={t:.10g}")
def fam(request):
    return Tempered(request.param)


def naive_L(u, t):
    """L_t(u) = 2u(1 − u)/M_{1−t}(u, 1 − u), straight from docs/tempered.md §3.1."""
    s = 1.0 - t
    if abs(s) < 1e-6:       # the naive power mean loses digits here: use its limit
        M = np.sqrt(u * (1 - u))
    else:
        M = ((u ** s + (1 - u) ** s) / 2) ** (1 / s)
    return 2 * u * (1 - u) / M


def naive_partial(u, t):
    s = 1.0 - t
    M = np.sqrt(u * (1 - u)) if abs(s) < 1e-6 else ((u ** s + (1 - u) ** s) / 2) ** (1 / s)
    return ((1 - u) / M) ** (2 - t), (u / M) ** (2 - t)


def rtol_naive(t):
    return 1e-12 if abs(1 - t) >= 1e-6 else 1e-7


def inner_etas(fam):
    hi = fam.link_domain[1]
    if np.isfinite(hi):
        return hi * np.array([-0.9, -0.55, -0.2, 0.0, 0.1, 0.45, 0.85])
    return np.array([-6.0, -2.0, -0.7, 0.0, 0.3, 1.5, 5.0])


U = np.array([0.01, 0.1, 0.3, 0.5, 0.62, 0.9, 0.999])


# --------------------------------------------------------------------------- registry
def test_registered_and_factory():
    assert FAMILIES["tempered"] is Tempered
    fam = Permissible("tempered", t=0.25)
    assert isinstance(fam, Tempered) and fam.t == 0.25
    assert eval(repr(fam), {"Permissible": Permissible}) == fam
    clone = pickle.loads(pickle.dumps(fam))
    np.testing.assert_array_equal(clone.posterior(inner_etas(fam)), fam.posterior(inner_etas(fam)))


@pytest.mark.parametrize("bad", [2.0, 2.5, np.inf, -np.inf, np.nan, "x"])
def test_bad_t_raises(bad):
    with pytest.raises(ValueError, match="t"):
        Tempered(bad)


# --------------------------------------------------------------------------- generator
def test_phi_is_minus_the_bayes_risk(fam):
    """φ = −L_t on (0, 1) (docs/tempered.md §3.1), and L = uℓ₁ + (1 − u)ℓ₋₁."""
    tol = rtol_naive(fam.t)
    np.testing.assert_allclose(-fam.phi(U), naive_L(U, fam.t), rtol=tol)
    l1, lm1 = naive_partial(U, fam.t)
    np.testing.assert_allclose(U * l1 + (1 - U) * lm1, naive_L(U, fam.t), rtol=tol)
    got1, gotm1 = fam.partial_losses(U)
    np.testing.assert_allclose(got1, l1, rtol=tol)
    np.testing.assert_allclose(gotm1, lm1, rtol=tol)


def test_constants(fam):
    """φ(0) = φ(1) = −a_φ, b_φ = −φ(½) − a_φ; a = 0, b = L_t(½) = 1 for t ≤ 1;
    a = L_t(0⁺) = 2^{−(2−t)/(t−1)} for t > 1 (φ continuous at the ends)."""
    assert float(fam.phi(0.0)) == float(fam.phi(1.0)) == -fam.a
    assert fam.b == pytest.approx(-float(fam.phi(0.5)) - fam.a, rel=1e-14)
    if fam.t <= 1.0 + 1e-12:
        assert fam.a == 0.0 and fam.b == pytest.approx(1.0, rel=1e-15)
    else:
        assert fam.a == pytest.approx(2.0 ** (-(2 - fam.t) / (fam.t - 1)), rel=1e-14)
        assert -float(fam.phi(1e-300)) == pytest.approx(fam.a, abs=1e-6)   # continuity


def test_link_is_the_canonical_link(fam):
    """∇φ = η_t = ℓ₋₁ − ℓ₁ = (p^{2−t} − (1−p)^{2−t})/M_{1−t}^{2−t} (docs/tempered.md §3.2)."""
    l1, lm1 = naive_partial(U, fam.t)
    np.testing.assert_allclose(fam.dphi(U), lm1 - l1, rtol=10 * rtol_naive(fam.t), atol=1e-15)


# ------------------------------------------------------------------- docs/math.md §2 identities
# Symmetry, convexity, the derivatives, F(0) = 1, eq. (32), the Legendre conjugate and
# properness are the registry's suite (tests/test_families.py, t = 0.25, 0.75, 1.5, 1.9);
# here: what is the tempered family's own, over the whole grid of t.
def test_eq37_bregman_is_the_loss(fam):
    H = fam.dphi(U)           # links whose posterior is not rounded to 0 or 1
    p = fam.posterior(H)
    for y in (0.0, 1.0):
        np.testing.assert_allclose(fam.loss(y, H), fam.D(y, p), rtol=1e-9, atol=1e-13)
        # and the loss is the tempered partial loss, shifted by a_φ
        l1, lm1 = fam.partial_losses(p)
        np.testing.assert_allclose(fam.loss(y, H), (l1 if y else lm1) - fam.a, rtol=1e-9,
                                   atol=1e-13)


P_GRID = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.2, 0.4, 0.5, 0.6, 0.8, 0.95,
                   1 - 1e-3, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])


def test_posterior_of_link_is_identity(fam):
    p, q = fam.posterior_pair(fam.dphi(P_GRID))
    small = np.minimum(P_GRID, 1 - P_GRID)
    got_small = np.where(P_GRID <= 0.5, p, q)
    if np.isfinite(fam.link_domain[1]):
        # a bounded link is ill-conditioned near its ends: absolute accuracy;
        # for t < 0, η + 2^{c/s} ∝ x^s there, so x is resolved to ~ε^{1/s} only
        s = 1.0 - fam.t
        atol = max(1e-12, 4 * np.finfo(float).eps ** (1 / s)) if s > 1 else 1e-12
        np.testing.assert_allclose(got_small, small, rtol=0, atol=atol)
    else:
        np.testing.assert_allclose(got_small, small, rtol=1e-10)
    np.testing.assert_allclose(p, P_GRID, rtol=1e-12, atol=max(1e-12, atol if np.isfinite(
        fam.link_domain[1]) else 0))
    eta = np.linspace(-5, 5, 41)
    eta = eta[np.abs(eta) < 0.99 * fam.link_domain[1]]
    np.testing.assert_allclose(fam.dphi(fam.posterior(eta)), eta, rtol=1e-9, atol=1e-10)


def test_extremes_are_finite_and_silent(fam):
    """|η| = 1e3 (and 1e300 for unbounded links), p ∈ {0, 1}."""
    eta = np.array([-1e300, -1e3, -50.0, 0.0, 50.0, 1e3, 1e300])
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        p, q = fam.posterior_pair(eta)
        outs = [p, q, fam.F(eta), fam.hessian_eta(eta), fam.score_variance(eta),
                fam.phi(np.array([0.0, 1.0]))]
        d2_end = fam.d2phi(np.array([0.0, 1e-300, 0.5, 1.0]))
        for y in (0.0, 1.0):
            outs += [fam.loss(y, eta), fam.gradient(y, eta)]
        ends = fam.dphi(np.array([0.0, 1.0]))
    for out in outs:
        assert np.all(np.isfinite(out))
    # φ'' at the ends: +∞ (overflow) for t ≥ 1, 0 (underflow) for t < 0
    assert np.all(d2_end >= 0) and d2_end[2] > 0
    assert p[-1] == 1.0 and q[0] == 1.0 and p[0] == 0.0
    np.testing.assert_allclose(ends, fam.link_domain, rtol=1e-12)
    assert np.all(fam.loss(1.0, eta) >= 0) and np.all(fam.loss(0.0, eta) >= 0)
    # a certain, correct prediction costs nothing; a certain wrong one costs |η|
    assert float(fam.loss(1.0, 1e300)) == 0.0
    assert float(fam.loss(1.0, -1e300)) == pytest.approx(1e300, rel=1e-12)


# --------------------------------------------------------------------------- special t
def test_t0_is_four_gini():
    """L_0 = 4u(1 − u): φ_0 = 4 φ_gini, η_0 = 4 η_gini; inside the link
    domain the loss is 4 × gini's at η/4 (docs/tempered.md §3.1 table)."""
    fam, gini = Tempered(0.0), Gini()
    x = np.linspace(0, 1, 17)
    np.testing.assert_array_equal(fam.phi(x), 4 * gini.phi(x))
    np.testing.assert_allclose(fam.dphi(x), 4 * gini.dphi(x), rtol=1e-15)
    assert fam.link_domain == (-4.0, 4.0)
    v = np.linspace(-3.9, 3.9, 11)
    np.testing.assert_allclose(fam.posterior(v), gini.posterior(v / 4), rtol=1e-15)
    for y in (0.0, 1.0):
        np.testing.assert_allclose(fam.loss(y, v), 4 * gini.loss(y, v / 4), rtol=1e-12)


def test_t1_is_two_matsushita():
    fam, mats = Tempered(1.0), Matsushita()
    x = np.r_[0, np.logspace(-12, -1, 12), np.linspace(0.2, 1, 9)]
    np.testing.assert_array_equal(fam.phi(x), 2 * mats.phi(x))
    np.testing.assert_allclose(fam.dphi(x[1:-1]), 2 * mats.dphi(x[1:-1]), rtol=1e-14)
    v = np.r_[-1e3, np.linspace(-20, 20, 21), 1e3]
    for a, b in zip(fam.posterior_pair(v), mats.posterior_pair(v / 2)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    for y in (0.0, 1.0):
        np.testing.assert_allclose(fam.loss(y, v), 2 * mats.loss(y, v / 2), rtol=1e-12)


def test_near_one_is_stable():
    """t = 1 ± 1e−9 agrees with t = 1 to ~1e−8; |1 − t| < 1e−12 is t = 1 exactly."""
    ref = Tempered(1.0)
    v = np.r_[-1e3, np.linspace(-30, 30, 13), 1e3]
    # (at x = 1e−200 the true gap is s·ζ²/8 ≈ 3e−5: a real effect, not rounding)
    x = np.r_[1e-12, np.linspace(0.01, 0.99, 9)]
    for t in (1 - 1e-9, 1 + 1e-9):
        fam = Tempered(t)
        tol = 1e-6
        np.testing.assert_allclose(fam.posterior(v), ref.posterior(v), rtol=tol)
        np.testing.assert_allclose(fam.phi(x), ref.phi(x), rtol=tol)
        np.testing.assert_allclose(fam.loss(1.0, v), ref.loss(1.0, v), rtol=tol)
    exact = Tempered(1 + 1e-13)
    np.testing.assert_array_equal(exact.posterior(v), ref.posterior(v))
    np.testing.assert_array_equal(exact.phi(x), ref.phi(x))


def test_limit_t_to_minus_infinity():
    """L_t → 2 min(u, 1 − u) as t → −∞ (twice the 0/1 Bayes risk, docs/tempered.md §3.1)."""
    u = np.linspace(0.01, 0.99, 25)
    err = [np.max(np.abs(-Tempered(t).phi(u) - 2 * np.minimum(u, 1 - u)))
           for t in (-10, -100, -1e4)]
    assert err[0] > err[1] > err[2] and err[2] < 2e-4


def test_limit_t_to_two():
    """L_t → 1 on (0, 1) as t → 2 (proper, not strictly)."""
    u = np.linspace(0.01, 0.99, 25)
    err = [np.max(np.abs(-Tempered(t).phi(u) - 1)) for t in (1.9, 1.99, 2 - 1e-6)]
    assert err[0] > err[1] > err[2] and err[2] < 1e-5


# --------------------------------------------------------------------------- trees
def _tree_signature(result):
    frame = result.tree.frame() if hasattr(result.tree, "frame") else result.frame()
    return frame


@pytest.mark.slow
@pytest.mark.parametrize("t, other", [(0.0, "gini"), (1.0, "matsushita")])
def test_udt_trees_identical(t, other):
    """The UDT criterion Σ w(−φ(p))/b_φ of tempered t = 0 (t = 1) is Gini's
    (Matsushita's): same splits, same leaf posteriors."""
    data = ubreg.datasets.load_pima().dropna()
    formula = "diabetes ~ glucose + mass + age + pressure"
    a = ubreg.fit(formula, data, family=Permissible("tempered", t=t), method="udt", cp=0.0)
    b = ubreg.fit(formula, data, family=Permissible(other), method="udt", cp=0.0)
    fa, fb = a.frame, b.frame
    assert len(fa) > 5
    cols = [c for c in fa.columns if c in ("var", "variable", "split", "n", "leaf", "threshold")]
    pd.testing.assert_frame_equal(fa[cols], fb[cols])
    np.testing.assert_allclose(a.predict(data, type="response"), b.predict(data, type="response"),
                               rtol=1e-12)


# --------------------------------------------------------------------------- t < 0, linear fits
def _saturating_data(t, n=200, seed=1):
    fam = Permissible("tempered", t=t)
    rng = np.random.default_rng(seed)
    hi = fam.link_domain[1]
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    y = (rng.random(n) < fam.posterior(0.6 * hi * (0.2 + x1))).astype(int)
    return fam, pd.DataFrame({"y": y, "x1": x1, "x2": x2})


@pytest.mark.slow
@pytest.mark.parametrize("t", [-0.5, -1.0, -3.0])
def test_negative_t_linear_fit_converges_with_positive_standard_errors(t):
    """t < 0: the posterior reaches 0 and 1 at finite η with an unbounded curvature on
    the way; saturated rows have none (they used to carry the capped boundary curvature,
    1e299, which froze the fit and printed standard errors of 0 with p < 2e-16)."""
    fam, data = _saturating_data(t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # at t = -3 the curvature sits in ~5 rows: said, not an error of the fit
        warnings.simplefilter("ignore", ubreg.errors.InferenceWarning)
        m = ubreg.fit("y ~ x1 + x2", data, family=fam)
    assert m.converged and m.fit_info.max_edge <= 1e-10
    assert (m.concentration_note() is not None) == (m.hessian_effective_rows < 30)
    assert np.all(np.isfinite(m.bse)) and np.all(m.bse > 0)
    assert np.all(m.bse / np.abs(m.coef).max() > 1e-3)      # not a degenerate near-zero SE
    text = str(m.summary())
    assert "NOT converged" not in text and "rows saturated" in text


def test_a_fit_that_cannot_converge_says_so():
    fam, data = _saturating_data(-1.0)
    with pytest.warns(ubreg.errors.ConvergenceWarning, match="did not converge"):
        m = ubreg.fit("y ~ x1 + x2", data, family=fam, maxiter=1)
    assert not m.converged
    text = str(m.summary())
    assert "NOT converged" in text and "The fit did not converge in 1 iterations" in text


# --------------------------------------------------------------------------- the inverse link
@pytest.mark.parametrize("t", [-5.0, -1.0, 0.0, 0.25, 0.5, 0.75, 0.9, 1.0 - 1e-6, 1.0 + 1e-6,
                               1.1, 1.5, 1.9])
def test_inverse_link_to_machine_precision(t):
    """∇φ(∇φ⁻¹(η)) = η over η ∈ [−1e3, 0] on the small side, where the posterior keeps its
    digits, to 1e−14 relative plus a few ulps of ½ (|η| ≲ 1e−2 cannot do better: p = ½ + η/φ''(½)
    is rounded to ε/4); η > 0 by symmetry (1 − p(η) = p(−η), p rounds near 1); silent."""
    fam = Tempered(t)
    eta = np.r_[-np.logspace(-12, 3, 4000), 0.0]
    eta = eta[eta > fam.link_domain[0]]
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        back = fam.dphi(fam.dphi_inv(eta))
        p, q = fam.posterior_pair(-eta)
    d2_half = 1.0 / float(fam.hessian_eta(np.array([0.0]))[0])
    floor = 4 * np.finfo(float).eps * d2_half
    assert np.all(np.abs(back - eta) <= 1e-14 * np.abs(eta) + floor)
    np.testing.assert_array_equal(q, fam.dphi_inv(eta))
    np.testing.assert_array_equal(p, 1.0 - q)


def test_half_root_within_two_ulps():
    """t = ½: the root of w³ − (2 − w)³ = η (two Halley steps) against 50-digit Newton, from
    the domain's end (η = −8, w = 0) to η = 0 (w = 1)."""
    from decimal import Decimal, getcontext

    from ubreg.families.tempered import half_root
    getcontext().prec = 50

    def ref(tv):
        d = (Decimal(tv) + 8) / 2
        a = d / 4
        for _ in range(200):
            g = ((a - 3) * a + 6) * a - d
            a_next = a - g / (3 * ((a - 2) * a + 2))
            if a_next == a:
                break
            a = a_next
        return a

    tv = np.r_[-8 + np.logspace(-15, 0.9, 150), -np.logspace(-20, 0.9, 150), -8.0, 0.0]
    got = half_root(tv)
    for g, v in zip(got, tv):
        r = ref(float(v))
        assert abs(Decimal(float(g)) - r) <= 2 * Decimal(float(np.finfo(float).eps)) * r
    below, nan = half_root(np.array([-9.0, np.nan]))
    assert below == 0.0 and np.isnan(nan)


@pytest.mark.parametrize("t", [-5.0, -1.0, 0.25, 0.75, 0.9, 0.995, 0.9999, 1.0 - 1e-6,
                               1.0 + 1e-6, 1.0001, 1.005, 1.02, 1.1, 1.5, 1.9])
def test_table_posterior_against_fifty_digits(t):
    """Any t with a root table (docs/tempered.md §3.2): the small posterior against a
    50-digit root of w^k − (2 − w)^k = η (its bisection in ρ = |s ζ|), to 1e−14 relative
    where the problem allows it: for t < 1 up to η = −2^k/2 (nearer the bounded end, x is
    resolved only to the rounding of η + 2^k), for t > 1 (and t < 1 with no bounded end in
    the doubles) to η = −1e200: relative error up to 4ε + ε/|s| (t < 1; the bracketed
    search it replaced: 23ε at t = 0.9, this 9ε) or 4ε + ε|d ln x/d ln η| = 4ε + ε/(|s||k|)
    (t > 1; 90 at t = 1.9), plus |ln x| ε: the posterior is e^ζ/(1 + e^ζ) of a log-odds ζ
    known to its last bit, as in the search.  A wide table (|1 − t| < 1/99) forms T from
    e^{∓Kℓ}, whose exponent carries ε K|ℓ| ≤ ε|ζ|; the conditioning |d ln x/d ln η| (up to
    ~10 on the small side of t < 1) multiplies it: twice the bound (measured: 1.7 × at
    t = 0.995).  Posteriors below 1e−307 (Kρ past 700, or 709 for a wide table) are 0."""
    from decimal import Decimal, getcontext
    getcontext().prec = 50
    getcontext().Emax, getcontext().Emin = 10 ** 15, -10 ** 15     # (w/2)^k at k = ±1e6
    fam = Tempered(t)
    assert fam.root_table() is not None
    s, c = 1 - Decimal(t), 2 - Decimal(t)
    k, p = c / s, 1 / abs(s)

    def eta(rho):
        a = 2 / (1 + rho.exp())
        return (a ** k - (2 - a) ** k) if s > 0 else ((2 - a) ** k - a ** k)

    def ref(tv):
        lo, hi = Decimal(0), Decimal(800)
        for _ in range(200):
            mid = (lo + hi) / 2
            if eta(mid) < Decimal(tv):
                hi = mid
            else:
                lo = mid
        return 1 / (1 + (p * (lo + hi) / 2).exp())

    hi = fam.link_domain[1]
    top = 0.5 * hi if fam.t < 1 and np.isfinite(hi) else 1e200
    tv = -np.logspace(-12, np.log10(top), 40)
    got = fam.dphi_inv(tv)
    cond = 4.0 + float(p if fam.t < 1 else p / abs(k))
    wide = 2.0 if fam.root_table().wide else 1.0
    for g, v in zip(got, tv):
        r = ref(float(v))
        if r < Decimal("1e-307"):               # flushed to 0 (or subnormal: fewer digits)
            assert abs(Decimal(float(g)) - r) <= Decimal("1e-307"), (v, g, r)
            continue
        tol = cond + abs(float(r.ln()))        # x = e^ζ: ζ is a double (|ζ| ε relative)
        assert abs(Decimal(float(g)) - r) <= Decimal(wide * tol * 2.3e-16) * r, (v, g, r)


def test_near_one_and_closed_forms_keep_their_solvers():
    """t ∈ {0, ½, 1} keep their closed forms (no table); every other t has a table, wide
    where |k| > 100 (|1 − t| < 1/99)."""
    for t in (0.0, 0.5, 1.0, 1.0 + 1e-13):
        assert Tempered(t).root_table() is None
    for t, wide in ((0.98, False), (1.02, False), (-100.0, False), (1.999, False),
                    (0.995, True), (1.005, True), (1.0 - 1e-6, True), (1.0 + 1e-9, True)):
        assert Tempered(t).root_table().wide is wide
