"""The report's likelihood-ratio tests: R's ``drop1(m, test = "LRT")`` of each likelihood fit.

Where a family's loss is the binomial likelihood (``entropy``, ``entropy2``:
:func:`~ubreg.evaluate.deviance_table.is_likelihood`), the rise in deviance when a term
is dropped is a likelihood-ratio statistic, and :func:`ubreg.drop1` gives R's table: each
term dropped in turn (a main effect inside an interaction kept, R's marginality), the
model refitted on the same rows, its deviance, AIC, LRT and χ² p-value.  For the other
families the deviance is a surrogate risk whose differences are not χ² statistics, so
they get no table, and the section says so.
"""
from __future__ import annotations

import numpy as np

from ..evaluate.deviance_table import is_likelihood, likelihood_notes
from ..evaluate.single_terms import drop1
from ..summary.linear import format_pvalue, significance_stars
from .blocks import Paragraph, Row, Section, Table, slug
from .model_section import coefficient_models

__all__ = ["likelihood_ratio_section"]

_HEADER = ["Term", "Df", "Deviance", "AIC", "LRT", "Pr(>Chi)", ""]


def _number(value, decimals: int) -> str:
    return f"{value:.{decimals}f}" if np.isfinite(value) else ""


def _drop1_table(name: str, anchor: str, model) -> Table | Paragraph:
    """The model's drop1 table, or a note saying why it could not be computed."""
    try:
        table = drop1(model, test="LRT")
    except (ValueError, TypeError) as exc:      # data not at hand, a refit that failed, ...
        return Paragraph(f"{name}: likelihood-ratio tests not computed ({exc}).", "note")
    rows = []
    for term, r in table.iterrows():
        p = float(r["Pr(>Chi)"])
        rows.append(Row([str(term), "" if not np.isfinite(r["Df"]) else f"{r['Df']:g}",
                         _number(r["Deviance"], 2), _number(r["AIC"], 2),
                         _number(r["LRT"], 4), format_pvalue(p) if np.isfinite(p) else "",
                         significance_stars(p) if np.isfinite(p) else ""]))
    notes = ["<none>: the model as fitted; each other row: the model without that term, "
             "refitted on the same rows. LRT: the rise in deviance, referred to χ² with Df "
             "degrees of freedom; * p < 0.05, ** p < 0.01, *** p < 0.001, . p < 0.1.",
             *likelihood_notes(model)]
    return Table(f"drop1-{anchor}", f"{name}: single term deletions (R's drop1 with "
                 "test = \"LRT\").", _HEADER, rows, align="lrrrrrl", notes=notes)


def likelihood_ratio_section(models: dict) -> Section | None:
    """The ``likelihood-ratio`` section: a drop1 table for each linear fit whose family is
    a likelihood; None when no fit is one."""
    linear = coefficient_models(models)
    chosen = {n: m for n, m in linear.items() if is_likelihood(m)}
    if not chosen:
        return None
    section = Section("likelihood-ratio", "Likelihood-ratio tests")
    section.text("For each fit whose loss is the binomial likelihood, each term is dropped in "
                 "turn and the model refitted on the same rows: the rise in deviance tests "
                 "whether the term is needed, given the others (R's drop1). A main effect "
                 "that is part of an interaction is not dropped on its own.")
    for name, m in chosen.items():
        section.add(_drop1_table(name, slug(name), m))
    others = [n for n in linear if n not in chosen]
    if others:
        section.text("No likelihood-ratio tests for " + ", ".join(others) + ": their family's "
                     "deviance is a surrogate risk, not a likelihood, so its differences are "
                     "not χ² statistics.", "note")
    return section
