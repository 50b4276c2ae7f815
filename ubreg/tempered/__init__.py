"""t-AdaBoost and the tempered algebra (paper 004; docs/tempered.md).

Importing this package registers ``method="tboost"`` with :func:`ubreg.fit`.
The tempered *family* (φ = −L_t) lives in :mod:`ubreg.families.tempered`.
"""
from __future__ import annotations

from . import algebra
from .boost import TBoostFit, tboost
from .method import fit_tboost
from .result import TBoostResult, TBoostSummary, plot_margins

__all__ = [
           "TBoostFit",
           "TBoostResult",
           "TBoostSummary",
           "algebra",
           "fit_tboost",
           "plot_margins",
           "tboost",
]
