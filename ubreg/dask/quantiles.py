"""The cut points of :func:`ubreg.trees.binning.bin_design`, computed over partitions.

In memory a column's cuts come from its sorted values: the midpoints between
consecutive distinct values when there are at most ``max_bins`` of them, else
the lower quantiles ``xs[⌊(N − 1) q⌋]`` (q = 1/max_bins, ..., 1 − 1/max_bins)
snapped to the midpoint between each and the next distinct value.  Here the
same numbers come from at most three passes, none of which brings the rows to
the client:

1. every partition returns, per column, its distinct values (when there are
   few), its row count and an evenly spaced sample of its sorted values; when
   the union of the distinct values is small, the cuts follow at once;
2. the pooled samples give pivots (up to :data:`PIVOTS` per column); every
   partition counts its values between consecutive pivots, so the client
   knows which interval holds each wanted order statistic, and its rank there;
3. every partition returns the distinct values (with their counts) of those
   intervals only, and the smallest value above each; the client reads off
   the order statistics and the next distinct values.

The quantiles are exact (not a sketch): the cuts are bin_design's, bit for bit
(``0.5 * (a + b)`` of the same two numbers), so a binned fit of a Dask frame
and of the same data in memory see the same bins.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["distributed_cuts", "distinct_values", "first_pass", "gather", "PIVOTS", "SAMPLE"]

#: pivots per column in the second pass (intervals of about N / PIVOTS values)
PIVOTS = 16384
#: sorted values each partition contributes to the pivots, per column
SAMPLE = 4096


def _first(part, extract: Callable, cap: int) -> list:
    """Per column: (distinct values or None when more than ``cap``, count, sample)."""
    out = []
    for x in extract(part):
        xs = np.sort(x)
        distinct = None
        if xs.size:
            new = np.empty(xs.size, dtype=bool)
            new[0] = True
            np.not_equal(xs[1:], xs[:-1], out=new[1:])
            if int(new.sum()) <= cap:
                distinct = xs[new]
        else:
            distinct = xs
        take = np.unique(np.linspace(0, max(xs.size - 1, 0), min(xs.size, SAMPLE)).astype(np.intp))
        out.append((distinct, xs.size, xs[take] if xs.size else xs))
    return out


def first_pass(part, extract: Callable, cap: int) -> list:
    """The first pass of :func:`distributed_cuts` over one partition (to do it
    together with another pass: ``first=``)."""
    return _first(part, extract, cap)


def gather(frames: list, func: Callable, *args) -> list:
    """``[func(frame, *args) for frame in frames]`` as one dask computation, the
    arguments sent once to each worker; the results (small) come to the client."""
    return _gather(frames, func, *args)


def _asked(part, extract: Callable, pivots: list) -> list:
    """Per column, its values when it has pivots (the columns of the later passes),
    else None: ``extract(part, columns)`` reads those columns only."""
    columns = [j for j, p in enumerate(pivots) if p is not None]
    out: list = [None] * len(pivots)
    for j, x in zip(columns, extract(part, columns)):
        out[j] = x
    return out


def _interval_counts(part, extract: Callable, pivots: list) -> list:
    """Per column, the count of values in each interval between pivots
    (interval i: pivots[i−1] ≤ x < pivots[i]); None for columns not asked.

    Counted on the sorted values (where each pivot falls among them): the
    counts of ``bincount(searchsorted(pivots, x, "right"))``, at the cost of a
    sort instead of a search of every value among the pivots.
    """
    out: list = []
    for x, p in zip(_asked(part, extract, pivots), pivots):
        if p is None:
            out.append(None)
            continue
        at = np.searchsorted(np.sort(x), p, side="left")
        out.append(np.diff(at, prepend=0, append=x.size).astype(np.int64))
    return out


def _interval_values(part, extract: Callable, pivots: list, wanted: list) -> list:
    """Per column: the distinct values of the wanted intervals and their counts,
    each concatenated over the intervals, where interval k's start (``at[k]``,
    ``at[k + 1]``), and per interval the smallest value at or above its upper
    pivot (a few arrays per column, not a few per interval: cheap to send).

    The values are sorted once; interval i is the slice of the sorted values
    from the first at or above ``pivots[i−1]`` to the first at or above
    ``pivots[i]``, and the smallest value above it the slice's next one.
    """
    out: list = []
    for x, p, intervals in zip(_asked(part, extract, pivots), pivots, wanted):
        if p is None:
            out.append(None)
            continue
        xs = np.sort(x)
        at = np.concatenate([[0], np.searchsorted(xs, p, side="left"), [xs.size]])
        wanted_i = np.asarray(intervals, dtype=np.intp)
        starts, stops = at[wanted_i], at[wanted_i + 1]
        inside = np.concatenate([xs[a:b] for a, b in zip(starts.tolist(), stops.tolist())]) \
            if wanted_i.size else xs[:0]
        seg = np.repeat(np.arange(wanted_i.size), stops - starts)
        new = np.ones(inside.size, dtype=bool)    # a new value, or a new interval
        if inside.size:
            new[1:] = (inside[1:] != inside[:-1]) | (seg[1:] != seg[:-1])
        first = np.flatnonzero(new)
        counts = np.diff(np.append(first, inside.size)).astype(np.int64)
        bounds = np.searchsorted(first, np.cumsum(stops - starts), side="left")
        above = np.where(stops < xs.size, xs[np.minimum(stops, max(xs.size - 1, 0))], np.inf) \
            if xs.size else np.full(wanted_i.size, np.inf)
        out.append((inside[first], counts, np.concatenate([[0], bounds]), above))
    return out


def _gather(frames, func, *args) -> list:
    """``func(frame, *args)`` of every partition, brought to the client (small).
    The arguments are one task of the graph (sent once to a worker, not once
    per partition: the pivots are up to 16 384 values a column)."""
    import dask
    from dask import delayed
    shared = delayed(_Args(args), traverse=False)
    return list(dask.compute(*[delayed(_call)(func, f, shared) for f in frames]))


class _Args:
    """The arguments of a pass, as one object (a tuple in a graph would be a task)."""

    def __init__(self, args: tuple):
        self.args = args


def _call(func, frame, shared: _Args):
    return func(frame, *shared.args)


def _pivots(pieces: list, j: int) -> np.ndarray:
    sample = np.unique(np.concatenate([p[j][2] for p in pieces]))
    if sample.size <= PIVOTS:
        return sample
    return np.unique(sample[np.linspace(0, sample.size - 1, PIVOTS).astype(np.intp)])


def _merged(pieces: list, j: int, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Distinct values and counts of interval k of column j over the partitions,
    and the smallest value above it."""
    values = np.concatenate([p[j][0][p[j][2][k]:p[j][2][k + 1]] for p in pieces])
    counts = np.concatenate([p[j][1][p[j][2][k]:p[j][2][k + 1]] for p in pieces])
    above = min(float(p[j][3][k]) for p in pieces)
    uniq, inv = np.unique(values, return_inverse=True)
    return uniq, np.bincount(inv, weights=counts, minlength=uniq.size).astype(np.int64), above


def distributed_cuts(frames: list, extract: Callable, n_columns: int, max_bins: int,
                     exact_cap: int | None = None, first: list | None = None
                     ) -> tuple[list, list]:
    """The cuts of every column of partitioned data, as
    :func:`~ubreg.trees.binning.column_cuts` gives them in memory.

    Parameters
    ----------
    frames : list
        Delayed (or persisted) partitions.
    extract : callable
        ``extract(partition, columns=None) -> list`` of one 1-D float64 array per
        column (of ``columns``, or every column): the values the cuts are taken
        from (rows of positive weight, no NaN).  The later passes ask for the
        columns with more distinct values than bins only.
    n_columns : int
    max_bins : int
    exact_cap : int, optional
        Also return each column's sorted distinct values when they are at most
        this many (None otherwise).
    first : list, optional
        The first pass, done already with another pass over the partitions:
        ``first_pass(partition, extract, max(max_bins, exact_cap))`` of each.

    Returns
    -------
    (cuts, distinct) : lists, one entry per column.
    """
    cap = max(max_bins, exact_cap or 0)
    if first is None:
        first = _gather(frames, _first, extract, cap)
    cuts: list = [None] * n_columns
    distinct: list = [None] * n_columns
    pivots: list = [None] * n_columns
    for j in range(n_columns):
        parts = [p[j][0] for p in first]
        if all(d is not None for d in parts):
            values = np.unique(np.concatenate(parts)) if parts else np.zeros(0)
            if values.size <= cap:
                distinct[j] = values
            if values.size <= max_bins:
                cuts[j] = (0.5 * (values[:-1] + values[1:]) if values.size > 1
                           else np.zeros(0))
                continue
        pivots[j] = _pivots(first, j)
    if all(p is None for p in pivots):
        return cuts, distinct
    counts = _gather(frames, _interval_counts, extract, pivots)
    wanted: list = [None] * n_columns
    targets: list = [None] * n_columns
    for j in range(n_columns):
        if pivots[j] is None:
            continue
        total = np.sum([c[j] for c in counts], axis=0)
        n = int(sum(p[j][1] for p in first))
        q = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
        ranks = np.floor((n - 1) * q).astype(np.intp)        # xs[⌊(n − 1) q⌋], as in memory
        cum = np.cumsum(total)
        interval = np.searchsorted(cum, ranks, side="right")
        before = np.where(interval > 0, cum[np.maximum(interval - 1, 0)], 0)
        wanted[j] = np.unique(interval)
        targets[j] = (interval, ranks - before)
    found = _gather(frames, _interval_values, extract, pivots, wanted)
    for j in range(n_columns):
        if pivots[j] is not None:
            cuts[j] = _cuts_from(found, j, wanted[j], *targets[j])
    return cuts, distinct


def _cuts_from(pieces: list, j: int, wanted: np.ndarray, interval: np.ndarray,
               rank: np.ndarray) -> np.ndarray:
    """The snapped quantile cuts of column j: ``0.5 * (L + next)`` for each distinct
    lower quantile L that has a next distinct value."""
    lower, following = [], []
    for k, i in enumerate(wanted.tolist()):
        uniq, counts, above = _merged(pieces, j, k)
        cum = np.cumsum(counts)
        for r in rank[interval == i].tolist():
            pos = int(np.searchsorted(cum, r, side="right"))
            lower.append(uniq[pos])
            following.append(uniq[pos + 1] if pos + 1 < uniq.size else above)
    lower_a, following_a = np.asarray(lower), np.asarray(following)
    lower_a, first = np.unique(lower_a, return_index=True)
    following_a = following_a[first]
    keep = np.isfinite(following_a)                   # the largest value has no cut above it
    return 0.5 * (lower_a[keep] + following_a[keep])


def distinct_values(frames: list, extract: Callable, n_columns: int, cap: int) -> list:
    """The sorted distinct values of every column over the partitions, or None for a
    column with more than ``cap`` of them (one pass)."""
    first = _gather(frames, _first, extract, cap)
    out: list = []
    for j in range(n_columns):
        parts = [p[j][0] for p in first]
        values = (np.unique(np.concatenate(parts)) if parts and all(d is not None for d in parts)
                  else None)
        out.append(values if values is not None and values.size <= cap else None)
    return out
