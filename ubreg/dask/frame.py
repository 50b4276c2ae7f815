"""From a dask DataFrame to partition-wise design matrices (dask side only).

The design is learned once, before fitting, so that every partition codes the
same columns (patsy itself stays in :mod:`ubreg.formula`):

1. one full pass collects, per partition, the distinct values of the response
   and of every label column (rows with NA in the response left out, as in
   memory); their union gives the sorted levels and the response coding;
2. patsy's incremental builder learns the DesignInfo over the partitions,
   reading only as many as it needs (all of them for the moments of
   ``center``/``standardize``, one otherwise);
3. every partition is turned into ``(X, y, w)`` by
   :func:`ubreg.formula.build_partition_frame`, lazily, and optionally
   persisted for the Newton passes.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import DataError
from ..formula import (Design, PartitionedFormula, Response, build_partition_frame,
                       combine_levels, learn_design, parse_partitioned, partition_levels)

__all__ = ["Partitioned", "prepare_partitions"]


@dataclass
class Partitioned:
    """A dask frame with its learned design; ``frames`` are the delayed
    (or persisted) per-partition dicts of :func:`build_partition_frame`."""

    data: object          # the user's dask DataFrame (a new frame if categories were made known)
    parsed: PartitionedFormula
    design: Design
    response: Response
    weights: str | None
    na_action: str
    frames: list

    def without_frames(self) -> "Partitioned":
        """A copy that does not hold the (possibly persisted) design matrices."""
        return Partitioned(self.data, self.parsed, self.design, self.response, self.weights,
                           self.na_action, [])


def _known_categoricals(ddf):
    """Categorical columns with unknown categories get them from one pass
    (a new frame); otherwise partitions would code different levels."""
    import pandas as pd

    unknown = [c for c, t in ddf.dtypes.items()
               if isinstance(t, pd.CategoricalDtype) and not ddf[c].cat.known]
    if not unknown:
        return ddf
    return ddf.assign(**{c: ddf[c].cat.as_known() for c in unknown})


def prepare_partitions(spec, persist: bool = True) -> Partitioned:
    """Check the formula, learn levels and design, and build the partitions."""
    import dask
    from dask import delayed

    ddf = spec.data
    if spec.na_action not in ("drop", "raise"):
        raise ValueError(f"na_action must be 'drop' or 'raise', got {spec.na_action!r}")
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
    label_levels, response = combine_levels(parsed, list(pieces), spec.positive)
    y_na = sum(p["response_na"] for p in pieces)
    if y_na and spec.na_action == "raise":
        raise DataError(f"missing values (NA) in response {parsed.response_name!r} ({y_na} rows) "
                        "and na_action='raise'")
    design = learn_design(parsed, lambda: (p.compute() for p in parts), label_levels)
    frames = [delayed(build_partition_frame)(parsed, design, response, p, weights,
                                             spec.na_action) for p in parts]
    if persist:
        frames = list(dask.persist(*frames))
    return Partitioned(ddf, parsed, design, response, weights, spec.na_action, frames)
