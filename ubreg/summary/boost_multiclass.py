"""Summary of U-Boost on K > 2 classes: the boosting run and its training fit."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .base import Summary

if TYPE_CHECKING:
    from ..results.boost_multiclass import MulticlassBoostResult

__all__ = ["MulticlassBoostSummary", "print_lines"]


def _facts(r: MulticlassBoostResult) -> list[tuple[str, str]]:
    trees = "stumps" if r.learner == "stumps" else f"trees of depth {r.options['depth']}"
    return [("Loss", "multinomial log-loss (the entropy family on "
             f"{len(r.classes)} classes: {', '.join(map(str, r.classes))})"),
            ("Boosting", f"{r.mstop} rounds of {len(r.classes)} Newton {trees}, nu = {r.nu:g}"),
            ("Observations", f"{r.nobs:g}"),
            ("Training log-loss", f"{r.risk_path.iloc[-1]:.6g} (start {r.risk_path.iloc[0]:.6g})"),
            ("Training error", f"{r.training_error:.4f}"),
            ("Residual deviance", f"{r.deviance:.6g} (null {r.null_deviance:.6g})")]


def print_lines(r: MulticlassBoostResult) -> list[str]:
    from .printed import _dropped, _head
    return _head(r) + [""] + [f"{k}: {v}" for k, v in _facts(r)] + _dropped(r)


class MulticlassBoostSummary(Summary):
    """``str(s)``, ``s.html()``; ``s.frame()`` the training log-loss by round."""

    template = "boost_multiclass_summary.html"

    def __init__(self, result: MulticlassBoostResult) -> None:
        super().__init__(result)
        self.table = pd.DataFrame({"risk": result.risk_path})

    def facts(self) -> dict:
        return {"call": self.result.call, "lines": _facts(self.result)}

    def text_lines(self) -> list[str]:
        return self.call_lines() + [""] + [f"{k}: {v}" for k, v in _facts(self.result)]

    def html_context(self) -> dict:
        return {"facts": self.facts()}
