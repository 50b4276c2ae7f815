"""t-AdaBoost (paper 004; docs/tempered.md).

``method="tboost"`` of :func:`ubreg.fit` (:mod:`ubreg.methods.tboost`) runs this loop.
The tempered algebra is :mod:`ubreg.families.tempered_algebra`, the loss it minimises
:mod:`ubreg.families.tempered_exponential` and the tempered *family* (φ = −L_t)
:mod:`ubreg.families.tempered`.
"""
from __future__ import annotations

from .boost import tboost

__all__ = ["tboost"]
