"""``ubreg.emmeans``: estimated marginal means of a linear fit, as R's ``emmeans``.

The reference grid is R's ``ref_grid``: every level of each factor of the model (the
levels the fit saw), both values of a numeric predictor that takes two (emmeans treats
it as a factor), and every other numeric predictor at its mean over the rows of the fit.
The marginal mean of a level of ``specs`` is the equally weighted mean of the linear
predictor over the grid rows with that level: a linear function Lβ, its standard error
√(LVLᵀ) with V the fit's covariance (any ``vcov``), its interval asymptotic (emmeans'
``df = Inf``).  ``type="response"`` maps estimate and limits through the family's
posterior (the standard error by the delta method), as emmeans back-transforms; the
z test stays on the link scale.  :meth:`EMMeans.pairs` gives the pairwise contrasts,
Tukey-adjusted by default (the studentized range with infinite df), as odds ratios for
the logit link on the response scale, or as differences of probabilities after
``regrid=True`` (emmeans' ``regrid``).
"""
from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..numerics.warnings import warn
from ..results.linear import LinearResult
from .effects_rows import fitted_rows, is_factor_like, levels_of
from .update import terms_of

__all__ = ["emmeans", "EMMeans"]

_ODDS_LINKS = ("entropy",)


def emmeans(model: LinearResult, specs: str | list[str], type: str = "link",
            level: float = 0.95, vcov: Any = None) -> EMMeans:
    """Estimated marginal means of ``specs`` (one predictor or several), as R's
    ``emmeans(m, specs, type)``.

    Parameters
    ----------
    model : LinearResult
        A binary linear fit, any family (its link is the family's).
    specs : str or list of str
        The predictors whose levels (or level combinations) get a mean.
    type : {"link", "response"}
        The scale of the estimates (``"response"``: probabilities).
    level : float
        The confidence level of the intervals.
    vcov : str or matrix, optional
        The covariance (a kind of :meth:`LinearResult.vcov` or a matrix); the fit's
        default otherwise.

    Returns
    -------
    EMMeans
        ``frame()`` gives emmeans' table; :meth:`EMMeans.pairs` the contrasts.
    """
    if not isinstance(model, LinearResult):
        raise TypeError("emmeans averages a linear fit's predictions over its reference "
                        f"grid (method 'uls'); got a {type_of(model)}")
    if type not in ("link", "response"):
        raise ValueError(f"type must be 'link' or 'response', got {type!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if model.design.has_offset:
        raise ValueError("emmeans of a model with an offset is not offered (emmeans sets the "
                         "offset at its mean): fit without the offset")
    specs = [specs] if isinstance(specs, str) else list(specs)
    grid, values = reference_grid(model)
    unknown = [s for s in specs if s not in values]
    if unknown or not specs:
        raise ValueError(f"specs: {unknown[0] if unknown else specs!r} is not a predictor of "
                         f"the model; its predictors are {', '.join(values)}")
    _note_interactions(model, specs)
    X, na = model.design.transform(grid)
    if na.any():
        raise ValueError("the reference grid has rows the design cannot build")
    groups = grid[specs].astype(str).agg(" ".join, axis=1) if len(specs) > 1 \
        else grid[specs[0]].astype(str)
    labels = list(dict.fromkeys(groups))
    L = np.vstack([X[(groups == g).to_numpy()].mean(axis=0) for g in labels])
    table = pd.DataFrame({s: _level_column(grid, s, labels, groups) for s in specs})
    return EMMeans(model, L, table, type, level, model.vcov(vcov).to_numpy(dtype=float))


def _note_interactions(model: LinearResult, specs: list[str]) -> None:
    """emmeans' note: a mean averaged over a predictor it interacts with may mislead."""
    involved = [s for s in specs if any(len(key) > 1 and s in key
                                        for key in terms_of(model).variables)]
    if involved:
        warn(f"emmeans of {', '.join(involved)}: results may be misleading due to "
             "involvement in interactions (the means average over the levels of the "
             "predictors it interacts with)")


def type_of(obj: Any) -> str:
    return type(obj).__name__


def _level_column(grid: pd.DataFrame, spec: str, labels: list, groups: pd.Series) -> list:
    first = {g: i for i, g in reversed(list(enumerate(groups)))}
    return [grid[spec].iloc[first[g]] for g in labels]


def reference_grid(model: LinearResult) -> tuple[pd.DataFrame, dict]:
    """R's ``ref_grid``: (the grid as a data frame, each predictor's grid values)."""
    rows = fitted_rows(model)
    values: dict[str, list] = {}
    for name in model.design.variables():
        column = rows[name]
        if is_factor_like(column):
            values[name] = levels_of(column)
        else:
            distinct = np.unique(column.to_numpy(dtype=float))
            values[name] = list(distinct) if distinct.size == 2 else [float(column.mean())]
    product = list(itertools.product(*values.values()))
    grid = pd.DataFrame(product, columns=list(values))
    for name in values:                       # the data's types: categories kept
        column = rows[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            grid[name] = pd.Categorical(grid[name], categories=column.cat.categories,
                                        ordered=column.cat.ordered)
    # the last predictor varies fastest in itertools, the first in R's grid
    order = np.lexsort([grid[name].map({v: i for i, v in enumerate(vals)}).to_numpy()
                        for name, vals in values.items()])
    return grid.iloc[order].reset_index(drop=True), values


class EMMeans:
    """Estimated marginal means (:func:`emmeans`): ``frame()`` is emmeans' summary with
    ``infer = TRUE``; printing shows it."""

    def __init__(self, model: LinearResult, L: np.ndarray, table: pd.DataFrame, type: str,
                 level: float, V: np.ndarray) -> None:
        self.model, self.L, self.table, self.type, self.level, self.V = \
            model, L, table, type, level, V
        coef = model.coef.to_numpy(dtype=float)
        aliased = ~np.isfinite(coef)
        self.estimable = ~np.any(np.abs(L[:, aliased]) > 1e-12, axis=1)
        kept = ~aliased
        self.link = np.where(self.estimable, L[:, kept] @ coef[kept], np.nan)
        Vk = V[np.ix_(kept, kept)]
        self.cov_link = L[:, kept] @ Vk @ L[:, kept].T

    def frame(self) -> pd.DataFrame:
        """emmeans' columns: the levels, ``emmean`` (``prob`` on the response scale),
        ``SE``, ``df``, ``asymp.LCL``, ``asymp.UCL``, ``null``, ``z.ratio``, ``p.value``."""
        est, se = self.link, np.sqrt(np.diag(self.cov_link))
        z = stats.norm.ppf(0.5 + self.level / 2.0)
        lo, hi = est - z * se, est + z * se
        out = self.table.copy()
        family = self.model.family
        if self.type == "response":
            p_lo, p_hi = family.posterior(lo), family.posterior(hi)
            out["prob"] = family.posterior(est)
            out["SE"] = np.abs(family.posterior_derivative(est)) * se
            out["df"] = np.inf
            out["asymp.LCL"], out["asymp.UCL"] = np.minimum(p_lo, p_hi), np.maximum(p_lo, p_hi)
            out["null"] = float(family.posterior(0.0))
        else:
            out["emmean"], out["SE"], out["df"] = est, se, np.inf
            out["asymp.LCL"], out["asymp.UCL"] = lo, hi
            out["null"] = 0.0
        out["z.ratio"] = est / se
        out["p.value"] = 2.0 * stats.norm.sf(np.abs(est / se))
        return out

    def __repr__(self) -> str:
        return self.frame().to_string(index=False)

    def pairs(self, adjust: str = "tukey", regrid: bool = False) -> pd.DataFrame:
        """Pairwise contrasts of the means, as R's ``pairs(emm, adjust)``.

        Parameters
        ----------
        adjust : {"tukey", "none"}
            Tukey's adjustment of p-values and intervals for the family of contrasts
            (emmeans' default for pairs), or none.
        regrid : bool
            Contrast the probabilities (R's ``pairs(regrid(emm))``), with delta-method
            standard errors; otherwise the contrasts are on the link scale, shown as odds
            ratios when the means are on the response scale of a logit-link family.
        """
        if adjust not in ("tukey", "none"):
            raise ValueError(f"adjust must be 'tukey' or 'none', got {adjust!r} (other "
                             "adjustments are not offered)")
        est, cov = self.link, self.cov_link
        if regrid:
            family = self.model.family
            slope = np.asarray(family.posterior_derivative(est), dtype=float)
            est, cov = np.asarray(family.posterior(est), float), cov * np.outer(slope, slope)
        k = len(est)
        labels = self.table.astype(str).agg(" ".join, axis=1).tolist()
        pairs = list(itertools.combinations(range(k), 2))
        C = np.zeros((len(pairs), k))
        for r, (i, j) in enumerate(pairs):
            C[r, i], C[r, j] = 1.0, -1.0
        diff, se = C @ est, np.sqrt(np.diag(C @ cov @ C.T))
        z = diff / se
        if adjust == "tukey":
            p = stats.studentized_range.sf(np.abs(z) * np.sqrt(2.0), k, np.inf)
            crit = stats.studentized_range.ppf(self.level, k, np.inf) / np.sqrt(2.0)
        else:
            p = 2.0 * stats.norm.sf(np.abs(z))
            crit = stats.norm.ppf(0.5 + self.level / 2.0)
        odds = self.type == "response" and not regrid and self._logit()
        sep = " / " if odds else " - "
        out = pd.DataFrame({"contrast": [f"{labels[i]}{sep}{labels[j]}" for i, j in pairs]})
        name = "odds.ratio" if odds else "estimate"
        lo, hi = diff - crit * se, diff + crit * se
        out[name] = np.exp(diff) if odds else diff
        out["SE"] = np.exp(diff) * se if odds else se
        out["df"] = np.inf
        out["asymp.LCL"], out["asymp.UCL"] = (np.exp(lo), np.exp(hi)) if odds else (lo, hi)
        if odds:
            out["null"] = 1.0
        out["z.ratio"], out["p.value"] = z, p
        return out

    def _logit(self) -> bool:
        """Whether the link is the logit (a difference of links is a log odds ratio)."""
        family = self.model.family
        eta = np.array([-1.5, 0.3, 2.0])
        p = np.asarray(family.posterior(eta), dtype=float)
        return bool(np.allclose(np.log(p / (1.0 - p)), eta, rtol=1e-12, atol=1e-12))
