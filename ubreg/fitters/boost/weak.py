"""The weak learners of ULS, behind one call: ``propose(v) -> (hypothesis, values, edge)``.

The learners and their hypotheses live in :mod:`ubreg.learners` (one protocol,
:class:`~ubreg.learners.base.WeakHypothesis`): a ±1 stump, a ±1 monomial rule,
or a shallow UDT tree whose leaf indicators are the features.  ``v`` holds the
signed example weights wᵢ ωᵢ y*ᵢ of the current family (docs/math.md §4); the
learner maximises the |edge| Σᵢ vᵢ h(xᵢ).
"""
from __future__ import annotations

import numpy as np

from ...learners.rules import fit_rule
from ...learners.stumps import fit_sign_stump
from ...trees.binning import BinnedDesign
from ...trees.shallow import fit_leaf_tree

__all__ = ["LEARNERS", "propose"]

LEARNERS = ("stumps", "rules", "trees")


def propose(kind: str, binned: BinnedDesign, v: np.ndarray, y: np.ndarray, w: np.ndarray,
            family, *, literals: int = 2, depth: int = 2, min_leaf: float = 1.0):
    """Run weak learner ``kind`` on signed weights ``v``.

    Returns (hypothesis, (n, k) training values of its features, normalised
    edge in [−1, 1]) or None when no column can be split.
    """
    total = float(np.abs(v).sum())
    if kind == "stumps":
        out = fit_sign_stump(binned, v)
    elif kind == "rules":
        out = fit_rule(binned, v, literals)
    elif kind == "trees":
        # the UDT criterion of the family (docs/math.md §5) on the boosting weights;
        # the exponential loss names Matsushita's (Kearns–Mansour, real AdaBoost)
        out = fit_leaf_tree(binned, v, y, w, family.criterion_family.phi, depth, min_leaf)
    else:  # pragma: no cover - validated by the caller
        raise ValueError(kind)
    if out is None:
        return None
    hyp, values, edge = out
    return hyp, values, (edge / total if total > 0 else 0.0)

