"""Wald inference is calibrated for every family (trust issue, item 2).

Data are drawn from each family's own model, y ~ Bernoulli(∇φ⁻¹(xᵀβ)), so the
fitted posterior is consistent and the sandwich A⁻¹BA⁻¹ (docs/math.md §3) is
the asymptotic covariance of β̂.  For every family the test checks, over S
seeded replications of n = 200 rows, the coverage of the 95% Wald interval of
a non-zero slope and the rejection rate at 5% of a slope whose true value is 0,
with the model-based and the robust (HC0) covariance.

The saturating families (logcosh; tempered with t ≤ 0, whose bounded link puts
~11% of the rows at a posterior of exactly 0 or 1) are the point: a saturated
row has zero curvature, and counting the boundary's curvature instead made the
intervals cover 45-70% of the time.

Tolerances: with S replications a rate estimated around 0.95 has binomial
standard error √(0.95·0.05/S) (0.018 at S = 150, 0.034 at S = 40).  A check
passes when |rate − nominal| ≤ δ + 3.29 SE: 3.29 SE is the two-sided 0.1%
normal quantile (the 44 checks together fail by chance with probability
≈ 4%; the seeds are fixed, so the outcome is reproducible), and δ is the
finite-sample departure of Wald intervals at n = 200, which a larger run of
``simulate`` (S = 2000 per family, outside CI) measured: at most 0.024 for
every family and covariance (power v = 0.3: rejection 0.030; tempered t = −1:
0.068; exponential, model-based: coverage 0.974) except AdaBoost's exponential
loss with HC0, whose heavy-tailed scores make it anti-conservative (coverage
0.908 at n = 200, 0.939 at n = 1000).  So δ = 0.025, and 0.05 for
that one case.  The slow families (numerical posteriors) run fewer
replications; their bounds widen accordingly.  Before the saturated rows had
zero curvature, logcosh covered 0.62 and tempered t = 0 0.68 here, and
tempered t = −1 did not converge.
"""
import warnings

import numpy as np
import pytest
from scipy import stats

import ubreg
from ubreg.fitters.uls import fit_uls
from ubreg.results.inference import sandwich

N = 200
P = ubreg.Permissible

#: (family, replications): the slow posteriors (root searches) run fewer
CASES = [(P("gini"), 150), (P("entropy"), 150), (P("entropy2"), 150), (P("matsushita"), 150),
         (P("mu", mu=0.3), 150), (P("power", v=0.3), 40), (P("logcosh", zeta=-4), 150),
         (P("tempered", t=-1.0), 25), (P("tempered", t=0.0), 150), (P("tempered", t=1.0), 150),
         (ubreg.Exponential(), 150)]
Z_975 = stats.norm.ppf(0.975)


def _truth(family):
    """β (intercept, x1, x2 = null): for a bounded link, η reaches 1.3 × the domain's
    end at |x1| ≈ 2, so ~11% of the rows saturate."""
    lo, hi = getattr(family, "link_domain", (-np.inf, np.inf))
    if family.name == "gini":                 # the LPM: stay inside [-1, 1]
        return np.array([0.1, 0.5, 0.0])
    if np.isfinite(hi):
        return hi * np.array([0.12, 0.6, 0.0])
    return np.array([0.2, 1.0, 0.0])


def simulate(family, S, seed=0, n=N):
    """Coverage of the 95% Wald interval of β₁ and rejection at 5% of β₂ = 0, with the
    model-based and the robust covariance, over S replications; and the mean fraction
    of saturated rows."""
    rng = np.random.default_rng(seed)
    beta = _truth(family)
    cover = {"model": 0, "robust": 0}
    reject = {"model": 0, "robust": 0}
    saturated = 0.0
    w = np.ones(n)
    for _ in range(S):
        x1 = (rng.uniform(-np.sqrt(3), np.sqrt(3), n) if family.name == "gini"
              else rng.normal(size=n))
        X = np.column_stack([np.ones(n), x1, rng.normal(size=n)])
        y = (rng.random(n) < family.posterior(X @ beta)).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # numerically-0/1 warnings of saturation
            fit = fit_uls(X, y, w, family)
        assert fit.converged, family
        cov = sandwich(X, y, w, fit.eta, family)
        for kind in ("model", "robust"):
            se = np.sqrt(np.diag(cov[kind]))
            cover[kind] += abs(fit.coef[1] - beta[1]) <= Z_975 * se[1]
            reject[kind] += abs(fit.coef[2]) > Z_975 * se[2]
        saturated += float(np.mean(family.saturated(fit.eta)))
    return {"cover": {k: v / S for k, v in cover.items()},
            "reject": {k: v / S for k, v in reject.items()}, "saturated": saturated / S}


def _bound(S, rate, delta):
    return delta + 3.29 * np.sqrt(rate * (1.0 - rate) / S)


@pytest.mark.slow
@pytest.mark.parametrize("family,S", CASES, ids=[f.describe() for f, _ in CASES])
def test_wald_coverage_and_null_rejection(family, S):
    out = simulate(family, S, seed=2024)
    for kind in ("model", "robust"):
        delta = 0.05 if (family.name, kind) == ("exponential", "robust") else 0.025
        cover, reject = out["cover"][kind], out["reject"][kind]
        assert abs(cover - 0.95) <= _bound(S, 0.95, delta), (kind, cover)
        assert abs(reject - 0.05) <= _bound(S, 0.05, delta), (kind, reject)
    if np.isfinite(getattr(family, "link_domain", (0, np.inf))[1]) and family.name != "gini":
        assert out["saturated"] > 0.05          # the saturating case is exercised
    else:
        assert out["saturated"] == 0.0


def test_saturated_rows_have_zero_curvature():
    """The family decides: past a bounded link's domain the loss is affine."""
    for family in (P("logcosh", zeta=-4), P("tempered", t=-1.0), P("tempered", t=0.0),
                   P("tempered", t=0.5)):
        hi = family.link_domain[1]
        eta = np.array([-2 * hi, -1.001 * hi, 0.0, 0.5 * hi, 1.001 * hi, 1e3])
        assert family.saturated(eta).tolist() == [True, True, False, False, True, True]
        h = family.hessian(np.zeros(6), eta)
        assert np.all(h[[0, 1, 4, 5]] == 0.0) and np.all(h[[2, 3]] > 0)
        # inside, the curvature is the loss's second derivative (central differences)
        e, d = np.array([0.3 * hi]), 1e-4 * hi
        second = (family.loss(0, e + d) - 2 * family.loss(0, e) + family.loss(0, e - d)) / d ** 2
        assert family.hessian(0, e) == pytest.approx(second, rel=1e-5)
    assert not P("gini").saturated(np.array([-3.0, 3.0])).any()     # the LPM keeps its loss


def _report_simulation():
    """reports/inference_calibration.py, the script of the big run (its table is
    reports/inference_calibration.md), imported from the repository."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "reports" / "inference_calibration.py"
    spec = importlib.util.spec_from_file_location("inference_calibration", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: S = 1000 replications: a coverage estimated around 0.95 has SE 0.0069 and one around
#: 0.90 SE 0.0095, so the bound 0.92 passes a calibrated interval (true 0.94: 2.7 SE
#: away) and fails one that covers 0.90 with probability 0.98
POWER_S, POWER_N, COVER_LOW, COVER_HIGH, REJECT_HIGH = 1000, 500, 0.92, 0.98, 0.075


@pytest.mark.slow
@pytest.mark.parametrize("name", ["matsushita", "logcosh -4", "tempered 0"])
def test_the_default_covariance_holds_its_level_with_power(name):
    """The robust covariance (the default of these families) covers β_x at 0.92–0.98 and
    rejects a true null (a binary predictor, and one far from zero) at most 7.5% of the
    time, with the data from the family's model and from a probit with a quadratic term
    (misspecified: β_x is then the minimiser of the expected risk).  The same bounds
    fail the model-based covariance in a misspecified cell, as the big run measured
    (logcosh ζ = −4: 0.903 at n = 200; tempered t = 0: 0.902 at n = 1000)."""
    sim = _report_simulation()
    family = sim.FAMILIES[name]
    model_covers = []
    for process in sim.PROCESSES:
        out = sim.simulate(family, POWER_S, POWER_N, process, seed=7)
        robust = out["robust"]
        assert COVER_LOW <= robust["cover_x"] <= COVER_HIGH, (process, robust)
        assert robust["reject_b"] <= REJECT_HIGH and robust["reject_f"] <= REJECT_HIGH, \
            (process, robust)
        model_covers.append(out["model"]["cover_x"])
    if name != "matsushita":               # its model-based covariance holds (0.954)
        assert model_covers[1] < COVER_LOW, model_covers
