"""broom's tidy outputs of a linear fit: ``ubreg.tidy`` and ``ubreg.glance``.

R's broom turns a fit into data frames with fixed column names, so that fits can be
stacked, filtered and plotted alike.  ubreg gives the same frames with broom's names
(dots included: ``std.error``, ``p.value``):

- :func:`tidy`: a row per coefficient (``broom::tidy.glm``; ``tidy.multinom``'s
  ``y.level`` column for the multinomial logit);
- :func:`glance`: one row of the fit's statistics (``broom::glance.glm``).

The numbers are the fit's own: the coefficient table of ``summary()`` (its covariance,
:attr:`default_vcov`), ``confint()`` for the intervals (profile likelihood for
``entropy``, as broom calls R's ``confint``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from ..results.base import capabilities_of
from ..results.multinomial import MultinomialResult

__all__ = ["tidy", "glance"]


def _check(model: Any, what: str) -> None:
    if not (capabilities_of(model).has_coefficients or isinstance(model, MultinomialResult)):
        raise TypeError(f"{what} gives the coefficients of a linear fit (method 'uls' with "
                        f"learner='linear'); this is a {type(model).__name__}, which has "
                        "no coefficients")


def tidy(model: Any, conf_int: bool = False, conf_level: float = 0.95,
         exponentiate: bool = False) -> pd.DataFrame:
    """A row per coefficient, as R's ``broom::tidy``.

    R's ``tidy(fit, conf.int, conf.level, exponentiate)``.

    Parameters
    ----------
    model : LinearResult or MultinomialResult
        A linear fit.
    conf_int : bool
        Add ``conf.low`` and ``conf.high``: the fit's ``confint(level=conf_level)``
        (profile likelihood for ``entropy``, Wald otherwise; Wald for the multinomial
        logit, as R's ``confint.multinom``).
    conf_level : float
        Their level.
    exponentiate : bool
        ``estimate`` and the interval as exp(·) (odds ratios for ``entropy``); the
        standard error, statistic and p-value stay on the coefficients' scale, as broom
        leaves them.

    Returns
    -------
    DataFrame
        ``term``, ``estimate``, ``std.error``, ``statistic`` (z), ``p.value``
        [, ``conf.low``, ``conf.high``]; the multinomial logit has ``y.level`` first.
    """
    _check(model, "tidy")
    if not isinstance(exponentiate, bool) or not isinstance(conf_int, bool):
        raise TypeError("conf_int and exponentiate are True or False")
    if not isinstance(model, MultinomialResult):
        table = model.coef_table()
        out = pd.DataFrame({"term": table.index.to_numpy(), "estimate": table["estimate"],
                            "std.error": table["std_error"], "statistic": table["z"],
                            "p.value": table["p"]}).reset_index(drop=True)
    else:
        out = _multinomial_rows(model)
    if conf_int:
        bounds = model.confint(level=conf_level).to_numpy()
        out["conf.low"], out["conf.high"] = bounds[:, 0], bounds[:, 1]
    if exponentiate:
        for column in ("estimate", "conf.low", "conf.high"):
            if column in out:
                out[column] = np.exp(out[column])
    return out


def _multinomial_rows(model: Any) -> pd.DataFrame:
    """``tidy.multinom``: a row per class (not the first) and term, class by class."""
    coef, se = model.coef, model.std_errors
    estimate, std_error = coef.to_numpy().ravel(), se.to_numpy().ravel()
    z = estimate / std_error
    return pd.DataFrame({"y.level": np.repeat(coef.index.to_numpy(), coef.shape[1]),
                         "term": np.tile(coef.columns.to_numpy(), coef.shape[0]),
                         "estimate": estimate, "std.error": std_error, "statistic": z,
                         "p.value": 2.0 * norm.sf(np.abs(z))})


def glance(model: Any) -> pd.DataFrame:
    """One row of the fit's statistics, as R's ``broom::glance`` of a glm.

    Returns
    -------
    DataFrame
        ``null.deviance``, ``df.null``, ``logLik``, ``AIC``, ``BIC``, ``deviance``,
        ``df.residual``, ``nobs`` (the multinomial logit: ``edf``, ``deviance``,
        ``AIC``, ``nobs``, as ``glance.multinom``).  AIC and BIC are NaN for a family
        whose deviance is not a likelihood (docs/math.md §3), as the fit's ``aic`` is.
    """
    _check(model, "glance")
    if isinstance(model, MultinomialResult):
        return pd.DataFrame({"edf": [float(model.df_model)], "deviance": [model.deviance],
                             "AIC": [model.aic], "nobs": [int(model.nobs)]})
    return pd.DataFrame({"null.deviance": [model.null_deviance], "df.null": [model.df_null],
                         "logLik": [model.loglik], "AIC": [model.aic], "BIC": [model.bic],
                         "deviance": [model.deviance], "df.residual": [model.df_resid],
                         "nobs": [int(model.nobs)]})
