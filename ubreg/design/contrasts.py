"""Contrasts as R codes factors: ``contr.treatment``, ``contr.sum``, ``contr.helmert``,
``contr.poly``, ``contr.SAS`` (and patsy's ``Treatment``, ``Sum``, ``Helmert``, ``Poly``,
``Diff``), with R's column names.

A factor enters a model term either by its contrasts (L − 1 columns) or by dummy
variables, one per level (R's ``contrasts(x, FALSE)``: the identity, named by the
levels), as :mod:`ubreg.design.coding` decides.  Column names are R's: a treatment
contrast names its columns by the levels (``raceblack``), ``contr.sum`` and
``contr.helmert`` by numbers (``C(race, contr.sum)1``), ``contr.poly`` ``.L``, ``.Q``,
``.C``, ``^4``...  The matrices are patsy's, which equal R's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from patsy.contrasts import Diff, Helmert, Poly, Sum

from ..errors import FormulaError

__all__ = ["ContrastSpec", "TREATMENT", "POLY", "contrast_columns"]


@dataclass(frozen=True)
class ContrastSpec:
    """A contrast: ``kind`` (treatment, SAS, sum, helmert, poly, diff) and, for
    treatment, the reference level (a label, or a 1-based position ``base``)."""

    kind: str
    reference: object = None
    base: int | None = None
    omit: object = None
    #: how a treatment contrast names its columns: by the levels, by the positions of
    #: the levels (``contr.treatment(3, base = 2)``: 1 and 3), or by number (R's ``C(x,
    #: contr.treatment, base = 2)``, whose matrix has no column names: 1, 2)
    names: str = "levels"


TREATMENT = ContrastSpec("treatment")
POLY = ContrastSpec("poly")


def _poly_names(k: int) -> list[str]:
    names = [".L", ".Q", ".C"]
    return (names + [f"^{j}" for j in range(4, k + 1)])[:k]


def _reference_index(spec: ContrastSpec, labels: list, levels: list) -> int:
    if spec.kind == "SAS":
        return len(levels) - 1
    if spec.base is not None:
        if not 1 <= spec.base <= len(levels):
            raise FormulaError(f"contrast base {spec.base} is not between 1 and the "
                               f"{len(levels)} levels")
        return spec.base - 1
    if spec.reference is None:
        return 0
    for i, (label, level) in enumerate(zip(labels, levels)):
        if spec.reference == level or spec.reference == label:
            return i
    raise FormulaError(f"contrast reference {spec.reference!r} is not a level (levels: "
                       f"{labels})")


def contrast_columns(spec: ContrastSpec, levels: list, labels: list,
                     reduced: bool) -> tuple[np.ndarray, list[str]]:
    """The coding matrix (levels × columns) of a factor and its columns' names.

    ``reduced`` gives the contrasts (R's ``contrasts(x, TRUE)``), else one dummy
    variable per level (``contrasts(x, FALSE)``).
    """
    n = len(levels)
    if not reduced:
        return np.eye(n), list(labels)
    if n < 2:
        raise FormulaError("contrasts can be applied only to factors with 2 or more levels")
    if spec.kind in ("treatment", "SAS"):
        ref = _reference_index(spec, labels, levels)
        keep = [i for i in range(n) if i != ref]
        names = {"levels": [labels[i] for i in keep],
                 "positions": [str(i + 1) for i in keep],
                 "numbers": [str(j + 1) for j in range(n - 1)]}[spec.names]
        return np.eye(n)[:, keep], names
    if spec.kind == "sum":
        omit = None if spec.omit is None else _reference_index(
            ContrastSpec("treatment", spec.omit), labels, levels)
        matrix = Sum(omit).code_without_intercept(list(range(n))).matrix
        return matrix, [str(j + 1) for j in range(n - 1)]
    if spec.kind == "helmert":
        return Helmert().code_without_intercept(list(range(n))).matrix, \
            [str(j + 1) for j in range(n - 1)]
    if spec.kind == "poly":
        return Poly().code_without_intercept(list(range(n))).matrix, _poly_names(n - 1)
    if spec.kind == "diff":
        return Diff().code_without_intercept(list(range(n))).matrix, \
            [str(j + 1) for j in range(n - 1)]
    raise FormulaError(f"unknown contrast {spec.kind!r}")

