"""Totally corrective ULS on partitioned data (paper 000 Algorithm 1, docs/math.md §4).

The same Newton iteration as :func:`ubreg.fitters.uls.fit_uls` with
``solver="corrective"``, with every sum over rows split into partition-wise
sums reduced on the cluster:

- setup pass: Σw, Σw·y, XᵀWX (aliasing, R's rule), max|x_j| (edge scale),
  n and the dropped rows, and risk, gradient and Hessian at β = 0;
- one pass per Newton iteration: risk, gradient Xᵀ(w·g) and Hessian
  Xᵀdiag(w·h)X at the candidate β.  A candidate the Armijo rule accepts
  already carries the next gradient and Hessian, so an iteration is one pass
  (a rejected step costs one more);
- final pass: the sandwich pieces A, B_model, B_robust, deviance, null
  deviance, Bernoulli log-likelihood, and the extremes of p̂ the warnings need.

The iteration itself (stopping rule, Newton step, line search) is the one the
in-memory fitter runs, :func:`ubreg.numerics.newton.newton`, driven here by
:class:`_PartitionProblem`, whose risk, gradient and Hessian are those sums.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..design import parse_partitioned
from ..errors import ConvergenceWarning, DataError, ResponseError, SeparationWarning
from ..fitters.uls import (
    EXTREME_MESSAGE,
    UNIT_BAND,
    LinearFit,
    WorkingColumns,
    convergence_message,
    working_gram,
    working_scale,
    working_shift,
    working_transform,
)
from ..numerics.aliasing import (
    AliasCheck,
    Scatter,
    aliased_from_gram,
    aliased_from_r,
    block_scatter,
    merge_scatter,
    reduce_scatter,
)
from ..numerics.newton import NewtonProblem, newton
from ..numerics.separation import R_EPS, SEPARATION_SYMPTOM
from ..numerics.warnings import warn
from ..results.inference import bernoulli_loglik, covariances, meat_weights
from .frame import prepare_partitions
from .packed import BLOCK_ROWS
from .reduce import reduce_sums

if TYPE_CHECKING:
    from ..methods.spec import FitSpec

__all__ = ["fit_linear_dask"]


# ---------------------------------------------------------------------------
# partition-wise sums (run on the workers)
# ---------------------------------------------------------------------------
# A partition is a :class:`~ubreg.dask.packed.PackedPartition`; its rows are
# read in blocks, unpacked into a reused float64 buffer (packed column order),
# and every sum is accumulated in design order.  No array of the partition's
# size is made: a pass holds two blocks (2 × 16 384 rows × p floats).


class _Accumulator:
    """Sums over blocks: scalars, Xᵀv vectors and Xᵀdiag(h)X matrices, each
    block's packed-order result added at its design-order place."""

    def __init__(self, p: int):
        self.p = p
        self.vectors: dict = {}
        self.grams: dict = {}

    def vector(self, key, piece, value):
        out = self.vectors.setdefault(key, np.zeros(self.p))
        if piece.identity:
            out += value
        else:
            out[piece.order] += value

    def gram(self, key, piece, value):
        out = self.grams.setdefault(key, np.zeros((self.p, self.p)))
        if piece.identity:
            out += value
        else:
            out[np.ix_(piece.order, piece.order)] += value

    def result(self, keys_v=(), keys_g=()) -> dict:
        out = {k: self.vectors.get(k, np.zeros(self.p)) for k in keys_v}
        out.update({k: self.grams.get(k, np.zeros((self.p, self.p))) for k in keys_g})
        return out


def _buffers(part, n: int = 2):
    rows = min(BLOCK_ROWS, max((s.n for s in part.slices), default=1))
    return [np.empty((rows, part.n_columns)) for _ in range(n)]


def _scaled_gram(block, h, out):
    """blockᵀ diag(h) block through ``out`` (h = None: blockᵀ block)."""
    if h is None:
        return block.T @ block
    scaled = out[:block.shape[0]]
    np.multiply(block, np.sqrt(h)[:, None], out=scaled)
    return scaled.T @ scaled


def _block_scatter(piece, X, w, centred, qr=False):
    """The block's weighted scatter (:mod:`ubreg.numerics.aliasing`), in design order."""
    sc = block_scatter(X, w, centred, qr)
    if sc is None or piece.identity:
        return sc
    out = [np.empty_like(a) for a in (sc.mean, sc.lo, sc.hi)]
    for dst, src in zip(out, (sc.mean, sc.lo, sc.hi)):
        dst[piece.order] = src
    if qr:
        R = np.empty_like(sc.R)
        R[:, piece.order] = sc.R
        return Scatter(sc.wsum, out[0], centred, out[1], out[2], R=R)
    C = np.empty_like(sc.C)
    C[np.ix_(piece.order, piece.order)] = sc.C
    return Scatter(sc.wsum, out[0], centred, out[1], out[2], C=C)


def _qr_scatter_sums(part, centred: bool) -> dict:
    """The QR route of the aliasing check (when the scatter route is not sure)."""
    buf, _ = _buffers(part)
    scatter = None
    for piece, start, stop in part.blocks():
        X = piece.unpack(start, stop, buf)
        w = piece.w_block(start, stop)
        scatter = reduce_scatter(merge_scatter(scatter, _block_scatter(piece, X, w, centred,
                                                                       qr=True)))
    return {"scatter_qr": scatter}


def _setup_sums(part, family, centred: bool) -> dict:
    """Σw, Σwy, the weighted scatter factor (aliasing, R's rule on the centred and scaled
    columns), counts, and risk, gradient, Σ w·g and the curvature range at β = 0."""
    acc = _Accumulator(part.n_columns)
    buf, _ = _buffers(part)
    n_pos = n_positive = 0
    wsum = wy = loss = gsum = 0.0
    h0_min, h0_max = np.inf, -np.inf
    scatter = None
    for piece, start, stop in part.blocks():
        X = piece.unpack(start, stop, buf)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        ww = np.ones(len(y)) if w is None else w
        eta = np.zeros(len(y))
        n_pos += int(np.sum(y == 1))
        wsum += float(ww.sum())
        n_positive += int(np.count_nonzero(ww))
        wy += float(ww @ y)
        loss += float(ww @ family.loss(y, eta))
        wg = ww * family.gradient(y, eta)
        gsum += float(wg.sum())
        acc.vector("grad", piece, X.T @ wg)
        h = family.newton_curvature(y, eta)
        if h.size:
            h0_min, h0_max = min(h0_min, float(h.min())), max(h0_max, float(h.max()))
        scatter = merge_scatter(scatter, _block_scatter(piece, X, ww, centred))
    out = acc.result(("grad",))
    out.update({"n_input": part.n_input, "n_dropped": part.n_dropped,
                "na_counts": part.na_counts, "n_used": part.n, "n_pos": n_pos,
                "wsum": wsum, "n_positive": n_positive, "wy": wy, "loss": loss, "gsum": gsum,
                "scatter": scatter,
                "h0_min": h0_min, "h0_max": h0_max})
    return out


def _unpack_working(piece, start, stop, buf, shift):
    """The block's rows, the shifted columns centred (the working design)."""
    X = piece.unpack(start, stop, buf)
    if shift is not None:
        X -= shift[piece.order]
    return X


def _newton_sums(part, beta, family, shift=None) -> dict:
    """Risk, gradient and Hessian at β of the working design (one entry per design
    column; 0 where aliased)."""
    acc = _Accumulator(part.n_columns)
    buf, scratch = _buffers(part)
    loss = 0.0
    for piece, start, stop in part.blocks():
        X = _unpack_working(piece, start, stop, buf, shift)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        eta = X @ beta[piece.order]
        ww = np.ones(len(y)) if w is None else w
        loss += float(ww @ family.loss(y, eta))
        acc.vector("grad", piece, X.T @ (ww * family.gradient(y, eta)))
        acc.gram("hess", piece, _scaled_gram(X, ww * family.newton_curvature(y, eta), scratch))
    out = acc.result(("grad",), ("hess",))
    out["loss"] = loss
    return out


def _final_sums(part, beta, family, eta0: float, shift=None, weight_kind="prior") -> dict:
    """The sandwich pieces (working design), deviances, log-likelihood and extremes
    of p̂ at β."""
    acc = _Accumulator(part.n_columns)
    buf, scratch = _buffers(part)
    totals = {"divergence": 0.0, "null_divergence": 0.0, "loglik": 0.0}
    pq_min, lpm_outside, n_extreme, n_saturated = np.inf, 0, 0, 0
    for piece, start, stop in part.blocks():
        X = _unpack_working(piece, start, stop, buf, shift)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        eta = X @ beta[piece.order]
        ww = np.ones(len(y)) if w is None else w
        p, q = family.posterior_pair(eta)
        fitted = family.posterior(eta)
        saturated = family.saturated(eta)
        n_saturated += int(np.sum(saturated))
        # a saturated row is the family's shape, not a symptom of separation
        extreme = np.where(saturated, np.inf, np.minimum(p, q))
        totals["divergence"] += float(ww @ family.divergence(y, eta))
        totals["null_divergence"] += float(ww @ family.divergence(y, np.full(len(y), eta0)))
        totals["loglik"] += bernoulli_loglik(family, y, eta, ww, weight_kind)
        g = family.gradient(y, eta)
        acc.vector("grad", piece, X.T @ (ww * g))
        h_a = ww * family.hessian(y, eta)
        h_model = ww * family.score_variance(eta)
        gram_a = _scaled_gram(X, h_a, scratch)
        acc.gram("A", piece, gram_a)
        acc.gram("B_model", piece, gram_a if np.array_equal(h_model, h_a)
                 else _scaled_gram(X, h_model, scratch))
        acc.gram("B_robust", piece, _scaled_gram(X, meat_weights(ww, weight_kind) * g ** 2,
                                                 scratch))
        pq_min = min(pq_min, float(np.min(extreme, initial=np.inf)))
        n_extreme += int(np.sum(extreme < SEPARATION_SYMPTOM))
        lpm_outside += int(np.sum((fitted < 0) | (fitted > 1)))
    out = acc.result(("grad",), ("A", "B_model", "B_robust"))
    out.update(totals)
    out.update({"pq_min": pq_min, "lpm_outside": lpm_outside, "n_extreme": n_extreme,
                "n_saturated": n_saturated})
    return out


# ---------------------------------------------------------------------------
# the client side
# ---------------------------------------------------------------------------
def fit_linear_dask(spec: FitSpec, *, solver: str, tol: float, maxiter: int | None,
                    on_separation: str, persist):
    """ULS over the design columns of a dask DataFrame (``ubreg.fit`` routes here), with
    the options :data:`ubreg.methods.uls.LINEAR_OPTIONS`, checked by :func:`ubreg.fit`
    for a Dask frame (``solver="corrective"`` only; ``persist`` applies here only).

    ``on_separation="raise"`` raises :class:`~ubreg.errors.DataError` on the symptom
    alone (some min(p̂, 1 − p̂) < 1e-8): the linear program that confirms separation
    needs all rows at once.  ``persist``: see :func:`ubreg.dask.frame.should_persist`.

    Returns
    -------
    ubreg.dask.result.DaskLinearResult
    """
    from .result import DaskLinearResult

    _check_family(spec)
    family = spec.family
    assert not isinstance(family, list)     # refused by _check_family
    parts = prepare_partitions(spec, persist=persist)
    intercept = (parts.design.column_names.index("(Intercept)") if parts.design.has_intercept
                 else None)
    setup = reduce_sums(parts.frames, _setup_sums, family, intercept is not None)
    _check_rows(setup, parts.parsed.response_name)
    _check_units(setup["scatter"], parts.design.column_names)
    problem = _PartitionProblem(parts.frames, family, setup, intercept)
    run = newton(problem, problem.risk, wsum=problem.wsum, scale=problem.scale,
                 risk_scale=family.risk_scale, tol=tol,
                 maxiter=100 if maxiter is None else maxiter)
    ybar = setup["wy"] / setup["wsum"]
    eta0 = family.intercept_only_eta(ybar) if parts.design.has_intercept else 0.0
    fit, covariance, final = problem.finish(run, eta0, spec.weight_kind)
    result = DaskLinearResult(fit=fit, covariance=covariance, separation=None,
                              stats=_stats(setup, final, problem.passes, parts),
                              partitioned=parts, formula=spec.formula, family=family,
                              design=parts.design, response=parts.response, **spec.recorded(),
                              na_factors=list(setup["na_counts"].items()))
    _warn(result, family, tol, on_separation)
    return result


def _check_r_options(spec) -> None:
    """Refuse what R's model frame offers in memory but a fit of a Dask frame does
    not: offsets, ``subset`` and grouped (proportion) responses, each by name.  The
    formula is read and checked whole first (:func:`~ubreg.design.parse_partitioned`,
    which also refuses its ``offset()`` terms and a ``cbind()`` response)."""
    parse_partitioned(spec.formula, spec.data._meta, trusted=spec.trusted)
    if spec.offset is not None:
        raise ValueError("an offset (offset= or an offset() term) is not available on a dask "
                         "DataFrame; fit the data in memory (ddf.compute()) to use one")
    if spec.subset is not None:
        raise ValueError("subset= is not available on a dask DataFrame: select the rows "
                         "first (ddf[ddf.age > 30]), which Dask does lazily")


def _check_family(spec):
    _check_r_options(spec)
    if isinstance(spec.family, list):
        raise ValueError("a bag of families (family=[...]) needs weak learners, which need the "
                         "data in memory")


def _check_units(scatter, names):
    """Refuse a column outside the doubles' comfortable range, by name: in memory such a
    column is fitted in a power-of-two unit (:func:`~ubreg.fitters.uls.unit_exponents`),
    which the partition sums do not do yet."""
    amax = np.maximum(np.abs(scatter.lo), np.abs(scatter.hi))
    out = (amax > 0) & ((amax < 2.0 ** -UNIT_BAND) | (amax > 2.0 ** UNIT_BAND))
    if out.any():
        cols = [names[j] for j in np.flatnonzero(out)]
        raise DataError(f"design column(s) {cols} hold values of magnitude "
                        f"{float(amax[out][0]):.3g}, outside 2^±{UNIT_BAND}, which a Dask fit "
                        "does not take; rescale them (a change of unit changes only their "
                        "coefficients), or fit the data in memory, which rescales them itself")


def _check_rows(setup, response_name):
    """The errors of the in-memory method on the rows the setup pass counted."""
    if setup["n_used"] == 0:
        raise DataError(f"no rows left after removing missing values: all {setup['n_input']} "
                        "rows have NA in a variable of the formula")
    if setup["n_pos"] in (0, setup["n_used"]):
        raise ResponseError(f"response {response_name!r} has only one class among "
                            f"the {setup['n_used']} rows used")
    if setup["wsum"] <= 0:
        raise DataError("weights are all zero on the rows left after removing missing values")


def _stats(setup, final, passes, parts) -> dict:
    """What the result reads in place of the rows it does not hold."""
    return {"wsum": setup["wsum"], "n_positive": setup["n_positive"],
            "n_used": setup["n_used"], "n_input": setup["n_input"],
            "n_dropped": setup["n_dropped"], "deviance": 2.0 * final["divergence"],
            "null_deviance": 2.0 * final["null_divergence"], "loglik": final["loglik"],
            "pq_min": final["pq_min"], "n_extreme": final["n_extreme"],
            "lpm_outside": final["lpm_outside"], "passes": passes,
            "n_saturated": final["n_saturated"],
            "partitions": len(parts.frames), "persisted": parts.persisted,
            "design_bytes": parts.design_bytes}


class _PartitionProblem(NewtonProblem):
    """The Newton iteration's risk, gradient and Hessian as partition-wise sums, on the
    working design (aliased columns left out, columns far from zero centred, as in
    memory); counts the passes made.

    A candidate's pass brings its gradient and Hessian along with its risk, so an
    accepted step costs one pass (a rejected one, one more).
    """

    #: the point of the last trial, and the gradient and Hessian its pass brought
    _candidate: np.ndarray | None
    _pending: tuple[np.ndarray, np.ndarray] | None

    def __init__(self, frames, family, setup, intercept):
        self.frames, self.family, self.wsum = frames, family, setup["wsum"]
        self.passes = 1                                   # the setup pass
        aliased, sure = aliased_from_gram(setup["scatter"], intercept)
        if not sure:          # the QR route: one more pass (module aliasing)
            qr = reduce_sums(frames, _qr_scatter_sums, intercept is not None)["scatter_qr"]
            factor = reduce_scatter(qr)
            assert factor is not None       # the setup pass found rows of positive weight
            aliased = aliased_from_r(factor, intercept)
            self.passes += 1
        check = AliasCheck(aliased, intercept, setup["scatter"])
        self.check = check
        self.keep = keep = ~check.aliased
        self.sub = np.ix_(keep, keep)
        self.shift = working_shift(check)
        self.scale = working_scale(check, self.shift)
        self.beta = np.zeros(int(keep.sum()))
        self.risk = setup["loss"] / self.wsum / family.risk_scale
        grad = setup["grad"] - (0.0 if self.shift is None else self.shift * setup["gsum"])
        if setup["h0_min"] == setup["h0_max"]:      # one curvature at β = 0 (every family)
            self.grad = grad[keep]
            self.hess = setup["h0_min"] * working_gram(check, self.shift)
        else:
            self._sums(self.beta)
            assert self._pending is not None       # set by _sums
            self.grad, self.hess = self._pending
        self._candidate = self._pending = None

    def full(self, coef):
        out = np.zeros(len(self.keep))          # aliased columns: 0 in the partition sums
        out[self.keep] = coef
        return out

    def _sums(self, beta):
        """One pass at β: the risk, and the gradient and Hessian kept as pending."""
        sums = reduce_sums(self.frames, _newton_sums, self.full(beta), self.family, self.shift)
        self.passes += 1
        self._pending = sums["grad"][self.keep], sums["hess"][self.sub]
        return sums["loss"] / self.wsum / self.family.risk_scale

    def gradient(self):
        return self.grad

    def hessian(self, iteration):
        return self.hess

    def trial(self, step, t):
        self._candidate = self.beta - t * step
        return self._sums(self._candidate)

    def accept(self, step, t):
        assert self._candidate is not None and self._pending is not None    # after trial()
        self.beta = self._candidate
        self.grad, self.hess = self._pending

    def finish(self, run, eta0, weight_kind="prior"):
        """The final pass: the LinearFit, the covariances (mapped back from the working
        design) and the final sums."""
        keep, sub = self.keep, self.sub
        final = reduce_sums(self.frames, _final_sums, self.full(self.beta), self.family, eta0,
                            self.shift, weight_kind)
        self.passes += 1
        proto = WorkingColumns(self.check.aliased, self.shift, self.check.intercept)
        T = working_transform(proto, 1.0)               # patsy's intercept column is 1
        covariance = covariances(final["A"][sub], final["B_model"][sub], final["B_robust"][sub],
                                 T)
        coef = np.full(len(keep), np.nan)
        coef[keep] = self.beta if T is None else T @ self.beta
        final_edges = -final["grad"][keep] / (self.wsum * self.scale)
        fit = LinearFit(coef=coef, aliased=self.check.aliased.copy(), eta=None,
                        iterations=run.iterations, converged=run.converged,
                        max_edge=float(np.max(np.abs(final_edges), initial=0.0)),
                        solver="corrective", risk_path=np.asarray(run.risk_path),
                        edge_path=np.asarray(run.edge_path), stalled=run.stalled,
                        shift=self.shift, intercept=self.check.intercept)
        return fit, covariance, final


def _warn(result, family, tol, on_separation="warn"):
    stats = result._stats
    if family.separation_possible and stats["pq_min"] < SEPARATION_SYMPTOM:
        msg = (f"fitted probabilities numerically 0 or 1 occurred ({stats['n_extreme']} rows "
               f"with min(p, 1 - p) < {SEPARATION_SYMPTOM:g}): the data may be separated "
               "(Lemma 8). The linear-program check needs all rows in memory and is not run on "
               "a dask DataFrame; fit a sample in memory to diagnose.")
        if on_separation == "raise":
            raise DataError(msg + " (on_separation='raise' raises on this symptom on a dask "
                                  "DataFrame)")
        warn(msg, SeparationWarning)
    elif not result.is_linear_probability_model and stats["pq_min"] < R_EPS:
        warn(EXTREME_MESSAGE, SeparationWarning)
    message = convergence_message(result.fit_info, tol)
    if message is not None:
        warn(message, ConvergenceWarning)
