"""The result of ``method="udt"`` on a response of more than two classes, or with priors:
rpart's classification tree of K classes (:mod:`ubreg.fitters.udt.classes`).

``predict``: ``response`` (or rpart's spelling ``prob``) a DataFrame of the leaf's K class
probabilities, ``class`` the leaf's class (least expected loss: the most probable class,
the first among equals), ``leaf`` its rpart node number, ``link`` the log-probabilities
log p_k, capped at log 1e-12 for a class absent from the leaf (as a binary tree caps the
link of a pure leaf): scores whose softmax gives the probabilities (to 1e-12), largest
for the leaf's class.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._version import __version__
from ..design import RawDesign, as_frame
from ..trees.class_model import ClassTree
from ..trees.model import LINK_EPS
from ..trees.prune import pruned_call
from .base import Capabilities, Provenance, check_predict_type, class_series
from .classes import ClassProbabilityResult
from .tree import TreeParts, leaves_after_prune, to_tree_columns

if TYPE_CHECKING:
    from ..design import Design, Response
    from ..families import Family
    from ..summary.tree import ClassTreeSummary

__all__ = ["ClassTreeResult"]

_TYPES = ("response", "prob", "link", "class", "leaf")


class ClassTreeResult(TreeParts, ClassProbabilityResult):
    """A UDT tree of K classes (rpart's ``method = "class"``; see the module notes).

    Attributes ``tree`` (a :class:`~ubreg.trees.class_model.ClassTree`), ``frame`` (one row
    per node: ``yval``, ``class``, ``prob:<level>`` per class, ``loss``), ``cptable``,
    ``variable_importance``, ``prior`` (the priors by class).  Rows missing a predictor,
    in training and in ``newdata``, are routed by rpart's surrogate splits, then the
    majority branch.
    """

    method = "udt"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, is_tree=True,
                                is_multiclass=True)
    tree: ClassTree

    def __init__(self, *, tree: ClassTree, cptable: pd.DataFrame, xval: int, seed: int | None,
                 na_counts: dict, training_leaf: np.ndarray, formula: str, family: Family,
                 call: str, design: Design, response: Response, y: np.ndarray,
                 weights: np.ndarray, index: pd.Index, n_input: int, dropped: pd.Index,
                 weight_kind: str = "prior", provenance: Provenance | None = None,
                 **_: Any) -> None:
        self.tree, self.cptable, self.xval, self.seed = tree, cptable, xval, seed
        self.na_counts = dict(na_counts)
        self.training_leaf = np.asarray(training_leaf)
        self.formula, self.family, self.call = formula, family, call
        self.design, self.response = design, response
        self.y, self.weights, self.index = np.asarray(y, dtype=float), weights, index
        self.n_input, self.dropped = n_input, dropped
        self.weight_kind, self.provenance = weight_kind, provenance
        self.ubreg_version = __version__

    # ---- the tree ---------------------------------------------------------
    @property
    def prior(self) -> pd.Series:
        return pd.Series(self.tree.class_weights.prior, index=self.classes, name="prior")

    @property
    def class_labels(self) -> list[str]:
        """The labels of the K classes, as the listing and the plot show them."""
        return [str(c) for c in self.classes]

    @property
    def df_model(self) -> float:
        """K − 1 free probabilities per leaf (not degrees of freedom: the tree is chosen
        adaptively)."""
        return float(self.n_leaves * (len(self.classes) - 1))

    @property
    def deviance(self) -> float:
        """−2 Σ w log p̂_y with the leaves' class probabilities."""
        return self.tree.deviance

    @property
    def training_error(self) -> float:
        """Σ w [leaf's class ≠ y] / Σ w over the training rows."""
        cls = self._by_leaf(self.training_leaf, "class")
        return float(np.sum(self.weights * (cls != self.y)) / np.sum(self.weights))

    # ---- prediction ---------------------------------------------------------
    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """See the module notes.  Every row gets a prediction (``predict.rpart``)."""
        check_predict_type(type, _TYPES)
        if newdata is None:
            leaf, index = self.training_leaf, self.index
        else:
            newdata = as_frame(newdata, "newdata")
            design = self.design
            assert isinstance(design, RawDesign)
            leaf = self.tree.apply(to_tree_columns(design.columns(newdata, "newdata")))
            index = newdata.index
        values = self._by_leaf(leaf, type)
        if type == "leaf":
            return pd.Series(pd.array(values, dtype="Int64"), index=index, name="leaf")
        if type == "class":
            return class_series(self.classes, values, index)
        return pd.DataFrame(values, index=index, columns=self.classes)

    def _by_leaf(self, leaf: np.ndarray, type: str) -> np.ndarray:
        """``type``'s values of the rows whose leaves (rpart numbers) are ``leaf``."""
        if type == "leaf":
            return np.asarray(leaf)
        numbers = self.tree.nodes["number"]
        order = np.argsort(numbers)
        idx = order[np.searchsorted(numbers, leaf, sorter=order)]
        if type == "class":
            return self.tree.yval[idx]
        p = self.tree.yprob[idx]
        if type == "link":            # capped as a binary tree's pure leaves (LINK_EPS)
            return np.log(np.maximum(p, LINK_EPS))
        return p

    # ---- pruning ------------------------------------------------------------
    def prune(self, cp: float) -> ClassTreeResult:
        """A new result with the splits whose complexity is below ``cp`` removed
        (rpart's ``prune(fit, cp)``); the cp table is kept."""
        tree = self.tree.prune(cp)
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.tree = tree
        out.training_leaf = leaves_after_prune(tree, self.training_leaf)
        out.call = pruned_call(self.call, cp)
        return out

    def summary(self) -> ClassTreeSummary:
        from ..summary.tree import ClassTreeSummary
        return ClassTreeSummary(self)
