"""The leveraging coefficient of one feature: the root of eq. (70).

For a feature h and current link values η, δ solves
Σᵢ wᵢ ∂ℓ(yᵢ, ηᵢ + δ hᵢ)/∂η · hᵢ = 0, i.e. the updated weights have zero edge
on h (paper 000 eq. 70, docs/math.md §4).  The left side is non-decreasing in δ
(ℓ is convex), so a safeguarded Newton iteration inside a shrinking bracket
finds the root to a relative edge of 1e-10.  With the exponential loss and a
feature valued in {−1, +1} or {0, 1} the root is AdaBoost's closed form
δ = ½ ln(W₊/W₋).
"""
from __future__ import annotations

import numpy as np

__all__ = ["MAX_DELTA", "solve_leverage"]

#: bound on |δ| when (70) has no finite root: the feature separates the
#: weighted sample (Lemma 8) and the optimum is at infinity
MAX_DELTA = 20.0


def solve_leverage(h, y, w, eta, family, tol: float = 1e-10, max_delta: float = MAX_DELTA):
    """Root δ of eq. (70) for one feature.

    Parameters
    ----------
    h, y, w, eta : (n,) arrays
        Feature values, 0/1 labels, frequency weights, current link values.
    family : Family
    tol : float
        Stop when |Σ wᵢ ℓ'ᵢ hᵢ| ≤ tol · Σ wᵢ |ℓ'ᵢ hᵢ| (normalised edge).
    max_delta : float
        |δ| is capped here (a separating feature has its root at ±∞).

    Returns
    -------
    (delta, capped) : (float, bool)
    """
    nz = h != 0
    if not nz.all():
        h, y, w, eta = h[nz], y[nz], w[nz], eta[nz]
    if h.size == 0:
        return 0.0, False
    ystar = 2.0 * y - 1.0
    if family.adaboost_closed_form and np.all(np.abs(h) == 1.0):
        m = ystar * h > 0
        a = -ystar * eta
        pos = w > 0
        if not pos.any():
            return 0.0, False
        # W± = Σ w e^(−y*η) over rows with y*h = ±1, shifted against overflow
        e = w * np.exp(np.where(pos, a - a[pos].max(), -np.inf))
        wp, wm = float(e[m].sum()), float(e[~m].sum())
        if wp == 0.0 and wm == 0.0:
            return 0.0, False
        with np.errstate(divide="ignore"):
            delta = 0.5 * (np.log(wp) - np.log(wm))
        capped = not abs(delta) < max_delta
        return float(np.clip(delta, -max_delta, max_delta)), capped
    lo, hi = -max_delta, max_delta
    delta = 0.0
    for _ in range(200):
        cur = eta + delta * h
        g = w * family.gradient(y, cur) * h
        d1 = float(g.sum())
        scale = float(np.abs(g).sum())
        if scale == 0.0 or abs(d1) <= tol * scale:
            break
        if d1 > 0:
            hi = delta
        else:
            lo = delta
        d2 = float((w * family.hessian(y, cur) * h * h).sum())
        new = delta - d1 / d2 if d2 > 0 else np.nan
        if not lo < new < hi:
            new = 0.5 * (lo + hi)          # Newton left the bracket: bisect
        if hi - lo <= 1e-15 * (1.0 + abs(delta)):
            break
        delta = new
    capped = abs(delta) >= max_delta * (1 - 1e-9)
    return float(delta), capped
