"""The fused split search (ubreg.fitters.udt.fused): the candidates, and so the
trees, of numpy's search bit for bit, whichever route a level takes."""
import numpy as np
import pytest

from ubreg.families import Permissible
from ubreg.fitters.udt import TreeColumn, grow_tree
from ubreg.fitters.udt import fused as F
from ubreg.fitters.udt import grow as G
from ubreg.fitters.udt.splitter import RowData, Workspace, make_layout, numeric_best
from ubreg.trees import criterion as C
from ubreg.trees.criterion import make_criterion

FAMILIES = [("gini", {}), ("entropy", {}), ("entropy2", {}), ("matsushita", {}),
            ("mu", {"mu": 0.3})]
IDS = [f[0] for f in FAMILIES]


def _level(seed, n=6000, segments=7):
    """One level: the rows in segments (node of each row), each ordering sorted
    by its predictor within the segments; values on a coarse grid (many ties),
    continuous, and mostly one value; one pure segment."""
    rng = np.random.default_rng(seed)
    node = rng.integers(0, segments, n)
    y = (rng.random(n) < 0.35).astype(np.float64)
    y[node == 2] = 1.0
    xs = [np.round(rng.standard_normal(n), 1), rng.standard_normal(n),
          np.where(rng.random(n) < 0.5, 0.0, np.round(rng.random(n), 2))]
    orders = [np.lexsort((x, node)).astype(np.int32) for x in xs]
    lengths = np.bincount(node, minlength=segments)
    twy = np.bincount(node, weights=y, minlength=segments)
    return xs, y, orders, lengths, twy


@pytest.mark.parametrize("min_leaf", [1, 3, 40])
@pytest.mark.parametrize("name, params", FAMILIES, ids=IDS)
def test_fused_candidates_are_numpys(name, params, min_leaf):
    import numba  # noqa: F401  (the fused route needs numba loaded or planned)

    xs, y, orders, lengths, twy = _level(11)
    crit = make_criterion(Permissible(name, **params))
    lay = make_layout(lengths, twy, lengths.astype(float), crit, min_leaf, True)
    y8 = y.astype(np.uint8)
    rows = RowData(y8=y8, wy=y, w=np.ones_like(y), unit=True)
    dups = [True, False, True]
    kind = F.fused_kind(crit, lay.m, True)
    assert kind is not None
    got = F.fused_candidates(kind, [0, 1, 2], xs, orders, y8, dups, lay, crit,
                             Workspace(len(y)))
    for j in range(3):
        ref = numeric_best(xs[j], orders[j], rows, lay, crit, Workspace(len(y)),
                           has_dups=dups[j])
        c = got[j]
        assert np.isfinite(ref.improve).sum() >= 3
        assert (ref.n_tied > 1).any() or j == 1
        for key in ("improve", "n_tied", "threshold", "lw", "rw", "low_left"):
            np.testing.assert_array_equal(getattr(c, key), getattr(ref, key),
                                          err_msg=f"{name} x{j} {key}")


@pytest.mark.slow
@pytest.mark.parametrize("name, params", FAMILIES, ids=IDS)
def test_trees_do_not_depend_on_the_fused_route(monkeypatch, name, params):
    """Whole trees, every level fused or none: the same nodes, improvements and tie
    counts; a column with missing values (searched by numpy either way), deep
    levels with many small segments, min_leaf above 1."""
    import numba  # noqa: F401

    rng = np.random.default_rng(4)
    n = 5000
    X = np.round(rng.standard_normal((n, 4)), 1)
    X[rng.random(n) < 0.1, 3] = np.nan
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X[:, 0] - 0.8 * X[:, 1])))).astype(int)
    cols = [TreeColumn(f"x{j}", "numeric", np.ascontiguousarray(X[:, j])) for j in range(4)]
    fam = Permissible(name, **params)
    calls = []
    real = F.fused_candidates

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(C, "JIT_MIN_CUTS", 0)
    trees = []
    for fused in (False, True):
        monkeypatch.setattr(G, "fused_kind", F.fused_kind if fused else lambda *a: None)
        monkeypatch.setattr(G, "fused_candidates", counted)
        calls.clear()
        trees.append(grow_tree(cols, y, None, fam, min_split=2, min_leaf=3, max_depth=12,
                               cp=0).nodes)
        assert bool(calls) == fused
    a, b = trees
    assert len(a["n"]) > 200
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_weighted_trees_are_not_fused(monkeypatch):
    import numba  # noqa: F401

    crit = make_criterion(Permissible("gini"))
    crit.compiled = True
    assert F.fused_kind(crit, 10**6, True) is not None
    assert F.fused_kind(crit, 10**6, False) is None
    assert F.fused_kind(crit, C.JIT_MIN_CUTS - 1, True) is None
    assert F.fused_kind(make_criterion(Permissible("power")), 10**6, True) is None
