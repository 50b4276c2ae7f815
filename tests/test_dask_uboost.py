"""method="uboost" on Dask frames: the in-memory fit's trees, one pass per tree level.

Cluster tests (one LocalCluster of 2 worker processes, as tests/test_dask.py) are
slow; the local threaded scheduler tests are not.
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
from ubreg.dask.boost_result import DaskUBoostResult  # noqa: E402
from ubreg.results.boost import UBoostResult  # noqa: E402

FORMULA = "y ~ a + b + g + c + x"
#: predictions agree to rounding (partition sums are added in another order)
TOL = 1e-10


def _data(n=6000, seed=11):
    """Continuous predictors with more distinct values than 255 (quantile bins), an
    integer and a rounded one, a factor missing from some partitions, NA rows."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 30, n).astype(float), "b": rng.normal(size=n),
                       "c": rng.integers(0, 5, n), "x": rng.exponential(size=n)})
    q = n // 4
    df["g"] = np.concatenate([rng.choice(["p", "q"], q), rng.choice(["p", "q", "r"], 2 * q),
                              rng.choice(["q", "r", "s"], n - 3 * q)])
    eta = 0.1 * df.a - df.b + 0.6 * (df.g == "r") + 0.2 * df.c - 0.4 * df.x
    df["y"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "yes", "no")
    df["w"] = rng.integers(0, 4, n).astype(float)
    df.loc[[5, 4000], "y"] = None
    return df


def _assert_same_fit(mem, out, frame):
    assert isinstance(out, UBoostResult)
    rows = frame.dropna(subset=["y"])            # NA predictors are predicted too
    for type in ("link", "response"):
        np.testing.assert_allclose(out.predict(rows, type=type), mem.predict(rows, type=type),
                                   rtol=0, atol=TOL)
    np.testing.assert_allclose(out.risk_path, mem.risk_path, rtol=0, atol=TOL)
    assert [t.feature.tolist() for t in out.fit_info.learners] == \
        [t.feature.tolist() for t in mem.fit_info.learners]
    assert [t.nan_left.tolist() for t in out.fit_info.learners] == \
        [t.nan_left.tolist() for t in mem.fit_info.learners]
    assert (out.nobs, out.n_dropped, out.mstop) == (mem.nobs, mem.n_dropped, mem.mstop)
    for name in ("deviance", "null_deviance", "loglik", "training_error"):
        assert getattr(out, name) == pytest.approx(getattr(mem, name), rel=1e-10, abs=1e-12)


CASES = [dict(mstop=20), dict(mstop=12, family=ubreg.U("exponential"), depth=2, max_bins=16),
         dict(mstop=10, learner="stumps", weights="w", min_samples_leaf=5),
         dict(mstop=8, freq_weights="w", depth=4, init="zero", max_bins=1000),
         dict(mstop=10, family=ubreg.Permissible("matsushita"), max_bins=32),
         dict(mstop=10, family=ubreg.Permissible("tempered", t=0.0), depth=2)]


@pytest.mark.slow
@pytest.mark.parametrize("kw", CASES)
def test_threaded_scheduler_gives_the_in_memory_fit(frame, ddf, kw):
    mem = ubreg.fit(FORMULA, frame, method="uboost", **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, ddf, method="uboost", **kw)
    assert type(out) is DaskUBoostResult
    _assert_same_fit(mem, out, frame)
    with dask.config.set(scheduler="threads"):
        np.testing.assert_allclose(out.predict(type="link").compute(), mem.eta, rtol=0, atol=TOL)
        for kind in ("deviance", "pearson", "response"):       # what has_residuals promises
            got = out.residuals(kind).compute()
            assert got.name == mem.residuals(kind).name
            np.testing.assert_allclose(got, mem.residuals(kind), rtol=1e-9, atol=1e-12)


def test_saturated_rows_are_warned_as_in_memory(frame, ddf):
    """A bounded link's rows at p = 0 or 1 (tempered t = −1): the same warning and counts
    as the in-memory fit (glm's 0-or-1 warning), counted in the final pass."""
    from ubreg.errors import SeparationWarning
    kw = dict(mstop=60, family=ubreg.Permissible("tempered", t=-1.0))
    with pytest.warns(SeparationWarning, match="numerically 0 or 1") as mem_caught:
        mem = ubreg.fit(FORMULA, frame, method="uboost", **kw)
    with dask.config.set(scheduler="threads"), \
            pytest.warns(SeparationWarning, match="numerically 0 or 1") as out_caught:
        out = ubreg.fit(FORMULA, ddf, method="uboost", **kw)
    assert mem.extreme_rows() == out.extreme_rows() and mem.extreme_rows()[0] > 0
    assert [str(w.message) for w in mem_caught] == [str(w.message) for w in out_caught]
    assert "numerically 0 or 1" in str(out.summary())


@pytest.mark.slow
@pytest.mark.parametrize("kw", CASES)
def test_threaded_scheduler_keeps_rows_with_missing_predictors_as_in_memory(frame_na, ddf_na,
                                                                             kw):
    """The in-memory fit of data with NA predictors: the same bins (the NaN bin and the
    copies of the columns with NaN), trees, missing-value directions and predictions."""
    mem = ubreg.fit(FORMULA, frame_na, method="uboost", **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, ddf_na, method="uboost", **kw)
    assert mem.n_dropped == 2                    # the rows missing the response only
    _assert_same_fit(mem, out, frame_na)
    with dask.config.set(scheduler="threads"):
        np.testing.assert_allclose(out.predict(type="link").compute(), mem.eta, rtol=0, atol=TOL)
        lazy = out.predict(ddf_na, type="response").compute()
    np.testing.assert_allclose(lazy, mem.predict(frame_na, type="response"), rtol=0, atol=TOL)


def test_rows_with_a_missing_predictor_are_kept_and_na_action_fail_refuses_them(frame):
    d = frame.copy()
    d.loc[[17, 18], "b"] = np.nan
    d.loc[[19], "g"] = None
    ddf = dd.from_pandas(d, npartitions=2)
    mem = ubreg.fit(FORMULA, d, method="uboost", mstop=2)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, ddf, method="uboost", mstop=2)
        assert (out.nobs, out.n_dropped) == (mem.nobs, mem.n_dropped) == (len(d) - 2, 2)
        np.testing.assert_allclose(out.predict(d.loc[[17, 18, 19]]),
                                   mem.predict(d.loc[[17, 18, 19]]), rtol=0, atol=TOL)
    # the response is complete: na_action="fail" refuses the NA predictors, by name
    d = d.dropna(subset=["y"])
    with pytest.raises(ubreg.errors.DataError, match=r"'b' \(2 rows\).*na_action='fail'"):
        ubreg.fit(FORMULA, d, method="uboost", mstop=2, na_action="fail")
    with dask.config.set(scheduler="threads"), \
            pytest.raises(ubreg.errors.DataError, match=r"'b' \(2 rows\).*na_action='fail'"):
        ubreg.fit(FORMULA, dd.from_pandas(d, npartitions=2), method="uboost", mstop=2,
                  na_action="fail")


def test_refusals_name_the_option(ddf):
    with pytest.raises(ValueError, match="learner='linear' on a Dask frame"):
        ubreg.fit(FORMULA, ddf, method="uboost", learner="linear")
    with pytest.raises(ValueError, match="offset"):
        ubreg.fit(FORMULA, ddf, method="uboost", offset="a")
    with pytest.raises(ubreg.errors.OptionError, match="no option 'persist'"):
        ubreg.fit(FORMULA, ddf, method="uboost", persist=True)


# ---------------------------------------------------------------------------
# a cluster of two worker processes (the `client` fixture of conftest.py)
# ---------------------------------------------------------------------------
@pytest.mark.slow
def test_cluster_gives_the_in_memory_fit(client, frame, ddf):
    kw = dict(mstop=15, weights="w", max_bins=64)
    mem = ubreg.fit(FORMULA, frame, method="uboost", **kw)
    out = ubreg.fit(FORMULA, ddf, method="uboost", **kw)
    _assert_same_fit(mem, out, frame)
    lazy = out.predict(ddf, type="response").compute()
    np.testing.assert_allclose(lazy, mem.predict(frame, type="response"), rtol=0, atol=TOL)
    pd.testing.assert_series_equal(out.predict(ddf, type="class").compute(),
                                   mem.predict(frame, type="class"))
    np.testing.assert_allclose(out.fitted_values.compute(), mem.fitted_values, atol=TOL)
    np.testing.assert_array_equal(out.y.compute(), mem.y)
    assert str(out.summary()) == str(mem.summary())
    again = pickle.loads(pickle.dumps(out))
    np.testing.assert_allclose(again.predict(frame.dropna()), mem.predict(frame.dropna()),
                               atol=TOL)


@pytest.mark.slow
def test_cluster_keeps_rows_with_missing_predictors_as_in_memory(client, frame_na, ddf_na):
    kw = dict(mstop=12, depth=2, weights="w", max_bins=64)
    mem = ubreg.fit(FORMULA, frame_na, method="uboost", **kw)
    out = ubreg.fit(FORMULA, ddf_na, method="uboost", **kw)
    _assert_same_fit(mem, out, frame_na)
    lazy = out.predict(ddf_na, type="response").compute()
    np.testing.assert_allclose(lazy, mem.predict(frame_na, type="response"), rtol=0, atol=TOL)
    np.testing.assert_allclose(out.fitted_values.compute(), mem.fitted_values, atol=TOL)
    assert str(out.summary()) == str(mem.summary())


@pytest.mark.slow
def test_a_worker_killed_mid_fit_leaves_the_fit_unchanged(client, frame, ddf, monkeypatch):
    """The worker holding most boosting states dies in the third iteration; Dask
    recomputes its states from their lineage (codes, then each iteration's tree)
    and the fit ends as an undisturbed one."""
    import ubreg.dask.boost_passes as passes
    import ubreg.dask.uboost as backend

    kw = dict(mstop=6, depth=2)
    mem = ubreg.fit(FORMULA, frame, method="uboost", **kw)
    real = passes.reduce_sums
    calls, killed = [], []

    def reduce_and_kill(frames, func, *args):
        out = real(frames, func, *args)
        if func is backend._histograms:
            calls.append(1)
            if len(calls) == 5 and not killed:
                held = {}
                for workers in client.who_has(distributed.futures_of(frames)).values():
                    for w in workers:
                        held[w] = held.get(w, 0) + 1
                victim = max(held, key=held.get)
                killed.append(victim)
                pid = client.run(os.getpid, workers=[victim])[victim]
                os.kill(pid, signal.SIGKILL)    # the worker process of the test's own cluster
                for _ in range(200):
                    if victim not in client.scheduler_info()["workers"]:
                        break
                    threading.Event().wait(0.05)
        return out

    monkeypatch.setattr(passes, "reduce_sums", reduce_and_kill)   # the level passes
    out = ubreg.fit(FORMULA, ddf, method="uboost", **kw)
    assert killed and killed[0] not in client.scheduler_info()["workers"]
    _assert_same_fit(mem, out, frame)
