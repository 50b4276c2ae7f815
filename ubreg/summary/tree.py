"""Summary of a UDT tree: rpart's print, cp table (``printcp``), importance, deviances."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Summary, align_rows
from .rformat import format_r, matrix_lines
from .tree_listing import listing

if TYPE_CHECKING:
    from ..results.class_tree import ClassTreeResult
    from ..results.tree import TreeResult

__all__ = ["TreeSummary", "ClassTreeSummary", "cp_table_lines", "NA_NOTE"]

#: how a tree treats missing predictor values (the summary's note names the variables)
NA_NOTE = ("Rows missing a predictor (in training and in predict()) are routed by surrogate "
           "splits (rpart's), or the majority branch when none applies: {}.")


def cp_table_lines(result) -> list[str]:
    """rpart's ``printcp``: the root node error and the cp table, each column
    formatted as R prints it (5 significant digits), rows numbered from 1."""
    tree, cp = result.tree, result.cptable
    root = tree.root_risk
    n = int(tree.frame["n"].iat[0])
    label = "Root node error" if tree.risk == "misclass" else "Root node surrogate risk"
    lines = [f"{label}: {format_r([root], 5)[0]}/{n} = {format_r([root / n], 5)[0]}", ""]
    columns = {c: format_r(cp[c].to_numpy(dtype=float), 5) for c in cp.columns}
    columns["nsplit"] = [str(int(v)) for v in cp["nsplit"]]
    return lines + matrix_lines(range(1, len(cp) + 1), columns)


_RISKS = {"misclass": "misclassification, as rpart",
          "surrogate": "the surrogate risk of the criterion (Theorem 4)"}


class TreeSummary(Summary):
    """Text (rpart's ``print`` and ``printcp``), HTML and DataFrame forms;
    ``frame()`` is the node table (rpart's ``fit$frame``)."""

    template = "tree_summary.html"

    def __init__(self, result: TreeResult | ClassTreeResult) -> None:
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
            "na_note": NA_NOTE.format(na) if na else "",
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
        lines.append(f"Cost-complexity table (risk: {_RISKS[f['risk_measure']]}"
                     + (f"; {f['xval']}-fold cross-validation" if "xerror" in r.cptable else "")
                     + "):")
        lines += cp_table_lines(r)
        imp = r.variable_importance
        if len(imp):
            lines += ["", "Variable importance (surrogate-risk reduction):"]
            scaled = np.round(100 * imp / imp.sum()).astype(int)
            lines += align_rows([[str(k), str(v)] for k, v in scaled.items()])
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
        columns = {c: format_r(r.cptable[c].to_numpy(dtype=float), 5) for c in r.cptable}
        columns["nsplit"] = [str(int(v)) for v in r.cptable["nsplit"]]
        return {"facts": self.facts(), "listing": self._listing(),
                "cptable": [[columns[c][i] for c in columns] for i in range(len(r.cptable))],
                "cp_columns": list(columns), "risk_label": _RISKS[r.tree.risk],
                "importance": list(zip(imp.index, [f"{v:.4g}" for v in imp]))}


class ClassTreeSummary(TreeSummary):
    """:class:`TreeSummary` of a tree of K classes (rpart's ``method = "class"``)."""

    def facts(self) -> dict:
        r = self.result
        na = ", ".join(f"{k} ({v})" for k, v in r.na_counts.items())
        prior = ", ".join(f"{k}: {v:.4g}" for k, v in r.prior.items())
        return {
            "call": r.call, "family": r.family.describe(), "nobs": r.nobs,
            "n_dropped": r.n_dropped, "n_leaves": r.n_leaves,
            "deviance": r.deviance, "null_deviance": r.null_deviance,
            "surrogate_risk": None, "positive": None, "response": r.response.name,
            "classes": list(r.classes), "prior": prior, "risk_measure": r.tree.risk,
            "na_note": NA_NOTE.format(na) if na else "", "xval": r.xval,
        }

    def _listing(self) -> str:
        return listing(self.result.tree, labels=self.result.tree.levels)

    def text_lines(self) -> list[str]:
        lines = super().text_lines()
        f = self.facts()
        head = next(i for i, line in enumerate(lines) if line.startswith("Split criterion"))
        lines[head] = (f"Split criterion: {f['family']} (rpart's classification tree of "
                       f"{len(f['classes'])} classes); priors {f['prior']}")
        return [("Variable importance (impurity reduction, rpart's):"
                 if line.startswith("Variable importance") else line) for line in lines]
