"""``ubreg.vif``: car's generalized variance-inflation factors of a linear fit.

Fox and Monette's (1992) GVIF of a term with the columns S is
det(R_SS) det(R_TT)/det(R), R the correlation matrix of the coefficients' covariance
less the intercept and T the columns of the other terms: ``car::vif`` (its
``vif.default``, which ``vif.lm`` uses for a glm).  For a term of one column it is the
variance-inflation factor; GVIF^(1/(2 Df)) puts terms of different sizes on the scale
of an inflation of the standard error.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import UbregError
from ..numerics.warnings import warn
from ..results.linear import LinearResult

__all__ = ["vif"]


def vif(model: object, vcov: str | None = None) -> pd.Series | pd.DataFrame:
    """The (generalized) variance-inflation factors of a linear fit's terms, R's
    ``car::vif(m)``.

    Parameters
    ----------
    model : LinearResult
        A fit of ``method="uls"`` (coefficients with a covariance).
    vcov : str, optional
        The covariance whose correlations are read (:meth:`LinearResult.vcov`); by
        default the model's (:attr:`LinearResult.default_vcov`): for ``entropy`` glm's
        ``vcov``, which car reads.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        As car: when every term has one column, a Series of the VIFs named by term;
        otherwise a DataFrame by term with the columns ``GVIF``, ``Df`` and
        ``GVIF^(1/(2*Df))``.

    Raises
    ------
    UbregError
        For a model without coefficients and a covariance (a tree, a boosted ensemble),
        with aliased coefficients (car: "there are aliased coefficients in the model"),
        with fewer than two terms, or whose covariance has no standard error for some
        coefficient.

    Warns
    -----
    UserWarning
        Without an intercept, as car: "No intercept: vifs may not be sensible."

    Notes
    -----
    This is car's ``type = "terms"`` (its only type for a glm): an interaction is a term
    of its own, whose GVIF is large by construction; car's message suggesting
    ``type = "predictor"`` for such a model is not repeated.
    """
    if not isinstance(model, LinearResult):
        raise UbregError(f"vif needs a linear fit's coefficients and their covariance "
                         f"(method='uls'); a {type(model).__name__} has none")
    coef = model.coef
    if coef.isna().any():
        raise UbregError("vif: there are aliased coefficients in the model (car's "
                         f"vif refuses them): {list(coef.index[coef.isna()])}")
    V = model.vcov(vcov).to_numpy()
    slices = model.design.term_slices
    terms = [t for t in slices if t != "(Intercept)"]
    keep = np.ones(len(coef), dtype=bool)
    if "(Intercept)" in slices:
        keep[slices["(Intercept)"]] = False
    else:
        warn("No intercept: vifs may not be sensible.", UserWarning)
    if len(terms) < 2:
        raise UbregError(f"vif: the model contains fewer than 2 terms ({terms})")
    return _gvif(V, keep, {t: slices[t] for t in terms}, len(coef))


def _gvif(V: np.ndarray, keep: np.ndarray, slices: dict[str, slice],
          p: int) -> pd.Series | pd.DataFrame:
    """car's determinant formula on the correlations of V's ``keep`` rows and columns."""
    sd = np.sqrt(np.diag(V)[keep])
    if not np.all(np.isfinite(sd) & (sd > 0)):
        raise UbregError("vif: the covariance has no standard error for some coefficient "
                         "(a flat direction of the fit); no correlation to read")
    R = V[np.ix_(keep, keep)] / np.outer(sd, sd)
    positions = np.cumsum(keep) - 1          # a column's place among the kept ones
    det_all = np.linalg.det(R)
    gvif, df = [], []
    for s in slices.values():
        sub = np.zeros(len(sd), dtype=bool)
        sub[positions[np.arange(p)[s]]] = True
        gvif.append(np.linalg.det(R[np.ix_(sub, sub)]) * np.linalg.det(R[np.ix_(~sub, ~sub)])
                    / det_all)
        df.append(int(sub.sum()))
    names = pd.Index(list(slices), name="term")
    if all(d == 1 for d in df):
        return pd.Series(gvif, index=names, name="VIF")
    g = np.asarray(gvif)
    return pd.DataFrame({"GVIF": g, "Df": df, "GVIF^(1/(2*Df))": g ** (1.0 / (2.0 * np.array(df)))},
                        index=names)
