"""The binomial likelihood with R's other links: ``binomial(link = "probit")`` and kin.

R's ``glm(family = binomial(link = ...))`` maximises the Bernoulli (binomial) likelihood
with P(y = 1 | x) = μ(η), η = xᵀβ, for the inverse link μ of ``probit`` (Φ, the normal
distribution function), ``cloglog`` (1 − exp(−eη)) or ``cauchit`` (½ + atan(η)/π).  Per
row the loss is the binomial deviance term

    ℓ(y, η) = y ln(y/μ) + (1 − y) ln((1 − y)/(1 − μ))        (−ln μ or −ln(1 − μ) for y ∈ {0, 1}),

so 2 Σ wᵢ ℓᵢ is R's deviance.  With r₁ = μ'/μ and r₀ = μ'/(1 − μ) (μ' = dμ/dη, R's
``mu.eta``):

- dℓ/dη = −y r₁ + (1 − y) r₀ = −(y − μ) μ'/(μ(1 − μ)),
- the Fisher weight E[d²ℓ/dη²] = E[(dℓ/dη)²] = μ'²/(μ(1 − μ)) = r₁ r₀ (R's working
  weight ``mu.eta(eta)^2 / variance(mu)``).

:meth:`BinomialLink.hessian` returns the Fisher weight, not d²ℓ/dη²
(``expected_curvature``): A = Σ wᵢ xᵢxᵢᵀ r₁r₀ is R's expected information (X'WX), whose
inverse is ``vcov`` of the glm and the bread of ``sandwich::vcovHC``.  The Newton steps of
ULS take the observed d²ℓ/dη² (:meth:`BinomialLink.newton_curvature`) for probit and cloglog,
where it is never negative, and converge quadratically to the maximum R's Fisher scoring
approaches linearly (cloglog on Pima with fractional prior weights: R's IRLS diverges from
its default start and takes 129 iterations from a good one; ubreg takes 6 from β = 0);
cauchit's steps are Fisher scoring, as R's.

This loss is proper (the expected loss is least at the true μ), but it is not a balanced
convex loss of a permissible φ matched to the link: the Bregman divergence of the
entropy φ is taken at μ(η) with μ ≠ ∇φ⁻¹, which is not canonical (docs/families.md,
*Links*).  Hence ``is_permissible`` is False and methods that need φ refuse it.

Every quantity is computed from stable forms (``log_ndtr`` and ``erfcx`` for probit,
``expm1`` and ``exprel`` for cloglog, ``arctan2`` for cauchit), finite and silent at
|η| = 1e3 and beyond.  R clamps μ to [ε, 1 − ε] in ``linkinv``; ubreg does not, which
changes nothing unless some fitted probability is within 2.2e-16 of 0 or 1.
"""
from __future__ import annotations

import math
import re

import numpy as np
from scipy.special import erfcx, exprel, log_ndtr, ndtr, ndtri, xlogy

from .base import ArrayOrFloat, Family, _as_float

__all__ = ["BinomialLink", "binomial", "family_from_call", "LINKS"]

#: the links of R's binomial that ubreg fits (logit is the entropy family)
LINKS = ("logit", "probit", "cloglog", "cauchit")
#: R's binomial links that ubreg does not fit (a bounded linear predictor)
_OTHER_R_LINKS = ("log", "identity")

_SQRT_2_PI = math.sqrt(2.0 / math.pi)
#: |η| beyond which η² overflows: probit's log-probabilities are taken here (≈ −5e299)
_PROBIT_CAP = 1e150
#: past this |η| probit's observed curvature is its asymptote 1 − 2/η² (to 1e-16)
_PROBIT_TAIL = 1e4
#: eη is taken at η ≤ 700 (exp(709) is the largest finite double); cloglog's 1 − μ is
#: exp(−eη), 0 from η ≈ 6.5 on, so the cap changes the loss only past η = 700
_EXP_CAP = 700.0
#: below this η, cloglog's ln μ = ln(1 − exp(−eη)) is η − eη/2 to double precision
_CLOGLOG_LOW = -20.0


# ---- probit: μ = Φ(η) ------------------------------------------------------------
def _probit_pair(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return ndtr(eta), ndtr(-eta)


def _probit_logs(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    e = np.clip(eta, -_PROBIT_CAP, _PROBIT_CAP)
    return log_ndtr(e), log_ndtr(-e)


def _probit_ratios(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Φ(η) = ½ erfcx(−η/√2) exp(−η²/2) for every η, so φ/Φ = √(2/π)/erfcx(−η/√2): the
    # inverse Mills ratio without the overflow of exp(η²/2)
    return _SQRT_2_PI / erfcx(-eta / math.sqrt(2.0)), _SQRT_2_PI / erfcx(eta / math.sqrt(2.0))


def _probit_slope(eta: np.ndarray) -> np.ndarray:
    e = np.clip(eta, -_PROBIT_CAP, _PROBIT_CAP)
    return np.exp(-0.5 * e * e) / math.sqrt(2.0 * math.pi)


def _probit_curvatures(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d²/dη²)(−ln Φ(η)) = r₁(η + r₁) and (d²/dη²)(−ln(1 − Φ(η))) = r₀(r₀ − η), ≥ 0 (Φ
    is log-concave).  Past |η| = 1e4, where η + r₁ cancels, the tail 1 − 2/η² + O(η⁻⁴)."""
    e = np.clip(eta, -_PROBIT_TAIL, _PROBIT_TAIL)
    r1, r0 = _probit_ratios(e)
    far = np.maximum(np.abs(eta), _PROBIT_TAIL)
    tail = 1.0 - 2.0 / far / far
    c1 = np.where(eta < -_PROBIT_TAIL, tail, np.maximum(r1 * (e + r1), 0.0))
    c0 = np.where(eta > _PROBIT_TAIL, tail, np.maximum(r0 * (r0 - e), 0.0))
    return c1, c0


# ---- cloglog: μ = 1 − exp(−eη) ---------------------------------------------------
def _cloglog_pair(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.exp(np.minimum(eta, _EXP_CAP))
    return -np.expm1(-x), np.exp(-x)


def _cloglog_logs(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.exp(np.minimum(eta, _EXP_CAP))
    # ln(1 − e^{−x}) = ln x − x/2 + O(x²): for tiny x, where −expm1(−x) would be exact
    # but ln of it loses nothing either, the series avoids ln(0) once x underflows
    xs = np.exp(np.clip(eta, _CLOGLOG_LOW, _EXP_CAP))
    log_mu = np.where(eta < _CLOGLOG_LOW, eta - 0.5 * x, np.log(-np.expm1(-xs)))
    return log_mu, -x


def _cloglog_ratios(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.exp(np.minimum(eta, _EXP_CAP))
    # μ'/μ = x e^{−x}/(1 − e^{−x}) = x/(eˣ − 1) = 1/exprel(x), 0 once eˣ overflows
    r1 = np.where(x > _EXP_CAP, 0.0, 1.0 / exprel(np.minimum(x, _EXP_CAP)))
    return r1, x


def _cloglog_curvatures(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d²/dη²)(−ln μ) = g(g eˣ − 1) with x = eη, g = x/(eˣ − 1) = μ'/μ, and
    (d²/dη²)(−ln(1 − μ)) = x; g eˣ − 1 = 1/exprel(−x) − 1, by its series x/2 + x²/12 −
    x⁴/720 below x = 1e-3 (where the difference would cancel)."""
    r1, x = _cloglog_ratios(eta)
    xs = np.minimum(x, _EXP_CAP)
    series = xs / 2.0 + xs * xs / 12.0 - xs ** 4 / 720.0
    excess = np.where(xs < 1e-3, series, 1.0 / exprel(-xs) - 1.0)
    return np.maximum(r1 * excess, 0.0), x


def _cloglog_slope(eta: np.ndarray) -> np.ndarray:
    e = np.minimum(eta, _EXP_CAP)
    return np.exp(e - np.exp(e))


# ---- cauchit: μ = ½ + atan(η)/π ---------------------------------------------------
def _cauchit_small(eta: np.ndarray) -> np.ndarray:
    """min(μ, 1 − μ) = atan(1/|η|)/π, without the cancellation of ½ − atan(|η|)/π."""
    return np.arctan2(1.0, np.abs(eta)) / math.pi


def _cauchit_pair(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    small = _cauchit_small(eta)
    pos = eta > 0
    return np.where(pos, 1.0 - small, small), np.where(pos, small, 1.0 - small)


def _cauchit_logs(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, q = _cauchit_pair(eta)
    return np.log(p), np.log(q)


def _cauchit_ratios(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = 1.0 / np.hypot(1.0, eta)                 # μ' = s²/π, s = 1/√(1 + η²)
    t = np.arctan2(1.0, np.abs(eta))             # π · min(μ, 1 − μ)
    r_small = s * (s / t)                        # μ'/min(μ, 1 − μ); s/t → 1 as |η| → ∞
    r_large = s * s / (math.pi - t)              # μ'/max(μ, 1 − μ)
    pos = eta > 0
    return np.where(pos, r_large, r_small), np.where(pos, r_small, r_large)


def _cauchit_slope(eta: np.ndarray) -> np.ndarray:
    s = 1.0 / np.hypot(1.0, eta)
    return s * s / math.pi


def _cauchit_inverse(p: np.ndarray) -> np.ndarray:
    # tan(π(p − ½)) = −1/tan(πp): each side from its own small probability
    with np.errstate(divide="ignore"):
        return np.where(p < 0.5, -1.0 / np.tan(math.pi * p), 1.0 / np.tan(math.pi * (1.0 - p)))


def _cloglog_inverse(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(-np.log1p(-p))


#: the observed curvatures of −ln μ and −ln(1 − μ), for Newton steps, where both are
#: never negative (a log-concave μ and 1 − μ); cauchit's are not (Fisher scoring there)
_CURVATURES = {"probit": _probit_curvatures, "cloglog": _cloglog_curvatures}

#: per link: (μ, 1 − μ), (ln μ, ln(1 − μ)), (μ'/μ, μ'/(1 − μ)), μ', and μ⁻¹ (the link)
_FORMS = {
    "probit": (_probit_pair, _probit_logs, _probit_ratios, _probit_slope, ndtri),
    "cloglog": (_cloglog_pair, _cloglog_logs, _cloglog_ratios, _cloglog_slope, _cloglog_inverse),
    "cauchit": (_cauchit_pair, _cauchit_logs, _cauchit_ratios, _cauchit_slope, _cauchit_inverse),
}


class BinomialLink(Family):
    """R's ``binomial(link = link)`` for ``link`` in probit, cloglog, cauchit (module
    docstring): the binomial likelihood, fitted by Fisher scoring as R's ``glm``.

    Parameters
    ----------
    link : {"probit", "cloglog", "cauchit"}
        The link; ``binomial(link="logit")`` is the entropy family (:func:`binomial`).

    Notes
    -----
    Not a permissible family (no φ whose link is this one), so only
    ``method="uls"`` with ``learner="linear"`` (glm) fits it.  cloglog is not symmetric
    (1 − μ(η) ≠ μ(−η)); cauchit's log-likelihood is not concave in η (Cauchy's
    distribution function is not log-concave), so its maximum need not be unique, as in R.
    """

    name = "binomial"
    is_permissible = False
    likelihood_deviance = True
    binomial_likelihood = True
    likelihood_scale = 1.0
    expected_curvature = True
    glm_only = True
    divergence_formula = "2 Σ wᵢ [yᵢ ln(yᵢ/p̂ᵢ) + (1 − yᵢ) ln((1 − yᵢ)/(1 − p̂ᵢ))]"

    def __init__(self, link: str = "probit") -> None:
        if link not in _FORMS:
            raise ValueError(_unknown_link(link))
        self.link_name = link
        self._pair, self._logs, self._ratios, self._slope, self._inverse = _FORMS[link]

    def params(self) -> dict:
        return {"link": self.link_name}

    def describe(self) -> str:
        """``binomial(link = "probit")``, as the family is written in R's call."""
        return f'binomial(link = "{self.link_name}")'

    def __repr__(self) -> str:
        return f'binomial(link="{self.link_name}")'

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (BinomialLink, (self.link_name,))

    # ---- the link ------------------------------------------------------------------
    def posterior(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        return self._pair(_as_float(eta))[0]

    def posterior_pair(self, eta: ArrayOrFloat) -> tuple[ArrayOrFloat, ArrayOrFloat]:
        """(μ, 1 − μ), each from its own closed form (no cancellation)."""
        return self._pair(_as_float(eta))

    def posterior_derivative(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """μ'(η), R's ``mu.eta``: φ(η), exp(η − eη), 1/(π(1 + η²))."""
        return self._slope(_as_float(eta))

    def link(self, p: ArrayOrFloat) -> ArrayOrFloat:
        """μ⁻¹(p), R's ``linkfun``: Φ⁻¹(p), ln(−ln(1 − p)), tan(π(p − ½))."""
        return self._inverse(_as_float(p))

    def intercept_only_eta(self, ybar: float) -> float:
        """μ⁻¹(ȳ): the likelihood of an intercept alone is largest at μ = ȳ, whatever the
        link (R's null deviance)."""
        if not 0.0 < ybar < 1.0:
            raise ValueError("the intercept-only optimum is at infinity when y has one class")
        return float(self.link(ybar))

    # ---- the loss and its derivatives -------------------------------------------
    def loss(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """y ln(y/μ) + (1 − y) ln((1 − y)/(1 − μ)), half the binomial deviance of a row
        (R's ``binomial()$dev.resids`` / 2 wᵢ); −ln μ or −ln(1 − μ) for a 0/1 response."""
        y, eta = np.broadcast_arrays(_as_float(y), _as_float(eta))
        log_mu, log_nu = self._logs(eta)
        # y = 0 (or 1) takes nothing from ln μ (or ln(1 − μ)), which may be −∞ there
        val = (xlogy(y, y) + xlogy(1.0 - y, 1.0 - y)
               - np.where(y > 0.0, y, 0.0) * np.where(y > 0.0, log_mu, 0.0)
               - np.where(y < 1.0, 1.0 - y, 0.0) * np.where(y < 1.0, log_nu, 0.0))
        return np.maximum(val, 0.0)

    def gradient(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """dℓ/dη = −y μ'/μ + (1 − y) μ'/(1 − μ) = −(y − μ)μ'/(μ(1 − μ))."""
        y = _as_float(y)
        r1, r0 = self._ratios(_as_float(eta))
        return -y * r1 + (1.0 - y) * r0

    def hessian(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """The Fisher weight μ'²/(μ(1 − μ)) = E[d²ℓ/dη²] (``expected_curvature``): R's
        working weight, whatever y."""
        return self.score_variance(eta) + 0.0 * _as_float(y)

    def newton_curvature(self, y: ArrayOrFloat, eta: ArrayOrFloat) -> ArrayOrFloat:
        """The observed d²ℓ/dη² = y(−ln μ)'' + (1 − y)(−ln(1 − μ))'' for probit and cloglog,
        whose μ and 1 − μ are log-concave (so it is never negative): Newton's method, which
        converges quadratically where Fisher scoring (R's IRLS) converges linearly, to the
        same maximum.  cauchit's is negative for some rows: its Fisher weight."""
        curvatures = _CURVATURES.get(self.link_name)
        if curvatures is None:
            return self.hessian(y, eta)
        y = _as_float(y)
        c1, c0 = curvatures(_as_float(eta))
        return y * c1 + (1.0 - y) * c0

    def score_variance(self, eta: ArrayOrFloat) -> ArrayOrFloat:
        """E[(dℓ/dη)²] = μ r₁² + (1 − μ) r₀² = r₁ r₀ = μ'²/(μ(1 − μ)), the Fisher weight:
        the model-based covariance is the inverse expected information, glm's ``vcov``."""
        r1, r0 = self._ratios(_as_float(eta))
        return r1 * r0


def binomial(link: str = "logit") -> Family:
    """R's ``binomial(link = link)``: the binomial likelihood with a link.

    Parameters
    ----------
    link : {"logit", "probit", "cloglog", "cauchit"}
        ``"logit"`` (R's default) is the entropy family, logistic regression;
        the others are :class:`BinomialLink`, fitted by ``method="uls"`` with
        ``learner="linear"`` as R's ``glm(family = binomial(link = ...))``.

    Examples
    --------
    >>> binomial("probit")
    binomial(link="probit")
    >>> binomial().describe()
    'entropy'
    """
    if not isinstance(link, str):
        raise TypeError(f"link must be a string, got {type(link).__name__}")
    if link == "logit":
        from .closed import Entropy
        return Entropy()
    return BinomialLink(link)


def _unknown_link(link: object) -> str:
    if link in _OTHER_R_LINKS:
        return (f"link {link!r} of R's binomial is not available (its linear predictor is "
                f"bounded); ubreg fits the links {', '.join(LINKS)}")
    return f"unknown link {link!r} for binomial; the links are {', '.join(LINKS)}"


#: R's spellings: binomial(link = "probit"), binomial(link = 'probit'), binomial("probit"),
#: binomial(probit), binomial(), each with any spaces
_CALL = re.compile(r"""binomial\s*\(\s*(?:(?:link\s*=\s*)?"""
                   r"""(?P<q>["']?)(?P<link>[A-Za-z_]\w*)(?P=q)\s*)?\)""")


def family_from_call(text: str) -> Family | None:
    """The family an R call ``binomial(...)`` names, or None when ``text`` is not a call.

    Read by one exact pattern, never evaluated: ``binomial(link = "probit")``,
    ``binomial(link = 'probit')``, ``binomial("probit")``, ``binomial(probit)`` and
    ``binomial()`` (logit, R's default).  A name alone (``"probit"``) is not a family.

    Raises
    ------
    ValueError
        For a call to ``binomial`` that the pattern does not read, or an unknown link.
    """
    s = text.strip()
    if not re.match(r"binomial\s*\(", s):
        return None
    m = _CALL.fullmatch(s)
    if m is None:
        raise ValueError(f"cannot read the family {text!r}; write it as R does, "
                         "binomial(link = \"probit\")")
    return binomial(m.group("link") or "logit")
