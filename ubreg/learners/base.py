"""The one protocol of ubreg's weak hypotheses, and what the ±1 hypotheses share.

Every weak learner of ubreg returns a hypothesis h that satisfies
:class:`WeakHypothesis`, whichever fitter leverages it:

- :class:`~.stumps.SignStump` (:func:`~.stumps.fit_sign_stump`): ULS, t-AdaBoost;
- :class:`~.rules.MonomialRule` (:func:`~.rules.fit_rule`): ULS;
- :class:`~ubreg.trees.weak_tree.WeakTree`, one class for every tree, a node table
  with explicit children: grown level-wise on binned columns in heap order
  (:func:`~ubreg.trees.shallow.fit_leaf_tree` for ULS,
  :func:`~ubreg.trees.shallow.fit_newton_tree` for U-Boost,
  :func:`~ubreg.trees.shallow.grow_tree` with the tempered criterion for t-AdaBoost's
  ``learner="udt"``, U-Boost's passes on a Dask frame), or best first on exact
  within-node midpoints (:func:`~ubreg.trees.best_first.grow_best_first`: the §3.3 tree
  of t-AdaBoost, docs/tempered.md §3.3);
- :class:`~.linear.LinearStep` (:meth:`~.linear.Componentwise.step`): U-Boost's
  componentwise linear base-learners.

A hypothesis gives *features* (``transform``: the columns whose leveraging
coefficients ULS solves from eq. 70, docs/math.md §4 — one for a ±1 hypothesis
or a linear step, one indicator per leaf for a tree) and an *output*
(``predict``: h(x), what U-Boost adds with step ν and t-AdaBoost with
coefficient α_j, docs/math.md §6, docs/tempered.md §2.1; for a tree, the value
of x's leaf).  ``describe`` gives one line of text per feature and ``key`` says
when two hypotheses give the same features (ULS sums their coefficients in its
feature table).

Learners search splits on a :class:`~.binning.BinnedDesign` (histograms over
bin codes), except the §3.3 tree, which cuts at exact within-node midpoints of
the raw columns; every hypothesis then reads raw design rows.
"""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["OnColumns", "SignHypothesis", "WeakHypothesis"]


@runtime_checkable
class WeakHypothesis(Protocol):
    """What every weak hypothesis gives (see the module docstring)."""

    #: "stump", "rule", "tree" or "linear"
    kind: str

    @property
    def columns(self) -> tuple[int, ...]:
        """The design columns h reads, ascending."""

    @property
    def n_features(self) -> int:
        """Columns of :meth:`transform`."""

    def transform(self, X: np.ndarray) -> np.ndarray:
        """(m, n_features) features of design rows X (float64)."""

    def predict(self, X: np.ndarray) -> np.ndarray:
        """(m,) output h(x) of design rows X."""

    def describe(self, names) -> list[str]:
        """One line per feature, naming columns by ``names``."""

    def key(self) -> tuple:
        """Hashable; equal keys mean equal features."""


class SignHypothesis:
    """A ±1 hypothesis, h(x) = +1 where :meth:`holds` else −1: one feature, h itself.

    The paper's rules with outputs ±1 (paper 000 §7): the sign of the class
    they predict is carried by the leveraging coefficient.  Subclasses give
    ``holds``, ``columns``, ``describe`` and ``key``.
    """

    n_features = 1

    def holds(self, X: np.ndarray) -> np.ndarray:
        """(m,) bool: the rows where h(x) = +1."""
        raise NotImplementedError

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.where(self.holds(X), 1.0, -1.0)

    def transform(self, X: np.ndarray) -> np.ndarray:
        return self.predict(X)[:, None]


class OnColumns:
    """A hypothesis fitted on some design columns (``cols``), read on all of them.

    t-AdaBoost fits its learners without the intercept column; this maps the
    hypothesis back to the design's column numbers and names.
    """

    def __init__(self, hyp: WeakHypothesis, cols):
        self.hyp = hyp
        self.cols = list(cols)

    @property
    def kind(self) -> str:
        return self.hyp.kind

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(sorted(self.cols[j] for j in self.hyp.columns))

    @property
    def n_features(self) -> int:
        return self.hyp.n_features

    def transform(self, X: np.ndarray) -> np.ndarray:
        return self.hyp.transform(np.asarray(X)[:, self.cols])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.hyp.predict(np.asarray(X)[:, self.cols])

    def describe(self, names) -> list[str]:
        return self.hyp.describe([names[j] for j in self.cols])

    def key(self) -> tuple:
        return ("on", tuple(self.cols)) + self.hyp.key()
