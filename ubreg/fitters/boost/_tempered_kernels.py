"""The tempered family's margin loss and its derivatives in one compiled pass (numba).

U-Boost of ``Permissible("tempered", t=0.5)`` needs, every round and on every row, the
small-side posterior of the margin, ∇φ⁻¹(−|z|), which has no closed form in the
log-odds: a bracketed search in NumPy had cost about 60 ms a round on 1e5 rows, 26 × a
logistic fit.  At t = ½ the link is a cubic in
w = 2 expit(ζ/2) (docs/tempered.md §3.2), solved by two Halley steps from a start
exact at both ends (``families.tempered.half_root``); the posterior, ℓ₋₁ and 1/φ''
are then rational in w.  This pass performs ``Tempered.class_one_values``'s
operations at t = ½ in NumPy's order (+, −, ×, ÷ only, each rounded once in both), so
its numbers are the family's to the bit; split across the cores on large fits
(:mod:`ubreg.numerics.parallel`).  Imported on the first such fit.

Any other t (``families.tempered_roots``' tables, wide where |1 − t| < 1/99):
``TEMPERED_START`` reads ρ₀ from the table and writes the arguments of the
transcendentals, NumPy evaluates them (its SIMD exp and log1p: ~0.05 ms a pass on 1e5
rows, ten times a compiled loop's calls to libm), and ``TEMPERED_VALUES``
take the Halley step and form (ℓ, ℓ', ℓ'') with ``tempered_roots.finish``'s operations
in its order: ``Tempered.class_one_values``'s numbers to the bit.
"""
from __future__ import annotations

import math
import threading
import types as pytypes
from typing import Any

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

from ...families import tempered_roots
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


# ---- any other t: the table start and one Halley step (families/tempered_roots.py) ----
# numba's options of ubreg's kernels (numerics/parallel.py)
_JIT: dict[str, Any] = dict(cache=True, nogil=True, error_model="numpy")
_em_small = njit(**_JIT)(tempered_roots.expm1_small)
_em_series = njit(**_JIT)(tempered_roots.expm1_series)


def _compiled(fn: Any) -> Any:
    """``fn`` of ``tempered_roots`` compiled inline, its call of expm1_small the compiled one:
    the family's arithmetic, the same source (its numbers to the bit)."""
    scope = dict(fn.__globals__, expm1_small=_em_small)
    return njit(inline="always", **_JIT)(pytypes.FunctionType(fn.__code__, scope, fn.__name__))


_halley = _compiled(tempered_roots.halley_step)
_neg_values = _compiled(tempered_roots.neg_values)
_pos_values = _compiled(tempered_roots.pos_values)
_CELLS = tempered_roots.CELLS
_LN2 = math.log(2.0)
_Q_LOW = tempered_roots.Q_LOW
_TINY = math.ldexp(1.0, tempered_roots.Q_LOW - 1)
#: mantissa bits below the cell index (CELLS = 2^5 cells an octave)
_SHIFT = 52 - 5
_TH = math.ldexp(1.0, -_SHIFT)
assert _CELLS == 32


@intrinsic
def _bits(typingctx: Any, x: Any) -> Any:
    """The IEEE bits of a float64, as an int64 (a bit cast: no conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))
    return types.int64(types.float64), codegen


def _tempered_start_body(z, coef, k, two_k, tv_min, q_split, n_q, e_lo_d, neg, a1, a2, a3,
                         nchunks):
    """The arguments of the transcendentals (−ρ₀, ∓Kρ₀ and, s < 0, −Kρ₀: ``tempered_roots``'
    ``start`` and ``arguments``) at −|z|.  The cell and its coordinate θ are frexp's,
    read from the bits of v = f 2^e (v ≥ 2^−60, normal): e = exponent − 1022, and
    (f − ½)·64 = mantissa/2^47, whose integer part is the cell and whose fraction is θ,
    both exact; then the cell's cubic in θ (the same operations)."""
    n = z.shape[0]
    for t in prange(nchunks):
        a, b = n * t // nchunks, n * (t + 1) // nchunks
        _start_rows(z[a:b], coef, k, two_k, tv_min, q_split, n_q, e_lo_d, neg, a1[a:b],
                    a2[a:b], a3[a:b])


@njit(**_JIT)
def _start_rows(z, coef, k, two_k, tv_min, q_split, n_q, e_lo_d, neg, a1, a2, a3):
    """The rows of :func:`_tempered_start_body`, in three loops from 0 to the length: the
    cells and coordinates, the table's cubics (a gather: scalar), the arguments; LLVM
    runs the first and last in SIMD lanes (one loop with the gather ran none: 3 ×
    slower).  Selects, not branches (& on booleans): the rows' cases are mixed."""
    nk, ik = -k, 1.0 / k
    m = z.shape[0]
    cells = np.empty(m, np.int64)
    for i in range(m):
        tv = -abs(z[i])
        q = -tv
        on_d = q > q_split
        b = _bits(tv + two_k if on_d else q)  # type: ignore[call-arg,var-annotated]
        mant = b & 0xFFFFFFFFFFFFF
        e = (b >> 52) - 1022
        a1[i] = (mant & 0x7FFFFFFFFFFF) * _TH                          # θ
        c = ((n_q + (e - e_lo_d) * _CELLS if on_d else (e - _Q_LOW) * _CELLS)
             + (mant >> _SHIFT))
        tiny = (q < _TINY) & (q <= q_split)
        live = (tv > tv_min) & (tv < 0.0)
        cells[i] = 4 * c if live & (not tiny) else 0                   # coef is flat
    for i in range(m):
        c4, th = cells[i], a1[i]
        a2[i] = ((coef[c4 + 3] * th + coef[c4 + 2]) * th + coef[c4 + 1]) * th + coef[c4]
    for i in range(m):
        tv = -abs(z[i])
        q = -tv
        tiny = (q < _TINY) & (q <= q_split)
        live = (tv > tv_min) & (tv < 0.0)
        r = q * ik if tiny else a2[i]
        r = r if live else 0.0
        a1[i] = -r
        a2[i] = r * (k if neg else nk)
        a3[i] = r * nk                  # (unused for s > 0: a store, not a branch)


def _tempered_values_body(neg, wide, v_mul, z, K, p, two_k, tv_min, q_split, scale, end,
                          h_end, e1s, Ls, Vs, Xs, Ems, u, d1, d2, nchunks):
    """scale × (ℓ(1, z), ℓ'(1, z), ℓ''(1, z)) from the transcendentals at ρ₀
    (``Tempered.class_one_values``: ``tempered_roots.finish``'s operations in its order,
    then the saturation rules), by chunks of rows: :func:`_neg_rows` for s < 0 (``neg``),
    :func:`_pos_rows` for s > 0 (straight-line code, so that it runs in SIMD lanes); ``wide``
    and ``v_mul``: the table's (a wide table's transcendentals are of ℓ = L − ln 2)."""
    n = z.shape[0]
    for t in prange(nchunks):
        a, b = n * t // nchunks, n * (t + 1) // nchunks
        if neg:
            _neg_rows(z[a:b], wide, K, p, two_k, tv_min, q_split, scale, end, h_end, e1s[a:b],
                      Ls[a:b], Vs[a:b], Xs[a:b], Ems[a:b], u[a:b], d1[a:b], d2[a:b])
        else:
            _pos_rows(z[a:b], wide, v_mul, K, p, two_k, tv_min, q_split, scale, end, h_end,
                      e1s[a:b], Ls[a:b], Vs[a:b], Xs[a:b], u[a:b], d1[a:b], d2[a:b])


@njit(**_JIT)
def _pos_rows(z, wide, v_mul, K, p, two_k, tv_min, q_split, scale, end, h_end, e1s, Ls, Vs,
              Xs, u, d1, d2):
    """The rows of :func:`_tempered_values_body` for s > 0: a loop from 0 to the length, which
    LLVM runs in SIMD lanes (from a chunk's bounds it did not: 5 × slower)."""
    ph = p / K
    for i in range(z.shape[0]):
        zi = z[i]
        tv = -abs(zi)
        e1, L, V, X = e1s[i], Ls[i], Vs[i], Xs[i]        # Em is X − 1 (s > 0)
        if wide:
            e1 = 1.0 + e1
        u1 = 1.0 + e1
        T = V if wide else two_k * V
        D = X + e1
        cD = (K + 1.0) * e1 * D - (K * X + e1) * u1
        y = -K * (L + _LN2 if wide else L)
        dm = _em_series(y) if y >= -0.0625 else V * v_mul - 1.0
        f = (T * X - two_k * dm) - (tv + two_k) if -tv > q_split else T * (X - 1.0) - tv
        delta, e1n, dL = _halley(K, T, D, f, cD, u1, e1)
        x, R, h = _pos_values(wide, K, two_k, ph, V, X, e1n, dL, delta)
        _outputs(i, zi, tv, tv_min, x, R, h, scale, end, h_end, u, d1, d2)


@njit(**_JIT)
def _neg_rows(z, wide, K, p, two_k, tv_min, q_split, scale, end, h_end, e1s, Ls, Vs, Xs, Ems,
              u, d1, d2):
    """The rows of :func:`_tempered_values_body` for s < 0: a loop from 0 to the length, which
    LLVM runs in SIMD lanes (from a chunk's bounds it did not: 5 × slower)."""
    ph = p / K
    for i in range(z.shape[0]):
        zi = z[i]
        tv = -abs(zi)
        e1, V, X, Em = e1s[i], Vs[i], Xs[i], Ems[i]      # L is in V: unused
        if wide:
            e1 = 1.0 + e1
        u1 = 1.0 + e1
        T = (V if wide else two_k * (1.0 + V)) * X
        Z = e1 / X
        D = 1.0 + Z
        cD = (K + e1) * D - (K + 1.0) * Z * u1
        if wide:
            f = Em - tv / T
            T = 1.0
        else:
            f = T * Em - tv
        delta, e1n, dL = _halley(K, T, D, f, cD, u1, e1)
        x, R, h = _neg_values(wide, K, two_k, ph, V, X, e1n, dL, delta)
        _outputs(i, zi, tv, tv_min, x, R, h, scale, end, h_end, u, d1, d2)


@njit(inline="always", **_JIT)
def _outputs(i, zi, tv, tv_min, x, R, h, scale, end, h_end, u, d1, d2):
    """Row i of scale × (ℓ, ℓ', ℓ''): saturated rows (tv ≤ tv_min) x = 0, R = h = 0 (NaN:
    x NaN); the curvature where x = 0 is the domain end's limit, else 0."""
    live = tv > tv_min
    x = x if live else (0.0 if tv == tv else tv)
    R = R if live else 0.0
    h = h if live else 0.0
    m = -zi
    u[i] = scale * ((m if m > 0.0 else (m if m != m else 0.0)) + R)
    d1[i] = scale * ((1.0 - x) - 1.0 if zi > 0 else x - 1.0)
    h = h if x > 0.0 else (h_end if abs(zi) == end else 0.0)
    d2[i] = scale * h


#: ρ₀ from the table at the margins (U-Boost of a tempered family with a table)
TEMPERED_START = parallel_pair(_tempered_start_body)
#: scale × the tempered loss's (ℓ, ℓ', ℓ'') from the transcendentals at ρ₀, s > 0 / s < 0
TEMPERED_VALUES = parallel_pair(_tempered_values_body)

_scratch = threading.local()


def tempered_values_into(tab, z, scale, end, h_end, out, nparts):
    """``out[:] = scale × (ℓ, ℓ', ℓ'')`` of a tempered family with a root table ``tab``
    (``Tempered.class_one_values``, the same numbers to the bit): the start and the last
    step compiled, the five exponentials and logarithms between them in NumPy (SIMD:
    ~10 × faster than a compiled loop's calls to libm), in five scratch rows (kept a
    thread, reused while n is the same)."""
    from ...numerics.parallel import run
    par, n = nparts > 1, z.shape[0]
    buf = getattr(_scratch, "buf", None)
    if buf is None or buf.shape[1] != n:
        buf = _scratch.buf = np.empty((5, n))
    e1, L, V, X, Em = buf
    run(TEMPERED_START, par, z, tab.coef.reshape(-1), tab.k, tab.two_k, tab.tv_min, tab.q_split,
        tab.n_q, tab.e_lo_d, tab.neg, e1, X, Em, nparts)
    tempered_roots.transcendentals(tab, e1, L, V, X, Em)
    run(TEMPERED_VALUES, par, bool(tab.neg), bool(tab.wide), tab.v_mul, z, tab.k, tab.p,
        tab.two_k, tab.tv_min, tab.q_split, scale, end, h_end, *buf, *out, nparts)
