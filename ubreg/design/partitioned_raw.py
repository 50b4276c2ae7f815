"""Raw predictor columns of partitioned data (trees on ``ubreg.dask``): one
:class:`~ubreg.design.raw.RawDesign` learned over the partitions, then applied
partition by partition, as :func:`~ubreg.design.raw.build_raw_frame` does in
memory.
"""
from __future__ import annotations

import pandas as pd

from .coerce import normalise_columns
from .parse import formula_variables, response_values
from .partitioned import PartitionedFormula, learn_partitioned_variables
from .raw import RawDesign, raw_design_of, refuse_interactions
from .response import Response, is_na, kept_response_and_weights

__all__ = ["learn_raw_design", "build_partition_raw"]


def _kept(parsed: PartitionedFormula, frame: pd.DataFrame):
    """(the frame, the response values, the NA mask of the response)."""
    frame = normalise_columns(frame, formula_variables(parsed.parsed))
    _, yvals = response_values(parsed.parsed, frame, parsed.trusted)
    return frame, yvals, is_na(yvals)


def learn_raw_design(parsed: PartitionedFormula, frames, label_levels: dict) -> RawDesign:
    """The :class:`RawDesign` of the right-hand side, learned over partitions
    (``frames``: a callable returning a fresh iterator of pandas frames), as
    :func:`~ubreg.design.raw.build_raw_frame` learns it from one frame: one term,
    one variable (no interactions), levels from the rows with a response."""
    refuse_interactions(parsed.parsed)
    learned = learn_partitioned_variables(parsed, frames, label_levels, complete_cases=False)
    return raw_design_of(parsed.parsed, learned, label_levels)


def build_partition_raw(parsed: PartitionedFormula, design: RawDesign, response: Response,
                        frame: pd.DataFrame, weights=None) -> dict:
    """One partition's raw columns, as :func:`~ubreg.design.raw.build_raw_frame`
    makes them: rows with NA in the response dropped (counted), NA in predictors
    kept.  Returns a dict: ``columns`` (list of RawColumn), ``y``, ``w``, ``index``,
    ``n_input``, ``n_dropped``."""
    frame, yvals, y_na = _kept(parsed, frame)
    kept = frame if not y_na.any() else frame.loc[~y_na]
    columns = design.columns(kept)
    keep = ~y_na
    y, w = kept_response_and_weights(yvals, keep, response, frame, weights)
    return {"columns": columns, "y": y, "w": w, "index": frame.index[keep],
            "n_input": len(frame), "n_dropped": int(y_na.sum())}
