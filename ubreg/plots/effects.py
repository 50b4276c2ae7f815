"""Effects of linear fits on a common scale: per standard deviation, and odds ratios.

A coefficient βⱼ is the change of the link η for one unit of its design column;
units differ (glucose in mg/dl, a pedigree score), so raw coefficients are not
comparable.  :func:`effects` rescales each numeric column's coefficient and
interval by the column's standard deviation over the training rows (the change of
η for one SD), keeps 0/1 indicator columns (factor levels) per unit, and for a
family whose posterior is logistic, p = expit(cη) (``entropy``, ``entropy2``:
:attr:`~ubreg.families.base.PermissibleFamily.posterior_form`), gives odds ratios
exp(cβ).  Intervals are profile-likelihood ones where the result offers them
(``confint(method="profile")`` of an ``entropy`` fit holding its design matrix),
else Wald (the default covariance, ``default_vcov``), and say which.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..design import Design
from ..results.base import capabilities_of
from ..results.linear import LinearResult

__all__ = ["effects", "term_scales", "has_term_scales", "odds_ratio_scale", "formula_order",
           "SCALES"]

#: the scales of :func:`effects`
SCALES = ("sd", "raw")


def odds_ratio_scale(family) -> float | None:
    """c when the family's posterior is logistic, p = expit(cη): exp(cβ) is then the
    odds ratio of a coefficient β (c = 1 for entropy, ln 2 for entropy2); None for
    any other family, whose exp(β) is no odds ratio."""
    if isinstance(family, (list, tuple)) or not family.is_permissible:
        return None
    form = family.posterior_form
    return float(form[1]) if form is not None and form[0] == "logistic" else None


def formula_order(result) -> list[str]:
    """The coefficient names of ``result`` in R's order of its formula's terms (the
    intercept, then by degree, in the order written: :meth:`Design.terms_in_formula_order
    <ubreg.design.Design.terms_in_formula_order>`, the order of the summaries; patsy
    puts the terms of factors first), each term's columns together."""
    names = list(result.coef.index)
    if not isinstance(result.design, Design):
        return names
    slices = result.design.term_slices
    ordered = []
    for term in result.design.terms_in_formula_order():
        if term in slices:
            ordered += [n for n in names[slices[term]] if n not in ordered]
    return ordered + [n for n in names if n not in ordered]


def _design_matrix(result) -> np.ndarray | None:
    """The training rows' design matrix of a linear result that holds one (a fit of a
    Dask frame does not), else None."""
    return result.model_matrix if isinstance(result, LinearResult) else None


def has_term_scales(result) -> bool:
    """Whether :func:`term_scales` can compute the per-SD units of ``result`` (it holds
    its training design matrix)."""
    return _design_matrix(result) is not None


def is_interaction(term: str) -> bool:
    """Whether a coefficient's name is a product of predictors (``a:b``, as R and patsy
    name interactions)."""
    return ":" in term and term != "(Intercept)"


def term_scales(result) -> pd.Series:
    """The unit of each coefficient on the per-SD scale.

    The (prior-weighted) standard deviation of the term's design column over the
    training rows for a numeric column, with divisor n − 1 (n the rows of positive
    weight; pandas' and R's ``sd``, as the report's data section); 1.0 for the
    intercept, for an interaction (``a:b``: its SD is no change of one predictor), for
    a column that
    takes only the values 0 and 1 (a factor level, a logical) and for a constant
    column.  NaN for every term of a result that holds no design matrix.
    """
    names = result.coef.index
    X = _design_matrix(result)
    if X is None:
        return pd.Series(np.nan, index=names, name="sd")
    w = np.asarray(result.weights, dtype=float)
    w = w / w.sum()
    mean = w @ X
    n = int(np.count_nonzero(w > 0))
    sd = np.sqrt(np.maximum(w @ (X - mean) ** 2, 0.0) * (n / (n - 1) if n > 1 else 1.0))
    binary = np.all((X == 0) | (X == 1), axis=0)
    # an interaction's SD is no change of one predictor: its coefficient stays per unit
    interaction = np.array([is_interaction(str(n)) for n in names], dtype=bool)
    sd = np.where(binary | interaction | (sd == 0) | (np.asarray(names) == "(Intercept)"),
                  1.0, sd)
    return pd.Series(sd, index=names, name="sd")


def _intervals(result, level: float, interval: str) -> tuple[pd.DataFrame, str]:
    """(lower, upper) of every coefficient and how they were computed: profile where
    asked for and available, else Wald with the result's default covariance
    (``default_vcov``)."""
    table = result.coef_table(level=level)
    wald = table[["conf_low", "conf_high"]].set_axis(["lower", "upper"], axis=1)
    if interval == "wald":
        return wald, "Wald"
    if interval != "profile":
        raise ValueError(f"interval must be 'profile' or 'wald', got {interval!r}")
    if not (isinstance(result, LinearResult) and result.family.binomial_likelihood):
        return wald, "Wald (no profile likelihood for this family)"
    try:
        ci = result.confint(level=level, method="profile")
    except ValueError as exc:          # no design matrix or no constrained fits: say why
        return wald, f"Wald (profile not available: {exc})"
    return ci.set_axis(["lower", "upper"], axis=1), "profile likelihood"


def effects(result, scale: str = "sd", level: float = 0.95, interval: str = "wald",
            odds_ratios: bool = False, intercept: bool = False) -> pd.DataFrame:
    """Coefficients with intervals, per SD of their column or per unit, on the link
    scale or as odds ratios.

    Parameters
    ----------
    result : Result
        A result with ``has_coefficients``.
    scale : {"sd", "raw"}
        ``"sd"``: a numeric column's coefficient and interval times its standard
        deviation (:func:`term_scales`), indicators per unit; ``"raw"``: per unit.
    level : float
        Confidence level.
    interval : {"wald", "profile"}
        ``"profile"`` uses profile-likelihood limits where the result has them
        (an ``entropy`` linear fit), Wald otherwise; the ``interval`` column says
        which.
    odds_ratios : bool
        exp(c·) of the estimate and the limits (:func:`odds_ratio_scale`); only for
        a family whose posterior is logistic.
    intercept : bool
        Keep the intercept (never rescaled).

    Returns
    -------
    DataFrame
        By term: ``estimate``, ``lower``, ``upper``, ``sd`` (the unit: 1 per unit),
        ``per`` (``"SD"``, ``"unit"``), ``interval``.  Aliased terms are dropped.
    """
    if not capabilities_of(result).has_coefficients:
        raise TypeError(f"{type(result).__name__} has no coefficients (no coef_table)")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    c = odds_ratio_scale(result.family) if odds_ratios else 1.0
    if c is None:
        raise ValueError(f"family {result.family.describe()} has no odds ratios: its posterior "
                         "is not logistic (entropy and entropy2 are)")
    ci, how = _intervals(result, level, interval)
    sd = term_scales(result) if scale == "sd" else pd.Series(1.0, index=result.coef.index)
    if scale == "sd" and sd.isna().all():
        raise ValueError("the per-SD scale needs the training design matrix, which this "
                         "result does not hold (a fit of a Dask frame): use scale='raw'")
    out = pd.DataFrame({"estimate": result.coef * sd, "lower": ci["lower"] * sd,
                        "upper": ci["upper"] * sd, "sd": sd})
    out["per"] = np.where((scale == "sd") & (sd.to_numpy() != 1.0), "SD", "unit")
    out["interval"] = how
    out = out.loc[formula_order(result)]
    out = out[np.isfinite(out["estimate"].to_numpy(dtype=float))]
    if not intercept:
        out = out.drop(index="(Intercept)", errors="ignore")
    if odds_ratios:
        for key in ("estimate", "lower", "upper"):
            out[key] = np.exp(c * out[key])
    return out.rename_axis("term")
