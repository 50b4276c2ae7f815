"""Method options read at the call: each is refused, naming the option and the range it
accepts, before any work starts (never a ``TypeError`` or ``OverflowError`` from deep inside,
never a loop of 10⁹ rounds).

:data:`MAX_ROUNDS` is the documented bound of every count of rounds or iterations
(``mstop``, ``rounds``, ``T``, ``maxiter``): a million, far beyond what a fit needs and small
enough that the per-round records stay in memory.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import OptionError

__all__ = ["MAX_ROUNDS", "MAX_SEED", "whole", "real", "seed", "flag", "choice"]

#: the most rounds or iterations any method takes
MAX_ROUNDS = 1_000_000
#: the largest seed (numpy's generators take any non-negative integer; 2^63 − 1 keeps it
#: one machine integer)
MAX_SEED = 2 ** 63 - 1


def whole(value, name: str, low: int, high: int) -> int:
    """``value`` as a whole number in [low, high] (a float that is whole counts)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and math.isfinite(float(value)) and float(value).is_integer() \
        and low <= float(value) <= high
    if not ok:
        raise OptionError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return int(value)


def real(value, name: str, low: float, high: float, *, open_low: bool = False,
         open_high: bool = False) -> float:
    """``value`` as a finite number in the interval from low to high (open ends as asked)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) \
        and math.isfinite(float(value))
    if ok:
        v = float(value)
        ok = (v > low if open_low else v >= low) and (v < high if open_high else v <= high)
    if not ok:
        lo, hi = "(" if open_low else "[", ")" if open_high else "]"
        raise OptionError(f"{name} must be a number in {lo}{low:g}, {high:g}{hi}, got {value!r}")
    return float(value)


def seed(value, name: str = "seed"):
    """A seed: None (fresh entropy) or a whole number from 0 to :data:`MAX_SEED`."""
    if value is None:
        return None
    return whole(value, name, 0, MAX_SEED)


def flag(value, name: str) -> bool:
    """``value`` as a bool: True or False only (not 0, 1 or "False")."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def choice(value, name: str, choices: tuple):
    """``value``, one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise OptionError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                          f"got {value!r}")
    return value
