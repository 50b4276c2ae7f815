"""R's ``anova(m1, m2, m3, ...)`` of glm fits: each model against the one before it.

R's ``anova.glmlist``: the rows are the models in the order given, ``Resid. Df`` and
``Resid. Dev`` each model's, ``Df`` and ``Deviance`` the change from the row above (negative
when a model is smaller than the one before it), and with ``test = "Chisq"``
``Pr(>Chi)`` = P(χ²_|Df| > Deviance × sign(Df)), NA where Df is 0 or that statistic is
negative (R's ``stat.anova``; the binomial dispersion is 1).  Families whose deviance is
not a likelihood get the deviances without a test, and a note (docs/math.md §3).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from .deviance_table import DevianceTable, check_test, deviance_of, is_likelihood, likelihood_notes
from .nesting import check_nested_pair

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["sequence_table"]


def sequence_table(models: Sequence[LinearResult], test: str | None = "Chisq") -> DevianceTable:
    """R's ``anova(m1, m2, ..., test = test)`` of linear fits, each pair of consecutive
    models nested fits of the same data (:func:`~ubreg.evaluate.nesting.check_nested_pair`).
    """
    with_test = check_test(test)
    for a, b in zip(models[:-1], models[1:]):
        check_nested_pair(a, b)
    resid_df = np.array([m.df_resid for m in models], float)
    resid_dev = np.array([deviance_of(m) for m in models], float)
    df = np.r_[np.nan, -np.diff(resid_df)]
    deviance = np.r_[np.nan, -np.diff(resid_dev)]
    table = pd.DataFrame({"Resid. Df": resid_df, "Resid. Dev": resid_dev, "Df": df,
                          "Deviance": deviance},
                         index=[str(i + 1) for i in range(len(models))])
    likelihood = is_likelihood(models[0])
    if with_test and likelihood:
        statistic = deviance * np.sign(df)
        statistic[(df == 0) | ~(statistic >= 0)] = np.nan
        ok = np.isfinite(statistic)
        p = np.full(len(models), np.nan)
        p[ok] = stats.chi2.sf(statistic[ok], np.abs(df[ok]))
        table["Pr(>Chi)"] = p
    heading = ["Analysis of Deviance Table", "", f"Family: {models[0].family.describe()}", ""]
    heading += [f"Model {i + 1}: {m.formula}" for i, m in enumerate(models)]
    return DevianceTable(table, heading, likelihood_notes(models[0]))
