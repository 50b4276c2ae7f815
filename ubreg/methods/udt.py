"""Method ``udt``: top-down decision trees for any permissible φ (paper 000 Algorithm 3).

gini gives CART, entropy C4.5, matsushita Kearns–Mansour (docs/math.md §5).
Controls keep rpart's meaning and defaults.
"""
from __future__ import annotations

import functools

import numpy as np

from ..fitters.udt import cp_table_cv, grow_tree
from ..fitters.udt.binned import (
    check_bins,
    code_columns,
    grow_tree_binned,
    missing_names,
    refuse_missing,
)
from ..fitters.udt.columns import check_columns
from ..numerics import options as opt
from ..numerics.weights import far_exponent
from ..results.tree import TreeResult, to_tree_columns
from .spec import FitSpec, Method, raw_frame

__all__ = ["fit_udt", "prune_cp"]


def fit_udt(spec: FitSpec, *, min_split: int = 20, min_leaf: int = 7, max_depth: int = 30,
            cp: float = 0.01, risk: str = "misclass", xval: int = 10,
            seed: int = 0, prune: str | None = None, bins: int | None = None) -> TreeResult:
    """Grow a UDT tree and its cross-validated cp table.

    Parameters
    ----------
    min_split, min_leaf, max_depth, cp
        rpart's ``minsplit``, ``minbucket``, ``maxdepth``, ``cp``.
    risk : {"misclass", "surrogate"}
        Risk measure of cost-complexity pruning and of the cp table: rpart's
        misclassification (default: with rpart's controls the tree is
        rpart's, ``rpart(method = "class")``, every criterion) or the tree's
        surrogate risk (Theorem 4, the paper's), which keeps subtrees that
        lower the surrogate but not the misclassification.
    xval : int
        Folds of the cross-validation of the cp table (0: none), as rpart's
        ``xval``.
    seed : int
        Seed of the fold assignment.
    prune : {"1se", "min"} or None
        Return the tree pruned at the cp the cross-validated cp table chooses
        (:func:`prune_cp`: the 1-SE rule, or the least xerror; needs ``xval`` > 0).
        None (default) keeps the full tree, as rpart; the full tree of a fit is
        pruned later by ``m.prune(prune_cp(m, "1se"))``.
    bins : int or None
        None (default): exact, rpart's search over every distinct value.  An
        integer k: each numeric predictor is cut into at most k quantile bins
        (bin_design's cuts, :func:`ubreg.learners.binning.column_cuts`) and the
        tree grows from histograms of the bins, splitting between bins at the
        midpoint of their extreme values (:mod:`ubreg.fitters.udt.hist`); a
        predictor with at most k distinct values keeps rpart's splits.  A fit
        of a Dask frame with the same ``bins`` grows the same tree.  No
        missing predictor values with ``bins`` (surrogate splits need the raw
        values).
    """
    xval = opt.whole(xval, "xval", 0, 10 ** 6)
    seed = opt.seed(seed)
    if prune not in (None, "1se", "min"):
        raise ValueError(f"prune must be '1se', 'min' or None, got {prune!r}")
    if isinstance(spec.family, list) or not getattr(spec.family, "is_permissible", False):
        raise ValueError("method 'udt' needs one permissible family (the split criterion), "
                         f"got {spec.family!r}")
    rf = raw_frame(spec, "udt")
    columns = to_tree_columns(rf.columns)
    # min_split and min_leaf count rows with prior weights, as rpart does (a constant
    # multiple of the weights grows the same tree), weight with frequency weights
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp,
                    risk=risk, count_rows=spec.weight_kind == "prior")
    # weights far from 1 (5e-324, 1e300) grow the tree divided by a power of two, exactly:
    # their sums would lose their precision to underflow or overflow
    e = far_exponent(float(rf.weights.max(initial=0.0)))
    w = np.ldexp(rf.weights, -e) if e else rf.weights
    grow = _binned_grower(columns, w, check_bins(bins)) if bins is not None else None
    tree = (grow or grow_tree)(columns, rf.y, w, spec.family, **controls).times_power_of_two(e)
    xval = int(xval)
    if xval > 0 and len(rf.y) >= max(xval, 2):
        cptable = cp_table_cv(columns, rf.y, w, spec.family, folds=xval, seed=seed,
                              grow=grow, **controls)
    else:
        cptable = tree.cptable
    result = TreeResult(tree=tree, cptable=cptable, xval=xval, seed=seed,
                        na_counts=rf.na_counts, formula=spec.formula, family=spec.family,
                        design=rf.design, response=rf.response, y=rf.y, weights=rf.weights,
                        eta=np.zeros(len(rf.y)), index=rf.index, n_input=rf.n_input,
                        dropped=rf.dropped, call=spec.call, weight_kind=spec.weight_kind)
    result.training_leaf = tree.apply(columns)
    result.eta = result._by_leaf(result.training_leaf, "link")
    return result if prune is None else result.prune(prune_cp(result, prune))


def _binned_grower(columns, weights, bins: int | None):
    """:func:`grow_tree_binned` with the coding of all training rows (the folds of
    the cp table's cross-validation keep it)."""
    values, specs, _ = check_columns(columns)
    refuse_missing(missing_names(values, specs), f"bins={bins!r}")
    coded, _ = code_columns(values, specs, np.asarray(weights, dtype=np.float64), bins)
    return functools.partial(grow_tree_binned, coded=coded)


def prune_cp(result: TreeResult, rule: str = "1se") -> float:
    """The cp at which ``result.prune(cp)`` gives the tree the cross-validated cp
    table chooses: ``"1se"``, the smallest tree whose xerror is within one xstd of
    the least (Breiman et al. 1984, §3.4.3; :meth:`TreeResult.cp_one_se`), or
    ``"min"``, the tree of least xerror (first row of the minimum).  Needs a fit
    with ``xval`` > 0."""
    if rule == "1se":
        return result.cp_one_se()
    if rule != "min":
        raise ValueError(f"rule must be '1se' or 'min', got {rule!r}")
    table = result.cptable
    if "xerror" not in table:
        raise ValueError("the cp table has no cross-validation (fit with xval > 0)")
    return float(table["CP"].iloc[int(np.nanargmin(table["xerror"].to_numpy(dtype=float)))])


METHOD = Method("udt", fit=fit_udt, result=TreeResult, quick={"": {"xval": 0}}, keeps_missing=True,
                dask="ubreg.dask.udt:fit_udt_dask")
