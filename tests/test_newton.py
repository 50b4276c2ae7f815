"""The shared safeguarded Newton iteration (ubreg.numerics.newton) on problems with known
answers."""
from __future__ import annotations

import numpy as np
import pytest

from ubreg.numerics.newton import MIN_STEP, NewtonProblem, armijo_accept, newton


class Quadratic(NewtonProblem):
    """ε(β) = ½(β − b)ᵀA(β − b)/Σw with Σw = 1: one Newton step reaches b.
    ``lie`` > 0 makes the trial risks larger than true by that much (a line
    search that can never succeed)."""

    def __init__(self, A, b, lie=0.0):
        self.A, self.b, self.lie = A, b, lie
        self.beta = np.zeros(len(b))
        self.trials = 0

    def risk(self, beta):
        d = beta - self.b
        return 0.5 * d @ self.A @ d

    def gradient(self):
        return self.A @ (self.beta - self.b)

    def hessian(self, iteration):
        return self.A

    def trial(self, step, t):
        self.trials += 1
        self._cand = self.beta - t * step
        return self.risk(self._cand) + self.lie

    def accept(self, step, t):
        self.beta = self._cand


def _run(problem, **kw):
    args = dict(wsum=1.0, scale=np.ones(len(problem.b)), risk_scale=1.0, tol=1e-12, maxiter=50)
    args.update(kw)
    return newton(problem, problem.risk(problem.beta), **args)


def test_one_step_solves_a_quadratic():
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    prob = Quadratic(A, np.array([1.0, -2.0]))
    run = _run(prob)
    assert run.converged and not run.stalled and run.iterations == 1
    np.testing.assert_allclose(prob.beta, [1.0, -2.0], rtol=1e-14)
    assert len(run.risk_path) == len(run.edge_path) == 2 and run.edge_path[-1] <= 1e-12


def test_a_risk_that_never_decreases_stalls():
    prob = Quadratic(np.eye(2), np.array([1.0, 1.0]), lie=1.0)
    run = _run(prob)
    assert run.stalled and not run.converged and run.iterations == 1
    assert prob.trials == int(np.floor(-np.log2(MIN_STEP))) + 1     # t = 1, ½, … down to 1e-12
    np.testing.assert_array_equal(prob.beta, 0.0)                  # no step taken


def test_maxiter_stops_before_convergence():
    prob = Quadratic(np.eye(2), np.array([1.0, 1.0]))
    run = _run(prob, maxiter=0)
    assert not run.converged and run.iterations == 0 and len(run.risk_path) == 1


def test_edges_are_normalised_by_the_weights_and_scale():
    prob = Quadratic(np.eye(2), np.array([2.0, 0.0]))
    run = _run(prob, wsum=4.0, scale=np.array([0.5, 1.0]), tol=0.99, maxiter=0)
    assert run.edge_path[0] == pytest.approx(2.0 / (4.0 * 0.5))
    run = _run(Quadratic(np.eye(2), np.array([2.0, 0.0])), wsum=4.0,
               scale=np.array([0.5, 1.0]), tol=1.0, maxiter=0)
    assert run.converged


def test_armijo_is_relaxed_by_a_few_ulps_only():
    eps = np.finfo(float).eps
    assert armijo_accept(1.0 + 4 * eps, 1.0, 0.0)            # no change at machine precision
    assert not armijo_accept(1.0 + 64 * eps, 1.0, 0.0)
    assert armijo_accept(1.0 - 2e-4, 1.0, 1.0)               # the sufficient decrease 1e-4
    assert not armijo_accept(1.0 - 0.5e-4, 1.0, 1.0)
