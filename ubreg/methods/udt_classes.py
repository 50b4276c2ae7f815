"""``method="udt"`` on more than two classes, or with priors: rpart's classification tree
of K classes (:mod:`ubreg.fitters.udt.classes`), its cp table and result."""
from __future__ import annotations

import functools

import numpy as np

from ..errors import OptionError
from ..fitters.udt import cp_table_cv, with_all_surrogates
from ..fitters.udt.classes import grow_class_tree
from ..results.class_tree import ClassTreeResult
from ..trees.class_stats import ClassWeights
from .spec import FitSpec

__all__ = ["fit_class_tree", "class_codes"]


def class_codes(rf) -> tuple[np.ndarray, list]:
    """Class codes 0..K−1 of the training rows in the order of the response's levels, and
    the levels (a binary response is coded 1 for its positive class: recoded here)."""
    levels = [str(v) for v in rf.response.levels]
    y = np.asarray(rf.y)
    if rf.response.kind == "multiclass":
        return y.astype(np.intp), levels
    pos = list(rf.response.levels).index(rf.response.positive)
    return np.where(y == 1, pos, 1 - pos).astype(np.intp), levels


def _priors(prior, levels: list) -> list | None:
    """``prior`` as a list in the order of ``levels`` (a dict is read by level name)."""
    if not isinstance(prior, dict):
        return None if prior is None else list(prior)
    names = {str(k): v for k, v in prior.items()}
    unknown = sorted(set(names) - set(levels))
    missing = [lev for lev in levels if lev not in names]
    if unknown or missing:
        raise OptionError(f"prior by level: the response's levels are {levels}"
                         + (f"; unknown: {unknown}" if unknown else "")
                         + (f"; missing: {missing}" if missing else ""))
    return [float(names[lev]) for lev in levels]


def fit_class_tree(spec: FitSpec, rf, columns, w, unit: float, prior, controls: dict,
                   xval: int, seed: int | None) -> ClassTreeResult:
    """Grow the tree, its surrogates and its cp table (cross-validated with ``xval`` folds,
    the folds' trees keeping the priors of all rows, as rpart's xval.c)."""
    codes, levels = class_codes(rf)
    family = spec.family
    assert not isinstance(family, list)         # fit_udt refuses a list of families
    if family.name not in ("gini", "entropy"):
        raise OptionError(f"method 'udt' on {len(levels)} classes, or with priors, splits by "
                         "rpart's criteria: family 'gini' or 'entropy' (split = 'information'),"
                         f" got {family.describe()}")
    totals = np.bincount(codes, weights=w, minlength=len(levels))
    try:
        weights = ClassWeights.of(totals, _priors(prior, levels))
    except ValueError as exc:                   # the priors' checks, by the option's name
        raise OptionError(str(exc)) from None
    grow = functools.partial(grow_class_tree, levels=levels, class_weights=weights)
    tree = grow(columns, codes, w, family, **controls)
    tree = with_all_surrogates(tree, columns, w, controls["count_rows"])
    tree = tree.in_weight_unit(unit)
    if xval > 0 and len(codes) >= max(xval, 2):
        cptable = cp_table_cv(columns, codes, w, family, folds=xval, seed=seed, grow=grow,
                              **controls)
    else:
        cptable = tree.cptable
    return ClassTreeResult(tree=tree, cptable=cptable, xval=xval, seed=seed,
                           na_counts=rf.na_counts, training_leaf=tree.apply(columns),
                           formula=spec.formula, family=family, design=rf.design,
                           response=rf.response, y=codes, weights=rf.weights, index=rf.index,
                           n_input=rf.n_input, dropped=rf.dropped, **spec.recorded())
