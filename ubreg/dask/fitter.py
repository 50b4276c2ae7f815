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

The stopping rule (largest |normalised edge| ≤ tol), the line search and the
linear algebra on the client are those of the in-memory fitter.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import ConvergenceWarning, DataError, ResponseError, SeparationWarning
from ..fit import FitSpec
from ..fitters.linear_algebra import aliased_columns, inverse_spd, solve_spd
from ..fitters.uls import LinearFit, _accept
from ..inference import bernoulli_loglik
from ..methods.uls import _R_EPS, _SEPARATION_SYMPTOM, _separation_possible
from .frame import prepare_partitions
from .packed import BLOCK_ROWS
from .reduce import reduce_sums

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


def _setup_sums(part, family) -> dict:
    """Σw, Σwy, XᵀWX, max|x_j|, counts, and risk, gradient and Hessian at β = 0."""
    acc = _Accumulator(part.n_columns)
    buf, scratch = _buffers(part)
    n_pos = 0
    wsum = wy = loss = 0.0
    colmax = np.zeros(part.n_columns)
    for piece in part.slices:
        colmax = np.maximum(colmax, piece.colmax())
    for piece, start, stop in part.blocks():
        X = piece.unpack(start, stop, buf)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        ww = np.ones(len(y)) if w is None else w
        eta = np.zeros(len(y))
        n_pos += int(np.sum(y == 1))
        wsum += float(ww.sum())
        wy += float(ww @ y)
        loss += float(ww @ family.loss(y, eta))
        acc.vector("grad", piece, X.T @ (ww * family.gradient(y, eta)))
        gram = _scaled_gram(X, w, scratch)
        acc.gram("gram", piece, gram)
        h = family.hessian(y, eta)
        if h.size and np.all(h == h[0]):
            acc.gram("hess", piece, h[0] * gram)          # constant curvature at β = 0
        else:
            acc.gram("hess", piece, _scaled_gram(X, ww * h, scratch))
    out = acc.result(("grad",), ("gram", "hess"))
    out.update({"n_input": part.n_input, "n_dropped": part.n_dropped,
                "na_counts": part.na_counts, "n_used": part.n, "n_pos": n_pos,
                "wsum": wsum, "wy": wy, "colmax": colmax, "loss": loss})
    return out


def _newton_sums(part, beta, family) -> dict:
    """Risk, gradient and Hessian at β (one entry per design column; 0 where aliased)."""
    acc = _Accumulator(part.n_columns)
    buf, scratch = _buffers(part)
    loss = 0.0
    for piece, start, stop in part.blocks():
        X = piece.unpack(start, stop, buf)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        eta = X @ beta[piece.order]
        ww = np.ones(len(y)) if w is None else w
        loss += float(ww @ family.loss(y, eta))
        acc.vector("grad", piece, X.T @ (ww * family.gradient(y, eta)))
        acc.gram("hess", piece, _scaled_gram(X, ww * family.hessian(y, eta), scratch))
    out = acc.result(("grad",), ("hess",))
    out["loss"] = loss
    return out


def _final_sums(part, beta, family, eta0: float) -> dict:
    """The sandwich pieces, deviances, log-likelihood and extremes of p̂ at β."""
    acc = _Accumulator(part.n_columns)
    buf, scratch = _buffers(part)
    totals = {"loss": 0.0, "null_loss": 0.0, "loglik": 0.0}
    pq_min, lpm_outside, n_extreme = np.inf, 0, 0
    for piece, start, stop in part.blocks():
        X = piece.unpack(start, stop, buf)
        y, w = piece.y_block(start, stop), piece.w_block(start, stop)
        eta = X @ beta[piece.order]
        ww = np.ones(len(y)) if w is None else w
        p, q = family.posterior_pair(eta)
        fitted = family.posterior(eta)
        extreme = np.minimum(p, q)
        totals["loss"] += float(ww @ family.loss(y, eta))
        totals["null_loss"] += float(ww @ family.loss(y, np.full(len(y), eta0)))
        totals["loglik"] += bernoulli_loglik(family, y, eta, ww)
        g = family.gradient(y, eta)
        acc.vector("grad", piece, X.T @ (ww * g))
        h_a = ww * family.hessian(y, eta)
        h_model = ww * family.score_variance(eta)
        gram_a = _scaled_gram(X, h_a, scratch)
        acc.gram("A", piece, gram_a)
        acc.gram("B_model", piece, gram_a if np.array_equal(h_model, h_a)
                 else _scaled_gram(X, h_model, scratch))
        acc.gram("B_robust", piece, _scaled_gram(X, ww * g ** 2, scratch))
        pq_min = min(pq_min, float(np.min(extreme, initial=np.inf)))
        n_extreme += int(np.sum(extreme < _SEPARATION_SYMPTOM))
        lpm_outside += int(np.sum((fitted < 0) | (fitted > 1)))
    out = acc.result(("grad",), ("A", "B_model", "B_robust"))
    out.update(totals)
    out.update({"pq_min": pq_min, "lpm_outside": lpm_outside, "n_extreme": n_extreme})
    return out


# ---------------------------------------------------------------------------
# the client side
# ---------------------------------------------------------------------------
def fit_linear_dask(spec: FitSpec, *, solver: str = "corrective", tol: float = 1e-10,
                    maxiter: int | None = None, on_separation: str = "warn",
                    persist="auto"):
    """ULS over the design columns of a dask DataFrame (``ubreg.fit`` routes here).

    Parameters
    ----------
    spec : FitSpec
        ``spec.data`` is a ``dask.dataframe.DataFrame``; ``spec.weights`` is
        ``None`` or the name of one of its columns.
    solver : {"corrective"}
        Only the totally corrective (Newton) solver: one pass per iteration.
        The coordinate solver would need a pass per column update.
    tol, maxiter
        As for the in-memory method.
    on_separation : {"warn", "raise"}
        What to do when fitted probabilities are numerically 0 or 1 (some
        min(p̂, 1 − p̂) < 1e-8, the symptom of separation, Lemma 8).  The
        linear program that confirms separation needs all rows at once and is
        not run on a dask frame: ``"warn"`` warns (``SeparationWarning``),
        ``"raise"`` raises :class:`~ubreg.errors.DataError` on the symptom
        alone (in memory it raises only when the program confirms it).
    persist : {"auto", True, False}, default "auto"
        Keep each partition's design in (cluster) memory for the Newton
        passes (packed losslessly, :mod:`ubreg.dask.packed`), or rebuild it
        from the source at every pass (``False``: memory bounded by a few
        partitions, time a multiple).  ``"auto"`` persists when the design
        fits comfortably: see :func:`ubreg.dask.frame.should_persist`.

    Returns
    -------
    ubreg.dask.result.DaskLinearResult
    """
    from .result import DaskLinearResult

    if isinstance(spec.family, list):
        raise ValueError("a bag of families (family=[...]) needs weak learners, which need the "
                         "data in memory")
    if solver != "corrective":
        raise ValueError(f"solver={solver!r} is not available on a dask DataFrame: only "
                         "solver='corrective' (one pass over the partitions per Newton step)")
    if on_separation not in ("warn", "raise"):
        raise ValueError(f"on_separation must be 'warn' or 'raise', got {on_separation!r}")
    if persist not in ("auto", True, False):
        raise ValueError(f"persist must be 'auto', True or False, got {persist!r}")
    maxiter = 100 if maxiter is None else maxiter
    family = spec.family
    parts = prepare_partitions(spec, persist=persist)
    frames = parts.frames
    setup = reduce_sums(frames, _setup_sums, family)
    if setup["n_used"] == 0:
        raise DataError(f"no rows left after removing missing values: all {setup['n_input']} "
                        "rows have NA in a variable of the formula")
    if setup["n_pos"] in (0, setup["n_used"]):
        raise ResponseError(f"response {parts.parsed.response_name!r} has only one class among "
                            f"the {setup['n_used']} rows used")
    wsum = setup["wsum"]
    if wsum <= 0:
        raise DataError("weights are all zero on the rows left after removing missing values")

    aliased = aliased_columns(setup["gram"])
    keep = ~aliased
    sub = np.ix_(keep, keep)
    scale = setup["colmax"][keep]
    scale = np.where(scale > 0, scale, 1.0)
    b = getattr(family, "b", 1.0) if family.is_permissible else 1.0

    def full(coef):
        out = np.zeros(len(keep))          # aliased columns: 0 in the partition sums
        out[keep] = coef
        return out

    beta = np.zeros(int(keep.sum()))
    risk = setup["loss"] / wsum / b
    grad, hess = setup["grad"][keep], setup["hess"][sub]
    risk_path, edge_path = [], []
    converged = stalled = False
    iterations = passes = 0
    while True:
        max_edge = float(np.max(np.abs(grad / (wsum * scale)), initial=0.0))
        risk_path.append(risk)
        edge_path.append(max_edge)
        if max_edge <= tol:
            converged = True
            break
        if iterations >= maxiter:
            break
        step = solve_spd(hess, grad)
        decrease = float(grad @ step) / wsum / b
        t = 1.0
        while True:
            candidate = beta - t * step
            sums = reduce_sums(frames, _newton_sums, full(candidate), family)
            passes += 1
            risk_new = sums["loss"] / wsum / b
            if np.isfinite(risk_new) and _accept(risk_new, risk, t * decrease):
                break
            t *= 0.5
            if t < 1e-12:
                break
        iterations += 1
        if t < 1e-12:
            stalled = True
            break
        beta, risk = candidate, risk_new
        grad, hess = sums["grad"][keep], sums["hess"][sub]

    ybar = setup["wy"] / wsum
    eta0 = family.intercept_only_eta(ybar) if parts.design.has_intercept else 0.0
    final = reduce_sums(frames, _final_sums, full(beta), family, eta0)
    passes += 2
    A_inv = inverse_spd(final["A"][sub])
    covariance = {}
    for kind in ("model", "robust"):
        V = A_inv @ final[f"B_{kind}"][sub] @ A_inv
        covariance[kind] = (V + V.T) / 2.0
    coef = np.full(len(keep), np.nan)
    coef[keep] = beta
    final_edges = -final["grad"][keep] / (wsum * scale)
    fit = LinearFit(coef=coef, aliased=aliased.copy(), eta=None, iterations=iterations,
                    converged=converged,
                    max_edge=float(np.max(np.abs(final_edges), initial=0.0)),
                    solver="corrective", risk_path=np.asarray(risk_path),
                    edge_path=np.asarray(edge_path), stalled=stalled)
    stats = {"wsum": wsum, "n_used": setup["n_used"], "n_input": setup["n_input"],
             "n_dropped": setup["n_dropped"], "deviance": 2.0 * final["loss"],
             "null_deviance": 2.0 * final["null_loss"], "loglik": final["loglik"],
             "pq_min": final["pq_min"], "n_extreme": final["n_extreme"],
             "lpm_outside": final["lpm_outside"], "passes": passes,
             "partitions": len(frames), "persisted": parts.persisted,
             "design_bytes": parts.design_bytes}
    na_factors = list(setup["na_counts"].items())
    result = DaskLinearResult(fit=fit, covariance=covariance, separation=None, stats=stats,
                              partitioned=parts, formula=spec.formula, family=family,
                              design=parts.design, response=parts.response, call=spec.call,
                              na_factors=na_factors)
    _warn(result, family, tol, on_separation)
    return result


def _warn(result, family, tol, on_separation="warn"):
    stats = result._stats
    if _separation_possible(family) and stats["pq_min"] < _SEPARATION_SYMPTOM:
        msg = (f"fitted probabilities numerically 0 or 1 occurred ({stats['n_extreme']} rows "
               f"with min(p, 1 - p) < {_SEPARATION_SYMPTOM:g}): the data may be separated "
               "(Lemma 8). The linear-program check needs all rows in memory and is not run on "
               "a dask DataFrame; fit a sample in memory to diagnose.")
        if on_separation == "raise":
            raise DataError(msg + " (on_separation='raise' raises on this symptom on a dask "
                                  "DataFrame)")
        warnings.warn(msg, SeparationWarning, stacklevel=6)
    elif not result.is_linear_probability_model and stats["pq_min"] < _R_EPS:
        warnings.warn("fitted probabilities numerically 0 or 1 occurred", SeparationWarning,
                      stacklevel=6)
    if not result.fit_info.converged:
        why = ("the line search could not decrease the risk" if result.fit_info.stalled
               else f"after {result.iterations} iterations")
        warnings.warn(f"ULS did not converge: max |edge| {result.fit_info.max_edge:.3g} > tol "
                      f"{tol:g} ({why})", ConvergenceWarning, stacklevel=6)
