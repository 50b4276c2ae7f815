"""The fitted tree of K classes (rpart's ``method = "class"`` with priors): node table,
class probabilities, prediction.

A :class:`ClassTree` is a :class:`~ubreg.trees.model.Tree` whose nodes hold the weight of
every class (``class_w``, nodes × K) instead of the weight of class 1, with the priors
that alter them (:class:`~ubreg.trees.class_stats.ClassWeights`).  Routing, surrogates,
pruning and the cp table are the engine's; what depends on the response is here: the
class probabilities p_j = α_j n_j / Σ α n of a node (rpart's ``yprob``), its class (least
expected loss, the first among equals) and its risk (that loss, rpart's ``dev``).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from .class_stats import ClassWeights
from .model import Tree

__all__ = ["ClassTree"]

_PREDICT_TYPES = ("prob", "class", "leaf")


class ClassTree(Tree):
    """A tree of K classes (see the module notes).

    Parameters
    ----------
    nodes, specs, family, controls, alpha
        As :class:`~ubreg.trees.model.Tree` (``nodes`` with ``class_w``).
    levels : list of str
        The K classes, in order.
    class_weights : ClassWeights
        The priors and the altered weights α_j.
    """

    _STATE: tuple[str, ...] = (*Tree._STATE, "levels", "class_weights")

    def __init__(self, nodes, specs, family, controls, alpha, levels, class_weights,
                 weight_unit=1.0):
        super().__init__(nodes, specs, family, controls, alpha, "misclass", weight_unit)
        self.levels = list(levels)
        self.class_weights: ClassWeights = class_weights

    @property
    def n_classes(self) -> int:
        return len(self.levels)

    @cached_property
    def yprob(self):
        """Class probabilities of each node (nodes × K), rpart's ``yprob``."""
        return self.class_weights.probabilities(self.nodes["class_w"])

    @cached_property
    def _predicted(self):
        return self.class_weights.predicted(self.nodes["class_w"])

    @property
    def yval(self) -> np.ndarray:
        """Class code (0..K−1) of each node."""
        return self._predicted[0]

    @property
    def _grown_misclass(self):
        return self._predicted[1]

    def grown_node_risk(self, measure):
        return self._grown_misclass

    @property
    def _improve_unit(self) -> float:
        return 1.0                      # improvements are stored in rpart's units

    def _node_values(self) -> dict:
        probs = {f"prob:{level}": self.yprob[:, j] for j, level in enumerate(self.levels)}
        return {"yval": self.yval, "class": pd.Categorical.from_codes(self.yval, self.levels),
                **probs, "loss": self.node_misclass}

    # ---- what a multinomial likelihood reads ------------------------------
    def _log_likelihood(self, rows) -> float:
        """Σ_j n_j log p_j over the nodes ``rows`` (the class weights' log-likelihood
        under the nodes' probabilities)."""
        n = self.nodes["class_w"][rows]
        p = self.yprob[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(n > 0, n * np.log(p), 0.0)
        return float(self._in_weight_units(terms.sum()))

    @property
    def deviance(self) -> float:
        """−2 Σ_leaves Σ_j n_j log p_j: the multinomial deviance of the leaves' class
        probabilities (the saturated model's log-likelihood of classes is 0)."""
        return -2.0 * self._log_likelihood(self.is_leaf)

    @property
    def null_deviance(self) -> float:
        """The same for the root alone."""
        return -2.0 * self._log_likelihood(np.arange(self.n_nodes) == 0)

    @property
    def surrogate_risk(self) -> float:
        raise AttributeError("a tree of K classes has no balanced convex surrogate risk "
                             "(Theorem 4 is binary); see deviance")

    # ---- prediction ---------------------------------------------------------
    def predict(self, columns, type="prob") -> np.ndarray:
        """``prob`` (rows × K class probabilities of the leaf), ``class`` (its class code)
        or ``leaf`` (its rpart number)."""
        if type not in _PREDICT_TYPES:
            raise ValueError(f"type must be one of {_PREDICT_TYPES}, got {type!r}")
        idx = self._leaf_index(columns)
        if type == "leaf":
            return self.nodes["number"][idx]
        return self.yprob[idx] if type == "prob" else self.yval[idx]

    def heldout_loss(self, node, y) -> np.ndarray:
        """π_y/f_y · 1(class of the node ≠ y): rpart's cross-validated loss (ginipred)."""
        y = np.asarray(y, dtype=np.intp)
        return np.where(self.yval[node] != y, self.class_weights.risk_weight[y], 0.0)

    def __repr__(self):
        return (f"<UDT tree of {self.n_classes} classes: {self.family!r}, {self.n_nodes} "
                f"nodes, {int(self.is_leaf.sum())} leaves>")
