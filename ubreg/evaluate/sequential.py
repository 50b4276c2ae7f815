"""``ubreg.anova(m)``: the sequential deviance table of one model, as R's ``anova.glm``.

The terms are added one at a time in the formula's order (R's: by degree, a
factor as one term); each nested model is refitted on the rows the model used,
as ``anova.glm`` refits the leading columns of the model matrix.  The first row
is the null model (its null deviance), the last the model itself.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .deviance_table import (
    DevianceTable,
    check_test,
    chisq_pvalues,
    deviance_of,
    is_likelihood,
    likelihood_notes,
    null_deviance_of,
)
from .update import check_refittable, refit_on_rows, rows_mask, terms_of

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["sequential_anova"]


def sequential_anova(model: LinearResult, test: str | None = "Chisq") -> DevianceTable:
    """R's ``anova(fit, test = "Chisq")``: terms added sequentially (first to last).

    Parameters
    ----------
    model : LinearResult
        A linear fit made by :func:`ubreg.fit` (its data at hand).
    test : {"Chisq", "LRT", None}
        ``Pr(>Chi)``, the χ² p-value of each deviance reduction, for a
        likelihood fit (``entropy``); never for another family, whose deviance
        differences are risk differences (docs/math.md §3).

    Returns
    -------
    DevianceTable
        Rows ``NULL`` and each term; columns ``Df``, ``Deviance``, ``Resid. Df``,
        ``Resid. Dev`` (and ``Pr(>Chi)``).
    """
    want_test = check_test(test)
    check_refittable(model, "anova")
    terms = terms_of(model)
    mask = rows_mask(model)
    dfs, devs = [model.df_null], [null_deviance_of(model)]
    for i in range(1, len(terms.labels)):
        sub = refit_on_rows(model, terms.formula(terms.labels[:i]), mask)
        dfs.append(sub.df_resid)
        devs.append(deviance_of(sub))
    if terms.labels:
        dfs.append(model.df_resid)
        devs.append(deviance_of(model))
    resid_df, resid_dev = np.asarray(dfs, float), np.asarray(devs, float)
    df = np.r_[np.nan, -np.diff(resid_df)]
    dev = np.r_[np.nan, np.maximum(0.0, -np.diff(resid_dev))]
    table = pd.DataFrame({"Df": df, "Deviance": dev, "Resid. Df": resid_df,
                          "Resid. Dev": resid_dev}, index=["NULL", *terms.labels])
    likelihood = is_likelihood(model)
    if want_test and likelihood:
        table["Pr(>Chi)"] = chisq_pvalues(dev, df)
    heading = ["Analysis of Deviance Table", "", f"Family: {model.family.describe()}", "",
               f"Response: {model.response.name}", "",
               "Terms added sequentially (first to last)"]
    notes = likelihood_notes(model)
    return DevianceTable(table, heading, notes)
