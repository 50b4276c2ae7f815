"""The weak learners of ULS, behind one call: ``propose(v) -> (hypothesis, values, edge)``.

A hypothesis maps a design matrix to one or more features (columns of
``transform(X)``): a ±1 stump, a ±1 monomial rule, or the leaf indicators of
a shallow UDT tree.  ``v`` holds the signed example weights wᵢ ωᵢ y*ᵢ of the
current family (docs/math.md §4); the learner maximises the |edge| Σᵢ vᵢ h(xᵢ).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...families.closed import Matsushita
from ...learners.binning import BinnedDesign
from ...learners.rules import fit_rule
from ...learners.stumps import fit_sign_stump
from ...learners.trees import Tree, grow_tree, udt_gain

__all__ = ["LEARNERS", "TreeLeaves", "propose"]

LEARNERS = ("stumps", "rules", "trees")


@dataclass(frozen=True, eq=False)
class TreeLeaves:
    """The leaves of a UDT tree as indicator features (one column per leaf)."""

    tree: Tree
    leaves: tuple
    kind: str = "tree"

    @property
    def n_features(self) -> int:
        return len(self.leaves)

    @property
    def columns(self) -> tuple[int, ...]:
        return self.tree.columns

    def transform(self, X: np.ndarray) -> np.ndarray:
        node = self.tree.apply(X)
        return (node[:, None] == np.asarray(self.leaves)[None, :]).astype(np.float64)

    def key(self):
        return ("tree", id(self))

    def describe(self, names) -> list[str]:
        return [f"leaf [{self.tree.describe_node(int(k), names)}]" for k in self.leaves]


def propose(kind: str, binned: BinnedDesign, v: np.ndarray, y: np.ndarray, w: np.ndarray,
            family, *, literals: int = 2, depth: int = 2, min_leaf: float = 1.0):
    """Run weak learner ``kind`` on signed weights ``v``.

    Returns (hypothesis, (n, k) training values, normalised edge in [−1, 1])
    or None when no column can be split.
    """
    total = float(np.abs(v).sum())
    if kind == "stumps":
        out = fit_sign_stump(binned, v)
    elif kind == "rules":
        out = fit_rule(binned, v, literals)
    elif kind == "trees":
        out = _fit_tree(binned, v, y, w, family, depth, min_leaf)
    else:  # pragma: no cover - validated by the caller
        raise ValueError(kind)
    if out is None:
        return None
    hyp, values, edge = out
    return hyp, values, (edge / total if total > 0 else 0.0)


def _fit_tree(binned, v, y, w, family, depth, min_leaf):
    # UDT criterion of the family at hand (docs/math.md §5) on the boosting weights;
    # for the exponential loss the Matsushita criterion, which is exactly the
    # loss after solving (70) on each leaf (Kearns–Mansour, real AdaBoost)
    phi = family.phi if family.is_permissible else Matsushita().phi
    pos = y == 1
    stats = np.column_stack([np.where(pos, np.maximum(v, 0.0), 0.0),
                             np.where(pos, 0.0, np.maximum(-v, 0.0)), w])
    tree, node = grow_tree(binned, stats, udt_gain(phi), depth, min_leaf=min_leaf, leaf_col=2)
    leaves = tree.leaves
    values = (node[:, None] == leaves[None, :]).astype(np.float64)
    # edge of the best sign per leaf: Σ_leaves |Σ_leaf v|
    edge = float(np.abs(values.T @ v).sum())
    return TreeLeaves(tree, tuple(int(k) for k in leaves)), values, edge
