"""rpart's trees on the one predictor (:mod:`ubreg.trees.predictor`), and the
growing tree's routing of one level (:func:`route_level`).

:func:`route` lays rpart's node arrays out as the predictor's
:class:`~ubreg.trees.predictor.Splits` (:func:`rpart_splits`) and the predictors its
splits read as one matrix (:func:`split_matrix`), with the surrogate splits as the
predictor's rule for missing values."""
from __future__ import annotations

import numpy as np

from .columns import CATEGORICAL
from .predictor import Splits, descend
from .surrogates import route_missing

__all__ = ["route", "rpart_splits", "split_matrix", "route_level", "ROUTE_BLOCK"]


def rpart_splits(nodes, specs) -> tuple[Splits, np.ndarray]:
    """The :class:`~ubreg.trees.predictor.Splits` of rpart's node arrays, and the
    predictors they read (``var`` indexes that list: :func:`split_matrix`).

    rpart's numeric split sends x < threshold left (``direction`` −1) or right
    (``direction`` +1): a value equal to the threshold is above it (``ties_above``),
    and the nodes of direction +1 send the values above it left (``flip``)."""
    left, var = nodes["left"], nodes["var"]
    split = left >= 0
    used, compact = np.unique(np.where(split, var, -1), return_inverse=True)
    if used.size and used[0] < 0:
        used, compact = used[1:], compact - 1
    is_cat = np.array([sp.kind == CATEGORICAL for sp in specs] + [False])
    cat = split & is_cat[var]
    splits = Splits(left=left, right=nodes["right"], var=compact.reshape(var.shape),
                    threshold=nodes["threshold"], nan_left=nodes["na_left"], ties_above=True,
                    flip=split & ~cat & (nodes["direction"] > 0),
                    cat_row=np.where(cat, nodes["cat_row"], -1) if cat.any() else None,
                    cat_side=nodes["cat_side"] if cat.any() else None)
    return splits, used


def split_matrix(specs, values, used, n: int) -> np.ndarray:
    """(n, len(used)) float64: the predictors ``used`` side by side, a categorical
    code as a float (exact), a missing value NaN."""
    X = np.empty((n, max(len(used), 1)))
    for i, j in enumerate(used):
        v = values[j]
        if specs[j].kind == CATEGORICAL:
            X[:, i] = np.where(v < 0, np.nan, v)
        else:
            X[:, i] = v
    return X


def route(nodes, specs, values, n, path=False, splits=None):
    """Index (into the node arrays) of the leaf each row reaches, by the one
    predictor of the package's trees (:func:`~ubreg.trees.predictor.descend`).

    Parameters
    ----------
    nodes : dict of arrays
        Needs ``left``, ``right`` (-1 at leaves), ``var``, ``threshold``,
        ``direction``, ``na_left``, ``cat_row``, ``cat_side``, ``number``;
        ``surrogates`` (by node number) if any: rows missing a split's variable
        follow them (:mod:`ubreg.trees.surrogates`), then ``na_left``, the
        majority branch; for a categorical split, levels that did not occur in the
        node during training (or at all) follow ``na_left``.
    specs : list of ColumnSpec
    values : list of ndarray, aligned with ``specs``
    n : int
        Number of rows.
    path : bool
        Also return the (n, depth + 1) matrix of node indices visited (the
        leaf repeated once reached), for cross-validation.
    splits : (Splits, used) or None
        :func:`rpart_splits` of ``nodes``, if already made.

    Returns
    -------
    leaf : ndarray of intp, and the path matrix when ``path``.
    """
    s, used = rpart_splits(nodes, specs) if splits is None else splits
    surrogates = nodes.get("surrogates")
    missing = None
    if surrogates:
        def missing(rows, nd, left):
            return route_missing(surrogates, specs, values, rows, nodes["number"][nd], left)
    return descend(s, split_matrix(specs, values, used, n), missing, path)


#: rows routed per block: the temporaries of a block (a few arrays of this many
#: values) stay small beside the orderings, where routing all rows at once would add
#: several arrays of the open rows to the peak memory of the first levels
ROUTE_BLOCK = 1 << 16


def route_level(specs, values, rows, rk, var_k, thr_k, low_k, na_left_k, cat_side, cat_row_k):
    """Direction (True = left) of ``rows`` of a growing tree at split number ``rk``
    of its current level (split variables ``var_k``, thresholds ``thr_k``, ...), in
    blocks of :data:`ROUTE_BLOCK` rows; missing values go to ``na_left_k``."""
    left = np.empty(rows.shape[0], dtype=bool)
    for a in range(0, rows.shape[0], ROUTE_BLOCK):
        b = slice(a, a + ROUTE_BLOCK)
        left[b] = _route_block(specs, values, rows[b], rk[b], var_k, thr_k, low_k, na_left_k,
                               cat_side, cat_row_k)
    return left


def _route_block(specs, values, rows, rk, var_k, thr_k, low_k, na_left_k, cat_side, cat_row_k):
    left = np.empty(rows.shape[0], dtype=bool)
    rvar = var_k[rk]
    for j in np.unique(rvar):
        sel = np.flatnonzero(rvar == j)
        rr, kk = rows[sel], rk[sel]
        xv = values[j][rr]
        if specs[j].kind == CATEGORICAL:
            miss = xv < 0
            lft = cat_side[cat_row_k[kk], np.where(miss, 0, xv)] == 1
        else:
            miss = np.isnan(xv)
            below = xv < thr_k[kk]
            lft = np.where(low_k[kk], below, ~below)
        left[sel] = np.where(miss, na_left_k[kk], lft)
    return left
