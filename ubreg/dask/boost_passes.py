"""The passes U-Boost on a Dask frame makes, on two classes and on K > 2.

The data side: the setup pass, bin_design's cuts over the partitions and the
partitions coded in blocks kept in worker memory (:func:`first_pass_setup`).  The
client side: :class:`Rounds` grows one Newton tree level by level from the summed
histograms of the partitions, one pass a level (the smaller child summed, its sibling
the parent's minus it).  :mod:`ubreg.dask.uboost` and :mod:`ubreg.dask.uboost_multiclass`
give the statistics each pass sums.

Missing predictors (NaN in the design) are binned as bin_design bins them: the cuts
of a column come from its values, its NaN rows get a bin of their own after the last,
and a column with NaN in any row is coded a second time with the NaN bin first
(:func:`ubreg.trees.binning.mirrors`), so every split search tries both
directions.  The trees are grown on the binned columns; the partitions count the
training rows of every tree's leaves as they add the tree to F
(:func:`ubreg.trees.codes.advance_F`), and from those summed by the final pass
:func:`on_design` sets each split's design column and missing-value direction as
the in-memory fit does.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import DataError
from ..numerics.scratch import scratch
from ..trees.binning import BinnedDesign, mirrors
from ..trees.heap_builder import grow_level_wise
from ..trees.shallow import min_gain_threshold, newton_split_search, on_design_counts
from ..trees.weak_tree import WeakTree
from .frame import _workers_memory
from .quantiles import distributed_cuts, first_pass, gather
from .reduce import combine, reduce_sums

__all__ = ["CodedRows", "Rounds", "first_pass_setup", "leaf_bounds", "node_histograms",
           "on_design", "design_gains", "BLOCK_ROWS"]

#: the boosting passes read the partitions' codes in blocks of up to this many rows
#: (consecutive partitions coded together): fewer, larger tasks a pass
BLOCK_ROWS = 1_048_576


def _positive(part, columns=None, nan_rows=None) -> list:
    """The values (not NaN) of the design columns ``columns`` (all: None) in a packed
    partition's rows of positive weight, float64: each read from its packed group, so
    a pass of the cuts that needs the continuous columns only never unpacks the others.
    ``nan_rows`` (all columns) gets each column's NaN count over every row, as
    bin_design marks a column with NaN in any row."""
    _, w = part.y_w()
    keep = None if bool(np.all(w > 0)) else w > 0
    out = []
    for j in range(part.n_columns) if columns is None else columns:
        x = part.column(j)
        nan = np.isnan(x)
        if nan_rows is not None:
            nan_rows[j] = np.count_nonzero(nan)
        use = ~nan if keep is None else keep & ~nan
        out.append(x if use.all() else x[use])
    return out


def _setup(part, max_bins: int) -> tuple[dict, list]:
    """The counts of the setup (NaN rows per design column too), and the first pass
    of the cuts."""
    y, w = part.y_w()
    nan_rows = np.zeros(part.n_columns, dtype=np.int64)
    first = first_pass(part, lambda p: _positive(p, None, nan_rows), max_bins)
    setup = {"n_input": part.n_input, "n_dropped": part.n_dropped,
             "na_counts": part.na_counts, "n_used": len(y),
             "wmax": float(w.max(initial=0.0)), "n_positive": int(np.count_nonzero(w)),
             "pos1": int(np.sum((w > 0) & (y == 1))), "pos0": int(np.sum((w > 0) & (y == 0))),
             "nan_rows": nan_rows}
    return setup, first


class CodedRows:
    """A partition's codes (d, n), y (0/1, or class codes, as int8) and the scaled weights."""

    def __init__(self, codes, y, w):
        self.codes, self.y, self.w = codes, y, w


def _encode(parts: list, cuts: list, dtype, e: int, has_nan: np.ndarray) -> CodedRows:
    """The codes, y and scaled weights of consecutive partitions, one after the other.
    ``cuts`` are the design columns' (a column with NaN, ``has_nan``: its values' cuts
    then ``inf``, its NaN rows coded after the last bin) followed by those of the
    copies of the columns with NaN (:func:`ubreg.trees.binning.mirrors`)."""
    from ..trees.codes import search_codes
    p = has_nan.size
    codes = np.empty((p, sum(part.n for part in parts)), dtype=dtype)
    ys, ws = [], []
    start = 0
    for part in parts:
        y, w = part.y_w()
        stop = start + len(y)
        for j, c in enumerate(cuts[:p]):   # np.searchsorted(c, x_j, side="left"), compiled
            x, out = part.column(j), codes[j, start:stop]
            c = np.asarray(c, dtype=np.float64)
            # a column with NaN: searched among its values' cuts (finite: the compiled
            # search's grid), its NaN rows then coded after the last bin
            search_codes(c[:-1] if has_nan[j] else c, x, out)
            if has_nan[j]:
                out[np.isnan(x)] = c.size
        ys.append(y.astype(np.int8 if y.max(initial=0) < 128 else np.int16))   # 0/1, class codes
        ws.append(np.ldexp(w, -e))
        start = stop
    if has_nan.any():
        codes = mirrors(codes, list(cuts[:p]), np.flatnonzero(has_nan))[0]
    return CodedRows(codes, np.concatenate(ys), np.concatenate(ws))


def _blocks(rows: list, workers: int) -> list:
    """Consecutive partitions grouped into blocks of at most :data:`BLOCK_ROWS` rows,
    and of at most a quarter of a worker's share of the rows, so that every worker
    gets blocks enough to share the passes (a larger partition is a block of its own)."""
    target = max(1, min(BLOCK_ROWS, sum(rows) // (4 * max(workers, 1))))
    blocks: list = []
    size = 0
    for i, r in enumerate(rows):
        if blocks and size + r <= target:
            blocks[-1].append(i)
            size += r
        else:
            blocks.append([i])
            size = r
    return blocks


def _coded(parts, max_bins: int, e: int, first: list, rows: list,
           nan_rows: np.ndarray) -> tuple[list, BinnedDesign]:
    """bin_design's cuts over the partitions (``first``: their first pass, done
    with the setup; ``nan_rows``: the NaN rows of each design column), and the
    partitions coded in blocks (persisted)."""
    import dask
    from dask import delayed

    p = len(parts.design.column_names)
    cuts, _ = distributed_cuts(parts.frames, _positive, p, max_bins, first=first)
    has_nan = np.asarray(nan_rows) > 0
    cuts = [np.append(c, np.inf) if has_nan[j] else c for j, c in enumerate(cuts)]
    source = nan_left = None
    if has_nan.any():
        _, cuts, source, nan_left = mirrors(np.zeros((p, 0), dtype=np.uint16), cuts,
                                            np.flatnonzero(has_nan))
    nbins = np.array([c.size + 1 for c in cuts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(nbins)])
    dtype = np.uint8 if nbins.max(initial=1) <= 256 else np.uint16
    coded = list(dask.persist(*[delayed(_encode)([parts.frames[i] for i in block], cuts, dtype, e,
                                                 has_nan)
                                for block in _blocks(rows, _workers_memory()[0])]))
    binned = BinnedDesign(np.zeros((len(cuts), 0), dtype=dtype), cuts, nbins, offsets,
                          source=source, nan_left=nan_left,
                          has_nan=has_nan if source is not None else None)
    return coded, binned


def leaf_bounds(weight_kind, wsum, n_positive, e, min_child_weight, min_samples_leaf):
    """The leaf bounds on the scaled weights (scale ``2**-e``).  Prior weights are relative:
    the bounds count average rows, as the in-memory fit divides the weights by their mean
    (ubreg.numerics.weights); frequency weights count rows."""
    unit = float(np.ldexp(wsum, e)) / n_positive if weight_kind == "prior" else 1.0
    return (float(np.ldexp(min_child_weight * unit, -e)),
            float(np.ldexp(min_samples_leaf * unit, -e)))


def first_pass_setup(parts, max_bins: int) -> tuple[dict, list, BinnedDesign, int]:
    """The setup pass (counts, the first pass of the cuts), the binary exponent e of the
    largest weight (boost_u's scaling of the weights) and the partitions coded in blocks."""
    pieces = gather(parts.frames, _setup, max_bins)
    setup = combine([piece[0] for piece in pieces])
    if setup["n_used"] == 0:
        raise DataError(f"no rows left after removing missing values: all {setup['n_input']} "
                        "rows have NA in a variable of the formula")
    e = int(np.frexp(setup["wmax"])[1])
    coded, binned = _coded(parts, max_bins, e, [piece[1] for piece in pieces],
                           [piece[0]["n_used"] for piece in pieces], setup.pop("nan_rows"))
    return setup, coded, binned, e


def node_histograms(codes, stats, feature, kcut, slots, feats, offsets, n_stats: int):
    """(nodes, bins, n_stats) sums of the first n_stats ``stats`` of the rows (columns of
    ``codes``) that reach each node of ``slots`` (heap index → row of the result, −1
    elsewhere) in the heap tree ``feature``/``kcut``: each row walks the tree once, the
    rows are grouped by node and every bin adds its rows in row order."""
    from ..trees.codes import heap_slots
    from ..trees.histograms import grouped_histograms_into
    S = int(slots.max(initial=-1)) + 1
    out = np.zeros((S, int(offsets[-1]), n_stats))
    n = codes.shape[1]
    slot = scratch("slot", n, np.int64)
    heap_slots(codes, np.asarray(feature, dtype=np.int64), np.asarray(kcut, dtype=np.int64),
               np.asarray(slots, dtype=np.int64), slot)
    grouped_histograms_into(codes, feats, np.asarray(offsets, dtype=np.int64), slot, S, stats,
                            out, scratch("rows", n, np.int64), scratch("gathered", n * n_stats))
    return out


def on_design(trees: list, binned: BinnedDesign, rows: np.ndarray) -> None:
    """Each tree, grown on the binned columns, on the design's (in place): split
    columns and missing-value directions from the training rows of its leaves
    ``rows`` ((trees, nodes), summed over the partitions), as the in-memory fit's
    :func:`~ubreg.trees.shallow.on_design` sets them."""
    for tree, counts in zip(trees, rows):
        on_design_counts(tree, binned, counts)


def design_gains(tree: WeakTree, binned: BinnedDesign, p: int) -> np.ndarray:
    """The split gains of ``tree`` (grown on the binned columns) by design column,
    as the in-memory fit sums them on its tree's design columns."""
    f = tree.feature
    if binned.source is not None:
        f = np.where(f >= 0, binned.source[np.maximum(f, 0)], -1)
    return replace(tree, feature=f).split_gains_by_column(p)


class Rounds:
    """The client's side of the boosting iterations over persisted states."""

    def __init__(self, binned, nu, depth, bounds, leaf_rows, histograms_of, *extra):
        self.binned, self.nu = binned, nu
        #: a partition's histograms: ``histograms_of(state, *extra, feature, kcut, slots,
        #: feats, offsets, with_risk, n_stats)``
        self.histograms_of, self.extra = histograms_of, extra
        self.depth, self.leaf_rows = depth, leaf_rows
        self.k = 3 if leaf_rows else 2
        self.search = newton_split_search(binned, self.k, *bounds)
        self.feats = np.flatnonzero(binned.nbins > 1).astype(np.int64)
        self.passes = 0
        self.root_rows: np.ndarray | None = None   # the rows column of the root's histogram

    def histograms(self, states, tree, kcut, nodes, with_risk=False, rows=True) -> dict:
        """The histograms of ``nodes`` (with the rows column unless ``rows=False``)."""
        slots = np.full(tree.feature.size, -1, dtype=np.int64)
        slots[nodes] = np.arange(len(nodes))
        self.passes += 1
        return reduce_sums(states, self.histograms_of, *self.extra, tree.feature, kcut, slots,
                           self.feats, self.binned.offsets, with_risk,
                           self.k + (1 if rows else 0))

    def tree(self, states) -> tuple[WeakTree, np.ndarray, float]:
        """One Newton tree (grow_tree's levels on summed histograms), its code cuts
        and the U-risk of the states' F."""
        d, b = self.depth, self.binned
        size = 2 ** (d + 1) - 1
        tree = WeakTree.heap(d)
        kcut = np.zeros(size, dtype=np.int64)
        sums = np.zeros((size, self.k + 1))
        H, risk = self._root(states, tree, kcut)
        if self.search.ncand == 0:
            sums[0] = H[0, b.offsets[0]:b.offsets[1]].sum(axis=0)
            return self._valued(tree, sums), kcut, risk
        threshold = min_gain_threshold(np.ascontiguousarray(H[0, :, :self.k]), b)
        f0 = int(self.feats[0])

        def total(H, a):
            return H[a, b.offsets[f0]:b.offsets[f0 + 1]].sum(axis=0)

        def leaf(H, a, nd):
            sums[nd] = total(H, a)

        def split_node(H, a, nd, f, kc, last):
            kcut[nd] = kc
            t = total(H, a)
            left = H[a, b.offsets[f]:b.offsets[f] + kc + 1].sum(axis=0)
            sums[2 * nd + 1], sums[2 * nd + 2] = left, t - left
            return (a, nd, left[-1] <= t[-1] - left[-1])

        # the rows say which child is the smaller, for the level after the next
        grow_level_wise(tree, d, b, H, lambda H: self.search(np.ascontiguousarray(H[..., :self.k])),
                        threshold, split_node=split_node, leaf=leaf,
                        children=lambda H, split, level: self._children(
                            states, tree, kcut, H, split, rows=level + 2 < d))
        return self._valued(tree, sums), kcut, risk

    def _root(self, states, tree, kcut) -> tuple[np.ndarray, float]:
        """The root's histogram and the U-risk.  Its rows column (row counts by bin,
        exact) is the same at every iteration: summed by the first pass only."""
        got = self.histograms(states, tree, kcut, [0], with_risk=True,
                              rows=self.root_rows is None)
        H = got["H"]
        if self.root_rows is None:
            self.root_rows = H[0, :, -1].copy()
        else:
            H = np.concatenate([H, self.root_rows[None, :, None]], axis=2)
        return H, float(got["risk"])

    def _children(self, states, tree, kcut, H, split, rows=True):
        """The children's histograms: the smaller child's summed by the partitions,
        its sibling's the parent's minus it (grow_tree's rule: left when equal).
        ``rows=False`` (the last level): the rows column is not summed (left 0)."""
        small = [2 * nd + (1 if left_small else 2) for _, nd, left_small in split]
        Hs = self.histograms(states, tree, kcut, small, rows=rows)["H"]
        child = np.zeros((2 * len(split),) + H.shape[1:])
        active = []
        q = Hs.shape[2]
        for i, (a, nd, left_small) in enumerate(split):
            s, g = (2 * i, 2 * i + 1) if left_small else (2 * i + 1, 2 * i)
            child[s, :, :q] = Hs[i]
            np.subtract(H[a, :, :q], Hs[i], out=child[g, :, :q])
            active += [2 * nd + 1, 2 * nd + 2]
        return child, active

    @staticmethod
    def _valued(tree: WeakTree, sums: np.ndarray) -> WeakTree:
        G, Hh = sums[:, 0], sums[:, 1]
        leaf = np.zeros(tree.feature.size, dtype=bool)
        leaf[tree.leaves] = True
        with np.errstate(divide="ignore", invalid="ignore"):
            tree.value = np.where(leaf & (Hh > 0), -G / Hh, 0.0)
        return tree
