"""A training design built slice by slice, when every factor reads its own row only.

patsy's ``build_design_matrices`` evaluates every factor of a design over all rows
before it assembles the matrix, so a design of p columns over n rows briefly holds
about twice its own size (each factor's values, their NA-filtered copies, then the
matrix).  When every factor is a bare column of the data (``y ~ x1 + x2 + group``,
the common case), the rows are independent and the design can be built in slices
of :data:`SLICE_ROWS` rows written into one preallocated matrix: the same numbers,
with transient memory of one slice.  A factor that calls a function (``np.log(x)``,
``scale(x)``, ``I(x - x.mean())``, ...) may read other rows, so a design holding
one is built at once, as before.

Each slice runs the steps of ``build_design_matrices`` itself, with patsy's own
functions for the two that make the numbers (``_eval_factor``, which evaluates a
factor and finds its NAs, and ``_build_subterm``, which multiplies a subterm's
columns out): a slice's columns are assembled in a column-major scratch block
(contiguous columns, where patsy's row-major matrix takes each column with a
stride of the row), then copied into the rows of the design.  A slice without NA
keeps its factors' values as they are (patsy copies them through the row filter
even when it keeps every row).
"""
from __future__ import annotations

import numpy as np
import patsy
from patsy.build import _build_subterm, _eval_factor

from ..numerics.factor_matrix import FactorBlock, FactorMatrix
from .na import RecordingNAAction

__all__ = ["SLICE_ROWS", "row_wise", "build_in_slices"]

#: rows per slice: a scratch block of SLICE_ROWS × p float64 (17.8 MB at p = 34)
SLICE_ROWS = 65_536


def row_wise(design_info, data_in) -> bool:
    """True when every factor of ``design_info`` is a bare column of ``data_in``
    (a dict of arrays, :func:`~ubreg.design.checks.patsy_input`), and there is one."""
    if not isinstance(data_in, dict) or not design_info.factor_infos:
        return False
    for factor in design_info.factor_infos:
        if not getattr(factor, "is_bare_column", False) or factor.reads[0] not in data_in:
            return False
    return True


class _SlicedNAAction(RecordingNAAction):
    """:class:`RecordingNAAction` over several calls: the rows' NA mask in
    slice order, and NA counts per factor summed over the slices, in the factors'
    order (as one call over all rows would list them)."""

    def __init__(self, on_NA="drop"):
        super().__init__(on_NA)
        self.masks: list[np.ndarray] = []
        self.counts: dict[str, list[int]] = {}      # name -> [factor position, rows]

    def handle_NA(self, values, is_NAs, origins):
        n = len(is_NAs[0]) if is_NAs else 0
        mask = np.zeros(n, dtype=bool)
        for k, (is_na, origin) in enumerate(zip(is_NAs, origins)):
            if np.any(is_na):
                name = origin.code[origin.start:origin.end] if origin is not None else "?"
                self.counts.setdefault(name, [k, 0])[1] += int(np.sum(is_na))
                mask |= is_na
        self.masks.append(mask)
        if not mask.any():
            return values                   # every row kept: no filtered copies
        return patsy.NAAction.handle_NA(self, values, is_NAs, origins)

    def finish(self, n: int) -> None:
        """Set ``mask`` and ``na_factors`` for the ``n`` rows of all slices."""
        self.mask = np.concatenate(self.masks) if self.masks else np.zeros(n, dtype=bool)
        order = sorted(self.counts.items(), key=lambda item: item[1][0])
        self.na_factors = [(name, rows) for name, (_, rows) in order]


def _slice_values(design_info, part: dict, na: _SlicedNAAction) -> dict:
    """Each factor's values on one slice, rows with NA dropped, as
    ``build_design_matrices`` evaluates them (same order, same checks)."""
    infos = list(design_info.factor_infos.values())
    values, is_nas = [], []
    for info in infos:
        value, is_na = _eval_factor(info, part, na)
        values.append(np.asarray(value))
        is_nas.append(is_na)
    kept = na.handle_NA(values, is_nas, [info.factor.origin for info in infos])
    return {info.factor: value for info, value in zip(infos, kept)}


def _coded_subterms(design_info) -> list:
    """(subterm, first column, last column + 1, its factor or None) in column order;
    the factor is given for a subterm of one categorical factor (its columns are
    rows of the factor's contrast matrix, kept as codes by ``factor_codes``)."""
    plan, column = [], 0
    for subterms in design_info.term_codings.values():
        for subterm in subterms:
            end = column + subterm.num_columns
            factors = subterm.factors
            coded = (len(factors) == 1
                     and design_info.factor_infos[factors[0]].type == "categorical")
            plan.append((subterm, column, end, factors[0] if coded else None))
            column = end
    return plan


def _code_dtype(levels: int):
    """The smallest integer type holding the codes 0..levels − 1."""
    for dtype in (np.int8, np.int16, np.int32):
        if levels <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def build_in_slices(design_info, data_in: dict, n: int, na_action: str,
                    factor_codes: bool = False):
    """The design of ``data_in``'s ``n`` rows built :data:`SLICE_ROWS` at a time
    into one float64 matrix (the complete rows, in order), and the NA bookkeeping
    (``mask``, ``na_factors``) of all rows.  ``na_action`` is ``"omit"``-like
    (a row with NA is left out); ``"fail"`` is for the caller to check.

    With ``factor_codes`` the columns of each subterm of one categorical factor
    are kept as its codes and contrast matrix: the design is then a
    :class:`~ubreg.numerics.factor_matrix.FactorMatrix` (when there is such a
    subterm), whose values are those of the matrix built otherwise."""
    na = _SlicedNAAction(na_action)
    p = len(design_info.column_names)
    plan = _coded_subterms(design_info)
    if not factor_codes:
        plan = [(subterm, a, b, None) for subterm, a, b, _ in plan]
    dense_plan: list = []
    dense_cols: list[int] = []
    for subterm, a, b, factor in plan:
        if factor is None:
            dense_plan.append((subterm, len(dense_cols), len(dense_cols) + b - a))
            dense_cols.extend(range(a, b))
    coded = [(subterm, a, b, factor) for subterm, a, b, factor in plan if factor is not None]
    tables = [np.ascontiguousarray(subterm.contrast_matrices[factor].matrix, dtype=np.float64)
              for subterm, _, _, factor in coded]
    codes = [np.empty(n, dtype=_code_dtype(t.shape[0])) for t in tables]
    q = len(dense_cols)
    X = np.empty((n, q))
    scratch = np.empty((q, min(n, SLICE_ROWS)))     # a slice's columns, each contiguous
    filled = 0
    for start in range(0, n, SLICE_ROWS):
        part = {name: values[start:start + SLICE_ROWS] for name, values in data_in.items()}
        values = _slice_values(design_info, part, na)
        rows = len(next(iter(values.values())))
        block = scratch[:, :rows].T
        for subterm, a, b in dense_plan:
            _build_subterm(subterm, design_info.factor_infos, values, block[:, a:b])
        X[filled:filled + rows] = block
        for (_, _, _, factor), out in zip(coded, codes):
            out[filled:filled + rows] = values[factor]
        filled += rows
    na.finish(n)
    if not coded:
        return X[:filled], na
    factors = [FactorBlock(c[:filled], t, np.arange(a, b))
               for (_, a, b, _), c, t in zip(coded, codes, tables)]
    return FactorMatrix(filled, p, X[:filled], np.asarray(dense_cols, dtype=np.intp),
                        factors), na
