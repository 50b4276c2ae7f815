"""Decision stumps with outputs ±1: the weak learner of AdaBoost and of ULS.

A stump on design column j at cut c is h(x) = +1 if x_j > c else −1 (the
paper's rules with outputs ±1; the sign of the chosen stump is carried by its
leveraging coefficient).  The weak learner picks the stump of largest
|edge| Σᵢ vᵢ h(xᵢ), vᵢ = wᵢ ωᵢ y*ᵢ (docs/math.md §4, §6), over every column and
every bin cut of a :class:`~ubreg.trees.binning.BinnedDesign`: one
histogram, one cumulative sum, one argmax.  A missing value (NaN) takes the side
the stump learned on a column with NaN (:mod:`ubreg.trees.binning`), else the
side of more training rows (HistGradientBoosting's rule; −1 on a tie).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..trees.binning import BinnedDesign
from .base import SignHypothesis

__all__ = ["SignStump", "fit_sign_stump"]


@dataclass(frozen=True)
class SignStump(SignHypothesis):
    """h(x) = +1 if x[column] > cut else −1 (NaN: +1 when ``nan_right``)."""

    column: int
    cut: float
    kind: str = "stump"
    nan_right: bool = False

    @property
    def columns(self) -> tuple[int, ...]:
        return (self.column,)

    def holds(self, X: np.ndarray) -> np.ndarray:
        x = X[:, self.column]
        return (x > self.cut) | (np.isnan(x) & self.nan_right)

    def key(self):
        return ("stump", self.column, self.cut, self.nan_right)

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
    right = binned.codes[j] > kk
    column, cut, nan_left = binned.design_split(j, kk)
    if binned.has_nan is None or not binned.has_nan[column]:
        nan_left = 2 * int(np.count_nonzero(right)) < right.size
    stump = SignStump(column, cut, nan_right=not nan_left)
    values = np.where(right, 1.0, -1.0)[:, None]
    return stump, values, float(edge[best])
