"""The result of ``method="udt"``: a tree grown by UDT (paper 000 Algorithm 3)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import RawColumn, RawDesign, as_frame
from ..trees.columns import TreeColumn
from ..trees.model import Tree
from ..trees.prune import one_se_cp, pruned_call
from .base import PREDICT_TYPES, BinaryResult, Capabilities, check_predict_type, class_series

if TYPE_CHECKING:
    from ..summary.tree import TreeSummary

__all__ = ["TreeResult", "TreeParts", "to_tree_columns", "leaves_after_prune"]

#: a tree also predicts the rpart number of each row's leaf, and rpart's class probabilities
_TYPES = (*PREDICT_TYPES, "leaf", "prob")


def to_tree_columns(raw_columns: Iterable[RawColumn]) -> list[TreeColumn]:
    return [TreeColumn(c.name, c.kind, c.values, None if c.levels is None else
                       [str(v) for v in c.levels]) for c in raw_columns]


def leaves_after_prune(tree: Tree, training_leaf: np.ndarray) -> np.ndarray:
    """The leaves (rpart numbers) of rows in the pruned ``tree``, from their leaves
    ``training_leaf`` in the tree before: each old leaf's first ancestor (k → k // 2)
    that is a leaf of the pruned tree."""
    leaves = set(tree.nodes["number"][tree.is_leaf].tolist())
    old = np.unique(training_leaf)
    new = []
    for k in old.tolist():
        while k not in leaves:
            k //= 2
        new.append(k)
    return np.asarray(new)[np.searchsorted(old, training_leaf)]


class TreeParts:
    """What a UDT result shows of its tree, two classes or K: the node table, the variable
    importance, the leaves, the 1-SE rule and rpart's print."""

    tree: Tree
    cptable: pd.DataFrame

    @property
    def frame(self) -> pd.DataFrame:
        """One row per node, rpart's ``frame``."""
        return self.tree.frame

    @property
    def variable_importance(self) -> pd.Series:
        return self.tree.variable_importance

    @property
    def n_leaves(self) -> int:
        return int(self.tree.is_leaf.sum())

    def cp_one_se(self) -> float:
        """The 1-SE rule: the largest CP whose xerror is within one xstd of the
        minimum (Breiman et al. 1984); needs ``xval`` > 0."""
        if "xerror" not in self.cptable:
            raise ValueError("the cp table has no cross-validation (fit with xval > 0)")
        return one_se_cp(self.cptable)

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (R's ``print.rpart``)."""
        from ..summary.printed import tree_lines
        return tree_lines(self)


class TreeResult(TreeParts, BinaryResult):
    """A UDT tree: leaves carry p_k and the link ∇φ(p_k) (eq. 106).

    Training rows missing a predictor are kept and routed by rpart's surrogate
    splits (the majority branch when none applies; see
    :mod:`ubreg.trees.surrogates`); a new row missing a predictor gets NA
    from :meth:`predict`, as with every method.  Attributes ``tree`` (the engine's
    :class:`~ubreg.trees.model.Tree`),
    ``frame`` (one row per node, rpart numbering), ``cptable`` (with
    cross-validated ``xerror``/``xstd`` when ``xval`` > 0) and
    ``variable_importance``.  Draw it with :func:`ubreg.plots.tree`.
    """

    method = "udt"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True,
                                is_tree=True)
    #: the leaf (rpart node number) of each training row, set by the method after the fit
    training_leaf: np.ndarray

    def __init__(self, *, tree: Tree, cptable: pd.DataFrame, xval: int, seed: int | None,
                 na_counts: dict, training_leaf: np.ndarray | None = None,
                 **kwargs: Any) -> None:
        """``training_leaf``: the leaf of each training row; η of the training rows is
        the link of their leaf's posterior (``eta`` is not given then)."""
        if training_leaf is not None:
            kwargs["eta"] = None                # made below, from the leaves
        super().__init__(**kwargs)
        self.tree = tree
        self.cptable = cptable
        self.xval = xval
        self.seed = seed
        self.na_counts = dict(na_counts)
        if training_leaf is not None:
            self.training_leaf = training_leaf
            self.eta = self._by_leaf(training_leaf, "link")

    # ---- the tree ---------------------------------------------------------
    @property
    def class_labels(self) -> list[str]:
        """The labels of classes 0 and 1 (the negative and positive levels), as the
        listing and the plot show them."""
        return [str(self.response.negative), str(self.response.positive)]

    @property
    def df_model(self) -> float:
        """One free probability per leaf."""
        return float(self.n_leaves)

    @property
    def has_intercept(self) -> bool:
        return True

    @property
    def deviance(self) -> float:
        """2 Σ wᵢ D_φ(yᵢ‖p_leaf(i)) with the leaves' exact proportions."""
        return self.tree.deviance

    @property
    def null_deviance(self) -> float:
        return self.tree.null_deviance

    @property
    def surrogate_risk(self) -> float:
        """Σᵢ wᵢ F_φ(y*ᵢ H(xᵢ)) = Σ_k w(S_k)(−φ(p_k))/b_φ − W a_φ/b_φ (Theorem 4)."""
        return self.tree.surrogate_risk

    # ---- prediction ---------------------------------------------------------
    def _columns(self, newdata: pd.DataFrame) -> list[TreeColumn]:
        design = self.design
        assert isinstance(design, RawDesign)    # a tree's predictors are raw columns
        return to_tree_columns(design.columns(newdata, "newdata"))

    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        cols = self._columns(newdata)
        # every row has a leaf: missing values follow the surrogates (predict.rpart)
        return self.tree.predict(cols, type="link"), np.zeros(len(newdata), dtype=bool)

    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """``response`` (the leaf's p_k), ``link`` (∇φ(p_k), capped),
        ``class`` (response label, p_k > 1/2 as rpart, category dtype with the
        response's levels), ``leaf`` (rpart node number, ``Int64``) or ``prob``
        (``predict.rpart``'s: a DataFrame of both classes' probabilities, columns in the
        order of the response's levels).

        Every row gets a prediction, as with rpart's ``predict``: a row of ``newdata``
        missing a split's variable is sent down by that node's surrogate splits, then
        the majority direction (the training rows were routed so when the tree was
        grown); a predictor the tree never splits on does not matter.
        """
        check_predict_type(type, _TYPES)
        if type == "prob":          # predict.rpart's type = "prob": a column per class
            response = self.predict(newdata, type="response")
            p = response.to_numpy()
            levels = list(self.response.levels)
            positive = levels.index(self.response.positive)
            columns = {lev: (p if k == positive else 1.0 - p) for k, lev in enumerate(levels)}
            return pd.DataFrame(columns, index=response.index)
        if newdata is None:
            leaf, index = self.training_leaf, self.index
            na = np.zeros(len(leaf), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            cols = self._columns(newdata)
            leaf, index = self.tree.apply(cols), newdata.index
            na = np.zeros(len(leaf), dtype=bool)
        values = self._by_leaf(leaf, type)
        if type == "leaf":
            # ignored [call-overload]: numpy's stub rejects None, an object scalar to np.where
            leaf_na = np.where(na, None, values)  # type: ignore[call-overload]
            return pd.Series(pd.array(leaf_na, dtype="Int64"), index=index, name="leaf")
        if type == "class":
            levels = list(self.response.levels)
            pos = levels.index(self.response.positive)
            return class_series(levels, np.where(na, -1, np.where(values == 1, pos, 1 - pos)),
                                index)
        return pd.Series(np.where(na, np.nan, values), index=index, name=type)

    def _by_leaf(self, leaf: np.ndarray, type: str) -> np.ndarray:
        frame = self.frame.set_index("node")
        if type == "leaf":
            return leaf
        if type == "class":
            return frame.loc[leaf, "yval"].to_numpy()
        col = "yprob" if type == "response" else "link"
        return frame.loc[leaf, col].to_numpy()

    @property
    def fitted_values(self) -> pd.Series:
        return self.predict(type="response").rename("fitted")

    # ---- pruning ------------------------------------------------------------
    def prune(self, cp: float) -> TreeResult:
        """A new result with the splits whose complexity is below ``cp`` removed
        (rpart's ``prune(fit, cp)``); the cp table is kept."""
        tree = self.tree.prune(cp)
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        for cached in self._unpickled:          # the full tree's deviance and log-likelihood
            out.__dict__.pop(cached, None)
        out.tree = tree
        out.training_leaf = leaves_after_prune(tree, self.training_leaf)
        out.eta = out._by_leaf(out.training_leaf, "link")
        out.call = pruned_call(self.call, cp)
        return out

    def summary(self) -> TreeSummary:
        from ..summary.tree import TreeSummary
        return TreeSummary(self)
