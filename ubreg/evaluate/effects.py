"""Average marginal effects on the probability scale: ``avg_slopes`` and
``avg_comparisons`` (the names and definitions of R's marginaleffects).

Coefficients of different families live on different scales (and trees and boosting
have none); the change of the predicted probability when one predictor changes does
not.  For every row the fit used, the predictor is changed and the model predicts again:

- ``avg_slopes``: the forward difference (p(x + e) − p(x))/e of a numeric predictor, e =
  10⁻⁴ × its range (marginaleffects' ``eps``);
- ``avg_comparisons``: p(level) − p(reference level) for a factor, p(1) − p(0) for a
  numeric predictor that takes only 0 and 1 (marginaleffects' binary variables),
  p(x + h) − p(x) for another numeric predictor (h = 1 unless given);

and the effect is the unweighted mean over the rows.  For a linear fit (any family) the
standard error is the delta method's, √(JVJᵀ) with J the gradient of the mean in the
coefficients (written out: mean of p'(η₁)x₁ − p'(η₀)x₀, over the step) and V the fit's
covariance; other fits (trees, boosting, nearest neighbours) have no covariance, and
their rows carry the estimate only (NaN in the other columns).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..results.linear import LinearResult
from ..results.multinomial import MultinomialResult
from .effects_rows import fitted_rows, is_factor_like, levels_of, numeric_values, predictors_of

__all__ = ["avg_slopes", "avg_comparisons"]

_COLUMNS = ["term", "contrast", "estimate", "std.error", "statistic", "p.value", "conf.low",
            "conf.high"]


def avg_slopes(model: Any, variables: str | list[str] | None = None, eps: float | None = None,
               vcov: Any = None, level: float = 0.95) -> pd.DataFrame:
    """Average marginal effects of numeric predictors on the probability, as
    marginaleffects' ``avg_slopes(m, variables)``.

    Parameters
    ----------
    model : Result
        A binary fit of any method; standard errors for linear fits.
    variables : str or list of str, optional
        Numeric predictors (all of the model's by default); a factor is refused (its
        effects are :func:`avg_comparisons`).
    eps : float, optional
        The step of the forward difference; 10⁻⁴ × the predictor's range by default.
    vcov : str or matrix, optional
        The covariance of a linear fit's delta method.
    level : float
        The confidence level.

    Returns
    -------
    DataFrame
        marginaleffects' columns: ``term``, ``contrast`` (``dY/dX``), ``estimate``,
        ``std.error``, ``statistic``, ``p.value``, ``conf.low``, ``conf.high``.
    """
    if isinstance(variables, Mapping):
        raise TypeError("avg_slopes takes predictor names; a contrast of values (a dict) "
                        "belongs to avg_comparisons(m, variables={name: step})")
    rows, names = _start(model, variables, level, numeric=True)
    out = []
    for name in names:
        x = numeric_values(rows[name], name)
        step = float(eps) if eps is not None else 1e-4 * float(np.ptp(x))
        if not step > 0:
            raise ValueError(f"{name!r} takes one value in the rows of the fit: no slope")
        out.append(_effect(model, rows, name, rows.assign(**{name: x + step}), rows, step,
                           "dY/dX", vcov))
    return _table(out, level)


def avg_comparisons(model: Any, variables: str | list[str] | Mapping | None = None,
                    vcov: Any = None, level: float = 0.95) -> pd.DataFrame:
    """Average differences of the probability, as marginaleffects'
    ``avg_comparisons(m, variables)``: each level of a factor against its first (the
    reference), a numeric predictor + 1 (or + h with ``variables={name: h}``).

    Parameters
    ----------
    model : Result
        A binary fit of any method; standard errors for linear fits.
    variables : str, list of str or dict, optional
        Predictors (all of the model's by default); a dict maps a numeric predictor to
        its step h.  A dict value for a factor is refused (only its levels against the
        reference are offered).
    vcov, level
        As :func:`avg_slopes`.
    """
    steps: dict = {}
    if isinstance(variables, Mapping):
        steps = dict(variables)
        variables = list(steps)
    rows, names = _start(model, variables, level, numeric=False)
    out = []
    for name in names:
        column = rows[name]
        if is_factor_like(column):
            if name in steps and steps[name] is not None:
                raise ValueError(f"{name!r} is a factor: its comparisons are each level "
                                 f"against the reference; a step ({steps[name]!r}) is for "
                                 "a numeric predictor")
            out += _factor_effects(model, rows, name, column, vcov)
            continue
        x = numeric_values(column, name)
        if name not in steps and np.isin(x, (0.0, 1.0)).all():     # binary: 1 − 0
            out.append(_effect(model, rows, name, rows.assign(**{name: np.ones_like(x)}),
                               rows.assign(**{name: np.zeros_like(x)}), 1.0, "1 - 0", vcov))
            continue
        h = steps.get(name, 1.0)
        if isinstance(h, bool) or not isinstance(h, (int, float)) or not np.isfinite(h) \
                or h == 0:
            raise ValueError(f"the step of {name!r} must be a non-zero number, got {h!r}")
        out.append(_effect(model, rows, name, rows.assign(**{name: x + h}), rows, 1.0,
                           f"+{h:g}", vcov))
    return _table(out, level)


def _start(model: Any, variables: Any, level: float, numeric: bool
           ) -> tuple[pd.DataFrame, list[str]]:
    if isinstance(model, MultinomialResult):
        raise ValueError("average marginal effects of more than two classes are not "
                         "offered: fit one class against the rest")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    rows, known = fitted_rows(model), predictors_of(model)
    if variables is None:
        names = [n for n in known if not (numeric and is_factor_like(rows[n]))]
    else:
        names = [variables] if isinstance(variables, str) else list(variables)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not a predictor of the model; its predictors "
                         f"are {', '.join(known)}")
    if not names:
        raise ValueError("the model has no such predictor")
    return rows, names


def _factor_effects(model: Any, rows: pd.DataFrame, name: str, column: pd.Series,
                    vcov: Any) -> list[dict]:
    levels = levels_of(column)
    base = _set(rows, name, column, levels[0])
    return [_effect(model, rows, name, _set(rows, name, column, level), base, 1.0,
                    f"{level} - {levels[0]}", vcov) for level in levels[1:]]


def _set(rows: pd.DataFrame, name: str, column: pd.Series, value: Any) -> pd.DataFrame:
    """``rows`` with every value of the factor ``name`` set to ``value`` (its type kept)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        new = pd.Categorical([value] * len(rows), categories=column.cat.categories,
                             ordered=column.cat.ordered)
        return rows.assign(**{name: new})
    return rows.assign(**{name: pd.Series([value] * len(rows), index=rows.index,
                                          dtype=column.dtype)})


def _effect(model: Any, rows: pd.DataFrame, name: str, after: pd.DataFrame,
            before: pd.DataFrame, scale: float, contrast: str, vcov: Any) -> dict:
    """The mean over the rows of (p(after) − p(before))/scale, and its delta-method
    standard error for a linear fit."""
    p1 = np.asarray(model.predict(after, type="response"), dtype=float)
    p0 = np.asarray(model.predict(before, type="response"), dtype=float)
    estimate = float(np.mean(p1 - p0) / scale)
    se = np.nan
    if isinstance(model, LinearResult):
        X1, _ = model.design.transform(after)
        X0, _ = model.design.transform(before)
        coef = model.coef.to_numpy(dtype=float)
        kept = np.isfinite(coef)
        family = model.family
        # η from predict: an offset included
        eta1 = np.asarray(model.predict(after, type="link"), dtype=float)
        eta0 = np.asarray(model.predict(before, type="link"), dtype=float)
        d1 = np.asarray(family.posterior_derivative(eta1), dtype=float)
        d0 = np.asarray(family.posterior_derivative(eta0), dtype=float)
        J = (d1 @ X1[:, kept] - d0 @ X0[:, kept]) / (len(rows) * scale)
        V = model.vcov(vcov).to_numpy(dtype=float)[np.ix_(kept, kept)]
        se = float(np.sqrt(J @ V @ J))
    return {"term": name, "contrast": contrast, "estimate": estimate, "std.error": se}


def _table(effects: list[dict], level: float) -> pd.DataFrame:
    out = pd.DataFrame(effects)
    z = stats.norm.ppf(0.5 + level / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["statistic"] = out["estimate"] / out["std.error"]
    out["p.value"] = 2.0 * stats.norm.sf(np.abs(out["statistic"]))
    out["conf.low"] = out["estimate"] - z * out["std.error"]
    out["conf.high"] = out["estimate"] + z * out["std.error"]
    return out[_COLUMNS]
