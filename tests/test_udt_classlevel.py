"""The K-class tree grown level by level (the source :class:`classlevel.ClassSegments`) is
the tree grown depth first, node by node (rpart's order, the source
:class:`classes.NodeRows`), both by :func:`ubreg.trees.builder.grow_levels`, to the last
bit: nodes in the same order, improvements, ties, sets of levels, surrogates."""
from types import SimpleNamespace

import numpy as np
import pytest

import ubreg.fitters.udt.classes as classes
import ubreg.fitters.udt.classlevel as classlevel
from ubreg.errors import DataError
from ubreg.trees.class_stats import ClassWeights
from ubreg.trees.columns import TreeColumn


def _data(seed, n=400, K=4, nan=0.0):
    """Numeric predictors with many ties, one continuous, and a factor; classes that
    depend on them."""
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 6, n).astype(float)
    x1 = np.round(rng.normal(size=n), 1)
    x2 = rng.random(n)
    f = rng.integers(0, 5, n)
    y = (x0 + 2 * (x1 > 0) + (f % 2) + rng.integers(0, 2, n)) % K
    if nan:
        x0[rng.random(n) < nan] = np.nan
        x2[rng.random(n) < nan] = np.nan
        f[rng.random(n) < nan] = -1
    cols = [TreeColumn("x0", "numeric", x0), TreeColumn("x1", "numeric", x1),
            TreeColumn("f", "categorical", f, list("abcde")), TreeColumn("x2", "numeric", x2)]
    return cols, y.astype(np.intp)


def _both(cols, y, w, K, prior, kind, **controls):
    """The raw tree of grow_class_raw (level-wise, or its fallback) and of the depth-first
    growth alone; and whether the level-wise growth was undecided."""
    totals = np.bincount(y, weights=np.ones(len(y)) if w is None else w, minlength=K)
    weights = ClassWeights.of(totals, prior)
    got, _ = classes.grow_class_raw(cols, y, w, K, weights, kind, **controls)
    seen = SimpleNamespace(undecided=False)
    real = classes.ClassSegments

    class Spy(real):
        def best_splits(self, *args):
            try:
                return super().best_splits(*args)
            except classlevel.Undecided:
                seen.undecided = True
                raise

    class Refuse(real):
        def best_splits(self, *args):
            raise classlevel.Undecided("depth first")

    classes.ClassSegments = Refuse
    try:
        ref, _ = classes.grow_class_raw(cols, y, w, K, weights, kind, **controls)
        classes.ClassSegments = Spy
        classes.grow_class_raw(cols, y, w, K, weights, kind, **controls)
    finally:
        classes.ClassSegments = real
    return got, ref, seen.undecided


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if k == "surrogates":
            assert list(a[k]) == list(b[k])
            assert repr(a[k]) == repr(b[k])
        else:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k, strict=True)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", ["unit", "int_weights", "float_weights", "prior", "entropy",
                                  "nan", "nan_float_weights"])
def test_level_wise_tree_is_the_depth_first_tree(seed, case):
    K = 4
    cols, y = _data(seed, nan=0.15 if case.startswith("nan") else 0.0)
    rng = np.random.default_rng(100 + seed)
    w = {"int_weights": rng.integers(0, 4, len(y)).astype(float),
         "float_weights": rng.random(len(y)) * 3,
         "nan_float_weights": rng.random(len(y)) * 3}.get(case)
    prior = [0.1, 0.2, 0.3, 0.4] if case == "prior" else None
    kind = "information" if case == "entropy" else "gini"
    got, ref, _ = _both(cols, y, w, K, prior, kind, cp=0.0, min_split=6, min_leaf=2)
    assert ref["var"].max() >= 0 and (ref["left"] >= 0).sum() >= 5
    _same(got, ref)


def test_undecided_iscale_rule_falls_back_to_the_depth_first_tree(monkeypatch):
    """With a share of 1e-3 in rpart's iscale rule (1e-10), some improvements fall between
    the share of the largest improvement at the node's ancestors and of the root's
    impurity: whether rpart keeps them depends on nodes grown earlier depth first, so the
    level-wise growth gives up on those trees; either way the tree is the depth-first one."""
    monkeypatch.setattr(classes, "_ISCALE", 1e-3)
    monkeypatch.setattr(classlevel, "ISCALE", 1e-3)
    undecided = []
    for seed in range(6):
        cols, y = _data(seed)
        got, ref, gave_up = _both(cols, y, None, 4, None, "gini", cp=0.05, min_split=6,
                                  min_leaf=2)
        _same(got, ref)
        undecided.append(gave_up)
    assert any(undecided) and not all(undecided)


@pytest.mark.parametrize("case", ["zero_prior", "max_depth", "constant_and_missing",
                                  "root_only", "min_leaf_weights"])
def test_level_wise_edge_cases_are_the_depth_first_tree(case):
    cols, y = _data(7, nan=0.1)
    w, prior, controls = None, None, dict(cp=0.0, min_split=6, min_leaf=2)
    if case == "zero_prior":                 # α = 0 for class 0: children of no weight
        prior = [0.0, 0.3, 0.3, 0.4]
    elif case == "max_depth":
        controls["max_depth"] = 2
    elif case == "constant_and_missing":
        cols = cols + [TreeColumn("c", "numeric", np.full(len(y), 2.0)),
                       TreeColumn("m", "numeric", np.full(len(y), np.nan))]
    elif case == "root_only":
        controls["min_split"] = 10 ** 4
    else:                                     # min_leaf compares summed weights
        w = np.random.default_rng(3).integers(1, 5, len(y)) * 0.75
        controls["min_leaf"] = 5
    got, ref, undecided = _both(cols, y, w, 4, prior, "gini", **controls)
    assert not undecided
    _same(got, ref)


def test_factor_of_too_many_levels_raises_as_depth_first():
    rng = np.random.default_rng(0)
    n = 300
    f = rng.integers(0, 24, n)
    cols = [TreeColumn("x", "numeric", rng.random(n)),
            TreeColumn("f", "categorical", f, [f"l{i}" for i in range(24)])]
    y = (f % 3).astype(np.intp)
    weights = ClassWeights.of(np.bincount(y, minlength=3).astype(float))
    with pytest.raises(DataError, match="has 24 levels in a node"):
        classes.grow_class_raw(cols, y, None, 3, weights, "gini")
