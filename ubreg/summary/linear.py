"""Summaries that read like R's ``summary.glm``: text, HTML and DataFrame.

The data of a summary is built once (:meth:`LinearSummary.frame` and a few
scalars); the text and HTML forms only render it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .base import Summary, align_rows, sig_decimals

__all__ = ["LinearSummary", "format_pvalue", "significance_stars", "format_coef_columns",
           "standard_error_notes", "saturated_note", "aliased_note", "convergence_note",
           "RISK_NOTE", "covariance_label"]

_SIGNIF_LEGEND = "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"
_P_FLOOR = np.finfo(float).eps


def significance_stars(p: float) -> str:
    if not np.isfinite(p):
        return ""
    for cut, mark in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p < cut:
            return mark
    return ""


def format_pvalue(p: float) -> str:
    """R's ``format.pval`` with 3 significant digits and ``< 2e-16``."""
    if not np.isfinite(p):
        return "NA"
    if p < _P_FLOOR:
        return "< 2e-16"
    if p < 1e-4:
        return f"{p:.2e}"
    return f"{p:.3g}" if p >= 0.001 else f"{p:.6f}".rstrip("0")


def format_coef_columns(values: np.ndarray, digits: int = 4) -> list[str]:
    """Fixed decimals shared by a column pair, as R's printCoefmat does:
    enough decimals to show ``digits`` significant digits of the smallest."""
    finite = np.abs(values[np.isfinite(values) & (values != 0)])
    if finite.size == 0:
        decimals = 0
    else:
        decimals = int(np.clip(digits - 1 - np.floor(np.log10(finite.min())), 0, 10))
        if finite.max() >= 1e15:
            return [f"{v:.4g}" if np.isfinite(v) else "NA" for v in values]
    return [f"{v:.{decimals}f}" if np.isfinite(v) else "NA" for v in values]


class LinearSummary(Summary):
    """Summary of a :class:`~ubreg.results.linear.LinearResult`.

    ``str(summary)`` gives the text, ``summary.html()`` (and
    ``_repr_html_``) the HTML, ``summary.frame()`` the coefficient table.
    """

    template = "linear_summary.html"

    def __init__(self, result, cov: str = "model"):
        super().__init__(result)
        self.cov = cov
        self.table = result.coef_table(cov=cov)
        self.residual_quantiles = self._residual_quantiles()

    def _residual_quantiles(self) -> pd.Series:
        r = self.result.residuals("deviance").to_numpy()
        r = r[~np.isnan(r)]                 # na_action="exclude" pads the dropped rows
        q = np.quantile(r, [0, 0.25, 0.5, 0.75, 1.0]) if r.size else np.full(5, np.nan)
        return pd.Series(q, index=["Min", "1Q", "Median", "3Q", "Max"])

    def frame(self) -> pd.DataFrame:
        """The coefficient table as a DataFrame (R's ``coef(summary(fit))``)."""
        t = self.table
        return pd.DataFrame({"Estimate": t["estimate"], "Std. Error": t["std_error"],
                             "z value": t["z"], "Pr(>|z|)": t["p"]}, index=t.index)

    # ---- the facts both renderings show ------------------------------------
    def notes(self) -> list[str]:
        """The notes under the table: the linear probability model, aliasing,
        separation, saturation, convergence, missing standard errors."""
        r = self.result
        notes = []
        if r.is_linear_probability_model:
            outside = int(np.sum((r.fitted_values < 0) | (r.fitted_values > 1)))
            note = ("gini with a linear model is the linear probability model: least squares "
                    f"of y on x; {outside} fitted value(s) outside [0, 1].")
            if not np.isfinite(r.loglik):
                note += (" The Bernoulli log-likelihood (hence AIC, BIC) is -Inf: some fitted "
                         "probability is 0 or 1 for a row of the other class.")
            notes.append(note)
        if r.rank < len(r.coef):
            notes.append(aliased_note(r))
        if r.separation is not None and r.separation.separated:
            names = [r.coef.index[j] for j in r.separation.columns]
            notes.append(f"{r.separation.kind.capitalize()} separation by {', '.join(names)} "
                         "(Lemma 8): the optimum is at infinity; estimates and standard errors "
                         "are not meaningful.")
        elif not r.is_linear_probability_model and _numerically_01(r):
            notes.append("Fitted probabilities numerically 0 or 1 occurred.")
        n_sat = int(np.sum(r.family.saturated(r.eta)))
        if n_sat:
            notes.append(saturated_note(n_sat))
        if not r.fit_info.converged:
            notes.append(convergence_note(r))
        return notes + standard_error_notes(r, self.table)

    def facts(self) -> dict:
        """Everything the summary shows, as plain data (for templates)."""
        r = self.result
        fam = r.family
        cov_label = covariance_label(self.cov)
        if self.cov == "model" and fam.name == "entropy":
            cov_label = "model-based (inverse Fisher information, as glm)"
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
        rows = [["", "Estimate", "Std. Error", "z value", "Pr(>|z|)", ""]]
        for i, name in enumerate(t.index):
            z, p = t["z"].iloc[i], t["p"].iloc[i]
            rows.append([str(name), est_se[i], est_se[k + i],
                         f"{z:.3f}" if np.isfinite(z) else "NA", format_pvalue(p),
                         significance_stars(p)])
        return rows

    def text_lines(self) -> list[str]:
        f = self.facts()
        q = self.residual_quantiles
        lines = self.call_lines() + ["", "Deviance Residuals: "]
        lines += align_rows([list(q.index), [f"{v:.4f}" for v in q]], left_first=False)
        lines += ["", "Coefficients:"]
        lines += align_rows(self._coef_rows())
        lines += ["---", _SIGNIF_LEGEND, ""]
        lines.append(f"(Family: {f['family']}; response: P({f['response']} = {f['positive']}); "
                     f"covariance: {f['covariance']})")
        lines.append("")
        lines += _deviance_lines(f)
        lines.append("")
        status = "converged" if f["converged"] else "NOT converged"
        lines.append(f"Number of ULS iterations: {f['iterations']} ({f['solver']} solver, "
                     f"{status}, max |edge| {f['max_edge']:.1e})")
        return lines + self.note_lines(f["notes"]) + [""]

    def html_context(self) -> dict:
        rows = self._coef_rows()
        return {"facts": self.facts(), "header": rows[0], "rows": rows[1:],
                "quantiles": list(zip(self.residual_quantiles.index,
                                      [f"{v:.4f}" for v in self.residual_quantiles])),
                "legend": _SIGNIF_LEGEND}


def covariance_label(kind: str) -> str:
    """How the summary header names the covariance of its standard errors."""
    if kind == "model":
        return "model-based (A⁻¹ B A⁻¹, docs/math.md §3)"
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
              "distributed, so no χ² test applies (docs/math.md §3); ubreg.anova tests added "
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
        return ([f"    Null deviance: {null:.{sig_decimals(null)}f}  on {f['df_null']:g}  degrees of "
                 "freedom",
                 f"Residual deviance: {dev:.{sig_decimals(dev)}f}  on {f['df_resid']:g}  degrees of "
                 "freedom"] + dropped + [f"AIC: {aic:.{sig_decimals(aic)}f}"])
    formula = f["divergence_formula"]
    return ([f"    Null risk: {null:.{sig_decimals(null)}f}   ({formula} at the weighted mean of y)",
             f"Residual risk: {dev:.{sig_decimals(dev)}f}   ({formula} at the fit)"] + dropped
            + [f"AIC: {aic:.{sig_decimals(aic)}f}   (Bernoulli log-likelihood of p̂, which this family "
               "does not maximise)", f["risk_note"]])


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
                "unique in that direction and no Wald interval or test applies "
                "(docs/math.md §3)."]
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
            f"{'they add' if n != 1 else 'it adds'} no curvature to A (docs/math.md §3).")
