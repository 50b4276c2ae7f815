"""UDT: top-down induction of decision trees for any permissible φ (Algorithm 3).

Array-level engine; ``ubreg.fit(..., method="udt")`` wires it to formulas::

    from ubreg.families import Permissible
    from ubreg.fitters.udt import TreeColumn, grow_tree
    cols = [TreeColumn("glucose", "numeric", x1), TreeColumn("band", "categorical", codes, levels)]
    tree = grow_tree(cols, y, None, Permissible("gini"), cp=0.01)
    tree.frame; tree.predict(cols, type="response"); tree.prune(0.02)
    print(ubreg.summary.tree_listing.listing(tree))     # rpart's print

Conventions and documented choices:

- Split score (eq. 104): the drop of Σ_leaves w(S_k)(−φ(p_k))/b_φ, the tree's
  balanced convex surrogate (Theorem 4); gini = CART, entropy = C4.5 (rpart's
  "information"), matsushita = Kearns–Mansour.  Numeric splits at midpoints
  between consecutive distinct values; categorical splits by ordering the
  levels by their proportion of y = 1 (exact for two classes).
- Children (rpart): node k has children 2k (left) and 2k + 1; the left child is
  the side with the smaller proportion of y = 1, so a numeric split records
  ``direction`` "<" (x < threshold goes left, rpart's ncat = -1) or ">=".
- Ties: the first predictor in column order, then the smallest threshold;
  gains within 1e-10 × b_φ × (node weight) are tied (``n_tied`` counts them).
- Controls as rpart: ``min_split`` 20, ``min_leaf`` 7, ``max_depth`` 30 (≤ 62),
  ``cp`` 0.01.  ``min_split`` and ``min_leaf`` count observations: with
  frequency weights, a row of weight w counts w times (rpart counts rows; this
  is the frequency-weight reading ubreg uses for every method), so a zero
  weight is a removed row.  With non-integer weights, scale them so they sum
  to the number of observations.  ``cp`` prunes by rpart's cost complexity under
  ``risk="misclass"`` (default, rpart's measure: rpart's tree) or ``"surrogate"``
  (the tree's surrogate risk, Theorem 4).
- Missing values: the split search uses the rows where the variable is
  observed; rows with it missing follow rpart's surrogate splits
  (:mod:`ubreg.trees.surrogates`), then the child with the larger
  observed weight (ties: left), as do levels of a categorical split absent
  from the node in training.  They are never dropped.
- Leaves carry p_k and ∇φ(p_k) (eq. 106); at pure leaves the link is capped at
  ∇φ(1e-12) / −∇φ(1e-12), or at the bound of a bounded link domain (gini ±1).
- Class: 1 iff p > 1/2 (rpart picks the first class at p = 1/2: y = 0 under the default coding).
"""
from ...trees.columns import TreeColumn
from ...trees.model import LINK_EPS, Tree
from ...trees.prune import one_se_cp
from .engine import cp_table_cv, grow_tree, with_all_surrogates

__all__ = ["TreeColumn", "grow_tree", "Tree", "cp_table_cv", "one_se_cp", "LINK_EPS",
           "with_all_surrogates"]
