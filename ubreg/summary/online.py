"""Summary of an on-line learner (:class:`~ubreg.methods.online.OnlineLearner`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Summary, aligned_pairs

if TYPE_CHECKING:
    from ..methods.online import OnlineLearner

__all__ = ["OnlineSummary"]


class OnlineSummary(Summary):
    """Summary of an :class:`~ubreg.methods.online.OnlineLearner`: text, HTML and
    ``frame()``, its coefficients (column ``estimate``)."""

    template = "online_summary.html"

    def __init__(self, learner: OnlineLearner) -> None:
        super().__init__(learner)
        self.table = learner.coef_.to_frame("estimate")

    @property
    def learner(self) -> OnlineLearner:
        """The summarised learner (``result``)."""
        return self.result

    def _coef_title(self) -> str:
        return "average of the w_t" if self.learner.average else "w_t"

    def facts(self) -> dict:
        ol = self.learner
        n = max(ol.n_seen, 1)
        lines = [
            ("Family", ol.family.describe()),
            ("Potential", f"q-norm, q = {ol.q:g} (dual p = {ol.p:g})"),
            ("Learning rate", (f"eta = {ol.eta:.6g} ({ol.eta_source})"
                               + (", decaying as eta/sqrt(t)" if ol.rate == "sqrt"
                                  else ", constant"))),
            ("Predictor", ("the average of the iterates w_1..w_T (Polyak-Ruppert)"
                           if ol.average else "the last iterate w_T")),
            ("Rows learned",
             f"{ol.n_seen} in {ol.n_batches} batch(es); {ol.n_dropped} dropped (NA)"),
            ("On-line loss", (f"{ol.online_loss:.6g} (mean {ol.online_loss / n:.6g} per row, "
                              "predictions made before each update)")),
            ("On-line errors", f"{ol.online_errors} ({ol.online_errors / n:.4g})"),
        ]
        notes = []
        if ol.lambda_p is not None and ol.max_norm_p > ol.lambda_p * (1 + 1e-12):
            notes.append(f"Some rows have ||x||_p = {ol.max_norm_p:.6g} > lambda_p = "
                         f"{ol.lambda_p:.6g}: the assumption (96) of Theorem 3 does not hold.")
        return {"call": repr(ol), "lines": lines, "notes": notes}

    def text_lines(self) -> list[str]:
        f = self.facts()
        out = [f"On-line linear separator (Algorithm 2): {self.learner.formula}", ""]
        out += aligned_pairs(f["lines"])
        out += ["", f"Coefficients ({self._coef_title()}):"]
        out += [f"  {name:<20} {val: .6g}" for name, val in self.table["estimate"].items()]
        return out + ([""] + f["notes"] if f["notes"] else [])

    def html_context(self) -> dict:
        f = self.facts()
        rows = [[name, f"{val:.6g}"] for name, val in self.table["estimate"].items()]
        return {"call": f["call"], "lines": f["lines"],
                "table_title": f"Coefficients ({self._coef_title()})",
                "header": ["", "estimate"], "rows": rows, "notes": f["notes"]}
