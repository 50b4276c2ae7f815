"""R's iteratively reweighted least squares with R's stopping rule (``glm.fit``).

The default linear fit (:func:`ubreg.fitters.uls.fit_uls`) runs Newton steps until the
largest normalised edge is below 1e-10: it reaches the optimum to the last digits.  R's
``glm`` stops earlier, when the relative change of the deviance falls below
``glm.control()$epsilon`` = 1e-8, so a side-by-side comparison differs in the fourth
or fifth digit of some standard errors.  :func:`fit_irls` runs ``glm.fit``'s algorithm
step for step, so that ``control=glm_control()`` reproduces R's numbers, stopping
point included:

- the start is ``binomial()$initialize``'s: μ₀ = (n y + ½)/(n + 1), n the trials of a
  ``cbind`` response or the prior weights of any other, η₀ = link(μ₀);
- each step regresses the working response z = η − ℓ'(η)/c(η) on the design with
  weights w·c(η), c the family's curvature weight (:meth:`Family.hessian`: Fisher's
  μ'²/(μ(1 − μ)) for R's binomial links, the exact curvature of a permissible
  family's loss), over the rows of positive weight and curvature;
- a step whose deviance is not finite is halved towards the previous coefficients;
- the fit stops when |D − D_old|/(|D| + 0.1) < ε, or after ``maxit`` steps
  (not converged).

For a permissible family other than the entropy there is no R counterpart; the same
iteration is Newton's method on the family's own risk, stopped by R's rule on its
deviance 2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..families.base import Family
from ..numerics.aliasing import alias_check
from .uls import LinearFit, edges, surrogate_risk

__all__ = ["GlmControl", "glm_control", "check_control", "fit_irls", "saturates"]


@dataclass(frozen=True)
class GlmControl:
    """R's ``glm.control``: the stopping rule of :func:`fit_irls`.

    Attributes
    ----------
    epsilon : float
        Stop when |D − D_old|/(|D| + 0.1) < ``epsilon`` (R's default 1e-8).
    maxit : int
        The most IRLS steps (R's default 25).
    trace : bool
        Print ``Deviance = … Iterations - …`` after each step, as R does.
    """

    epsilon: float = 1e-8
    maxit: int = 25
    trace: bool = False

    def __repr__(self) -> str:
        return (f"glm_control(epsilon={self.epsilon!r}, maxit={self.maxit!r}, "
                f"trace={self.trace!r})")


def glm_control(epsilon: float = 1e-8, maxit: int = 25, trace: bool = False) -> GlmControl:
    """R's ``glm.control(epsilon = 1e-8, maxit = 25, trace = FALSE)``.

    Passed as ``ubreg.fit(..., method="uls", control=ubreg.glm_control())``, the linear
    fit runs R's IRLS from R's starting values and stops where R stops, so that
    coefficients, standard errors and the iteration count are R's to the digits R
    prints.  Without it ubreg iterates to the optimum (its edges below 1e-10), which
    differs from R's default stopping point in about the fourth digit of some standard
    errors.

    Parameters
    ----------
    epsilon : float
        The convergence tolerance on the relative change of the deviance, in (0, 1).
    maxit : int
        The most iterations, at least 1.
    trace : bool
        Print the deviance after each iteration.

    Examples
    --------
    >>> import ubreg
    >>> ubreg.glm_control()
    glm_control(epsilon=1e-08, maxit=25, trace=False)
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
            or not 0.0 < float(epsilon) < 1.0:
        raise ValueError(f"glm_control: epsilon must be a number in (0, 1), got {epsilon!r}")
    if isinstance(maxit, bool) or not isinstance(maxit, (int, np.integer)) or maxit < 1:
        raise ValueError(f"glm_control: maxit must be a whole number ≥ 1, got {maxit!r}")
    if not isinstance(trace, (bool, np.bool_)) and trace not in (0, 1):
        raise ValueError(f"glm_control: trace must be True or False, got {trace!r}")
    return GlmControl(float(epsilon), int(maxit), bool(trace))


def check_control(value) -> GlmControl:
    """The ``control=`` option read: a :class:`GlmControl`, a dict of its fields, or the
    command line's text ``epsilon=1e-8,maxit=25`` (numbers only; nothing evaluated)."""
    if isinstance(value, GlmControl):
        return value
    if isinstance(value, str):
        value = _parse_control(value)
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"epsilon", "maxit", "trace"})
        if unknown:
            raise ValueError(f"control: unknown field {unknown[0]!r}; glm_control takes "
                             "epsilon, maxit and trace")
        return glm_control(**value)
    raise ValueError("control must be ubreg.glm_control(...) (or a dict of epsilon, maxit, "
                     f"trace), got {type(value).__name__}")


def _parse_control(text: str) -> dict:
    fields: dict = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, word = (s.strip() for s in part.partition("="))
        if not sep:
            raise ValueError(f"control: {part!r} is not name=value (e.g. "
                             "control=epsilon=1e-8,maxit=25)")
        if key == "trace":
            fields[key] = {"true": True, "false": False, "1": True, "0": False}.get(
                word.lower(), word)
        else:
            try:
                fields[key] = int(word) if key == "maxit" else float(word)
            except ValueError:
                raise ValueError(f"control: {key}={word!r} is not a number") from None
    return fields


def fit_irls(X, y: np.ndarray, w: np.ndarray, family: Family, control: GlmControl, *,
             start_trials: np.ndarray, offset: np.ndarray | None = None,
             intercept: int | None = None) -> LinearFit:
    """``glm.fit``'s IRLS with ``control`` (see the module's text).

    Parameters
    ----------
    X : (n, p) array or FactorMatrix
        The design (read densely).
    y : (n,) array in [0, 1]
        The response (proportions for a ``cbind`` response).
    w : (n,) array
        The prior weights (trials included), as R's ``weights`` after ``initialize``.
    family : Family
    control : GlmControl
    start_trials : (n,) array
        The n of R's start μ₀ = (n y + ½)/(n + 1).
    offset : (n,) array, optional
    intercept : int, optional
        The intercept column, for R's rule on aliased columns.
    """
    if saturates(family):
        raise ValueError(f"control=glm_control() runs R's undamped IRLS, which needs a "
                         f"curvature at every η; {family.describe()}'s posterior saturates "
                         f"at 0 and 1 past η = ±{family.link_domain[1]:g}, where its loss "
                         "is flat in curvature: fit it without control= (ubreg's Newton "
                         "steps with a line search)")
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    offset = np.zeros(n) if offset is None else np.asarray(offset, dtype=np.float64)
    aliased = alias_check(X, w, intercept).aliased
    Xk = X[:, ~aliased]
    m = np.asarray(start_trials, dtype=np.float64)
    eta = np.asarray(family.link((m * np.where(w > 0, y, 0.0) + 0.5) / (m + 1.0)), dtype=float)
    dev_old, coef_old = _deviance(family, y, eta, w), None
    beta = np.zeros(Xk.shape[1])
    converged, iterations, risks, working_eta = False, 0, [], eta
    for iterations in range(1, control.maxit + 1):
        working_eta = eta
        beta = _wls_step(Xk, y, w, family, eta, offset)
        beta, eta, dev = _finite_step(Xk, y, w, family, beta, coef_old, offset, control.maxit)
        risks.append(surrogate_risk(family, y, eta, w, float(w.sum())))
        if control.trace:
            print(f"Deviance = {_r_number(dev)} Iterations - {iterations}")
        if abs(dev - dev_old) / (abs(dev) + 0.1) < control.epsilon:
            converged = True
            break
        dev_old, coef_old = dev, beta
    wsum = float(w.sum())
    scale = np.maximum(np.max(np.abs(Xk), axis=0, initial=0.0), np.finfo(float).tiny)
    final = edges(family, Xk, y, eta, w, wsum, np.where(scale > 0, scale, 1.0))
    coef = np.full(p, np.nan)
    coef[~aliased] = beta
    max_edge = float(np.max(np.abs(final), initial=0.0))
    return LinearFit(coef=coef, aliased=aliased, eta=eta, iterations=iterations,
                     converged=converged, max_edge=max_edge, solver="irls",
                     risk_path=np.asarray(risks), edge_path=np.full(len(risks), np.nan),
                     intercept=intercept, working_eta=working_eta)


def saturates(family: Family) -> bool:
    """Whether the family's loss is affine (zero curvature) past a finite link domain."""
    return bool(np.isfinite(family.link_domain[1])) and not family.extends_past_domain


def _deviance(family: Family, y, eta, w) -> float:
    return float(2.0 * (w @ family.divergence(y, eta)))


def _wls_step(X, y, w, family, eta, offset) -> np.ndarray:
    """The weighted least-squares solution of one IRLS step (R's ``Cdqrls`` call):
    z = η − offset − ℓ'/c regressed on X with weights w·c, rows of w·c > 0."""
    c = np.asarray(family.hessian(y, eta), dtype=np.float64)
    good = (w > 0) & (c > 0) & np.isfinite(c)
    g = np.asarray(family.gradient(y, eta), dtype=np.float64)
    z = (eta - offset)[good] - g[good] / c[good]
    root = np.sqrt(w[good] * c[good])
    beta, *_ = np.linalg.lstsq(X[good] * root[:, None], z * root, rcond=None)
    return beta


def _finite_step(X, y, w, family, beta, coef_old, offset, maxit):
    """η and the deviance at ``beta``, halved towards ``coef_old`` while the deviance
    is not finite (R's 'inner loop 1')."""
    eta = offset + X @ beta
    dev = _deviance(family, y, eta, w)
    halvings = 0
    while not math.isfinite(dev):
        if coef_old is None:
            raise ValueError("the IRLS of glm_control found no valid set of coefficients "
                             "from R's starting values (R: 'please supply starting "
                             "values'); fit without control=")
        halvings += 1
        if halvings > maxit:
            raise ValueError("the IRLS of glm_control could not correct its step size "
                             "(R: 'inner loop 1'); fit without control=")
        beta = (beta + coef_old) / 2.0
        eta = offset + X @ beta
        dev = _deviance(family, y, eta, w)
    return beta, eta, dev


def _r_number(x: float) -> str:
    """A number as R's ``cat`` prints it (7 significant digits)."""
    text = f"{x:.7g}"
    return text if "e" not in text else f"{x:.6e}".replace("e+0", "e+").replace("e-0", "e-")
