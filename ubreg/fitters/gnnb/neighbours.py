"""Exact k-nearest-neighbour search with deterministic ties, and inverse neighbourhoods.

The search is BLAS plus numpy selection, in two stages:

1. **Screen** (BLAS, float32).  For a chunk of query rows, one matrix product
   per column group gives D'_ij = ‖x_j‖² − 2 q_i·x_j for every training point
   j (the squared distance minus ‖q_i‖², on centred data).  The training
   columns are split into g groups; the running minimum over the groups'
   blocks gives, per query, the smallest D' in each of ``mg`` column classes,
   and ``np.partition`` of those minima gives v_i, the k-th smallest (the
   (k+1)-th in training, where the query itself is among them): k distinct
   training points lie within v_i, so v_i bounds the k-th neighbour's
   distance.  Every training point with D'_ij ≤ v_i + 2 E_i is a candidate,
   where E_i is a rigorous bound on the float32 rounding of D' (inputs, the
   product and ‖x_j‖²; standard inner-product error bound γ_{d+1}): no true
   neighbour, and no point tied with the k-th, can be left out.  Only the
   column classes whose minimum passes are opened (about k + a few per row).
   A chunk whose float32 screen admits far more candidates than needed (data
   whose scales make float32 too coarse) is screened again in float64, and so
   is everything when float32 would overflow.
2. **Exact ranking** (numpy).  Candidates get their squared distance
   Σ (x − x')² in float64, by one fixed formula (:func:`_sq_dist`), and the k
   nearest are taken in the order (distance, training index): ties, however
   many, are broken by index, because every tied point is a candidate.  In
   training an example is not its own neighbour: its own index is removed
   (not "the first column", which a duplicate row could occupy).  The order
   is one sort of a unique int64 key (row, rank of the distance among the
   batch's distinct distances, index): the order of ``np.lexsort``, faster.

A task screens ``_SUPER`` chunks one after the other (each chunk's distances
stay cache-sized) and ranks their candidates together (fewer, larger numpy
calls).  Tasks run on a thread per core (the BLAS calls and the large numpy
passes release the GIL), with single-threaded BLAS inside each task (when
threadpoolctl is installed; otherwise one after the other).

Why not a library search?  scikit-learn's ``NearestNeighbors(algorithm=
"brute")`` (which this module used before) returns approximate distances whose
order among near-ties is arbitrary: a point tied with the k-th neighbour to
the last bit could be left out of its candidates while a farther one was kept,
and the tie check on the candidates then missed it (LetterRecognition: 3 of
its first 16 000 rows got a larger-index tied neighbour; ``tests/test_gnnb_math.py``
keeps a small case).  The screen above cannot lose a tied point, and it is
faster: 16 000 LetterRecognition self-queries (d = 16, k = 10) on this
project's 2-core machine take ~0.22 s of CPU (half of it the float32 products
and their minimum) against ~0.9 s for scikit-learn's brute ``kneighbors``
(k + 1 neighbours, no tie handling); see
``benchmarks/bench_gnnb.py``.  Brute force also keeps its speed in the high
dimensions of the paper's Fisher vectors, where trees degrade.  Memory: one
chunk of ≤ 1 M screened distances (4 MB in float32) per thread, plus the
candidates; never an m × m matrix.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

__all__ = ["NeighbourIndex", "inverse_neighbourhoods"]

_SCREEN_FLOATS = 1_000_000   # floats of screened distances per chunk (4 MB in float32: L2-sized)
_PAIR_FLOATS = 2_000_000     # floats per batch of exact candidate distances (16 MB)
_GROUPS = 32                 # column groups of the screen (at most)
_SUPER = 8                   # screened chunks per task: their candidates are ranked together
_RANK_PAIRS = 500_000        # ... unless they hold more candidates (ties): rank them then
_KEY_BITS = 62               # the ranking's sort key (row, distance rank, index) fits in int64
#: coordinates beyond 2^_RANGE_EXP (or all below 2^−_RANGE_EXP) are searched rescaled by a
#: power of two: their squared distances would overflow (underflow) in float64
_RANGE_EXP = 480


def _workers() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:    # not on Linux
        n = os.cpu_count() or 1
    return max(1, n)


#: threadpoolctl's controller, made once: finding the libraries is slow
_CONTROLLER: list[Any] = []


def _blas_single_thread():
    """A context keeping BLAS single-threaded (the chunk threads share the
    cores), or None without ``threadpoolctl`` (installed with scikit-learn;
    optional: without it the chunks run one after the other on BLAS's threads)."""
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            return None
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def _sq_dist(X: np.ndarray, Q: np.ndarray, cols: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Squared distances between ``X[cols]`` and ``Q[rows]``, pair by pair, in
    float64 by one fixed formula: the value of a pair depends on the two
    vectors only (not on the batch), so ties are the same in every call."""
    out = np.empty(len(cols), dtype=np.float64)
    step = max(1, _PAIR_FLOATS // max(1, X.shape[1]))
    for a in range(0, len(cols), step):
        diff = X[cols[a:a + step]] - Q[rows[a:a + step]]
        out[a:a + step] = np.einsum("ij,ij->i", diff, diff)
    return out


class _Screen:
    """Centred copy of the training points in column groups, in ``dtype``
    (float32, or float64 where float32's rounding would admit too many
    candidates or its range is too small)."""

    def __init__(self, X: np.ndarray, k_max: int, dtype):
        m, d = X.shape
        self.dtype = dtype
        self.mu = X.mean(axis=0)
        Xc = X - self.mu
        sq = np.einsum("ij,ij->i", Xc, Xc)
        self.R = float(np.sqrt(sq.max()))
        # g groups of mg columns; at least k_max + 1 column classes
        self.g = g = max(1, min(_GROUPS, m // max(1, 8 * (k_max + 1)), m // (k_max + 1)))
        self.mg = mg = -(-m // g)
        B = np.zeros((d + 1, g * mg), dtype=dtype)
        B[:d, :m] = -2.0 * Xc.T
        B[d, :m] = sq
        B[d, m:] = np.finfo(dtype).max / 4     # padding columns: never candidates
        self.B = np.ascontiguousarray(B.reshape(d + 1, g, mg).transpose(1, 0, 2))
        # |D'(screen) + ‖q‖² − d̃²| ≤ c (‖q_c‖ + ‖x_c‖)²: rounded inputs, products and
        # sums (γ_{d+1}), ‖x‖² rounded, and the float64 centring and exact formula
        u = float(np.finfo(dtype).eps) / 2
        self.c = 2.0 * (d + 6) * (u + 2.0 ** -53)


class NeighbourIndex:
    """Exact k-NN over a fixed training matrix, ties broken by index.

    Parameters
    ----------
    X : ndarray (m, d)
        Training points (already scaled).  Kept by reference (not copied);
        the caller owns a private copy.
    """

    def __init__(self, X: np.ndarray):
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self._screens: dict[type, _Screen] = {}                 # by dtype
        self._rescaled: dict[int, NeighbourIndex] = {}          # by binary exponent

    def __getstate__(self):
        # the screens are rebuilt on demand: pickles stay small
        return {"X": self.X}

    def __setstate__(self, state):
        self.X = state["X"]
        self._screens = {}
        self._rescaled = {}

    @property
    def m(self) -> int:
        return self.X.shape[0]

    @property
    def max_norm(self) -> float:
        """The largest Euclidean norm of a training point."""
        norm = getattr(self, "_max_norm", None)
        if norm is None:
            norm = self._max_norm = float(np.sqrt(np.einsum("ij,ij->i", self.X, self.X)
                                                  .max(initial=0.0)))
        return norm

    def rank(self, Q: np.ndarray, r: np.ndarray, c: np.ndarray, k: int,
             d2: np.ndarray | None = None) -> np.ndarray:
        """The k nearest of candidate training points ``c`` of query rows ``r`` of
        ``Q``, in :meth:`query`'s order: exact when every training point at least
        as close as a row's k-th neighbour is among its candidates.  ``d2``: their
        squared distances by :func:`_sq_dist`, if known."""
        return self._rank(Q, r, c, 0, Q.shape[0], k, d2)

    def _get_screen(self, kk: int, dtype) -> _Screen:
        s = self._screens.get(dtype)
        if s is None or s.mg < kk + 1:
            s = self._screens[dtype] = _Screen(self.X, max(kk, 10), dtype)
        return s

    def query(self, Xq: np.ndarray | None, k: int, own: np.ndarray | None = None) -> np.ndarray:
        """Indices (n_q, k) of the k nearest training points of each query row.

        ``Xq=None`` queries the training points themselves, each excluding itself;
        ``own`` (training indices, one per query row) queries those training
        points, each excluding itself (``Xq`` is then ignored).
        Ordered by (squared distance, index), distances by :func:`_sq_dist`.
        """
        self_query = Xq is None or own is not None
        if own is not None:
            own = np.asarray(own, dtype=np.int64)
            Q = self.X[own]
        else:
            Q = self.X if self_query else np.ascontiguousarray(Xq, dtype=np.float64)
        avail = self.m - 1 if self_query else self.m
        if not 1 <= k <= avail:
            raise ValueError(f"k = {k} neighbours requested but only {avail} training points "
                             f"are available")
        if Q.ndim != 2 or Q.shape[1] != self.X.shape[1]:
            raise ValueError(f"queries must have {self.X.shape[1]} columns, got shape {Q.shape}")
        e = self._range_exponent(Q)
        if e:
            return self._rescaled_index(e).query(
                None if self_query else np.ldexp(Q, -e), k,
                None if own is None else own)
        n = Q.shape[0]
        out = np.empty((n, k), dtype=np.int64)
        if n == 0:
            return out
        kk = k if self_query else k - 1          # order statistic of the group minima
        scr = self._get_screen(kk, np.float32)
        Qc = Q - scr.mu
        qn = np.sqrt(np.einsum("ij,ij->i", Qc, Qc))
        if scr.R + float(qn.max()) > 1e15:      # float32 squares would overflow
            scr = self._get_screen(kk, np.float64)
        ch = int(min(n, max(16, _SCREEN_FLOATS // (scr.g * scr.mg))))
        big = ch * _SUPER
        starts = range(0, n, big)

        def work(a0):
            b0 = min(a0 + big, n)
            rows, cols, first, held = [], [], a0, 0
            for a in range(a0, b0, ch):
                b = min(a + ch, b0)
                res = self._screen(Qc[a:b], qn[a:b], a, k, kk, scr, self_query, own)
                if res is None:                  # float32 too coarse here: float64 screen
                    res = self._screen(Qc[a:b], qn[a:b], a, k, kk,
                                       self._get_screen(kk, np.float64), self_query, own)
                rows.append(res[0])
                cols.append(res[1])
                held += len(res[0])
                if held >= _RANK_PAIRS or b == b0:   # many ties: rank before holding more
                    out[first:b] = self._rank(Q, np.concatenate(rows), np.concatenate(cols),
                                              first, b, k)
                    rows, cols, first, held = [], [], b, 0

        workers = min(_workers(), len(starts))
        limits = _blas_single_thread() if workers > 1 else None
        if limits is None:          # one chunk, one core, or no threadpoolctl: BLAS threads
            for a in starts:
                work(a)
            return out
        with limits, ThreadPoolExecutor(workers) as ex:
            list(ex.map(work, starts))
        return out

    def _range_exponent(self, Q) -> int:
        """0, or e such that the search must run on X / 2^e and Q / 2^e.

        Distances are squares of coordinate differences: past about 2^511 they
        overflow, below about 2^−511 they underflow (every distance 0, ties
        everywhere).  Multiplying every coordinate by one power of two changes
        no neighbour (each squared distance is multiplied by 4^−e exactly, as
        long as nothing underflows), so such data are searched at the scale of
        their largest |coordinate|: the neighbours are those of the data at an
        ordinary scale.
        """
        amax = getattr(self, "_amax", None)
        if amax is None:
            amax = self._amax = float(np.abs(self.X).max(initial=0.0))
        if Q is not self.X:
            amax = max(amax, float(np.abs(Q).max(initial=0.0)))
        if amax == 0.0 or 2.0 ** -_RANGE_EXP <= amax <= 2.0 ** _RANGE_EXP:
            return 0
        return int(np.frexp(amax)[1])

    def _rescaled_index(self, e: int) -> NeighbourIndex:
        idx = getattr(self, "_rescaled", {}).get(e)
        if idx is None:
            idx = NeighbourIndex(np.ldexp(self.X, -e))
            self._rescaled = {e: idx}                 # the last scale only
        return idx

    def _screen(self, Qc, qn, a, k, kk, scr, self_query, own=None):
        """Candidates (query row, training index) of query rows a, a+1, ...
        (centred ``Qc``, norms ``qn``), each query row's candidates in increasing
        training index; None when a float32 screen admits far more candidates
        than needed."""
        n = Qc.shape[0]
        g, mg, dt = scr.g, scr.mg, scr.dtype
        A = np.empty((n, Qc.shape[1] + 1), dtype=dt)
        A[:, :-1] = Qc
        A[:, -1] = 1.0
        E = scr.c * (qn + scr.R) ** 2
        D = np.empty((g, n, mg), dtype=dt)
        np.matmul(A, scr.B[0], out=D[0])
        G = D[0].copy()
        for q in range(1, g):
            np.matmul(A, scr.B[q], out=D[q])
            np.minimum(G, D[q], out=G)
        v = np.partition(G, kk, axis=1)[:, kk].astype(np.float64)
        thr = np.nextafter((v + 2.0 * E).astype(dt), dt(np.inf))
        opened = np.flatnonzero(G <= thr[:, None])      # column classes to open: row * mg + class
        del G
        rr = opened // mg
        ok = D.reshape(g, n * mg)[:, opened] <= thr[rr]  # (g, opened): members within thr
        del D
        hit = np.flatnonzero(ok)                        # group-major: by group, then row
        if dt == np.float32 and len(hit) > 8 * n * (k + 1) + 1024:
            return None
        gi, hi = np.divmod(hit, len(opened))
        r = rr[hi]
        c = (opened[hi] - r * mg) + gi * mg             # increasing within each row
        r += a
        if self_query:
            keep = c != (r if own is None else own[r])
            r, c = r[keep], c[keep]
        return r, c

    def _rank(self, Q, r, c, a, b, k, d2=None):
        """The k nearest of the candidates ``c`` of query rows ``r`` in [a, b),
        in the order (row, exact squared distance, index)."""
        n = b - a
        if d2 is None:
            d2 = _sq_dist(self.X, Q, c, r)
        r = r - a
        # one sort on a unique int64 key (row, rank of the distance, index) when it
        # fits: the same order as np.lexsort((c, d2, r)), several times faster
        _, rank = np.unique(d2, return_inverse=True)
        cb = max(1, int(self.m - 1).bit_length())
        db = max(1, int(len(d2)).bit_length())
        if cb + db + max(1, int(n).bit_length()) <= _KEY_BITS:
            key = (r << (db + cb)) | (rank.reshape(-1).astype(np.int64) << cb) | c
            o = np.argsort(key)
        else:
            o = np.lexsort((c, d2, r))
        r, c = r[o], c[o]
        counts = np.bincount(r, minlength=n)
        if counts.min() < k:                            # impossible by the screen's bound
            raise RuntimeError("neighbour screen lost candidates; please report this")
        first = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=first[1:])
        return c[first[:, None] + np.arange(k)]


def inverse_neighbourhoods(knn: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays of the inverse neighbourhoods {i : j ∈ kNN(i)} (paper 002, eq. 9-10).

    Returns ``(indptr, indices)``: the inverse neighbourhood of j is
    ``indices[indptr[j]:indptr[j + 1]]`` in increasing i, and n_j = ``diff(indptr)``.
    """
    flat = knn.ravel()
    # stable: i increasing within each j (numpy's radix sort for 16-bit keys, else a
    # unique key j·mk + position, whose sort is the stable sort of j)
    size = flat.size
    if m <= np.iinfo(np.int16).max:
        order = np.argsort(flat.astype(np.int16), kind="stable")
    elif m * size < 2 ** 62:
        order = np.argsort(flat * size + np.arange(size))
    else:
        order = np.argsort(flat, kind="stable")
    indices = (order // knn.shape[1]).astype(np.int64)
    counts = np.bincount(flat, minlength=m)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, indices
