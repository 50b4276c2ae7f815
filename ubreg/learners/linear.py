"""Componentwise linear base-learners (U-Boost, docs/math.md §6; mboost's glmboost).

One base-learner per formula term (a term with several design columns, e.g. a
factor's dummies, is fitted jointly): each iteration fits every term's
weighted least-squares Newton step on its centred columns and keeps the term
of largest decrease of the second-order risk model, giving a sparse
coefficient path.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Componentwise", "LinearStep"]

#: columns whose largest |value| lies outside [2^-_UNIT_EXP, 2^_UNIT_EXP] are fitted
#: divided by a power of two (their normal equations would overflow or underflow)
_UNIT_EXP = 100


@dataclass
class LinearStep:
    """f(x) = (x[cols] − centre) · b: one componentwise linear base-learner fit
    (:class:`~ubreg.learners.base.WeakHypothesis`, one feature: f itself)."""

    term: int
    cols: np.ndarray
    centre: np.ndarray
    b: np.ndarray
    kind: str = "linear"
    n_features = 1

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted(int(c) for c in self.cols))

    def predict(self, X):
        return (X[:, self.cols] - self.centre) @ self.b

    def transform(self, X):
        return self.predict(X)[:, None]

    def key(self):
        return ("linear", tuple(int(c) for c in self.cols), tuple(self.centre.tolist()),
                tuple(self.b.tolist()))

    def describe(self, names) -> list[str]:
        parts = [f"{b:.6g}*({names[c]} - {m:.6g})" if m != 0 else f"{b:.6g}*{names[c]}"
                 for c, m, b in zip(self.cols, self.centre, self.b)]
        return [" + ".join(parts)]


class Componentwise:
    """Componentwise linear base-learners, one per group of design columns (a term).

    A fit is equivariant in a column's unit (x → s x gives b → b/s), so a column
    of extreme magnitude is fitted on x/2^e (e its binary exponent) and its
    coefficient divided by 2^e: exact, and no overflow of Σ h x² at |x| ≳ 1e154
    (or underflow at tiny |x|).  Ordinary columns (e = 0) are untouched.

    Parameters
    ----------
    X : (n, p) design; w : frequency weights
    groups : list of int arrays
        The design columns of each term, in term order.
    has_intercept : bool
        Centre the columns (mboost's center=TRUE), which needs an intercept to
        absorb the centring.
    """

    def __init__(self, X, w, groups, has_intercept):
        self.X = X
        const = np.all(X == X[:1], axis=0)
        amax = np.abs(X).max(axis=0, initial=0.0)
        outside = (amax > 2.0 ** _UNIT_EXP) | ((amax > 0) & (amax < 2.0 ** -_UNIT_EXP))
        self.shift = np.where(outside, np.frexp(amax)[1], 0)
        Xs = np.ldexp(X, -self.shift)
        # centring makes the componentwise fits nearly orthogonal to the
        # intercept (mboost's center=TRUE); it needs an intercept to absorb it
        mean = (w @ Xs) / w.sum()
        centre_s = np.where(const | (not has_intercept), 0.0, mean)
        self.centre = np.ldexp(centre_s, self.shift)
        self.Xc = Xs - centre_s                     # the columns over 2^shift, centred
        self.groups = groups

    def step(self, g, h):
        """The Newton step of the best term for gradients ``g`` and curvatures ``h``.

        Each term's b solves (Zᵀ diag(h) Z) b = −Zᵀg on its centred columns Z;
        the term of largest rᵀb (twice the decrease of the Newton model) wins.
        Returns (LinearStep, its (n,) values on the training rows).
        """
        best: tuple[int, np.ndarray, np.ndarray] | None = None
        best_score = -np.inf
        for t, cols in enumerate(self.groups):     # one small solve per term
            Z = self.Xc[:, cols]
            A = Z.T @ (h[:, None] * Z)
            r = -(Z.T @ g)
            try:
                b = np.linalg.solve(A, r)
            except np.linalg.LinAlgError:
                b = np.linalg.lstsq(A, r, rcond=None)[0]
            score = float(r @ b)
            if np.isfinite(score) and score > best_score:
                best, best_score = (t, cols, b), score
        assert best is not None, "no term has a finite Newton decrease"
        t, cols, b = best
        step = LinearStep(t, cols, self.centre[cols], np.ldexp(b, -self.shift[cols]))
        return step, self.Xc[:, cols] @ b
