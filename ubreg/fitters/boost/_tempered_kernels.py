"""The tempered family's margin loss and its derivatives in one compiled pass (numba).

U-Boost of ``Permissible("tempered", t=0.5)`` needs, every round and on every row, the
small-side posterior of the margin, ∇φ⁻¹(−|z|), which has no closed form in the
log-odds: NumPy's bracketed search (``Tempered._small_posterior``) costs about 60 ms a
round on 1e5 rows, 26 × a logistic fit.  At t = ½ the link is a cubic in
w = 2 expit(ζ/2) (docs/tempered.md §3.2), solved by two Halley steps from a start
exact at both ends (``families.tempered.half_root``); the posterior, ℓ₋₁ and 1/φ''
are then rational in w.  This pass performs ``Tempered.class_one_values``'s
operations at t = ½ in NumPy's order (+, −, ×, ÷ only, each rounded once in both), so
its numbers are the family's to the bit; split across the cores on large fits
(:mod:`ubreg.numerics.parallel`).  Imported on the first such fit.
"""
from __future__ import annotations

from numba import prange

from ...numerics.parallel import parallel_pair


def _tempered_half_body(z, scale, end, h_end, u, d1, d2, nchunks):
    """scale × (ℓ(1, z), ℓ'(1, z), ℓ''(1, z)) of the tempered loss at t = ½
    (``Tempered._half_values``: w from d = (8 − |z|)/2, x = w²/(w² + v²), ℓ₋₁ = w³,
    1/φ'' = 4wv/(3(w² + v²)³), v = 2 − w); ``h_end`` is the curvature at |z| = ``end``,
    the link domain's end (0 past it, where the row is saturated)."""
    n = z.shape[0]
    for t in prange(nchunks):
        for i in range(n * t // nchunks, n * (t + 1) // nchunks):
            zi = z[i]
            d = 0.5 * (-abs(zi) + 8.0)
            d = d if d > 0.0 else (d if d != d else 0.0)     # np.maximum: NaN kept
            a = d / (6.0 - 0.5 * d)
            for _ in range(2):                              # Halley (half_root)
                g = ((a - 3.0) * a + 6.0) * a - d
                g1 = 3.0 * ((a - 2.0) * a + 2.0)
                g2 = 6.0 * (a - 1.0)
                a = a - 2.0 * g * g1 / (2.0 * g1 * g1 - g * g2)
            if -abs(zi) <= -end:                            # saturated (np.where)
                a = 0.0
            b = 2.0 - a
            aa = a * a
            ss = aa + b * b
            x = aa / ss
            m = -zi
            u[i] = scale * ((m if m > 0.0 else (m if m != m else 0.0)) + aa * a)
            d1[i] = scale * ((1.0 - x) - 1.0 if zi > 0 else x - 1.0)
            h = 4.0 * (a * b) / (3.0 * (ss * ss * ss))
            if not x > 0.0:
                h = h_end if abs(zi) == end else 0.0
            d2[i] = scale * h


#: scale × the tempered loss's (ℓ, ℓ', ℓ'') at t = ½ at the margins, in one pass (U-Boost
#: of ``Permissible("tempered", t=0.5)``, :mod:`~.margin_values`)
TEMPERED_HALF_VALUES = parallel_pair(_tempered_half_body)
