"""Profile-likelihood confidence intervals of a linear fit (R's ``confint`` on a glm).

Arrays in, limits out, by constrained linear ULS fits.  A result does not refit
(ARCHITECTURE.md): method ``uls`` hands this function to the
:class:`~ubreg.results.linear.LinearResult` it makes, which calls it for
``confint(method="profile")``, as R's ``profile.glm`` calls the fitting function
the glm object records (``object$method``).

For coefficient j the profile is the deviance D_j(b) of the fit with βⱼ held at
b, and its signed root z_j(b) = sign(b − β̂ⱼ)·√(D_j(b) − D̂) (MASS's
``profile.glm``; the dispersion is 1).  The interval at ``level`` is
{b : |z_j(b)| ≤ z_{(1+level)/2}}.  Holding βⱼ at b is an offset: the constrained fit
is the linear fit of the other columns with offset + b·xⱼ
(:func:`~ubreg.fitters.uls.fit_uls`), so its deviance is exact.

R 4.2 (MASS's ``confint.glm``) evaluates z on a grid of steps and interpolates b
as a spline in z; here each end is the root of z_j(b) = ±z found by Brent's
method on constrained fits, which is the exact crossing (to 1e-10 in b relative
to the standard error).  The two agree to about 1e-4 relative; where they
differ, this one is the more exact.  Only for a family whose deviance is a
likelihood-ratio statistic (``entropy``, and R's other binomial links,
:class:`~ubreg.families.links.BinomialLink`; docs/math.md §3): the constrained fits
minimise, and D_j measures, the binomial deviance itself.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from ..families.base import Family
from ..numerics.factor_matrix import column, take_columns
from .uls import fit_uls

__all__ = ["profile_intervals"]

#: how far out (in multiples of z·se) the search for a crossing goes before giving up
_MAX_REACH = 2.0 ** 12


def _constrained_deviance(X, y, w, offset, family, j: int, b: float) -> float:
    """D_j(b): the deviance of the fit with βⱼ = b (the other columns refitted)."""
    others = np.ones(X.shape[1], dtype=bool)
    others[j] = False
    rest = take_columns(X, others)
    off = offset + b * column(X, j)
    if rest.shape[1] == 0:
        eta = off
    else:
        eta = fit_uls(rest, y, w, family, offset=off).eta
    return float(2.0 * (w @ family.divergence(y, eta)))


def _one_end(z_of, beta: float, step: float, target: float) -> float:
    """The b on the side sign(step) of β̂ where z(b) = target (±z), or NaN when the
    profile does not reach it (a coefficient running off to infinity)."""
    inner, reach = beta, 1.0
    while reach <= _MAX_REACH:
        outer = beta + reach * step
        z = z_of(outer)
        if not np.isfinite(z):
            return np.nan
        if abs(z) >= abs(target):
            from scipy.optimize import brentq  # loaded when a profile is asked for
            return brentq(lambda b: z_of(b) - target, inner, outer,
                                   xtol=1e-10 * abs(step), rtol=4 * np.finfo(float).eps)
        inner, reach = outer, 2.0 * reach
    return np.nan


def profile_intervals(X, y, w, offset, family: Family, coef, se, dev: float,
                      level: float, columns=None) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper profile-likelihood limits at ``level`` for every kept column (or
    for the kept columns ``columns``, positions; the others NaN).

    Parameters
    ----------
    X : (n, k) array or FactorMatrix
        The kept design columns of the fit (no aliased column).
    y, w, offset : (n,) arrays
        Response, prior weights and offset of the fit.
    family : Family
        A family whose deviance is a log-likelihood ratio (``entropy``).
    coef, se : (k,) arrays
        β̂ and the Wald standard errors (the first bracket is β̂ ± z·se).
    dev : float
        The deviance of the fit, D̂.
    level : float
        The confidence level.
    """
    q = float(special.ndtri(0.5 + level / 2.0))
    lower, upper = np.full(len(coef), np.nan), np.full(len(coef), np.nan)
    for j, (beta, s) in enumerate(zip(coef, se)):
        if columns is not None and j not in columns:
            continue
        if not (np.isfinite(beta) and np.isfinite(s) and s > 0):
            continue

        def z_of(b, j=j, beta=beta):
            # the family's deviance on the likelihood scale (entropy2: bits × ln 2)
            gain = (_constrained_deviance(X, y, w, offset, family, j, b) - dev) \
                * family.likelihood_scale
            return np.sign(b - beta) * np.sqrt(max(gain, 0.0))

        lower[j] = _one_end(z_of, beta, -q * s, -q)
        upper[j] = _one_end(z_of, beta, q * s, q)
    return lower, upper
