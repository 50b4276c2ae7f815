"""``ubreg.anova``: nested linear fits compared by their deviance difference.

With one model, ``anova(m)`` is R's sequential table (terms added first to
last, :mod:`ubreg.evaluate.sequential`); with two, the comparison below.

With the ``entropy`` family (and ``entropy2``, which has the same optimum) the
fits are maximum-likelihood logistic regressions, and the deviance
difference is the likelihood-ratio statistic with its χ² reference, as R's
``anova(m0, m1, test = "Chisq")``.  For every other family the deviance
difference 2 Σ wᵢ [D_φ(yᵢ‖p̂₀ᵢ) − D_φ(yᵢ‖p̂₁ᵢ)] is a difference of surrogate
risks, not of log-likelihoods: it is reported under that name, without a
p-value, and the added terms are tested by a Wald test with the robust (HC0)
covariance, which is valid for every family (docs/math.md §3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

from ..summary.linear import SIGNIF_LEGEND, format_pvalue, significance_stars
from ..summary.render import render_template
from .deviance_table import (
    DevianceTable,
    NotNestedError,
    check_test,
    deviance_of,
    is_likelihood,
)
from .model_sequence import sequence_table
from .nesting import check_nested_pair, order_nested
from .sequential import sequential_anova

if TYPE_CHECKING:
    from ..results.linear import LinearResult
    from .anova_multinomial import MultinomialAnova

__all__ = ["anova", "AnovaResult", "NotNestedError"]



def _wald(m1: LinearResult, added: list[str], cov: str = "robust") -> tuple[float, int, float]:
    beta = m1.coef[added].to_numpy(dtype=float)
    V = m1.vcov(cov).loc[added, added].to_numpy(dtype=float)
    ok = np.isfinite(beta)                         # aliased columns are NaN
    beta, V = beta[ok], V[np.ix_(ok, ok)]
    if beta.size == 0:
        return np.nan, 0, np.nan
    stat = float(beta @ np.linalg.lstsq(V, beta, rcond=None)[0])
    df = int(np.linalg.matrix_rank(V))
    return stat, df, float(stats.chi2.sf(stat, df))


class AnovaResult(DevianceTable):
    """Deviance table of two nested fits, and the Wald test of the added terms.

    A DataFrame (R's ``anova`` layout: Resid. Df, Resid. Dev, Df, Deviance, and for
    likelihood families the LR χ² p-value ``Pr(>Chi)``), with the tests as attributes.

    Attributes
    ----------
    likelihood_ratio : bool
        True when the deviance difference is a likelihood-ratio statistic.
    lr_statistic, lr_pvalue : float
        The LR test (NaN when it is not one).
    wald_statistic, wald_df, wald_pvalue : float
        Wald χ² test of the added terms with the robust (HC0) covariance.
    added : list of str
        Terms of the larger model that the smaller one lacks.
    """

    _metadata = DevianceTable._metadata + [
        "models", "family", "added", "likelihood_ratio", "df", "deviance_difference",
        "lr_statistic", "lr_pvalue", "wald_statistic", "wald_df", "wald_pvalue"]

    def __init__(self, m0: LinearResult, m1: LinearResult) -> None:
        likelihood = is_likelihood(m0)
        dev0, dev1 = deviance_of(m0), deviance_of(m1)           # entropy2: in nats
        df = float(m1.df_model - m0.df_model)
        cols = {"Resid. Df": [m0.df_resid, m1.df_resid], "Resid. Dev": [dev0, dev1],
                "Df": [np.nan, df], "Deviance": [np.nan, dev0 - dev1]}
        if likelihood:
            # 2 (ℓ₁ − ℓ₀) with the Bernoulli log-likelihood: = the deviance difference for
            # entropy, and in nats (not bits) for entropy2
            lr = float(2.0 * (m1.loglik - m0.loglik))
            cols["Pr(>Chi)"] = [np.nan, float(stats.chi2.sf(lr, df))]
        super().__init__(pd.DataFrame(cols, index=["1", "2"]))
        self.models, self.family = (m0, m1), m0.family
        self.added = [t for t in m1.coef.index if t not in set(m0.coef.index)]
        self.likelihood_ratio, self.df = likelihood, df
        self.deviance_difference = float(dev0 - dev1)
        self.lr_statistic = lr if likelihood else float("nan")
        self.lr_pvalue = float(cols["Pr(>Chi)"][1]) if likelihood else float("nan")
        self.wald_statistic, self.wald_df, self.wald_pvalue = _wald(m1, self.added)

    @property
    def statistic_label(self) -> str:
        if self.likelihood_ratio:
            return ("likelihood-ratio χ² (deviance difference of maximum-likelihood fits"
                    + ("" if self.family.likelihood_scale == 1.0 else
                       f"; {self.family.describe()}'s deviances × ln 2, in nats") + ")")
        return (f"deviance difference of {self.family.describe()} fits: a difference of "
                "surrogate risks, not a likelihood ratio, so no χ² p-value is given")

    def wald_frame(self) -> pd.DataFrame:
        """The robust Wald test of the added terms, one row."""
        return pd.DataFrame({"terms": [", ".join(self.added)], "df": [self.wald_df],
                             "chi2": [self.wald_statistic], "Pr(>Chi)": [self.wald_pvalue]},
                            index=["Wald (HC0)"])

    def _rows(self) -> list[list[str]]:
        t = self.table
        rows = []
        for i, name in enumerate(t.index):
            r = [name, f"{t['Resid. Df'].iloc[i]:g}", f"{t['Resid. Dev'].iloc[i]:.4f}"]
            r += ["", ""] if i == 0 else [f"{self.df:g}", f"{self.deviance_difference:.4f}"]
            if self.likelihood_ratio:
                r.append("" if i == 0 else format_pvalue(self.lr_pvalue))
            rows.append(r)
        return rows

    def context(self) -> dict:
        header = ["", "Resid. Df", "Resid. Dev", "Df", "Deviance"]
        if self.likelihood_ratio:
            header.append("Pr(>Chi)")
        return {"models": [m.formula for m in self.models], "family": self.family.describe(),
                "header": header, "rows": self._rows(), "label": self.statistic_label,
                "wald": {"terms": ", ".join(self.added), "df": self.wald_df,
                         "statistic": f"{self.wald_statistic:.4f}",
                         "p": format_pvalue(self.wald_pvalue)}}

    def __str__(self) -> str:
        c = self.context()
        lines = ["Analysis of Deviance Table", "", f"Family: {c['family']}", ""]
        lines += [f"Model {i + 1}: {f}" for i, f in enumerate(c["models"])]
        rows = [c["header"]] + c["rows"]
        w = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
        stars = ["", "", significance_stars(self.lr_pvalue).ljust(3)] if self.likelihood_ratio \
            else ["", "", ""]
        lines += [""] + ["  ".join([r[0].ljust(w[0])] + [x.rjust(k) for x, k in zip(r[1:], w[1:])]
                                   + ([star] if self.likelihood_ratio else []))
                         for r, star in zip(rows, stars)]
        if self.likelihood_ratio:
            lines += ["---", SIGNIF_LEGEND]
        wald = (f"Wald test of the added terms ({c['wald']['terms']}) with the robust (HC0) "
                f"covariance: χ² = {c['wald']['statistic']} on {c['wald']['df']} df, "
                f"p = {c['wald']['p']}")
        lines += ["", f"Statistic: {c['label']}.", wald]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def html(self) -> str:
        return render_template("report/anova.html", **self.context())

    def _repr_html_(self) -> str:
        return self.html()


def anova(m0: LinearResult, *models: LinearResult,
          test: str | None = "Chisq") -> DevianceTable | AnovaResult | MultinomialAnova:
    """The deviance table of one model, or the comparison of nested linear fits.

    Parameters
    ----------
    m0, *models : LinearResult
        One model: its sequential table (R's ``anova(fit, test = "Chisq")``,
        :func:`~ubreg.evaluate.sequential.sequential_anova`).  Two: fits of the
        same family, response, rows and weights, the terms of one a subset of
        the other's (either order).  Three or more: R's ``anova(m1, m2, m3, ...)``,
        each model against the one before it, in the order given (each pair nested).
    test : {"Chisq", "LRT", None}
        Whether to give ``Pr(>Chi)`` (likelihood fits only; two models always have it).

    Returns
    -------
    DevianceTable or AnovaResult
        A DataFrame printed as R prints it.  One model: the sequential table.  Two
        multinomial logits: R's ``anova.multinom`` likelihood-ratio test.  Two: with
        ``entropy``, R's ``anova(m0, m1, test = "Chisq")`` (likelihood-ratio χ²);
        otherwise the deviance difference, labelled as such, without p-value; always
        the Wald test of the added terms with the robust covariance.  More: R's table
        of the sequence (:func:`~ubreg.evaluate.model_sequence.sequence_table`).

    Raises
    ------
    NotNestedError
        If two consecutive fits are not nested fits of the same data (the message says
        why).
    """
    if not models:
        return sequential_anova(m0, test)
    check_test(test)
    if len(models) > 1:
        return sequence_table([m0, *models], test)
    m1 = models[0]
    from ..results.multinomial import MultinomialResult
    if isinstance(m0, MultinomialResult) and isinstance(m1, MultinomialResult):
        from .anova_multinomial import multinomial_anova
        return multinomial_anova(m0, m1)
    check_nested_pair(m0, m1)
    return AnovaResult(*order_nested(m0, m1))
