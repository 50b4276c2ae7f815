"""rpart-style text listing of a tree (``print.rpart``)."""
from __future__ import annotations

import numpy as np

from .render import shown_names
from .rformat import format_r, signif

__all__ = ["listing", "split_labels"]


def _num(x, digits):
    return f"{x:.{digits}g}"


def split_labels(tree, digits=7):
    """The label of each node's incoming branch: ``root``, ``glucose< 143.5``,
    ``mass>=25.55``, ``colour=red,blue``; missing values that follow the
    branch are not shown (see the frame's ``na_goes``).  Names and levels are
    shown as tables show them (:func:`ubreg.summary.render.shown_names`: long ones
    shortened, distinct among the levels of the node)."""
    f = tree.frame
    labels = np.empty(len(f), dtype=object)
    labels[0] = "root"
    index_of = {int(num): i for i, num in enumerate(f["node"])}
    for i in range(1, len(f)):
        pnum = int(f["parent"].iat[i])
        p = index_of[pnum]
        is_left = int(f["node"].iat[i]) == 2 * pnum
        var = shown_names([f["var"].iat[p]])[0]
        if f["left_levels"].iat[p] is not None:
            left, right = list(f["left_levels"].iat[p]), list(f["right_levels"].iat[p])
            shown = shown_names(left + right)
            levels = shown[:len(left)] if is_left else shown[len(left):]
            labels[i] = f"{var}={','.join(levels)}"
        else:
            t = _num(f["threshold"].iat[p], digits)
            lt = f["direction"].iat[p] == "<"
            op = "< " if lt == is_left else ">="
            labels[i] = f"{var}{op}{t}"
    return labels


def listing(tree, labels=("0", "1"), digits=7):
    """``node), split, n, loss, yval, (yprob)`` with ``*`` marking leaves, as
    ``print.rpart`` prints a classification tree.

    ``loss`` is the misclassified weight and ``yprob`` the class proportions
    (P(y = 0), P(y = 1); with K classes, the K probabilities); ``yval`` is the class with
    yprob ≥ 1/2 for y = 1 (rpart takes the first class at a tie), with K classes the
    class of least expected loss.  Losses and proportions are
    formatted together as R's ``format`` does (``digits`` significant digits).
    """
    f = tree.frame
    split = split_labels(tree, digits=digits)
    width = len(str(int(f["node"].max())))
    yprob = np.asarray(tree.yprob, dtype=float)
    by_class = [1.0 - yprob, yprob] if yprob.ndim == 1 else list(yprob.T)
    probs = np.asarray(format_r(np.concatenate(by_class), digits)).reshape(len(by_class), -1)
    loss = format_r([signif(v, digits) for v in f["loss"].to_numpy(dtype=float)], digits)
    names = [str(v) for v in labels]
    lab_w = max(len(v) for v in names)
    lines = [f"n= {int(f['n'].iat[0])} ", "",
             "node), split, n, loss, yval, (yprob)",
             "      * denotes terminal node", ""]
    for i in range(len(f)):
        indent = " " * (2 * int(f["depth"].iat[i]))
        yval = names[int(f["yval"].iat[i])].ljust(lab_w)
        star = "*" if f["is_leaf"].iat[i] else " "
        lines.append(f"{indent}{int(f['node'].iat[i]):>{width}}) {split[i]} "
                     f"{_num(f['n'].iat[i], digits)} {loss[i]} {yval} "
                     f"({' '.join(probs[:, i])}) {star}")
    return "\n".join(lines) + "\n"
