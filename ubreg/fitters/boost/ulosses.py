"""U functions of U-Boost (paper 003 §4.2; docs/math.md §6).

A U function is decreasing with U'(−z) = e^z U'(z) (eq. 4.3): then the
minimiser of E U(Y F(X)) is the log-odds Λ = ln P(Y=+1|x)/P(Y=−1|x)
(Theorem 1), so p̂ = expit(F) whatever U.  Built in:

==============  ==============================  =====================
name            U(z)                            note
==============  ==============================  =====================
"logistic"      ln(1 + e^−z)                    LogitBoost
"exponential"   e^(−z/2)                        Gentle AdaBoost
"squared"       ½ (1 + e^z)^−2                  U'' < 0 for z < −ln 2
U_alpha(α)      ∫_z^∞ dt/(e^((1+α)t/2) + e^((1−α)t/2))   α=1 logistic, α=0 exponential
==============  ==============================  =====================

A user-defined U is given by U' and U'' (and optionally U): (4.3) is checked
numerically on z ∈ [−10, 10] and a clear ValueError names the failing z.
When U itself is not given it is tabulated once from U' (its risk path is then
accurate to about 1e-8 on |z| ≤ 40).

All built-ins are computed without overflow at |z| = 1e3 (expit, logaddexp,
exponents capped).
"""
from __future__ import annotations

import abc
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import cumulative_trapezoid
from scipy.special import expit

from ...numerics.warnings import user_stacklevel

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ExponentialU", "Logistic", "Squared", "ULoss", "U_alpha", "U_custom", "resolve_U",
           "check_loss_arguments"]

_EXP_CAP = 700.0
#: a function of U_custom (U', U'' or U): an array of margins in, values out
UFunction: TypeAlias = Callable[[np.ndarray], ArrayLike]


def _f(z: ArrayLike) -> np.ndarray:
    return np.asarray(z, dtype=np.float64)


class ULoss(abc.ABC):
    """A U function: ``U(z)``, ``d1(z)`` = U'(z) < 0, ``d2(z)`` = U''(z).

    ``newton_weight(z, F)`` is the curvature used by the Newton step: U''(z)
    where it is positive, otherwise the expected curvature −expit(F)U'(F),
    which (4.3) makes positive for every U (E_y U''(yF) = −expit(F)U'(F)).
    """

    name = "U"

    @abc.abstractmethod
    def U(self, z: ArrayLike) -> np.ndarray:
        """U(z)."""

    @abc.abstractmethod
    def d1(self, z: ArrayLike) -> np.ndarray:
        """U'(z) < 0."""

    @abc.abstractmethod
    def d2(self, z: ArrayLike) -> np.ndarray:
        """U''(z)."""

    def values(self, z: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(U(z), U'(z), U''(z)) in one pass (subclasses share the exponentials)."""
        return self.U(z), self.d1(z), self.d2(z)

    def values_into(self, z: np.ndarray, out: np.ndarray) -> None:
        """``out[0], out[1], out[2] = values(z)``: the same numbers written into a
        caller's (3, n) buffer, so that a boosting loop allocates no per-iteration
        arrays (subclasses compute in place)."""
        out[0], out[1], out[2] = self.values(z)

    def newton_weight(self, z: ArrayLike, F: ArrayLike,
                      d2: np.ndarray | None = None) -> np.ndarray:
        """Curvature of the Newton step: U''(z), or −expit(F)U'(F) where U'' ≤ 0."""
        h = self.d2(z) if d2 is None else d2
        bad = ~(h > 0)
        if np.any(bad):
            h = np.where(bad, -expit(F) * self.d1(F), h)
        return h

    def check_bayes(self, grid: ArrayLike | None = None, rtol: float = 1e-6) -> Self:
        """Raise ValueError unless U' < 0 and U'(−z) = e^z U'(z) (eq. 4.3) on ``grid``."""
        z = np.linspace(-10.0, 10.0, 401) if grid is None else _f(grid)
        with np.errstate(all="ignore"):
            lhs = _f(self.d1(-z))
            rhs = np.exp(z) * _f(self.d1(z))
        if not np.all(np.isfinite(lhs)) or not np.all(np.isfinite(rhs)):
            raise ValueError(f"U' of {self.name!r} is not finite on [-10, 10]")
        if np.any(_f(self.d1(z)) >= 0):
            bad = z[np.argmax(_f(self.d1(z)) >= 0)]
            raise ValueError(f"U of {self.name!r} must be decreasing (U' < 0); U'({bad:g}) ≥ 0")
        err = np.abs(lhs - rhs) / np.maximum(np.abs(lhs), np.abs(rhs))
        k = int(np.argmax(err))
        if err[k] > rtol:
            raise ValueError(
                f"U of {self.name!r} is not Bayes optimal: eq. (4.3) U'(-z) = exp(z) U'(z) fails "
                f"at z = {z[k]:g} (U'(-z) = {lhs[k]:.6g}, exp(z) U'(z) = {rhs[k]:.6g}); the "
                "minimiser of the risk would not be the log-odds, and expit(F) not a posterior")
        return self

    def __repr__(self) -> str:
        return f"U({self.name!r})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name))


class Logistic(ULoss):
    """U(z) = ln(1 + e^−z) (paper 003 example ii): LogitBoost."""

    name = "logistic"

    def U(self, z: ArrayLike) -> np.ndarray:
        return np.logaddexp(0.0, -_f(z))

    def d1(self, z: ArrayLike) -> np.ndarray:
        return -expit(-_f(z))

    def d2(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        return expit(z) * expit(-z)

    def values(self, z: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        z = _f(z)
        e = np.exp(-np.abs(z))                 # ≤ 1: no overflow
        lo, hi = e / (1.0 + e), 1.0 / (1.0 + e)
        pos = z >= 0
        s_neg = np.where(pos, lo, hi)          # expit(−z)
        s_pos = np.where(pos, hi, lo)          # expit(z)
        return np.log1p(e) + np.maximum(-z, 0.0), -s_neg, s_neg * s_pos

    def values_into(self, z: np.ndarray, out: np.ndarray) -> None:
        # values()'s arithmetic, operation for operation, in out's rows: the
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


class ExponentialU(ULoss):
    """U(z) = e^(−z/2) (paper 003 example iii): Gentle AdaBoost on F/2."""

    name = "exponential"

    def U(self, z: ArrayLike) -> np.ndarray:
        return np.exp(np.minimum(-0.5 * _f(z), _EXP_CAP))

    def d1(self, z: ArrayLike) -> np.ndarray:
        return -0.5 * self.U(z)

    def d2(self, z: ArrayLike) -> np.ndarray:
        return 0.25 * self.U(z)

    def values(self, z: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        u = self.U(z)
        return u, -0.5 * u, 0.25 * u

    def values_into(self, z: np.ndarray, out: np.ndarray) -> None:
        u, d1, d2 = out
        np.multiply(z, -0.5, out=u)
        np.minimum(u, _EXP_CAP, out=u)
        np.exp(u, out=u)
        np.multiply(u, -0.5, out=d1)
        np.multiply(u, 0.25, out=d2)


class Squared(ULoss):
    """U(z) = ½(1 + e^z)^−2 (paper 003 example iv): the squared error of expit(F)."""

    name = "squared"

    def U(self, z: ArrayLike) -> np.ndarray:
        return 0.5 * expit(-_f(z)) ** 2

    def d1(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        return -expit(-z) ** 2 * expit(z)

    def d2(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        s, t = expit(z), expit(-z)
        return t * t * s * (2.0 * s - t)


class _Tabulated(ULoss):
    """U from U' by the integral U(z) = ∫_z^∞ −U'(t) dt on a fine grid."""

    _L = 40.0

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        if getattr(self, "_grid", None) is None:
            grid = np.linspace(-self._L, self._L, 32001)
            d = -_f(self.d1(grid))
            tail = cumulative_trapezoid(d[::-1], -grid[::-1], initial=0.0)[::-1]
            self._grid, self._vals = grid, tail
        return self._grid, self._vals

    def U(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        grid, vals = self._table()
        inside = np.interp(z, grid, vals)
        # below the grid: continue linearly with slope U'(−L)
        below = vals[0] - (z + self._L) * (-_f(self.d1(-self._L)))
        return np.where(z < -self._L, below, np.where(z > self._L, 0.0, inside))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_grid", None)
        state.pop("_vals", None)
        return state

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__getstate__() == other.__getstate__()

    __hash__ = ULoss.__hash__


class U_alpha(_Tabulated):
    """U_α(z) = ∫_z^∞ dt / (e^((1+α)t/2) + e^((1−α)t/2)), α ∈ [0, 1] (paper 003 §4.2).

    α = 1 is the logistic U, α = 0 the exponential e^(−z/2).  U' = −1/(…) is
    evaluated as −exp(−logaddexp(·, ·)); U'' = −U'((1 − α)/2 + α·expit(αz)).
    """

    def __init__(self, alpha: float) -> None:
        alpha = float(alpha)
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"U_alpha needs 0 <= alpha <= 1, got alpha={alpha!r}")
        self.alpha = alpha
        self.name = f"U_alpha({alpha:g})"

    def d1(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        a = self.alpha
        return -np.exp(np.minimum(-np.logaddexp((1 + a) * z / 2, (1 - a) * z / 2), _EXP_CAP))

    def d2(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        a = self.alpha
        return -self.d1(z) * ((1 - a) / 2 + a * expit(a * z))

    def __repr__(self) -> str:
        return f"U_alpha({self.alpha!r})"


class U_custom(_Tabulated):
    """A user's U from U' (``d1``) and U'' (``d2``), optionally U itself.

    Eq. (4.3) is checked on construction; a U that fails raises ValueError.
    Functions defined by ``lambda`` do not pickle; use module-level functions
    if the fitted model is to be saved.
    """

    def __init__(self, d1: UFunction, d2: UFunction, U: UFunction | None = None,
                 name: str = "custom", check: bool = True) -> None:
        if not callable(d1) or not callable(d2) or (U is not None and not callable(U)):
            raise TypeError("U_custom needs callables d1 = U' and d2 = U'' (and optionally U)")
        self._d1, self._d2, self._U = d1, d2, U
        self.name = name
        if check:
            self.check_bayes()

    def d1(self, z: ArrayLike) -> np.ndarray:
        return _f(self._d1(_f(z)))

    def d2(self, z: ArrayLike) -> np.ndarray:
        return _f(self._d2(_f(z)))

    def U(self, z: ArrayLike) -> np.ndarray:
        if self._U is not None:
            return _f(self._U(_f(z)))
        return super().U(z)


_BUILTIN: dict[str, type[ULoss]] = {"logistic": Logistic, "exponential": ExponentialU,
                                    "squared": Squared}


def resolve_U(U: ULoss | str | tuple | list) -> ULoss:
    """A ULoss from a name, a ULoss, or a pair (U', U'') of callables (checked)."""
    if isinstance(U, ULoss):
        return U
    if isinstance(U, str):
        key = U.lower()
        if key not in _BUILTIN:
            raise ValueError(f"unknown U {U!r}; use one of {sorted(_BUILTIN)}, U_alpha(alpha), "
                             "or U_custom(d1, d2)")
        return _BUILTIN[key]()
    if isinstance(U, (tuple, list)) and len(U) in (2, 3) and all(map(callable, U)):
        return U_custom(*U)
    raise TypeError(f"U must be a name, U_alpha(alpha), U_custom(d1, d2) or a pair (U', U''), "
                    f"got {type(U).__name__}")


def check_loss_arguments(family: object, family_given: bool, U: object) -> None:
    """U-Boost's loss is U: a bag of families is refused, and a family named is ignored,
    with a warning (in memory and on Dask frames)."""
    if isinstance(family, list):
        raise ValueError("method 'uboost' takes its loss from U=, not a bag of families")
    if family_given:
        warnings.warn(f"method 'uboost' takes its loss from U=, not family=: "
                      f"family={family!r} is ignored (the loss is U={U!r}); pass U= "
                      "instead (e.g. U=\"logistic\", \"exponential\")", UserWarning,
                      stacklevel=user_stacklevel())
