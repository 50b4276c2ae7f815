"""UDT on coded predictors in memory: ``ubreg.fit(..., method="udt", bins=k)``.

The predictors are coded once (:func:`code_columns`: quantile bins, or exact
codes), the tree is grown from the histograms of the codes
(:func:`ubreg.fitters.udt.hist.grow_binned`) and pruned as every UDT tree.  The
same coding and the same sums make a fit of a Dask frame with the same
``bins`` (:mod:`ubreg.dask.udt`) grow this tree.
"""
from __future__ import annotations

import numpy as np

from ...errors import OptionError
from ...numerics import options as opt
from ...trees.binning import column_cuts
from ...trees.columns import CATEGORICAL, check_columns, check_response
from ...trees.model import Tree
from .engine import _check_family, tree_from_raw
from .hist import CodedColumns, code_ranges, encode, grow_binned, level_histograms

__all__ = ["code_columns", "grow_tree_binned", "check_bins", "refuse_missing", "missing_names"]


def check_bins(bins) -> int | None:
    """``bins``: None (exact) or an integer in [2, 65535]."""
    if bins is None:
        return None
    try:
        return opt.whole(bins, "bins", 2, 65535)
    except ValueError:
        raise OptionError(f"bins must be None (exact) or a whole number from 2 to 65535, "
                          f"got {bins!r}") from None


def missing_names(values: list, specs: list) -> list:
    """Names of the predictors with a missing value (NaN, or code −1)."""
    return [s.name for v, s in zip(values, specs)
            if (np.any(np.asarray(v) < 0) if s.kind == CATEGORICAL else np.isnan(v).any())]


def refuse_missing(names: list, where: str) -> None:
    """Refuse missing predictor values where the tree grows from histograms."""
    if names:
        raise ValueError(f"{where}: predictor(s) {', '.join(map(repr, names))} have missing "
                         "values; rpart's surrogate splits, which route such rows, need the "
                         "raw values of every node's rows, which a tree grown from histograms "
                         "does not hold. Drop or impute them first (or fit in memory without "
                         "bins=)")


def code_columns(values: list, specs: list, w: np.ndarray,
                 bins: int | None) -> tuple[CodedColumns, np.ndarray]:
    """The coding of in-memory predictors and their (d, n) codes.

    A numeric predictor gets the cuts of :func:`~ubreg.trees.binning.column_cuts`
    with ``bins`` bins on its rows of positive weight (bin_design's), or, with
    ``bins=None``, one code per distinct value; each code's range (lo, hi) is
    that of all its rows.
    """
    edges: list[np.ndarray | None] = []
    exact: list[bool] = []
    for v, spec in zip(values, specs):
        if spec.kind == CATEGORICAL:
            edges.append(None)
            exact.append(False)
        elif bins is None:
            edges.append(np.unique(v))
            exact.append(True)
        else:
            edges.append(column_cuts(v[w > 0], bins))
            exact.append(False)
    coded = CodedColumns(list(specs), edges, exact, [None] * len(specs), [None] * len(specs))
    codes = encode(values, coded)
    ranges = code_ranges(values, codes, coded)
    coded.lo = [None if r is None else r[0] for r in ranges]
    coded.hi = [None if r is None else r[1] for r in ranges]
    return coded, codes


def grow_tree_binned(columns, y, weight, family, *, bins: int | None = None,
                     coded: CodedColumns | None = None, min_split=20, min_leaf=7,
                     max_depth=30, cp=0.01, risk="misclass", _alpha=None,
                     count_rows=False) -> Tree:
    """:func:`~ubreg.fitters.udt.engine.grow_tree` on coded predictors.

    Parameters
    ----------
    columns, y, weight, family, min_split, min_leaf, max_depth, cp, risk, count_rows
        As :func:`~ubreg.fitters.udt.engine.grow_tree`; no missing predictor
        values.
    bins : int or None
        Quantile bins per numeric predictor (None: one code per distinct value).
    coded : CodedColumns, optional
        A coding made already (the cross-validation folds keep the coding of
        all rows); ``bins`` is then ignored.
    """
    _check_family(family)
    values, specs, n = check_columns(columns)
    yv, w = check_response(y, weight, n)
    refuse_missing(missing_names(values, specs), f"bins={bins!r}")
    if coded is None:
        coded, codes = code_columns(values, specs, w, check_bins(bins))
    else:
        codes = encode(values, coded)
    unit = bool(np.all(w == 1.0))
    root = dict(n=n, npos=int(np.count_nonzero(w > 0)), weight=w.sum(), wy=(w * yv).sum())

    def histograms(tree):
        return level_histograms(codes, yv, None if unit else w, tree, coded.offsets)

    raw, info = grow_binned(coded, histograms, root, family, unit=unit, min_split=min_split,
                            min_leaf=min_leaf, max_depth=max_depth, cp=cp, risk=risk,
                            alpha=_alpha, count_rows=count_rows)
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp)
    return tree_from_raw(raw, info, family, controls, risk)
