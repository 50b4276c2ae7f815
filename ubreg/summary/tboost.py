"""Summary of a t-AdaBoost fit (``method="tboost"``): text, HTML and the rounds table."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..families.tempered_algebra import is_one
from .base import Summary, aligned_pairs

if TYPE_CHECKING:
    from ..results.tboost import TBoostResult

__all__ = ["TBoostSummary"]

#: the columns of the rounds table the text and HTML show (those present)
_SHOWN = ["mu", "mu_closed", "alpha", "rho", "Z", "Z_closed", "K_t(rho)", "forgotten"]


def _error_rate(w, margin) -> float:
    """Σ w [margin ≤ 0]/Σ w with w divided by a power of two near its largest value:
    no overflow of Σ w, the same bits."""
    w = np.ldexp(w, -int(np.frexp(np.max(w))[1]))
    return float(np.sum(w * (margin <= 0)) / np.sum(w))


class TBoostSummary(Summary):
    """Summary of a :class:`~ubreg.results.tboost.TBoostResult`; ``frame()`` is the
    per-round table (``rounds_table``)."""

    template = "tboost_summary.html"

    def __init__(self, result: TBoostResult) -> None:
        super().__init__(result)
        self.table = result.rounds_table

    def facts(self) -> dict:
        r = self.result
        ystar = 2.0 * r.y - 1.0
        err = _error_rate(r.weights, ystar * r.eta)
        err_c = _error_rate(r.weights, ystar * r.eta_clipped)
        obs = f"{r.nobs:g}"
        if r.n_dropped:
            obs += (f" ({r.n_dropped} observation{'s' if r.n_dropped != 1 else ''} deleted "
                    "due to missingness)")
        lines = [
            ("Observations", obs),
            ("Temperature", f"t = {r.t:g} (t* = {1 / (2 - r.t):.4g})"),
            ("Weak learner", f"{r.learner} {r.options.get('learner_desc', '')}".strip()),
            ("mu", r.options.get("mu", "closed")),
            ("Rounds", f"{r.rounds}" + (f" (stopped: {r.stopped})" if r.stopped else "")),
            ("Clipping level", "none (t = 1)" if is_one(r.t) else f"delta = {r.delta:.6g}"),
            ("Training error", f"{err:.4g} (H_J), {err_c:.4g} (clipped H_J^(delta))"),
            ("Forgotten weights", (f"{r.n_forgotten} after the last round, at most "
                                   f"{r.max_forgotten} in a round")),
            ("Tempered exp. loss",
             f"prod Z^(2-t) = {float(np.prod(r.fit_info.Z ** (2 - r.t))):.6g}"),
        ]
        notes = []
        if r.max_forgotten and r.options.get("mu") == "closed":
            notes.append("Weights were forgotten with the closed-form mu: some |rho_j| = 1, "
                         "or (t > 1) some weight became infinite and the infinite weights took "
                         "all the mass.")
        if "mu_closed" in r.rounds_table:
            notes.append("mu = exact: mu is the exact projection (the mu used); rho_j and "
                         "K_t(rho_j) are those of the closed form (2.2a), not of the exact mu. "
                         "K_t(rho_j) bounds Z_closed^(2-t), the Z_j the closed-form mu_closed "
                         "would give; the exact mu minimises Z_j, so Z_j <= Z_closed.")
        return {"call": r.call, "lines": lines, "notes": notes}

    def _shown_table(self):
        return self.table[[c for c in _SHOWN if c in self.table]]

    def text_lines(self) -> list[str]:
        f = self.facts()
        out = [f"t-AdaBoost (paper 004): {self.result.formula}"] + self.call_lines() + [""]
        out += aligned_pairs(f["lines"])
        out += ["", self._shown_table().to_string(float_format=lambda v: f"{v:.5g}")]
        return out + f["notes"]

    def html_context(self) -> dict:
        f = self.facts()
        tab = self._shown_table()
        rows = [[str(i)] + [f"{v:.5g}" for v in row] for i, row in zip(tab.index, tab.to_numpy())]
        return {"call": self.result.call, "lines": f["lines"], "table_title": "Rounds",
                "header": ["round", *tab.columns], "rows": rows, "notes": f["notes"]}
