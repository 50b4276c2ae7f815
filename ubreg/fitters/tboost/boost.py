"""t-AdaBoost on arrays (docs/tempered.md §2): the loop, μ_j, α_j, forgetting.

:func:`tboost` takes a design X, labels ±1 and a weak-learner callable and
returns a :class:`TBoostFit` holding the hypotheses, the coefficients and the
per-round record.  It never modifies its inputs.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import DataError
from ...families.tempered_algebra import (
    K_t,
    co_norm,
    exp_t,
    g_t,
    is_one,
    log_t,
    power_mean,
    tensor_t,
)
from ...learners.ensembles import TBoostFit
from ...numerics.progress import progress

__all__ = ["PERFECT", "closed_form_mu", "exact_mu", "is_perfect", "normalise_weights",
           "tboost", "tempered_update"]

#: μ r at t = 1 when |ρ| = 1 ([J] replaces the infinite μ by ±100/r)
MU_R_CAP_T1 = 100.0


def _w(w, q):
    return np.ones_like(q) if w is None else w


def normalise_weights(w):
    """Frequency weights divided by the power of two 2^e that brings their mean over
    the rows of positive weight into [1, 2).

    t-AdaBoost is invariant to the scale of the weights (weights × s are every row
    s times: q scales by s^(−t*), μ_j and r_j by s^(∓t*(1−t)), and α_j, ρ_j, Z_j and
    the classifier do not change; docs/tempered.md §2.1), but its floating point is
    not: m = Σ w ≥ 1e50 puts q = m^(−t*) where q^(1−t) + (1 − t)(−μu) cancels, and
    m^(−t*) underflows for larger m.  At mean 1 the numbers are those of unweighted
    data.  Dividing by a power of two is exact (weights whose mean is already in
    [1, 2), such as integer weights of 1 and 2, are unchanged, and a second call
    changes nothing); positive weights all equal become 1, the unweighted data.
    ``None`` stays ``None``.
    """
    if w is None:
        return None
    w = np.asarray(w, dtype=np.float64)
    live = w > 0
    if np.all(w[live] == w.max()):
        return live.astype(np.float64)
    e0 = int(np.frexp(w.max())[1])
    mean1 = float(np.ldexp(w, -e0)[live].sum()) / np.count_nonzero(live)
    e = e0 + int(np.frexp(mean1)[1]) - 1
    out = np.ldexp(w, -e)
    if np.any(live & (out == 0)):
        raise DataError("the positive weights span more than the floating-point range (their "
                        "ratio exceeds 2^1074): the smallest would be 0 beside the largest")
    return out


def closed_form_mu(q, u, t, w=None):
    """μ_j of docs/tempered.md §2.2(a): r_j, ε_j, ρ_j and μ_j = g_t((1 + ρ_j)/2)/r_j.

    ``w`` are frequency weights (a row of weight 2 counts as two rows; rows of
    weight 0 are ignored).  Returns (μ, ρ, r).  r = 0 gives μ = 0.
    """
    w = _w(w, q)
    live = w > 0
    P = (q > 0) & live
    D = (q == 0) & live
    if not P.any():
        return 0.0, 0.0, 0.0
    with np.errstate(divide="ignore", over="ignore"):
        r = float(np.max(np.abs(u[P]) / q[P] ** (1.0 - t)))
    if not r > 0:
        return 0.0, 0.0, 0.0
    mdag = float(w[D].sum())
    eps = 0.0
    if not is_one(t) and mdag > 0:
        eps = float((np.max(np.abs(u[D])) / r) ** (1.0 / (1.0 - t)))
    qt = np.where(q > 0, q, eps)
    rho = float(np.sum(w * qt * u) / ((1.0 + mdag * eps ** (2.0 - t)) * r))
    rho = min(1.0, max(-1.0, rho))
    if is_one(t) and abs(rho) >= 1.0:
        return math.copysign(MU_R_CAP_T1, rho) / r, rho, r
    return float(g_t((1.0 + rho) / 2.0, t)) / r, rho, r


def closed_form_mu_logt(q, u, t, w=None):
    """The log_t form of §2.2(a): μ = −(1/r) log_t((1 − ρ)/M_{1−t}(1 − ρ, 1 + ρ))
    (the form of the poster; not defined at |ρ| = 1).  For tests."""
    _, rho, r = closed_form_mu(q, u, t, w)
    if r == 0:
        return 0.0
    return float(-log_t((1 - rho) / power_mean(1 - rho, 1 + rho, 1 - t), t)) / r


def tempered_update(q, u, mu, t, w=None):
    """q̂ = q ⊗_t exp_t(−μu) (§2.1), with [J]'s fallback for t > 1 when some
    weight is +∞: those examples share the mass uniformly (count^{−t*} each),
    the others get 0 and Z = 1.  Z = (Σ w q̂^{2−t})^{1/(2−t)} with frequency
    weights w.  Returns (q_next, Z)."""
    w = _w(w, q)
    qhat = tensor_t(q, exp_t(-mu * u, t), t)
    inf = np.isinf(qhat) & (w > 0)
    if inf.any():
        out = np.where(inf, float(w[inf].sum()) ** (-1.0 / (2.0 - t)), 0.0)
        return out, 1.0
    qhat = np.where(w > 0, qhat, 0.0)
    Z = co_norm(qhat, t, w)
    if not Z > 0:
        return None, 0.0
    return qhat / Z, Z


def _f_edge(mu, q, u, t, w):
    return float(np.sum(w * tensor_t(q, exp_t(-mu * u, t), t) * u))


def exact_mu(q, u, t, xtol=1e-10, w=None):
    """μ minimising Z(μ): the root of f(μ) = Σ q̂_i(μ) u_i (§2.2(b)), by Brent
    to ``xtol``.  None when no root exists (every u_i with q_i > 0 has one sign,
    a perfect weak hypothesis)."""
    w = _w(w, q)
    u = np.where(w > 0, u, 0.0)
    act = (q > 0) | (u != 0)
    f0 = _f_edge(0.0, q, u, t, w)
    if f0 == 0.0:
        return 0.0
    sgn = 1.0 if f0 > 0 else -1.0
    # the root lies on the side of sgn; f changes sign iff some active u has sign −sgn
    if not np.any(act & (sgn * u < 0) & (q > 0)) and not (t < 1 and np.any(sgn * u < 0)):
        return None
    limit = np.inf
    if t > 1 and not is_one(t):
        # stay below the pole of exp_t(−μu): (t − 1)μ|u_i| < 1 where sgn·u_i < 0;
        # beyond it [J] treats the weight as +∞ (no root is sought there)
        bad = (sgn * u < 0) & (q > 0)
        limit = float(np.min(1.0 / ((t - 1.0) * np.abs(u[bad]))))
    scale = float(np.max(np.abs(u))) or 1.0
    hi = 1.0 / scale
    for _ in range(200):
        h = min(hi, limit * (1 - 1e-12))
        fh = _f_edge(sgn * h, q, u, t, w)
        if fh * sgn < 0 or not np.isfinite(fh):
            break
        if h >= limit * (1 - 1e-12):
            return None
        hi *= 2.0
    else:
        return None
    h = min(hi, limit * (1 - 1e-12))
    if not np.isfinite(fh):
        # bisect inwards until finite
        lo_ = 0.0
        for _ in range(200):
            mid = 0.5 * (lo_ + h)
            fm = _f_edge(sgn * mid, q, u, t, w)
            if np.isfinite(fm) and fm * sgn < 0:
                h = mid
                break
            if np.isfinite(fm):
                lo_ = mid
            else:
                h = mid
    from scipy.optimize import brentq  # scipy.optimize: 0.1 s to import
    root = brentq(lambda m: _f_edge(sgn * m, q, u, t, w), 0.0, h, xtol=xtol, rtol=1e-15,
                  maxiter=500)
    return sgn * root


def tboost(X, ystar, t, rounds, weak, *, mu="closed", weights=None):
    """Run t-AdaBoost (docs/tempered.md §2.1).

    Parameters
    ----------
    X : (m, d) design; ystar : labels ±1 (the training labels, noisy or not)
    t : temperature (t < 2)
    rounds : J ≥ 1
    weak : callable (q) -> (hypothesis, values) or (None, None)
        Fits a weak hypothesis to the tempered weights; values = h(x_i).
    mu : {"closed", "exact"}
        §2.2(a) closed form (default, [J]) or the exact projection §2.2(b).
    weights : array, optional
        Frequency weights: a row of weight k counts as k identical rows
        (m = Σ weights; Σ_i w_i q_i^{2−t} = 1 on the co-simplex).  The fit is
        invariant to their scale; they are used as :func:`normalise_weights`
        gives them (mean in [1, 2)), so that ``weights``, q, μ_j and r_j of
        the record are on that scale.
    """
    w = np.ones(X.shape[0]) if weights is None else normalise_weights(weights)
    m = float(w.sum())
    tstar = 1.0 / (2.0 - t)
    q = np.where(w > 0, m ** (-tstar), 0.0)
    delta = np.inf if (is_one(t) or t > 1) else 1.0 / (1.0 - t)
    gamma = np.zeros(X.shape[0])
    log_prod_Z = 0.0
    rec: dict[str, list[Any]] = {k: [] for k in _RECORD}
    stopped = ""
    bar = progress(range(rounds), "tboost", total=rounds)
    for _ in bar:
        hyp, h = weak(q)
        if hyp is None:
            stopped = "the weak learner found no hypothesis"
            break
        u = ystar * h
        perfect = is_perfect(q, u, w)
        if perfect:
            mu_j, closed, q_next, Z = _perfect_round(q, u, t, w)
        else:
            mu_j, closed = _choose_mu(q, u, t, w, mu)
            if closed is None:
                stopped = mu_j
                break
            q_next, Z = tempered_update(q, u, mu_j, t, w)
            if q_next is None:
                stopped = "every weight vanished after an update (|rho| = 1)"
                break
        # α_j = m^(1−t*) Π_{k<j} Z_k^(1−t) μ_j (§2.4)
        alpha = m ** (1.0 - tstar) * math.exp((1.0 - t) * log_prod_Z) * mu_j
        gamma = np.minimum(gamma + alpha * u, delta)
        _record(rec, t, w, hyp, h, alpha, mu_j, closed, Z, q_next)
        q = q_next
        if perfect:
            stopped = PERFECT
            break
        log_prod_Z += math.log(Z)
    getattr(bar, "close", lambda: None)()        # the loop may stop early
    if not rec["hyp"]:
        raise DataError(_no_round_message(stopped))
    return TBoostFit(t=t, hypotheses=rec["hyp"], alpha=np.array(rec["alpha"]),
                     mu=np.array(rec["mu"]), rho=np.array(rec["rho"]), r=np.array(rec["r"]),
                     Z=np.array(rec["Z"]), K=np.array(rec["K"]),
                     n_forgotten=np.array(rec["forg"]), train_values=rec["vals"], weights=q,
                     margin_clipped=gamma, stopped=stopped, co_density_min=rec["cmin"],
                     co_density_max=rec["cmax"], mu_closed=np.array(rec["mu_c"]),
                     Z_closed=np.array(rec["Z_c"]))


#: what :func:`tboost` records per round
_RECORD = ("alpha", "mu", "rho", "r", "Z", "K", "forg", "vals", "hyp", "cmin", "cmax", "mu_c",
           "Z_c")


#: why boosting stopped after a perfect weak hypothesis
PERFECT = ("perfect weak hypothesis: y h(x) > 0 on every training row, kept with the step "
           "that reaches the infimum of the tempered loss, as AdaBoost keeps a hypothesis of "
           "error 0 (docs/tempered.md §2.2)")


def is_perfect(q, u, w):
    """Whether h classifies every training row correctly: u_i = y_i h(x_i) > 0 on every
    row of positive weight (q_i > 0, w_i > 0) and u_i ≥ 0 on the forgotten ones (q_i = 0).

    A forgotten row counts: for t < 1 a row with u_i < 0 would come back
    (0 ⊗_t exp_t(−μu) > 0, §1); for t > 1 the rows [J]'s fallback forgets (§2.2) are most
    of the data, and a hypothesis perfect on the few live rows is not perfect on them
    (taking it as perfect made the replication's t = 1.5 models wrong on 70-80% of the
    test rows).  A hypothesis wrong on every row is not taken as perfect.
    """
    live = w > 0
    P = live & (q > 0)
    return bool(P.any() and np.all(u[P] > 0) and np.all(u[live & ~(q > 0)] >= 0))


def _perfect_round(q, u, t, w):
    """μ_j, the record tuple, q_{j+1} and Z_j of a round whose hypothesis is perfect
    (:func:`is_perfect`).

    The tempered loss (§2.3) then decreases in μ without a stationary point, so
    §2.2(b) has no root; t-AdaBoost keeps h_j with the step that reaches the
    infimum and stops, the equivalent of AdaBoost keeping a hypothesis of error 0.
    For t < 1 the infimum 0 is attained: q̂_i = [q_i^(1−t) − (1−t) μ u_i]_+^(1/(1−t))
    is 0 for every row once μ ≥ μ* = max_i q_i^(1−t) / ((1 − t) u_i), i.e. every
    clipped margin reaches δ = 1/(1−t) (§2.5), and a larger μ changes neither the
    loss nor the clipped classifier on the training rows: μ_j = μ*, Z_j = 0,
    q_{j+1} = 0.  For t ≥ 1 the loss tends to 0 only as μ → ∞ (the limit classifier
    is sign(h_j)); μ_j r_j = 100 is [J]'s finite stand-in for the infinite step at t = 1
    (§2.2, degenerate cases), used for every t ≥ 1.  The closed-form values (§2.2(a))
    are recorded beside it.
    """
    mu_c, rho, r = closed_form_mu(q, u, t, w)
    P = (q > 0) & (w > 0)
    if t < 1 and not is_one(t):
        mu_j = float(np.max(q[P] ** (1.0 - t) / ((1.0 - t) * u[P])))
        return mu_j, (mu_c, rho, r, 0.0), np.zeros_like(q), 0.0
    mu_j = MU_R_CAP_T1 / r
    q_next, Z = tempered_update(q, u, mu_j, t, w)
    if q_next is None:                                  # underflow of every weight
        q_next, Z = np.zeros_like(q), 0.0
    return mu_j, (mu_c, rho, r, Z), q_next, Z


def _choose_mu(q, u, t, w, mu):
    """(μ_j, (closed-form μ, ρ_j, r_j, its Z or None)) of a round, by the closed form
    §2.2(a) or the exact projection §2.2(b); (why there is none, None) when the
    exact projection has no root."""
    mu_c, rho, r = closed_form_mu(q, u, t, w)
    if mu != "exact":
        return mu_c, (mu_c, rho, r, None)
    mu_j = exact_mu(q, u, t, w=w)
    if mu_j is None:
        ul = u[(q > 0) & (w > 0)]
        if np.all(ul >= 0) or np.all(ul <= 0):
            return "perfect weak hypothesis: the exact projection has no root", None
        return ("the exact projection has no root below the pole of exp_t (t > 1: Z decreases "
                "up to the mu where some weight becomes infinite)"), None
    # the closed-form values, for the record (rounds_table: mu_closed, Z_closed)
    return mu_j, (mu_c, rho, r, tempered_update(q, u, mu_c, t, w)[1])


def _record(rec, t, w, hyp, h, alpha, mu_j, closed, Z, q_next):
    """Append one round to ``rec``: the coefficients, the closed-form μ and its Z
    (Z itself when μ_j is the closed form), K_t(ρ_j) (§2.7), the forgotten
    weights and the range of the co-density q^(2−t) (§2.5)."""
    mu_c, rho, r, Z_c = closed
    for key, val in (("alpha", alpha), ("mu", mu_j), ("mu_c", mu_c),
                     ("Z_c", Z if Z_c is None else Z_c), ("rho", rho), ("r", r), ("Z", Z),
                     ("K", float(K_t(rho, t))), ("forg", int(np.sum((q_next == 0) & (w > 0)))),
                     ("vals", h), ("hyp", hyp)):
        rec[key].append(val)
    cd = q_next[w > 0] ** (2.0 - t)
    rec["cmin"].append(float(cd.min()))
    rec["cmax"].append(float(cd.max()))


def _no_round_message(stopped):
    """Why t-AdaBoost could not take a single round, with a hint."""
    if stopped.startswith("the weak learner"):
        hint = (" (no admissible split: every candidate leaves one child holding one class "
                "only and the other both; docs/tempered.md §3.3)")
    elif stopped.startswith("every weight vanished"):
        hint = (" (the first weak hypothesis classifies every training row correctly: "
                "the data are separated and the step would be unbounded)")
    else:
        hint = ""
    return f"t-AdaBoost could not take a single round: {stopped}{hint}"
