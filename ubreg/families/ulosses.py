"""U-losses: the loss functions U of U-Boost (paper 003 §4.2; docs/math.md §6) as families.

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
accurate to about 1e-9, relatively, on |z| ≤ 40).

All built-ins are computed without overflow at |z| = 1e3 (expit, logaddexp,
exponents capped).

Each U is a :class:`~ubreg.families.Family` (``family=ubreg.U("exponential")``): the
loss of a row is U(y*η) (y U(η) + (1 − y) U(−η) for a proportion), its posterior
expit(η), its deviance 2 Σ w [ℓ(y, η) − min_η' ℓ(y, η')].  :func:`as_u_loss` gives the U
that U-Boost boosts for a family.
"""
from __future__ import annotations

import abc
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit

from ..errors import OptionError
from ..numerics.warnings import user_stacklevel
from .base import ArrayOrFloat, Family, PermissibleFamily

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ExponentialU", "FamilyLoss", "Logistic", "Squared", "ULoss", "U", "U_alpha",
           "U_custom",
           "resolve_U", "as_u_loss", "boosted_family"]

_EXP_CAP = 700.0
#: a function of U_custom (U', U'' or U): an array of margins in, values out
UFunction: TypeAlias = Callable[[np.ndarray], ArrayLike]


def _f(z: ArrayLike) -> np.ndarray:
    return np.asarray(z, dtype=np.float64)


def _mix(y: np.ndarray, a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """y a + (1 − y) b, a term whose weight is 0 taken as 0 (not 0 × ∞)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(y > 0, y * a, 0.0) + np.where(y < 1, (1.0 - y) * b, 0.0)


class ULoss(Family):
    """A U function: ``U(z)``, ``d1(z)`` = U'(z) < 0, ``d2(z)`` = U''(z).

    ``newton_weight(z, F)`` is the curvature used by the Newton step: U''(z)
    where it is positive, otherwise the expected curvature −expit(F)U'(F),
    which (4.3) makes positive for every U (E_y U''(yF) = −expit(F)U'(F)).

    As a family, the loss of a row is ℓ(y, η) = y U(η) + (1 − y) U(−η) (U(y*η) for
    y ∈ {0, 1}) and the posterior expit(η) (Theorem 1 of paper 003).
    """

    name = "U"
    #: U(z) as a formula, for summaries
    formula = "U(z)"
    divergence_formula = "2 Σ wᵢ [U(y*ᵢηᵢ) − min U]"

    #: the permissible family whose φ is −(the Bayes risk of U), up to scale: the tree
    #: criterion of this loss (None: not a closed form)
    criterion_name: str | None = None

    # ---- the Family protocol ------------------------------------------------------------
    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return expit(_f(eta))

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        eta = _f(eta)
        return expit(eta), expit(-eta)

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        p = _f(p)
        with np.errstate(divide="ignore"):
            return np.log(p) - np.log1p(-p)

    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        y, eta = _f(y), _f(eta)
        # 0 × U(−η) is 0 also where U(−η) is large (U is finite at every finite η)
        return _mix(y, self.U(eta), self.U(-eta))

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        y, eta = _f(y), _f(eta)
        return _mix(y, self.d1(eta), 0.0) - _mix(1.0 - y, self.d1(-eta), 0.0)

    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        y, eta = _f(y), _f(eta)
        return _mix(y, self.d2(eta), self.d2(-eta))

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """E(dℓ/dη)² = p U'(η)² + (1 − p) U'(−η)² with p = expit(η)."""
        eta = _f(eta)
        p, q = expit(eta), expit(-eta)
        with np.errstate(over="ignore"):
            return _mix(p, self.d1(eta) ** 2, 0.0) + _mix(q, self.d1(-eta) ** 2, 0.0)

    def divergence(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """ℓ(y, η) − ℓ(y, logit y): the loss above its least value at y (for y ∈ {0, 1},
        U(y*η) − U(∞), U(∞) taken at 1e3)."""
        y = _f(y)
        with np.errstate(divide="ignore"):
            best_eta = np.clip(np.log(y) - np.log1p(-y), -1e3, 1e3)
        return self.loss(y, eta) - self.loss(y, best_eta)

    @property
    def criterion_family(self) -> PermissibleFamily:
        """The permissible family of :attr:`criterion_name` (its φ is minus the Bayes risk
        min_η ℓ(p, η) of this U, up to scale: the same trees)."""
        if self.criterion_name is None:
            raise NotImplementedError(f"{self.name} names no split criterion")
        from .closed import Entropy, Gini, Matsushita
        closed: dict[str, type[Entropy | Gini | Matsushita]] = {
            "entropy": Entropy, "matsushita": Matsushita, "gini": Gini}
        return closed[self.criterion_name]()

    def intercept_only_eta(self, ybar: float) -> float:
        if not 0.0 < ybar < 1.0:
            raise ValueError("the intercept-only optimum is at infinity when y has one class")
        return float(self.link(ybar))

    def describe(self) -> str:
        return f"U-loss {self.name}: U(z) = {self.formula}"

    def params(self) -> dict:
        return {}

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

    def initial_F(self, ybar: float) -> float:
        """F₀ of ``init="mean"``: the constant minimiser of the risk when the weighted mean
        of y is ``ybar`` (the log-odds for every U, Theorem 1)."""
        return float(np.log(ybar) - np.log1p(-ybar))

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
    """U(z) = ln(1 + e^−z) (paper 003 example ii): LogitBoost.

    The Bernoulli negative log-likelihood: its deviance is the binomial deviance."""

    name = "logistic"
    formula = "ln(1 + e^−z)"
    likelihood_deviance = True
    binomial_likelihood = True

    #: its Bayes risk min_η ℓ(p, η) is the entropy of p in nats
    criterion_name = "entropy"

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        eta = _f(eta)
        return expit(eta) * expit(-eta)

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


class ExponentialU(ULoss):
    """U(z) = e^(−z/2) (paper 003 example iii): Gentle AdaBoost on F/2."""

    name = "exponential"
    formula = "e^(−z/2)"

    #: the Bayes risk of e^(−z/2) is 2√(p(1 − p))
    criterion_name = "matsushita"

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        # p e^(−η)/4 + (1 − p) e^(η)/4 = (expit(−η) + expit(η))/4 = 1/4
        return np.full(np.shape(eta), 0.25)

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
    formula = "½(1 + e^z)^−2"

    #: the Bayes risk of ½(1 + e^z)^−2 is p(1 − p)/2
    criterion_name = "gini"

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
    """U from U' by the integral U(z) = ∫_z^∞ −U'(t) dt on a fine grid.

    The integral is taken by the trapezoid rule with its end correction in U''
    (exact for cubics), and U between the nodes is the cubic Hermite interpolant of
    the node values and slopes U' (so U is accurate to O(h⁴), its derivative agrees
    with U' at the nodes and its minimisers are those of the exact U to about 1e-9).
    """

    _L = 40.0

    def _table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if getattr(self, "_grid", None) is None:
            grid = np.linspace(-self._L, self._L, 32001)
            h = grid[1] - grid[0]
            d1, d2 = _f(self.d1(grid)), _f(self.d2(grid))
            # ∫ over [x_i, x_{i+1}] of −U' = h(f_i + f_{i+1})/2 + h²(f'_i − f'_{i+1})/12
            pieces = -h * (d1[:-1] + d1[1:]) / 2 - h * h * (d2[:-1] - d2[1:]) / 12
            tail = np.r_[np.cumsum(pieces[::-1])[::-1], 0.0]
            self._grid, self._vals, self._slopes = grid, tail, d1
        return self._grid, self._vals, self._slopes

    def U(self, z: ArrayLike) -> np.ndarray:
        z = _f(z)
        grid, vals, slopes = self._table()
        h = grid[1] - grid[0]
        i = np.clip(np.searchsorted(grid, z, side="right") - 1, 0, len(grid) - 2)
        s = np.clip((z - grid[i]) / h, 0.0, 1.0)
        s2, s3 = s * s, s * s * s
        inside = ((2 * s3 - 3 * s2 + 1) * vals[i] + (s3 - 2 * s2 + s) * h * slopes[i]
                  + (-2 * s3 + 3 * s2) * vals[i + 1] + (s3 - s2) * h * slopes[i + 1])
        # below the grid: continue linearly with slope U'(−L)
        below = vals[0] - (z + self._L) * (-slopes[0])
        return np.where(z < -self._L, below, np.where(z > self._L, 0.0, inside))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for cached in ("_grid", "_vals", "_slopes"):
            state.pop(cached, None)
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
        self.formula = f"∫_z^∞ dt/(e^((1+α)t/2) + e^((1−α)t/2)), α = {alpha:g}"

    def params(self) -> dict:
        return {"alpha": self.alpha}

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
        self.formula = "a user's U" if U is not None else "∫_z^∞ −U'(t) dt from a user's U'"
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


class FamilyLoss(ULoss):
    """The loss of a family as the margin loss U-Boost boosts: U(z) = c ℓ(1, z), the loss of
    a row of class 1 at the margin z = y*F, with c = ¼/ℓ''(1, 0) so that the curvature at
    z = 0 is the logistic U's whatever the family's scale (``min_child_weight`` then
    means the same; a constant multiple of a family's loss is the same fit).

    F is the family's link value: p̂ is the family's posterior, F₀ its intercept-only
    optimum.  A balanced loss (ℓ(0, η) = ℓ(1, −η)) is a function of the margin, which is
    all U-Boost needs; eq. (4.3) is not, so the posterior is not expit(F).  Where a row is
    saturated (past a bounded link's domain the loss is affine and has no curvature) its
    Newton weight is the curvature at the end of the domain (the limit from inside), at
    most the curvature at z = 0, so that the Newton step back into the domain is finite:
    a departure from paper 003, whose U's all have positive curvature.
    """

    def __init__(self, family: Family) -> None:
        self.family = family
        self.name = family.name
        self.scale = 0.25 / float(family.hessian(1.0, 0.0))
        self.formula = f"{self.scale:.4g} ℓ(1, z), ℓ the loss of {family.describe()}"
        self.likelihood_deviance = family.likelihood_deviance

    def U(self, z: ArrayLike) -> np.ndarray:
        return self.scale * _f(self.family.loss(1.0, _f(z)))

    def d1(self, z: ArrayLike) -> np.ndarray:
        return self.scale * _f(self.family.gradient(1.0, _f(z)))

    def d2(self, z: ArrayLike) -> np.ndarray:
        return self.scale * _f(self.family.hessian(1.0, _f(z)))

    def values(self, z: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # a family whose three class-1 terms share costly work (tempered: a root
        # search a row) gives them in one call
        one = getattr(self.family, "class_one_values", None)
        if one is None:
            return super().values(z)
        u, d1, d2 = one(_f(z))
        return self.scale * _f(u), self.scale * _f(d1), self.scale * _f(d2)

    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self.family.posterior(eta)

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        return self.family.posterior_pair(eta)

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return self.family.link(p)

    def initial_F(self, ybar: float) -> float:
        return float(self.family.intercept_only_eta(ybar))

    def newton_weight(self, z: ArrayLike, F: ArrayLike,
                      d2: np.ndarray | None = None) -> np.ndarray:
        """ℓ'' scaled; at a saturated row, the curvature at the nearer end of the link
        domain (its limit from inside), at most the curvature at 0."""
        h = self.d2(z) if d2 is None else d2
        flat = ~(h > 0)
        if not np.any(flat):
            return h
        # only the flat rows change: the curvature at the two ends, once, then per row
        # (no posterior a row; the same numbers)
        rows = np.flatnonzero(flat)
        pos = _f(z).reshape(-1)[rows] > 0
        edges, finite = self.flat_weights()
        out = np.array(h, dtype=float)
        out.reshape(-1)[rows] = np.where(np.where(pos, finite[1], finite[0]),
                                         np.where(pos, edges[1], edges[0]),
                                         out.reshape(-1)[rows])
        return out

    def flat_weights(self) -> tuple[tuple[float, float], tuple[bool, bool]]:
        """:meth:`newton_weight` at a saturated row with z ≤ 0 and with z > 0: the scaled
        curvature at the lower and upper end of the link domain, at most ¼ (NaN as 0);
        and whether each end is finite (at an infinite end the row keeps its ℓ'').
        Computed once (the family is immutable), read by U-Boost's compiled pass."""
        cached = self.__dict__.get("_end_curvatures")
        if cached is None:
            lo, hi = self.family.link_domain
            with np.errstate(all="ignore"):
                at_end = self.scale * _f(self.family.hessian(1.0, np.array([lo, hi])))
            edge = np.minimum(np.nan_to_num(at_end, nan=0.0, posinf=0.25), 0.25)
            cached = ((float(edge[0]), float(edge[1])),
                      (bool(np.isfinite(lo)), bool(np.isfinite(hi))))
            self._end_curvatures = cached
        return cached

    def describe(self) -> str:
        return self.family.describe()

    def params(self) -> dict:
        return {"family": self.family}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_end_curvatures", None)          # newton_weight's cache
        return state

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__getstate__() == other.__getstate__()

    __hash__ = ULoss.__hash__

    def __repr__(self) -> str:
        return f"FamilyLoss({self.family!r})"


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


def U(name: str) -> ULoss:
    """The built-in U-loss called ``name``: ``"logistic"`` ln(1 + e^−z) (LogitBoost),
    ``"exponential"`` e^(−z/2) (Gentle AdaBoost), ``"squared"`` ½(1 + e^z)^−2 (paper 003
    §4.2).  For ``family=``, e.g. ``ubreg.fit(..., family=ubreg.U("exponential"),
    method="uboost")``."""
    if not isinstance(name, str):
        raise TypeError(f"U takes a name, one of {sorted(_BUILTIN)}; got "
                        f"{type(name).__name__} (U_alpha(alpha) and U_custom(d1, d2) build "
                        "the others)")
    return resolve_U(name)


def boosted_family(family: Family | list, family_given: bool, U: object) -> Family:
    """The family U-Boost boosts: ``family=`` (entropy when not given), or the U of the
    deprecated ``U=`` (with a FutureWarning; both at once is refused).  Checked by
    :func:`as_u_loss`; the same in memory and on Dask frames."""
    if U is None:
        chosen = family
    else:
        if family_given:
            raise OptionError(f"give the loss once: family={family!r} and U={U!r} were both "
                             "given (U= is the old spelling of family=ubreg.U(...))")
        chosen = resolve_U(U)             # type: ignore[arg-type]  # checked by resolve_U
        warnings.warn(f"U= is deprecated: pass family={chosen!r} instead (the U-losses are "
                      "families: ubreg.U(name), ubreg.U_alpha(alpha), ubreg.U_custom(d1, d2))",
                      FutureWarning, stacklevel=user_stacklevel())
    as_u_loss(chosen)                     # refuses a bag of families
    return chosen  # type: ignore[return-value]  # a list is refused by as_u_loss


def as_u_loss(family: Family | list) -> ULoss:
    """The margin loss U-Boost boosts for ``family``: a U-loss itself, the logistic U for
    ``Permissible("entropy")`` (the same loss, ln(1 + e^−y*η), and its compiled passes),
    and :class:`FamilyLoss` for any other family."""
    from .closed import Entropy
    if isinstance(family, ULoss):
        return family
    if type(family) is Entropy:
        return Logistic()
    if isinstance(family, list):
        raise OptionError("method 'uboost' boosts one loss, not a bag of families")
    if isinstance(family, Family):
        return FamilyLoss(family)
    raise OptionError(f"method 'uboost' boosts a family, got {type(family).__name__}")
