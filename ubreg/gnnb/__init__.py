"""Boosted nearest neighbours: GNNB (paper 002, Algorithm 1) and its UNN baseline.

Importing this package registers the methods ``"gnnb"`` and ``"unn"`` with
:func:`ubreg.fit`::

    m = ubreg.fit("Class ~ .", data, family=ubreg.Permissible("entropy"),
                  method="gnnb", k=10)
    m.predict(newdata, type="response")   # per-class posteriors

The exact k-NN search is BLAS (numpy's matmul) plus numpy selection, with
deterministic ties: no runtime dependency beyond numpy.  When ``threadpoolctl``
is installed (it comes with scikit-learn) chunks of queries run on a thread
per core with single-threaded BLAS inside each.  See :mod:`ubreg.gnnb.neighbours`
for the measurements behind it.
"""
from __future__ import annotations

from .fitter import LeverageFit, h_star, lemma3_optimal_risk, leverage, surrogate_risk
from .method import fit_gnnb, fit_unn
from .result import GNNBResult

__all__ = [
           "GNNBResult",
           "LeverageFit",
           "fit_gnnb",
           "fit_unn",
           "h_star",
           "lemma3_optimal_risk",
           "leverage",
           "surrogate_risk",
]
