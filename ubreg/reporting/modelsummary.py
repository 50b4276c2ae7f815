"""Tables for a paper: ``ubreg.modelsummary`` and ``ubreg.datasummary_df``, as R's
modelsummary package writes them.

``modelsummary(models, output)``: a column per model; a row per coefficient with its
estimate (and significance stars), below it the standard error in parentheses (or the
confidence interval in brackets, or z); then the goodness-of-fit rows (Num.Obs., AIC,
BIC, Log.Lik., Deviance) and notes.  ``datasummary_df(frame, output)`` writes any
DataFrame the same ways: a ``coef_table``, an anova or drop1 table, a data summary.
Formats: HTML, LaTeX (booktabs), Markdown and Word (:mod:`ubreg.reporting.table_formats`).
"""
from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..evaluate.compare import as_model_and_cv, fit_statistics, named_models
from ..results.base import capabilities_of
from ..summary.linear import format_pvalue
from .table_formats import format_of, render, write

__all__ = ["modelsummary", "datasummary_df"]

#: the goodness-of-fit rows, modelsummary's names
GOF = {"nobs": "Num.Obs.", "aic": "AIC", "bic": "BIC", "loglik": "Log.Lik.",
       "deviance": "Deviance"}
_STATISTICS = ("std.error", "conf.int", "statistic")
#: modelsummary's stars=TRUE
_STARS = ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, "+"))
STARS_NOTE = "+ p < 0.1, * p < 0.05, ** p < 0.01, *** p < 0.001"


def _stars(p: float) -> str:
    return next((mark for cut, mark in _STARS if np.isfinite(p) and p < cut), "")


def _coefficient_rows(models: dict, statistic: str, stars: bool, vcov: str | None,
                      conf_level: float, digits: int) -> list[tuple[str, list[str]]]:
    tables = {name: (m.coef_table(vcov, level=conf_level)
                     if capabilities_of(m).has_coefficients else None)
              for name, m in models.items()}
    terms: list[str] = []
    for t in tables.values():
        if t is not None:
            terms += [term for term in t.index if term not in terms]
    rows = []
    for term in terms:
        estimates, seconds = [], []
        for t in tables.values():
            if t is None or term not in t.index or not np.isfinite(t.loc[term, "estimate"]):
                estimates.append("")
                seconds.append("")
                continue
            r = t.loc[term]
            mark = _stars(r["p"]) if stars else ""
            estimates.append(f"{r['estimate']:.{digits}f}" + (f" {mark}" if mark else ""))
            seconds.append({"std.error": f"({r['std_error']:.{digits}f})",
                            "statistic": f"({r['z']:.{digits}f})",
                            "conf.int": f"[{r['conf_low']:.{digits}f}, "
                                        f"{r['conf_high']:.{digits}f}]"}[statistic])
        rows += [(str(term), estimates), ("", seconds)]
    return rows


def _gof_rows(models: dict, gof: Sequence[str]) -> list[tuple[str, list[str]]]:
    unknown = [g for g in gof if g not in GOF]
    if unknown:
        raise ValueError(f"gof {unknown}: choose among {list(GOF)}")
    stats = {name: fit_statistics(m) for name, m in models.items()}
    rows = []
    for key in gof:
        cells = [("" if not np.isfinite(s[key]) else
                  f"{s[key]:.0f}" if key == "nobs" else f"{s[key]:.1f}")
                 for s in stats.values()]
        if any(cells):
            rows.append((GOF[key], cells))
    return rows


def modelsummary(models: Any, output: str | pathlib.Path | None = None, *,
                 statistic: str = "std.error", stars: bool = True,
                 gof: Sequence[str] = ("nobs", "aic", "bic", "loglik"),
                 vcov: str | None = None, conf_level: float = 0.95, digits: int = 3,
                 names: Sequence[str] | None = None, title: str | None = None,
                 notes: Sequence[str] = ()) -> pd.DataFrame | str | pathlib.Path:
    """The models table of a paper, as R's ``modelsummary(models, output, statistic,
    stars, gof_map, vcov, fmt)``.

    Parameters
    ----------
    models : model, list, or dict {name: model}
        Fitted models (or CV results); coefficients come from the linear fits, the
        goodness-of-fit rows from every model that has them.
    output : str or path, optional
        A file (``.html``, ``.tex``, ``.md``, ``.docx``) to write; ``"html"``,
        ``"latex"`` or ``"markdown"`` for the text; None for the table as a DataFrame.
    statistic : {"std.error", "conf.int", "statistic"}
        Below each estimate: its standard error, its Wald interval at ``conf_level``,
        or its z statistic.
    stars : bool
        Significance stars after the estimates (``+`` 0.1, ``*`` 0.05, ``**`` 0.01,
        ``***`` 0.001, modelsummary's) and their legend in the notes.
    gof : sequence of {"nobs", "aic", "bic", "loglik", "deviance"}
        Goodness-of-fit rows; a row empty for every model is left out.
    vcov : str, optional
        The covariance of the standard errors (``m.vcov``'s kinds; by default each
        model's, named in the notes).
    digits : int
        Decimals of estimates and their statistics (modelsummary's ``fmt = 3``).

    Returns
    -------
    DataFrame, str or Path
        The table (no ``output``), its text (a format name), or the file written.
    """
    if statistic not in _STATISTICS:
        raise ValueError(f"statistic must be one of {_STATISTICS}, got {statistic!r}")
    named = {n: as_model_and_cv(item)[0] for n, item in named_models(models, names).items()}
    rows = _coefficient_rows(named, statistic, stars, vcov, conf_level, digits)
    rows += _gof_rows(named, gof)
    table = pd.DataFrame([cells for _, cells in rows], index=[label for label, _ in rows],
                         columns=list(named))
    covariance = ("each model's default covariance (model-based for a likelihood family, "
                  "robust HC0 otherwise)" if vcov is None else f"covariance {vcov}")
    second = {"std.error": "Standard errors", "statistic": "z statistics",
              "conf.int": f"{conf_level:.0%} Wald intervals"}[statistic]
    all_notes = [f"{second} from {covariance}."] + ([STARS_NOTE] if stars else []) + list(notes)
    return _emit(table, output, title, all_notes)


def datasummary_df(frame: pd.DataFrame, output: str | pathlib.Path | None = None, *,
                   digits: int = 3, title: str | None = None,
                   notes: Sequence[str] = ()) -> pd.DataFrame | str | pathlib.Path:
    """Any DataFrame (``m.coef_table()``, ``ubreg.drop1(m)``, a data summary) written as
    :func:`modelsummary` writes its table, numbers with ``digits`` decimals (R's
    ``datasummary_df``)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"datasummary_df takes a DataFrame, got {type(frame).__name__}")
    shown = pd.DataFrame(frame).copy()
    for column in shown.columns:
        values = shown[column]
        if not pd.api.types.is_float_dtype(values):
            continue
        finite = values[np.isfinite(values)]
        if str(column).startswith("Pr(") or column in ("p", "p.value"):
            text = [format_pvalue(v) for v in values]     # R's format.pval
        elif len(finite) and (finite == np.round(finite)).all():
            text = [f"{v:g}" for v in values]              # counts and degrees of freedom
        else:
            text = [f"{v:.{digits}f}" for v in values]
        shown[column] = ["" if pd.isna(v) else t for v, t in zip(values, text)]
    return _emit(shown, output, title, list(notes))


def _emit(table: pd.DataFrame, output: Any, title: str | None,
          notes: list[str]) -> pd.DataFrame | str | pathlib.Path:
    if output is None:
        table.attrs["notes"] = notes
        return table
    kind = format_of(str(output))
    if str(output) == kind:
        return render(table, kind, title, notes)
    return write(table, output, title, notes)
