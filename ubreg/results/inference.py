"""Likelihood reading of a fit: deviance, log-likelihood, sandwich covariances.

docs/math.md §3.  With η = xᵀβ and p̂ = ∇φ⁻¹(η), per observation the loss is
ℓ = D_φ(y‖p̂) = b_φ F_φ(y*η), with dℓ/dη = p̂ − y and d²ℓ/dη² = 1/φ''(p̂).

- A = Σ wᵢ xᵢxᵢᵀ ℓ''ᵢ (the Hessian),
- B_model = Σ wᵢ E[ℓ'ᵢ²] xᵢxᵢᵀ = Σ wᵢ p̂ᵢ(1 − p̂ᵢ) xᵢxᵢᵀ (correct posterior),
- B_robust = Σ mᵢ ℓ'ᵢ² xᵢxᵢᵀ = Σ mᵢ (yᵢ − p̂ᵢ)² xᵢxᵢᵀ (HC0), mᵢ = wᵢ² for prior weights
  (each row one observation whose score is wᵢℓ'ᵢxᵢ, R's ``sandwich``) and wᵢ for
  frequency weights (wᵢ copies of the row; :func:`meat_weights`),
- V = A⁻¹ B A⁻¹.  For ``entropy`` B_model = A, so V_model = A⁻¹, glm's vcov.  For R's
  other binomial links (:class:`~ubreg.families.links.BinomialLink`) ℓ'' is the Fisher
  weight μ'²/(μ(1 − μ)) (``Family.expected_curvature``), which is also E[ℓ'²]: again
  B_model = A and V_model = (XᵀWX)⁻¹, glm's vcov, and A is sandwich's bread.
- HC1–HC3 (``sandwich::vcovHC``) rescale the HC0 meat by n/(n − k) or, row by
  row, by 1/(1 − hᵢ) and 1/(1 − hᵢ)², hᵢ = wᵢ ℓ''ᵢ xᵢᵀA⁻¹xᵢ the hat values of
  the weighted fit (:func:`hat_values`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from scipy import special
from scipy.special import gammaln, xlogy

from ..families.base import Family
from ..numerics.factor_matrix import row_blocks
from ..numerics.linalg import BLOCK_ROWS, inverse_spd, weighted_gram, weighted_grams

__all__ = ["given_covariance", "sandwich", "meat_weights", "covariances", "flat_directions",
           "deviance", "null_eta",
           "bernoulli_loglik", "wald_table", "hat_values", "hat_and_bread", "hc_covariance",
           "HC_TYPES"]

#: the covariance types of ``sandwich::vcovHC`` that ubreg computes
HC_TYPES = ("HC0", "HC1", "HC2", "HC3")


def given_covariance(V: Any, names: Iterable[str]) -> np.ndarray:
    """A covariance matrix passed as ``vcov=`` (R's ``coeftest(m, vcov = V)``): a DataFrame
    labelled by the coefficient names (read in the fit's order) or a (p, p) array in that
    order; refused, naming the problem, when it does not fit the model or is not symmetric."""
    names = list(names)
    if isinstance(V, pd.DataFrame):
        missing = [n for n in names if n not in V.index or n not in V.columns]
        if missing:
            raise ValueError(f"vcov has no row or column {missing[0]!r}: a covariance "
                             f"DataFrame is labelled by the coefficients ({', '.join(names)})")
        V = V.loc[names, names]
    V = np.asarray(V, dtype=np.float64)
    if V.shape != (len(names), len(names)):
        raise ValueError(f"vcov is {V.shape}; the model has {len(names)} coefficients "
                         f"({', '.join(names)})")
    if not np.allclose(V, V.T, rtol=1e-8, atol=0.0, equal_nan=True):
        raise ValueError("vcov is not symmetric: a covariance matrix is")
    return V


def sandwich(X: np.ndarray, y: np.ndarray, w: np.ndarray, eta: np.ndarray, family: Family,
             transform: np.ndarray | None = None,
             weight_kind: str = "prior",
             working_eta: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Model-based and robust (HC0) covariances of β̂ (docs/math.md §3).

    A, B_model and B_robust come from one blocked pass over X; when the
    curvature equals the score variance row by row (``entropy``: both are
    p̂(1 − p̂)), B_model is A.  The robust meat is Σ wᵢ² ℓ'ᵢ² xᵢxᵢᵀ for
    prior weights (each row one observation whose score is wᵢℓ'ᵢxᵢ:
    ``sandwich::vcovHC(type = "HC0")`` of R's weighted glm) and Σ wᵢ ℓ'ᵢ²
    xᵢxᵢᵀ for frequency weights (wᵢ copies of the row).  ``transform`` T maps
    the coefficients of X to those reported (β = T β̃,
    :func:`~ubreg.fitters.uls.working_transform`).  Returns
    :func:`covariances` of the three matrices.

    ``working_eta`` (a fit stopped by R's rule, ``glm_control``) is the η of the last
    IRLS weights, at which R takes its covariance: A and B_model are evaluated there,
    and the score of row i is R's working residual at η times its working weight at
    ``working_eta`` (``sandwich::estfun.glm``), ℓ'(η)·c(η̃)/c(η).
    """
    meat = meat_weights(w, weight_kind)
    score = family.gradient(y, eta)
    at = eta
    if working_eta is not None:
        at = working_eta
        c, c_at = family.hessian(y, eta), family.hessian(y, at)
        score = np.divide(score * c_at, c, out=np.zeros_like(score), where=c > 0)
    A, B_model, B_robust = weighted_grams(X, [w * family.hessian(y, at),
                                              w * family.score_variance(at),
                                              meat * score ** 2])
    return covariances(A, B_model, B_robust, transform)


def meat_weights(w: np.ndarray, weight_kind: str) -> np.ndarray:
    """The row weights of the robust meat: w² for prior weights, w for frequency
    weights (:func:`sandwich`)."""
    if weight_kind not in ("prior", "freq"):
        raise ValueError(f"weight_kind must be 'prior' or 'freq', got {weight_kind!r}")
    return w * w if weight_kind == "prior" else w


#: an eigenvalue of the unit-diagonal A below this is a direction without curvature
_FLAT = 1e-13


def flat_directions(A: np.ndarray) -> np.ndarray:
    """Coefficients along which the loss has no curvature at the fit (a bool mask).

    A = Σ wᵢ xᵢxᵢᵀ ℓ''ᵢ is singular when the rows that carry some direction
    all have ℓ'' = 0: saturated rows of a bounded link (posterior exactly 0
    or 1, where the loss is affine).  The risk is then flat along that
    direction at the optimum: the optimum is not unique and the coefficients
    with a non-negligible loading on it have no Wald standard error.  A
    non-finite A marks every coefficient.
    """
    p = A.shape[0]
    if not np.all(np.isfinite(A)):
        return np.ones(p, dtype=bool)
    d = np.sqrt(np.clip(np.diag(A), 0.0, None))
    flat = ~(d > 0)
    live = np.flatnonzero(~flat)
    if live.size:
        S = A[np.ix_(live, live)] / np.outer(d[live], d[live])
        vals, vecs = np.linalg.eigh((S + S.T) / 2.0)
        null = vals <= _FLAT * max(float(vals[-1]), 1.0)
        if null.any():
            flat[live] = np.any(np.abs(vecs[:, null]) > 1e-6, axis=1)
    return flat


def covariances(A: np.ndarray, B_model: np.ndarray, B_robust: np.ndarray,
                transform: np.ndarray | None = None) -> dict:
    """{"model": A⁻¹B_model A⁻¹, "robust": A⁻¹B_robust A⁻¹, "flat": mask}.

    Rows and columns of coefficients in a flat direction of A
    (:func:`flat_directions`) are NaN, never a 0 read off a pseudo-inverse;
    with ``transform`` T (β = T β̃) each covariance is T V Tᵀ and a
    coefficient is flat when T mixes a flat working coefficient into it.
    """
    flat = flat_directions(A)
    A_inv = inverse_spd(A) if not flat.any() else np.linalg.pinv(np.nan_to_num(A),
                                                                   hermitian=True)
    if transform is not None:
        flat = (np.abs(transform) @ flat.astype(float)) > 0
    out = {"flat": flat}
    for kind, B in (("model", B_model), ("robust", B_robust)):
        V = A_inv @ B @ A_inv
        if transform is not None:
            V = transform @ V @ transform.T
        V = (V + V.T) / 2.0
        V[flat, :] = np.nan
        V[:, flat] = np.nan
        out[kind] = V
    return out


def deviance(family: Family, y: np.ndarray, eta: np.ndarray, w: np.ndarray) -> float:
    """2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) with p̂ the posterior (:meth:`Family.divergence`); the binomial
    deviance for ``entropy``.  For a saturating family it is not twice the surrogate
    risk the fit minimises: past the link's domain the loss grows linearly, D_φ does not."""
    return float(2.0 * (w @ family.divergence(y, eta)))


def null_eta(family: Family, y: np.ndarray, w: np.ndarray, has_intercept: bool) -> float:
    """Link value of the null model: the weighted mean of y with an
    intercept (properness), η = 0 (p̂ = 1/2) without one, as R does."""
    if not has_intercept:
        return 0.0
    ybar = float(w @ y / w.sum())
    return family.intercept_only_eta(ybar)


def bernoulli_loglik(family: Family, y: np.ndarray, eta: np.ndarray, w: np.ndarray,
                     weight_kind: str = "freq", trials: np.ndarray | None = None) -> float:
    """The Bernoulli log-likelihood of p̂ (clipped to [0, 1]).

    Frequency weights: Σ wᵢ [yᵢ ln p̂ᵢ + (1 − yᵢ) ln(1 − p̂ᵢ)].  Prior weights:
    R's binomial()$aic, Σ_{wᵢ>0} log dbinom(round(wᵢyᵢ), round(wᵢ), p̂ᵢ) (R
    reads a weighted 0/1 response as round(w) trials; R rounds half to even,
    as numpy does): the same for integer weights, and a row of weight below
    ½ contributes nothing.  A ``cbind(successes, failures)`` response (``trials``,
    R's n) with trials above 1 counts Σ_{nᵢ>0} (wᵢ/nᵢ) log dbinom(round(nᵢyᵢ),
    round(nᵢ), p̂ᵢ): the prior weight wᵢ/nᵢ times the row's binomial (R's
    ``m <- if (any(n > 1)) n else wt``).  Defined for every family (a comparable
    logLik/AIC); the maximised likelihood only for ``entropy``.
    """
    p, q = family.posterior_pair(eta)
    p, q = np.clip(p, 0.0, 1.0), np.clip(q, 0.0, 1.0)
    if weight_kind == "freq":
        with np.errstate(divide="ignore"):
            ll = xlogy(y, p) + xlogy(1.0 - y, q)
        live = w > 0            # a row of weight 0 is absent, even where its p̂ is 0 or 1
        return float(w[live] @ ll[live])
    m = trials if trials is not None and np.any(trials > 1) else w
    n_round, successes = np.round(m), np.round(m * y)
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = (gammaln(n_round + 1.0) - gammaln(successes + 1.0)
              - gammaln(n_round - successes + 1.0)
              + xlogy(successes, p) + xlogy(n_round - successes, q))
        share = np.where(m > 0, w / m, 0.0)          # 1 where m is w
    return float(np.sum((share * ll)[m > 0]))


def wald_table(coef: np.ndarray, cov: np.ndarray, level: float = 0.95) -> dict[str, np.ndarray]:
    """Standard errors, Wald z, two-sided normal p-values and intervals.

    A variance that is not positive (a degenerate covariance) gives NaN, never
    a standard error of 0 with p < 2e-16."""
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.diag(cov))
        se = np.where(se > 0, se, np.nan)          # a standard error of 0 is never reported
        z = coef / se
    # scipy.stats.norm's sf and ppf are these functions; scipy.stats costs 0.2 s to import
    p = 2.0 * special.ndtr(-np.abs(z))
    q = special.ndtri(0.5 + level / 2.0)
    return {"se": se, "z": z, "p": p, "lower": coef - q * se, "upper": coef + q * se}


def _bread_inverse(A: np.ndarray) -> np.ndarray:
    """A⁻¹, or the pseudo-inverse when A has a flat direction (:func:`flat_directions`)."""
    if flat_directions(A).any():
        return np.linalg.pinv(np.nan_to_num(A), hermitian=True)
    return inverse_spd(A)


def hat_values(X: np.ndarray, y: np.ndarray, w: np.ndarray, eta: np.ndarray,
               family: Family) -> np.ndarray:
    """The hat values of the weighted fit, hᵢ = wᵢ ℓ''ᵢ xᵢᵀ A⁻¹ xᵢ with A = Σ wᵢ ℓ''ᵢ xᵢxᵢᵀ.

    The diagonal of W^½ X A⁻¹ Xᵀ W^½ with the working weights W = w ℓ''
    (docs/math.md §3): R's ``hatvalues`` of a glm for ``entropy``
    (ℓ'' = p̂(1 − p̂)); Σ hᵢ is the rank.  Invariant to a reparametrisation of
    the columns, so the working design of the fit gives the same values.
    Computed by blocks of rows (no n × p temporary beyond a block).
    """
    return hat_and_bread(X, y, w, eta, family)[0]


def hat_and_bread(X: np.ndarray, y: np.ndarray, w: np.ndarray, eta: np.ndarray,
                  family: Family) -> tuple[np.ndarray, np.ndarray]:
    """(the hat values of :func:`hat_values`, A⁻¹): the one computation of both, which
    the influence measures share (:mod:`ubreg.results.influence`)."""
    curvature = w * family.hessian(y, eta)
    A_inv = _bread_inverse(weighted_gram(X, curvature))
    h = np.empty(X.shape[0])
    for start, stop, block in row_blocks(X, BLOCK_ROWS):
        h[start:stop] = np.einsum("ij,ij->i", block @ A_inv, block)
    return curvature * h, A_inv


def hc_covariance(kind: str, X: np.ndarray, y: np.ndarray, w: np.ndarray, eta: np.ndarray,
                  family: Family, transform: np.ndarray | None = None,
                  weight_kind: str = "prior", hat: np.ndarray | None = None) -> np.ndarray:
    """``sandwich::vcovHC(type = "HC2" | "HC3")`` of the fit: A⁻¹ B A⁻¹ with the meat
    B = Σ mᵢ ℓ'ᵢ² xᵢxᵢᵀ / (1 − hᵢ)^a, a = 1 (HC2) or 2 (HC3) (docs/math.md §3).

    mᵢ and hᵢ follow the weights: prior weights (R's glm) mᵢ = wᵢ² with the hat
    values hᵢ of :func:`hat_values`; frequency weights (wᵢ copies of a row, each
    of leverage hᵢ/wᵢ) mᵢ = wᵢ and hᵢ/wᵢ in place of hᵢ.  ``transform`` T maps
    the working coefficients to those reported, V = T V Tᵀ.  HC0 and HC1 need no
    hat values (:func:`sandwich`; HC1 = HC0 · n/(n − k)).
    """
    power = {"HC2": 1.0, "HC3": 2.0}[kind]
    h = hat_values(X, y, w, eta, family) if hat is None else hat
    if weight_kind == "freq":
        with np.errstate(invalid="ignore", divide="ignore"):
            h = np.where(w > 0, h / w, 0.0)
    with np.errstate(divide="ignore"):
        meat = meat_weights(w, weight_kind) * family.gradient(y, eta) ** 2 / (1.0 - h) ** power
    A, B = weighted_grams(X, [w * family.hessian(y, eta), meat])
    A_inv = _bread_inverse(A)
    V = A_inv @ B @ A_inv
    if transform is not None:
        V = transform @ V @ transform.T
    return (V + V.T) / 2.0
