"""Raw predictor columns of partitioned data (trees on ``ubreg.dask``): one
:class:`~ubreg.design.raw.RawDesign` learned over the partitions, then applied
partition by partition, as :func:`~ubreg.design.raw.build_raw_frame` does in
memory.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import patsy
from patsy import ModelDesc, NAAction, PatsyError

from ..errors import DataError, FormulaError, PredictionError
from .checks import _as_categoricals, _translate_patsy_error, patsy_input
from .coerce import normalise_columns
from .namespace import _environment
from .parse import formula_variables, response_values
from .partitioned import PartitionedFormula
from .raw import RawDesign
from .response import Response, _finite_nonnegative_weights, code_response_as, is_na

__all__ = ["learn_raw_design", "build_partition_raw"]


def _kept(parsed: PartitionedFormula, frame: pd.DataFrame):
    """(the frame, the response values, the NA mask of the response)."""
    frame = normalise_columns(frame, formula_variables(parsed.desc))
    _, yvals = response_values(parsed.desc, frame, parsed.formula)
    return frame, yvals, is_na(yvals)


def learn_raw_design(parsed: PartitionedFormula, frames, label_levels: dict) -> RawDesign:
    """The :class:`RawDesign` of the right-hand side, learned over partitions
    (``frames``: a callable returning a fresh iterator of pandas frames), as
    :func:`~ubreg.design.raw.build_raw_frame` learns it from one frame: one term,
    one factor (no interactions), rows with NA in the response left out."""
    rhs = list(parsed.desc.rhs_termlist)
    for term in rhs:
        if len(term.factors) > 1:
            raise FormulaError(f"term {term.name()!r}: interactions are not supported by this "
                               "method (a tree finds interactions itself)")

    def prepared():
        for frame in frames():
            frame, _, y_na = _kept(parsed, frame)
            kept = frame if not y_na.any() else frame.loc[~y_na]
            yield patsy_input(_as_categoricals(kept, label_levels, "data"), parsed.used)

    try:
        (info,) = patsy.design_matrix_builders([rhs], prepared, _environment(),
                                               NA_action=NAAction(NA_types=["None", "NaN"]))
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except (DataError, PredictionError):
        raise
    except Exception as exc:  # anything else patsy or a user transform raised
        raise FormulaError(f"cannot build the design of {parsed.formula!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    order = list(dict.fromkeys(t.name() for t in rhs if t.factors))
    design = RawDesign(info, ModelDesc([], rhs).describe(), label_levels, order)
    if not design.names:
        raise FormulaError(f"formula {parsed.formula!r} has no predictors on the right-hand "
                           "side")
    return design


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
    yk = yvals[keep] if isinstance(yvals, pd.Series) else np.asarray(yvals)[keep]
    y = code_response_as(yk, response)
    if weights is None:
        w = np.ones(len(y))
    else:
        w = _finite_nonnegative_weights(np.asarray(frame[weights]))[keep]
    return {"columns": columns, "y": y, "w": w, "index": frame.index[keep],
            "n_input": len(frame), "n_dropped": int(y_na.sum())}
