"""Send rows down a fitted tree, one depth at a time (vectorised)."""
from __future__ import annotations

import numpy as np

from .columns import CATEGORICAL
from .surrogates import route_missing

__all__ = ["route", "route_level", "ROUTE_BLOCK"]


def _goes_left(nodes, specs, values, j, rows, nd):
    """Direction of ``rows`` (at internal nodes ``nd`` splitting on predictor j).

    Missing values follow the node's surrogate splits (``nodes["surrogates"]``,
    by node number: :mod:`ubreg.trees.surrogates`), then ``na_left``, the
    majority branch; for a categorical split, levels that did not occur in the
    node during training (or at all) follow ``na_left``.
    """
    xv = values[j][rows]
    if specs[j].kind == CATEGORICAL:
        table = nodes["cat_side"]
        miss = xv < 0
        inside = ~miss & (xv < table.shape[1])
        side = np.where(inside, table[nodes["cat_row"][nd], np.where(inside, xv, 0)], 0)
        left = np.where(side == 1, True, np.where(side == 2, False, nodes["na_left"][nd]))
    else:
        miss = np.isnan(xv)
        below = xv < nodes["threshold"][nd]
        left = np.where(miss, nodes["na_left"][nd],
                        np.where(nodes["direction"][nd] < 0, below, ~below))
    surrogates = nodes.get("surrogates")
    if surrogates and miss.any():
        left[miss] = route_missing(surrogates, specs, values, rows[miss],
                                   nodes["number"][nd[miss]], left[miss])
    return left


def route(nodes, specs, values, n, path=False):
    """Index (into the node arrays) of the leaf each row reaches.

    Parameters
    ----------
    nodes : dict of arrays
        Needs ``left``, ``right`` (-1 at leaves), ``var``, ``threshold``,
        ``direction``, ``na_left``, ``cat_row``, ``cat_side``, ``number``;
        ``surrogates`` (by node number) if any.
    specs : list of ColumnSpec
    values : list of ndarray, aligned with ``specs``
    n : int
        Number of rows.
    path : bool
        Also return the (n, depth + 1) matrix of node indices visited (the
        leaf repeated once reached), for cross-validation.

    Returns
    -------
    leaf : ndarray of intp, and the path matrix when ``path``.
    """
    left, right, var = nodes["left"], nodes["right"], nodes["var"]
    cur = np.zeros(n, dtype=np.intp)
    active = np.arange(n, dtype=np.intp)
    steps = [cur.copy()] if path else []
    while active.size:
        nd = cur[active]
        internal = left[nd] >= 0
        active, nd = active[internal], nd[internal]
        if not active.size:
            break
        v = var[nd]
        go = np.empty(active.shape[0], dtype=bool)
        for j in np.unique(v):
            sel = np.flatnonzero(v == j)
            go[sel] = _goes_left(nodes, specs, values, int(j), active[sel], nd[sel])
        cur[active] = np.where(go, left[nd], right[nd])
        if path:
            steps.append(cur.copy())
    if path:
        return cur, np.stack(steps, axis=1)
    return cur


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
