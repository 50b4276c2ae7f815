"""UDT: top-down induction of decision trees for any permissible φ (Algorithm 3).

Array-level engine; ``ubreg.fit(..., method="udt")`` wires it to formulas::

    from ubreg.tree import TreeColumn, grow_tree
    tree = grow_tree(columns, y, None, Permissible("gini"), cp=0.01)
    tree.frame; tree.predict(columns, type="response"); tree.prune(0.02)
"""
from .columns import TreeColumn
from .engine import cp_table_cv, grow_tree
from .model import LINK_EPS, Tree
from .plot import plot_tree
from .prune import one_se_cp

__all__ = ["TreeColumn", "grow_tree", "Tree", "cp_table_cv", "one_se_cp", "plot_tree",
           "LINK_EPS"]
