"""The report's trees section: each ``udt`` tree pruned by its cross-validated cp table.

rpart grows a tree to its ``cp`` floor and leaves the choice of the subtree to the
user (``printcp``, ``prune``); rpart.plot draws the tree chosen.  The report prunes
every tree by the 1-SE rule by default (``prune="1se"``; ``"min"`` for the least
cross-validated error; None to show the trees as fitted), says which cp was chosen
and shows the cp table with the chosen row marked.  The pruned tree then stands for
the model in the whole report; the fitted model itself is not changed, and the
full tree is the fit's (``ubreg.fit(..., method="udt")`` keeps it; ``prune=`` of
the fit prunes it there).
"""
from __future__ import annotations

import dataclasses

from ..evaluate.cv import CVResult
from ..methods.udt import prune_cp
from ..plots.treeplot import depth_for_leaves
from ..results.base import capabilities_of
from ..results.class_tree import ClassTreeResult
from ..results.tree import TreeResult
from .blocks import Row, Section, Table, fmt
from .figures import MAX_TREE_LEAVES, section_figure

__all__ = ["PRUNE_RULES", "prune_trees", "trees_section", "PrunedTree"]

#: the values of ``report(prune=)``
PRUNE_RULES = ("1se", "min", None)
_RULE_TEXT = {"1se": "the 1-SE rule (the smallest tree whose cross-validated error is within "
                     "one standard error of the least)",
              "min": "the least cross-validated error"}


@dataclasses.dataclass
class PrunedTree:
    """What the trees section says of one tree."""

    name: str
    fitted: TreeResult | ClassTreeResult    # the tree as given
    shown: TreeResult | ClassTreeResult     # the tree the report shows (pruned, or as given)
    rule: str | None
    cp: float | None
    note: str = ""


def _has_cv_table(result) -> bool:
    return "xerror" in result.cptable and result.cptable["xerror"].notna().any()


def prune_trees(models: dict, rule) -> tuple[dict, list]:
    """``models`` with every tree pruned by ``rule`` (a CV result's model replaced by the
    pruned tree), and a :class:`PrunedTree` per tree."""
    if rule not in PRUNE_RULES:
        raise ValueError(f"prune must be '1se', 'min' or None, got {rule!r}")
    out, trees = {}, []
    for name, item in models.items():
        result = item.model if isinstance(item, CVResult) else item
        if not (isinstance(result, (TreeResult, ClassTreeResult))
                and capabilities_of(result).is_tree):
            out[name] = item
            continue
        if rule is None or not _has_cv_table(result):
            note = "" if rule is None else ("not pruned: its cp table has no cross-validated "
                                            "error (fitted with xval = 0)")
            trees.append(PrunedTree(name, result, result, None, None, note))
            out[name] = item
            continue
        cp = prune_cp(result, rule)
        pruned = result.prune(cp)
        note = ""
        if isinstance(item, CVResult) and f"prune={rule!r}" not in item.call:
            note = ("its cross-validation scored the trees as fitted in each fold, not pruned "
                    f"by this rule (cross-validate with prune={rule!r} to score the pruned "
                    "trees)")
        trees.append(PrunedTree(name, result, pruned, rule, cp, note))
        out[name] = dataclasses.replace(item, model=pruned) if isinstance(item, CVResult) \
            else pruned
    return out, trees


def _cp_table(t: PrunedTree) -> Table:
    table = t.fitted.cptable
    chosen = t.shown.n_leaves - 1
    rows = []
    for _, r in table.iterrows():
        mark = t.cp is not None and int(r["nsplit"]) == chosen
        rows.append(Row([fmt(r["CP"], 4), str(int(r["nsplit"])), fmt(r["rel error"], 4),
                         fmt(r.get("xerror"), 4), fmt(r.get("xstd"), 4)],
                        "mark" if mark else "body"))
    return Table(f"cp-{t.name}", f"{t.name}: cp table (rpart's printcp); the chosen tree is "
                 "marked." if t.cp is not None else f"{t.name}: cp table (rpart's printcp).",
                 ["CP", "nsplit", "rel error", "xerror", "xstd"], rows, stub_names=False,
                 align="rrrrr",
                 notes=["rel error: the tree's risk over the root's on the training rows; "
                        f"xerror, xstd: its {t.fitted.xval}-fold cross-validated risk and "
                        "standard error (seed "
                        f"{t.fitted.seed}), in the tree's risk measure."])


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _text(t: PrunedTree) -> str:
    full = t.fitted.n_leaves
    if t.cp is None:
        return (f"{t.name}: shown as fitted, {full} leaves" + (f"; {t.note}" if t.note else "")
                + ".")
    assert t.rule is not None       # a cp is chosen by a rule (prune_trees)
    shown = t.shown.n_leaves
    grown = int(t.fitted.cptable["nsplit"].max())
    text = (f"{t.name}: pruned by {_RULE_TEXT[t.rule]} at cp = {fmt(t.cp, 4)}: "
            f"{_count(shown - 1, 'split')}, {_count(shown, 'leaf', 'leaves')}, of the "
            f"{_count(grown, 'split')} of the tree grown (the last row of its cp table)")
    if full != grown + 1:
        text += f"; the model as given had {full} leaves"
    if t.rule == "1se":
        least = prune_cp(t.fitted, "min")
        text += f" (least cross-validated error at cp = {fmt(least, 4)})"
    text += (". The pruned tree stands for this model everywhere in the report; the full tree "
             "is the fit's own (ubreg.fit(..., method=\"udt\") keeps it; report(..., "
             "prune=None) shows the trees as fitted).")
    return text + (f" Note: {t.note}." if t.note else "")


def trees_section(trees: list) -> Section | None:
    """The ``trees`` section: per tree, the choice of cp, the cp table and the tree."""
    if not trees:
        return None
    section = Section("trees", "Trees")
    for t in trees:
        section.text(_text(t))
        if "CP" in t.fitted.cptable:
            section.add(_cp_table(t))
        depth = depth_for_leaves(t.shown.tree, MAX_TREE_LEAVES)
        options = {} if depth is None else {"max_depth": depth}
        caption = f"{t.name}: the tree " + ("pruned at cp = " + fmt(t.cp, 4) if t.cp is not None
                                            else "as fitted")
        caption += ("; the condition under a node holds on its left branch; leaves show the "
                    "predicted class, p(y = 1) and n, coloured by p(y = 1)")
        if depth is not None:
            caption += f" (drawn to depth {depth}; dashed boxes are cut subtrees)"
        section.add(section_figure("pruned_tree", (t.shown, options), caption))
    return section
