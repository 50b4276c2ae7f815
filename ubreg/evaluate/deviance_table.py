"""R's deviance tables (``anova`` of one model, ``drop1``, ``add1``): numbers and their print.

A :class:`DevianceTable` holds the table as a DataFrame with R's row and column
names (NA as NaN) and the heading R prints above it.  Whether a table may carry
AIC, a likelihood-ratio statistic and χ² p-values is decided once, by
:func:`is_likelihood`: the fit must declare a likelihood (its ``df_model``
counts parameters, ``Capabilities.has_likelihood``) and its family's deviance
must be a multiple of the binomial deviance (``Family.binomial_likelihood``:
``entropy``, and ``entropy2`` whose deviance is the binomial one in bits; the
tables show its deviances × ln 2, in nats, the likelihood-ratio scale:
:func:`deviance_of`; docs/math.md §3).  For every other family a deviance
difference is a difference of surrogate risks: the tables give it, without AIC
or test, and say so.
"""
from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..results.base import capabilities_of
from ..summary.linear import SIGNIF_LEGEND, format_pvalue, significance_stars

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["NotNestedError", "DevianceTable", "is_likelihood", "check_test", "chisq_pvalues",
           "RISK_NOTE_TABLE",
           "aic_shift", "extract_aic", "r_edf", "deviance_of", "null_deviance_of",
           "likelihood_notes"]

#: the note of a table whose deviances are not likelihood-ratio deviances
RISK_NOTE_TABLE = ("The {family} family's deviance 2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) is not a "
                   "likelihood: its differences are differences of surrogate risks, not χ² "
                   "statistics, so no AIC, likelihood-ratio test or p-value is given "
                   "(docs/math.md §3).")

_TESTS = ("Chisq", "LRT", None, "none")


def is_likelihood(model: Any) -> bool:
    """True when ``model``'s deviance differences are likelihood-ratio statistics and
    its AIC a likelihood AIC (see the module notes)."""
    return bool(capabilities_of(model).has_likelihood and model.family.binomial_likelihood)


def _scale(model: Any) -> float:
    return float(model.family.likelihood_scale) if is_likelihood(model) else 1.0


def deviance_of(model: Any) -> float:
    """The deviance as the tables show it: on the likelihood-ratio scale (nats) for a
    likelihood fit (``entropy2``'s bits × ln 2), the family's own otherwise."""
    return float(model.deviance) * _scale(model)


def null_deviance_of(model: Any) -> float:
    """The null deviance as :func:`deviance_of` shows a deviance."""
    return float(model.null_deviance) * _scale(model)


def likelihood_notes(model: Any) -> list[str]:
    """The notes of a table: why no test (not a likelihood), or the scale of entropy2's."""
    if not is_likelihood(model):
        return [RISK_NOTE_TABLE.format(family=model.family.describe())]
    if _scale(model) != 1.0:
        return [f"The {model.family.describe()} family's deviance is the binomial deviance "
                f"divided by ln 2 (bits); the table shows it × {_scale(model):.6g}, in nats, "
                "the scale of the likelihood-ratio statistics and of AIC."]
    return []


def check_test(test: str | None) -> bool:
    """Whether ``test`` asks for R's χ² test (``"Chisq"`` or ``"LRT"``; ``None`` or
    ``"none"`` for none)."""
    if test not in _TESTS:
        raise ValueError(f"test must be 'Chisq' (or 'LRT'), or None, got {test!r}")
    return test in ("Chisq", "LRT")


def chisq_pvalues(statistic: ArrayLike, df: ArrayLike) -> np.ndarray:
    """P(χ²_df > statistic), NaN where df ≤ 0 or either is NA (R's ``safe_pchisq``)."""
    statistic, df = np.asarray(statistic, float), np.asarray(df, float)
    ok = np.isfinite(statistic) & np.isfinite(df) & (df > 0)
    out = np.full(statistic.shape, np.nan)
    out[ok] = stats.chi2.sf(statistic[ok], df[ok])
    return out


def r_edf(model: LinearResult) -> float:
    """R's ``extractAIC`` degrees of freedom of a glm: the rows of the fit − its
    residual df (prior weights: the parameters plus the rows of weight 0); the
    parameters for frequency weights."""
    return model.n_rows - model.df_resid if model.weight_kind == "prior" else model.df_model


def extract_aic(model: LinearResult, k: float = 2.0) -> float:
    """R's ``extractAIC(fit, k = k)[2]`` of a glm: AIC + (k − 2) × edf, with AIC =
    −2 logLik + 2 × parameters (a likelihood fit)."""
    return -2.0 * model.loglik + 2.0 * model.df_model + (k - 2.0) * r_edf(model)


def aic_shift(model: LinearResult, k: float) -> float:
    """What R adds to ``deviance + k × parameters`` to give ``extractAIC(fit, k = k)`` (the
    deviance as :func:`deviance_of` shows it)."""
    return extract_aic(model, k) - deviance_of(model) - k * model.df_model


def _cell(column: str, value: float) -> str:
    if not np.isfinite(value):
        return ""
    if column in ("Df", "Resid. Df", "Res.Df"):
        return f"{value:g}"
    if column.startswith("Pr("):
        return format_pvalue(value)
    return f"{value:.4f}" if column in ("LRT", "Chisq", "LR Chisq") else f"{value:.2f}"


def _pvalue_column(table: pd.DataFrame) -> str | None:
    return next((c for c in table.columns if str(c).startswith("Pr(")), None)


class NotNestedError(ValueError):
    """The two models are not nested fits of the same data."""


class DevianceTable(pd.DataFrame):
    """A deviance table: a DataFrame with R's rows and columns, printed as R prints it.

    R's ``anova`` and ``drop1`` return a data.frame; so does ubreg: ``drop1(m)["Pr(>Chi)"]``
    is the column, ``.loc["glucose"]`` a row.  A slice or any computation on it is a
    plain DataFrame (only the table itself carries R's heading and print).

    Parameters
    ----------
    table : DataFrame
        R's rows and columns (``Df``, ``Deviance``, ``AIC``, ``LRT``, ``Pr(>Chi)``,
        ``Resid. Df``, ``Resid. Dev``, as the table has them); NA as NaN.
    heading : list of str
        The lines R prints above the table.
    notes : list of str
        Lines below it (what the numbers are, when they are not R's).
    """

    _metadata = ["heading", "notes"]

    def __init__(self, table: Any = None, heading: Iterable[str] = (),
                 notes: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(table, **kwargs)
        self.heading = list(heading)
        self.notes = list(notes)

    @property
    def _constructor(self) -> type:
        return pd.DataFrame

    @property
    def table(self) -> pd.DataFrame:
        """The numbers as a plain DataFrame."""
        return pd.DataFrame(self)

    def frame(self) -> pd.DataFrame:
        """The table (a copy, a plain DataFrame)."""
        return pd.DataFrame(self).copy()

    def _text_rows(self) -> list[list[str]]:
        t = self.table
        pcol = _pvalue_column(t)
        stars = pcol is not None and bool(np.isfinite(t[pcol]).any())
        rows = [[""] + list(t.columns) + ([""] if stars else [])]
        for name, row in t.iterrows():
            cells = [str(name)] + [_cell(c, row[c]) for c in t.columns]
            rows.append(cells + ([significance_stars(row[pcol])] if stars else []))
        return rows

    def __str__(self) -> str:
        rows = self._text_rows()
        stars = rows[0][-1] == ""
        numbers = len(rows[0]) - stars
        w = [max(len(r[j]) for r in rows) for j in range(numbers)]
        # print.anova: columns one space apart, the stars left-justified after the
        # p-values (printCoefmat), their legend below
        body = [" ".join([r[0].ljust(w[0])] + [x.rjust(k) for x, k in zip(r[1:numbers], w[1:])]
                          + ([r[-1].ljust(3)] if stars else [])) for r in rows]
        legend = ["---", SIGNIF_LEGEND] if stars else []
        notes = ["", *self.notes] if self.notes else []
        return "\n".join([*self.heading, "", *body, *legend, *notes])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        head = "".join(f"<p>{escape(line)}</p>" for line in self.heading if line)
        notes = "".join(f"<p><em>{escape(line)}</em></p>" for line in self.notes)
        return head + self.table.to_html(na_rep="") + notes
