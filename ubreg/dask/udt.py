"""Method ``udt`` on a Dask frame: the tree grown from partition-wise histograms.

``ubreg.fit(formula, ddf, method="udt", bins=...)`` (the Dask backend that
:mod:`ubreg.methods.udt` declares):

1. one pass learns the levels and the response coding (:func:`ubreg.dask.frame.read_levels`),
   patsy learns the predictors' :class:`~ubreg.design.raw.RawDesign`;
2. the source is read once more, the last time: each partition's raw predictors
   are kept in worker memory, compactly (int8 y, small categorical codes, no unit
   weights), for steps 2-4 and released once coded; a pass counts rows, weights,
   classes and missing values per predictor;
3. one to three passes find each numeric predictor's codes: its distinct values
   (``bins=None``, exact; at most :data:`~ubreg.fitters.udt.hist.MAX_EXACT_CODES`)
   or bin_design's quantile cuts with ``bins`` bins, computed exactly
   (:mod:`ubreg.dask.quantiles`);
4. a pass codes every partition (uint8, or uint16 past 256 codes) and keeps the
   codes, the response (int8) and non-unit weights in worker memory
   (``dask.persist``); with bins, the range of each code comes with it;
5. every level of the tree is one pass: each partition routes its rows through
   the tree grown so far (stateless: nothing but the codes is kept between
   passes; compiled, each row walks down the tree once) and returns the
   histograms of its open nodes (:func:`ubreg.fitters.udt.hist.level_histograms`);
   the sums reach the client, which chooses the splits
   (:func:`ubreg.fitters.udt.hist.grow_binned`).

The rows never travel to the client.  A worker lost in the middle of a fit
loses its persisted codes, which Dask recomputes from their lineage (the
source and steps 1-4), so the fit goes on unchanged.  The result is a
:class:`~ubreg.results.tree.TreeResult` (:class:`ubreg.dask.tree_result.DaskTreeResult`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..design import build_partition_raw, learn_raw_design
from ..errors import DataError, ResponseError
from ..fitters.udt.binned import refuse_missing
from ..fitters.udt.engine import tree_from_raw
from ..fitters.udt.hist import (
    MAX_EXACT_CODES,
    CodedColumns,
    code_ranges,
    column_specs,
    encode,
    grow_binned,
    level_histograms,
)
from ..numerics.weights import far_exponent
from ..trees.columns import CATEGORICAL
from .fitter import _check_r_options
from .frame import read_levels
from .quantiles import distinct_values, distributed_cuts
from .reduce import reduce_sums

__all__ = ["fit_udt_dask", "CodedPartition"]


class CodedPartition:
    """One partition as the tree's passes read it: codes (d, n), y (int8), the
    weights (None when every weight is 1) and, with bins, each code's range."""

    def __init__(self, codes, y, w, ranges):
        self.codes, self.y, self.w, self.ranges = codes, y, w, ranges

    @property
    def nbytes(self) -> int:
        return self.codes.nbytes + self.y.nbytes + (0 if self.w is None else self.w.nbytes)


def _small_codes(values: np.ndarray) -> np.ndarray:
    """Categorical codes (−1 for NA) in the smallest signed type that holds them."""
    top = int(values.max(initial=0))
    return values.astype(np.int8 if top < 2 ** 7 else np.int16 if top < 2 ** 15 else np.int64)


def _raw(parsed, design, response, frame, weights) -> dict:
    """The partition's raw predictors (:func:`~ubreg.design.build_partition_raw`),
    compact, as it stays in worker memory until coded: categorical codes in a
    small integer type, y as int8 (no NA left), w None when every weight is 1,
    no index."""
    raw = build_partition_raw(parsed, design, response, frame, weights)
    columns = [replace(c, values=_small_codes(c.values)) if c.kind == CATEGORICAL else c
               for c in raw["columns"]]
    w = raw["w"]
    return {"columns": columns, "values": [c.values for c in columns],
            "y": raw["y"].astype(np.int8), "w": None if np.all(w == 1.0) else w,
            "n_input": raw["n_input"], "n_dropped": raw["n_dropped"]}


def _weights(raw: dict) -> np.ndarray:
    return np.ones(len(raw["y"])) if raw["w"] is None else raw["w"]


def _stats(raw: dict) -> dict:
    """Rows, weights, classes and missing values of one partition, and the specs."""
    y, w = raw["y"].astype(np.float64), _weights(raw)
    na = [int(np.sum(v < 0)) if c.kind == CATEGORICAL else int(np.isnan(v).sum())
          for c, v in zip(raw["columns"], raw["values"])]
    pos = w > 0
    return {"n_input": raw["n_input"], "n_dropped": raw["n_dropped"], "n": len(y),
            "w_max": float(w.max(initial=0.0)),
            "npos": int(pos.sum()), "wsum": float(w.sum()), "wy": float(w @ y),
            "not_unit": int(np.sum(w != 1.0)), "pos1": int(np.sum(pos & (y == 1))),
            "pos0": int(np.sum(pos & (y == 0))), "na": np.asarray(na, dtype=np.int64),
            "specs": column_specs(raw["columns"])}


def _numeric(raw: dict, positive: bool, columns=None) -> list:
    """The numeric predictors' values (of the rows of positive weight), all or
    those at the positions ``columns`` among them."""
    values = [v for c, v in zip(raw["columns"], raw["values"]) if c.kind != CATEGORICAL]
    if columns is not None:
        values = [values[j] for j in columns]
    if raw["w"] is None or not positive:
        return values
    keep = raw["w"] > 0
    return [v[keep] for v in values]


def _positive(raw, columns=None):
    return _numeric(raw, True, columns)


def _every(raw, columns=None):
    return _numeric(raw, False, columns)


def _encode(raw: dict, coded: CodedColumns, unit: bool, e: int = 0) -> CodedPartition:
    codes = encode(raw["values"], coded)
    ranges = None if all(coded.exact[j] or s.kind == CATEGORICAL
                         for j, s in enumerate(coded.specs)) \
        else code_ranges(raw["values"], codes, coded)
    # weights far from 1 divided by 2^e, exactly, as in memory
    w = None if unit else np.ldexp(np.asarray(_weights(raw), dtype=np.float64), -e)
    return CodedPartition(codes, raw["y"], w, ranges)


def _ranges(part: CodedPartition) -> dict:
    return {"code_ranges": part.ranges}


def _level(part: CodedPartition, tree, offsets) -> dict:
    return {"H": level_histograms(part.codes, part.y, part.w, tree, offsets)}


@dataclass
class _Source:
    """What the result needs to rebuild a training row's predictors: the frame,
    the formula, the raw design, the response coding and the weights column."""

    data: object
    parsed: object
    design: object
    response: object
    weights: str | None


def _check_family(spec) -> None:
    _check_r_options(spec)
    if isinstance(spec.family, list) or not getattr(spec.family, "is_permissible", False):
        raise ValueError("method 'udt' needs one permissible family (the split criterion), "
                         f"got {spec.family!r}")


def _check_rows(stats: dict, response_name: str, method: str = "udt") -> None:
    if stats["n"] == 0:
        raise DataError(f"no rows left: the response {response_name!r} is NA in all "
                        f"{stats['n_input']} rows")
    if stats["npos"] == 0:
        raise DataError("weights are all zero on the rows used")
    if stats["pos0"] == 0 or stats["pos1"] == 0:
        raise ResponseError(f"response {response_name!r} has only one class among the "
                            f"{stats['npos']} rows of positive weight")


def _coding(raws: list, specs: list, bins: int | None) -> CodedColumns:
    """Each numeric predictor's edges: its distinct values (exact) or its cuts."""
    numeric = [j for j, s in enumerate(specs) if s.kind != CATEGORICAL]
    if bins is None:
        found = distinct_values(raws, _every, len(numeric), MAX_EXACT_CODES)
        many = [specs[j].name for j, v in zip(numeric, found) if v is None]
        if many:
            raise ValueError(f"bins=None (exact splits) on a Dask frame: predictor(s) "
                             f"{', '.join(map(repr, many))} have more than {MAX_EXACT_CODES} "
                             "distinct values, too many for exact histograms; pass bins=k "
                             "(e.g. bins=255: quantile bins, the same in memory)")
    else:
        found, _ = distributed_cuts(raws, _positive, len(numeric), bins)
    edges: list = [None] * len(specs)
    for j, e in zip(numeric, found):
        edges[j] = e
    exact = [bins is None and s.kind != CATEGORICAL for s in specs]
    lo = [e if x else None for e, x in zip(edges, exact)]
    return CodedColumns(list(specs), edges, exact, lo, list(lo))


def fit_udt_dask(spec, *, min_split: int, min_leaf: int, max_depth: int, cp: float,
                 risk: str, xval: int, seed: int | None, prune: None, bins: int | None,
                 prior: None = None):
    """UDT on a dask DataFrame (``ubreg.fit`` routes here; see the module docstring).

    The options are :data:`ubreg.methods.udt.OPTIONS`, checked by :func:`ubreg.fit`
    for a Dask frame (``xval`` 0, ``prune`` and ``prior`` None).  ``bins=None`` (exact) is refused
    for a predictor of more than :data:`~ubreg.fitters.udt.hist.MAX_EXACT_CODES`
    distinct values.

    Returns
    -------
    ubreg.dask.tree_result.DaskTreeResult
    """
    import dask
    from dask import delayed

    from .tree_result import DaskTreeResult

    _check_family(spec)
    lv = read_levels(spec)
    design = learn_raw_design(lv.parsed, lambda: (p.compute() for p in lv.parts),
                              lv.label_levels)
    # the one read of the source: every later pass reads these (released once coded)
    raws = list(dask.persist(*[delayed(_raw)(lv.parsed, design, lv.response, p, spec.weights)
                               for p in lv.parts]))
    stats = reduce_sums(raws, _stats)
    _check_rows(stats, lv.parsed.response_name)
    na = {s.name: int(k) for s, k in zip(stats["specs"], stats["na"]) if k}
    if na and lv.na_action == "fail":
        detail = ", ".join(f"{n!r} ({k} rows)" for n, k in na.items())
        raise DataError(f"missing values (NA) in {detail} and na_action='fail'")
    refuse_missing(list(na), "a Dask frame")
    coded = _coding(raws, stats["specs"], bins)
    unit = stats["not_unit"] == 0
    e = far_exponent(stats["w_max"])
    frames = list(dask.persist(*[delayed(_encode)(r, coded, unit, e) for r in raws]))
    del raws
    if not all(coded.exact[j] or s.kind == CATEGORICAL for j, s in enumerate(coded.specs)):
        ranges = reduce_sums(frames, _ranges)["code_ranges"]
        coded.lo = [None if r is None else r[0] for r in ranges]
        coded.hi = [None if r is None else r[1] for r in ranges]
    passes = [0]

    def histograms(tree):
        passes[0] += 1
        return reduce_sums(frames, _level, tree, coded.offsets)["H"]

    root = dict(n=stats["n"], npos=stats["npos"], weight=float(np.ldexp(stats["wsum"], -e)),
                wy=float(np.ldexp(stats["wy"], -e)))
    controls = dict(min_split=min_split, min_leaf=min_leaf, max_depth=max_depth, cp=cp)
    raw_tree, info = grow_binned(coded, histograms, root, spec.family, unit=unit, risk=risk,
                                 count_rows=spec.weight_kind == "prior", **controls)
    tree = tree_from_raw(raw_tree, info, spec.family, controls, risk).times_power_of_two(e)
    stats.update(passes=passes[0], partitions=len(frames), bins=bins)
    source = _Source(lv.data, lv.parsed, design, lv.response, spec.weights)
    return DaskTreeResult(tree=tree, cptable=tree.cptable, xval=0, seed=seed, na_counts={},
                          stats=stats, source=source, formula=spec.formula,
                          family=spec.family, design=design, response=lv.response,
                          **spec.recorded())
