"""Summary of a UDT tree: rpart's print, cp table, importance, deviances."""
from __future__ import annotations

import numpy as np

from .base import Summary
from .tree_listing import listing

__all__ = ["TreeSummary"]


class TreeSummary(Summary):
    """Text (rpart's ``print`` and ``printcp``), HTML and DataFrame forms;
    ``frame()`` is the node table (rpart's ``fit$frame``)."""

    template = "tree_summary.html"

    def __init__(self, result):
        super().__init__(result)
        self.table = result.frame

    def facts(self) -> dict:
        r = self.result
        na = ", ".join(f"{k} ({v})" for k, v in r.na_counts.items())
        return {
            "call": r.call, "family": r.family.describe(), "nobs": r.nobs,
            "n_dropped": r.n_dropped, "n_leaves": r.n_leaves,
            "deviance": r.deviance, "null_deviance": r.null_deviance,
            "surrogate_risk": r.surrogate_risk, "positive": r.response.positive,
            "response": r.response.name, "risk_measure": r.tree.risk,
            "na_note": (f"Missing predictor values follow the majority branch: {na}." if na
                        else ""),
            "xval": r.xval,
        }

    def _listing(self) -> str:
        resp = self.result.response
        return listing(self.result.tree, labels=(str(resp.negative), str(resp.positive)))

    def text_lines(self) -> list[str]:
        f = self.facts()
        r = self.result
        lines = self.call_lines() + [self._listing()]
        lines += ["", f"Split criterion: {f['family']} (UDT, paper 000 Algorithm 3); "
                      f"P({f['response']} = {f['positive']}) at the leaves", ""]
        cp = r.cptable.copy()
        lines.append(f"Cost-complexity table (risk: {f['risk_measure']}"
                     + (f"; {f['xval']}-fold cross-validation" if "xerror" in cp else "") + "):")
        lines.append(cp.to_string(float_format=lambda v: f"{v:.6g}"))
        imp = r.variable_importance
        if len(imp):
            lines += ["", "Variable importance (surrogate-risk reduction):"]
            scaled = np.round(100 * imp / imp.sum()).astype(int)
            lines.append(scaled.to_string())
        lines += ["", f"    Null deviance: {f['null_deviance']:.5g}",
                  f"Residual deviance: {f['deviance']:.5g}  ({f['n_leaves']} leaves)"]
        if f["n_dropped"]:
            lines.append(f"  ({f['n_dropped']} observations deleted due to missingness in "
                         "the response)")
        if f["na_note"]:
            lines.append(f["na_note"])
        lines.append("")
        return lines

    def html_context(self) -> dict:
        r = self.result
        imp = r.variable_importance
        return {"facts": self.facts(), "listing": self._listing(),
                "cptable": r.cptable.to_dict("records"), "cp_columns": list(r.cptable.columns),
                "importance": list(zip(imp.index, [f"{v:.4g}" for v in imp]))}
