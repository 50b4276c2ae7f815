"""Cluster-robust covariances of a linear fit: R's ``sandwich::vcovCL`` (docs/inference.md).

With the scores sᵢ = wᵢ ℓ'ᵢ xᵢ of the rows (the robust HC0's, :mod:`.inference`) summed
within each cluster, u_g = Σ_{i ∈ g} sᵢ, the covariance is A⁻¹ B A⁻¹ with the meat

    B = c · Σ_d ±(G_d / (G_d − 1)) Σ_g u_g u_gᵀ,

d running over the clustering dimensions and, for two or more, their intersections
(inclusion–exclusion: + for one dimension, − for a pair, ...: Cameron, Gelbach and
Miller 2011, ``meatCL``'s ``multi0 = FALSE``), G_d the number of clusters of d
(``cadjust = TRUE``), and c = (n − 1)/(n − k) for HC1, 1 for HC0 (n = ``nobs``, k the
rank).  HC2 and HC3 adjust the scores of each cluster by (I − H_gg)^(−½) or
(I − H_gg)^(−1), H_gg = X_g A⁻¹ X_gᵀ diag(w ℓ'')_g, and multiply by (G − 1)/G (Bell and
McCaffrey 2002; ``meatCL``'s "HC2"/"HC3" for a glm).

R's default ``type`` for a glm is HC0 (HC1 only for an ``lm``), with the G/(G − 1)
adjustment; it is ubreg's default too.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import sparse

from ..fitters.uls import working_design, working_transform
from ..numerics.factor_matrix import row_blocks
from ..numerics.linalg import weighted_gram
from .inference import _bread_inverse
from .terms import row_positions

if TYPE_CHECKING:
    from .linear import LinearResult

__all__ = ["Clusters", "cluster_kind", "resolve_clusters", "clustered_covariance",
           "cluster_label", "cluster_meat"]

#: the types of ``sandwich::vcovCL`` that ubreg computes (R's "HC" is HC0)
CL_TYPES = ("HC0", "HC1", "HC2", "HC3")


@dataclass(frozen=True)
class Clusters:
    """The clusters of the training rows: per dimension its name, the integer code of
    each training row (−1 for a row of weight 0, which is in no cluster) and the
    number of clusters G."""

    names: tuple[str, ...]
    codes: tuple[np.ndarray, ...]
    sizes: tuple[int, ...]

    def describe(self) -> str:
        """``"g, G = 37"``; ``"g (G = 37) × h (G = 12)"`` for two-way clustering."""
        if len(self.names) == 1:
            return f"{self.names[0]}, G = {self.sizes[0]}"
        return " × ".join(f"{n} (G = {g})" for n, g in zip(self.names, self.sizes))


def cluster_kind(kind: str | None) -> str:
    """The ``vcovCL`` type asked for: None is R's default for a glm, HC0."""
    if kind is None:
        return "HC0"
    if isinstance(kind, str) and (kind == "robust" or kind.upper() in CL_TYPES):
        return "HC0" if kind == "robust" else kind.upper()
    raise ValueError(f"a cluster-robust covariance is a sandwich (sandwich::vcovCL): its type "
                     f"must be 'HC0' (the default, R's for a glm), 'HC1', 'HC2' or 'HC3', "
                     f"got {kind!r}")


def cluster_label(kind: str, clusters: Clusters) -> str:
    """How a summary names the covariance: ``cluster-robust HC0 (sandwich::vcovCL;
    clusters: g, G = 37)``."""
    return (f"cluster-robust {kind} (sandwich::vcovCL(type = \"{kind}\"); clusters: "
            f"{clusters.describe()})")


# ---- the clusters of the training rows ----------------------------------------------
def resolve_clusters(result: LinearResult, cluster: Any) -> Clusters:
    """The clusters named by ``cluster`` (R's ``vcovCL(cluster = )``).

    ``cluster`` is a column name of the data the model was fitted on (R's ``~ g``), a
    list or tuple of names (multi-way clustering), one label per training row, or one
    per row of the data given to the fit (before or after ``subset``): the training
    rows are taken from it, as ``meatCL`` drops the rows of ``na.action``.  A
    DataFrame gives one dimension per column.  Rows of weight 0 are in no cluster.
    """
    if isinstance(cluster, str):
        columns: list[tuple[str, np.ndarray]] = [(cluster, _column(result, cluster))]
    elif isinstance(cluster, pd.DataFrame):
        columns = [(str(c), _aligned(result, cluster[c].to_numpy(), str(c)))
                   for c in cluster.columns]
    elif _are_names(result, cluster):
        columns = [(c, _column(result, c)) for c in cluster]
    else:
        labels = np.asarray(cluster, dtype=object)
        if labels.ndim != 1:
            raise ValueError(f"cluster labels must be one-dimensional (a DataFrame for "
                             f"several dimensions), got shape {labels.shape}")
        columns = [("cluster", _aligned(result, labels, "cluster"))]
    if not columns:
        raise ValueError("cluster names no column")
    live = result.weights > 0
    names, codes, sizes = [], [], []
    for name, labels in columns:
        missing = int(np.sum(pd.isna(labels[live])))
        if missing:
            raise ValueError(f"cluster {name!r} has {missing} missing label(s) among the "
                             "training rows: refit without those rows (subset) or give them "
                             "a cluster (R's vcovCL cannot handle NAs in 'cluster' either)")
        code = np.full(len(labels), -1, dtype=np.intp)
        code[live], uniques = pd.factorize(pd.Series(labels[live], dtype=object), sort=True)
        if len(uniques) < 2:
            raise ValueError(f"cluster {name!r} has {len(uniques)} cluster(s) among the "
                             "training rows: a cluster-robust covariance needs at least two "
                             "(G/(G − 1) is not defined for G = 1)")
        names.append(name)
        codes.append(code)
        sizes.append(len(uniques))
    return Clusters(tuple(names), tuple(codes), tuple(sizes))


def _are_names(result: LinearResult, cluster: Any) -> bool:
    """A list or tuple of strings that are not one label per row: column names."""
    if not isinstance(cluster, (list, tuple)) or not cluster:
        return False
    if not all(isinstance(c, str) for c in cluster):
        return False
    return len(cluster) not in _lengths(result)


def _data(result: LinearResult) -> Any:
    prov = result.provenance
    return None if prov is None else prov.data


def _lengths(result: LinearResult) -> set[int]:
    data = _data(result)
    out = {len(result.y)}
    if result.input_index is not None:
        out.add(len(result.input_index))
    if isinstance(data, pd.DataFrame):
        out.add(len(data))
    return out


def _column(result: LinearResult, name: str) -> np.ndarray:
    """The column ``name`` of the fit's data, at the training rows."""
    data = _data(result)
    if not isinstance(data, pd.DataFrame):
        raise ValueError(f"cluster={name!r} reads the data the model was fitted on, which "
                         "this result does not keep (a pickle, a copy or a model not made by "
                         "ubreg.fit): give the labels, one per training row")
    if name not in data.columns:
        raise ValueError(f"cluster {name!r} is not a column of the data the model was "
                         f"fitted on (columns: {', '.join(map(str, data.columns))})")
    return _aligned(result, data[name].to_numpy(), name)


def _aligned(result: LinearResult, labels: np.ndarray, name: str) -> np.ndarray:
    """``labels`` at the training rows: as given (one per training row) or taken from
    the rows of the fit's data (before or after ``subset``) by position."""
    n = len(result.y)
    if len(labels) == n:
        return np.asarray(labels, dtype=object)
    data = _data(result)
    for rows in (result.input_index, data.index if isinstance(data, pd.DataFrame) else None):
        if rows is not None and len(labels) == len(rows):
            try:
                where = row_positions(rows, result.index)
            except IndexError:
                break
            return np.asarray(labels, dtype=object)[where]
    raise ValueError(f"cluster {name!r} has {len(labels)} labels; the model has {n} training "
                     f"rows (give one label per training row, or per row of the data it was "
                     f"fitted on)")


# ---- the covariance -----------------------------------------------------------------
def _dimensions(clusters: Clusters) -> list[tuple[float, np.ndarray, int]]:
    """(sign, codes, G) of each dimension and each intersection of dimensions
    (inclusion–exclusion, ``meatCL``)."""
    out = []
    d = len(clusters.codes)
    for r in range(1, d + 1):
        for combo in combinations(range(d), r):
            if r == 1:
                code, g = clusters.codes[combo[0]], clusters.sizes[combo[0]]
            else:
                stacked = np.column_stack([clusters.codes[j] for j in combo])
                live = stacked[:, 0] >= 0
                code = np.full(len(stacked), -1, dtype=np.intp)
                _, inverse = np.unique(stacked[live], axis=0, return_inverse=True)
                code[live] = inverse.ravel()
                g = int(code.max()) + 1
            out.append((1.0 if r % 2 else -1.0, code, g))
    return out


def _cluster_sums(X: Any, scores: np.ndarray, code: np.ndarray, g: int) -> np.ndarray:
    """U (G × p): row g the sum of scoresᵢ xᵢ over the rows of cluster g, by blocks of
    rows (a factor matrix never made dense whole)."""
    U = np.zeros((g, X.shape[1]))
    for start, stop, rows in row_blocks(X):
        c, s = code[start:stop], scores[start:stop]
        live = c >= 0
        pick = sparse.csr_matrix((s[live], (c[live], np.flatnonzero(live))),
                                 shape=(g, stop - start))
        U += pick @ rows
    return U


def cluster_meat(kind: str, X: Any, scores: np.ndarray, clusters: Clusters, n: float,
                 k: int, adjusted: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """``meatCL``'s meat times n: c Σ_d ±(G_d/(G_d − 1)) UᵀU (module docstring).

    ``adjusted``: for HC2/HC3 the rows' adjusted scores per dimension (n × p each,
    :func:`_adjusted_scores`), already scaled by √((G − 1)/G)."""
    B = np.zeros((X.shape[1], X.shape[1]))
    for j, (sign, code, g) in enumerate(_dimensions(clusters)):
        if adjusted is None:
            U = _cluster_sums(X, scores, code, g)
        else:
            U = _cluster_sums(adjusted[j], np.ones(len(code)), code, g)
        B += sign * (g / (g - 1.0)) * (U.T @ U)
    if kind == "HC1":
        B *= (n - 1.0) / (n - k)
    return B


def _adjusted_scores(kind: str, X: np.ndarray, res: np.ndarray, curvature: np.ndarray,
                     A_inv: np.ndarray, code: np.ndarray, g: int) -> np.ndarray:
    """The rows' scores adjusted cluster by cluster (``meatCL``'s HC2/HC3 of a glm):
    the rows of cluster g are ((I − H_gg)^(−a) r_g)ᵢ xᵢ, H_gg = X_g A⁻¹ X_gᵀ diag(c_g),
    a = ½ (HC2) or 1 (HC3); times √((G − 1)/G)."""
    vals, vecs = np.linalg.eigh(A_inv)
    L = vecs * np.sqrt(np.clip(vals, 0.0, None))           # A⁻¹ = L Lᵀ
    a = 0.5 if kind == "HC2" else 1.0
    out = np.zeros_like(X)
    order = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[order], np.arange(g + 1))
    for j in range(g):
        rows = order[bounds[j]:bounds[j + 1]]
        adjusted = _cluster_power(X[rows] @ L, curvature[rows], res[rows], a, kind)
        out[rows] = adjusted[:, None] * X[rows]
    return out * np.sqrt((g - 1.0) / g)


def _cluster_power(K: np.ndarray, c: np.ndarray, r: np.ndarray, a: float,
                   kind: str) -> np.ndarray:
    """(I − H)^(−a) r for H = K Kᵀ diag(c), K = X_g L (A⁻¹ = L Lᵀ), of rank ≤ p.

    With S = Kᵀ diag(c) K = Q diag(μ) Qᵀ: f(I − H) = I − K Q φ(μ) Qᵀ Kᵀ diag(c),
    φ(μ) = (1 − (1 − μ)^(−a))/μ (−a at μ = 0), the same matrix function as
    ``sandwich:::matrixpower``'s eigen decomposition of I − H (whose eigenvalue 1 is
    repeated n_g − p times: a p × p problem, O(n_g p²), for any n_g); like it, HC2
    reads an eigenvalue 1 − μ below ε^(1/1.3) as 0 (an infinite power)."""
    mu, Q = np.linalg.eigh(K.T @ (c[:, None] * K))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_t = np.log1p(-mu)
        if kind == "HC2":
            log_t = np.where(1.0 - mu < np.finfo(float).eps ** (1 / 1.3), -np.inf, log_t)
        phi = np.where(mu != 0.0, -np.expm1(-a * log_t) / mu, -a)
    KQ = K @ Q
    return r - KQ @ (phi * (KQ.T @ (c * r)))


def clustered_covariance(result: LinearResult, kind: str | None,
                         cluster: Any) -> tuple[np.ndarray, Clusters, str]:
    """R's ``sandwich::vcovCL(fit, cluster, type = kind)`` of a linear fit (module
    docstring): the p × p covariance (NaN for aliased and flat coefficients), the
    clusters and the type.

    Prior weights (R's glm): the score of row i is wᵢℓ'ᵢxᵢ, n = ``nobs``.  Frequency
    weights (wᵢ copies of row i, all in its cluster): the same cluster sums, n = Σ w:
    R's vcovCL of the rows repeated.  Rows of weight 0 are in no cluster and not
    counted (R counts them in n and G: ubreg's value is R's of the fit without them,
    as for HC0).
    """
    kind = cluster_kind(kind)
    X = working_design(result._training_matrix("vcov(cluster=...)"), result.fit_info)
    clusters = resolve_clusters(result, cluster)
    y, w, eta, family = result.y, result.weights, result.eta, result.family
    curvature = w * family.hessian(y, eta)
    A_inv = _bread_inverse(weighted_gram(X, curvature))
    scores = w * family.gradient(y, eta)
    adjusted = None
    if kind in ("HC2", "HC3"):
        if result.weight_kind == "freq" and np.any(w != 1.0):
            raise ValueError(f"vcov({kind!r}, cluster=...) is not defined for frequency "
                             "weights (R's HC2/HC3 of the rows repeated are not those of the "
                             "weighted rows); use 'HC0' or 'HC1'")
        Xd = np.asarray(X, dtype=np.float64)
        adjusted = [_adjusted_scores(kind, Xd, scores, curvature, A_inv, code, g)
                    for _, code, g in _dimensions(clusters)]
    B = cluster_meat(kind, X, scores, clusters, result.nobs, result.rank, adjusted)
    V = A_inv @ B @ A_inv
    T = working_transform(result.fit_info, 1.0)
    if T is not None:
        V = T @ V @ T.T
    p = len(result.coef)
    full = np.full((p, p), np.nan)
    keep = ~result.fit_info.aliased
    full[np.ix_(keep, keep)] = (V + V.T) / 2.0
    flat = result.flat.to_numpy()
    full[flat, :] = np.nan
    full[:, flat] = np.nan
    return full, clusters, kind
