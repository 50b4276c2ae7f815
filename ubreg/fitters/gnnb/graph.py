"""A neighbour graph of all the rows, shared by fits on subsets of them (folds).

K-fold cross-validation of GNNB fits K models, each on (K−1)/K of the rows, and
each must find the k nearest neighbours of its training rows (among
themselves) and of its held-out rows: K exact searches, ~(K − 1) times the
queries of a plain k-NN classifier.  :class:`NeighbourGraph` searches once,
over all n rows, for the ``K_g > k`` nearest of every row; a fold then reads
its candidates from those lists.

The fold's distances are not the graph's: each fold standardises with its own
training moments.  Both are diagonal rescalings of the same raw columns, so a
fold's squared distance is at least ``r_min²`` times the graph's, where
``r_min = min_j scale_graph_j / scale_fold_j``.  For a query row i, let D_k be
the k-th smallest fold distance among its graph neighbours that are training
rows of the fold, and d_K the graph distance of its ``K_g``-th neighbour (no row
outside the list is closer).  Every row outside the list is then at fold
distance ≥ r_min² d_K, so when D_k < r_min² d_K (with the rounding bounds of
both searches subtracted) the list holds the k nearest and every row tied with
the k-th, and the ranking of :class:`~.neighbours.NeighbourIndex` on these
candidates gives exactly the neighbours, in the order, that the fold's own
search gives.  Rows for which the bound fails (ties at the K_g-th neighbour,
few training rows among the list) are searched by the fold's index.  The
neighbours, and so every fit, are identical to the fits without the graph
(``tests/test_gnnb_graph.py``).

A graph is tied to the raw predictor values of its rows: a fold's rows are
found by their labels, and their values are compared with the graph's before
the graph is used (a mismatch, or a different design, means a fit searches as
without it).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from .neighbours import NeighbourIndex, _sq_dist, _workers

__all__ = ["NeighbourGraph", "graph_neighbours"]

#: rounding bound of a squared distance, c (‖a‖ + ‖b‖)², per column: the
#: standardisation and the difference (a few ulps of each coordinate) and the
#: sum of squares; generous (a larger bound only sends more rows to the search)
_ROUNDING = 16.0 * 2.0 ** -52


class NeighbourGraph:
    """The ``K_g`` nearest neighbours of every row, in a reference standardisation.

    Parameters
    ----------
    labels : Index
        The rows' labels (unique); a fit finds its rows by them.
    raw : ndarray (n, d)
        The rows' predictor values before standardisation
        (:meth:`~.preprocess.Preprocessor.raw`).
    scaled : ndarray (n, d)
        The same rows standardised by a preprocessor fitted on all of them.
    scale : ndarray (d,)
        That preprocessor's scales (1 for unscaled columns).
    column_names : list of str
        The preprocessed columns, which a fit's must equal.
    k : int
        The fits' k; the lists hold ``K_g = 2k + 5`` neighbours (fewer when
        there are fewer rows).
    """

    def __init__(self, labels: pd.Index, raw: np.ndarray, scaled: np.ndarray,
                 scale: np.ndarray, column_names: list[str], k: int):
        if not labels.is_unique:
            raise ValueError("a neighbour graph needs unique row labels")
        self.labels = labels
        self.raw = raw
        self.scale = np.asarray(scale, dtype=np.float64)
        self.column_names = list(column_names)
        self.k = int(k)
        n = scaled.shape[0]
        self.K = min(2 * self.k + 5, n - 1)
        index = NeighbourIndex(scaled)
        self.lists = index.query(None, self.K)
        last = self.lists[:, -1]
        self.dK = _sq_dist(index.X, index.X, last, np.arange(n))
        norms = np.sqrt(np.einsum("ij,ij->i", index.X, index.X))
        self.err = _ROUNDING * scaled.shape[1] * (norms + norms.max(initial=0.0)) ** 2

    def __getstate__(self):
        # a pickled graph is inert (rows_of finds nothing): it is a cache of this
        # process, not part of a model
        return {"k": self.k, "labels": None}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def rows_of(self, labels: pd.Index, raw: np.ndarray,
                column_names: list[str]) -> np.ndarray | None:
        """The graph rows of ``labels`` if they are all in the graph with the
        same columns and raw values, else None."""
        if self.labels is None or list(column_names) != self.column_names:
            return None
        pos = self.labels.get_indexer(labels)
        if (pos < 0).any() or raw.shape[1] != self.raw.shape[1]:
            return None
        if not np.array_equal(self.raw[pos], raw):
            return None
        return pos


def graph_neighbours(graph: NeighbourGraph, index: NeighbourIndex, fold_rows: np.ndarray,
                     fold_scale: np.ndarray, query_rows: np.ndarray, k: int,
                     Q: np.ndarray | None = None) -> np.ndarray:
    """The k nearest training points of each query, as ``index.query`` finds them.

    Parameters
    ----------
    graph : NeighbourGraph
    index : NeighbourIndex
        The fit's training points (standardised by the fit); row t is graph row
        ``fold_rows[t]``.
    fold_scale : ndarray (d,)
        The fit's scales.
    query_rows : ndarray
        Graph rows of the queries.
    Q : ndarray, optional
        The queries standardised by the fit; None: the queries are training
        points (``query_rows`` among ``fold_rows``), each excluding itself (a
        graph row's list never holds the row itself).
    """
    from . import _graph_kernels as kern

    to_fold = np.full(graph.lists.shape[0], -1, dtype=np.int64)
    to_fold[fold_rows] = np.arange(len(fold_rows))
    own = to_fold[query_rows] if Q is None else None
    if own is not None:
        Q = index.X[own]
    assert Q is not None
    # (q, K_g) candidates, −1 where not a training point, and the flat positions of the others
    cand, flat = kern.fold_pairs(graph.lists, np.asarray(query_rows, dtype=np.int64), to_fold)
    d2 = np.full(cand.shape, np.inf)
    d2.ravel()[flat] = _pair_distances(index.X, Q, cand, flat)
    # the order of NeighbourIndex.query: (squared distance, training index); the
    # rows not in the fold (d2 = inf) go last
    first, Dk = kern.first_k(d2, cand, k)
    ratio2 = float(np.min(graph.scale / fold_scale)) ** 2 * (1.0 - 1e-12)
    qn = np.sqrt(np.einsum("ij,ij->i", Q, Q))
    err = _ROUNDING * Q.shape[1] * (qn + index.max_norm) ** 2
    dK = graph.dK[query_rows]
    ok = np.isfinite(dK) & (Dk + err < ratio2 * (dK - graph.err[query_rows]))
    bad = np.flatnonzero(~ok)
    if bad.size:                                           # the fit's own search
        first[bad] = (index.query(None, k, own=own[bad]) if own is not None
                      else index.query(Q[bad], k))
    return first


#: pairs whose differences are held at once by each thread (1 MB at d = 16)
_PAIR_BLOCK = 8192


def _pair_distances(X: np.ndarray, Q: np.ndarray, cand: np.ndarray,
                    flat: np.ndarray) -> np.ndarray:
    """Squared distances of the pairs (``X[cand.flat[p]]``, ``Q[p // K]``) for p in
    ``flat``: :func:`~.neighbours._sq_dist`'s values (the same differences, the
    same ``np.einsum``), the differences written block by block into a small
    buffer, the pairs in halves on a thread per core."""
    from . import _graph_kernels as kern

    K = cand.shape[1]
    cand_flat = cand.ravel()
    out = np.empty(len(flat))
    workers = min(_workers(), max(1, len(flat) // 65536))
    bounds = np.linspace(0, len(flat), workers + 1).astype(np.int64)

    def piece(i: int) -> None:
        buf = np.empty((_PAIR_BLOCK, X.shape[1]))
        a = int(bounds[i])
        while a < bounds[i + 1]:
            m = kern.pair_differences(X, Q, cand_flat, flat[:bounds[i + 1]], K, a, buf)
            out[a:a + m] = np.einsum("ij,ij->i", buf[:m], buf[:m])
            a += m

    if workers == 1:
        piece(0)
    else:
        with ThreadPoolExecutor(workers) as ex:
            list(ex.map(piece, range(workers)))
    return out
