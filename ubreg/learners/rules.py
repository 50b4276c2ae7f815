"""Monomial rules: "if a conjunction of at most l literals then +1 else −1".

Paper 000, Section 7: each feature of ULS is a boolean rule
**If** Monomial **then** Class = ±1 **else** Class = ∓1.  A literal is
"x_j > c" or "x_j ≤ c" on a design column.  The rule is grown greedily: start
from the empty conjunction, add at each step the literal that maximises the
|edge| Σᵢ vᵢ h(xᵢ) of the rule under the current weights, stop after
``literals`` literals or when no literal increases |edge|.  The output sign is
carried by the leveraging coefficient.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trees.binning import BinnedDesign
from .base import SignHypothesis
from .stumps import _left_cumsum

__all__ = ["MonomialRule", "fit_rule"]


@dataclass(frozen=True)
class MonomialRule(SignHypothesis):
    """h(x) = +1 if every literal holds, else −1.

    ``literals`` is a tuple of (column, cut, greater) meaning x_col > cut when
    ``greater`` else x_col ≤ cut.
    """

    literals: tuple
    kind: str = "rule"

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted({c for c, _, _ in self.literals}))

    def holds(self, X: np.ndarray) -> np.ndarray:
        ok = np.ones(X.shape[0], dtype=bool)
        for col, cut, greater in self.literals:   # ≤ l literals, each vectorised
            ok &= (X[:, col] > cut) if greater else (X[:, col] <= cut)
        return ok

    def key(self):
        return ("rule", tuple(sorted(self.literals)))

    def describe(self, names) -> list[str]:
        conj = " & ".join(f"{names[c]} {'>' if g else '<='} {cut:.6g}"
                          for c, cut, g in sorted(self.literals))
        return [f"if {conj} then +1 else -1"]


def fit_rule(binned: BinnedDesign, v: np.ndarray, literals: int):
    """Greedy monomial rule of largest |Σ vᵢ h(xᵢ)| with ≤ ``literals`` literals.

    Returns (rule, (n, 1) training values, edge) or None if no column splits.
    """
    flat, col, k = binned.candidates()
    if flat.size == 0:
        return None
    total = float(v.sum())
    covered = np.ones(binned.n, dtype=bool)
    chosen: list[tuple[int, float, bool]] = []
    keys: set = set()
    best_abs = -np.inf
    for _ in range(literals):
        vc = np.where(covered, v, 0.0)
        c_now = float(vc.sum())
        left = _left_cumsum(binned, binned.histogram(vc))[flat]      # covered, x ≤ cut
        # covered mass after adding a literal: left (x ≤ cut) or right (x > cut)
        cand = np.concatenate([left, c_now - left])
        edge = 2.0 * cand - total          # Σ_covered v − Σ_uncovered v
        score = np.abs(edge)
        best = int(np.argmax(score))
        if score[best] <= best_abs * (1.0 + 1e-12):
            break                          # no literal increases |edge|
        greater = best >= flat.size
        i = best - flat.size if greater else best
        j, kk = int(col[i]), int(k[i])
        key = (j, kk, greater)
        if key in keys:
            break
        keys.add(key)
        chosen.append((j, binned.cut_value(j, kk), bool(greater)))
        covered &= (binned.codes[j] > kk) if greater else (binned.codes[j] <= kk)
        best_abs = float(score[best])
    rule = MonomialRule(tuple(chosen))
    values = np.where(covered, 1.0, -1.0)[:, None]
    return rule, values, float(2.0 * np.sum(v[covered]) - total)
