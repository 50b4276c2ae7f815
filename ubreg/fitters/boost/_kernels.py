"""Compiled elementwise maps of the U functions (numba).

NumPy's ``where`` and masked ``copyto`` branch on every element (a random sign
of the margin mispredicts half of them); a compiled loop selects without a
branch.  The exponentials and logarithms stay in NumPy, whose SIMD loops are
faster than numba's scalar calls.  Every operation is the one NumPy's path
performs, so the numbers are the same to the bit.  The passes of U-Boost's
tree iterations (:data:`ADVANCE`, :data:`NEWTON_STATS`) run on chunks of the
rows on every core (:mod:`ubreg.numerics.parallel`).  Imported on the first
boosting fit, not by ``import ubreg``.
"""
from __future__ import annotations

import math
from typing import Any

from numba import njit, prange

from ...numerics.parallel import parallel_pair

_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def logistic_from_exp(z, e, d1, d2, tail):
    """Given e = exp(−|z|): d1 = −expit(−z), d2 = expit(z)·expit(−z) (as
    e/(1 + e) or 1/(1 + e) by the sign of z), tail = max(−z, 0)."""
    for i in range(z.shape[0]):
        den = e[i] + 1.0
        lo = e[i] / den
        hi = 1.0 / den
        pos = z[i] >= 0
        s_neg = lo if pos else hi
        s_pos = hi if pos else lo
        d1[i] = -s_neg
        d2[i] = s_neg * s_pos
        m = -z[i]
        tail[i] = 0.0 if m < 0.0 else m      # a NaN margin stays NaN, as np.maximum


def _matsushita_body(z, c, u, d1, d2, nchunks):
    """c × (ℓ, ℓ', ℓ'') of Matsushita's loss at the margins z, ℓ(1, z) = ½(√(1 + z²) − z)
    (``Matsushita.loss``, ``gradient``, ``hessian``) in one pass a row: ℓ' = p − 1 with p
    by the sign of z as ``_sqrt_posterior_pair``; √(1 + z²) by ``sqrt`` where z² is
    finite (``hypot``'s value to rounding) and ℓ'' = ½ s⁻³ as 0.5/(s·s·s)."""
    n = z.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            zi = z[i]
            a = abs(zi)
            s = math.sqrt(1.0 + zi * zi) if a < 1e150 else a
            small = 0.5 / s / (s + a)
            if zi > 0:
                f = 1.0 / (s + a)
                p = 1.0 - small
            else:
                f = s - zi
                p = small
            u[i] = c * (0.5 * f)
            d1[i] = c * (p - 1.0)
            d2[i] = c * (0.5 / (s * s * s))


#: c × Matsushita's (ℓ, ℓ', ℓ'') at the margins, in one pass (U-Boost of
#: ``Permissible("matsushita")``, :mod:`~.margin_values`)
MATSUSHITA_VALUES = parallel_pair(_matsushita_body)



def _mu_body(z, c, b, scale, u, d1, d2, nchunks):
    """scale × (ℓ, ℓ', ℓ'') of the μ family's loss at the margins z, c = 1 − μ, b = c/2
    (``Mu.loss``: b ``_sqrt_loss``(z/c); ``gradient``: ``_sqrt_posterior_pair``(z/c)'s
    p − 1; ``hessian``: ½/c s⁻³), s = √(1 + (z/c)²) by ``sqrt`` where the square is finite
    (``hypot``'s value to rounding, as in :func:`_matsushita_body`) and s⁻³ as (1/s)³
    (no overflow): the family's numbers to rounding, without NumPy's power, a pass of
    its own that cost more than the rest of the row."""
    n = z.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            h = z[i] / c
            a = abs(h)
            s = math.sqrt(1.0 + h * h) if a < 1e150 else a
            small = 0.5 / s / (s + a)
            if h > 0:
                f = 1.0 / (s + a)
                p = 1.0 - small
            else:
                f = s - h
                p = small
            r = 1.0 / s
            u[i] = scale * (b * f)
            d1[i] = scale * (p - 1.0)
            d2[i] = scale * (0.5 / c * (r * r * r))


#: scale × the μ family's (ℓ, ℓ', ℓ'') at the margins, in one pass (U-Boost of
#: ``Permissible("mu")``, :mod:`~.margin_values`)
MU_VALUES = parallel_pair(_mu_body)

# Rows' signs y* come as int8 (a float64 copy would be read every pass), and
# weights all equal (unit weights, after ``uboost._unit_weights``) as the one
# number ``cw`` (NaN: read ``w``): w·y* is then ±cw, the product numpy forms,
# and the passes read 9 bytes a row less each.


@njit(**_JIT)
def _weight(w, cw, i):
    return cw if cw == cw else w[i]


def _advance_body(F, node, value, nu, ys, z, nchunks):
    n = F.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            F[i] = F[i] + nu * value[node[i]]
            z[i] = float(ys[i]) * F[i]


def _newton_stats_body(w, cw, ys, vals, stats, wU, nchunks):
    n = ys.shape[0]
    bad = 0
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            wi = _weight(w, cw, i)
            stats[i, 0] = (wi * float(ys[i])) * vals[1, i]
            h = vals[2, i]
            if not h > 0:
                bad += 1
            stats[i, 1] = wi * h
            wU[i] = wi * vals[0, i]
    return bad


def _flat_weights_body(w, cw, z, d2, edge_lo, edge_hi, keep_lo, keep_hi, stats, nchunks):
    """stats[i, 1] = w·``FamilyLoss.newton_weight`` where U'' ≤ 0 (a saturated row): the
    end curvature on the row's side (``flat_weights``), or U'' itself at an infinite end;
    the other rows keep NEWTON_STATS' w·U''."""
    n = z.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            h = d2[i]
            if not h > 0:
                pos = z[i] > 0
                keep = keep_hi if pos else keep_lo
                stats[i, 1] = _weight(w, cw, i) * (h if keep else (edge_hi if pos else edge_lo))


#: F ← F + ν·value[node] and z = y*·F in one pass (F[i] + ν·value[node[i]],
#: then ``np.multiply(ystar, F)``'s product)
ADVANCE = parallel_pair(_advance_body)
#: g = w y* U'(z), h = w U''(z) and w U(z) in one pass (the products numpy
#: would form); returns how many U'' are not positive (then h is redone by
#: ``ULoss.newton_weight``)
NEWTON_STATS = parallel_pair(_newton_stats_body)
#: w·newton_weight at the saturated rows of a family's loss (U-Boost's trees)
FLAT_WEIGHTS = parallel_pair(_flat_weights_body)


# The logistic U's passes of a tree iteration (``margin_values.values_into`` and
# ``NEWTON_STATS`` split around NumPy's exp and log1p, which stay in NumPy):
# w·U of the previous z, then F's update and −|z|; then g and h from
# e = exp(−|z|); then log1p(e), whose U = log1p(e) + max(−z, 0) the next
# update reads.  z = y*·F is formed where it is needed (the product numpy
# forms), not stored; nor are U' and U'' (``values_risk`` forms them where
# U'' ≤ 0).


def _advance_logistic_body(F, node, value, nu, ys, u, w, cw, wU, nchunks):
    n = F.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            m = -(float(ys[i]) * F[i])                              # −z before the update
            wU[i] = _weight(w, cw, i) * (u[i] + (0.0 if m < 0.0 else m))  # U = log1p(e) + tail
            F[i] = F[i] + nu * value[node[i]]
            u[i] = -abs(float(ys[i]) * F[i])                        # −|z| after it


def _logistic_stats_body(F, e, w, cw, ys, stats, nchunks):
    n = F.shape[0]
    bad = 0
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            den = e[i] + 1.0
            lo = e[i] / den
            hi = 1.0 / den
            pos = float(ys[i]) * F[i] >= 0                          # z ≥ 0
            s_neg = lo if pos else hi
            s_pos = hi if pos else lo
            h = s_neg * s_pos
            wi = _weight(w, cw, i)
            stats[i, 0] = (wi * float(ys[i])) * -s_neg
            if not h > 0:
                bad += 1
            stats[i, 1] = wi * h
    return bad


def _risk_terms_body(u, F, ys, w, cw, wU, nchunks):
    n = u.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            m = -(float(ys[i]) * F[i])
            wU[i] = _weight(w, cw, i) * (u[i] + (0.0 if m < 0.0 else m))


#: w·U at the previous z (``margin_values.values_into``'s U = log1p(e) + max(−z, 0),
#: with u = log1p(e)), then F ← F + ν·value[node] and u = −|z| (the argument of
#: the exponential)
ADVANCE_LOGISTIC = parallel_pair(_advance_logistic_body)
#: g = w y* U', h = w U'' of the logistic U from e = exp(−|z|) (``logistic_from_exp``'s
#: arithmetic, NEWTON_STATS'); returns how many U'' ≤ 0
LOGISTIC_STATS = parallel_pair(_logistic_stats_body)
#: w·U from u = log1p(e) and z = y*·F (without an update: the last risk)
RISK_TERMS = parallel_pair(_risk_terms_body)


def _multinomial_stats_body(p, y, w, stats, nchunks):
    n = p.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            stats[i, 0] = w[i] * (p[i] - y[i])
            stats[i, 1] = w[i] * p[i] * (1.0 - p[i])


def _multinomial_advance_body(F, k, node, value, nu, nchunks):
    n = F.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            F[i, k] = F[i, k] + nu * value[node[i]]


#: one class's g = w (p − y) and h = w p (1 − p) of the multinomial loss into the first two
#: columns of stats (NumPy's ``w * (p - y)`` and ``w * p * (1 - p)``, to the bit)
MULTINOMIAL_STATS = parallel_pair(_multinomial_stats_body)
#: F[:, k] += ν · value[node] (NumPy's ``F[:, k] += nu * value[node]``, to the bit)
MULTINOMIAL_ADVANCE = parallel_pair(_multinomial_advance_body)
