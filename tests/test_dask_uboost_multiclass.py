"""method="uboost" on a Dask frame of K > 2 classes: the in-memory fit's K trees a round,
one pass per level of each class's tree (local threaded scheduler)."""
import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
import dask  # noqa: E402

import ubreg  # noqa: E402
from ubreg.dask.boost_multiclass_result import DaskMulticlassBoostResult  # noqa: E402
from ubreg.errors import OptionError  # noqa: E402

FORMULA = "y ~ a + b + g + x"
#: probabilities agree to rounding (partition sums are added in another order)
TOL = 1e-10


def _data(n=3000, seed=5):
    """Three classes; a continuous predictor beyond 255 distinct values, an integer, a
    factor missing from some partitions, NA rows in the response."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 30, n).astype(float), "b": rng.normal(size=n),
                       "x": rng.exponential(size=n)})
    q = n // 4
    df["g"] = np.concatenate([rng.choice(["p", "q"], q), rng.choice(["p", "q", "r"], 2 * q),
                              rng.choice(["q", "r", "s"], n - 3 * q)])
    s1 = 0.1 * df.a - df.b + 0.6 * (df.g == "r")
    s2 = df.b - 0.5 * df.x
    p = np.exp(np.column_stack([np.zeros(n), s1, s2]))
    p /= p.sum(axis=1, keepdims=True)
    cls = (rng.uniform(size=n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    df["y"] = np.array(["hi", "lo", "mid"])[cls]
    df["w"] = rng.integers(0, 4, n).astype(float)
    df.loc[[5, 2000], "y"] = None
    return df


@pytest.mark.slow
@pytest.mark.parametrize("data", ["frame", "frame_na"])
@pytest.mark.parametrize("kw", [dict(mstop=8), dict(mstop=5, depth=2, weights="w",
                                                    min_samples_leaf=5, max_bins=16),
                                dict(mstop=5, learner="stumps", freq_weights="w")])
def test_a_dask_frame_of_three_classes_gives_the_in_memory_fit(request, data, kw):
    """Also with NA predictors (``frame_na``): their rows are kept, binned and routed
    as in memory."""
    frame = request.getfixturevalue(data)
    mem = ubreg.fit(FORMULA, frame, method="uboost", **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit(FORMULA, dd.from_pandas(frame, npartitions=4, sort=True),
                        method="uboost", **kw)
        assert isinstance(out, DaskMulticlassBoostResult) and out.classes == mem.classes
        clean = frame.dropna(subset=["y"])       # NA predictors are predicted too
        for type in ("link", "response"):
            np.testing.assert_allclose(out.predict(clean, type=type),
                                       mem.predict(clean, type=type), rtol=0, atol=TOL)
        assert out.predict(clean, type="class").equals(mem.predict(clean, type="class"))
        np.testing.assert_allclose(out.risk_path, mem.risk_path, rtol=0, atol=TOL)
        assert [[t.feature.tolist() for t in trees] for trees in out.fit_info.learners] == \
            [[t.feature.tolist() for t in trees] for trees in mem.fit_info.learners]
        assert [[t.nan_left.tolist() for t in trees] for trees in out.fit_info.learners] == \
            [[t.nan_left.tolist() for t in trees] for trees in mem.fit_info.learners]
        assert (out.nobs, out.n_dropped, out.mstop) == (mem.nobs, mem.n_dropped, mem.mstop)
        for name in ("deviance", "null_deviance", "loglik", "training_error"):
            assert getattr(out, name) == pytest.approx(getattr(mem, name), rel=1e-10)
        # the training rows, lazily: the in-memory fit's probabilities and classes
        np.testing.assert_allclose(out.predict().compute().to_numpy(),
                                   mem.predict().to_numpy(), rtol=0, atol=TOL)
        ddf_new = dd.from_pandas(clean, npartitions=3)
        np.testing.assert_allclose(out.predict(ddf_new).compute().to_numpy(),
                                   mem.predict(clean).to_numpy(), rtol=0, atol=TOL)
    assert "3 classes" in str(out.summary()) and "Dask partitions" in repr(out)


@pytest.mark.slow
def test_other_families_and_k_class_refits_are_refused_by_name(frame):
    ddf = dd.from_pandas(frame, npartitions=2, sort=True)
    with dask.config.set(scheduler="threads"):
        with pytest.raises(OptionError, match="multinomial log-loss"):
            ubreg.fit(FORMULA, ddf, method="uboost", mstop=2,
                      family=ubreg.Permissible("gini"))
        out = ubreg.fit(FORMULA, ddf, method="uboost", mstop=2)
    with pytest.raises(NotImplementedError, match="with_mstop on a fit of a Dask frame"):
        out.with_mstop(1)
    with pytest.raises(TypeError, match="cannot be refitted on folds"):
        ubreg.cv_risk(out, folds=2)


@pytest.mark.slow
def test_cv_of_a_dask_frame_of_three_classes_is_the_in_memory_cv_on_the_same_folds(frame):
    """ubreg.cv of a Dask frame scores K-class models too: each fold's K probabilities,
    the multiclass metrics, the same as the in-memory cv given the Dask run's folds."""
    data = frame.drop(columns="w")
    with dask.config.set(scheduler="threads"):
        out = ubreg.cv(FORMULA, dd.from_pandas(data, npartitions=3), method="uboost",
                       mstop=4, depth=2, folds=3, seed=2, refit=False)
    fold = pd.Series(1, index=data.index)
    fold.loc[out.fold.index] = out.fold
    mem = ubreg.cv(FORMULA, data, method="uboost", mstop=4, depth=2, fold=fold.to_numpy(),
                   refit=False)
    assert list(out.predictions.columns) == ["hi", "lo", "mid"]
    pd.testing.assert_frame_equal(out.folds, mem.folds, rtol=0, atol=1e-10)
    pd.testing.assert_frame_equal(out.predictions, mem.predictions, rtol=0, atol=1e-10)
    pd.testing.assert_series_equal(out.observed, mem.observed)
    for k, v in mem.pooled.items():
        assert out.pooled[k] == pytest.approx(v, abs=1e-10)
