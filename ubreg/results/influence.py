"""Influence measures of a linear fit, as R computes them for a glm.

R's ``stats`` builds every measure of a glm on ``lm.influence`` of its last IRLS step:
the weighted least-squares fit of the working response on X with the working weights
cᵢ = wᵢ ℓ''ᵢ (``entropy``: wᵢ p̂ᵢ(1 − p̂ᵢ)).  With hᵢ the hat values of that fit (the
diagonal of C^½ X A⁻¹ Xᵀ C^½, A = Σ cᵢ xᵢxᵢᵀ), dᵢ the deviance and rᵢ the Pearson
residuals and φ the dispersion (1, as ``summary.glm``'s for binomial):

- ``rstandard``: dᵢ/√(φ(1 − hᵢ)) (or rᵢ in place of dᵢ);
- ``rstudent``: sign(dᵢ) √(dᵢ² + hᵢrᵢ²/(1 − hᵢ)) (``rstudent.glm``: binomial, not
  divided by σ₍ᵢ₎);
- ``cooks.distance``: (rᵢ/(1 − hᵢ))² hᵢ/(φ k), k the rank;
- ``dfbeta``: A⁻¹ xᵢ √cᵢ dᵢ/(1 − hᵢ) = A₍ᵢ₎⁻¹ xᵢ √cᵢ dᵢ, A₍ᵢ₎ the Hessian without
  row i (``lm.influence``'s coefficients): the one-step leave-one-out change of β̂
  with the deviance residual dᵢ where the Newton step has the score's (for
  ``entropy`` the Pearson residual), 0 where hᵢ = 1;
- σ₍ᵢ₎ = √((Σd² − dᵢ²/(1 − hᵢ))/(n − k − 1)) (``lm.influence``'s ``sigma``, the C
  code ``lminfl``), n the rows of non-zero weight;
- ``dfbetas``: dfbetaᵢⱼ/(σ₍ᵢ₎ √(A⁻¹)ⱼⱼ);
- ``influence.measures``: dfbetas, dffit = dᵢ√hᵢ/(σ₍ᵢ₎(1 − hᵢ)), cov.r =
  (σ₍ᵢ₎/s)^(2k)/(1 − hᵢ) with s = √(Σd²/(n − k)), cook.d, hat, and R's flags.

R reports the rows of non-zero prior weight (``weighted.residuals`` drops the others)
and so does ubreg.  For a family other than ``entropy`` the same formulas take that
family's working weights w ℓ'' and the result's Pearson residuals
(:meth:`~ubreg.results.base.BinaryResult.residuals`), with φ = 1: R defines them for
glm's binomial only.  Where that residual is not finite (gini's p̂ outside (0, 1), a
saturated row of a bounded link) the measures that read it are NaN, as R turns an
infinite measure into NaN.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd
from scipy import special

from ..families.base import Family
from ..fitters.uls import LinearFit, working_design, working_transform
from ..numerics.factor_matrix import FactorMatrix, row_blocks
from .base import INFLUENCE_METHODS, BinaryResult
from .inference import hat_and_bread

__all__ = ["InfluenceMixin", "InfluenceMeasures", "LmInfluence", "lm_influence",
           "abbreviate", "INFLUENCE_METHODS"]


_EPS = np.finfo(np.float64).eps


@dataclass(frozen=True)
class LmInfluence:
    """R's ``influence(glm)`` on the rows of non-zero weight (:func:`lm_influence`).

    Attributes
    ----------
    rows : ndarray of int
        Positions of those rows among the training rows.
    hat, dev_res, pear_res, sigma : ndarray
        hᵢ (1 from 1 − 10ε up, as R), the deviance residuals (R zeroes those below
        100ε times their median absolute value), the Pearson residuals and σ₍ᵢ₎.
    coefficients : ndarray
        dfbeta, one row per row and one column per coefficient that is not aliased.
    xxi_sd : ndarray
        The square root of the diagonal of A⁻¹ = (Xᵀ C X)⁻¹ for those coefficients
        (R's ``sqrt(diag(chol2inv(qr)))``).
    rank : int
    """

    rows: np.ndarray
    hat: np.ndarray
    dev_res: np.ndarray
    pear_res: np.ndarray
    sigma: np.ndarray
    coefficients: np.ndarray
    xxi_sd: np.ndarray
    rank: int


def lm_influence(X: np.ndarray | FactorMatrix, fit: LinearFit, y: np.ndarray, w: np.ndarray,
                 eta: np.ndarray, family: Family, dev_res: np.ndarray,
                 pear_res: np.ndarray) -> LmInfluence:
    """R's ``lm.influence`` of a glm (``influence.glm``) for the fit ``fit`` of X.

    One pass of :func:`~ubreg.results.inference.hat_and_bread` gives hᵢ and A⁻¹ on the
    working columns; dfbeta rows A⁻¹ xᵢ √cᵢ dᵢ/(1 − hᵢ) are mapped to the reported
    coefficients by the working transform T (β = T β̃).
    """
    Xw = working_design(X, fit)
    h, A_inv = hat_and_bread(Xw, y, w, eta, family)
    live = np.flatnonzero(w > 0)
    h = np.where(h >= 1.0 - 10.0 * _EPS, 1.0, h)[live]
    e = np.asarray(dev_res, dtype=np.float64)[live].copy()
    if e.size:
        e[np.abs(e) < 100.0 * _EPS * np.median(np.abs(e))] = 0.0    # R's lm.influence
    k = A_inv.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(h == 1.0, 0.0, e / (1.0 - h))
    root_c = np.sqrt(np.maximum(w * family.hessian(y, eta), 0.0))[live]
    coef = np.empty((Xw.shape[0], k))
    for start, stop, block in row_blocks(Xw):
        coef[start:stop] = block @ A_inv
    coef = coef[live] * (root_c * scaled)[:, None]
    T = working_transform(fit, 1.0)
    if T is not None:
        coef = coef @ T.T
    return LmInfluence(rows=live, hat=h, dev_res=e,
                       pear_res=np.asarray(pear_res, dtype=np.float64)[live],
                       sigma=_sigma_i(e, h, k), coefficients=coef,
                       xxi_sd=_reported_sd(A_inv, T, fit), rank=k)


def _reported_sd(A_inv: np.ndarray, T: np.ndarray | None, fit: LinearFit) -> np.ndarray:
    """√diag(T A⁻¹ Tᵀ): the power-of-two units of T's rows (a column fitted in 2^e) are
    applied after the square root, so that a coefficient in a unit past 1e±150 keeps
    a finite scale (its variance would leave the doubles) and its dfbetas stay finite."""
    if T is None:
        return np.sqrt(np.diag(A_inv))
    e = np.zeros(T.shape[0], dtype=int) if fit.unit is None else -fit.unit[~fit.aliased]
    T0 = np.ldexp(T, -e[:, None])            # exact: T's rows without their units
    return np.ldexp(np.sqrt(np.diag(T0 @ A_inv @ T0.T)), e)


def _sigma_i(e: np.ndarray, h: np.ndarray, k: int) -> np.ndarray:
    """σ₍ᵢ₎ of R's ``lminfl``: the residual scale with row i left out."""
    total, denom = float(e @ e), len(e) - k - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(h < 1.0, total - e * e / (1.0 - h), total)
        return np.sqrt(left / denom)


def _finite(values: np.ndarray) -> np.ndarray:
    """R's ``res[is.infinite(res)] <- NaN``."""
    return np.where(np.isinf(values), np.nan, values)


def _abbreviate_one(name: str, minlength: int) -> str:
    """R's C ``stripchars`` (``use.classes = TRUE``): drop lower-case vowels, then lower-case
    letters, from the ends of words and then inside them, then anything but a word's
    first character, from the right, until ``minlength`` characters are left."""
    s = list(name)
    if len(s) <= minlength:
        return name
    nspace, trailing = 0, True
    for i in range(len(s) - 1, 0, -1):         # trailing blanks go, inner ones count
        if s[i].isspace():
            if trailing:
                del s[i:]
            else:
                nspace += 1
        else:
            trailing = False
        if len(s) - nspace <= minlength:
            return _joined(s, minlength)

    def first(i: int) -> bool:
        return s[i - 1].isspace()

    def last(i: int) -> bool:
        return not s[i - 1].isspace() and (i + 1 == len(s) or s[i + 1].isspace())

    rules = [lambda i: s[i] in "aeiou" and last(i), lambda i: s[i] in "aeiou" and not first(i),
             lambda i: s[i].islower() and last(i), lambda i: s[i].islower() and not first(i),
             lambda i: not first(i) and not s[i].isspace()]
    for rule in rules:
        for i in range(len(s) - 1, 0, -1):
            if i < len(s) and rule(i):
                del s[i]
            if len(s) - nspace <= minlength:
                return _joined(s, minlength)
    return _joined(s, minlength)


def _joined(s: list[str], minlength: int) -> str:
    if len(s) > minlength:                     # R removes the inner blanks then
        s = [s[0], *[c for c in s[1:] if not c.isspace()]]
    return "".join(s)


def abbreviate(names: list[str], minlength: int = 4) -> list[str]:
    """R's ``abbreviate(names, minlength)`` (``method = "left.kept"``): each name cut to
    ``minlength`` characters, the duplicates abbreviated again one character longer
    until all differ."""
    names = [re.sub(r"^ +| +$", "", n) for n in names]
    unique = list(dict.fromkeys(names))
    x = list(unique)
    redo = [True] * len(unique)
    while True:
        for j in np.flatnonzero(redo):
            x[j] = _abbreviate_one(unique[j], minlength)
        dup = [v in x[:j] for j, v in enumerate(x)]            # R's duplicated()
        if not any(dup):
            break
        minlength += 1
        repeated = {v for v, d in zip(x, dup) if d}
        redo = [d or v in repeated for v, d in zip(x, dup)]
    lookup = dict(zip(unique, x))
    return [lookup[n] for n in names]


@dataclass(frozen=True)
class InfluenceMeasures:
    """R's ``influence.measures`` of a linear fit (:meth:`InfluenceMixin.influence_measures`).

    Attributes
    ----------
    infmat : pandas.DataFrame
        One row per row of non-zero weight; R's columns: ``dfb.<abbreviated name>``
        (dfbetas), ``dffit``, ``cov.r``, ``cook.d``, ``hat``.
    is_inf : pandas.DataFrame
        R's ``is.inf``, the same shape, of pandas' nullable boolean (NA where the value
        is): |dfbetas| > 1, |dffit| > 3√(k/(n − k)), |1 − cov.r| > 3k/(n − k),
        F_{k, n−k}(cook.d) > 0.5, hat > 3k/n (n the rows with hᵢ > 0).
    """

    infmat: pd.DataFrame
    is_inf: pd.DataFrame

    def influential(self) -> pd.DataFrame:
        """The rows of :attr:`infmat` with any flag set (the rows R's ``summary`` of an
        ``infl`` object prints)."""
        return self.infmat[self.is_inf.fillna(False).to_numpy(dtype=bool).any(axis=1)]


def _flags(infmat: np.ndarray, k: int, n: int) -> np.ndarray:
    """R's ``is.influential`` of ``influence.measures``: NaN where the value is NaN."""
    if n <= k:
        raise ValueError(f"too few rows with a hat value above 0: {n} for {k} coefficients "
                         "(R: 'too few cases i with h_ii > 0), n < k')")
    a = np.abs(infmat)
    with np.errstate(invalid="ignore"):
        flags = np.column_stack([
            a[:, :k] > 1.0, a[:, k] > 3.0 * np.sqrt(k / (n - k)),
            np.abs(1.0 - infmat[:, k + 1]) > 3.0 * k / (n - k),
            special.fdtr(k, n - k, infmat[:, k + 2]) > 0.5, infmat[:, k + 3] > 3.0 * k / n])
    return np.where(np.isnan(infmat), np.nan, flags.astype(float))


class InfluenceMixin:
    """R's influence measures of a glm, for :class:`~ubreg.results.linear.LinearResult`
    (the module notes give the formulas).

    Every measure has one entry per training row of non-zero weight (R's rows), indexed
    like :meth:`residuals`; under ``na_action="exclude"`` one per input row, NaN for a
    row dropped for NA or of weight 0 (R's ``naresid`` pads NA, and 0 for ``hatvalues``
    and ``dfbeta``).  Prior and frequency weights give the same numbers: those of R's
    glm with ``weights = w`` (a row of weight 2 is one row of that fit).
    """

    if TYPE_CHECKING:
        fit_info: LinearFit
        y: np.ndarray
        weights: np.ndarray
        eta: np.ndarray
        family: Family
        index: pd.Index
        coef: pd.Series

        def _training_matrix(self, what: str) -> np.ndarray | FactorMatrix: ...

        def _padded(self, values: pd.Series) -> pd.Series: ...

    def _lm_influence(self, what: str) -> LmInfluence:
        res = cast(BinaryResult, self)         # the mixin of a LinearResult
        return lm_influence(self._training_matrix(what), self.fit_info, self.y, self.weights,
                            self.eta, self.family,
                            BinaryResult.residuals(res, "deviance").to_numpy(),
                            BinaryResult.residuals(res, "pearson").to_numpy())

    def _series(self, infl: LmInfluence, values: np.ndarray, name: str) -> pd.Series:
        return self._padded(pd.Series(values, index=self.index[infl.rows], name=name))

    def _frame(self, infl: LmInfluence, values: np.ndarray, columns: list[str]) -> pd.DataFrame:
        frame = pd.DataFrame(values, index=self.index[infl.rows], columns=columns)
        if frame.shape[1] == 0:
            return frame
        return pd.DataFrame({c: self._padded(frame[c]) for c in frame.columns})

    def influence(self) -> pd.DataFrame:
        """R's ``influence(m, do.coef = FALSE)`` as a DataFrame: ``hat``, ``sigma`` (the
        deviance residuals' scale with the row left out, σ₍ᵢ₎), ``dev.res`` and
        ``pear.res``, a row per training row of non-zero weight."""
        infl = self._lm_influence("influence()")
        return pd.DataFrame({"hat": infl.hat, "sigma": infl.sigma, "dev.res": infl.dev_res,
                             "pear.res": infl.pear_res}, index=self.index[infl.rows])

    def hatvalues(self) -> pd.Series:
        """Hat values hᵢ = wᵢ ℓ''ᵢ xᵢᵀA⁻¹xᵢ (R's ``hatvalues`` of a glm): the diagonal
        of the hat matrix of the last IRLS step; Σ hᵢ is the rank.  ``hat_values`` is
        its older name.  The rows as :class:`InfluenceMixin` says."""
        infl = self._lm_influence("hatvalues()")
        return self._series(infl, infl.hat, "hat")

    hat_values = hatvalues

    def rstandard(self, type: str = "deviance") -> pd.Series:
        """Standardised residuals (R's ``rstandard.glm``): the deviance (``type=
        "deviance"``) or Pearson (``"pearson"``) residual over √(1 − hᵢ) (the
        dispersion is 1); NaN where hᵢ = 1."""
        if type not in ("deviance", "pearson"):
            raise ValueError(f"type must be 'deviance' or 'pearson', got {type!r}")
        infl = self._lm_influence("rstandard()")
        r = infl.dev_res if type == "deviance" else infl.pear_res
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._series(infl, _finite(r / np.sqrt(1.0 - infl.hat)), "rstandard")

    def rstudent(self) -> pd.Series:
        """Studentised residuals (R's ``rstudent.glm`` for binomial):
        sign(dᵢ)√(dᵢ² + hᵢrᵢ²/(1 − hᵢ)), dᵢ and rᵢ the deviance and Pearson residuals,
        the deviance residual of the row left out, to first order."""
        infl = self._lm_influence("rstudent()")
        d, r, h = infl.dev_res, infl.pear_res, infl.hat
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.sign(d) * np.sqrt(d * d + h * r * r / (1.0 - h))
        return self._series(infl, _finite(out), "rstudent")

    def cooks_distance(self) -> pd.Series:
        """Cook's distances (R's ``cooks.distance.glm``): (rᵢ/(1 − hᵢ))² hᵢ/k, rᵢ the
        Pearson residual, k the rank (the dispersion is 1)."""
        infl = self._lm_influence("cooks_distance()")
        return self._series(infl, _cooks(infl), "cooks_distance")

    def dfbeta(self) -> pd.DataFrame:
        """The change of each coefficient when a row is left out, β̂ − β̂₍ᵢ₎, as R's
        ``dfbeta`` of a glm approximates it: A⁻¹xᵢ√cᵢ dᵢ/(1 − hᵢ), dᵢ the deviance
        residual (``lm.influence``'s coefficients: a one-step approximation, not a
        refit).  A column per coefficient that is not aliased."""
        infl = self._lm_influence("dfbeta()")
        return self._frame(infl, infl.coefficients, self._kept_names())

    def dfbetas(self) -> pd.DataFrame:
        """:meth:`dfbeta` scaled by σ₍ᵢ₎√(A⁻¹)ⱼⱼ (R's ``dfbetas`` of a glm; σ₍ᵢ₎ is
        ``lm.influence``'s ``sigma``, the module notes)."""
        infl = self._lm_influence("dfbetas()")
        return self._frame(infl, _dfbetas(infl), self._kept_names())

    def influence_measures(self) -> InfluenceMeasures:
        """R's ``influence.measures``: dfbetas, dffit, cov.r, cook.d and hat of every row,
        with R's column names and its ``is.inf`` flags (:class:`InfluenceMeasures`)."""
        infl = self._lm_influence("influence_measures()")
        k, e, h, si = infl.rank, infl.dev_res, infl.hat, infl.sigma
        s = np.sqrt(float(e @ e) / (len(e) - k))
        with np.errstate(divide="ignore", invalid="ignore"):
            dffit = e * np.sqrt(h) / (si * (1.0 - h))
            cov_r = (si / s) ** (2 * k) / (1.0 - h)
        values = _finite(np.column_stack([_dfbetas(infl), dffit, cov_r, _cooks(infl), h]))
        names = ["1_" if n == "(Intercept)" else n for n in self._kept_names()]
        columns = [f"dfb.{a}" for a in abbreviate(names)] + ["dffit", "cov.r", "cook.d", "hat"]
        flags = _flags(values, k, int(np.sum(h > 0)))
        infmat = self._frame(infl, values, columns)
        is_inf = self._frame(infl, flags, columns).astype("boolean")
        return InfluenceMeasures(infmat=infmat, is_inf=is_inf)

    def _kept_names(self) -> list[str]:
        return list(self.coef.index[~self.fit_info.aliased])


def _cooks(infl: LmInfluence) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return _finite((infl.pear_res / (1.0 - infl.hat)) ** 2 * infl.hat / infl.rank)


def _dfbetas(infl: LmInfluence) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return infl.coefficients / np.outer(infl.sigma, infl.xxi_sd)
