"""Drawing a tree with matplotlib (imported lazily).

The layout follows rpart.plot: leaves evenly spaced along the bottom of
their depth, an internal node centred over its children, the split
condition printed under the node (the left branch is the one where it
holds, marked "yes" at the root), and leaves coloured by p(y = 1).  The
font size is chosen so that neighbouring boxes do not overlap: it shrinks
with the number of leaves drawn (see :func:`figure_size` for a figure large
enough to keep it readable).
"""
from __future__ import annotations

import numpy as np

from ..summary.render import plain_text
from ..summary.tree_listing import split_labels

__all__ = ["plot_tree", "figure_size", "drawn_leaves", "depth_for_leaves"]

_CHAR_W = 0.62        # width of an average DejaVu Sans character, in ems (digits: 0.64)
_LINE_H = 1.2         # line height, in ems
_MIN_FONT = 4.0
_MAX_LABEL = 26       # longest split or class label drawn (longer ones end in "…")


def _shown(tree, max_depth=None):
    f = tree.frame
    depth = f["depth"].to_numpy()
    left = tree.nodes["left"]
    right = tree.nodes["right"]
    shown = np.ones(len(f), dtype=bool) if max_depth is None else depth <= max_depth
    child_shown = np.where(left >= 0, shown[np.maximum(left, 0)], False)
    return depth, left, right, shown, shown & ~child_shown


def drawn_leaves(tree, max_depth=None) -> int:
    """Number of boxes at the bottom of their branch when drawn to ``max_depth``."""
    return int(_shown(tree, max_depth)[4].sum())


def depth_for_leaves(tree, max_leaves: int):
    """The largest ``max_depth`` that draws at most ``max_leaves`` leaves
    (None when the whole tree fits)."""
    depth = tree.frame["depth"].to_numpy()
    if drawn_leaves(tree) <= max_leaves:
        return None
    best = 0
    for d in range(1, int(depth.max()) + 1):
        if drawn_leaves(tree, d) > max_leaves:
            break
        best = d
    return best


def figure_size(tree, max_depth=None) -> tuple[float, float]:
    """A figure size (inches) in which the tree is legible at about 8 points."""
    depth, _, _, shown, leaf = _shown(tree, max_depth)
    n_leaves = int(leaf.sum())
    levels = int(depth[shown].max()) + 1
    width = float(np.clip(0.95 * n_leaves + 1.0, 6.0, 16.0))
    height = float(np.clip(0.95 * levels + 0.9, 3.2, 10.0))
    return width, height


def _short(text: str, limit: int = _MAX_LABEL) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _condition(label: str, limit: int = _MAX_LABEL) -> str:
    """``glucose< 127.5`` -> ``glucose < 127.5``; ``mass>=30`` -> ``mass ≥ 30``;
    ``g=a,b`` -> ``g = a, b``.  Longer than ``limit``: the variable name is
    shortened first (the threshold is always kept), then the list of levels."""
    for op, pretty in (("< ", " < "), (">=", " ≥ ")):
        if op in label:
            var, _, value = label.partition(op)
            var, rest = var.rstrip(), f"{pretty}{value.strip()}"
            break
    else:
        var, _, levels = label.partition("=")
        rest = f" = {', '.join(levels.split(','))}"
    room = max(limit - len(rest), 8)
    var = _short(var, room)
    return _short(var + rest, max(limit, len(var) + 8))


def _number(v, digits: int) -> str:
    v = float(v)
    return f"{int(v)}" if v == int(v) else f"{v:.{digits}g}"


def plot_tree(tree, ax=None, *, labels=("0", "1"), digits=4, fontsize=None, max_depth=None):
    """Draw ``tree``: the split under each internal node, n and p(y = 1) in each box.

    Leaves are spread evenly along the x axis in rpart order; an internal
    node sits above the middle of its children, with its split condition
    under it: the left branch is where the condition holds ("yes" at the
    root), the right branch where it does not.  Leaves show the predicted
    class, p(y = 1) and the (weighted) count, and are coloured by p(y = 1)
    (blue: low, red: high).  A subtree cut by ``max_depth`` is drawn as a
    dashed box.  Every user string (variable names, levels, class labels) is
    drawn as literal text, never as matplotlib mathtext.

    Parameters
    ----------
    tree : Tree
    ax : matplotlib Axes, optional
        Default: a new pyplot figure of :func:`figure_size`.
    labels : pair of str
        Class names for y = 0 and y = 1.
    digits : int
        Significant digits of the split thresholds (probabilities get 3).
    fontsize : float, optional
        Default: the largest size up to 9 points at which neighbouring boxes
        do not overlap (not below 4).
    max_depth : int, optional
        Draw only the nodes down to this depth (deeper subtrees are cut).

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=figure_size(tree, max_depth))
    layout = _Layout(tree, max_depth)
    texts, conds = _node_texts(tree, layout, labels, digits)
    ax_w, ax_h = _axes_points(ax)
    if fontsize is None:
        fontsize = _fit_font(texts, conds, ax_w / max(layout.n_leaves, 1),
                             ax_h / (layout.max_d + 1), layout.max_d)
    fs = float(fontsize)
    _set_limits(ax, layout, fs, ax_h, bool(conds))
    _draw(ax, tree, layout, texts, conds, fs)
    ax.set_axis_off()
    f = tree.frame
    title = f"UDT tree ({plain_text(tree.family.name)}): {int(f['is_leaf'].sum())} leaves"
    if max_depth is not None and layout.n_leaves < int(f["is_leaf"].sum()):
        title += f", drawn to depth {max_depth} (dashed: subtree cut)"
    ax.set_title(title, fontsize=max(fs + 1, 9))
    return ax


class _Layout:
    """Where each node is drawn: depth (−y), x (leaves evenly spaced, a node above the
    middle of its children), which nodes are shown and which are drawn as leaves."""

    def __init__(self, tree, max_depth):
        self.depth, self.left, self.right, self.shown, self.drawn_leaf = _shown(tree, max_depth)
        n = len(self.depth)
        self.n = n
        leaf_ids = np.flatnonzero(self.drawn_leaf)
        self.n_leaves = leaf_ids.shape[0]
        self.max_d = int(self.depth[self.shown].max())
        self.x = np.zeros(n)
        self.x[leaf_ids] = np.arange(self.n_leaves)
        for i in range(n - 1, -1, -1):              # children come after parents
            if self.shown[i] and not self.drawn_leaf[i]:
                self.x[i] = 0.5 * (self.x[self.left[i]] + self.x[self.right[i]])


def _node_class(tree, i) -> tuple[int, float]:
    """(class shown, its probability) at node ``i``: with two classes the class of
    p ≥ 1/2 and p = P(y = 1) (the colour scale), with K the node's class and its
    probability."""
    yprob = np.asarray(tree.yprob)
    if yprob.ndim == 1:
        return int(yprob[i] >= 0.5), float(yprob[i])
    k = int(tree.yval[i])
    return k, float(yprob[i, k])


def _box_colour(tree, i, cmap):
    """The fill of a leaf: the diverging colour of P(y = 1), or with K classes the class's
    own colour, paler the less probable it is."""
    k, p = _node_class(tree, i)
    if np.asarray(tree.yprob).ndim == 1:
        return np.asarray(cmap(p)[:3]) * 0.55 + 0.45
    import matplotlib
    base = np.asarray(matplotlib.colormaps["tab10"](k % 10)[:3])
    return base * 0.55 * p + (1.0 - 0.55 * p)


def _node_texts(tree, layout, labels, digits):
    """The text in each shown box ({node: text}) and the split condition under each
    drawn internal node ({node: condition}), as literal matplotlib text."""
    f = tree.frame
    split = split_labels(tree, digits=digits)
    cls = [_short(plain_text(lab), 14) for lab in labels]
    texts, conds = {}, {}
    for i in np.flatnonzero(layout.shown):
        k, p = _node_class(tree, i)
        stats = f"p={p:.3g}\nn={_number(f['n'].iat[i], digits)}"
        leaf = layout.drawn_leaf[i]
        texts[i] = f"{cls[k]}\n{stats}" if leaf else stats
        if not leaf:
            conds[i] = plain_text(_condition(split[layout.left[i]]))
    return texts, conds


def _axes_points(ax) -> tuple[float, float]:
    """Width and height of the axes, in points."""
    pos = ax.get_position()
    fw, fh = ax.figure.get_size_inches()
    return pos.width * fw * 72.0, pos.height * fh * 72.0


def _fit_font(texts, conds, per_leaf, per_level, max_d) -> float:
    """The largest font size up to 9 points (not below 4) at which boxes one leaf apart
    do not touch."""
    widest_box = max(max(len(s) for s in t.split("\n")) for t in texts.values())
    widest_cond = max((len(c) for c in conds.values()), default=0)
    fs = min(9.0,
             0.92 * per_leaf / (_CHAR_W * widest_box + 0.8),
             # a condition sits between levels; its neighbours are ≥ 1.5 leaves away
             1.75 * per_leaf / (_CHAR_W * widest_cond + 0.6) if conds else 9.0,
             # per level: half a node box, its condition, half a leaf box (3 lines)
             per_level / 6.2 if max_d else 9.0)
    return max(_MIN_FONT, fs)


def _set_limits(ax, layout, fs, ax_h, has_conditions):
    """Axes limits with room for the boxes above the root and below the leaves."""
    top_pts = (2 * _LINE_H / 2 + 0.6) * fs + 2           # root box half-height
    if layout.n == 1 or not has_conditions:
        top_pts = (3 * _LINE_H / 2 + 0.6) * fs + 2
    bottom_pts = (3 * _LINE_H / 2 + 0.6) * fs + 2
    pad = min(0.45, (top_pts + bottom_pts) / max(ax_h, 1.0))
    span = max(layout.max_d, 0.5) / (1.0 - pad)
    unit = ax_h / span                                  # points per level
    ax.set_ylim(-layout.max_d - bottom_pts / unit, top_pts / unit)
    ax.set_xlim(-0.5, max(layout.n_leaves - 0.5, 0.5))


def _draw(ax, tree, layout, texts, conds, fs):
    """The edges, the split conditions (and "yes"/"no" at the root) and the boxes."""
    import matplotlib

    f = tree.frame
    x, depth, left, right = layout.x, layout.depth, layout.left, layout.right
    cmap = matplotlib.colormaps["coolwarm"]
    gap = (2 * _LINE_H / 2 + 0.6) * fs + 0.35 * fs      # node half-height + a gap
    for i in np.flatnonzero(layout.shown):
        leaf = layout.drawn_leaf[i]
        if not leaf:
            for c in (left[i], right[i]):
                ax.plot([x[i], x[c]], [-depth[i], -depth[c]], color="0.55", lw=0.8, zorder=1)
            ax.annotate(conds[i], (x[i], -depth[i]), xytext=(0, -gap - 0.6 * fs),
                        textcoords="offset points", ha="center", va="center", fontsize=fs,
                        fontweight="bold", zorder=3, annotation_clip=False,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none"))
            if depth[i] == 0:
                for c, word in ((left[i], "yes"), (right[i], "no")):
                    ax.annotate(word, (0.3 * x[i] + 0.7 * x[c], -0.7 * depth[c]),
                                ha="center", va="center", fontsize=0.85 * fs, color="0.35",
                                zorder=3, bbox=dict(boxstyle="round,pad=0.1", fc="white",
                                                    ec="none"))
        cut = leaf and not bool(f["is_leaf"].iat[i])
        colour = _box_colour(tree, i, cmap) if leaf else "0.93"
        ax.text(x[i], -depth[i], texts[i], ha="center", va="center", fontsize=fs, zorder=4,
                linespacing=1.1,
                bbox=dict(boxstyle="round,pad=0.3", fc=colour, ec="0.3",
                          ls="--" if cut else "-", lw=0.8))
