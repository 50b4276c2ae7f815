"""A partition's design matrix kept in worker memory at its exact values, in
the smallest dtypes that hold them (memory at 10⁷ rows).

A dummy column (0/1), the intercept and small integer scores fit in ``int8``
and any column whose values are all float32 numbers in ``float32``: storing
them so loses nothing (every value converts back to the same float64), and a
design of 20 numeric and 2 categorical predictors (34 columns, 14 of them
0/1) takes 174 instead of 272 bytes a row.  The response is kept as ``int8``
and unit weights are not stored.  The Newton passes read the design in blocks
of rows, converted back into a reused float64 buffer, so every sum is computed
in float64 from the same numbers as in memory.

A partition is also built in slices of rows (:data:`SLICE_ROWS`), so that the
temporary arrays of the design build (patsy's, the float64 matrix before
packing) are those of a slice, not of the whole partition.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..design import build_partition_frame

__all__ = ["PackedSlice", "PackedPartition", "pack", "build_packed_partition", "SLICE_ROWS",
           "BLOCK_ROWS"]

#: rows of a partition built (patsy) and packed at a time
SLICE_ROWS = 131_072
#: rows of a block unpacked into float64 for the partition-wise sums
BLOCK_ROWS = 16_384

#: candidate storage types, smallest first (float64 always holds the value)
_INTEGER_TYPES = (np.int8, np.int16)


#: rows a column is tested on first: a column of measurements fails the exactness
#: tests there, and only the columns that pass are tested whole
_SAMPLE_ROWS = 1024


def _storage_types(X: np.ndarray) -> list:
    """The smallest dtype that holds every value of each float64 column
    exactly: integer types for integral columns in their range, float32 for
    columns of float32 numbers, float64 otherwise.  Each test runs on the first
    :data:`_SAMPLE_ROWS` rows of every column, then on all the rows of the
    columns that pass it (a column of measurements fails at once)."""
    p = X.shape[1]
    if X.shape[0] == 0:
        return [np.float64] * p
    head = X[:_SAMPLE_ROWS]
    with np.errstate(invalid="ignore", over="ignore"):
        integral = np.all(np.floor(head) == head, axis=0)
        single = np.all(head.astype(np.float32) == head, axis=0)
    kinds = []
    for j in range(p):
        kind: type[np.generic] = np.float64
        if integral[j] or single[j]:
            col = np.ascontiguousarray(X[:, j])
            lo, hi = col.min(), col.max()
            with np.errstate(invalid="ignore", over="ignore"):
                if integral[j] and np.isfinite(lo) and np.isfinite(hi) \
                        and bool(np.all(np.floor(col) == col)):
                    kind = next((t for t in _INTEGER_TYPES
                                 if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max),
                                np.float32 if bool(np.all(col.astype(np.float32) == col))
                                else np.float64)
                elif single[j] and bool(np.all(col.astype(np.float32) == col)):
                    kind = np.float32
        kinds.append(kind)
    return kinds


class PackedSlice:
    """Rows of one partition: the design columns grouped by storage type.

    ``order[k]`` is the design column stored at position k of the packed
    order (the float64 group, then float32, int16, int8); ``groups`` are
    C-ordered (rows × columns) arrays.
    """

    def __init__(self, groups: list, order: np.ndarray, y: np.ndarray, w):
        self.groups = groups
        self.order = order
        self.identity = bool(np.array_equal(order, np.arange(len(order))))
        self.y = y
        self.w = w                      # None: every weight is 1
        self.n = len(y)

    @property
    def nbytes(self) -> int:
        return (sum(g.nbytes for g in self.groups) + self.y.nbytes
                + (0 if self.w is None else self.w.nbytes))

    def unpack(self, start: int, stop: int, out: np.ndarray) -> np.ndarray:
        """Rows start:stop as float64, in the packed column order, in ``out``."""
        block = out[:stop - start]
        col = 0
        for group in self.groups:
            k = group.shape[1]
            block[:, col:col + k] = group[start:stop]
            col += k
        return block

    def column(self, j: int) -> np.ndarray:
        """Design column j of the slice's rows, as float64 (read from its group)."""
        if not hasattr(self, "_where"):
            where, col = {}, 0
            for g, group in enumerate(self.groups):
                for k in range(group.shape[1]):
                    where[int(self.order[col + k])] = (g, k)
                col += group.shape[1]
            self._where = where
        g, k = self._where[j]
        return self.groups[g][:, k].astype(np.float64)

    def y_block(self, start: int, stop: int) -> np.ndarray:
        return self.y[start:stop].astype(np.float64)

    def w_block(self, start: int, stop: int):
        return None if self.w is None else self.w[start:stop]

    def colmax(self) -> np.ndarray:
        """max |x_j| per design column (design order)."""
        parts = [np.maximum(g.max(axis=0), -g.min(axis=0)).astype(np.float64) if g.shape[0]
                 else np.zeros(g.shape[1]) for g in self.groups]
        packed = np.concatenate(parts) if parts else np.zeros(0)
        out = np.empty_like(packed)
        out[self.order] = packed
        return out


def pack(X: np.ndarray, y: np.ndarray, w: np.ndarray, compact: bool = True) -> PackedSlice:
    """A :class:`PackedSlice` of float64 arrays; ``compact=False`` keeps X as
    it is (one float64 group, no copy)."""
    p = X.shape[1]
    if not compact:
        return PackedSlice([X], np.arange(p), y, w)
    kinds = _storage_types(X)
    groups, order = [], []
    for kind in (np.float64, np.float32, *reversed(_INTEGER_TYPES)):
        cols = [j for j in range(p) if kinds[j] is kind]
        if cols:
            groups.append(np.ascontiguousarray(X[:, cols]).astype(kind, copy=False))
            order += cols
    yk = y.astype(np.int8) if np.array_equal(y.astype(np.int8), y) else y
    wk = None if bool(np.all(w == 1.0)) else w
    return PackedSlice(groups, np.asarray(order, dtype=np.intp), yk, wk)


@dataclass(eq=False)
class PackedPartition:
    """The slices of one partition, with its row and NA counts."""

    slices: list
    n_columns: int
    n_input: int
    n_dropped: int
    na_counts: dict

    @property
    def n(self) -> int:
        return sum(s.n for s in self.slices)

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.slices)

    def column(self, j: int) -> np.ndarray:
        """Design column j of every row, float64 (no row is unpacked whole)."""
        if len(self.slices) == 1:
            return self.slices[0].column(j)
        return np.concatenate([s.column(j) for s in self.slices]) if self.slices \
            else np.zeros(0)

    def y_w(self) -> tuple[np.ndarray, np.ndarray]:
        """The response and the weights (1 where not stored) of every row, float64."""
        y = np.concatenate([s.y_block(0, s.n) for s in self.slices]) if self.slices \
            else np.zeros(0)
        w = np.concatenate([np.ones(s.n) if s.w is None else s.w for s in self.slices]) \
            if self.slices else np.zeros(0)
        return y, w

    def blocks(self, block_rows: int = BLOCK_ROWS):
        """(slice, start, stop) of every block of rows."""
        for piece in self.slices:
            for start in range(0, piece.n, block_rows):
                yield piece, start, min(start + block_rows, piece.n)


def build_packed_partition(parsed, design, response, frame, weights, na_action: str,
                           compact: bool = True, slice_rows: int = SLICE_ROWS) -> PackedPartition:
    """:func:`ubreg.design.build_partition_frame` of ``frame`` slice by slice,
    each slice packed (:func:`pack`)."""
    slices: list[PackedSlice] = []
    counts: dict[str, int] = {}
    n_input = n_dropped = 0
    n_columns = len(design.column_names)
    for start in range(0, max(len(frame), 1), slice_rows):
        mf = build_partition_frame(parsed, design, response, frame.iloc[start:start + slice_rows],
                                   weights, na_action)
        n_input += mf["n_input"]
        n_dropped += mf["n_dropped"]
        for name, k in mf["na_counts"].items():
            counts[name] = counts.get(name, 0) + k
        if len(mf["y"]):
            slices.append(pack(mf["X"], mf["y"], mf["w"], compact))
    return PackedPartition(slices, n_columns, n_input, n_dropped, counts)
