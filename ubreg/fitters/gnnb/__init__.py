"""Boosted nearest neighbours: GNNB (paper 002, Algorithm 1) and its UNN baseline.

The methods ``"gnnb"`` and ``"unn"`` of :func:`ubreg.fit` (:mod:`ubreg.methods.gnnb`)
run this loop::

    m = ubreg.fit("Class ~ .", data, family=ubreg.Permissible("entropy"),
                  method="gnnb", k=10)
    m.predict(newdata, type="response")   # per-class posteriors

The exact k-NN search is BLAS (numpy's matmul) plus numpy selection, with
deterministic ties: no runtime dependency beyond numpy.  When ``threadpoolctl``
is installed (it comes with scikit-learn) chunks of queries run on a thread
per core with single-threaded BLAS inside each.  See :mod:`ubreg.fitters.gnnb.neighbours`
for the measurements behind it.  The family supplies H* (``family.h_star()``,
eq. 8) and, for the compiled loops, the closed form of its posterior
(``family.posterior_form``).
"""
from __future__ import annotations

from .fitter import LeverageFit, lemma3_optimal_risk, leverage, surrogate_risk

__all__ = [
           "LeverageFit",
           "lemma3_optimal_risk",
           "leverage",
           "surrogate_risk",
]
