"""The tree grower's kernels split across the cores give the serial kernels' numbers.

Each kernel of :mod:`ubreg.trees._level_kernels` (and U-Boost's passes in
:mod:`ubreg.fitters.boost._kernels`) is compiled twice from one body; the
wrappers launch the parallel twin only above a size.  Forcing every size to
"parallel" and to "serial" must give the same trees, leaves, leaf sums and
U-Boost fits, bit for bit; a forked child must run the serial twins (GNU
OpenMP would abort it), and threads may fit at once.
"""
from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.numerics import parallel
from ubreg.trees import _level_kernels as lk
from ubreg.trees.binning import bin_design
from ubreg.trees.shallow import fit_newton_tree, grow_tree, udt_gain


def _force(monkeypatch, on: bool):
    """Every kernel parallel (on) or serial (off), whatever its size."""
    from ubreg.fitters.boost import uboost
    big = 10**12
    for name in ("_PARALLEL_CELLS", "_PARALLEL_ROWS", "_PARALLEL_CANDIDATES"):
        monkeypatch.setattr(lk, name, 0 if on else big)
    monkeypatch.setattr(uboost, "_PARALLEL_ROWS", 0 if on else big)


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    n = 3000
    X = rng.normal(size=(n, 7))
    X[:, 3] = rng.integers(0, 4, n)                 # few distinct values: ties in bins
    eta = X[:, 0] - X[:, 1] * X[:, 2] + 0.5 * X[:, 3]
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    return X, y, rng


def _newton_stats(y, rng, weights):
    n = y.shape[0]
    g = rng.normal(size=n)
    h = rng.uniform(0.05, 1.0, n)
    return np.column_stack([g, h, weights]) if weights is not None else np.column_stack([g, h])


@pytest.mark.skipif(parallel.workers() < 2, reason="one core: no parallel twin is launched")
@pytest.mark.parametrize("depth", [1, 3, 6])
@pytest.mark.parametrize("weighted", [False, True])
def test_parallel_trees_are_the_serial_trees(monkeypatch, data, depth, weighted):
    X, y, rng = data
    b = bin_design(X, 64)
    w = rng.integers(1, 4, y.shape[0]).astype(float) if weighted else None
    stats = _newton_stats(y, rng, w)
    out = {}
    for on in (False, True):
        _force(monkeypatch, on)
        bounds = (1e-3, 15.0) if weighted else (1e-3,)
        tree, node = fit_newton_tree(b, stats, depth, *bounds)
        out[on] = (tree, node.copy())
    (a, na), (c, nc) = out[False], out[True]
    for key in ("feature", "threshold", "gain", "value", "left", "right", "nan_left"):
        np.testing.assert_array_equal(getattr(a, key), getattr(c, key), err_msg=key)
    np.testing.assert_array_equal(na, nc)
    assert (a.feature >= 0).sum() >= depth


@pytest.mark.skipif(parallel.workers() < 2, reason="one core: no parallel twin is launched")
def test_parallel_grow_tree_is_serial_for_any_criterion(monkeypatch, data):
    X, y, rng = data
    b = bin_design(X, 32)
    v = rng.normal(size=y.shape[0])
    stats = np.column_stack([np.where(y == 1, np.abs(v), 0), np.where(y == 1, 0, np.abs(v)),
                             np.ones_like(v)])
    gain = udt_gain(lambda p: -np.sqrt(p * (1 - p)))
    got = []
    for on in (False, True):
        _force(monkeypatch, on)
        tree, node = grow_tree(b, stats, gain, 4, min_leaf=5.0, leaf_col=2)
        got.append((tree.feature.copy(), tree.threshold.copy(), node.copy()))
    for x, z in zip(*got):
        np.testing.assert_array_equal(x, z)


def test_partition_is_stable_and_labels_rows(data):
    X, y, rng = data
    b = bin_design(X, 32)
    n = y.shape[0]
    order = np.sort(rng.choice(n, 2000, replace=False)).astype(np.intp)
    expect_left = order[b.codes[1, order] <= 9]
    expect_right = order[b.codes[1, order] > 9]
    for chunks in (1, 2, 3, 7):
        o, node, buf = order.copy(), np.full(n, -1, dtype=np.int64), np.empty(n, dtype=np.intp)
        mid = lk.PARTITION[1](b.codes, o, node, 0, len(o), 1, 9, 4, chunks, buf, True)
        np.testing.assert_array_equal(o[:mid], expect_left)
        np.testing.assert_array_equal(o[mid:], expect_right)
        assert set(node[expect_left]) == {9} and set(node[expect_right]) == {10}
        assert (np.delete(node, order) == -1).all()


def test_leaf_sums_are_bincount_in_row_order(data):
    X, y, rng = data
    b = bin_design(X, 32)
    stats = rng.normal(size=(y.shape[0], 2))
    tree, node = fit_newton_tree(b, np.column_stack([stats[:, 0], np.abs(stats[:, 1])]), 3,
                                 0.0)
    size = tree.feature.size
    G = np.bincount(node, weights=stats[:, 0], minlength=size)
    H = np.bincount(node, weights=np.abs(stats[:, 1]), minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(H > 0, -G / H, 0.0)
    np.testing.assert_array_equal(tree.value, value)


def _uboost_frame(rng, n=30_000):
    X = rng.normal(size=(n, 6))
    eta = X[:, 0] - X[:, 1] + 0.7 * X[:, 2] * X[:, 3]
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    return frame


FORMULA = "y ~ " + " + ".join(f"x{j}" for j in range(6))


@pytest.mark.slow
@pytest.mark.skipif(parallel.workers() < 2, reason="one core: no parallel twin is launched")
@pytest.mark.parametrize("U", ["logistic", "exponential"])
def test_parallel_uboost_is_the_serial_uboost(monkeypatch, U):
    frame = _uboost_frame(np.random.default_rng(5))
    fits = []
    for on in (False, True):
        _force(monkeypatch, on)
        m = ubreg.fit(FORMULA, frame, method="uboost", family=ubreg.U(U), learner="trees",
                      depth=3, mstop=15, min_samples_leaf=20)
        fits.append((m.predict(frame.iloc[:500], type="link").to_numpy(),
                     np.asarray(m.risk_path)))
    for a, c in zip(*fits):
        np.testing.assert_array_equal(a, c)


@pytest.mark.slow
def test_threads_may_fit_at_once():
    frame = _uboost_frame(np.random.default_rng(6), n=25_000)
    alone = ubreg.fit(FORMULA, frame, method="uboost", learner="trees", depth=3, mstop=10)
    want = alone.predict(frame.iloc[:300], type="link").to_numpy()
    got, errors = [], []

    def fit():
        try:
            m = ubreg.fit(FORMULA, frame, method="uboost", learner="trees", depth=3, mstop=10)
            got.append(m.predict(frame.iloc[:300], type="link").to_numpy())
        except Exception as e:          # pragma: no cover - the failure is reported below
            errors.append(e)
    threads = [threading.Thread(target=fit) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 3
    for g in got:
        np.testing.assert_array_equal(g, want)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                    reason="fork() as on Linux")
def test_a_forked_child_runs_the_serial_kernels():
    # the parent launches parallel kernels first; a child forked after that must not
    # enter GNU OpenMP again (numba's omp layer aborts the child)
    frame = _uboost_frame(np.random.default_rng(7), n=25_000)
    want = ubreg.fit(FORMULA, frame, method="uboost", learner="trees", depth=2,
                     mstop=5).predict(frame.iloc[:50], type="link").to_numpy()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # the child
        os.close(read)
        try:
            m = ubreg.fit(FORMULA, frame, method="uboost", learner="trees", depth=2, mstop=5)
            ok = np.array_equal(m.predict(frame.iloc[:50], type="link").to_numpy(), want)
            os.write(write, b"same" if ok else b"differ")
            os._exit(0 if parallel.parts() == 1 else 3)
        except BaseException:                      # pragma: no cover
            os._exit(4)
    os.close(write)
    said = os.read(read, 16)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert said == b"same"


def test_twins_are_cached_apart():
    # numba's disk cache keys a function by name and line, not by parallel=True:
    # twins of one name would load each other's machine code
    for pair in (lk.ROOT_HISTOGRAM, lk.SEGMENT_HISTOGRAMS, lk.NEWTON_SPLIT, lk.PARTITION,
                 lk.LEAF_SUMS, lk.ROUTE):
        assert pair[0].py_func.__qualname__ != pair[1].py_func.__qualname__
        assert pair[0].targetoptions.get("parallel") and not pair[1].targetoptions.get(
            "parallel")


def test_fused_logistic_passes_are_values_into(monkeypatch):
    # the logistic U's compiled passes (F, z and -|z|; g and h from exp(-|z|); w U)
    # against the generic path (Logistic.values_into, then NEWTON_STATS)
    from ubreg.fitters.boost import uboost
    frame = _uboost_frame(np.random.default_rng(9), n=4000)
    kw = dict(method="uboost", learner="trees", depth=2, mstop=40, nu=0.3)
    fused = ubreg.fit(FORMULA, frame, **kw)
    init = uboost._TreeSteps.__init__

    def generic(self, *a, **k):
        init(self, *a, **k)
        self.logistic = False
    monkeypatch.setattr(uboost._TreeSteps, "__init__", generic)
    plain = ubreg.fit(FORMULA, frame, **kw)
    np.testing.assert_array_equal(fused.predict(frame, type="link").to_numpy(),
                                  plain.predict(frame, type="link").to_numpy())
    np.testing.assert_array_equal(np.asarray(fused.risk_path), np.asarray(plain.risk_path))


def test_fused_logistic_statistics_where_the_curvature_underflows():
    # past |z| ≈ 745 U''(z) underflows to 0 and ULoss.newton_weight takes over (its
    # −expit(F)U'(F), itself 0 at |F| = 800)
    from ubreg.families.ulosses import Logistic
    from ubreg.fitters.boost import uboost
    rng = np.random.default_rng(10)
    n = 50
    X = rng.normal(size=(n, 2))
    w = rng.uniform(0.5, 1.0, n)
    ystar = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    F = rng.choice([-800.0, -40.0, -1.0, 0.0, 2.0, 40.0, 800.0], n)
    z = ystar * F
    got = {}
    for logistic in (True, False):
        steps = uboost._TreeSteps(bin_design(X, 16), w, ystar, Logistic(), 2, 1e-3, 1.0, False,
                                  np.zeros(2, dtype=np.int64), 1)
        steps.logistic = logistic
        vals, wU = np.empty((3, n)), np.empty(n)
        r = steps.values_risk(z, F, vals, wU)
        if r is None:
            r = steps.last_risk(z, F, vals, wU)
        got[logistic] = (steps.stats.copy(), r)
    np.testing.assert_array_equal(got[True][0], got[False][0])
    assert got[True][1] == got[False][1]
    assert (np.abs(z) > 745).any()                 # the fallback ran


@pytest.mark.slow
@pytest.mark.skipif(parallel.workers() < 2, reason="one core: no parallel twin is launched")
def test_the_fit_does_not_depend_on_the_number_of_parts(monkeypatch):
    # the work split three ways (on however many threads numba has) and one way
    frame = _uboost_frame(np.random.default_rng(12), n=30_000)
    kw = dict(method="uboost", learner="trees", depth=4, mstop=8, min_samples_leaf=10)
    fits = []
    for n in (1, 3):
        monkeypatch.setattr(parallel, "parts", lambda n=n: n)
        monkeypatch.setattr(lk, "parts", lambda n=n: n)
        _force(monkeypatch, True)
        m = ubreg.fit(FORMULA, frame, **kw)
        fits.append(m.predict(frame.iloc[:400], type="link").to_numpy())
    np.testing.assert_array_equal(fits[0], fits[1])


@pytest.mark.slow
@pytest.mark.skipif(parallel.workers() < 2, reason="one core: no parallel twin is launched")
def test_a_users_openmp_wait_policy_is_kept():
    """On busy cores the first launch sets OMP_WAIT_POLICY=PASSIVE (numerics/parallel.py);
    a value the user set is never replaced."""
    import subprocess
    env = dict(os.environ, OMP_WAIT_POLICY="ACTIVE")
    code = ("import os, numpy as np, pandas as pd, ubreg\n"
            "rng = np.random.default_rng(0)\n"
            "d = pd.DataFrame(rng.normal(size=(30000, 3)), columns=['a', 'b', 'c'])\n"
            "d['y'] = (d.a + rng.logistic(size=30000) > 0).astype(int)\n"
            "ubreg.fit('y ~ a + b + c', d, method='uboost', mstop=2)\n"
            "print(os.environ.get('OMP_WAIT_POLICY'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "ACTIVE"


@pytest.mark.parametrize("text, busy", [("0.50 0.4 0.3 1/200 99", False),
                                         ("1.99 0.4 0.3 2/200 99", False),
                                         ("2.00 0.4 0.3 1/200 99", True),
                                         ("0.10 0.4 0.3 3/200 99", True)])
def test_cores_are_busy_when_other_tasks_fill_them(monkeypatch, tmp_path, text, busy):
    """Two cores: busy when two other tasks run now, or the load average reaches 2."""
    import builtins
    real_open = builtins.open
    fake = tmp_path / "loadavg"
    fake.write_text(text)
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: real_open(
        fake if path == "/proc/loadavg" else path, *a, **k))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert parallel.busy_cores() is busy
