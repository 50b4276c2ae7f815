"""Formulas to design matrices: the only part of ubreg that knows patsy.

``build_model_frame`` turns ``(formula, data, weights)`` into arrays for a
fitter plus a :class:`Design` that rebuilds the same columns from new data;
``build_raw_frame`` keeps the predictors as raw columns (trees); the
``partitioned`` functions learn one design over partitions (Dask).  A formula is
R's: read whole into one syntax tree (:mod:`.rsyntax`), every node checked against
the allowlist (:mod:`.allowlist`) before anything is evaluated, expanded into terms
as R does (:mod:`.rformula`), its variables evaluated by ubreg's own interpreter
(:mod:`.evaluate`) and coded as R's ``model.matrix`` codes them (:mod:`.coding`);
patsy builds the matrix.
"""
from __future__ import annotations

from .allowlist import Checker, checked_trusted
from .checks import as_frame, check_columns, is_dask_frame
from .design import Design
from .frame import ModelFrame, build_model_frame
from .parse import expand_dot, parse_formula, response_values
from .partitioned import (
           PartitionedFormula,
           build_partition_frame,
           combine_levels,
           learn_design,
           parse_partitioned,
           partition_levels,
)
from .partitioned_raw import build_partition_raw, learn_raw_design
from .prepare import aligned
from .raw import RawColumn, RawDesign, RawFrame, build_raw_frame
from .response import (
           Response,
           check_response_finite,
           check_weights,
           code_response,
           code_response_as,
           code_response_multiclass,
           is_na,
)
from .rfunctions import FUNCTIONS

__all__ = ["Design", "Response", "ModelFrame", "build_model_frame", "build_raw_frame",
           "RawColumn", "RawDesign", "RawFrame", "FUNCTIONS", "Checker", "checked_trusted",
           "aligned",
           "expand_dot", "parse_formula",
           "response_values", "as_frame", "is_dask_frame", "check_columns", "is_na",
           "check_weights",
           "check_response_finite", "code_response", "code_response_multiclass",
           "code_response_as", "PartitionedFormula", "parse_partitioned", "partition_levels",
           "combine_levels", "learn_design", "build_partition_frame", "learn_raw_design",
           "build_partition_raw"]
