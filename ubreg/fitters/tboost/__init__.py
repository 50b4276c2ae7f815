"""t-AdaBoost and the tempered algebra (paper 004; docs/tempered.md).

``method="tboost"`` of :func:`ubreg.fit` (:mod:`ubreg.methods.tboost`) runs this loop.
The tempered *family* (φ = −L_t) lives in :mod:`ubreg.families.tempered`.
"""
from __future__ import annotations

from . import algebra
from .boost import TBoostFit, tboost

__all__ = [
           "TBoostFit",
           "algebra",
           "tboost",
]
