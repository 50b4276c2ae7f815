"""Summary of a multinomial logit, as R's ``summary(multinom(...))`` prints it."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .base import Summary
from .rformat import format_r, matrix_lines

if TYPE_CHECKING:
    from ..results.multinomial import MultinomialResult

__all__ = ["MultinomialSummary", "print_lines"]


def _matrix(table: pd.DataFrame) -> list[str]:
    """R's ``print`` of a numeric matrix: each column formatted with 7 significant digits."""
    return matrix_lines(table.index, {str(c): format_r(table[c].to_numpy(), 7)
                                      for c in table.columns})


def _tail(r: MultinomialResult) -> list[str]:
    return ["", f"Residual Deviance: {format_r([r.deviance])[0]} ",
            f"AIC: {format_r([r.aic])[0]} "]


def _notes(r: MultinomialResult) -> list[str]:
    notes = []
    if r.aliased.any():
        names = [str(c) for c, a in zip(r.coef.columns, r.aliased) if a]
        notes.append(f"Coefficients of {', '.join(names)} not defined because of "
                     "singularities (linear combinations of earlier columns).")
    if not r.converged:
        notes.append(f"Newton's method did not converge in {r.iterations} iterations: the "
                     "estimates and their standard errors are not those of the optimum.")
    if r.n_dropped:
        notes.append(f"({r.n_dropped} observation{'s' if r.n_dropped != 1 else ''} "
                         "deleted due to missingness)")
    return notes


def print_lines(r: MultinomialResult) -> list[str]:
    """``print(multinom(...))``: the call, the coefficients, the deviance and the AIC."""
    from .printed import _head
    return _head(r) + ["", "Coefficients:"] + _matrix(r.coef) + _tail(r)


class MultinomialSummary(Summary):
    """``str(s)`` as R's ``summary.multinom``; ``s.frame()`` the estimates, standard errors,
    z and Wald p-values by ``"class:term"``."""

    template = "multinomial_summary.html"

    def __init__(self, result: MultinomialResult) -> None:
        super().__init__(result)
        from scipy.stats import norm
        est = result.coef.stack()
        se = result.std_errors.stack()
        z = est / se
        self.table = pd.DataFrame({"estimate": est.to_numpy(), "std_error": se.to_numpy(),
                                   "z": z.to_numpy(),
                                   "p": 2 * norm.sf(abs(z.to_numpy()))},
                                  index=result.vcov.index)

    def facts(self) -> dict:
        r = self.result
        return {"call": r.call, "baseline": str(r.classes[0]),
                "lines": [("Classes", ", ".join(map(str, r.classes))),
                          ("Observations", f"{r.nobs:g}"),
                          ("Residual deviance", f"{r.deviance:.6g}"),
                          ("AIC", f"{r.aic:.6g}"),
                          ("Iterations", f"{r.iterations}")],
                "notes": _notes(r)}

    def text_lines(self) -> list[str]:
        r = self.result
        return (self.call_lines() + ["", "Coefficients:"] + _matrix(r.coef)
                + ["", "Std. Errors:"] + _matrix(r.std_errors) + _tail(r)
                + self.note_lines(_notes(r)))

    def html_context(self) -> dict:
        r = self.result
        header = [""] + [str(c) for c in r.coef.columns]

        def rows(table):
            return [[str(i)] + [f"{v:.6g}" for v in table.loc[i]] for i in table.index]
        return {"facts": self.facts(), "header": header, "coef_rows": rows(r.coef),
                "se_rows": rows(r.std_errors)}
