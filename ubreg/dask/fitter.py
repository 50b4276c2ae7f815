"""Totally corrective ULS on partitioned data (paper 000 Algorithm 1, MATH.md §4).

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
from .reduce import reduce_sums

__all__ = ["fit_linear_dask"]


# ---------------------------------------------------------------------------
# partition-wise sums (run on the workers)
# ---------------------------------------------------------------------------
_CHUNK = 65_536   # rows per block of a Gram matrix: bounds the scaled copy of X


def weighted_gram(X: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Xᵀ diag(h) X in blocks of rows (as ``fitters.linear_algebra.weighted_gram``,
    whose scaled copy of the whole partition would cost a worker its size again)."""
    p = X.shape[1]
    out = np.zeros((p, p))
    for start in range(0, X.shape[0], _CHUNK):
        Xs = X[start:start + _CHUNK] * np.sqrt(h[start:start + _CHUNK])[:, None]
        out += Xs.T @ Xs
    return out

def _setup_sums(mf: dict, family) -> dict:
    X, y, w = mf["X"], mf["y"], mf["w"]
    eta = np.zeros(len(y))
    return {
        "n_input": mf["n_input"], "n_dropped": mf["n_dropped"], "na_counts": mf["na_counts"],
        "n_used": len(y), "n_pos": int(np.sum(y == 1)), "wsum": float(w.sum()),
        "wy": float(w @ y), "gram": weighted_gram(X, w),
        "colmax": np.max(np.abs(X), axis=0, initial=0.0),
        "loss": float(w @ family.loss(y, eta)),
        "grad": X.T @ (w * family.gradient(y, eta)),
        "hess": weighted_gram(X, w * family.hessian(y, eta)),
    }


def _columns(X, keep):
    return X if keep.all() else X[:, keep]


def _newton_sums(mf: dict, keep, beta, family) -> dict:
    X = _columns(mf["X"], keep)
    y, w = mf["y"], mf["w"]
    eta = X @ beta
    return {"loss": float(w @ family.loss(y, eta)),
            "grad": X.T @ (w * family.gradient(y, eta)),
            "hess": weighted_gram(X, w * family.hessian(y, eta))}


def _final_sums(mf: dict, keep, beta, family, eta0: float) -> dict:
    X = _columns(mf["X"], keep)
    y, w = mf["y"], mf["w"]
    eta = X @ beta
    p, q = family.posterior_pair(eta)
    fitted = family.posterior(eta)
    return {
        "loss": float(w @ family.loss(y, eta)),
        "null_loss": float(w @ family.loss(y, np.full(len(y), eta0))),
        "loglik": bernoulli_loglik(family, y, eta, w),
        "grad": X.T @ (w * family.gradient(y, eta)),
        "A": weighted_gram(X, w * family.hessian(y, eta)),
        "B_model": weighted_gram(X, w * family.score_variance(eta)),
        "B_robust": weighted_gram(X, w * family.gradient(y, eta) ** 2),
        "pq_min": float(np.min(np.minimum(p, q), initial=np.inf)),
        "lpm_outside": int(np.sum((fitted < 0) | (fitted > 1))),
    }


# ---------------------------------------------------------------------------
# the client side
# ---------------------------------------------------------------------------
def fit_linear_dask(spec: FitSpec, *, solver: str = "corrective", tol: float = 1e-10,
                    maxiter: int | None = None, on_separation: str = "warn",
                    persist: bool = True):
    """ULS over the design columns of a dask DataFrame (``ubreg.fit`` routes here).

    Parameters
    ----------
    spec : FitSpec
        ``spec.data`` is a ``dask.dataframe.DataFrame``; ``spec.weights`` is
        ``None`` or the name of one of its columns.
    solver : {"corrective"}
        Only the totally corrective (Newton) solver: one pass per iteration.
        The coordinate solver would need a pass per column update.
    tol, maxiter, on_separation
        As for the in-memory method.  The Lemma 8 linear program needs all
        rows at once, so on a dask frame a fit with probabilities numerically
        0 or 1 only warns (``SeparationWarning``), whatever ``on_separation``.
    persist : bool, default True
        Keep each partition's design matrix in (cluster) memory for the
        Newton passes.  ``False`` rebuilds it from the source at every pass:
        memory bounded by a few partitions, time a multiple.

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
            sums = reduce_sums(frames, _newton_sums, keep, candidate, family)
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
        grad, hess = sums["grad"], sums["hess"]

    ybar = setup["wy"] / wsum
    eta0 = family.intercept_only_eta(ybar) if parts.design.has_intercept else 0.0
    final = reduce_sums(frames, _final_sums, keep, beta, family, eta0)
    passes += 2
    A_inv = inverse_spd(final["A"])
    covariance = {}
    for kind in ("model", "robust"):
        V = A_inv @ final[f"B_{kind}"] @ A_inv
        covariance[kind] = (V + V.T) / 2.0
    coef = np.full(len(keep), np.nan)
    coef[keep] = beta
    final_edges = -final["grad"] / (wsum * scale)
    fit = LinearFit(coef=coef, aliased=aliased.copy(), eta=None, iterations=iterations,
                    converged=converged,
                    max_edge=float(np.max(np.abs(final_edges), initial=0.0)),
                    solver="corrective", risk_path=np.asarray(risk_path),
                    edge_path=np.asarray(edge_path), stalled=stalled)
    stats = {"wsum": wsum, "n_used": setup["n_used"], "n_input": setup["n_input"],
             "n_dropped": setup["n_dropped"], "deviance": 2.0 * final["loss"],
             "null_deviance": 2.0 * final["null_loss"], "loglik": final["loglik"],
             "pq_min": final["pq_min"], "lpm_outside": final["lpm_outside"],
             "passes": passes, "partitions": len(frames)}
    na_factors = list(setup["na_counts"].items())
    result = DaskLinearResult(fit=fit, covariance=covariance, separation=None, stats=stats,
                              partitioned=parts, formula=spec.formula, family=family,
                              design=parts.design, response=parts.response, call=spec.call,
                              na_factors=na_factors)
    _warn(result, family, tol)
    return result


def _warn(result, family, tol):
    stats = result._stats
    if _separation_possible(family) and stats["pq_min"] < _SEPARATION_SYMPTOM:
        warnings.warn("fitted probabilities numerically 0 or 1 occurred: the data may be "
                      "separated (Lemma 8). The linear-program check needs all rows in memory "
                      "and is not run on a dask DataFrame; fit a sample in memory to diagnose.",
                      SeparationWarning, stacklevel=6)
    elif not result.is_linear_probability_model and stats["pq_min"] < _R_EPS:
        warnings.warn("fitted probabilities numerically 0 or 1 occurred", SeparationWarning,
                      stacklevel=6)
    if not result.fit_info.converged:
        why = ("the line search could not decrease the risk" if result.fit_info.stalled
               else f"after {result.iterations} iterations")
        warnings.warn(f"ULS did not converge: max |edge| {result.fit_info.max_edge:.3g} > tol "
                      f"{tol:g} ({why})", ConvergenceWarning, stacklevel=6)
