"""From a dask DataFrame to partition-wise design matrices (dask side only).

The design is learned once, before fitting, so that every partition codes the
same columns (patsy itself stays in :mod:`ubreg.design`):

1. one full pass collects, per partition, the distinct values of the response
   and of every label column (rows with NA in the response left out, as in
   memory); their union gives the sorted levels and the response coding;
2. patsy's incremental builder learns the DesignInfo over the partitions,
   reading only as many as it needs (all of them for the moments of
   ``center``/``standardize``, one otherwise);
3. every partition is turned into ``(X, y, w)`` by
   :func:`ubreg.design.build_partition_frame`, slice by slice, lazily
   (:func:`ubreg.dask.packed.build_packed_partition`), and persisted for the
   Newton passes, packed losslessly, when :func:`should_persist` says so.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..design import (
    Design,
    PartitionedFormula,
    Response,
    combine_levels,
    learn_design,
    parse_partitioned,
    partition_levels,
)
from ..design.prepare import na_action_of
from ..errors import DataError
from .packed import build_packed_partition

__all__ = ["Partitioned", "prepare_partitions", "should_persist", "design_bytes",
           "PERSIST_FRACTION", "Levels", "read_levels"]

#: ``persist="auto"`` keeps the designs in memory when a worker's share, at
#: 8 bytes per design column, response and weight (the unpacked size, an upper
#: bound), is at most this fraction of the worker's memory limit: distributed
#: starts spilling at 60 % of it, and a pass needs room for its blocks and for
#: the build of a partition next to the persisted ones
PERSIST_FRACTION = 0.4


@dataclass
class Partitioned:
    """A dask frame with its learned design; ``frames`` are the delayed
    (or persisted) :class:`~ubreg.dask.packed.PackedPartition` of every partition."""

    data: object          # the user's dask DataFrame (a new frame if categories were made known)
    parsed: PartitionedFormula
    design: Design
    response: Response
    weights: str | None
    na_action: str
    frames: list
    persisted: bool = False
    design_bytes: int = 0     # the upper bound of should_persist (unpacked float64)

    def without_frames(self) -> Partitioned:
        """A copy that does not hold the (possibly persisted) design matrices."""
        return Partitioned(self.data, self.parsed, self.design, self.response, self.weights,
                           self.na_action, [], self.persisted, self.design_bytes)


def _known_categoricals(ddf):
    """Categorical columns with unknown categories get them from one pass
    (a new frame); otherwise partitions would code different levels."""
    import pandas as pd

    unknown = [c for c, t in ddf.dtypes.items()
               if isinstance(t, pd.CategoricalDtype) and not ddf[c].cat.known]
    if not unknown:
        return ddf
    return ddf.assign(**{c: ddf[c].cat.as_known() for c in unknown})


def design_bytes(rows: int, n_columns: int) -> int:
    """Bytes of ``rows`` rows of a design with ``n_columns`` columns, response
    and weights in float64: what persisting costs at most (packing only
    shrinks it)."""
    return int(rows) * 8 * (int(n_columns) + 2)


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _workers_memory() -> tuple[int, int | None]:
    """(workers, smallest memory limit) of the scheduler dask.compute would use:
    a distributed client's workers, else this process (physical memory)."""
    try:
        from dask.base import get_scheduler
        scheduler = get_scheduler()
        client = getattr(scheduler, "__self__", None)
        from distributed import Client
        if isinstance(client, Client):
            workers = client.scheduler_info().get("workers", {})
            if workers:
                limits = [w.get("memory_limit") or _physical_memory() for w in workers.values()]
                known = [x for x in limits if x]
                return len(workers), (min(known) if known else None)
    except Exception:  # noqa: BLE001 - no cluster information: judge by this machine
        pass
    return 1, _physical_memory()


def should_persist(rows: int, n_columns: int, largest_partition: int,
                   workers: int | None = None, memory_limit: int | None = None) -> bool:
    """The rule of ``persist="auto"``: persist when a worker's share of the
    design — ``max(total / workers, largest partition)`` at
    :func:`design_bytes` — is at most :data:`PERSIST_FRACTION` of the
    smallest worker memory limit (a distributed client's workers; with a
    local scheduler, this machine's physical memory).  Unknown memory:
    persist."""
    if workers is None or memory_limit is None:
        found_workers, found_limit = _workers_memory()
        workers = found_workers if workers is None else workers
        memory_limit = found_limit if memory_limit is None else memory_limit
    if not memory_limit:
        return True
    share = max(design_bytes(rows, n_columns) / max(workers, 1),
                design_bytes(largest_partition, n_columns))
    return share <= PERSIST_FRACTION * memory_limit


@dataclass
class Levels:
    """What the first pass over a dask frame learns: the frame read (the model's
    columns only), the checked formula, the label levels and the response coding,
    the rows per partition and the partitions as delayed pandas frames."""

    data: object
    parsed: PartitionedFormula
    label_levels: dict
    response: Response
    rows: list
    parts: list
    na_action: str


def read_levels(spec, multiclass: bool = False) -> Levels:
    """Check the options every Dask fit shares (``na_action``, ``weights``), the
    formula against the frame's columns, and learn the levels in one pass."""
    import dask
    from dask import delayed

    ddf = spec.data
    na_action = na_action_of(spec.na_action)            # R's name: omit, exclude or fail
    if na_action == "exclude":
        raise ValueError("na_action='exclude' pads residuals and fitted values with the "
                         "dropped rows, which a fit of a dask DataFrame does not hold; use "
                         "'omit' (or 'drop') or 'fail' (or 'raise')")
    weights = spec.weights
    if weights is not None:
        if not isinstance(weights, str):
            raise DataError("with a dask DataFrame, weights must be the name of one of its "
                            f"columns, got {type(weights).__name__}")
        if weights not in ddf.columns:
            raise DataError(f"weights column {weights!r} is not in the data")
    if len(ddf.columns) == 0:
        raise DataError("data has no columns")
    parsed = parse_partitioned(spec.formula, ddf._meta, trusted=spec.trusted)
    # read only what the model uses (parquet and friends push the projection down)
    ddf = _known_categoricals(ddf[parsed.columns(ddf.columns, weights)])
    level_columns = parsed.columns(ddf.columns)
    level_columns = [c for c in level_columns
                     if c in parsed.label_columns or c in parsed.response_columns]
    source = ddf[level_columns] if level_columns else ddf
    pieces = dask.compute(*[delayed(partition_levels)(parsed, p)
                            for p in source.to_delayed()])
    parts = ddf.to_delayed()
    if sum(p["rows"] for p in pieces) == 0:
        raise DataError("data has 0 rows")
    label_levels, response = combine_levels(parsed, list(pieces), spec.positive, multiclass)
    y_na = sum(p["response_na"] for p in pieces)
    if y_na and na_action == "fail":
        raise DataError(f"missing values (NA) in response {parsed.response_name!r} ({y_na} rows) "
                        "and na_action='fail'")
    return Levels(ddf, parsed, label_levels, response, [p["rows"] for p in pieces], parts,
                  na_action)


def prepare_partitions(spec, persist="auto", multiclass: bool = False,
                       keep_na: bool = False) -> Partitioned:
    """Check the formula, learn levels and design, and build the partitions (a response of
    more than two classes coded 0..K−1 with ``multiclass``, else refused; rows with NA
    predictors kept, NaN in the design, with ``keep_na``: :func:`ubreg.design.learn_design`)."""
    import dask
    from dask import delayed

    lv = read_levels(spec, multiclass)
    ddf, parsed, response, parts, rows = lv.data, lv.parsed, lv.response, lv.parts, lv.rows
    weights, na_action = spec.weights, lv.na_action
    design = learn_design(parsed, lambda: (p.compute() for p in parts), lv.label_levels,
                          keep_na)
    n_columns = len(design.column_names)
    if persist == "auto":
        persist = should_persist(sum(rows), n_columns, max(rows))
    persist = bool(persist)
    # packing pays off only for designs that stay in memory
    frames = [delayed(build_packed_partition)(parsed, design, response, p, weights,
                                              na_action, persist) for p in parts]
    if persist:
        frames = list(dask.persist(*frames))
    return Partitioned(ddf, parsed, design, response, weights, na_action, frames,
                       persist, design_bytes(sum(rows), n_columns))
