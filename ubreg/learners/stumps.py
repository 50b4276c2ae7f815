"""Decision stumps with outputs ±1: the weak learner of AdaBoost and of ULS.

A stump on design column j at cut c is h(x) = +1 if x_j > c else −1 (the
paper's rules with outputs ±1; the sign of the chosen stump is carried by its
leveraging coefficient).  The weak learner picks the stump of largest
|edge| Σᵢ vᵢ h(xᵢ), vᵢ = wᵢ ωᵢ y*ᵢ (docs/math.md §4, §6), over every column and
every bin cut of a :class:`~ubreg.learners.binning.BinnedDesign`: one
histogram, one cumulative sum, one argmax.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import SignHypothesis
from .binning import BinnedDesign

__all__ = ["SignStump", "fit_sign_stump"]


@dataclass(frozen=True)
class SignStump(SignHypothesis):
    """h(x) = +1 if x[column] > cut else −1."""

    column: int
    cut: float
    kind: str = "stump"

    @property
    def columns(self) -> tuple[int, ...]:
        return (self.column,)

    def holds(self, X: np.ndarray) -> np.ndarray:
        return X[:, self.column] > self.cut

    def key(self):
        return ("stump", self.column, self.cut)

    def describe(self, names) -> list[str]:
        return [f"{names[self.column]} > {self.cut:.6g} ? +1 : -1"]


def _left_cumsum(binned: BinnedDesign, hist: np.ndarray) -> np.ndarray:
    """Per (column, bin k): Σ of ``hist`` over bins ≤ k of the same column."""
    cum = np.cumsum(hist, axis=0)
    col = np.repeat(np.arange(binned.d), binned.nbins)
    start = np.concatenate([np.zeros((1,) + hist.shape[1:]), cum])[binned.offsets[:-1]]
    return cum - start[col]


def fit_sign_stump(binned: BinnedDesign, v: np.ndarray, X: np.ndarray | None = None):
    """The stump of largest |Σ vᵢ h(xᵢ)|.

    Parameters
    ----------
    binned : BinnedDesign
    v : (n,) array
        Signed example weights wᵢ ωᵢ y*ᵢ.

    Returns
    -------
    (SignStump, values, edge) or None
        The stump, its (n, 1) training values, and Σ vᵢ h(xᵢ) (the sign says
        on which side the positive class sits).  None when no column can be
        split.
    """
    flat, col, k = binned.candidates()
    if flat.size == 0:
        return None
    hist = binned.histogram(v)
    total = float(v.sum())
    left = _left_cumsum(binned, hist)[flat]
    edge = total - 2.0 * left              # Σ_right v − Σ_left v
    best = int(np.argmax(np.abs(edge)))
    j, kk = int(col[best]), int(k[best])
    stump = SignStump(j, binned.cut_value(j, kk))
    values = np.where(binned.codes[j] > kk, 1.0, -1.0)[:, None]
    return stump, values, float(edge[best])
