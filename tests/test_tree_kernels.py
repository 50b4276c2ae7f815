"""The compiled gain kernels of the UDT splitter (ubreg.trees.gain_kernels) give
numpy's gains bit for bit, hence the same trees, whichever route a level takes."""
import sys

import numpy as np
import pytest

from ubreg.families import Permissible
from ubreg.fitters.udt import TreeColumn, grow_tree
from ubreg.trees import criterion as C
from ubreg.trees.criterion import make_criterion

KERNEL_FAMILIES = [("matsushita", {}), ("mu", {"mu": 0.3}), ("entropy", {}), ("entropy2", {})]
IDS = [f[0] for f in KERNEL_FAMILIES]


def _route(monkeypatch, compiled):
    """Every level through the kernels (planned for every tree, however small)
    or none (numba loaded or not)."""
    monkeypatch.setattr(C, "JIT_MIN_CUTS", 0 if compiled else 1 << 62)
    for cls in (C._Sqrt, C._Entropy):
        monkeypatch.setattr(cls, "jit_work", 0 if compiled else np.inf)


def _counts(m, seed):
    """Left/right row counts and positives of m cuts, the ends (empty child,
    pure child) included, as the splitter sees them with unit weights."""
    rng = np.random.default_rng(seed)
    lw = rng.integers(0, 3000, m).astype(float)
    rw = rng.integers(0, 3000, m).astype(float)
    lw[:4], rw[:4] = [0, 5, 5, 2999], [5, 0, 7, 1]
    lwy = np.floor(rng.random(m) * (lw + 1)).clip(max=lw)
    rwy = np.floor(rng.random(m) * (rw + 1)).clip(max=rw)
    lwy[2], rwy[2] = lw[2], 0.0
    return lwy, lw, rwy, rw


def _gain(crit, lwy, lw, rwy, rw, unit):
    m = lw.shape[0]
    crit.plan_kernels(m, unit)
    wpart = crit.weight_part(lw, rw) if unit else None
    out = np.empty(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        crit.raw_gain(lwy, lw, rwy, rw, wpart, out, np.empty(m), np.empty(m))
    return out


@pytest.mark.parametrize("name, params", KERNEL_FAMILIES, ids=IDS)
def test_kernel_gains_are_numpys_bit_for_bit(monkeypatch, name, params):
    fam = Permissible(name, **params)
    lwy, lw, rwy, rw = _counts(20_000, 1)
    # unit weights: row counts (the exact sqrt kernel, the entropy table)
    _route(monkeypatch, False)
    ref = _gain(make_criterion(fam), lwy, lw, rwy, rw, unit=True)
    _route(monkeypatch, True)
    got = _gain(make_criterion(fam), lwy, lw, rwy, rw, unit=True)
    assert np.isfinite(ref).all()
    np.testing.assert_array_equal(got, ref)
    # frequency weights: rounded sums, a product may fall below 0 (clipped)
    rng = np.random.default_rng(2)
    s = rng.random(lw.shape[0]) * 3
    flw, frw = lw * s, rw * s
    flwy = lwy * s * (1 + 1e-15 * rng.standard_normal(s.shape))
    frwy = rwy * s
    _route(monkeypatch, False)
    ref = _gain(make_criterion(fam), flwy, flw, frwy, frw, unit=False)
    _route(monkeypatch, True)
    got = _gain(make_criterion(fam), flwy, flw, frwy, frw, unit=False)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.slow
@pytest.mark.parametrize("name, params", KERNEL_FAMILIES, ids=IDS)
def test_trees_do_not_depend_on_the_route(monkeypatch, name, params):
    """Same trees, same improvements, tie counts included, with every level
    on the kernels or none; unit weights, frequency weights and missing values."""
    rng = np.random.default_rng(3)
    n = 4000
    X = np.round(rng.standard_normal((n, 4)), 1)              # ties and repeated values
    X[rng.random(n) < 0.1, 3] = np.nan
    eta = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2]
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    cols = [TreeColumn(f"x{j}", "numeric", np.ascontiguousarray(X[:, j])) for j in range(4)]
    w = rng.integers(1, 4, n).astype(float)
    fam = Permissible(name, **params)
    from ubreg.trees import gain_kernels as _kernels
    calls = []
    for kname in ("sqrt_gain_exact", "sqrt_gain_clip", "entropy_gain_unit"):
        # the defaults bind this iteration's kernel and name
        def counted(*args, _f=getattr(_kernels, kname), _k=kname):  # noqa: B008
            calls.append(_k)
            return _f(*args)
        monkeypatch.setattr(_kernels, kname, counted)
    for weight in (None, w):
        trees = []
        for compiled in (False, True):
            _route(monkeypatch, compiled)
            calls.clear()
            trees.append(grow_tree(cols, y, weight, fam, min_split=2, min_leaf=1,
                                   max_depth=7, cp=0).nodes)
            # the entropy kernel reads row counts: unit weights only
            assert bool(calls) == (compiled and (weight is None or "entropy" not in name))
        a, b = trees
        assert len(a["n"]) > 50
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_kernels_are_planned_for_large_trees_only():
    gini = make_criterion(Permissible("gini"))
    sqrt = make_criterion(Permissible("matsushita"))
    ent = make_criterion(Permissible("entropy"))
    generic = make_criterion(Permissible("power"))
    # the fused split search: unit weights and a closed form
    assert gini.plan_kernels(C.FUSED_WORK, True)
    assert not gini.plan_kernels(C.FUSED_WORK - 1, True)
    assert not gini.plan_kernels(1e12, False)                 # no gain kernel for gini
    assert not generic.plan_kernels(1e12, True)
    assert not sqrt.plan_kernels(1e7, True)
    assert sqrt.plan_kernels(1e9, False) and sqrt.kernels(C.JIT_MIN_CUTS) is not None
    assert sqrt.kernels(C.JIT_MIN_CUTS - 1) is None
    assert not ent.plan_kernels(1e9, False)                   # the table needs row counts
    assert ent.plan_kernels(1e9, True)
    # a 10^6-row tree of 20 predictors, depth 8, repays numba's start-up; 10^5 does not
    assert sqrt.plan_kernels(10**6 * 20 * 8, True)
    assert not sqrt.plan_kernels(10**5 * 20 * 8, True)


@pytest.mark.slow
@pytest.mark.parametrize("weighted", [False, True])
def test_trees_do_not_depend_on_the_compiled_partition(monkeypatch, weighted):
    """The orderings partitioned by the compiled kernel or by numpy: the same trees
    (per-predictor partitions forced at every level: BATCH_ROWS = 0); unit and
    frequency weights, missing values, zero weights (rows outside the orderings)."""
    from ubreg.fitters.udt import _partition_kernel
    from ubreg.fitters.udt import grow as G
    from ubreg.fitters.udt import partition as P
    rng = np.random.default_rng(5)
    n = 3000
    X = np.round(rng.standard_normal((n, 4)), 1)
    X[rng.random(n) < 0.1, 2] = np.nan
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X[:, 0] - X[:, 1])))).astype(int)
    cols = [TreeColumn(f"x{j}", "numeric", np.ascontiguousarray(X[:, j])) for j in range(4)]
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    monkeypatch.setattr(G, "BATCH_ROWS", 0)
    calls = []

    def counted(*args):
        calls.append(1)
        return _partition_kernel.stable_partition(*args)

    trees = []
    for kernel in (None, counted):
        monkeypatch.setattr(P, "_partition_kernel", lambda m, _k=kernel: _k)
        trees.append(grow_tree(cols, y, w, Permissible("gini"), min_split=2, min_leaf=1,
                               max_depth=9, cp=0).nodes)
    assert len(calls) > 20
    a, b = trees
    assert len(a["n"]) > 100
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_the_partition_is_compiled_only_once_numba_is_loaded(monkeypatch):
    import numba  # noqa: F401

    from ubreg.fitters.udt import partition as G
    assert G._partition_kernel(10**6) is not None
    assert G._partition_kernel(1000) is None
    monkeypatch.delitem(sys.modules, "numba")
    assert G._partition_kernel(10**6) is None     # a gini tree does not load numba for it
