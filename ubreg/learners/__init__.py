"""Weak learners and their hypotheses, behind one protocol (:mod:`.base`).

``stumps``: ±1 decision stumps (ULS, t-AdaBoost) — ``rules``: monomial rules
(ULS) — ``linear``: componentwise linear base-learners (U-Boost) — ``ensembles``:
the fitted ensembles results predict with.  The trees the learners grow (UDT
leaves for ULS, Newton regression trees for U-Boost, tempered and §3.3 trees for
t-AdaBoost), the one class of their fitted trees and the binned design they search
are the tree engine's (:mod:`ubreg.trees`: :mod:`~ubreg.trees.shallow`,
:mod:`~ubreg.trees.best_first`, :mod:`~ubreg.trees.weak_tree`, :mod:`~ubreg.trees.binning`).
"""
from .base import OnColumns, WeakHypothesis

__all__ = ["OnColumns", "WeakHypothesis"]
