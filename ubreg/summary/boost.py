"""Summaries of boosting results: text, HTML (``boost_summary.html``) and DataFrame.

The facts are built once as plain data; text and HTML only render them.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from .base import Summary, align_rows, sig_decimals

if TYPE_CHECKING:
    from ..results.boost import UBoostResult, ULSBoostResult

__all__ = ["UBoostSummary", "ULSBoostSummary", "BoostSummary"]


def _fmt(x: float) -> str:
    return f"{x:.{sig_decimals(x)}f}" if np.isfinite(x) else "NA"


class BoostSummary(Summary):
    """What the boosting summaries share: facts as ``label: value`` lines, then
    one table (``table_title``) and the notes."""

    template = "boost_summary.html"

    def _rows(self) -> list[list[str]]:
        t = self.table
        header = [""] + list(t.columns)
        rows = [header]
        cells = []
        for c in t.columns:
            col = t[c].to_numpy()
            if np.issubdtype(col.dtype, np.floating):
                cells.append([f"{v:.4g}" if np.isfinite(v) else "NA" for v in col])
            else:
                cells.append([str(v) for v in col])
        for i, name in enumerate(t.index):
            rows.append([str(name)] + [cells[j][i] for j in range(len(cells))])
        return rows

    def text_lines(self) -> list[str]:
        f = self.facts()
        lines = self.call_lines() + [""]
        lines += [f"{k}: {v}" for k, v in f["lines"]]
        lines += ["", f["table_title"]]
        lines += align_rows(self._rows()) if len(self.table) else ["  (none)"]
        return lines + self.note_lines(f["notes"]) + [""]

    def html_context(self) -> dict:
        rows = self._rows()
        return {"facts": self.facts(), "header": rows[0], "rows": rows[1:]}


class ULSBoostSummary(BoostSummary):
    """Summary of a :class:`~ubreg.results.boost.ULSBoostResult`: ``frame()`` is
    the ``top`` features by |coefficient|."""

    def __init__(self, result: ULSBoostResult, top: int = 10) -> None:
        super().__init__(result)
        self.top = top
        ft = result.feature_table().head(top)
        self.table = ft.set_index("feature")[["coef", "rounds", "first_round"]]

    def facts(self) -> dict:
        r = self.result
        fit = r.fit_info
        o = r.options
        learner = {"stumps": "decision stumps (±1)",
                   "rules": f"monomial rules (≤ {o['literals']} literals, ±1)",
                   "trees": f"UDT trees of depth ≤ {o['depth']} (leaves as features)"}[r.learner]
        lines = [("Weak learner", learner),
                 ("Rounds", f"{r.rounds} ({'totally corrective' if o['corrective'] else 'classic'}"
                            f" ULS; leveraging coefficients from eq. (70) to 1e-10)"),
                 ("Family", r.family.describe())]
        if fit.strategy == "F*":
            cand = ", ".join(f"{k} {v:.4g}" for k, v in fit.candidates.items())
            crit = "training risk" if o["select"] == "train" else "inner-CV error"
            lines.append(("Strategy", f"F* (family of least {crit}: {cand})"))
        elif fit.strategy in ("F.", "E."):
            counts = Counter(f.describe() for f in r.family_path)
            per = " ".join(f.name[:4] for f in r.family_path)
            lines.append(("Strategy", f"{fit.strategy} per round; chosen "
                          + ", ".join(f"{k} ×{v}" for k, v in counts.items())))
            lines.append(("Family per round", per))
        lines += [("Training surrogate risk", f"{r.risk_path.iloc[0]:.4g} (H = 0) -> "
                                              f"{r.risk_path.iloc[-1]:.4g}"),
                  # no degrees of freedom: rounds of boosting are not parameters, and no
                  # chi-squared test applies to these deviances (docs/math.md §3)
                  ("Null deviance", _fmt(r.null_deviance)),
                  ("Residual deviance", f"{_fmt(r.deviance)} ({r.df_model:g} distinct features)"),
                  ("Training error", f"{r.training_error:.4f}"),
                  ("Edge", (f"{r.edge_path.iloc[0]:.3g} (round 1) -> {r.edge_path.iloc[-1]:.3g} "
                            f"(round {r.rounds})") if r.rounds else "none"),
                  ("Response", f"P({r.response.name} = {r.response.positive}); "
                               f"n = {r.nobs:g}")]
        notes = []
        if r.n_dropped:
            notes.append(f"({r.n_dropped} observation{'s' if r.n_dropped != 1 else ''} "
                         "deleted due to missingness)")
        if not r.family.is_permissible:
            notes.append("Deviance of the exponential loss is 2 Σ w exp(−y*H): a loss, not a "
                         "Bregman deviance; the posterior is expit(2H).")
        if fit.capped:
            notes.append(f"{fit.capped} coefficient(s) capped: a feature separates the weighted "
                         "sample (Lemma 8).")
        return {"call": r.call, "lines": lines, "notes": notes,
                "table_title": f"Top {len(self.table)} features by |coefficient|:"}


def _posterior_text(family) -> str:
    """How a U-Boost fit's F gives P(y = 1): expit(F) where the family's posterior is the
    logistic function (the U-losses, by Theorem 1 of Eguchi & Copas 2001, and the entropy
    family), otherwise the family's own posterior (its inverse link) at F."""
    F = np.array([-2.0, 0.5])
    if np.allclose(family.posterior(F), 1.0 / (1.0 + np.exp(-F)), rtol=1e-12, atol=0.0):
        return "expit(F)"
    return f"the posterior of {family.describe()} at F (its inverse link)"


class UBoostSummary(BoostSummary):
    """Summary of a :class:`~ubreg.results.boost.UBoostResult`: ``frame()`` is
    the importance and selection frequency of the ``top`` terms."""

    def __init__(self, result: UBoostResult, top: int = 10) -> None:
        super().__init__(result)
        imp = result.importance()
        freq = result.selection_frequencies()
        t = imp.join(freq)
        if result.learner == "linear":
            coef = result.coef
            sl = result.design.term_slices
            t["coef"] = [", ".join(f"{coef.iloc[j]:.4g}" for j in range(*sl[n].indices(len(coef))))
                         for n in t.index]
        self.table = t.head(top)

    def facts(self) -> dict:
        r = self.result
        o = r.options
        learner = {"stumps": "regression stumps (Newton, weighted least squares)",
                   "trees": f"regression trees of depth ≤ {o['depth']} (Newton leaves)",
                   "linear": "componentwise linear, one per term (glmboost)"}[r.learner]
        lines = [("Loss", f"U(z) = {r.U.formula} (family={r.family!r})"),
                 ("Base-learner", learner),
                 ("Iterations", f"mstop = {r.mstop}, nu = {r.nu:g}, F0 = {r.fit_info.F0:.4g} "
                                f"(init = {o['init']})"),
                 ("Training U-risk", f"{r.risk_path.iloc[0]:.4g} (m = 0) -> "
                                     f"{r.risk_path.iloc[-1]:.4g}"),
                 ("Null deviance", _fmt(r.null_deviance)),
                 ("Residual deviance", _fmt(r.deviance)),
                 ("Training error", f"{r.training_error:.4f}"),
                 ("Response", f"P({r.response.name} = {r.response.positive}) = "
                              f"{_posterior_text(r.family)}; n = {r.nobs:g}")]
        p_hat = _posterior_text(r.family)
        notes = [(f"Deviance is the binomial deviance of p̂ = {p_hat} (F read as the log-odds, "
                  "Eguchi & Copas 2001); U-Boost minimises the U-risk."
                  if r.family.likelihood_deviance else
                  "Deviance is the U-loss's, 2 Σ w [U(y*F) − min U]; the log-likelihood is the "
                  f"Bernoulli one of p̂ = {p_hat}"
                  + (" (F read as the log-odds, Eguchi & Copas 2001)." if p_hat == "expit(F)"
                     else "."))]
        extreme, wrong = r.extreme_rows()
        if extreme:
            notes.append(f"Fitted probabilities numerically 0 or 1 occurred ({extreme} training "
                         f"row{'s' if extreme != 1 else ''}"
                         + (f", {wrong} on the wrong side: the log-likelihood is -Inf)." if wrong
                            else ")."))
        if r.n_dropped:
            notes.append(f"({r.n_dropped} observation{'s' if r.n_dropped != 1 else ''} "
                         "deleted due to missingness)")
        return {"call": r.call, "lines": lines, "notes": notes,
                "table_title": "Variable importance (training-risk reduction) and selection "
                               "frequency:"}
