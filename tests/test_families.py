"""Property tests of every family (docs/math.md §2-3, paper 000 eq. 26-37, 107, Table 2).

One registry parametrises the tests: every entry of ``ubreg.families.FAMILIES``
(with several parameter values where it has parameters), custom families
rebuilt from known φ, and — for the link-scale tests — AdaBoost's exponential
loss.  A family added to FAMILIES is tested automatically with its defaults.

High-precision references use the standard library's ``decimal`` (50 digits),
so the tests need no extra package.
"""
from __future__ import annotations

import contextlib
import math
import pickle
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import expit, xlogy

import ubreg
from ubreg.families import (
    ALIASES,
    FAMILIES,
    CustomPermissible,
    Entropy,
    Entropy2,
    Exponential,
    Gini,
    LogCosh,
    Matsushita,
    Mu,
    Permissible,
    PermissibleFamily,
    Power,
)

# ---------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------
#: parameter values tried for the families that have parameters
PARAMS = {
    "mu": [{"mu": 0.2}, {"mu": 0.7}],
    "power": [{"v": 0.2}, {"v": 0.5}, {"v": 0.9}],
    "logcosh": [{"zeta": -1.0}, {"zeta": -4.0}, {"zeta": -12.0}],
    "tempered": [{"t": 0.25}, {"t": 0.75}, {"t": 1.5}, {"t": 1.9}],
}


# module-level φ so that the custom families can be pickled
def matsushita_phi(x):
    return -np.sqrt(x * (1.0 - x))


def matsushita_phi_no_complex(x):
    # np.abs defeats the complex step: derivatives come from finite differences
    return -np.sqrt(np.abs(x * (1.0 - x)))


def gini_phi(x):
    return -x * (1.0 - x)


def entropy_phi(x):
    return xlogy(x, x) + xlogy(1.0 - x, 1.0 - x)


def mu_phi(x):
    return -(0.3 + 0.7 * np.sqrt(x * (1.0 - x)))


CUSTOM = {
    "custom-matsushita": lambda: CustomPermissible(matsushita_phi, name="custom-matsushita"),
    "custom-matsushita-differences":
        lambda: CustomPermissible(matsushita_phi_no_complex, name="custom-matsushita-differences"),
    "custom-gini": lambda: CustomPermissible(gini_phi, name="custom-gini"),
    "custom-entropy": lambda: CustomPermissible(entropy_phi, name="custom-entropy"),
    "custom-mu": lambda: CustomPermissible(mu_phi, name="custom-mu"),
}


def _registry():
    out = []
    for name, cls in FAMILIES.items():
        for params in PARAMS.get(name, [{}]):
            label = name + "".join(f"({k}={v:g})" for k, v in params.items())
            out.append(pytest.param(lambda cls=cls, params=params: cls(**params), id=label))
    out += [pytest.param(make, id=label) for label, make in CUSTOM.items()]
    return out


PERMISSIBLE = _registry()
#: the losses of the boosting methods, families of the same protocol: U-Boost's U-losses
#: (paper 003 §4.2) and t-AdaBoost's tempered exponential loss (paper 004)
BOOSTING_LOSSES = [pytest.param(lambda name=name: ubreg.U(name), id=f"U-{name}")
                   for name in ("logistic", "exponential", "squared")] + [
    pytest.param(lambda: ubreg.U_alpha(0.4), id="U_alpha(0.4)"),
    pytest.param(lambda: ubreg.U_custom(lambda z: -expit(-z), lambda z: expit(z) * expit(-z)),
                 id="U_custom(logistic)")] + [
    # t > 1 is left out: its loss is +∞ past a pole at |H| = 1/(t − 1)
    pytest.param(lambda t=t: ubreg.TemperedExponential(t), id=f"tempered-exponential(t={t:g})")
    for t in (0.0, 0.5, 1.0)]
#: R's binomial likelihood with a non-canonical link (ubreg.families.links): a Family whose
#: hessian is the expected curvature (Fisher scoring's weight)
LINK_LOSSES = [pytest.param(lambda link=link: ubreg.binomial(link), id=f"binomial({link})")
               for link in ("probit", "cloglog", "cauchit")]
ALL_LOSSES = (PERMISSIBLE + [pytest.param(Exponential, id="exponential")] + BOOSTING_LOSSES
              + LINK_LOSSES)
#: the families whose loss saturates past a bounded link domain
SATURATING = [p for p in PERMISSIBLE
              if np.isfinite(p.values[0]().link_domain[1])
              and not p.values[0]().extends_past_domain]


@pytest.fixture(params=PERMISSIBLE)
def fam(request):
    return request.param()


@pytest.fixture(params=ALL_LOSSES)
def any_family(request):
    return request.param()


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _bounded(family):
    lo, hi = getattr(family, "link_domain", (-np.inf, np.inf))
    return np.isfinite(lo) or np.isfinite(hi)


def inner_etas(family):
    """Link values well inside the link domain (where the loss is smooth)."""
    if _bounded(family):
        hi = family.link_domain[1]
        return hi * np.array([-0.9, -0.55, -0.2, 0.0, 0.1, 0.45, 0.85])
    return np.array([-6.0, -2.0, -0.7, 0.0, 0.3, 1.5, 5.0])


def numeric_conjugate(family, u):
    """φ*(u) = max over x in [0, 1] of u x − φ(x), maximised numerically."""
    res = minimize_scalar(lambda x: float(family.phi(x)) - u * x, bounds=(0.0, 1.0),
                          method="bounded", options={"xatol": 1e-13})
    candidates = [-res.fun, -float(family.phi(0.0)), u - float(family.phi(1.0))]
    return max(candidates)


@contextlib.contextmanager
def no_warnings():
    """Warnings are errors, floating-point faults raise.  Underflow to 0 is
    allowed: it is the correctly rounded value of, e.g., exp(−1000), and numpy
    does not report it by default."""
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        yield


def test_registry_covers_every_family():
    ids = [p.id for p in PERMISSIBLE]
    for name in FAMILIES:
        assert any(i == name or i.startswith(name + "(") for i in ids), name
    assert set(PARAMS) <= set(FAMILIES)


# ---------------------------------------------------------------------------
# docs/math.md §2: the generator
# ---------------------------------------------------------------------------
def test_generator_constants(fam):
    """φ(0) = φ(1) = −a_φ ≤ 0 and b_φ = −φ(½) − a_φ > 0."""
    phi0, phi_half, phi1 = (float(fam.phi(x)) for x in (0.0, 0.5, 1.0))
    assert phi0 == pytest.approx(-fam.a, abs=1e-14)
    assert phi1 == pytest.approx(-fam.a, abs=1e-14)
    assert fam.a >= 0.0
    assert fam.b > 0.0
    assert fam.b == pytest.approx(-phi_half - fam.a, rel=1e-13)


def test_symmetry(fam):
    """φ(x) = φ(1 − x), ∇φ(x) = −∇φ(1 − x), φ''(x) = φ''(1 − x)."""
    x = np.r_[np.arange(1, 64) / 128.0, 2.0 ** -np.arange(8, 40, 4)]   # 1 − x exact
    np.testing.assert_allclose(fam.phi(x), fam.phi(1.0 - x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fam.dphi(x), -fam.dphi(1.0 - x), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(fam.d2phi(x), fam.d2phi(1.0 - x), rtol=1e-7)
    assert float(fam.dphi(0.5)) == pytest.approx(0.0, abs=1e-12)


def test_convex_and_monotone_link(fam):
    """φ'' > 0 on (0, 1), so the link ∇φ is increasing."""
    x = np.r_[1e-9, 1e-5, np.linspace(0.01, 0.99, 99), 1 - 1e-5]
    assert np.all(fam.d2phi(x) > 0)
    assert np.all(np.diff(fam.dphi(x)) > 0)


def test_F_at_zero_is_one(fam):
    """F_φ(0) = 1 (paper 000, after eq. 33)."""
    assert float(fam.F(0.0)) == pytest.approx(1.0, rel=1e-14)


def test_conjugate_symmetry_eq32(fam):
    """φ*(u) = φ*(−u) + u, eq. (32), inside and (if bounded) past the link domain."""
    u = np.r_[inner_etas(fam), -3.0, -1.2, 1.3, 3.0]
    np.testing.assert_allclose(fam.conjugate(u), fam.conjugate(-u) + u, rtol=1e-12, atol=1e-13)


def test_bregman_divergence_is_the_loss_eq37(fam):
    """D_φ(y‖∇φ⁻¹(H)) = b_φ F_φ(y*H), eq. (37), for y in {0, 1}."""
    H = inner_etas(fam)
    p = fam.posterior(H)
    for y in (0.0, 1.0):
        d = fam.D(y, p)
        np.testing.assert_allclose(fam.loss(y, H), d, rtol=1e-9, atol=1e-13)
        np.testing.assert_allclose(fam.b * fam.F((2 * y - 1) * H), d, rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("eta_true", [0.1, 0.35, 0.5, 0.8])
def test_proper_scoring(fam, eta_true):
    """argmin_q η D_φ(1‖q) + (1 − η) D_φ(0‖q) = η (docs/math.md §2)."""
    def risk(q):
        return float(eta_true * fam.D(1.0, q) + (1 - eta_true) * fam.D(0.0, q))
    res = minimize_scalar(risk, bounds=(1e-6, 1 - 1e-6), method="bounded",
                          options={"xatol": 1e-11})
    assert res.x == pytest.approx(eta_true, abs=1e-6)


# ---------------------------------------------------------------------------
# Table 2: F_φ in closed form, and F_φ as a Legendre conjugate
# ---------------------------------------------------------------------------
TABLE2 = [
    pytest.param(Gini, lambda z: (1 - z) ** 2, (-1.0, 1.0), id="gini"),
    pytest.param(Entropy, lambda z: np.log1p(np.exp(-z)) / np.log(2), (-8, 8), id="entropy"),
    pytest.param(Entropy2, lambda z: np.log2(1 + 2.0 ** -z), (-8, 8), id="entropy2"),
    pytest.param(Matsushita, lambda z: -z + np.sqrt(1 + z * z), (-8, 8), id="matsushita"),
    pytest.param(lambda: Mu(0.2), lambda z: (-z + np.sqrt(0.64 + z * z)) / 0.8, (-8, 8),
                 id="mu(0.2)"),
    pytest.param(lambda: Mu(0.7), lambda z: (-z + np.sqrt(0.09 + z * z)) / 0.3, (-8, 8),
                 id="mu(0.7)"),
]


@pytest.mark.parametrize("make, closed, zrange", TABLE2)
def test_table2_closed_form_of_F(make, closed, zrange):
    """F_φ matches Table 2 and the numerically maximised Legendre conjugate."""
    family = make()
    z = np.linspace(*zrange, 13)
    np.testing.assert_allclose(family.F(z), closed(z), rtol=1e-12, atol=1e-15)
    numeric = [(numeric_conjugate(family, -zi) - family.a) / family.b for zi in z]
    np.testing.assert_allclose(closed(z), numeric, rtol=1e-8, atol=1e-9)


def test_F_is_the_legendre_conjugate(fam):
    """F_φ(z) = (φ*(−z) − a_φ)/b_φ, eq. (30), with φ* maximised numerically over
    [0, 1] — including past a bounded link domain, where F is 0 above and
    −z/b_φ below (the conjugate of φ restricted to [0, 1])."""
    if fam.extends_past_domain:           # gini: the square loss continues, not the conjugate
        z = np.linspace(-1.0, 1.0, 9)
    elif _bounded(fam):
        hi = fam.link_domain[1]
        z = np.r_[hi * np.linspace(-0.98, 0.98, 9), -3 * hi, -1.01 * hi, 1.01 * hi, 3 * hi]
    else:
        z = np.linspace(-5.0, 5.0, 11)
    numeric = np.array([(numeric_conjugate(fam, -zi) - fam.a) / fam.b for zi in z])
    np.testing.assert_allclose(fam.F(z), numeric, rtol=1e-8, atol=1e-9)


def test_saturating_families_are_in_the_registry():
    ids = {p.id for p in SATURATING}
    assert {"logcosh(zeta=-4)", "custom-gini"} <= ids


@pytest.mark.parametrize("make", SATURATING)
def test_bounded_domain_saturates(make):
    """Past a bounded link domain the posterior is 0 or 1 and the loss affine:
    F = 0 above the domain, −z/b_φ below it (base.F, eq. 30)."""
    fam = make()
    lo, hi = fam.link_domain
    z = np.array([1.0001 * hi, 2.0 * hi, 50.0 * hi])
    np.testing.assert_array_equal(fam.posterior(z), 1.0)
    np.testing.assert_array_equal(fam.posterior(-z), 0.0)
    np.testing.assert_array_equal(fam.F(z), 0.0)
    np.testing.assert_allclose(fam.F(-z), z / fam.b, rtol=1e-14)
    # continuous at the edges of the domain
    assert float(fam.F(hi)) == pytest.approx(0.0, abs=1e-12)
    assert float(fam.F(lo)) == pytest.approx(-lo / fam.b, rel=1e-9)
    # saturated rows: posterior exactly 0 or 1, the loss affine, no curvature
    assert fam.saturated(np.r_[z, -z]).all() and not fam.saturated(np.r_[0.5 * hi, hi, lo]).any()
    # at the ends themselves the curvature is its limit from inside (not the 0 past them)
    ends = fam.hessian_eta(np.r_[lo, hi])
    assert np.all(np.isfinite(ends)) and np.all(ends > 0)
    np.testing.assert_array_equal(fam.hessian_eta(np.r_[z, -z]), 0.0)
    assert float(fam.hessian_eta(0.5 * hi)) > 0


@pytest.mark.parametrize("zeta", [-1.0, -4.0, -12.0])
def test_logcosh_generic_F_agrees_with_its_closed_form(zeta):
    """The generic PermissibleFamily.F (posterior + affine continuation) and
    LogCosh's cancellation-free F agree inside and outside the link domain."""
    family = LogCosh(zeta)
    hi = family.link_domain[1]
    z = np.r_[hi * np.linspace(-1, 1, 21), -2 * hi, 2 * hi, -1e3, 1e3]
    np.testing.assert_allclose(PermissibleFamily.F(family, z), family.F(z), rtol=1e-9, atol=1e-13)


# ---------------------------------------------------------------------------
# finite differences
# ---------------------------------------------------------------------------
def _central(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_dphi_is_the_derivative_of_phi(fam):
    x = np.array([0.03, 0.2, 0.41, 0.5, 0.66, 0.95])
    np.testing.assert_allclose(fam.dphi(x), _central(fam.phi, x, 1e-6), rtol=1e-6, atol=1e-8)


def test_d2phi_is_the_derivative_of_dphi(fam):
    x = np.array([0.03, 0.2, 0.41, 0.5, 0.66, 0.95])
    np.testing.assert_allclose(fam.d2phi(x), _central(fam.dphi, x, 1e-6), rtol=1e-6)


def test_gradient_is_the_derivative_of_the_loss(any_family):
    eta = inner_etas(any_family)
    for y in (0.0, 1.0):
        fd = _central(lambda e, y=y: any_family.loss(y, e), eta, 1e-6)
        np.testing.assert_allclose(any_family.gradient(y, eta), fd, rtol=1e-6, atol=1e-8)


def test_hessian_is_the_derivative_of_the_gradient(any_family):
    """hessian is d²ℓ/dη², or its expectation under the posterior for a family that says
    so (``expected_curvature``: the Fisher weight); newton_curvature is d²ℓ/dη² either way."""
    eta = inner_etas(any_family)
    fd = {y: _central(lambda e, y=y: any_family.gradient(y, e), eta, 1e-6) for y in (0.0, 1.0)}
    for y in (0.0, 1.0):
        expected = fd[y]
        if any_family.expected_curvature:
            p = any_family.posterior(eta)
            expected = p * fd[1.0] + (1 - p) * fd[0.0]
        np.testing.assert_allclose(any_family.hessian(y, eta), expected, rtol=1e-6, atol=1e-8)
        if getattr(any_family, "link_name", None) != "cauchit":   # Fisher scoring there
            np.testing.assert_allclose(any_family.newton_curvature(y, eta), fd[y], rtol=1e-6,
                                       atol=1e-8)


def test_hessian_eta_is_one_over_d2phi(fam):
    """d²ℓ/dη² = 1/φ''(∇φ⁻¹(η)) (docs/math.md §3): closed forms vs φ''."""
    eta = inner_etas(fam)
    np.testing.assert_allclose(fam.hessian_eta(eta), 1.0 / fam.d2phi(fam.posterior(eta)),
                               rtol=1e-9)


def test_score_variance_is_the_bernoulli_second_moment(any_family):
    """score_variance(η) = E[(dℓ/dη)²] for y ~ Bernoulli(posterior(η))."""
    eta = inner_etas(any_family)
    p, q = any_family.posterior_pair(eta)       # q = 1 − p without cancellation (probit at 5)
    moment = p * any_family.gradient(1, eta) ** 2 + q * any_family.gradient(0, eta) ** 2
    np.testing.assert_allclose(any_family.score_variance(eta), moment, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# the posterior ∇φ⁻¹
# ---------------------------------------------------------------------------
P_GRID = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.2, 0.4, 0.5, 0.6, 0.8, 0.95,
                   1 - 1e-3, 1 - 1e-6, 1 - 1e-9, 1 - 1e-12])


def test_link_then_posterior_is_identity(fam):
    """∇φ⁻¹(∇φ(p)) = p on both sides, the small side to relative accuracy
    (absolute for a bounded link, whose posterior is ill-conditioned at the edges)."""
    p, q = fam.posterior_pair(fam.dphi(P_GRID))
    small = np.minimum(P_GRID, 1 - P_GRID)
    got_small = np.where(P_GRID <= 0.5, p, q)
    if _bounded(fam):
        np.testing.assert_allclose(got_small, small, rtol=0, atol=1e-13)
    else:
        np.testing.assert_allclose(got_small, small, rtol=1e-11)
    np.testing.assert_allclose(p, P_GRID, rtol=1e-13, atol=1e-13)


def test_posterior_pair_is_consistent(any_family):
    eta = np.r_[-np.logspace(3, -3, 13), 0.0, np.logspace(-3, 3, 13)]
    p, q = any_family.posterior_pair(eta)
    # (gini's p = (1 + η)/2 leaves [0, 1]: p + q = 1 up to the rounding of p)
    np.testing.assert_array_less(np.abs(p + q - 1.0), 2.3e-16 * np.maximum(1.0, np.abs(p)))
    np.testing.assert_array_equal(p, any_family.posterior(eta))
    # the two sides of ±η mirror each other (exactly, but for gini's rounding), but for
    # cloglog's asymmetric link
    _, q_neg = any_family.posterior_pair(-eta)
    symmetric = getattr(any_family, "link_name", None) != "cloglog"
    if symmetric:
        np.testing.assert_allclose(p, q_neg, rtol=4e-16, atol=4e-16)
    if not getattr(any_family, "extends_past_domain", False):
        assert np.all((0 <= p) & (p <= 1))
        assert np.all(np.diff(p) >= 0)
    # cloglog: 1 − exp(−e⁰) = 1 − 1/e
    assert float(any_family.posterior(0.0)) == (0.5 if symmetric else -np.expm1(-1.0))


def test_power_half_is_matsushita():
    """φ_½ = −√(x(1 − x)) is Matsushita's φ: the numerical inverse must match
    the closed form ½(1 + H/√(1 + H²)) on both sides, to rounding."""
    power, mats = Power(0.5), Matsushita()
    eta = np.r_[-1e8, -1e3, -np.logspace(2, -8, 21), 0.0, np.logspace(-8, 2, 21), 1e3, 1e8]
    for a, b in zip(power.posterior_pair(eta), mats.posterior_pair(eta)):
        np.testing.assert_allclose(a, b, rtol=2e-15)
    np.testing.assert_allclose(power.F(eta), mats.F(eta), rtol=4e-15)
    np.testing.assert_allclose(power.hessian_eta(eta), mats.hessian_eta(eta), rtol=4e-15)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True)
@given(v=st.floats(0.01, 0.99), log10_p=st.floats(-300.0, math.log10(0.5)))
def test_power_link_round_trip_for_any_v(v, log10_p):
    """∇φ⁻¹(∇φ(p)) = p for random v and p down to 1e-300, on both sides: both
    Newton charts and the switch between them (at p(1 − p) = 1/8)."""
    family = Power(v)
    p = 10.0 ** log10_p
    eta = float(family.dphi(p))
    small, large = family.posterior_pair(eta)
    assert small == pytest.approx(p, rel=6e-15 / (1 - v))
    assert family.posterior_pair(-eta)[1] == small
    assert large == 1 - small


def _decimal_power_eta(x, v):
    with localcontext() as ctx:
        ctx.prec = 50
        X, V = Decimal(x), Decimal(v)
        return V * (2 * X - 1) * (X * (1 - X)) ** (V - 1)


@pytest.mark.parametrize("v", [0.05, 0.2, 0.5, 0.9, 0.99])
def test_power_posterior_against_high_precision(v):
    """Power's small-side posterior is accurate to a few ε/(1 − v), the
    conditioning of x ↦ ∇φ(x) near 0 (x ∝ |η|^(1/(v−1)))."""
    family = Power(v)
    xs = np.r_[np.logspace(-290, -1, 60), 0.3, 0.45, 0.499, 0.5 - 1e-9]
    eta, ref = [], []
    for x in xs:
        exact = _decimal_power_eta(float(x), v)
        rounded = float(exact)
        if rounded == 0.0 or not math.isfinite(rounded):
            continue
        # the x whose exact η is the rounded one, to first order
        with np.errstate(over="ignore"):
            curvature = float(family.d2phi(x))
        eta.append(rounded)
        ref.append(float(x) + float(Decimal(rounded) - exact) / curvature)
    eta, ref = np.array(eta), np.array(ref)
    assert eta.size > 50
    small, large = family.posterior_pair(eta)
    np.testing.assert_allclose(small, ref, rtol=4e-15 / (1 - v))
    np.testing.assert_array_equal(family.posterior_pair(-eta)[1], small)
    np.testing.assert_array_equal(large, 1 - small)


@pytest.mark.parametrize("zeta", [-1.0, -4.0, -12.0])
def test_logcosh_against_high_precision(zeta):
    """LogCosh's posterior, φ and F against 50-digit references (points at
    least 1e-3·T from the domain edge, where rounding T costs < 1e-13)."""
    family = LogCosh(zeta)
    T = family.link_domain[1]
    with localcontext() as ctx:
        ctx.prec = 260               # φ(1e-200) needs its 200 leading zeros
        k = Decimal(-zeta) / 2
        half = Decimal(1) / 2

        def lncosh(y):
            return ((y.exp() + (-y).exp()) / 2).ln()

        def phi(x):
            return (lncosh(k * (x - half)) - lncosh(k / 2)) / k

        def post(z):
            return half + ((1 + z) / (1 - z)).ln() / (2 * k)

        b = lncosh(k / 2) / k
        assert family.b == pytest.approx(float(b), rel=1e-15)
        z = T * np.array([-0.999, -0.9, -0.5, -0.1, 0.0, 0.2, 0.7, 0.99, 0.999])
        p_ref = [post(Decimal(zi)) for zi in z]
        small_ref = np.array([float(min(p, 1 - p)) for p in p_ref])
        F_ref = np.array([float((-phi(p) - (1 - p) * Decimal(zi)) / b) for p, zi in zip(p_ref, z)])
        x = np.array([1e-200, 1e-12, 1e-3, 0.1, 0.3, 0.5, 0.9, 1 - 1e-9])
        phi_ref = np.array([float(phi(Decimal(xi))) for xi in x])
    p, q = family.posterior_pair(z)
    np.testing.assert_allclose(np.minimum(p, q), small_ref, rtol=1e-12)
    np.testing.assert_allclose(family.F(z), F_ref, rtol=1e-12)
    np.testing.assert_allclose(family.phi(x), phi_ref, rtol=1e-14)


def test_logcosh_matches_the_paper_formulas():
    """eq. (35) and docs/math.md's table row, written directly."""
    zeta = -3.0
    family = LogCosh(zeta)
    x = np.linspace(0, 1, 11)
    raw = -(2 / zeta) * np.log(np.cosh(zeta * (x - 0.5) / 2))
    np.testing.assert_allclose(family.phi(x), raw - (-(2 / zeta) * np.log(np.cosh(zeta / 4))),
                               atol=1e-15)
    np.testing.assert_allclose(family.dphi(x), -np.tanh(zeta * (x - 0.5) / 2), atol=1e-15)
    H = np.linspace(-0.9, 0.9, 7) * np.tanh(abs(zeta) / 4)
    np.testing.assert_allclose(family.posterior(H), 0.5 + (2 / zeta) * np.arctanh(-H), atol=1e-15)
    assert family.b == pytest.approx(-(2 / zeta) * np.log(np.cosh(zeta / 4)), rel=1e-15)
    assert family.link_domain == pytest.approx((-np.tanh(0.75), np.tanh(0.75)), rel=1e-15)


# ---------------------------------------------------------------------------
# the deviance of fitted models: 2 Σ w D_φ(y‖p̂) (docs/math.md §3)
# ---------------------------------------------------------------------------
def _bregman(family, u, v):
    """D_φ(u‖v) = φ(u) − φ(v) − (u − v)∇φ(v), straight from φ (∇φ(0) is the end of a
    bounded link's domain)."""
    return family.phi(u) - family.phi(v) - (u - v) * family.dphi(v)


@pytest.mark.slow
def test_deviance_of_a_fit_is_twice_the_bregman_divergence(fam):
    """For every family, with weights, on data whose fit saturates rows of the bounded
    links (misclassified ones among them): deviance = 2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) with p̂ the
    posterior, null deviance likewise at the weighted mean, and the deviance residuals
    square-sum to it.  (The surrogate loss continues linearly past the domain; the
    deviance does not.)"""
    import pandas as pd

    import ubreg
    rng = np.random.default_rng(11)
    n = 300
    x = rng.normal(size=n)
    hi = fam.link_domain[1]
    scale = 2.0 * hi if _bounded(fam) and not fam.extends_past_domain else 1.0
    y = (rng.random(n) < fam.posterior(scale * (0.2 + 0.8 * x))).astype(float)
    order = np.argsort(x)
    y[order[[-2, -5]]], y[order[[1, 4]]] = 0.0, 1.0     # misclassified at the extremes
    w = rng.integers(1, 4, size=n).astype(float)
    d = pd.DataFrame({"y": y, "x": x})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit("y ~ x", d, family=fam, weights=w)
    p = np.clip(m.fitted_values.to_numpy(), 0.0, 1.0) if not fam.extends_past_domain \
        else m.fitted_values.to_numpy()
    if fam.name in ("logcosh", "custom-gini"):           # the saturating case is exercised
        assert np.any(np.minimum(*fam.posterior_pair(m.eta)) == 0.0)
    assert m.deviance == pytest.approx(2.0 * float(w @ _bregman(fam, y, p)), rel=1e-7)
    ybar = float(w @ y / w.sum())
    assert m.null_deviance == pytest.approx(2.0 * float(w @ _bregman(fam, y, ybar)), rel=1e-7)
    assert float(np.sum(m.residuals("deviance") ** 2)) == pytest.approx(m.deviance, rel=1e-9)


# ---------------------------------------------------------------------------
# the intercept-only optimum
# ---------------------------------------------------------------------------
def test_intercept_only_optimum_is_the_weighted_mean(any_family):
    y = np.array([0, 1, 1, 0, 1, 1, 0, 1], dtype=float)
    w = np.array([1.0, 2.0, 0.5, 3.0, 1.0, 0.25, 1.5, 1.0])
    ybar = float(w @ y / w.sum())
    eta_star = any_family.intercept_only_eta(ybar)
    assert float(any_family.posterior(eta_star)) == pytest.approx(ybar, rel=1e-12)
    assert float(w @ any_family.gradient(y, eta_star)) == pytest.approx(0.0, abs=1e-12)
    lo, hi = getattr(any_family, "link_domain", (-np.inf, np.inf))
    bounds = (max(lo, -20.0), min(hi, 20.0))
    res = minimize_scalar(lambda e: float(w @ any_family.loss(y, e)), bounds=bounds,
                          method="bounded", options={"xatol": 1e-12})
    assert float(any_family.posterior(res.x)) == pytest.approx(ybar, abs=1e-7)
    with pytest.raises(ValueError, match="infinity"):
        any_family.intercept_only_eta(1.0)


# ---------------------------------------------------------------------------
# numerics at extreme link values and at p in {0, 1}
# ---------------------------------------------------------------------------
def test_extreme_eta_is_finite_and_silent(any_family):
    eta = np.array([-1e3, -50.0, 0.0, 50.0, 1e3])
    if not _bounded(any_family):
        # 1e300: heavy-tailed links (power with small v) reach p = 1 only there
        eta = np.r_[-1e300, -1e8, eta, 1e8, 1e300]
    with no_warnings():
        outputs = [any_family.posterior(eta), *any_family.posterior_pair(eta),
                   any_family.score_variance(eta)]
        for y in (0.0, 1.0):
            outputs += [any_family.loss(y, eta), any_family.gradient(y, eta),
                        any_family.hessian(y, eta)]
        if any_family.is_permissible:
            outputs += [any_family.F(eta), any_family.conjugate(eta),
                        any_family.hessian_eta(eta), any_family.dphi_inv(eta)]
    for out in outputs:
        assert np.all(np.isfinite(out))
    for y in (0.0, 1.0):
        assert np.all(any_family.loss(y, eta) >= 0)
    if not getattr(any_family, "extends_past_domain", False):
        # the far ends really reach p = 1 (and 1 − p = 1) in floating point,
        # so the values above include those at p = 0 and 1
        p, q = any_family.posterior_pair(eta)
        assert p[-1] == 1.0 and q[0] == 1.0


def test_generator_at_the_ends_is_finite_and_silent(fam):
    """φ is finite at p = 0, 1, ∇φ there is the end of the link domain, and
    the loss at the link value of p in {0, 1} is finite."""
    with no_warnings():
        phi = fam.phi(np.array([0.0, 1.0]))
        link = fam.dphi(np.array([0.0, 1.0]))
        end = np.clip(link, -1e300, 1e300)        # ±∞ for an unbounded link
        losses = [fam.loss(y, end) for y in (0.0, 1.0)]
    assert np.all(np.isfinite(phi))
    np.testing.assert_allclose(link, fam.link_domain, rtol=1e-12)
    np.testing.assert_array_equal(fam.posterior(end), [0.0, 1.0])
    for loss in losses:
        assert np.all(np.isfinite(loss)) and np.all(loss >= 0)
    # D_φ(y‖y) = 0: no loss for the right class at the ends
    np.testing.assert_allclose([losses[0][0], losses[1][1]], 0.0, atol=1e-12)


def test_every_probability_scale_method_at_the_ends_is_silent(fam):
    """Every method taking a probability, at p in {0, 1}, with warnings and
    floating-point faults as errors: φ, ∇φ (= link), φ'' (whose limit at the
    ends is +∞ for an unbounded link — returned as such, silently), and the
    Bregman divergence D_φ(y‖v) with y at the ends (the label side)."""
    ends = np.array([0.0, 1.0])
    inner = np.array([1e-12, 0.3, 0.5, 0.9, 1.0 - 1e-9])
    with no_warnings():
        phi = fam.phi(ends)
        dphi = fam.dphi(ends)
        link = fam.link(ends)
        d2 = fam.d2phi(ends)
        scalars = [fam.d2phi(0.0), fam.d2phi(1.0), fam.phi(0.0), fam.dphi(1.0)]
        div = [fam.D(y, inner) for y in (0.0, 1.0)]
    assert np.all(np.isfinite(phi))
    np.testing.assert_array_equal(dphi, link)
    assert not np.any(np.isnan(dphi)) and dphi[0] < dphi[1]
    # φ'' > 0 at the ends, symmetric, never NaN
    assert not np.any(np.isnan(d2)) and np.all(d2 > 0) and d2[0] == d2[1]
    assert float(scalars[0]) == d2[0] and float(scalars[1]) == d2[1]
    if not _bounded(fam) and type(fam) in (Entropy, Entropy2, Matsushita, Mu):
        # closed forms: the exact limit of φ''
        assert np.all(np.isinf(d2))
    for y, d in zip((0.0, 1.0), div):
        assert np.all(np.isfinite(d)) and np.all(d >= -1e-12), (y, d)


def test_methods_keep_the_shape(any_family):
    eta = np.linspace(-0.5, 0.5, 6).reshape(2, 3)
    for out in (any_family.posterior(eta), any_family.loss(1.0, eta),
                any_family.gradient(0.0, eta), any_family.hessian(1.0, eta),
                any_family.score_variance(eta)):
        assert out.shape == (2, 3)
    assert np.ndim(any_family.posterior(0.25)) == 0
    assert np.ndim(any_family.loss(1.0, 0.25)) == 0


# ---------------------------------------------------------------------------
# the Permissible factory
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("alias, canonical", sorted(ALIASES.items()))
def test_aliases(alias, canonical):
    assert Permissible(alias) == Permissible(canonical)
    assert Permissible(alias.upper()).name == canonical


def test_factory_builds_every_family_and_round_trips_repr():
    for name, cls in FAMILIES.items():
        for params in PARAMS.get(name, [{}]):
            family = Permissible(name, **params)
            assert type(family) is cls and family.name == name
            assert eval(repr(family), {"Permissible": Permissible}) == family


def test_unknown_family_lists_the_known_names():
    with pytest.raises(ValueError, match="unknown permissible family 'hinge'") as err:
        Permissible("hinge")
    for name in [*FAMILIES, *ALIASES]:
        assert name in str(err.value)
    with pytest.raises(TypeError):
        Permissible(3)


@pytest.mark.parametrize("name, params, match", [
    ("mu", {"mu": 1.5}, "0 < mu < 1"),
    ("mu", {"mu": 0.0}, "0 < mu < 1"),
    ("power", {"v": 1.0}, "0 < v < 1"),
    ("power", {"v": 0.0}, "0 < v < 1"),
    ("power", {"v": -0.3}, "0 < v < 1"),
    ("power", {"v": float("nan")}, "0 < v < 1"),
    ("power", {"v": "half"}, "power"),
    ("logcosh", {"zeta": 0.0}, "zeta < 0"),
    ("logcosh", {"zeta": 2.0}, "zeta < 0"),
    ("logcosh", {"zeta": -100.0}, "zeta < 0"),
    ("logcosh", {"zeta": "x"}, "logcosh"),
])
def test_bad_parameters_raise_value_error(name, params, match):
    with pytest.raises(ValueError, match=match):
        Permissible(name, **params)


def test_unknown_parameter_raises_type_error():
    with pytest.raises(TypeError, match="power"):
        Permissible("power", mu=0.3)


# ---------------------------------------------------------------------------
# CustomPermissible
# ---------------------------------------------------------------------------
def test_custom_rejects_a_non_symmetric_phi():
    with pytest.raises(ValueError, match=r"not symmetric about 1/2: phi\(0\.5?\d*"):
        CustomPermissible(lambda x: -x * (1 - x) * (1 + 0.5 * x))


def test_custom_rejects_a_non_convex_phi():
    def wavy(x):                                    # φ'' < 0 near 0, ½, 1
        return -x * (1 - x) + 0.05 * np.cos(4 * np.pi * x)
    with pytest.raises(ValueError, match=r"not convex.* at x = "):
        CustomPermissible(wavy)


def test_custom_rejects_other_bad_input():
    with pytest.raises(ValueError, match="finite at 0, 1/2 and 1"):
        CustomPermissible(lambda x: x * np.log(x) + (1 - x) * np.log(1 - x))   # 0·log 0 = nan
    with pytest.raises(ValueError, match="b_phi"):
        CustomPermissible(lambda x: x * (1 - x))          # concave: φ(½) above φ(0)
    with pytest.raises(ValueError, match="numpy array"):
        CustomPermissible(lambda x: -math.sqrt(x * (1 - x)))
    with pytest.raises(ValueError, match="dphi does not match"):
        CustomPermissible(gini_phi, dphi=lambda x: 4 * x - 2)
    with pytest.raises(TypeError):
        CustomPermissible("gini")


@pytest.mark.parametrize("phi", [matsushita_phi, matsushita_phi_no_complex])
def test_custom_matsushita_reproduces_matsushita(phi):
    custom, mats = CustomPermissible(phi), Matsushita()
    assert custom.a == 0.0 and custom.b == pytest.approx(0.5, rel=1e-15)
    assert custom.link_domain == (-np.inf, np.inf)
    # out to ±1e8, where p rounds to 1: the loss and curvature must come from
    # the small side 1 − p (base.F and base.hessian_eta use the symmetry of φ)
    eta = np.r_[-1e8, -1e3, -np.logspace(2, -6, 17), 0.0, np.logspace(-6, 2, 17), 1e3, 1e8]
    for a, b in zip(custom.posterior_pair(eta), mats.posterior_pair(eta)):
        np.testing.assert_allclose(a, b, rtol=1e-8)
    for y in (0.0, 1.0):
        np.testing.assert_allclose(custom.loss(y, eta), mats.loss(y, eta), rtol=1e-8)
        np.testing.assert_allclose(custom.gradient(y, eta), mats.gradient(y, eta),
                                   rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(custom.hessian_eta(eta), mats.hessian_eta(eta), rtol=1e-6)


def test_custom_with_given_derivatives():
    custom = CustomPermissible(matsushita_phi,
                               dphi=lambda x: (2 * x - 1) / (2 * np.sqrt(x * (1 - x))),
                               d2phi=lambda x: 0.25 * (x * (1 - x)) ** -1.5)
    eta = np.linspace(-30, 30, 13)
    np.testing.assert_allclose(custom.posterior(eta), Matsushita().posterior(eta), rtol=1e-13)
    np.testing.assert_allclose(custom.hessian_eta(eta), Matsushita().hessian_eta(eta), rtol=1e-13)


def test_custom_finds_the_link_domain():
    assert CustomPermissible(gini_phi).link_domain == pytest.approx((-1.0, 1.0), abs=1e-12)
    T = LogCosh(-4.0).link_domain[1]
    assert CustomPermissible(LogCosh(-4.0).phi).link_domain == pytest.approx((-T, T), rel=1e-10)
    assert CustomPermissible(entropy_phi).link_domain == (-np.inf, np.inf)


def test_custom_gini_saturates_where_gini_extends():
    """Gini's loss is the square loss everywhere (the linear probability
    model); the same φ through CustomPermissible is the conjugate of φ on
    [0, 1]: equal inside [−1, 1], affine outside."""
    custom, gini = CustomPermissible(gini_phi), Gini()
    z = np.linspace(-1, 1, 9)
    np.testing.assert_allclose(custom.F(z), gini.F(z), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(custom.F(np.array([-3.0, 3.0])), [12.0, 0.0], rtol=1e-12)
    assert gini.F(3.0) == 4.0


def test_custom_pickles_with_a_module_level_phi():
    custom = CustomPermissible(matsushita_phi, name="m")
    clone = pickle.loads(pickle.dumps(custom))
    assert clone == custom
    np.testing.assert_array_equal(clone.posterior(np.r_[-2.0, 0.3]),
                                  custom.posterior(np.r_[-2.0, 0.3]))
    assert "m" in repr(custom) and custom.describe() == "m"


# ---------------------------------------------------------------------------
# what fitters read from a family (no fitter tests a family's class)
# ---------------------------------------------------------------------------
_IMPURITY = {"gini": lambda p: p * (1.0 - p),
             "entropy": lambda p: -xlogy(p, p) - xlogy(1.0 - p, 1.0 - p),
             "sqrt": lambda p: np.sqrt(p * (1.0 - p))}


def test_impurity_form_is_phi(fam):
    """−φ(p) − a_φ = c·g(p) for the shape the family declares (the tree criteria)."""
    form = fam.impurity_form
    if form is None:
        return
    shape, c = form
    p = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(c * _IMPURITY[shape](p), -fam.phi(p) - fam.a, rtol=1e-13,
                               atol=1e-15)


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _declared_posterior(shape, c, a):
    """∇φ⁻¹ of one float by the operations ``posterior_form`` names, in the C
    library's maths (what the compiled GNNB kernels repeat)."""
    if shape == "linear":
        p = 0.5 * (1.0 + a / c)
        return p, 1.0 - p
    if shape == "logistic":
        return 1.0 / (1.0 + _exp(-(a * c))), 1.0 / (1.0 + _exp(a * c))
    u = a / c
    s = math.hypot(1.0, u)
    small = 0.5 / s / (s + abs(u))
    return (1.0 - small, small) if u > 0 else (small, 1.0 - small)


def test_posterior_form_is_the_posterior_bit_for_bit(fam):
    form = fam.posterior_form
    if form is None:
        return
    eta = np.r_[np.linspace(-40, 40, 161), -1e3, 1e3, 1e-300, -0.0]
    eta = eta[(eta >= fam.link_domain[0]) & (eta <= fam.link_domain[1])] \
        if not fam.extends_past_domain else eta
    p, q = fam.posterior_pair(eta)
    p_ref, q_ref = np.array([_declared_posterior(*form, float(a)) for a in eta]).T
    np.testing.assert_array_equal(p, p_ref)
    np.testing.assert_array_equal(q, q_ref)


def test_closed_forms_are_declared_where_they_exist():
    assert Gini().impurity_form == ("gini", 1.0) and Gini().posterior_form == ("linear", 1.0)
    assert Entropy().impurity_form == ("entropy", 1.0)
    assert Entropy2().posterior_form == ("logistic", math.log(2.0))
    assert Matsushita().impurity_form == ("sqrt", 1.0)
    assert Mu(mu=0.3).posterior_form == ("sqrt", 0.7)
    for fam in (Power(0.5), LogCosh(-4.0), Permissible("tempered", t=0.5),
                CustomPermissible(gini_phi)):
        assert fam.impurity_form is None and fam.posterior_form is None


def test_a_subclass_does_not_inherit_closed_forms():
    """A subclass may change φ or the posterior: it gets the generic routes
    unless it declares its own closed forms."""
    class Sharper(Entropy):
        def phi(self, p):
            return 2.0 * super().phi(p)

    fam = Sharper()
    assert fam.impurity_form is None and fam.posterior_form is None
    assert type(fam).scalar_posterior is Exponential.scalar_posterior    # the generic one
    assert Entropy2().impurity_form is not None        # declared anew by the subclass


def test_scalar_posterior_is_the_posterior(fam):
    post = fam.scalar_posterior()
    eta = inner_etas(fam)
    np.testing.assert_allclose([post(float(a)) for a in eta], fam.posterior(eta), rtol=1e-12,
                               atol=1e-14)


def test_h_star_and_curvature_bound_are_inf_d2phi(fam):
    """H* = 1/(b_φ inf φ'') (eq. 8 of paper 002) and λ = inf φ'' (eq. 97 of paper 000)."""
    p = np.r_[np.linspace(1e-6, 1 - 1e-6, 20001), 0.5]
    inf_d2 = float(np.min(fam.d2phi(p)))
    assert fam.h_star() == pytest.approx(1.0 / (fam.b * inf_d2), rel=1e-9)
    try:
        lam = fam.curvature_lower_bound()
    except ValueError:
        assert fam.d2phi(np.r_[1e-12]) < 1e-6          # φ'' → 0 at the ends (tempered t < 0)
        return
    # the η grid reaches the ends of a bounded link, where φ'' is smallest (logcosh)
    assert lam <= inf_d2 * (1 + 1e-7)          # custom: φ'' by differences, ~1e-8
    assert lam == pytest.approx(inf_d2, rel=1e-4)


def test_curvature_bound_refuses_a_vanishing_d2phi():
    with pytest.raises(ValueError, match="no positive lambda"):
        Permissible("tempered", t=-0.5).curvature_lower_bound()


def test_risk_scale_and_separation(any_family):
    fam = any_family
    assert fam.risk_scale == (fam.b if fam.is_permissible else 1.0)
    z = np.linspace(-2, 2, 9)
    if fam.is_permissible:
        np.testing.assert_allclose(fam.loss(1.0, z) / fam.risk_scale, fam.F(z), rtol=1e-12)
    lo, hi = fam.link_domain
    unbounded = np.isinf(lo) and np.isinf(hi)
    assert fam.separation_possible == (unbounded and not fam.extends_past_domain)


def test_exponential_declares_adaboost_and_its_tree_criterion():
    fam = Exponential()
    assert fam.adaboost_closed_form and fam.criterion_family == Matsushita()
    assert not any(f().adaboost_closed_form for f in FAMILIES.values())
    assert Matsushita().criterion_family is not None and Gini().criterion_family == Gini()
