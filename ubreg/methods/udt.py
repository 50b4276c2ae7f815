"""Method ``udt``: top-down decision trees for any permissible φ (paper 000 Algorithm 3).

gini gives CART, entropy C4.5, matsushita Kearns–Mansour (docs/math.md §5).
Controls keep rpart's meaning and defaults.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import OptionError
from ..fitters.udt import cp_table_cv, grow_tree, with_all_surrogates
from ..fitters.udt.binned import (
    code_columns,
    grow_tree_binned,
    missing_names,
    refuse_missing,
)
from ..numerics.weights import far_exponent
from ..results.class_tree import ClassTreeResult
from ..results.tree import TreeResult, to_tree_columns
from ..trees.builder import MAX_DEPTH
from ..trees.columns import check_columns
from .schema import OnDask, Option, Schema
from .spec import FitSpec, Method, raw_frame

__all__ = ["fit_udt", "prune_cp", "OPTIONS", "METHOD"]


def _check_prior(value):
    """``prior``: None, a dict by level, or a sequence of numbers (text: comma-separated)."""
    if value is None or isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            value = [float(v) for v in value.split(",")]
        except ValueError:
            raise OptionError(f"prior={value!r}: numbers separated by commas expected") from None
    try:
        values = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise OptionError(f"prior must be a sequence of numbers or a dict by level, got "
                         f"{value!r}") from None
    if values.ndim != 1 or values.size < 2:
        raise OptionError(f"prior must hold one number per class, got {value!r}")
    return tuple(values.tolist())


#: udt's options (rpart's controls, with rpart's defaults)
OPTIONS = Schema((
    Option("min_split", "whole", 20, "rpart's `minsplit`: the least number of observations "
           "in a node for a split to be tried.", low=1, high=2 ** 62),
    Option("min_leaf", "whole", 7, "rpart's `minbucket`: the least number of observations "
           "in a leaf.", low=1, high=2 ** 62),
    Option("max_depth", "whole", 30, "rpart's `maxdepth`.", low=0, high=MAX_DEPTH),
    Option("cp", "real", 0.01, "rpart's complexity parameter: a split must improve the risk "
           "by at least `cp` times the root's risk.", low=0.0, high=math.inf),
    Option("risk", "choice", "misclass", "The risk of cost-complexity pruning and of the cp "
           "table: rpart's misclassification rate (with rpart's controls the tree is then "
           "rpart's, `rpart(method = \"class\")`, for every criterion) or the tree's "
           "surrogate risk (Theorem 4, the paper's), which keeps subtrees that lower the "
           "surrogate but not the misclassification.", choices=("misclass", "surrogate")),
    Option("xval", "whole", 10, "Folds of the cross-validation of the cp table, as rpart's "
           "`xval` (0: none).", low=0, high=10 ** 6,
           dask=OnDask(allowed=(0,), default=0, has_default=True, why=(
               "the cross-validated cp table (rpart's xerror) is not computed out of core "
               "(it grows one tree per fold on rows assigned to folds by position); xval=0 "
               "is the default there: fit with xval=0, or cross-validate in memory"))),
    Option("seed", "seed", 0, "Seed of the fold assignment."),
    Option("prune", "choice", None, "Return the tree pruned at the cp the cross-validated cp "
           "table chooses (the 1-SE rule, or the least cross-validated error; needs `xval` "
           "> 0).  None keeps the full tree, as rpart.", choices=("1se", "min"), none=True,
           dask=OnDask(allowed=(None,), why=(
               "choosing the cp by the cross-validated cp table needs xval > 0, which a Dask "
               "frame does not support; prune the result at a cp of your choice with "
               "m.prune(cp)"))),
    Option("bins", "whole", None, "None grows rpart's exact tree.  An integer k cuts each "
           "numeric predictor into at most k quantile bins (the cuts of uboost's `max_bins`) "
           "and grows the tree from histograms of the bins, splitting between bins at the "
           "midpoint of the values on either side; with k at least a predictor's number of "
           "distinct values the tree is the exact one.  The same `bins` on a Dask frame "
           "grows the same tree.  Refused with missing predictor values (surrogate splits "
           "need the raw values); no surrogate splits are searched, so new rows missing a "
           "split's variable follow the majority branch and `variable_importance` counts "
           "the primary splits.", low=2, high=65535, none=True),
    Option("prior", "value", None, "rpart's `parms = list(prior = )`: the prior "
           "probabilities of the response's classes, in the order of its levels (a sequence "
           "of K numbers summing to 1, or a dict by level; on the command line, numbers "
           "separated by commas).  None: the classes' shares of the training weight, "
           "rpart's default.  A tree with priors is grown as rpart's tree of K classes "
           "(gini or entropy) and predicts a DataFrame of class probabilities.",
           check=_check_prior, dask=OnDask(allowed=(None,), why=(
               "trees of more than two classes and priors are grown in memory"))),
), label="'udt'")


def fit_udt(spec: FitSpec, *, min_split: int, min_leaf: int, max_depth: int, cp: float,
            risk: str, xval: int, seed: int | None, prune: str | None,
            bins: int | None, prior) -> TreeResult | ClassTreeResult:
    """Grow a UDT tree (paper 000 Algorithm 3) and its cross-validated cp table.

    The options are :data:`OPTIONS`, checked by :func:`ubreg.fit`.  ``prune``
    returns the tree pruned at :func:`prune_cp`'s cp; ``bins`` grows from
    histograms of quantile bins (:mod:`ubreg.fitters.udt.hist`).
    """
    if isinstance(spec.family, list) or not getattr(spec.family, "is_permissible", False):
        raise ValueError("method 'udt' needs one permissible family (the split criterion), "
                         f"got {spec.family!r}")
    rf = raw_frame(spec, "udt", response="auto")
    columns = to_tree_columns(rf.columns)
    # min_split and min_leaf count rows with prior weights, as rpart does (a constant
    # multiple of the weights grows the same tree), weight with frequency weights
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp,
                    risk=risk, count_rows=spec.weight_kind == "prior")
    w, unit = _grown_weights(rf.weights, spec.weight_kind)
    if rf.response.kind == "multiclass" or prior is not None:
        from .udt_classes import fit_class_tree
        if bins is not None:
            raise OptionError("bins= grows trees of two classes without priors; a tree of "
                             f"{len(rf.response.levels)} classes or with priors is grown "
                             "exact (bins=None)")
        classes = fit_class_tree(spec, rf, columns, w, unit, prior, controls, xval, seed)
        return classes if prune is None else classes.prune(prune_cp(classes, prune))
    grow = _binned_grower(columns, w, bins) if bins is not None else None
    tree = (grow or grow_tree)(columns, rf.y, w, spec.family, **controls)
    if grow is None:        # a binned tree has none, as on a Dask frame (the same tree)
        tree = with_all_surrogates(tree, columns, w, controls["count_rows"])
    tree = tree.in_weight_unit(unit)
    if xval > 0 and len(rf.y) >= max(xval, 2):
        cptable = cp_table_cv(columns, rf.y, w, spec.family, folds=xval, seed=seed,
                              grow=grow, **controls)
    else:
        cptable = tree.cptable
    result = TreeResult(tree=tree, cptable=cptable, xval=xval, seed=seed,
                        na_counts=rf.na_counts, formula=spec.formula, family=spec.family,
                        design=rf.design, response=rf.response, y=rf.y, weights=rf.weights,
                        training_leaf=tree.apply(columns), index=rf.index, n_input=rf.n_input,
                        dropped=rf.dropped, **spec.recorded())
    return result if prune is None else result.prune(prune_cp(result, prune))


def _grown_weights(weights: np.ndarray, weight_kind: str) -> tuple[np.ndarray, float]:
    """(the weights the tree is grown on, one of their units in the weights' units).

    Constant prior weights are no weights (rpart counts rows): they are divided by
    their value, exactly 1 each, so that the tree, its cp table and its ties are the
    unweighted ones.  Other weights far from 1 (5e-324, 1e300) are divided by a power of
    two, exactly: their sums would lose their precision to underflow or overflow.
    """
    positive = weights[weights > 0]
    if weight_kind == "prior" and positive.size and np.all(positive == positive[0]):
        return weights / positive[0], float(positive[0])
    e = far_exponent(float(weights.max(initial=0.0)))
    return (np.ldexp(weights, -e), float(np.ldexp(1.0, e))) if e else (weights, 1.0)


def _binned_grower(columns, weights, bins: int | None):
    """:func:`grow_tree_binned` with the coding of all training rows (the folds of
    the cp table's cross-validation keep it)."""
    values, specs, _ = check_columns(columns)
    refuse_missing(missing_names(values, specs), f"bins={bins!r}")
    coded, _ = code_columns(values, specs, np.asarray(weights, dtype=np.float64), bins)
    return functools.partial(grow_tree_binned, coded=coded)


def prune_cp(result: TreeResult | ClassTreeResult, rule: str = "1se") -> float:
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


def fit_udt_on_dask(spec: FitSpec, **options) -> TreeResult:
    """The Dask backend (:func:`ubreg.dask.udt.fit_udt_dask`), imported when a Dask frame
    arrives."""
    from ..dask.udt import fit_udt_dask
    return fit_udt_dask(spec, **options)


METHOD = Method("udt", fit=fit_udt, result=TreeResult, schema=OPTIONS, quick={"": {"xval": 0}},
                keeps_missing=True, dask=fit_udt_on_dask, default_family="gini",
                multiclass=True)
