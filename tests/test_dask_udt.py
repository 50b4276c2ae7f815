"""method="udt" on Dask frames: the tree of the in-memory fit, grown from histograms.

The cluster tests run on one LocalCluster of 2 worker processes (module
fixture, as tests/test_dask.py) and are slow; the local threaded scheduler and
the in-memory ``bins=`` tests are not.
"""
import os
import pickle
import signal
import threading

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional extra")
import dask  # noqa: E402

import ubreg  # noqa: E402
from ubreg.dask.tree_result import DaskTreeResult  # noqa: E402
from ubreg.results.tree import TreeResult  # noqa: E402

FORMULA = "y ~ a + b + g + c + x"


def _data(n=1600, seed=5):
    """Small-integer and rounded predictors (few distinct values: exact codes), a
    continuous one, a factor whose levels are missing from some partitions, a
    string response with NA rows and integer weights."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 30, n).astype(float),
                       "b": np.round(rng.normal(size=n), 1),
                       "c": rng.integers(0, 5, n),
                       "x": np.round(rng.uniform(0, 10, n), 2)})
    q = n // 4
    df["g"] = np.concatenate([rng.choice(["p", "q"], q), rng.choice(["p", "q", "r"], 2 * q),
                              rng.choice(["q", "r", "s"], n - 3 * q)])
    eta = 0.1 * df.a - df.b + 0.6 * (df.g == "r") + 0.2 * df.c - 0.1 * df.x
    df["y"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "yes", "no")
    df["w"] = rng.integers(0, 4, n).astype(float)
    df.loc[[7, 900], "y"] = None
    return df


def _assert_same_tree(mem, out):
    """The same splits, node statistics and leaf values; the same cp table."""
    assert isinstance(out, TreeResult)
    f0, f1 = mem.frame, out.frame
    assert f0.drop(columns=["improve"]).equals(f1.drop(columns=["improve"]))
    np.testing.assert_allclose(f1["improve"], f0["improve"], rtol=1e-12, atol=0)
    pd.testing.assert_frame_equal(out.cptable, mem.cptable, rtol=1e-12)
    assert (out.nobs, out.n_dropped) == (mem.nobs, mem.n_dropped)
    assert out.deviance == pytest.approx(mem.deviance, rel=1e-12)


# ---------------------------------------------------------------------------
# in memory: bins=
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("family", ["gini", "entropy", "matsushita"])
def test_bins_above_the_distinct_values_give_the_exact_tree(frame, family):
    """With at least as many bins as distinct values, bins=k is rpart's tree bit for bit."""
    kw = dict(family=family, method="udt", xval=0, cp=0.0, min_leaf=3, min_split=6)
    exact = ubreg.fit(FORMULA, frame, **kw)
    binned = ubreg.fit(FORMULA, frame, bins=1100, **kw)
    assert exact.frame.equals(binned.frame)


@pytest.mark.slow
def test_bins_cut_numeric_predictors_and_cross_validate(frame):
    m = ubreg.fit(FORMULA, frame, method="udt", bins=4, xval=5, seed=2)
    thresholds = m.frame.loc[m.frame["var"] == "x", "threshold"].dropna().unique()
    assert len(thresholds) <= 3                       # at most 3 cuts between 4 bins
    assert {"xerror", "xstd"} <= set(m.cptable.columns)
    assert m.predict(frame.dropna(subset=["y"])).notna().all()


def test_bins_checks_its_value_and_refuses_missing_predictors(frame):
    with pytest.raises(ValueError, match="bins must be None"):
        ubreg.fit(FORMULA, frame, method="udt", bins=1)
    holed = frame.copy()
    holed.loc[3, "x"] = np.nan
    with pytest.raises(ValueError, match="'x' have missing values; rpart's surrogate"):
        ubreg.fit(FORMULA, holed, method="udt", bins=16)


# ---------------------------------------------------------------------------
# the local threaded scheduler
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(cp=0.001), dict(cp=0.0, min_leaf=3, family="matsushita"),
                                dict(weights="w", cp=0.002, family="gini"),
                                dict(freq_weights="w", cp=0.002, risk="surrogate")])
def test_threaded_scheduler_grows_the_exact_in_memory_tree(frame, ddf, kw):
    mem = ubreg.fit(FORMULA, frame, method="udt", xval=0, **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, ddf, method="udt", **kw)
    assert type(out) is DaskTreeResult
    _assert_same_tree(mem, out)


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(cp=0.001), dict(weights="w", cp=0.002, family="gini"),
                                dict(freq_weights="w", cp=0.002)])
def test_loglik_and_residuals_are_the_in_memory_ones(frame, ddf, kw):
    # what the capabilities promise (has_deviance: loglik; has_residuals: residuals),
    # over the partitions; a pruned tree has its own log-likelihood
    mem = ubreg.fit(FORMULA, frame, method="udt", xval=0, **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, ddf, method="udt", **kw)
        assert out.loglik == pytest.approx(mem.loglik, rel=1e-12)
        for type in ("deviance", "pearson", "response"):
            got = out.residuals(type).compute()
            want = mem.residuals(type)
            assert got.name == want.name
            np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12, atol=1e-15)
        with pytest.raises(ValueError, match="type must be"):
            out.residuals("working")
        cp = float(mem.cptable["CP"].iloc[1])
        assert out.prune(cp).loglik == pytest.approx(mem.prune(cp).loglik, rel=1e-12)
        assert out.loglik == pytest.approx(mem.loglik, rel=1e-12)     # not the pruned one's


@pytest.mark.slow
@pytest.mark.parametrize("bins", [3, 16, 255])
def test_threaded_scheduler_grows_the_binned_in_memory_tree(bins):
    """Continuous predictors (more distinct values than bins): the quantile cuts
    computed over partitions are bin_design's, so the trees are the same."""
    rng = np.random.default_rng(bins)
    n = 6000
    df = pd.DataFrame({"u": rng.normal(size=n), "v": rng.exponential(size=n),
                       "k": rng.integers(0, 3, n)})
    df["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-(df.u - df.v + 0.3 * df.k)))).astype(int)
    mem = ubreg.fit("y ~ u + v + k", df, method="udt", xval=0, bins=bins, cp=0.002)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit("y ~ u + v + k", dd.from_pandas(df, npartitions=5), method="udt",
                        bins=bins, cp=0.002)
    _assert_same_tree(mem, out)
    np.testing.assert_array_equal(out.predict().compute().to_numpy(), mem.predict().to_numpy())


@pytest.mark.slow
def test_dask_refusals_name_the_option_and_the_reason(frame, ddf):
    with pytest.raises(ValueError, match=r"xval=10 on a Dask frame: the cross-validated cp"):
        ubreg.fit(FORMULA, ddf, method="udt", xval=10)
    with pytest.raises(ValueError, match="prune='1se' on a Dask frame"):
        ubreg.fit(FORMULA, ddf, method="udt", prune="1se")
    holed = frame.copy()
    holed.loc[3, "b"] = np.nan
    with pytest.raises(ValueError, match="a Dask frame: predictor.*'b' have missing values"):
        ubreg.fit(FORMULA, dd.from_pandas(holed, npartitions=2), method="udt")
    dense = pd.DataFrame({"z": np.linspace(0, 1, 3000), "y": np.arange(3000) % 2})
    with pytest.raises(ValueError, match=r"bins=None \(exact splits\) on a Dask frame: "
                                         r"predictor\(s\) 'z' have more than 1024"):
        ubreg.fit("y ~ z", dd.from_pandas(dense, npartitions=2), method="udt")
    with pytest.raises(ValueError, match="offset"):
        ubreg.fit(FORMULA, ddf, method="udt", offset="a")


# ---------------------------------------------------------------------------
# a cluster of two worker processes (the `client` fixture of conftest.py)
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("family", ["gini", "entropy", "matsushita"])
def test_cluster_grows_the_exact_in_memory_tree(client, frame, ddf, family):
    mem = ubreg.fit(FORMULA, frame, method="udt", xval=0, family=family, weights="w", cp=0.001)
    out = ubreg.fit(FORMULA, ddf, method="udt", family=family, weights="w", cp=0.001)
    _assert_same_tree(mem, out)
    assert out.passes >= 1


@pytest.mark.slow
def test_cluster_binned_tree_predictions_and_summary(client, frame, ddf):
    mem = ubreg.fit(FORMULA, frame, method="udt", xval=0, bins=8, cp=0.003)
    out = ubreg.fit(FORMULA, ddf, method="udt", bins=8, cp=0.003)
    _assert_same_tree(mem, out)
    assert str(out.summary()) == str(mem.summary()).replace(", xval=0", "")
    for type in ("response", "link", "class", "leaf"):
        lazy = out.predict(ddf, type=type)
        pd.testing.assert_series_equal(lazy.compute(), mem.predict(frame, type=type))
        pd.testing.assert_series_equal(out.predict(type=type).compute(), mem.predict(type=type),
                                       check_dtype=type != "class")
    pd.testing.assert_series_equal(out.predict(frame), mem.predict(frame))
    np.testing.assert_array_equal(out.y.compute(), mem.y)
    pruned, mem_pruned = out.prune(0.01), mem.prune(0.01)
    assert pruned.frame.equals(mem_pruned.frame)
    np.testing.assert_array_equal(pruned.fitted_values.compute(), mem_pruned.fitted_values)
    again = pickle.loads(pickle.dumps(out))
    pd.testing.assert_series_equal(again.predict(frame), mem.predict(frame))


def _holder(client, futures):
    """The worker holding most of the persisted partitions."""
    held = {}
    for workers in client.who_has(futures).values():
        for w in workers:
            held[w] = held.get(w, 0) + 1
    return max(held, key=held.get)


@pytest.mark.slow
def test_a_worker_killed_mid_fit_leaves_the_tree_unchanged(client, frame, ddf, monkeypatch):
    """The worker holding the persisted codes dies after the first level's pass;
    Dask recomputes its partitions from their lineage and the fit ends with the
    tree of an undisturbed fit."""
    import ubreg.dask.udt as backend

    mem = ubreg.fit(FORMULA, frame, method="udt", xval=0, weights="w", cp=0.001)
    real = backend.reduce_sums
    killed = []

    def reduce_and_kill(frames, func, *args):
        out = real(frames, func, *args)
        if func is backend._level and not killed:
            victim = _holder(client, distributed.futures_of(frames))
            killed.append(victim)
            pid = client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)        # the worker process of the test's own cluster
            for _ in range(200):                # until the scheduler has noticed
                if victim not in client.scheduler_info()["workers"]:
                    break
                threading.Event().wait(0.05)
        return out

    monkeypatch.setattr(backend, "reduce_sums", reduce_and_kill)
    out = ubreg.fit(FORMULA, ddf, method="udt", weights="w", cp=0.001)
    assert killed and killed[0] not in client.scheduler_info()["workers"]
    _assert_same_tree(mem, out)
