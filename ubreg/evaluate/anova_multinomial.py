"""``ubreg.anova`` of two multinomial logits: R's ``anova.multinom`` likelihood-ratio test.

The deviance of a multinomial logit is −2 log L (its saturated log-likelihood is 0), so the
deviance difference of nested fits is the likelihood-ratio statistic, referred to χ² with
the difference of their numbers of coefficients.  ``Resid. df`` is n(K − 1) − edf, as R
counts it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from .deviance_table import NotNestedError

if TYPE_CHECKING:
    from ..results.multinomial import MultinomialResult

__all__ = ["MultinomialAnova", "multinomial_anova"]


def multinomial_anova(m0: MultinomialResult, m1: MultinomialResult) -> MultinomialAnova:
    """The likelihood-ratio test of two nested multinomial logits (either order)."""
    return MultinomialAnova(m0, m1)


def _model_label(m: MultinomialResult) -> str:
    """The right-hand side of the formula, as R labels the models."""
    return m.formula.split("~", 1)[1].strip()


def _check_nested(m0: MultinomialResult, m1: MultinomialResult):
    """(smaller, larger), or a ValueError naming why the fits are not nested fits of the
    same data."""
    if m0.response.name != m1.response.name or m0.classes != m1.classes:
        raise NotNestedError("the models have different responses or classes")
    if not m0.index.equals(m1.index) or not np.array_equal(m0.weights, m1.weights):
        raise NotNestedError("the models were fitted on different rows or weights: fit both "
                             "on the same complete rows")
    t0, t1 = set(m0.coef.columns), set(m1.coef.columns)
    if t0 == t1:
        raise NotNestedError("the models have the same terms: nothing to test")
    if t0 < t1:
        return m0, m1
    if t1 < t0:
        return m1, m0
    raise NotNestedError(f"the models are not nested: terms only in the first: "
                         f"{sorted(t0 - t1)}; only in the second: {sorted(t1 - t0)}")


class MultinomialAnova:
    """``table``: Model, Resid. df, Resid. Dev, Test, Df, LR stat., Pr(Chi) (R's columns);
    ``str()`` as R prints it."""

    def __init__(self, m0: MultinomialResult, m1: MultinomialResult) -> None:
        small, large = _check_nested(m0, m1)
        self.models = (small, large)
        K = len(small.classes)
        rdf = [m.nobs * (K - 1) - m.df_model for m in (small, large)]
        dev = [small.deviance, large.deviance]
        df = large.df_model - small.df_model
        lr = dev[0] - dev[1]
        self.lr_statistic, self.lr_df = float(lr), int(df)
        self.lr_pvalue = float(stats.chi2.sf(lr, df))
        self.table = pd.DataFrame({
            "Model": [_model_label(small), _model_label(large)],
            "Resid. df": rdf, "Resid. Dev": dev, "Test": ["", "1 vs 2"],
            "Df": pd.array([pd.NA, df], dtype="Int64"), "LR stat.": [np.nan, lr],
            "Pr(Chi)": [np.nan, self.lr_pvalue]},
            index=[1, 2])
        self.response = small.response.name

    def __str__(self) -> str:
        return ("Likelihood ratio tests of Multinomial Models\n\n"
                f"Response: {self.response}\n" + self.table.to_string(na_rep=""))

    __repr__ = __str__
