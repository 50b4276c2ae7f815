"""Cost-complexity pruning as rpart does it (Breiman et al. 1984, ch. 3).

The complexity of an internal node is the risk reduction per split of its
weakest-link subtree, (R(node) − R(leaves below)) / (#splits below); a split
survives a complexity parameter α (absolute: cp × root risk) when its
complexity exceeds α.  :func:`rpart_complexity` replays rpart's
``partition()`` (partition.c) on the grown tree, including its early stops and
its order of collapsing children, so that the kept nodes and their
complexities are rpart's; :func:`fix_cp` then caps each node's complexity by its
parent's (fix_cp.c).

The risk R is chosen by the user: ``"misclass"`` (default), the weighted
misclassification rpart uses for classification, or ``"surrogate"``, the
tree's balanced convex surrogate Σ_leaves w(S_k)(−φ(p_k) − a_φ)/b_φ
(Theorem 4).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["rpart_complexity", "fix_cp", "cp_rows", "one_se_cp"]


def rpart_complexity(left, right, risk, alpha):
    """Complexity of every grown node and whether its split is kept.

    Parameters
    ----------
    left, right : ndarray of intp
        Children in growth order (-1 at leaves); node 0 is the root.
    risk : ndarray
        Node risks (absolute).
    alpha : float
        cp × root risk.

    Returns
    -------
    complexity : ndarray
        rpart's node complexity before :func:`fix_cp`: α at nodes not split (too small,
        risk at most α, no split found), the complexity computed at a collapsed node
        (at most α), as partition.c leaves them.
    split : ndarray of bool
        Whether the node's split survives.
    """
    left = np.asarray(left)
    right = np.asarray(right)
    risk = np.asarray(risk, dtype=np.float64)
    nn = left.shape[0]
    complexity = np.full(nn, float(alpha))
    split = np.zeros(nn, dtype=bool)
    lf, rt, rk = left.tolist(), right.tolist(), risk.tolist()
    cx = complexity  # written in place

    def part(i, guess, is_root):
        # partition.c: "Can I quit now?"
        me_cp = rk[i] if is_root else guess
        tempcp = rk[i] if is_root else min(rk[i], guess)
        if lf[i] < 0 or tempcp <= alpha:
            cx[i] = alpha
            return 0, rk[i]
        L, R = lf[i], rt[i]
        ls, lr = part(L, tempcp - alpha, False)
        t = (rk[i] - lr) / (ls + 1)
        t2 = rk[i] - rk[L]
        if t < t2:
            t = t2
        if t > me_cp:
            t = me_cp
        rs, rr = part(R, t - alpha, False)
        t = (rk[i] - (lr + rr)) / (ls + rs + 1)
        cl, cr = cx[L], cx[R]
        # who goes first -- the weakest of me, my left and my right son
        if cr > cl:
            if t > cl:
                lr, ls = rk[L], 0
                t = (rk[i] - (lr + rr)) / (ls + rs + 1)
                if t > cr:
                    rr, rs = rk[R], 0
        elif t > cr:
            rr, rs = rk[R], 0
            t = (rk[i] - (lr + rr)) / (ls + rs + 1)
            if t > cl:
                lr, ls = rk[L], 0
        comp = (rk[i] - (lr + rr)) / (ls + rs + 1)
        cx[i] = comp
        if comp <= alpha:       # "all was in vain": collapsed, keeping its complexity
            return 0, rk[i]
        split[i] = True
        return ls + rs + 1, lr + rr

    if nn:
        part(0, rk[0], True)
    return complexity, split


def fix_cp(parent, depth, complexity):
    """complexity ← min(own, parent's), top-down by depth (fix_cp.c)."""
    out = np.asarray(complexity, dtype=np.float64).copy()
    parent = np.asarray(parent)
    depth = np.asarray(depth)
    for d in range(1, int(depth.max(initial=0)) + 1):
        at = np.flatnonzero(depth == d)
        out[at] = np.minimum(out[at], out[parent[at]])
    return out


def cp_rows(complexity, is_leaf, left, right, risk, alpha):
    """The cp table of a tree (no cross-validation), in absolute units.

    Rows are the distinct complexities of the internal nodes and α, largest
    first; a row's tree keeps the splits whose complexity exceeds its cp.

    Returns
    -------
    cp, nsplit, risk : ndarrays
    """
    internal = np.flatnonzero(~is_leaf)
    comp = complexity[internal]
    # splitting an internal node changes the risk by R(L) + R(R) − R(node)
    delta = risk[left[internal]] + risk[right[internal]] - risk[internal]
    order = np.argsort(-comp, kind="stable")
    comp_sorted = comp[order]
    cum = np.concatenate([[0.0], np.cumsum(delta[order])])
    cps = np.unique(np.concatenate([comp, [alpha]]))[::-1]
    cps = cps[cps >= alpha]
    # number of internal nodes with complexity > cp (comp_sorted is descending)
    k = np.searchsorted(-comp_sorted, -cps, side="left")
    return cps, k, risk[0] + cum[k]


def one_se_cp(cptable) -> float:
    """The 1-SE rule: the CP of the smallest tree whose cross-validated error
    is within one standard error of the minimum (Breiman et al. 1984, §3.4.3).

    Parameters
    ----------
    cptable : DataFrame
        With columns ``CP``, ``nsplit``, ``xerror``, ``xstd`` (from
        :func:`~ubreg.fitters.udt.cp_table_cv`).

    Returns
    -------
    float
        A cp such that ``tree.prune(cp)`` is that tree.
    """
    if not isinstance(cptable, pd.DataFrame) or not {"CP", "xerror", "xstd"} <= set(cptable):
        raise ValueError("one_se_cp needs a cp table with CP, xerror and xstd columns "
                         "(from cp_table_cv)")
    xerr = cptable["xerror"].to_numpy(dtype=float)
    xstd = cptable["xstd"].to_numpy(dtype=float)
    if not np.isfinite(xerr).any():
        raise ValueError("the cp table has no cross-validated errors")
    i = int(np.nanargmin(xerr))
    bound = xerr[i] + xstd[i]
    j = int(np.flatnonzero(xerr <= bound)[0])
    return float(cptable["CP"].iloc[j])


def pruned_call(call: str, cp: float) -> str:
    """The call of a tree pruned at ``cp``: ``prune(fit, cp=...)``, naming the fit once.

    Parameters
    ----------
    call : str
        The call of the tree being pruned, itself possibly ``prune(fit, cp=...)``.
    cp : float
        The complexity parameter of the new pruning.

    Returns
    -------
    str
        ``prune(fit, cp=cp)``: pruning a pruned tree is the fit pruned at the new cp
        (the larger cp wins), not ``prune(prune(fit, ...), ...)``.
    """
    inner = re.fullmatch(r"prune\((.*), cp=[^,()]+\)", call, flags=re.S)
    return f"prune({inner.group(1) if inner else call}, cp={cp:g})"
