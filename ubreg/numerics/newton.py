"""The safeguarded Newton iteration of totally corrective ULS (paper 000 Algorithm 1, eq. 70).

With T_j = every column, the zero-edge condition (70) on all features at once
is the stationarity of the surrogate risk ε(β) = Σ wᵢ F(y*ᵢ xᵢᵀβ)/Σ wᵢ, and
one step of its Newton iteration is a totally corrective step (docs/math.md
§4)::

    g = Xᵀ(w·ℓ'),  H = Xᵀdiag(w·ℓ'')X,  β ← β − t H⁻¹g,

with t = 1, ½, ¼, … the first step length that passes the Armijo test
(:func:`armijo_accept`).  It stops when the largest normalised edge
|gⱼ|/(Σw · scaleⱼ) is at most ``tol`` (converged), after ``maxiter`` steps,
or when no step length down to 1e-12 decreases the risk (stalled).

The iteration needs only the risk, the gradient and the Hessian at a point,
however they are summed: :func:`newton` drives a :class:`NewtonProblem`, which
the in-memory fitter (:mod:`ubreg.fitters.uls`) computes from arrays and the
Dask backend (:mod:`ubreg.dask.fitter`) from partition-wise sums.  Both take
the same steps in the same order, so their coefficients agree to rounding.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .linalg import solve_spd

__all__ = ["NewtonProblem", "NewtonRun", "armijo_accept", "newton", "MIN_STEP"]

_EPS = np.finfo(float).eps
#: the line search gives up below this step length (the risk cannot decrease)
MIN_STEP = 1e-12


def armijo_accept(risk_new: float, risk_old: float, decrease: float) -> bool:
    """Armijo's sufficient decrease, ε_new ≤ ε_old − 10⁻⁴·decrease, relaxed by a
    few ulps of ε_old.

    ``decrease`` is t·gᵀs/Σw/c for the step −t·s (the decrease the linear
    model predicts).  The relaxation keeps a step that cannot change the risk
    at machine precision (near the optimum) from being taken for a failure.
    """
    return bool(risk_new <= risk_old - 1e-4 * decrease + 8 * _EPS * abs(risk_old))


class NewtonProblem:
    """The risk, gradient and Hessian the iteration needs, at the current point.

    A subclass holds the current point and a candidate.  :func:`newton` calls,
    per iteration: :meth:`gradient`, :meth:`hessian` (at the current point),
    then :meth:`trial` for each step length until one is accepted, then
    :meth:`accept`.
    """

    def gradient(self) -> np.ndarray:
        """Xᵀ(w·ℓ') at the current point (the risk's gradient times Σw·c)."""
        raise NotImplementedError

    def hessian(self, iteration: int) -> np.ndarray:
        """Xᵀdiag(w·ℓ'')X at the current point; ``iteration`` counts the steps
        taken so far (a problem may know the first Hessian in advance)."""
        raise NotImplementedError

    def trial(self, step: np.ndarray, t: float) -> float:
        """The surrogate risk at the candidate (current point) − t·``step``, which
        it keeps for :meth:`accept`."""
        raise NotImplementedError

    def accept(self, step: np.ndarray, t: float) -> None:
        """Move to the last candidate, (current point) − t·``step``."""
        raise NotImplementedError


@dataclass
class NewtonRun:
    """What the iteration did (the point itself stays with the problem)."""

    iterations: int = 0
    converged: bool = False
    stalled: bool = False
    risk_path: list = field(default_factory=list)   # risk before each step, and at the end
    edge_path: list = field(default_factory=list)   # largest |edge| likewise


def newton(problem: NewtonProblem, risk: float, *, wsum: float, scale: np.ndarray,
           risk_scale: float, tol: float, maxiter: int) -> NewtonRun:
    """Safeguarded Newton steps on ``problem`` from its current point (risk ``risk``).

    Parameters
    ----------
    problem : NewtonProblem
    risk : float
        The surrogate risk at the starting point.
    wsum : float
        Σ wᵢ.
    scale : ndarray
        Per column, the normaliser of the edges (max |xⱼ|, 1 for a zero column):
        edge_j = −gⱼ/(Σw · scaleⱼ) lies in [−1, 1] for a ±1 feature.
    risk_scale : float
        c with F = ℓ/c (b_φ for a permissible family, ``family.risk_scale``).
    tol : float
        Stop when the largest |edge| is at most ``tol``.
    maxiter : int
        Newton steps at most.
    """
    run = NewtonRun()
    while True:
        grad = problem.gradient()
        max_edge = float(np.max(np.abs(grad / (wsum * scale)), initial=0.0))
        run.risk_path.append(risk)
        run.edge_path.append(max_edge)
        if max_edge <= tol:
            run.converged = True
            return run
        if run.iterations >= maxiter:
            return run
        step = solve_spd(problem.hessian(run.iterations), grad)
        decrease = float(grad @ step) / wsum / risk_scale
        t = 1.0
        while True:
            risk_new = problem.trial(step, t)
            if np.isfinite(risk_new) and armijo_accept(risk_new, risk, t * decrease):
                break
            t *= 0.5
            if t < MIN_STEP:
                break
        run.iterations += 1
        if t < MIN_STEP:
            run.stalled = True
            return run
        problem.accept(step, t)
        risk = risk_new
