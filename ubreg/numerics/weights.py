"""Prior weights are relative: a fit must not change when every weight is multiplied by a
constant (R's glm, rpart and gbm are scale-free in prior weights).

Two ways of making a fitter scale-free, each exact where it can be:

- :func:`power_of_two_scaled`: weights whose magnitude is far from 1 (below 2⁻¹⁰⁰ or above
  2¹⁰⁰) divided by a power of two, which is exact; the sums of a linear fit then neither
  underflow (weights of 5e-324) nor overflow.  Ordinary weights are left as they are, so
  their fits keep their bits.
- :func:`relative_weights`: weights divided by the mean of the positive ones, for the
  fitters that compare sums of weights with counts (a tree's ``min_split`` and
  ``min_leaf``, U-Boost's ``min_child_weight``): those bounds then count average rows,
  whatever the weights' units.  Equal weights become exactly 1 (the unit-weight path).

Frequency weights are counts (weight 2 is the row twice): their scale is part of what they
mean, and they go to the fitters as given.
"""
from __future__ import annotations

import numpy as np

__all__ = ["power_of_two_scaled", "far_exponent", "relative_weights"]

_FAR = 100           # |binary exponent| beyond which weights are rescaled


def far_exponent(top: float) -> int:
    """The binary exponent e of the largest weight ``top`` when it lies below 2⁻¹⁰⁰ or
    above 2¹⁰⁰ (the weights are then divided by 2^e, exactly), else 0."""
    if not top > 0.0:
        return 0
    e = int(np.frexp(top)[1])
    return e if abs(e) > _FAR else 0


def power_of_two_scaled(w: np.ndarray) -> np.ndarray:
    """``w`` divided by 2^e (e the binary exponent of max w) when max w is below
    2⁻¹⁰⁰ or above 2¹⁰⁰; ``w`` itself otherwise."""
    w = np.asarray(w, dtype=np.float64)
    e = far_exponent(float(w.max()) if w.size else 0.0)
    return np.ldexp(w, -e) if e else w


def relative_weights(w: np.ndarray) -> tuple[np.ndarray, float]:
    """(w / c, c): ``w`` relative to c, the mean of its positive values (the relative
    weights of equal weights are exactly 1)."""
    w = np.asarray(w, dtype=np.float64)
    positive = w > 0.0
    if not positive.any():
        return w, 1.0
    values = w[positive]
    if values.min() == values.max():
        return np.where(positive, 1.0, 0.0), float(values[0])
    e = int(np.frexp(values.max())[1])
    scaled = np.ldexp(w, -e)                       # exact: no overflow in the mean
    mean = float(scaled[positive].mean())
    return scaled / mean, float(np.ldexp(mean, e))
