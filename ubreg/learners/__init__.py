"""Weak learners and their hypotheses, behind one protocol (:mod:`.base`).

``stumps``: ±1 decision stumps (ULS, t-AdaBoost) — ``rules``: monomial rules
(ULS) — ``trees``: shallow trees grown level-wise on binned columns (UDT leaves
for ULS, Newton regression trees and stumps for U-Boost, tempered trees for
t-AdaBoost; histograms by the numba kernels of ``ubreg.trees.histograms``) — ``best_first``:
the §3.3 tree of t-AdaBoost (exact within-node midpoints, best-first growth) —
``linear``: componentwise linear base-learners (U-Boost).  ``binning`` cuts the
design columns into the bins the histogram learners search.
"""
from .base import OnColumns, WeakHypothesis
from .binning import BinnedDesign, bin_design

__all__ = ["BinnedDesign", "OnColumns", "WeakHypothesis", "bin_design"]
