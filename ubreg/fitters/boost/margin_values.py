"""A margin loss and its first two derivatives written into a caller's buffer.

U-Boost evaluates (U(z), U'(z), U''(z)) at z = y*F once per iteration on every
row; writing them into one (3, n) buffer keeps the loop free of per-iteration
allocations.  The logistic U, the default, is computed here in place with its
selections by sign compiled (the kernel belongs to the fitter, not to the family);
any other loss writes through its own ``values_into``.
"""
from __future__ import annotations

import numpy as np

from ...families.closed import Matsushita, Mu
from ...families.tempered import Tempered
from ...families.ulosses import FamilyLoss, Logistic, ULoss

__all__ = ["values_into"]

#: rows worth splitting a compiled pass across the cores
_PARALLEL_ROWS = 20_000


def values_into(U: ULoss, z: np.ndarray, out: np.ndarray) -> None:
    """``out[0], out[1], out[2] = U.values(z)``, the same numbers (Matsushita's loss: to
    rounding, the μ family's too, the tempered one's at t = ½ and at any t with a root
    table: to the bit; one compiled pass a row instead of three NumPy ones, or instead of
    a root search a row)."""
    if type(U) is FamilyLoss and type(U.family) is Matsushita:
        from ...numerics.parallel import parts, run
        from ._kernels import MATSUSHITA_VALUES
        n = parts() if len(z) >= _PARALLEL_ROWS else 1
        run(MATSUSHITA_VALUES, n > 1, np.ascontiguousarray(z, dtype=np.float64), U.scale,
            *out, n)
        return
    if type(U) is FamilyLoss and type(U.family) is Mu:
        from ...numerics.parallel import parts, run
        from ._kernels import MU_VALUES
        n = parts() if len(z) >= _PARALLEL_ROWS else 1
        c = 1.0 - U.family.mu
        run(MU_VALUES, n > 1, np.ascontiguousarray(z, dtype=np.float64), c, U.family.b,
            U.scale, *out, n)
        return
    if type(U) is FamilyLoss and type(U.family) is Tempered and U.family.t == 0.5:
        from ...numerics.parallel import parts, run
        from ._tempered_kernels import TEMPERED_HALF_VALUES
        n = parts() if len(z) >= _PARALLEL_ROWS else 1
        run(TEMPERED_HALF_VALUES, n > 1, np.ascontiguousarray(z, dtype=np.float64), U.scale,
            U.family.link_domain[1], U.family.end_curvature(), *out, n)
        return
    if type(U) is FamilyLoss and type(U.family) is Tempered and U.family.root_table():
        from ...numerics.parallel import parts
        from ._tempered_kernels import tempered_values_into
        tempered_values_into(U.family.root_table(), np.ascontiguousarray(z, dtype=np.float64),
                             U.scale, U.family.link_domain[1], U.family.end_curvature(), out,
                             parts() if len(z) >= _PARALLEL_ROWS else 1)
        return
    if type(U) is not Logistic:
        U.values_into(z, out)
        return
    # Logistic.values()'s arithmetic, operation for operation, in out's rows: the
    # exponential and logarithm in NumPy, the selections by sign compiled
    from ._kernels import logistic_from_exp
    u, d1, d2 = out
    tail = np.empty_like(z)
    np.abs(z, out=u)
    np.negative(u, out=u)
    np.exp(u, out=u)                        # e = exp(−|z|) ≤ 1: no overflow
    logistic_from_exp(z, u, d1, d2, tail)
    np.log1p(u, out=u)
    np.add(u, tail, out=u)
