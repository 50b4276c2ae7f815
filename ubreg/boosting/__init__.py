"""Boosting: ULS with weak learners (stumps, rules, trees; adaptive losses) and U-Boost.

Importing this package registers ``ULS_LEARNERS["stumps"|"rules"|"trees"]``
and the method ``"uboost"`` with :func:`ubreg.fit`.
"""
from . import uboost, uls_boost  # noqa: F401  (registration)
from .result import CVRisk, UBoostResult, ULSBoostResult
from .ulosses import U_alpha, U_custom

__all__ = ["CVRisk", "UBoostResult", "ULSBoostResult", "U_alpha", "U_custom"]
