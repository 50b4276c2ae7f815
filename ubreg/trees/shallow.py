"""Shallow trees grown level-wise on binned columns: the grower of every boosting learner.

One grower (:func:`grow_tree`), parametrised by its criterion (a gain on the
summed per-row statistics of a split's children), serves every boosting method:

* **Newton regression trees** for U-Boost (docs/math.md §6,
  :func:`fit_newton_tree`): per-row gradient gᵢ and curvature hᵢ; a split
  scores G_L²/H_L + G_R²/H_R − G²/H and a leaf takes the Newton value −G/H,
  i.e. the weighted least-squares fit of the working response zᵢ = −gᵢ/hᵢ with
  weights hᵢ.  Depth 1 is a regression stump.
* **UDT trees** for ULS (docs/math.md §5, paper 000 Algorithm 3,
  :func:`fit_leaf_tree`): per-row weighted class masses of the current
  boosting weights; a split scores the drop of Σ_leaves W_k(−φ(p_k))
  (:func:`udt_gain`); the leaves are ULS's features.
* **Tempered trees** for t-AdaBoost's ``learner="udt"`` (docs/tempered.md §3.3,
  :func:`ubreg.fitters.tboost.learners.fit_udt_tree`): :func:`udt_gain` with
  φ = −L_t on the tempered weights, admissibility by counts of live rows.

Split search is histogram based: compiled kernels (numba,
:mod:`ubreg.trees.histograms`) sum the statistics of the rows of the smaller
child of each split (the rows of each node are kept as a contiguous segment of
one permutation), its sibling's histogram is the parent's minus it, and every
candidate of every node of a level is scored at once (the Newton criterion in
one compiled pass, any other criterion in numpy); rows are never looped over
in Python.  Trees are grown in heap order (children of node i are 2i + 1 and
2i + 2) into :class:`~ubreg.trees.weak_tree.WeakTree` tables whose node ids are the
heap indices.

Why ``method="udt"`` keeps its own grower (:mod:`ubreg.fitters.udt.grow`)
rather than this one: both grow level by level and score a split by the drop
of Σ_leaves W_k(−φ(p_k)) (eq. 104), but merging them would change trees or
cost speed.

* UDT reproduces rpart on the raw columns: thresholds at the midpoint of any
  two consecutive distinct values of the node (here: bin cuts, exact only up
  to ``max_bins`` distinct values of the whole column), categorical
  predictors split into two sets of levels (here: one dummy column at a
  time), missing values sent to the heavier child (here: none), rpart's node
  numbering, child order and tie tolerance, ``cp`` stopping, and depths up to
  62, where a heap of 2^63 slots cannot be stored.
* This grower serves boosting: hundreds of shallow trees (depth ≤ 12) on one
  binning, each node's search O(bins) from its histogram (the larger child
  by subtraction), with k per-row statistics of any meaning (g, h[, w];
  W⁺, W⁻, w; W⁺, W⁻ and live counts).  UDT's search is O(rows) per node on
  presorted orderings of two statistics (w·y, w), which boosting would
  re-sort every round.
* Their gains round differently: UDT evaluates closed forms of the node term
  w(−φ(p) − a_φ) (compiled kernels for the square-root and entropy forms),
  this grower the callable gain on k statistics (one numba pass for Newton's).
  One arithmetic for both would change the rounding of gains, and with it
  the tie-breaks between near-equal splits, i.e. the trees of one or the
  other.

They share the criterion's definition (docs/math.md §5), not its code; the
weak hypotheses of all boosting learners share one protocol
(:mod:`ubreg.learners.base`).  The §3.3 tree of t-AdaBoost has a third grower
for a third reason (:mod:`ubreg.trees.best_first`: its growth order defines
its trees).
"""
from __future__ import annotations

import numpy as np

from .binning import BinnedDesign
from .heap_builder import grow_level_wise
from .weak_tree import WeakTree, leaf_indicators

__all__ = ["fit_leaf_tree", "fit_newton_tree", "grow_tree",
           "tree_workspace", "newton_gain", "udt_gain", "newton_split_search", "on_design_counts",
           "min_gain_threshold", "root_histogram", "MIN_GAIN"]


def newton_gain(L, R, P):
    """G_L²/H_L + G_R²/H_R − G²/H (columns g, h, count); the halved drop of the
    second-order risk model, i.e. the weighted least-squares criterion."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (L[..., 0] ** 2 / L[..., 1] + R[..., 0] ** 2 / R[..., 1]
             - P[..., 0] ** 2 / P[..., 1])
    return np.where(np.isfinite(g), g, -np.inf)


def udt_gain(phi):
    """Drop of Σ_leaves W_k (−φ(p_k)) (columns W⁺, W⁻, count), eq. (104)-(106)."""
    def gain(L, R, P):
        def impurity(S):
            W = S[..., 0] + S[..., 1]
            with np.errstate(divide="ignore", invalid="ignore"):
                p = np.where(W > 0, S[..., 0] / W, 0.5)
            return W * (-phi(np.clip(p, 0.0, 1.0)))
        return impurity(P) - impurity(L) - impurity(R)
    return gain


def grow_tree(binned: BinnedDesign, stats: np.ndarray, gain_fn, depth: int,
              min_leaf=1.0, min_gain: float = 1e-12, leaf_col=-1,
              root_last: np.ndarray | None = None):
    """Grow a tree of depth ≤ ``depth`` level by level.

    Parameters
    ----------
    binned : BinnedDesign
    stats : (n, k) array
        Per-row statistics summed in histograms; column ``leaf_col`` is the
        mass that ``min_leaf`` bounds below in each child (both may be
        sequences, one bound per column).
    gain_fn : callable (L, R, P) -> gain
        Split criterion on summed statistics of the left/right child and parent
        (arrays whose last axis holds the k statistics; it must broadcast over
        leading axes: the nodes of a level are searched together).
    depth : int ≥ 1
    min_leaf : float
        Least total weight in a child.
    min_gain : float
        A split must gain more than ``min_gain`` × the Σ of the absolute
        root-histogram entries of the first design column (every statistic).
    root_last : (total bins,) array, optional
        The root histogram of the last statistic, when the caller knows it (a
        column that is the same every boosting round: the row weights); then
        the root sums the others only.

    Returns
    -------
    (WeakTree, node)
        The tree (values unset) and the heap index of each training row's leaf.

    Histograms are float64 sums in increasing row order, built by compiled
    kernels (:mod:`ubreg.trees.histograms`) over the rows of the smaller child
    of each split; the larger child's is the parent's minus it.  Ties (gains
    within :data:`TIE_RTOL` of the best) go to the first column, then to the
    smallest threshold; a NaN gain is no candidate.
    """
    tree, node, _ = _grow(binned, stats, gain_fn, depth, min_leaf, min_gain, leaf_col, root_last,
                          leaf_sums=False)
    return tree, node


def _grow(binned, stats, gain_fn, depth, min_leaf, min_gain, leaf_col, root_last, leaf_sums,
          workspace=None):
    """:func:`grow_tree`, and with ``leaf_sums`` the Σ of the first two statistics
    over each leaf's rows (G, H per heap node, in increasing row order).  The node
    returned is the workspace's (:func:`tree_workspace`) when one is given."""
    from . import _level_kernels as lk

    stats = np.ascontiguousarray(stats, dtype=np.float64)
    n, k = stats.shape
    size = 2 ** (depth + 1) - 1
    tree = WeakTree.heap(depth)
    rows = _Segments(n) if workspace is None else workspace.reset()
    if binned.candidates()[0].size == 0 or n == 0:
        return (tree,) + _leaves(binned, rows, [], stats, size, leaf_sums)
    feats = np.flatnonzero(binned.nbins > 1)
    H = np.zeros((1, binned.total_bins, k))
    if root_last is None:
        lk.histogram_all(binned.codes, feats, binned.offsets, binned.nbins, stats, H[0])
    else:
        lk.histogram_all(binned.codes, feats, binned.offsets, binned.nbins, stats,
                         H[0, :, :k - 1])
        H[0, :, k - 1] = root_last
    threshold = min_gain * _gain_scale(H[0], binned.offsets, binned.nbins, feats)
    search = _SplitSearch(binned, feats, gain_fn, k, leaf_col, min_leaf)
    last_splits: list = []                  # the splits of the last level (not partitioned)

    def split_node(H, a, nd, f, kcut, last):
        """Partition the node's segment into its children's (on the last level the rows
        are not reordered: its leaves are found with the leaves' sums)."""
        start, end = rows.seg.pop(nd)
        if last:
            last_splits.append((start, end, f, kcut, nd))
            return None
        mid = lk.partition(binned.codes, rows.order, rows.node, start, end, f, kcut, nd,
                           rows.buf)
        rows.seg[2 * nd + 1], rows.seg[2 * nd + 2] = (start, mid), (mid, end)
        return (a, nd, start, mid, end)

    grow_level_wise(tree, depth, binned, H, search, threshold, split_node=split_node,
                    children=lambda H, split, level: _child_histograms(
                        binned, feats, stats, rows.order, H, split))
    out = _leaves(binned, rows, last_splits, stats, size, leaf_sums)
    return (on_design(tree, binned, out[0]),) + out


def _grow_newton(binned, stats, depth, min_leaf, leaf_col, root_last, workspace):
    """:func:`_grow` with the Newton criterion, and the leaves' values −G/H (0 where
    H = 0): (tree, node, (G, H)).  Its levels run in one compiled call
    (:func:`ubreg.trees._newton_grower.grow_newton`: the same kernels, so the
    same trees)."""
    from ..numerics.parallel import parts, run_driver
    from . import _level_kernels as lk
    from ._newton_grower import grow_newton, grow_newton_serial

    stats = np.ascontiguousarray(stats, dtype=np.float64)
    n, k = stats.shape
    if binned.candidates()[0].size == 0 or n == 0:
        tree, node, (G, H) = _grow(binned, stats, newton_gain, depth, min_leaf, MIN_GAIN,
                                   leaf_col, root_last, leaf_sums=True, workspace=workspace)
        with np.errstate(divide="ignore", invalid="ignore"):
            tree.value = np.where(H > 0, -G / H, 0.0)
        return tree, node, (G, H)
    rows = _Segments(n) if workspace is None else workspace.reset()
    setup = rows.setup(binned, k, leaf_col, min_leaf)
    feats, search = setup.feats, setup.search
    H0 = np.zeros((1, binned.total_bins, k))
    lk.histogram_all(binned.codes, feats, binned.offsets, binned.nbins, stats,
                     H0[0] if root_last is None else H0[0, :, :k - 1])
    if root_last is not None:
        H0[0, :, k - 1] = root_last
    threshold = MIN_GAIN * _gain_scale(H0[0], binned.offsets, binned.nbins, feats)
    args = (binned.codes, feats, binned.offsets, binned.nbins, search.first, setup.col,
            setup.kk, stats, H0, float(threshold), int(depth), search.lc_arr, search.ml_arr,
            TIE_RTOL, rows.order, rows.buf, rows.node, rows.node_stale, setup.limits,
            setup.tie_last)
    if parts() <= 1 or _below_parallel_limits(setup.limits, n, feats.size):
        feature, kcut, gain, G, H, value = grow_newton_serial(*args, False, 1)
    else:
        feature, kcut, gain, G, H, value = run_driver(grow_newton, *args)
    cut = np.zeros(feature.size)
    for i in np.flatnonzero(feature >= 0):
        cut[i] = binned.cuts[feature[i]][kcut[i]]
    tree = WeakTree.from_heap(feature, cut, gain, value)
    return on_design(tree, binned, rows.node), rows.node, (G, H)


def _below_parallel_limits(limits, rows: int, nfeats: int) -> bool:
    """Whether a tree is small enough for :func:`grow_newton_serial`: fewer rows than the
    rows' limit and a histogram of all rows below the cells' limit, so that no
    partition, histogram or leaf-sum kernel would split.  The split search may still
    have split (a level's candidates past their limit), for little: at most 2^(depth−1)
    × cells candidates, a fraction of a millisecond; the twins give the same numbers."""
    cells_min, rows_min = int(limits[0]), int(limits[1])
    return rows < rows_min and rows * nfeats < cells_min


def on_design(tree: WeakTree, binned: BinnedDesign, node: np.ndarray) -> WeakTree:
    """``tree``, grown on the binned columns, on the design's: each split's design
    column and the side its missing values go (``WeakTree.nan_left``), the training rows'
    leaves ``node`` read.

    A split on a column with NaN in training sends them the way it learned (the
    binned copy it was found on, :mod:`ubreg.trees.binning`); on a column without,
    to the child of more training rows, the right one on a tie (HistGradientBoosting's
    rule: ``grower.py``, ``missing_go_to_left = n_left > n_right``).
    """
    size = tree.feature.size
    return on_design_counts(tree, binned, np.bincount(node, minlength=size)[:size])


def on_design_counts(tree: WeakTree, binned: BinnedDesign, leaf_rows: np.ndarray) -> WeakTree:
    """:func:`on_design` from the training rows that end in each heap node
    (``leaf_rows``, (nodes,) counts; a Dask fit sums them over its partitions).
    ``tree.feature`` is rewritten in place."""
    f = tree.feature
    split = np.flatnonzero(f >= 0)
    nan_left = np.zeros(f.size, dtype=bool)
    if split.size:
        rows = _node_rows(tree, np.array(leaf_rows, dtype=np.int64))
        nan_left[split] = rows[tree.left[split]] > rows[tree.right[split]]
        if binned.source is not None and binned.has_nan is not None \
                and binned.nan_left is not None:
            cols = f[split]
            learned = binned.has_nan[binned.source[cols]]
            nan_left[split] = np.where(learned, binned.nan_left[cols], nan_left[split])
            f[split] = binned.source[cols]
    tree.nan_left = nan_left
    return tree


def _node_rows(tree: WeakTree, rows: np.ndarray) -> np.ndarray:
    """The training rows of every node, from the rows ending in each (summed
    into their parents in place)."""
    for inner in reversed(tree.levels()):     # each level's children summed into their parents
        rows[inner] += rows[tree.left[inner]] + rows[tree.right[inner]]
    return rows


class _GrowerSetup:
    """What the compiled grower needs of a binned design and the leaf bounds,
    formed once for the trees of a boosting fit (:meth:`_Segments.setup`)."""

    def __init__(self, binned, k, leaf_col, min_leaf):
        from . import _level_kernels as lk
        self.feats = np.flatnonzero(binned.nbins > 1)
        self.search = _SplitSearch(binned, self.feats, newton_gain, k, leaf_col, min_leaf)
        _, self.col, self.kk = binned.candidates()
        self.limits = np.array([lk._PARALLEL_CELLS, lk._PARALLEL_ROWS,
                                lk._PARALLEL_CANDIDATES], dtype=np.int64)
        self.tie_last = _tie_last(binned)


def _tie_last(binned) -> np.ndarray:
    """The binned columns whose split moves to the last of its ties: the copies with
    the NaN bin first (:func:`ubreg.trees._newton_grower.last_of_ties`)."""
    if binned.nan_left is None:
        return np.zeros(binned.d, dtype=np.uint8)
    return binned.nan_left.astype(np.uint8)


def _leaves(binned, rows, last_splits, stats, size, leaf_sums):
    """(node, (G, H) or None): the leaf of each row (set by the partitions, and
    here for the splits of the last level), with the leaves' sums."""
    from . import _level_kernels as lk

    if 0 in rows.seg and rows.node_stale:     # the root is a leaf: every row's node is 0
        rows.node[:] = 0
    if last_splits:
        lo, hi, feat, kcut, heap = (np.array(c, dtype=np.intp) for c in zip(*last_splits))
        lk.route(binned.codes, rows.order, lo, hi, feat, kcut, heap, rows.node)
    if not leaf_sums:
        return rows.node, None
    tasks = [(lo, hi, -1, 0, nd) for nd, (lo, hi) in rows.seg.items()] + last_splits
    lo, hi, feat, kcut, heap = (np.array(c, dtype=np.intp) for c in zip(*tasks))
    G, H = np.zeros(size), np.zeros(size)
    lk.leaf_sums(binned.codes, rows.order, lo, hi, feat, kcut, heap, stats, G, H)
    return rows.node, (G, H)


#: grow_tree's default ``min_gain``
MIN_GAIN = 1e-12


def newton_split_search(binned: BinnedDesign, k: int, min_child_weight: float,
                        min_samples_leaf: float | None = None):
    """The split search of :func:`fit_newton_tree` for histograms summed elsewhere
    (the partitions of a Dask frame): a callable ``H -> (candidate, gain)`` per node
    (a row of H, (nodes, total bins, k)), with the leaf bounds of
    :func:`fit_newton_tree` (``k`` = 3: the row weight bounds the leaf size too)."""
    feats = np.flatnonzero(binned.nbins > 1)
    if k == 3:
        return _SplitSearch(binned, feats, newton_gain, k, (1, 2),
                            (min_child_weight, min_samples_leaf))
    return _SplitSearch(binned, feats, newton_gain, k, 1, min_child_weight)


def min_gain_threshold(H0: np.ndarray, binned: BinnedDesign, min_gain: float = MIN_GAIN) -> float:
    """The least gain of a split in :func:`grow_tree`, from the root's histogram ``H0``."""
    feats = np.flatnonzero(binned.nbins > 1)
    return min_gain * _gain_scale(H0, binned.offsets, binned.nbins, feats)


def _gain_scale(H0, offsets, nbins, feats):
    """Σ of the absolute root-histogram entries of the first design column (its
    totals when it has one bin), the unit of ``min_gain``; 1 when it is 0."""
    if nbins[0] > 1:
        scale = float(np.abs(H0[offsets[0]:offsets[1]]).sum())
    else:                                   # a one-bin first column holds the totals
        scale = float(np.abs(_total(H0, offsets, feats)).sum())
    return scale or 1.0


class _SplitSearch:
    """The best split candidate of every node of a level (a row of H each).

    Candidates are scored by ``gain_fn`` on the left sums L (bins ≤ the cut),
    the right sums R = P − L and the node totals P; a child holding less than
    ``min_leaf`` of statistic ``leaf_col`` (each may be a sequence) is no
    candidate, nor is a NaN gain.  The Newton criterion runs as one compiled
    pass (``_level_kernels.newton_split``, the same arithmetic in the same order), any
    other criterion in numpy.
    """

    def __init__(self, binned, feats, gain_fn, k, leaf_col, min_leaf):
        self.binned, self.feats, self.gain_fn = binned, feats, gain_fn
        self.ncand = binned.candidates()[0].size
        self.lc = np.atleast_1d(leaf_col)
        self.ml = np.broadcast_to(np.asarray(min_leaf, dtype=np.float64), self.lc.shape)
        self.newton = gain_fn is newton_gain and k >= 2
        if self.newton:
            # fresh writable arrays: one compiled signature whatever the caller passed
            self.lc_arr = np.array(self.lc % k, dtype=np.intp)
            self.ml_arr = np.array(self.ml, dtype=np.float64)
            ncut = np.asarray(binned.nbins, dtype=np.intp)[feats] - 1
            self.first = np.concatenate([[0], np.cumsum(ncut)[:-1]]).astype(np.intp)

    def __call__(self, H):
        """(candidate, gain) of each node of H (gain −inf: no candidate)."""
        from . import _level_kernels, histograms
        b = self.binned
        if self.newton:
            # the ties as the compiled grower breaks them (grow_newton's tie_last)
            best, gain = _level_kernels.newton_split(H, b.offsets, b.nbins, self.feats,
                                                     self.first, self.ncand, self.lc_arr,
                                                     self.ml_arr, TIE_RTOL)
            return _last_of_ties(b, H, best), gain
        L, P = histograms.left_sums(H, b.offsets, b.nbins, self.feats, self.ncand)
        P = P[:, None, :]
        R = P - L
        g = self.gain_fn(L, R, P)
        lc, ml = self.lc, self.ml
        ok = np.all((L[..., lc] >= ml) & (R[..., lc] >= ml), axis=-1)
        best, gain = _first_best(np.where(ok & ~np.isnan(g), g, -np.inf))
        return _last_of_ties(b, H, best), gain


def _last_of_ties(binned, H, best):
    """``best`` with the candidates on the copies of columns with their NaN bin first
    moved to the last of their ties (:func:`ubreg.trees._newton_grower.last_of_ties`)."""
    if binned.nan_left is None:
        return best
    from ._newton_grower import last_of_ties
    _, col, kk = binned.candidates()
    best = best.copy()
    for a, c in enumerate(best):
        f = int(col[c])
        if binned.nan_left[f]:
            best[a] = c + last_of_ties(H[a], int(binned.offsets[f]), int(binned.nbins[f]),
                                       int(kk[c])) - int(kk[c])
    return best


class _Segments:
    """The training rows of the open nodes: node i's rows are ``order[start:end]``
    for ``(start, end) = seg[i]``, in increasing row order; ``node`` the node of
    each row."""

    def __init__(self, n):
        self.n = n
        idx = np.int32 if n < 2**31 else np.intp     # 4-byte indices: less to read
        self.order = np.arange(n, dtype=idx)
        self.buf = np.empty(n, dtype=idx)
        self.node = np.zeros(n, dtype=np.int32)      # the heap index of each row's node
        self.node_stale = False                       # node still holds an older tree's
        self.seg = {0: (0, n)}

    def setup(self, binned, k, leaf_col, min_leaf) -> _GrowerSetup:
        """The grower's setup for these arguments, kept for the next trees."""
        from . import _level_kernels as lk
        key = (k, str(leaf_col), str(min_leaf), lk._PARALLEL_CELLS, lk._PARALLEL_ROWS,
               lk._PARALLEL_CANDIDATES)
        cached = getattr(self, "_setup", None)
        if cached is None or cached[0] is not binned or cached[1] != key:
            self._setup = (binned, key, _GrowerSetup(binned, k, leaf_col, min_leaf))
        return self._setup[2]

    def reset(self) -> _Segments:
        """The state of a new tree, in the same arrays (a boosting fit grows
        hundreds of trees: fresh arrays each time cost page faults).  ``node`` is
        set by the root's partition, or zeroed by :func:`_leaves` when the root
        is not split."""
        if not hasattr(self, "identity"):
            self.identity = np.arange(self.n, dtype=self.order.dtype)
        np.copyto(self.order, self.identity)
        self.node_stale = True
        self.seg = {0: (0, self.n)}
        return self


def _child_histograms(binned, feats, stats, order, H, split):
    """The histograms of the children of the ``split`` nodes, and their heap
    indices: the smaller child's from its rows, its sibling's by subtraction
    from the parent's."""
    from . import _level_kernels as lk

    child = np.zeros((2 * len(split), binned.total_bins, stats.shape[1]))
    active, lo, hi, smalls, bigs = [], [], [], [], []
    for i, (a, nd, start, mid, end) in enumerate(split):
        left_small = mid - start <= end - mid
        small, big = (2 * i, 2 * i + 1) if left_small else (2 * i + 1, 2 * i)
        lo.append(start if left_small else mid)
        hi.append(mid if left_small else end)
        smalls.append(small)
        bigs.append((a, big))
        active += [2 * nd + 1, 2 * nd + 2]
    lk.histogram_segments(binned.codes, feats, binned.offsets, binned.nbins, stats, order,
                          np.array(lo, dtype=np.intp), np.array(hi, dtype=np.intp),
                          np.array(smalls, dtype=np.intp), child)
    for (a, big), small in zip(bigs, smalls):
        np.subtract(H[a], child[small], out=child[big])
    return child, active

def fit_leaf_tree(binned: BinnedDesign, v, y, w, phi, depth: int, min_leaf=1.0):
    """ULS's tree learner: a UDT tree on the boosting weights, its leaves the features.

    The split criterion is the drop of Σ_leaves W_k(−φ(p_k)) (docs/math.md §5)
    with W_k^± the leaf's positive and negative parts of the signed weights
    ``v`` = wᵢ ωᵢ y*ᵢ on rows of class ±1 (``y`` 0/1), ``min_leaf`` bounds
    the frequency weight ``w`` of a child.

    Returns
    -------
    (WeakTree, values, edge)
        The tree (no leaf values: ULS solves one coefficient per leaf), the
        (n, leaves) indicators of the training rows' leaves, and the edge of
        the best sign on each leaf, Σ_leaves |Σ_leaf vᵢ|.
    """
    pos = y == 1
    stats = np.column_stack([np.where(pos, np.maximum(v, 0.0), 0.0),
                             np.where(pos, 0.0, np.maximum(-v, 0.0)), w])
    tree, node = grow_tree(binned, stats, udt_gain(phi), depth, min_leaf=min_leaf, leaf_col=2)
    values = leaf_indicators(node, tree.leaves)
    edge = float(np.abs(values.T @ v).sum())
    return tree, values, edge


def tree_workspace(n: int) -> _Segments:
    """Arrays for growing trees on n rows, reused from tree to tree
    (``fit_newton_tree(workspace=)``)."""
    return _Segments(n)


def fit_newton_tree(binned: BinnedDesign, stats, depth: int, min_child_weight: float,
                    min_samples_leaf: float | None = None, root_weights: np.ndarray | None = None,
                    workspace: _Segments | None = None):
    """U-Boost's regression tree (docs/math.md §6): a Newton tree and its leaf values.

    ``stats`` holds per row the gradient gᵢ, the curvature hᵢ and, when
    ``min_samples_leaf`` is given, the row weight (a third column): each child
    holds a curvature ≥ ``min_child_weight`` (and a weight ≥
    ``min_samples_leaf``).  Leaves take the Newton value −Σg/Σh (sums in row
    order; 0 where Σh = 0).  ``root_weights``: the root histogram of the row
    weights (:func:`root_histogram` of the third column), which is the same
    every boosting round: given, the root sums g and h only.  ``workspace``
    (:func:`tree_workspace`): arrays reused from tree to tree; the ``node``
    returned is then its array, overwritten by the next tree.

    Returns
    -------
    (WeakTree, node)
        The tree with its leaf values and the heap index of each training
        row's leaf.
    """
    if stats.shape[1] == 3:
        # the row weight bounds the leaf size too (as HistGradientBoosting)
        tree, node, _ = _grow_newton(binned, stats, depth, (min_child_weight, min_samples_leaf),
                                     (1, 2), root_weights, workspace)
    else:
        tree, node, _ = _grow_newton(binned, stats, depth, min_child_weight, 1, None, workspace)
    return tree, node


def root_histogram(binned: BinnedDesign, values: np.ndarray) -> np.ndarray:
    """The (total bins,) sums of ``values`` over every row, by bin, as the root
    histogram of :func:`grow_tree` sums a statistic (each bin its rows in row
    order)."""
    from . import _level_kernels
    out = np.zeros((binned.total_bins, 1))
    feats = np.flatnonzero(binned.nbins > 1)
    _level_kernels.histogram_all(binned.codes, feats, binned.offsets, binned.nbins,
                        np.ascontiguousarray(values, dtype=np.float64)[:, None], out)
    return out[:, 0]


#: gains within this relative distance of the best are ties (rounding noise)
TIE_RTOL = 1e-11


def _first_best(g):
    """Per row of ``g``, the first candidate (first column, then smallest
    threshold) whose gain ties the largest one, and its gain.

    Candidates that split the rows of a node identically (aliased columns, a
    small node) or into sides of equal statistics have equal gains, but sums
    over different bins round differently: a tie is a gain within
    ``TIE_RTOL`` of the largest, so that the choice does not depend on the
    summation order (row order, sibling subtraction).
    """
    gmax = g.max(axis=1)
    fin = np.isfinite(gmax)
    thresh = np.where(fin, gmax - TIE_RTOL * np.abs(np.where(fin, gmax, 0.0)), gmax)
    best = np.argmax(g >= thresh[:, None], axis=1)
    return best, g[np.arange(g.shape[0]), best]


def _total(H, offsets, feats):
    """Totals of a node's statistics: the bins of its first splittable column."""
    f = int(feats[0])
    return H[offsets[f]:offsets[f + 1]].sum(axis=0)
