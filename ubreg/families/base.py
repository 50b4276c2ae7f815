"""The family protocol: a per-row loss on the link scale.

Every fitter in ubreg talks to a family through the five link-scale methods of
:class:`Family` (``posterior``, ``loss``, ``gradient``, ``hessian``,
``score_variance``) and the public attributes and methods below, never by
testing its class: what a fitter may specialise on (a closed form, a compiled
kernel, a bound) is something the family states about itself.  Permissible
families (docs/math.md §2) derive all of it from the generator φ;
:class:`~ubreg.families.exponential.Exponential` is the one loss that is not
balanced and defines them directly.

Conventions (docs/math.md §1): ``y`` in {0, 1}, ``ystar = 2y - 1``, ``eta`` is the
link value H(x) (the natural parameter θ), ``p`` the posterior ∇φ⁻¹(η).
Families work per row and never sum.
"""
from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["Family", "PermissibleFamily", "has_proportions"]

#: what the vectorised methods take and give: an array, or one number (a float or a numpy
#: scalar, for which a method gives a number or a 0-d array)
ArrayOrFloat: TypeAlias = np.ndarray | float


def _as_float(x: ArrayLike) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def has_proportions(y: ArrayLike) -> bool:
    """Whether a response holds proportions strictly between 0 and 1 (a grouped
    binomial response, R's ``cbind(successes, failures)``) rather than 0/1 classes."""
    y = np.asarray(y)
    return bool(y.dtype.kind == "f" and np.any((y > 0.0) & (y < 1.0)))


class Family(abc.ABC):
    """A strictly convex loss of the edge y*·η, evaluated per row (or, for R's binomial
    likelihood with a non-canonical link, :mod:`ubreg.families.links`, a proper loss of
    y and η).

    Subclasses implement the link-scale methods.  All methods are vectorised,
    accept scalars or arrays, and return finite values for every finite ``eta``
    (in particular at |η| = 1e3).
    """

    #: short name used in summaries and registries
    name: str = "family"
    #: True when the loss is a balanced convex loss b_φ F_φ (docs/math.md eq. 30)
    is_permissible: bool = False
    #: True when 2 Σ w ℓ is the binomial deviance (the loss is the Bernoulli negative
    #: log-likelihood in nats): deviance differences are then likelihood-ratio statistics
    #: with a χ² reference (docs/math.md §3); only ``entropy``
    likelihood_deviance: bool = False
    #: True when the loss is a constant multiple of the Bernoulli negative log-likelihood
    #: (``entropy``, and ``entropy2`` in bits): the model-based covariance is the inverse
    #: Fisher information, R's default; any other family's default is the sandwich
    binomial_likelihood: bool = False
    #: with ``binomial_likelihood``, the factor that turns this family's deviance into the
    #: binomial deviance in nats, the likelihood-ratio scale (1; ln 2 for ``entropy2``)
    likelihood_scale: float = 1.0
    #: what the deviance of this family sums, for summaries
    divergence_formula: str = "2 Σ wᵢ ℓ(yᵢ, ηᵢ)"
    #: the range of the link (of ∇φ on (0, 1) for a permissible family): the values
    #: the link can take
    link_domain: tuple[float, float] = (-np.inf, np.inf)
    #: True when the loss continues past ``link_domain`` by a closed form (gini: the
    #: linear probability model) instead of saturating
    extends_past_domain: bool = False
    #: True when the loss is exp(−y*η): the root of eq. (70) for a feature valued in
    #: {−1, +1} is then AdaBoost's δ = ½ ln(W₊/W₋) (docs/math.md §4)
    adaboost_closed_form: bool = False
    #: True when :meth:`hessian` gives the expected curvature E[d²ℓ/dη²] under the fitted
    #: posterior (the Fisher weight) rather than d²ℓ/dη²: A is then the expected
    #: information, R's for a non-canonical link (:class:`~ubreg.families.links.BinomialLink`);
    #: Newton steps take :meth:`newton_curvature`
    expected_curvature: bool = False
    #: True when only the linear fit of ``method="uls"`` (R's glm) takes this family: it
    #: has no φ for a tree criterion and no boosting is defined on it
    glm_only: bool = False

    @property
    def risk_scale(self) -> float:
        """c with the balanced loss F = ℓ/c: the surrogate risk ε = Σ wᵢ ℓᵢ/(c Σ wᵢ)
        (eq. 30, 37).  1 for a loss that is its own F."""
        return 1.0

    @property
    def separation_possible(self) -> bool:
        """Whether a linear fit can run off to infinity (Lemma 8): the link is
        unbounded on both sides and the loss does not continue by a closed form
        (the linear probability model has a finite optimum)."""
        lo, hi = self.link_domain
        return not self.extends_past_domain and bool(np.isinf(lo) and np.isinf(hi))

    # ---- link scale: what the fitters use -------------------------------
    @abc.abstractmethod
    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """Estimated P(y = 1 | x) from the link value η."""

    @abc.abstractmethod
    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """Per-row surrogate loss ℓ(y, η) ≥ 0."""

    @abc.abstractmethod
    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dℓ/dη per row."""

    @abc.abstractmethod
    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """d²ℓ/dη² per row (a positive curvature weight)."""

    def newton_curvature(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """The row weight of a Newton step's curvature matrix Xᵀdiag(w·c)X: :meth:`hessian`.

        A family whose :meth:`hessian` is the expected curvature (``expected_curvature``)
        may give the observed d²ℓ/dη² here, where it is never negative, for Newton's
        quadratic convergence instead of Fisher scoring's linear one; inference keeps
        :meth:`hessian`.
        """
        return self.hessian(y, eta)

    @abc.abstractmethod
    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """E[(dℓ/dη)²] when y ~ Bernoulli(posterior(η)): the 'model' meat of
        the sandwich covariance (docs/math.md §3)."""

    def saturated(self, eta: ArrayOrFloat) -> np.ndarray:
        """Rows whose posterior is exactly 0 or 1 at this finite η, where the loss is
        affine and has no curvature (none for a loss with an unbounded link)."""
        return np.zeros(np.shape(eta), dtype=bool)

    def divergence(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """Per-row deviance term (half the deviance contribution): for a
        permissible family D_φ(y‖p̂) with p̂ the posterior (docs/math.md §3); for a
        loss that is not a Bregman divergence, the loss itself."""
        return self.loss(y, eta)

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        """(p, 1 - p), each computed without cancellation.

        The default uses the symmetry of the loss: 1 − p(η) = p(−η).
        """
        eta = _as_float(eta)
        return self.posterior(eta), self.posterior(-eta)

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """Inverse of :meth:`posterior` (η from p), where it exists."""
        raise NotImplementedError(f"{self.name} has no link function")

    def posterior_derivative(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dp̂/dη (R's ``mu.eta``); this default is a central difference, which families
        with a closed form replace."""
        eta = _as_float(eta)
        h = 1e-5 * np.maximum(1.0, np.abs(eta))
        return (self.posterior(eta + h) - self.posterior(eta - h)) / (2.0 * h)

    def scalar_posterior(self) -> Callable[[float], float]:
        """A float → float posterior, for loops that take one row at a time (the
        on-line learner, docs/math.md §9).

        This default goes through the vectorised :meth:`posterior` (about 10 µs a
        call); families with a closed form return it written in ``math`` (about
        0.1 µs).
        """
        post = self.posterior
        return lambda a: float(post(a))

    @property
    def criterion_family(self) -> PermissibleFamily:
        """The permissible family whose φ scores tree splits on this loss's example
        weights (docs/math.md §5, §6): the family itself when it is permissible."""
        raise NotImplementedError(f"{self.name} names no split criterion")

    def intercept_only_eta(self, ybar: float) -> float:
        """Link value of the intercept-only optimum, whose posterior is the
        weighted mean of y (docs/math.md §2, properness)."""
        return float(self.link(ybar))

    def describe(self) -> str:
        """One line for summaries."""
        return self.name

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({params})"

    def params(self) -> dict:
        """Parameters that identify the family (for repr, equality, reports)."""
        return {}

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.params().items()))))


class PermissibleFamily(Family):
    """A family generated by a permissible function φ (docs/math.md §2).

    φ is convex on [0, 1], symmetric about 1/2, with φ(0) = φ(1) = −a_φ and
    b_φ = −φ(1/2) − a_φ > 0.  The link is ∇φ, the posterior ∇φ⁻¹, the loss the
    Bregman divergence D_φ(y‖∇φ⁻¹(η)) = b_φ F_φ(y*η) (eq. 37), whose gradient
    in η is p − y and curvature 1/φ''(p) (docs/math.md §3).

    Subclasses give ``phi``, ``dphi``, ``dphi_inv`` (accurate for η ≤ 0, i.e.
    for the small posterior), ``d2phi``, ``a``, ``b``, ``link_domain``, and
    closed forms where they exist (``F``, ``hessian_eta``).

    Fitters may specialise on the closed forms a class declares:
    :attr:`impurity_form` (tree criteria), :attr:`posterior_form` (compiled
    kernels) and :meth:`scalar_posterior` (per-row loops).  These three are not
    inherited: a subclass that does not declare them anew gets the generic
    routes, which are correct whatever it overrides.
    """

    is_permissible = True
    divergence_formula = "2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ)"
    #: φ(0) = φ(1) = −a_φ
    a: float = 0.0
    #: b_φ = −φ(1/2) − a_φ
    b: float = 1.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A closed form describes the class that declares it.  A subclass that
        # does not declare its own may have changed φ or the posterior, so it
        # takes the generic routes rather than inheriting its parent's formulas.
        super().__init_subclass__(**kwargs)
        for name in _CLOSED_FORMS:
            if name not in cls.__dict__:
                setattr(cls, name, _GENERIC[name])

    # ---- the generator and its derivatives (probability scale) -----------
    @abc.abstractmethod
    def phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ(p), eq. (26)-(29), (35), (107)."""

    @abc.abstractmethod
    def dphi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ(p): the link."""

    @abc.abstractmethod
    def dphi_inv(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """∇φ⁻¹(η): the posterior (the 'transfer function' of Table 2)."""

    @abc.abstractmethod
    def d2phi(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """φ''(p) > 0 on (0, 1)."""

    # ---- derived objects ---------------------------------------------------
    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        return self.dphi(p)

    def posterior_derivative(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dp̂/dη = 1/φ''(p̂), the curvature in η (:meth:`hessian_eta`; 0 for a saturated
        row)."""
        return self.hessian_eta(eta)

    @property
    def risk_scale(self) -> float:
        """b_φ: F_φ = D_φ/b_φ (eq. 37)."""
        return self.b

    @property
    def criterion_family(self) -> PermissibleFamily:
        """The family itself: its φ is the UDT criterion (docs/math.md §5)."""
        return self

    # ---- closed forms a class declares (not inherited, see the class docstring) --
    @property
    def impurity_form(self) -> tuple[str, float] | None:
        """``(shape, c)`` with −φ(p) − a_φ = c·g(p) for a standard g, or None.

        shape ``"gini"``: g = p(1 − p); ``"entropy"``: g = −p ln p − (1 − p) ln(1 − p);
        ``"sqrt"``: g = √(p(1 − p)).  A tree node of weight w and positive weight wy
        has the term w(−φ(p) − a_φ) = c·w·g(wy/w) (docs/math.md §5), which the
        criteria of CART, C4.5 and Kearns–Mansour compute in closed form.  None:
        only φ itself is known.
        """
        return None

    @property
    def posterior_form(self) -> tuple[str, float] | None:
        """``(shape, c)`` naming how :meth:`posterior_pair` computes ∇φ⁻¹, or None.

        shape ``"linear"``: p = (1 + η/c)/2; ``"logistic"``: p = expit(cη) =
        1/(1 + exp(−cη)) (scipy's expit); ``"sqrt"``: with u = η/c and
        s = hypot(1, u), the small side ½/s/(s + |u|) and the large side 1 minus
        it.  A compiled loop that repeats these operations gets this family's
        posteriors bit for bit (docs/math.md §8).  None: no such closed form.
        """
        return None

    def h_star(self) -> float:
        """H* = sup_z 1/(b_φ φ''(∇φ⁻¹(z))) = 1/(b_φ min φ''), eq. (8) of paper 002.

        It is 1/(b_φ φ''(½)) for the families of Table 1 (docs/math.md §8).  The
        minimum is taken on a grid of [1e-6, 1 − 1e-6] and ½, so that families
        whose φ'' is smallest at the ends (``logcosh``) are covered, and H* stays
        finite when φ'' vanishes at 0 and 1 (tempered, t < 0).
        """
        p = np.concatenate([np.linspace(1e-6, 1.0 - 1e-6, 4001), [0.5]])
        with np.errstate(all="ignore"):
            d2 = np.asarray(self.d2phi(p), dtype=np.float64)
        d2 = d2[np.isfinite(d2) & (d2 > 0)]
        if d2.size == 0:
            raise ValueError(f"family {self.describe()}: φ'' is not positive and finite on (0, 1)")
        return 1.0 / (self.b * float(d2.min()))

    def curvature_lower_bound(self) -> float:
        """λ = inf φ'' over the closed [0, 1] = 1/sup_η :meth:`hessian_eta`, the
        curvature bound λ ≤ inf φ'' of eq. (97) (Theorem 3, docs/math.md §9).

        The supremum is taken over η on [max(lo, −50), min(hi, 50)] (2001 points
        and 0), which reaches the ends of a bounded link; unlike :meth:`h_star`'s
        grid, it sees φ'' → 0 at the ends, where no positive λ exists.

        Raises
        ------
        ValueError
            If φ'' → 0 somewhere on [0, 1].
        """
        lo, hi = self.link_domain
        lo, hi = max(lo, -50.0), min(hi, 50.0)
        grid = np.unique(np.r_[np.linspace(lo, hi, 2001), 0.0])
        with np.errstate(all="ignore"):
            h = np.asarray(self.hessian_eta(grid), dtype=float)
        sup = float(np.nanmax(h))
        if not (np.isfinite(sup) and sup > 0) or sup > 1e12:
            raise ValueError(f"family {self.describe()} has phi'' -> 0 somewhere on [0, 1]: "
                             "no positive lambda <= inf phi'' exists; pass eta= or lambda_= "
                             "explicitly")
        return 1.0 / sup

    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self.posterior_pair(eta)[0]

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        """(p, 1 − p) from the small-side inverse ∇φ⁻¹(−|η|), by symmetry."""
        eta = _as_float(eta)
        small = self._clip_prob(self.dphi_inv(self._clip_eta(-np.abs(eta))))
        large = 1.0 - small
        pos = eta > 0
        p = np.where(pos, large, small)
        q = np.where(pos, small, large)
        if self.extends_past_domain:
            # the closed-form extension (gini) lets p leave [0, 1]
            p_ext = self._posterior_extended(eta)
            outside = (eta < self.link_domain[0]) | (eta > self.link_domain[1])
            p = np.where(outside, p_ext, p)
            q = np.where(outside, 1.0 - p_ext, q)
        return p, q

    def _posterior_extended(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """p(η) past the link domain; required when ``extends_past_domain`` is True."""
        raise NotImplementedError(f"{type(self).__name__} sets extends_past_domain but does not "
                                  "define _posterior_extended")

    def _clip_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        lo, hi = self.link_domain
        if np.isfinite(lo) or np.isfinite(hi):
            return np.clip(eta, lo, hi)
        return eta

    @staticmethod
    def _clip_prob(p: ArrayOrFloat) -> ArrayOrFloat:
        return np.clip(p, 0.0, 1.0)

    def F(self, z: ArrayOrFloat) -> ArrayOrFloat:
        """The balanced convex loss F_φ(z) = (φ*(−z) − a_φ)/b_φ, eq. (30).

        Generic form through the posterior: with p = ∇φ⁻¹(z),
        b_φ F_φ(z) = D_φ(1‖p) = −a_φ − φ(p) − (1 − p) z, and linear past the
        link domain (the Legendre conjugate of φ restricted to [0, 1]).
        φ(p) is evaluated as φ(1 − p) (symmetry): for large z, p rounds to 1
        while 1 − p keeps its digits.
        """
        z = _as_float(z)
        lo, hi = self.link_domain
        zc = self._clip_eta(z)
        _, q = self.posterior_pair(zc)
        val = (-self.a - self.phi(q) - q * zc) / self.b
        # past the domain the conjugate is affine: 0 above, −z/b below
        # (φ*(−z) = −z − φ(1) = −z + a_φ there).  Written without lo, whose
        # value −∞ would give ∞ − ∞ (an invalid-value warning) in np.where.
        val = np.where(z > hi, 0.0, val)
        val = np.where(z < lo, -z / self.b, val)
        return np.maximum(val, 0.0)

    def D(self, u: ArrayOrFloat, v: ArrayOrFloat) -> ArrayOrFloat:
        """Bregman divergence D_φ(u‖v) = φ(u) − φ(v) − (u − v)∇φ(v)."""
        u, v = _as_float(u), _as_float(v)
        return self.phi(u) - self.phi(v) - (u - v) * self.dphi(v)

    def conjugate(self, u: ArrayOrFloat) -> ArrayOrFloat:
        """Legendre conjugate φ*(u) = u x* − φ(x*), x* = ∇φ⁻¹(u) (eq. 49)."""
        return self.b * self.F(-_as_float(u)) + self.a

    # ---- link-scale protocol -----------------------------------------------
    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """D_φ(y‖∇φ⁻¹(η)) = b_φ F_φ(y*η), eq. (37); for a proportion y ∈ (0, 1) (a
        grouped binomial response) D_φ(y‖p̂) itself, :meth:`proportion_loss`."""
        y, eta = _as_float(y), _as_float(eta)
        if has_proportions(y):
            return self.proportion_loss(y, eta)
        return self.b * self.F((2.0 * y - 1.0) * eta)

    def proportion_loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """D_φ(y‖p̂) for y ∈ [0, 1], p̂ = ∇φ⁻¹(η) (docs/math.md §3).

        The divergence is affine in y up to φ(y): D_φ(y‖p̂) = y D_φ(1‖p̂) +
        (1 − y) D_φ(0‖p̂) + φ(y) + a_φ, so it is computed from the two losses of
        eq. (37), whatever closed forms they have.  For ``entropy`` it is the
        binomial deviance term y ln(y/p̂) + (1 − y) ln((1 − y)/(1 − p̂)), with
        0 ln 0 = 0; its gradient in η is p̂ − y and its curvature 1/φ''(p̂), as for
        a 0/1 response.
        """
        y, eta = _as_float(y), _as_float(eta)
        y, eta = np.broadcast_arrays(y, eta)
        fractional = (y > 0.0) & (y < 1.0)
        with np.errstate(invalid="ignore"):
            const = np.where(fractional, self.phi(np.where(fractional, y, 0.5)) + self.a, 0.0)
        return (y * self.loss(np.ones_like(eta), eta)
                + (1.0 - y) * self.loss(np.zeros_like(eta), eta) + const)

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dℓ/dη = p − y (docs/math.md §3)."""
        p, _ = self.posterior_pair(eta)
        return p - _as_float(y)

    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """d²ℓ/dη² = 1/φ''(p); does not depend on y (0 for a saturated row,
        :meth:`hessian_eta`)."""
        return self.hessian_eta(_as_float(eta)) + 0.0 * _as_float(y)

    def saturated(self, eta: ArrayOrFloat) -> np.ndarray:
        """Rows whose posterior is exactly 0 or 1 at this finite η.

        Past a bounded link's domain (logcosh, tempered with t < 1, any φ
        with a finite ∇φ(0)) the posterior stays at 0 or 1 and the loss is
        affine in η: such a row has no curvature.  Never true for the linear
        probability model (gini), whose loss keeps its closed form.
        """
        eta = _as_float(eta)
        if self.extends_past_domain:
            return np.zeros(eta.shape, dtype=bool)
        p, q = self.posterior_pair(eta)
        return ((p <= 0.0) | (q <= 0.0)) & ~self._at_domain_end(eta)

    def _at_domain_end(self, eta: np.ndarray) -> np.ndarray:
        """η exactly at an end of the link domain, where the curvature is taken as its
        limit from inside (a grid that includes the ends sees sup 1/φ'')."""
        lo, hi = self.link_domain
        return (eta == lo) | (eta == hi)

    def divergence(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """D_φ(yᵢ‖p̂ᵢ) with p̂ = ∇φ⁻¹(η) the posterior (docs/math.md §3), per row.

        Inside the link domain this is the loss b_φ F_φ(y*η) (eq. 37).  Past a
        bounded domain the posterior is saturated at 0 or 1 and D_φ(y‖p̂) stays
        at D_φ(y‖0) or D_φ(y‖1) (0, or |∇φ(0)| for a misclassified row), while
        the surrogate loss the fit minimises keeps growing linearly: the
        deviance is the divergence, so η is taken at the end of the domain.
        The linear probability model (gini) keeps its closed form, (y − p̂)².
        """
        eta = _as_float(eta)
        if self.extends_past_domain:
            return self.loss(y, eta)
        return self.loss(y, self._clip_eta(eta))

    def hessian_eta(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """1/φ''(∇φ⁻¹(η)), the curvature of the loss in η (docs/math.md §3).

        A saturated row (:meth:`saturated`: past a bounded link's domain,
        where the loss is affine; at the domain's end itself, the limit from
        inside) has curvature 0: that is the second
        derivative of the loss there, what the sandwich's bread
        A = Σ wᵢ xᵢxᵢᵀ ℓ''ᵢ needs (the boundary's curvature would make the
        Wald intervals of a saturating family far too narrow), and what
        Newton steps need (a boundary curvature freezes the saturated rows).
        """
        # φ'' is symmetric about ½: evaluate it at the small side, which keeps
        # its digits when the large side rounds to 1
        eta = _as_float(eta)
        p, q = self.posterior_pair(self._clip_eta(eta))
        small = np.minimum(p, q)
        with np.errstate(divide="ignore"):
            h = 1.0 / self.d2phi(small)
        if self.extends_past_domain:
            return h
        # saturated: the posterior at the clipped η is 0 or 1, and η is not the end itself
        return np.where((small > 0.0) | self._at_domain_end(eta), h, 0.0)

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """p(1 − p): Var(y − p) under the fitted posterior."""
        p, q = self.posterior_pair(eta)
        return np.clip(p, 0, 1) * np.clip(q, 0, 1)

    def intercept_only_eta(self, ybar: float) -> float:
        """∇φ(ȳ): the intercept-only optimum, for 0 < ȳ < 1."""
        if not 0.0 < ybar < 1.0:
            raise ValueError("the intercept-only optimum is at infinity when y has one class")
        return float(self.dphi(ybar))

    def describe(self) -> str:
        par = ", ".join(f"{k} = {v:g}" for k, v in self.params().items())
        return f"{self.name}" + (f" ({par})" if par else "")

    def __repr__(self) -> str:
        par = "".join(f", {k}={v!r}" for k, v in self.params().items())
        return f'Permissible("{self.name}"{par})'


#: the closed-form hooks of :class:`PermissibleFamily`, declared per class
_CLOSED_FORMS = ("impurity_form", "posterior_form", "scalar_posterior")
_GENERIC = {"impurity_form": PermissibleFamily.__dict__["impurity_form"],
            "posterior_form": PermissibleFamily.__dict__["posterior_form"],
            "scalar_posterior": Family.scalar_posterior}
