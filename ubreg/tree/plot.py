"""Drawing a tree with matplotlib (imported lazily)."""
from __future__ import annotations

import numpy as np

__all__ = ["plot_tree"]


def plot_tree(tree, ax=None, *, labels=("0", "1"), digits=4, fontsize=8, max_depth=None):
    """Draw ``tree``: splits at internal nodes, n and p(y = 1) at the leaves.

    Leaves are spread evenly along the x axis in rpart order; an internal
    node sits above the middle of its children; the branch labels follow
    :func:`~ubreg.tree.listing.split_labels`.  Leaves are coloured by
    p(y = 1) (blue: low, red: high).

    Parameters
    ----------
    tree : Tree
    ax : matplotlib Axes, optional
    labels : pair of str
        Class names for y = 0 and y = 1.
    digits : int
        Significant digits of thresholds and probabilities.
    max_depth : int, optional
        Draw only the nodes down to this depth (deeper subtrees are cut).

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    from matplotlib import cm

    from .listing import split_labels

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 6))
    f = tree.frame
    nodes = tree.nodes
    n = len(f)
    depth = f["depth"].to_numpy()
    shown = np.ones(n, dtype=bool) if max_depth is None else depth <= max_depth
    left, right = nodes["left"], nodes["right"]
    child_shown = np.where(left >= 0, shown[np.maximum(left, 0)], False)
    drawn_leaf = shown & ~child_shown
    x = np.zeros(n)
    leaf_ids = np.flatnonzero(drawn_leaf)
    x[leaf_ids] = np.arange(leaf_ids.shape[0])
    for i in range(n - 1, -1, -1):              # children come after parents
        if shown[i] and not drawn_leaf[i]:
            x[i] = 0.5 * (x[left[i]] + x[right[i]])
    lab = split_labels(tree, digits=digits)
    cmap = cm.get_cmap("coolwarm") if hasattr(cm, "get_cmap") else plt.get_cmap("coolwarm")
    for i in range(n):
        if not shown[i]:
            continue
        if not drawn_leaf[i]:
            for c in (left[i], right[i]):
                ax.plot([x[i], x[c]], [-depth[i], -depth[c]], color="0.5", lw=0.8, zorder=1)
                ax.text(0.5 * (x[i] + x[c]), -0.5 * (depth[i] + depth[c]), lab[c],
                        ha="center", va="center", fontsize=fontsize,
                        bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.8))
        p = f["yprob"].iat[i]
        text = f"n={int(f['n'].iat[i])}\np={p:.{digits}g}"
        if drawn_leaf[i]:
            text = f"{labels[int(p >= 0.5)]}\n" + text
        ax.text(x[i], -depth[i], text, ha="center", va="center", fontsize=fontsize, zorder=2,
                bbox=dict(boxstyle="round,pad=0.3",
                          fc=cmap(p) if drawn_leaf[i] else "0.92", ec="0.3"))
    ax.set_xlim(-0.7, max(leaf_ids.shape[0] - 0.3, 0.7))
    ax.set_ylim(-depth[shown].max() - 0.7, 0.7)
    ax.set_axis_off()
    ax.set_title(f"UDT tree ({tree.family.name}): {int(drawn_leaf.sum())} leaves")
    return ax
