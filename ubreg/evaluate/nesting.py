"""Whether fits may be compared by their deviances: linear fits of the same data, nested.

R's ``anova`` compares glm fits of one family on the same rows; ubreg checks it and says
what differs (family, response, rows, weights and how they are read, terms).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..results.base import capabilities_of
from .deviance_table import NotNestedError

if TYPE_CHECKING:
    from ..results.linear import LinearResult

__all__ = ["check_linear", "same_fit_data", "order_nested", "check_nested_pair"]


def check_linear(m: object, which: str) -> None:
    caps = capabilities_of(m)
    if not (caps.has_coefficients and caps.has_covariance and caps.has_deviance):
        raise TypeError(f"anova compares nested linear fits (results with coefficients, their "
                        f"covariance and a deviance); {which} is a {type(m).__name__}")


def same_fit_data(m0: LinearResult, m1: LinearResult) -> None:
    if m0.family != m1.family:
        raise NotNestedError(f"the models have different families ({m0.family.describe()} and "
                             f"{m1.family.describe()}); anova compares fits of one family")
    r0, r1 = m0.response, m1.response
    if (r0.name, r0.positive) != (r1.name, r1.positive):
        raise NotNestedError(f"the models have different responses: P({r0.name} = {r0.positive}) "
                             f"and P({r1.name} = {r1.positive})")
    if len(m0.index) != len(m1.index) or not m0.index.equals(m1.index):
        raise NotNestedError(f"the models were fitted on different rows ({len(m0.index)} and "
                             f"{len(m1.index)}): NA in a variable of only one model drops "
                             f"different rows; fit both on the same complete rows")
    if not np.array_equal(m0.weights, m1.weights):
        raise NotNestedError("the models were fitted with different weights")
    k0, k1 = m0.weight_kind, m1.weight_kind
    if k0 != k1:
        raise NotNestedError(f"the models read their weights differently ({k0} and {k1} "
                             "weights): fit both with weights= or both with freq_weights=")


def order_nested(m0: LinearResult, m1: LinearResult) -> tuple[LinearResult, LinearResult]:
    t0, t1 = list(m0.coef.index), list(m1.coef.index)
    if set(t0) <= set(t1) and len(t0) < len(t1):
        return m0, m1
    if set(t1) <= set(t0) and len(t1) < len(t0):
        return m1, m0
    if set(t0) == set(t1):
        raise NotNestedError("the models have the same terms: nothing to test")
    only0 = [t for t in t0 if t not in t1]
    only1 = [t for t in t1 if t not in t0]
    raise NotNestedError(f"the models are not nested: terms only in the first: {only0}; "
                         f"only in the second: {only1}")


def check_nested_pair(m0: LinearResult, m1: LinearResult) -> None:
    """Both are linear fits of the same data and one's terms are a subset of the
    other's (raises :class:`NotNestedError` saying why not)."""
    check_linear(m0, "the first model")
    check_linear(m1, "the second model")
    same_fit_data(m0, m1)
    order_nested(m0, m1)
