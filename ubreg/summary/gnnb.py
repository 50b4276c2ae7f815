"""Summary of a GNNB / UNN fit: text, HTML (``gnnb_summary.html``) and a DataFrame."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .base import Summary, align_rows

if TYPE_CHECKING:
    from ..results.gnnb import GNNBResult

__all__ = ["GNNBSummary"]

_HEADER = ["class", "n", "updates l(T,c)", "accuracy", "recall", "F", "risk", "optimum"]


class GNNBSummary(Summary):
    """``str(s)`` for text, ``s.html()`` for HTML, ``s.frame()`` for the per-class table.

    Per class: rows, weight updates ℓ(T, c) (Theorem 4; summed over blocks
    with ``blocks > 1``), one-vs-rest training accuracy, recall and F-measure,
    surrogate risk (2) of the leave-self-out neighbourhoods and its optimum
    (Lemma 3; see :attr:`GNNBResult.class_table` for why the risk can be
    lower when rows repeat).  Also the distribution of the leveraging
    coefficients, the Hamming risk (12) and the total surrogate risk (1).
    """

    template = "gnnb_summary.html"

    def __init__(self, result: GNNBResult) -> None:
        super().__init__(result)
        self.table = result.class_table
        alpha = np.concatenate([b.fit.alpha.ravel() for b in result.blocks])
        q = np.quantile(alpha, [0, 0.25, 0.5, 0.75, 1.0]) if alpha.size else np.full(5, np.nan)
        self.alpha_quantiles = pd.Series(q, index=["Min", "1Q", "Median", "3Q", "Max"])
        self.alpha_zero = float(np.mean(alpha == 0)) if alpha.size else float("nan")

    def facts(self) -> dict:
        r = self.result
        algorithm = {"unn": "UNN", "gnnb": "GNNB* (largest |delta|)" if r.chooser == "largest"
                     else "GNNB"}[r.method]
        notes = []
        capped = sum(b.fit.n_capped for b in r.blocks)
        if capped:
            notes.append(f"UNN: {capped} step(s) had no finite zero-edge root within "
                         f"|delta| <= delta_max (all inverse neighbours agree); delta was capped.")
        if len(r.blocks) > 1:
            notes.append("Divide-and-conquer (Section 6.4): posteriors averaged over "
                         f"{len(r.blocks)} blocks; l(T,c) is the sum over the blocks, the other "
                         "per-class figures are block averages.")
        repeated = max(len(r.codes) - len(np.unique(b.index.X, axis=0)) for b in r.blocks)
        if repeated:
            notes.append(f"{repeated} training row(s) repeat another in the distance space. The "
                         "risk is that of the leave-self-out neighbourhoods (an example is not "
                         "its own neighbour): copies of a row see each other and can get "
                         "different h, so the risk can fall below the optimum, which "
                         "bounds classifiers that are functions of x.")
        if getattr(r, "weighted_rows", None) is not None:
            kind = ("Frequency weights" if getattr(r, "weight_kind", "freq") == "freq"
                    else "Weights (prior weights, repeated here)")
            notes.append(f"{kind}: {r.weighted_rows} data rows, each repeated by its "
                         f"weight, give the {len(r.codes)} training rows (Algorithm 1 has no "
                         "example weights; weight 0 removes a row).")
        pre = r.preprocessor
        return {
            "call": r.call, "algorithm": algorithm, "family": r.family.describe(),
            "k": r.k, "T": r.T, "chooser": r.chooser,
            "epsilon": None if r.method == "unn" else r.epsilon,
            "nobs": r.nobs, "training_rows": len(r.codes),
            "n_classes": len(r.classes), "n_columns": len(pre.column_names),
            "blocks": len(r.blocks), "norm": pre.norm, "standardize": pre.standardize,
            "n_dropped": r.n_dropped, "h_star": r.blocks[0].fit.h_star,
            "hamming_risk": r.hamming_risk, "training_accuracy": r.training_accuracy,
            "total_risk": float(self.table["risk"].mean()),
            "total_optimum": float(self.table["optimum"].mean()),
            "alpha_zero": self.alpha_zero, "notes": notes,
        }

    def _rows(self) -> list[list[str]]:
        t = self.table
        rows = []
        for name, row in t.iterrows():
            rows.append([str(name), f"{int(row['n'])}", f"{int(row['updates'])}",
                         f"{row['accuracy']:.4f}", f"{row['recall']:.4f}", f"{row['F']:.4f}",
                         f"{row['risk']:.4f}", f"{row['optimum']:.4f}"])
        return rows

    def _quantile_cells(self):
        return list(zip(self.alpha_quantiles.index, [f"{v:.4g}" for v in self.alpha_quantiles]))

    def text_lines(self) -> list[str]:
        f = self.facts()
        eps = "" if f["epsilon"] is None else f", epsilon = {f['epsilon']:g}"
        columns = (f"{f['training_rows']} training rows, {f['n_classes']} classes, "
                   f"{f['n_columns']} distance column{'s' if f['n_columns'] != 1 else ''}")
        if f["blocks"] > 1:
            columns += f" in {f['blocks']} blocks ({f['norm']}-normalised)"
        if f["standardize"]:
            columns += "; predictors standardised"
        lines = self.call_lines() + [
            "", (f"{f['algorithm']}, family: {f['family']}; k = {f['k']}, T = {f['T']}, "
                 f"chooser: {f['chooser']}{eps}"),
            columns, f"H* = {f['h_star']:.5g}"]
        if f["n_dropped"]:
            lines.append(f"  ({f['n_dropped']} observation{'s' if f['n_dropped'] != 1 else ''} "
                         f"deleted due to missingness)")
        lines += ["", f"Leveraging coefficients alpha_jc ({100 * f['alpha_zero']:.1f}% zero):"]
        qs = self._quantile_cells()
        lines += align_rows([[n for n, _ in qs], [v for _, v in qs]], left_first=False)
        lines += ["", "Per class (training sample, one-vs-rest: member iff h_c > 0):"]
        lines += align_rows([_HEADER] + self._rows())
        lines += ["",
                  (f"Hamming risk: {f['hamming_risk']:.4f}; multiclass training "
                   f"accuracy (largest h_c): {f['training_accuracy']:.4f}"),
                  (f"Total surrogate risk: {f['total_risk']:.4f}; optimum: "
                   f"{f['total_optimum']:.4f}")]
        return lines + self.note_lines(f["notes"]) + [""]

    def html_context(self) -> dict:
        return {"facts": self.facts(), "header": _HEADER, "rows": self._rows(),
                "quantiles": self._quantile_cells()}
