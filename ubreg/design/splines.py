"""R's ``poly()`` and ``splines::ns()`` as patsy stateful transforms.

Both learn their constants from the training rows (the centring and norms of
the orthogonal polynomials; the knots of the spline) and keep them, so that
``predict`` on new data uses the training basis, as R's ``predict.poly`` and
``predict.ns`` (``makepredictcall``) do.  Missing values are skipped when the
constants are learned and give NaN rows (the row is then dropped).

- ``poly(x, degree=1, raw=False)``: R's orthogonal polynomials (QR of the centred
  powers, then the three-term recurrence of ``predict.poly`` with the stored
  ``alpha`` and ``norm2``); ``raw=True`` gives x, x², ….
- ``ns(x, df=None, knots=None, intercept=False, Boundary_knots=None)``: the natural
  cubic spline basis of ``splines::ns``: interior knots at R's (type 7) quantiles of
  the non-missing x, boundary knots at its range, a cubic B-spline basis
  constrained to be linear beyond the boundary knots (second derivatives zero
  there), the constraint removed by the Householder QR of LINPACK's ``dqrdc2``
  (so the basis, hence the coefficients, are R's and not only its span).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from patsy.state import stateful_transform

__all__ = ["poly", "ns", "PolyBasis", "NaturalSpline"]


def _finite_rows(x) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(x, dtype=np.float64).ravel()
    return values, ~np.isnan(values)


def _framed(basis: np.ndarray, keep: np.ndarray, n: int, index=None) -> pd.DataFrame:
    out = np.full((n, basis.shape[1]), np.nan)
    out[keep] = basis
    return pd.DataFrame(out, columns=[str(j + 1) for j in range(basis.shape[1])], index=index)


def _index(x):
    return x.index if isinstance(x, (pd.Series, pd.DataFrame)) else None


class PolyBasis:
    """``poly(x, degree, raw)``: R's orthogonal polynomials, constants kept."""

    def __init__(self):
        self._chunks: list[np.ndarray] = []
        self.alpha: np.ndarray | None = None
        self.norm2: np.ndarray | None = None

    def memorize_chunk(self, x, degree=1, raw=False):
        values, keep = _finite_rows(x)
        self._chunks.append(values[keep])

    def memorize_finish(self):
        x = np.concatenate(self._chunks)
        self._chunks = []
        self._x = x

    def _learn(self, degree: int):
        x = self._x
        if degree < 1 or degree >= len(np.unique(x)):
            raise ValueError("poly(): degree must be at least 1 and less than the "
                             f"{len(np.unique(x))} distinct values of x")
        xbar = float(np.mean(x))
        powers = np.vander(x - xbar, degree + 1, increasing=True)
        q, r = np.linalg.qr(powers)
        z = q * np.diag(r)                       # sign-free: Q diag(R), as R's poly
        norm2 = np.sum(z ** 2, axis=0)
        self.alpha = (np.sum((x - xbar)[:, None] * z ** 2, axis=0) / norm2 + xbar)[:degree]
        self.norm2 = np.r_[1.0, norm2]

    def transform(self, x, degree=1, raw=False):
        values, keep = _finite_rows(x)
        degree = int(degree)
        if raw:
            basis = np.vander(values[keep], degree + 1, increasing=True)[:, 1:]
            return _framed(basis, keep, len(values), _index(x))
        if self.alpha is None:
            self._learn(degree)
        basis = self._recurrence(values[keep], degree)
        return _framed(basis, keep, len(values), _index(x))

    def _recurrence(self, x: np.ndarray, degree: int) -> np.ndarray:
        """``predict.poly``: Z₀ = 1, Z₁ = x − α₁, Z_{i+1} = (x − α_{i+1}) Z_i −
        (n_{i+1}/n_i) Z_{i−1}, each divided by √n."""
        alpha, norm2 = self.alpha, self.norm2
        assert alpha is not None and norm2 is not None     # learnt first (transform)
        z = np.ones((len(x), degree + 1))
        z[:, 1] = x - alpha[0]
        for i in range(1, degree):
            z[:, i + 1] = ((x - alpha[i]) * z[:, i]
                           - (norm2[i + 1] / norm2[i]) * z[:, i - 1])
        return (z / np.sqrt(norm2[1:]))[:, 1:]


def _quantile7(x: np.ndarray, probs) -> np.ndarray:
    """R's ``quantile(x, probs)`` (type 7: linear interpolation)."""
    return np.quantile(x, probs, method="linear")


def _spline_design(knots: np.ndarray, x: np.ndarray, derivative: int = 0) -> np.ndarray:
    """``splines::splineDesign(knots, x, ord = 4, derivs)``: every cubic B-spline of
    the knot sequence (or its derivative) at x, the right end closed."""
    n_basis = len(knots) - 4
    from scipy.interpolate import BSpline  # 0.13 s to import: only for spline terms
    spline = BSpline(knots, np.eye(n_basis), 3, extrapolate=True)
    return spline.derivative(derivative)(x) if derivative else spline(x)


def _householder_complement(constraint: np.ndarray) -> np.ndarray:
    """Q's columns after the first ``k`` for the (n × k) ``constraint``, by the
    Householder reflections of LINPACK's ``dqrdc2`` (R's ``qr``), so that
    ``basis @ result`` is R's ``t(qr.qty(qr(constraint), t(basis)))[, -(1:k)]``."""
    a = np.array(constraint, dtype=np.float64)
    n, k = a.shape
    reflectors: list[np.ndarray | None] = []
    for col in range(k):
        u = a[col:, col].copy()
        norm = np.linalg.norm(u)
        if norm == 0.0:
            reflectors.append(None)
            continue
        norm = np.copysign(norm, u[0]) if u[0] != 0.0 else norm
        u /= norm
        u[0] += 1.0
        for j in range(col + 1, k):
            a[col:, j] += -np.dot(u, a[col:, j]) / u[0] * u
        reflectors.append(u)
    q_t = np.eye(n)                               # rows of Qᵀ, applied reflector by reflector
    for col, u in enumerate(reflectors):
        if u is None:
            continue
        block = q_t[col:, :]
        q_t[col:, :] = block - np.outer(u, u @ block) / u[0]
    return q_t[k:, :].T


class NaturalSpline:
    """``ns(x, df, knots, intercept, Boundary_knots)``: ``splines::ns``, knots kept."""

    def __init__(self):
        self._chunks: list[np.ndarray] = []
        self.knots: np.ndarray | None = None
        self.boundary: np.ndarray | None = None

    def memorize_chunk(self, x, df=None, knots=None, intercept=False, Boundary_knots=None):
        values, keep = _finite_rows(x)
        self._chunks.append(values[keep])

    def memorize_finish(self):
        self._x = np.concatenate(self._chunks)
        self._chunks = []

    def _learn(self, df, knots, intercept, boundary):
        x = self._x
        boundary = (np.sort(np.asarray(boundary, dtype=float)) if boundary is not None
                    else np.array([x.min(), x.max()]))
        if knots is None:
            if df is None:
                df = 1 + int(intercept)
            n_inner = max(int(df) - 1 - int(intercept), 0)
            inside = x[(x >= boundary[0]) & (x <= boundary[1])]
            probs = np.linspace(0.0, 1.0, n_inner + 2)[1:-1]
            knots = _quantile7(inside, probs) if n_inner else np.array([])
        self.knots = np.sort(np.asarray(knots, dtype=float))
        self.boundary = boundary

    def transform(self, x, df=None, knots=None, intercept=False, Boundary_knots=None):
        values, keep = _finite_rows(x)
        if self.knots is None:
            self._learn(df, knots, intercept, Boundary_knots)
        basis = self._basis(values[keep], bool(intercept))
        return _framed(basis, keep, len(values), _index(x))

    def _basis(self, x: np.ndarray, intercept: bool) -> np.ndarray:
        boundary = self.boundary
        assert boundary is not None                     # learnt first (transform)
        lo, hi = boundary
        all_knots = np.sort(np.r_[np.repeat(boundary, 4), self.knots])
        basis = np.empty((len(x), len(all_knots) - 4))
        inside = (x >= lo) & (x <= hi)
        basis[inside] = _spline_design(all_knots, x[inside])
        for side, pivot in ((x < lo, lo), (x > hi, hi)):
            if side.any():              # linear beyond the boundary: value and slope there
                at = np.array([pivot, pivot])
                values = _spline_design(all_knots, at[:1])[0]
                slopes = _spline_design(all_knots, at[:1], derivative=1)[0]
                basis[side] = values + np.outer(x[side] - pivot, slopes)
        const = _spline_design(all_knots, boundary, derivative=2)
        if not intercept:
            const, basis = const[:, 1:], basis[:, 1:]
        return basis @ _householder_complement(const.T)


poly = stateful_transform(PolyBasis)
ns = stateful_transform(NaturalSpline)
