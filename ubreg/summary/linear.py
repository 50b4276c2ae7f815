"""Summaries that read like R's ``summary.glm``: text, HTML and DataFrame.

The data of a summary is built once (:meth:`LinearSummary.frame` and a few
scalars); the text and HTML forms only render it.  As R's ``printCoefmat``:
the terms in the order of the formula (a factor's coefficients where the
factor appears; the fit and ``coef``, ``coef_table``, ``vcov`` keep the
design's column order, patsy's), estimates and standard errors formatted
together, z values rounded to 3 decimals, p-values by ``format.pval``
(:func:`~ubreg.summary.rformat.format_pvalues`), significance stars and their
legend.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..numerics.separation import some_names
from .base import Summary, align_rows, sig_decimals
from .rformat import format_pvalues, format_r, named_vector_lines

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["LinearSummary", "SIGNIF_LEGEND", "format_pvalue", "significance_stars",
           "format_coef_columns", "standard_error_notes", "saturated_note", "aliased_note",
           "convergence_note",
           "RISK_NOTE", "covariance_label", "formula_order"]

SIGNIF_LEGEND = "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"


def significance_stars(p: float) -> str:
    if not np.isfinite(p):
        return ""
    for cut, mark in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p < cut:
            return mark
    return ""


def format_pvalue(p: float) -> str:
    """R's ``format.pval(p, digits = 3)`` of one p-value (``< 2e-16`` below machine
    epsilon); a column of p-values is formatted together by
    :func:`~ubreg.summary.rformat.format_pvalues`."""
    return format_pvalues([p])[0]


def format_coef_columns(values: np.ndarray, digits: int = 4) -> list[str]:
    """Estimates and standard errors as R's ``printCoefmat`` formats them together:
    rounded to max(1, digits − 1 − ⌊log10 |x|⌋) decimals for the smallest and the
    largest non-zero |x|, then ``format(·, digits)`` (common decimals); NA for NaN."""
    x = np.asarray(values, dtype=float)
    acs = np.abs(x[np.isfinite(x) & (x != 0)])
    if acs.size:
        digmin = 1 + np.floor(np.log10([acs.min(), acs.max()]))
        x = np.round(x, int(max(1, *(digits - digmin))))
    return [c.strip() for c in format_r(x, digits)]


def formula_order(result) -> list[int]:
    """Positions of the coefficients in the order of the formula's terms (R's; the
    design's columns are in patsy's order, the factors first)."""
    n = len(result.coef)
    slices = result.design.term_slices
    order = [i for name in result.design.terms_in_formula_order()
             for i in range(n)[slices[name]]]
    if sorted(order) != list(range(n)):
        return list(range(n))
    return order


class LinearSummary(Summary):
    """Summary of a :class:`~ubreg.results.linear.LinearResult`.

    ``str(summary)`` gives the text, ``summary.html()`` (and
    ``_repr_html_``) the HTML, ``summary.frame()`` the coefficient table.
    """

    template = "linear_summary.html"
    _label: str | None = None           # summaries pickled before cluster-robust ones
    cluster: Any = None

    def __init__(self, result: LinearResult, cov: str = "model", *, cluster: Any = None,
                 label: str | None = None) -> None:
        super().__init__(result)
        self.cov = cov
        #: the clusters of a cluster-robust covariance (``vcov(cluster=)``), and its label
        self.cluster, self._label = cluster, label
        self.table = result.coef_table(cov=cov, cluster=cluster).iloc[formula_order(result)]
        self.residual_quantiles = self._residual_quantiles()

    def _residual_quantiles(self) -> pd.Series:
        r = self.result.residuals("deviance").to_numpy()
        r = r[~np.isnan(r)]                 # na_action="exclude" pads the dropped rows
        q = np.quantile(r, [0, 0.25, 0.5, 0.75, 1.0]) if r.size else np.full(5, np.nan)
        return pd.Series(q, index=["Min", "1Q", "Median", "3Q", "Max"])

    def frame(self) -> pd.DataFrame:
        """The coefficient table as a DataFrame (R's ``coef(summary(fit))``), the terms
        in formula order; ``attrs["covariance"]`` names the covariance of the
        standard errors."""
        t = self.table
        out = pd.DataFrame({"Estimate": t["estimate"], "Std. Error": t["std_error"],
                            "z value": t["z"], "Pr(>|z|)": t["p"]}, index=t.index)
        out.attrs["covariance"] = self.covariance()
        return out

    def covariance(self) -> str:
        """Which covariance the standard errors come from, as the summary says it."""
        if self._label is not None:
            return self._label
        if self.cov == "model" and self.result.family.binomial_likelihood:
            return "model-based (inverse Fisher information, as glm)"
        return covariance_label(self.cov)

    # ---- the facts both renderings show ------------------------------------
    def notes(self) -> list[str]:
        """The notes under the table: the linear probability model, aliasing,
        separation, saturation, convergence, missing standard errors."""
        r = self.result
        notes = []
        if r.is_linear_probability_model:
            outside = int(np.sum((r.fitted_values < 0) | (r.fitted_values > 1)))
            note = ("gini with a linear model is the linear probability model: least squares "
                    f"of y on x; {outside} fitted value{'s' if outside != 1 else ''} "
                    "outside [0, 1].")
            if not np.isfinite(r.loglik):
                note += (" Some fitted probability is 0 or 1 for a row of the other class, so "
                         "the Bernoulli log-likelihood is not finite and there is no AIC or BIC.")
            notes.append(note)
        if r.rank < len(r.coef):
            notes.append(aliased_note(r))
        if r.separation is not None and r.separation.separated:
            names = [r.coef.index[j] for j in r.separation.columns]
            names = [n for n in names if n != "(Intercept)"] or names     # as the warning
            notes.append(f"{r.separation.kind.capitalize()} separation by {some_names(names)} "
                         "(Lemma 8): the optimum is at infinity; estimates and standard errors "
                         "are not meaningful.")
        elif not r.is_linear_probability_model and _numerically_01(r):
            notes.append("Fitted probabilities numerically 0 or 1 occurred.")
        n_sat = int(np.sum(r.family.saturated(r.eta)))
        if n_sat:
            notes.append(saturated_note(n_sat))
        if not r.fit_info.converged:
            notes.append(convergence_note(r))
        concentrated = r.concentration_note()
        if concentrated is not None:
            notes.append(concentrated[0].upper() + concentrated[1:] + ".")
        return notes + standard_error_notes(r, self.table)

    def facts(self) -> dict:
        """Everything the summary shows, as plain data (for templates)."""
        r = self.result
        fam = r.family
        cov_label = self.covariance()
        return {
            "call": r.call,
            "family": fam.describe(),
            "covariance": cov_label,
            "likelihood": bool(fam.likelihood_deviance),
            "divergence_formula": fam.divergence_formula, "risk_note": RISK_NOTE,
            "null_deviance": r.null_deviance, "df_null": r.df_null,
            "deviance": r.deviance, "df_resid": r.df_resid,
            "aic": r.aic, "loglik": r.loglik,
            "iterations": r.iterations, "solver": r.fit_info.solver,
            "converged": r.converged, "max_edge": r.fit_info.max_edge,
            "n_dropped": r.n_dropped, "nobs": r.nobs,
            "positive": r.response.positive, "response": r.response.name,
            "notes": self.notes(),
        }

    def _coef_rows(self) -> list[list[str]]:
        t = self.table
        est_se = format_coef_columns(np.concatenate([t["estimate"].to_numpy(),
                                                     t["std_error"].to_numpy()]))
        k = len(t)
        z = [c.strip() for c in format_r(np.round(t["z"].to_numpy(dtype=float), 3), 4)]
        p = [c.strip() for c in format_pvalues(t["p"].to_numpy(dtype=float))]
        rows = [["", "Estimate", "Std. Error", "z value", "Pr(>|z|)", ""]]
        for i, name in enumerate(t.index):
            rows.append([str(name), est_se[i], est_se[k + i], z[i], p[i],
                         significance_stars(t["p"].iloc[i])])
        return rows

    def text_lines(self) -> list[str]:
        f = self.facts()
        q = self.residual_quantiles
        lines = self.call_lines() + ["", "Deviance Residuals: "]
        lines += [ln.rstrip() for ln in named_vector_lines(q.index, _quantile_cells(q))]
        lines += ["", "Coefficients:"]
        # the stars left-justified, as printCoefmat writes them
        lines += align_rows([r[:-1] + [r[-1].ljust(3)] for r in self._coef_rows()])
        lines += ["---", SIGNIF_LEGEND, ""]
        lines.append(f"(Family: {f['family']}; response: P({f['response']} = {f['positive']}); "
                     f"covariance: {f['covariance']})")
        lines.append("")
        lines += _deviance_lines(f)
        lines.append("")
        status = "converged" if f["converged"] else "NOT converged"
        if f["solver"] == "irls":       # control=glm_control(): R's algorithm and line
            lines.append(f"Number of Fisher Scoring iterations: {f['iterations']}"
                         + ("" if f["converged"] else " (NOT converged)"))
        else:
            lines.append(f"Number of ULS iterations: {f['iterations']} ({f['solver']} "
                         f"solver, {status}, max |edge| {f['max_edge']:.1e})")
        return lines + self.note_lines(f["notes"]) + [""]

    def html_context(self) -> dict:
        rows = self._coef_rows()
        return {"facts": self.facts(), "header": rows[0], "rows": rows[1:],
                "quantiles": list(zip(self.residual_quantiles.index,
                                      [c.strip() for c in
                                       _quantile_cells(self.residual_quantiles)])),
                "legend": SIGNIF_LEGEND}


def _quantile_cells(q: pd.Series) -> list[str]:
    """The deviance-residual quantiles as ``print.summary.glm`` writes them
    (``zapsmall`` to 5 digits, then ``format(·, digits = 4)``)."""
    v = q.to_numpy(dtype=float)
    big = np.nanmax(np.abs(v)) if np.isfinite(v).any() else 0.0
    if big > 0:
        v = np.round(v, max(0, int(5 - np.ceil(np.log10(big)))))
    return format_r(v, 4)


def covariance_label(kind: str) -> str:
    """How the summary header names the covariance of its standard errors."""
    if kind == "model":
        return "model-based (A⁻¹ B A⁻¹)"
    hc = "HC0" if kind == "robust" else kind.upper()
    return f"robust sandwich {hc} (sandwich::vcovHC(type = \"{hc}\"))"


def aliased_note(result) -> str:
    """The summary's word on aliased (NA) coefficients."""
    names = list(result.coef.index[result.aliased.to_numpy()])
    return (f"Coefficients: {len(names)} not defined because of singularities "
            f"(aliased: {', '.join(names)}).")


def convergence_note(result) -> str:
    """The summary's word on a ULS fit that did not converge."""
    return (f"The fit did not converge in {result.iterations} iterations "
            f"(max |edge| {result.fit_info.max_edge:.2e}).")


#: why no χ² test applies to the risks of a family other than entropy
RISK_NOTE = ("These risks are not a binomial deviance: their differences are not χ² "
              "distributed, so no χ² test applies; ubreg.anova tests added "
              "terms by a robust Wald test.")


def _deviance_lines(f: dict) -> list[str]:
    """R's deviance block for a likelihood family (entropy), exactly as summary.glm
    prints it; for any other family the risks 2 Σ w D_φ without degrees of freedom
    and a sentence saying why no χ² test applies."""
    dropped = []
    if f["n_dropped"]:
        dropped = [f"  ({f['n_dropped']} observation{'s' if f['n_dropped'] != 1 else ''} "
                   "deleted due to missingness)"]
    null, dev, aic = f["null_deviance"], f["deviance"], f["aic"]
    if f["likelihood"]:
        return ([f"    Null deviance: {null:.{sig_decimals(null)}f}  on {f['df_null']:g}  "
                 "degrees of freedom",
                 f"Residual deviance: {dev:.{sig_decimals(dev)}f}  on {f['df_resid']:g}  "
                 "degrees of freedom"] + dropped + [f"AIC: {aic:.{sig_decimals(aic)}f}"])
    formula = f["divergence_formula"]
    return ([f"    Null risk: {null:.{sig_decimals(null)}f}   "
             f"({formula} at the weighted mean of y)",
             f"Residual risk: {dev:.{sig_decimals(dev)}f}   ({formula} at the fit)"] + dropped
            + [_aic_line(aic), f["risk_note"]])


#: the summary's word on AIC of a family whose loss is not a likelihood
NO_AIC = ("AIC: NA   (the loss is not a likelihood, as for R's quasi families; compare "
          "families by cross-validated log loss or Brier score, ubreg.cv)")


def _aic_line(aic: float) -> str:
    if not np.isfinite(aic):
        return NO_AIC
    return f"AIC: {aic:.{sig_decimals(aic)}f}   (the binomial likelihood, in nats)"


def standard_error_notes(result, table) -> list[str]:
    """Why a coefficient that is not aliased has no standard error (NA), if one has none."""
    bad = table.index[np.isfinite(table["estimate"]) & ~np.isfinite(table["std_error"])]
    if len(bad) == 0:
        return []
    names = ", ".join(map(str, bad))
    flat = getattr(result, "flat", None)
    if flat is not None and bool(flat.loc[bad].any()):
        eta = result.eta if isinstance(result.eta, np.ndarray) else None
        rows = ("" if eta is None else
                f" ({int(np.sum(result.family.saturated(eta)))} rows have a posterior of "
                "exactly 0 or 1, where the loss is affine)")
        return [f"Standard errors are NA for {names}: the risk has no curvature along "
                f"{'this coefficient' if len(bad) == 1 else 'these coefficients'} at the fit, "
                f"because the rows that inform it are saturated{rows}. The optimum is not "
                "unique in that direction and no Wald interval or test applies."]
    return [f"Standard errors are NA for {names}: the covariance is degenerate there (a "
            "variance that is not positive), so no Wald interval or test applies."]


def _numerically_01(result) -> bool:
    eps = 10 * np.finfo(float).eps
    p, q = result.family.posterior_pair(result.eta)
    live = ~result.family.saturated(result.eta)
    return bool(np.any(np.minimum(p, q)[live] < eps))


def saturated_note(n: int) -> str:
    """The summary's word on saturated rows (bounded links)."""
    return (f"{n} row{'s' if n != 1 else ''} saturated: past the ends of the bounded link the "
            "posterior is exactly 0 or 1 and the loss is affine, so "
            f"{'they add' if n != 1 else 'it adds'} no curvature to A.")
