"""Detecting (quasi-)complete separation by linear programming.

Lemma 8 of paper 000: when some direction d has y*ᵢ xᵢᵀd ≥ 0 for every row
(and > 0 for some), the surrogate risk decreases along d forever and its
infimum is not attained.  Konis (2007) finds such a d by the linear program

    maximise Σᵢ y*ᵢ xᵢᵀd  subject to  y*ᵢ xᵢᵀd ≥ 0,  −1 ≤ d_j ≤ 1,

whose optimum is positive exactly under separation; a second program
(maximise t with y*ᵢ xᵢᵀd ≥ t) tells complete from quasi-complete.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Separation", "detect_separation", "SEPARATION_SYMPTOM", "R_EPS", "some_names"]

#: a fitted min(p̂, 1 − p̂) below this is the symptom of separation that triggers the
#: linear program (in memory) or the warning (on partitioned data)
SEPARATION_SYMPTOM = 1e-8
#: R's glm.fit warns "fitted probabilities numerically 0 or 1 occurred" below 10 ε
R_EPS = 10 * np.finfo(float).eps


def some_names(names: list[str], most: int = 6) -> str:
    """``names`` joined by commas, at most ``most`` of them and a count of the rest (a
    wide design can be separated by hundreds of columns)."""
    if len(names) <= most:
        return ", ".join(names)
    return f"{', '.join(names[:most])} and {len(names) - most} more"


@dataclass(frozen=True)
class Separation:
    """Outcome of the separation check."""

    kind: str                  # "complete", "quasi-complete" or "none"
    direction: np.ndarray      # d, on the design columns (scaled back)
    columns: tuple[int, ...]   # design columns with a non-zero component of d
    n_separated: int           # rows with y*xᵀd > 0 (perfectly predicted)

    @property
    def separated(self) -> bool:
        return self.kind != "none"


def detect_separation(X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None,
                      tol: float = 1e-7) -> Separation:
    """Konis's linear program on the rows with positive weight."""
    from scipy.optimize import linprog  # 0.1 s to import: only when the symptom shows
    X = np.asarray(X, dtype=np.float64)
    rows = np.ones(len(y), dtype=bool) if w is None else np.asarray(w) > 0
    ystar = 2.0 * np.asarray(y, dtype=np.float64)[rows] - 1.0
    scale = np.max(np.abs(X[rows]), axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    M = ystar[:, None] * (X[rows] / scale)
    n, p = M.shape
    res = linprog(-M.sum(axis=0), A_ub=-M, b_ub=np.zeros(n), bounds=[(-1, 1)] * p,
                  method="highs")
    if res.status != 0 or -res.fun <= tol * n:
        return Separation("none", np.zeros(p), (), 0)
    d = res.x
    margins = M @ d
    # complete separation: some d gives every row a strictly positive margin
    c = np.zeros(p + 1)
    c[-1] = -1.0
    A = np.hstack([-M, np.ones((n, 1))])
    res2 = linprog(c, A_ub=A, b_ub=np.zeros(n), bounds=[(-1, 1)] * p + [(None, 1)],
                   method="highs")
    kind = "complete" if res2.status == 0 and -res2.fun > tol else "quasi-complete"
    big = np.abs(d) > 1e-6 * np.max(np.abs(d))
    return Separation(kind, d / scale, tuple(int(j) for j in np.flatnonzero(big)),
                      int(np.sum(margins > tol)))
