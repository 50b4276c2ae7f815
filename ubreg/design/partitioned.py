"""Partitioned data (``ubreg.dask``): one design learned before fitting, then applied
partition by partition.  The dask side never sees patsy.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import DataError, FormulaError, ResponseError
from .checks import (
    _as_categoricals,
    _check_real,
    _is_label_column,
    as_frame,
    patsy_input,
)
from .coding import design_info
from .coerce import normalise_columns
from .design import Design
from .parse import expand_dot, formula_variables, parse_formula, response_values
from .response import (
    Response,
    code_response,
    code_response_multiclass,
    is_na,
    kept_response_and_weights,
    more_than_two_classes,
)
from .rfactor import learn_variables
from .rformula import Formula, term_variables
from .rsyntax import Call

__all__ = ['PartitionedFormula', 'parse_partitioned', 'partition_levels', 'combine_levels',
           'learn_design', 'build_partition_frame', 'learn_partitioned_variables']


@dataclass
class PartitionedFormula:
    """A checked formula for data that arrive in partitions.

    ``meta`` is an empty frame with the data's columns and dtypes (a dask
    frame's ``_meta``); ``used`` are the columns the right-hand side reads and
    ``label_columns`` those of them coded as labels (strings, bools), whose
    levels must come from a full pass over the data.
    """

    formula: str
    parsed: Formula
    response_name: str
    used: list
    label_columns: list
    response_columns: list = field(default_factory=list)
    #: the data's columns
    data_columns: list = field(default_factory=list)
    trusted: bool = False

    def columns(self, available, weights=None) -> list:
        """The columns of ``available`` the model reads (response, right-hand
        side, weights), in ``available``'s order: what a reader must load."""
        needed = set(self.used) | set(self.response_columns) | ({weights} if weights else set())
        return [c for c in available if c in needed]


def parse_partitioned(formula: str, meta: pd.DataFrame,
                      trusted: bool = False) -> PartitionedFormula:
    """Check ``formula`` against the columns of ``meta`` (no rows needed).

    The same checks as :func:`build_model_frame`: ``.`` expansion, the whole formula
    read and every node checked.
    """
    meta = as_frame(meta, "data")
    formula = expand_dot(formula, meta.columns)
    parsed = parse_formula(formula, meta.columns, trusted=trusted)
    if parsed.offsets:
        raise ValueError("an offset (offset= or an offset() term) is not available on a dask "
                         "DataFrame; fit the data in memory (ddf.compute()) to use one")
    response = parsed.response.node if parsed.response is not None else None
    if isinstance(response, Call) and response.fn == "cbind":
        raise ValueError("a grouped binomial response, cbind(successes, failures), is not "
                         "available on a dask DataFrame (nor proportions); fit the data in "
                         "memory (ddf.compute())")
    meta = normalise_columns(meta, formula_variables(parsed))
    used = list(dict.fromkeys(c for v in term_variables(parsed) for c in v.reads))
    _check_real(meta, used)
    labels = [n for n in used if n in meta.columns and _is_label_column(meta[n])]
    assert parsed.response is not None          # read_formula requires one
    response_columns = list(parsed.response.reads)
    return PartitionedFormula(formula, parsed, parsed.response.label, used, labels,
                              response_columns, list(map(str, meta.columns)), trusted)


def partition_levels(parsed: PartitionedFormula, frame: pd.DataFrame) -> dict:
    """What one partition contributes to the levels: the distinct response
    values and, among rows whose response is not NA, the distinct values of
    every label column (as :func:`build_model_frame` learns them)."""
    frame = normalise_columns(frame, formula_variables(parsed.parsed))
    _, yvals = response_values(parsed.parsed, frame, parsed.trusted)
    y_na = is_na(yvals)
    values = pd.Series(yvals)[~y_na] if not isinstance(yvals, pd.Series) else yvals[~y_na]
    kept = frame if not y_na.any() else frame.loc[~y_na]
    levels = {n: set(kept[n].dropna().unique().tolist()) for n in parsed.label_columns}
    return {"response": values.drop_duplicates(), "levels": levels,
            "response_na": int(y_na.sum()), "rows": len(frame)}


def combine_levels(parsed: PartitionedFormula, pieces: list,
                   positive=None, multiclass: bool = False) -> tuple[dict, Response]:
    """Label levels and response coding from every partition's
    :func:`partition_levels` (sorted levels, the positive class as in R); with
    ``multiclass``, a response of more than two classes is coded 0..K−1, as
    ``response="auto"`` codes it in memory."""
    label_levels = {}
    for name in parsed.label_columns:
        values = set().union(*[p["levels"][name] for p in pieces])
        if not values:
            raise DataError(f"column {name!r} has only missing values")
        try:
            label_levels[name] = sorted(values)
        except TypeError:  # mixed types: leave the column to patsy, as in memory
            continue
    response_values = pd.concat([p["response"] for p in pieces]).drop_duplicates()
    if len(response_values) == 0:
        raise ResponseError(f"response {parsed.response_name!r} is NA in every row")
    distinct = response_values.reset_index(drop=True)
    if more_than_two_classes(distinct, False):
        if multiclass:
            _, response = code_response_multiclass(distinct, parsed.response_name)
            return label_levels, response
        shown = sorted(map(str, distinct))[:10]
        raise ResponseError(f"response {parsed.response_name!r} has {len(distinct)} classes "
                            f"{shown}: of the fits of a Dask frame, method='uboost' takes "
                            "more than two (in memory, method='uls' fits the multinomial logit "
                            "and 'udt', 'uboost', 'gnnb', 'unn' any number of classes)")
    _, response = code_response(distinct, parsed.response_name, positive)
    return label_levels, response


def _partition_chunks(parsed: PartitionedFormula, frames, label_levels: dict):
    """(the columns the variables read, the response's NA) of every partition."""
    for frame in frames():
        frame = normalise_columns(frame, formula_variables(parsed.parsed))
        _, yvals = response_values(parsed.parsed, frame, parsed.trusted)
        coded = _as_categoricals(frame, label_levels, "data")
        yield patsy_input(coded, parsed.used), is_na(yvals)


def learn_partitioned_variables(parsed: PartitionedFormula, frames, label_levels: dict,
                                complete_cases: bool = True) -> dict:
    """The formula's variables learned over the partitions (``frames``: a callable
    returning a fresh iterator of pandas frames), as R's ``model.frame`` learns them
    from one frame: every row for the learning functions, the rows kept for the levels."""
    learned, _ = learn_variables(term_variables(parsed.parsed),
                                 lambda: _partition_chunks(parsed, frames, label_levels),
                                 label_levels, parsed.trusted, complete_cases)
    return learned


def learn_design(parsed: PartitionedFormula, frames, label_levels: dict,
                 keep_na: bool = False) -> Design:
    """The right-hand side's :class:`Design`, learned over partitions (see
    :func:`learn_partitioned_variables`), coded as R codes it.  ``keep_na`` (a method
    that routes missing values) as :func:`build_model_frame`'s: the levels are learned
    on every row whose response is not NA, and the design keeps rows with NA
    predictors (NaN in the columns of their terms)."""
    learned = learn_partitioned_variables(parsed, frames, label_levels,
                                          complete_cases=not keep_na)
    info = design_info(parsed.parsed, learned)
    if len(info.column_names) == 0:
        raise FormulaError(f"formula {parsed.formula!r} has no terms on the right-hand side")
    return Design(info, parsed.parsed.rhs_text, label_levels, keep_na=keep_na)


def build_partition_frame(parsed: PartitionedFormula, design: Design, response: Response,
                          frame: pd.DataFrame, weights=None, na_action: str = "drop") -> dict:
    """One partition's arrays, as :func:`build_model_frame` makes them.

    Returns a dict: ``X``, ``y``, ``w`` (the rows kept: complete rows, or with a
    design that keeps NA predictors (``Design.keep_na``) the rows whose response is
    not NA, NaN in X where a predictor is NA), ``index`` (their
    labels), ``n_input``, ``n_dropped`` and ``na_counts`` (name → rows, the
    response first, in the order of :attr:`ModelFrame.na_factors`).
    ``weights`` is ``None`` or the name of a column.
    """
    frame = normalise_columns(frame, formula_variables(parsed.parsed))
    _, yvals = response_values(parsed.parsed, frame, parsed.trusted)
    y_na = is_na(yvals)
    if y_na.any() and na_action in ("raise", "fail"):
        raise DataError(f"missing values (NA) in response {parsed.response_name!r} "
                        f"({int(y_na.sum())} rows) and na_action='fail'")
    kept = frame if not y_na.any() else frame.loc[~y_na]
    kept = _as_categoricals(kept, design.label_levels, "data")
    X, na = design.rows(kept, na_action, predicting=False)
    rhs_na = na.mask if na.mask is not None else np.zeros(len(kept), dtype=bool)
    keep = ~y_na
    keep[np.flatnonzero(keep)[rhs_na]] = False
    y, w = kept_response_and_weights(yvals, keep, response, frame, weights)
    counts = {}
    if y_na.any():
        counts[parsed.response_name] = int(y_na.sum())
    for name, k in na.na_factors:
        counts[name] = counts.get(name, 0) + k
    return {"X": X, "y": y, "w": w, "index": frame.index[keep], "n_input": len(frame),
            "n_dropped": int((~keep).sum()), "na_counts": counts}
