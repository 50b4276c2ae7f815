"""Weak learners on binned design columns (histogram split search).

``stumps``: ±1 decision stumps (ULS) — ``rules``: monomial rules (ULS) —
``trees``: shallow trees (UDT leaves for ULS; Newton regression trees and
stumps for U-Boost; histograms by the numba kernels of ``_hist``) —
``linear``: componentwise linear base-learners (U-Boost).
"""
from .binning import BinnedDesign, bin_design

__all__ = ["BinnedDesign", "bin_design"]
