"""``ubreg.cv`` of a Dask frame: every fold fitted on the Dask frame, scored in one pass.

The folds are drawn from each row's hash (index and values) and the seed, so they do
not depend on the partitioning; given the same folds, the in-memory cross-validation
gives the same metrics (to the rounding of the fits).  On dask's local threaded
scheduler.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
import dask  # noqa: E402

import ubreg  # noqa: E402
from ubreg.errors import DataError  # noqa: E402
from ubreg.evaluate.cv_dask import fold_key, fold_of_rows  # noqa: E402

FORMULA = "y ~ x1 + x2 + g"


def _data(n=400, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                       "g": rng.choice(["a", "b", "c"], n)})
    df["w"] = rng.integers(1, 4, size=n).astype(float)
    eta = 0.8 * df.x1 - 0.5 * df.x2 + 0.6 * (df.g == "c")
    df["y"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "yes", "no")
    df.loc[[3, 250], "x1"] = np.nan
    df.loc[[20], "y"] = None
    df.loc[[31], "g"] = None
    return df


FRAME = _data()


@pytest.fixture(autouse=True)
def threads():
    with dask.config.set(scheduler="threads"):
        yield


def _in_memory_with_the_same_folds(out, frame=FRAME, **kwargs):
    """The in-memory cv of ``frame`` on the folds ``out`` (a Dask frame's CVResult) drew."""
    fold = pd.Series(1, index=frame.index)
    fold.loc[out.fold.index] = out.fold
    return ubreg.cv(FORMULA, frame, fold=fold.to_numpy(), **kwargs)


def _assert_same_cv(out, mem, tol=1e-10, auc=True):
    """Equal CVs; ``auc=False`` leaves out the AUC, which tied predictions that differ
    by rounding (a boosted tree's) can move."""
    if not auc:
        out.folds, mem.folds = out.folds.drop(columns="auc"), mem.folds.drop(columns="auc")
        del out.pooled["auc"], mem.pooled["auc"]
    pd.testing.assert_frame_equal(out.folds, mem.folds, rtol=0, atol=tol)
    pd.testing.assert_series_equal(out.fold, mem.fold)
    pd.testing.assert_series_equal(out.predictions, mem.predictions, rtol=0, atol=tol)
    pd.testing.assert_series_equal(out.observed, mem.observed)
    pd.testing.assert_series_equal(out.row_weights, mem.row_weights)
    for k, v in mem.pooled.items():
        assert out.pooled[k] == pytest.approx(v, abs=tol)


@pytest.mark.slow
def test_uls_cv_of_a_dask_frame_equals_the_in_memory_cv_on_the_same_folds():
    ddf = dd.from_pandas(FRAME, npartitions=3)
    out = ubreg.cv(FORMULA, ddf, folds=4, seed=11, weights="w")
    mem = _in_memory_with_the_same_folds(out, weights="w")
    _assert_same_cv(out, mem)
    # the complete rows only, every one in a fold
    assert out.fold.index.equals(FRAME.dropna().index)
    assert sorted(out.fold.unique()) == [1, 2, 3, 4]
    np.testing.assert_allclose(out.model.coef, mem.model.coef, rtol=0, atol=1e-10)
    assert "hash" in out.rows_note and not out.stratified


@pytest.mark.slow
def test_the_folds_do_not_depend_on_the_partitioning_and_follow_the_seed():
    a = ubreg.cv(FORMULA, dd.from_pandas(FRAME, npartitions=2), folds=3, seed=5, refit=False)
    b = ubreg.cv(FORMULA, dd.from_pandas(FRAME, npartitions=5), folds=3, seed=5, refit=False)
    pd.testing.assert_series_equal(a.fold, b.fold)
    pd.testing.assert_frame_equal(a.folds, b.folds, rtol=0, atol=1e-10)
    c = ubreg.cv(FORMULA, dd.from_pandas(FRAME, npartitions=2), folds=3, seed=6, refit=False)
    assert (c.fold != a.fold).mean() > 0.5


def test_fold_of_rows_is_a_function_of_the_row_and_the_seed():
    names = ["y", "x1", "x2", "g"]
    whole = fold_of_rows(FRAME, names, fold_key(1), 10)
    parts = np.concatenate([fold_of_rows(FRAME.iloc[i:i + 37], names, fold_key(1), 10)
                            for i in range(0, len(FRAME), 37)])
    np.testing.assert_array_equal(whole, parts)
    assert (whole[[3, 20, 31, 250]] == -1).all()              # incomplete rows take no part
    sizes = np.bincount(whole[whole >= 0], minlength=10)
    assert sizes.sum() == 396 and sizes.min() >= 20           # 39.6 a fold in expectation
    assert not np.array_equal(whole, fold_of_rows(FRAME, names, fold_key(2), 10))
    # a seed that is a Generator or None draws a key once
    assert isinstance(fold_key(np.random.default_rng(0)), int)


@pytest.mark.slow
def test_folds_from_a_column():
    frame = FRAME.assign(f=np.arange(len(FRAME)) % 3 + 1)
    out = ubreg.cv(FORMULA, dd.from_pandas(frame, npartitions=3), folds=3, fold="f",
                   refit=False)
    complete = frame.dropna(subset=["y", "x1", "x2", "g"])
    pd.testing.assert_series_equal(out.fold, complete["f"].rename("fold"),
                                   check_dtype=False)
    mem = ubreg.cv(FORMULA, frame, fold=frame["f"].to_numpy(), refit=False)
    _assert_same_cv(out, mem)
    bad = frame.assign(f=frame["f"].where(frame.index != 100, 7))
    with pytest.raises(ValueError, match=r"fold column 'f' must hold a fold number 1\.\.3"):
        ubreg.cv(FORMULA, dd.from_pandas(bad, npartitions=2), folds=3, fold="f")


@pytest.mark.slow
@pytest.mark.parametrize("method, options", [("udt", {"xval": 0, "max_depth": 3}),
                                             ("uboost", {"mstop": 5})])
def test_tree_methods_with_a_dask_backend(method, options):
    ddf = dd.from_pandas(FRAME, npartitions=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ubreg.cv(FORMULA, ddf, folds=3, seed=2, method=method, refit=False, **options)
        mem = _in_memory_with_the_same_folds(out, method=method, refit=False, **options)
    _assert_same_cv(out, mem, tol=1e-9, auc=method != "uboost")


def test_what_a_dask_frame_cannot_do_is_refused_before_anything_runs():
    ddf = dd.from_pandas(FRAME, npartitions=2)

    def boom(dsk, keys, **kwargs):
        raise AssertionError("something was computed")

    with dask.config.set(scheduler=boom):
        for name in ("gnnb", "unn", "tboost"):
            with pytest.raises(DataError, match=f"method '{name}' does not run on Dask frames"
                                                r".*call \.compute\(\) first.*scheduler="):
                ubreg.cv(FORMULA, ddf, method=name)
        with pytest.raises(DataError, match="weights of a Dask frame must name one of its "
                                            "columns"):
            ubreg.cv(FORMULA, ddf, weights=np.ones(len(FRAME)))
        with pytest.raises(ValueError, match="leave scheduler unset"):
            ubreg.cv(FORMULA, ddf, scheduler="threads")
        with pytest.raises(ValueError, match="fold= of a Dask frame must name one of its "
                                             "columns"):
            ubreg.cv(FORMULA, ddf, fold=np.ones(len(FRAME), dtype=int))
        with pytest.raises(DataError, match="fold column 'nope' is not in the data"):
            ubreg.cv(FORMULA, ddf, fold="nope")
        with pytest.raises(ValueError, match="folds must be an integer"):
            ubreg.cv(FORMULA, ddf, folds=1)


def test_what_the_in_memory_model_frame_refuses_is_refused_before_fitting():
    """NA weights of a complete row, and NA rows with na_action='fail', as in memory."""
    ddf = dd.from_pandas(FRAME.assign(w=FRAME.w.where(FRAME.index != 5)), npartitions=2)
    with pytest.raises(DataError, match=r"weights contain 1 NaN value\(s\)"):
        ubreg.cv(FORMULA, ddf, weights="w")
    with pytest.raises(DataError, match=r"weights contain 1 NaN value\(s\)"):
        ubreg.cv(FORMULA, FRAME.assign(w=FRAME.w.where(FRAME.index != 5)), weights="w")
    with pytest.raises(DataError, match=r"missing values \(NA\) in the model's variables "
                                        r"\(4 rows\) and na_action='fail'"):
        ubreg.cv(FORMULA, dd.from_pandas(FRAME, npartitions=2), na_action="fail")


def test_too_many_folds_for_the_rows_is_refused_before_fitting():
    tiny = dd.from_pandas(FRAME.head(12), npartitions=2)
    with pytest.raises(ValueError, match=r"fold\(s\) \[4, 6, 7\] of 10 hold no complete row "
                                         r"\(11 rows in all\)"):
        ubreg.cv(FORMULA, tiny, folds=10, seed=1)
    with pytest.raises(ValueError, match="exceeds the number of rows"):
        ubreg.cv(FORMULA, tiny, folds=12, seed=1)


@pytest.mark.slow
def test_on_a_cluster_of_two_worker_processes():
    """The fold function, the fold models and the scoring pass pickled to worker
    processes: the threaded scheduler's result."""
    distributed = pytest.importorskip("distributed")
    ddf = dd.from_pandas(FRAME, npartitions=3)
    here = ubreg.cv(FORMULA, ddf, folds=3, seed=4, weights="w", refit=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        there = ubreg.cv(FORMULA, ddf, folds=3, seed=4, weights="w", refit=False)
        model = ubreg.fit(FORMULA, FRAME, method="gnnb", k=3)
        lazy = model.predict(ddf, type="class")
        got = lazy.compute()
    pd.testing.assert_series_equal(there.fold, here.fold)
    pd.testing.assert_frame_equal(there.folds, here.folds, rtol=0, atol=1e-12)
    pd.testing.assert_series_equal(got, model.predict(FRAME, type="class"))
