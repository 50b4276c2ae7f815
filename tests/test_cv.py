"""ubreg.cv: reproducible, stratified, equal to fitting the folds by hand."""
import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.evaluate.metrics import classification_metrics
from ubreg.numerics.folds import fold_assignment

FORMULA = "diabetes ~ glucose + mass + age"


@pytest.mark.slow
def test_reproducible_with_a_seed_and_data_untouched(pima):
    before = pima.copy()
    a = ubreg.cv(FORMULA, pima, folds=5, seed=11, refit=False)
    b = ubreg.cv(FORMULA, pima, folds=5, seed=11, refit=False)
    c = ubreg.cv(FORMULA, pima, folds=5, seed=12, refit=False)
    pd.testing.assert_frame_equal(a.folds, b.folds)
    pd.testing.assert_series_equal(a.fold, b.fold)
    assert not a.fold.equals(c.fold)
    pd.testing.assert_frame_equal(pima, before)


@pytest.mark.parametrize("stratified", [True, False])
def test_folds_partition_the_rows_and_stratification_holds(stratified):
    rng = np.random.default_rng(0)
    y = (rng.uniform(size=503) < 0.3).astype(int)
    f = fold_assignment(y, 10, stratified=stratified, seed=4)
    sizes = np.bincount(f, minlength=10)
    assert sizes.sum() == len(y) and sizes.max() - sizes.min() <= 1
    if stratified:
        for c in (0, 1):
            counts = np.bincount(f[y == c], minlength=10)
            assert counts.max() - counts.min() <= 1


@pytest.mark.slow
def test_metrics_equal_fitting_each_fold_by_hand(pima):
    res = ubreg.cv(FORMULA, pima, family="matsushita", folds=4, seed=3)
    complete = pima.dropna(subset=["diabetes", "glucose", "mass", "age"])
    assert res.fold.index.equals(complete.index)
    for k in (1, 3):
        test = res.fold.index[res.fold == k]
        train = res.fold.index[res.fold != k]
        m = ubreg.fit(FORMULA, pima.loc[train], family="matsushita")
        p = m.predict(pima.loc[test], type="response").to_numpy()
        y = (pima.loc[test, "diabetes"] == "pos").to_numpy(float)
        expect = classification_metrics(y, p)
        row = res.folds.loc[res.folds["fold"] == k].iloc[0]
        for key, value in expect.items():
            assert row[key] == pytest.approx(value)
        np.testing.assert_allclose(res.predictions.loc[test], p)
    assert res.mean["auc"] == pytest.approx(res.folds["auc"].mean())
    assert res.se["auc"] == pytest.approx(res.folds["auc"].std(ddof=1) / 2)
    assert res.model is not None and res.model.nobs == len(complete)
    assert "Brier score" in str(res) and "<table" in res.html()


@pytest.mark.slow
@pytest.mark.parametrize("family", ["gini", "entropy", "matsushita", "entropy2", "power"])
def test_uls_every_family(pima, family):
    res = ubreg.cv(FORMULA, pima, family=family, folds=3, seed=0, refit=False)
    assert res.n_folds == 3
    assert 0.6 < res.mean["auc"] < 1.0


@pytest.mark.slow
def test_every_registered_method_runs():
    data = ubreg.datasets.load_pima().dropna().iloc[:150]
    for method in sorted(ubreg.METHODS):
        res = ubreg.cv("diabetes ~ glucose + mass", data, method=method, folds=3, seed=0,
                       refit=False)
        assert np.isfinite(res.mean["brier"]), method


@pytest.mark.slow
def test_weights_column_and_bad_folds(pima):
    data = pima.assign(w=np.where(pima["age"] > 40, 2.0, 1.0))
    res = ubreg.cv(FORMULA, data, freq_weights="w", folds=3, seed=0)
    assert res.model.nobs == pytest.approx(data.dropna(subset=["glucose", "mass"])["w"].sum())
    res = ubreg.cv(FORMULA, data, weights="w", folds=3, seed=0)     # prior weights: rows
    assert res.model.nobs == len(data.dropna(subset=["glucose", "mass"]))
    with pytest.raises(ValueError, match="folds"):
        ubreg.cv(FORMULA, pima, folds=1)


@pytest.mark.slow
def test_progress_bar_over_the_folds_only_on_a_terminal(pima, capsys, monkeypatch):
    import sys
    monkeypatch.delenv("UBREG_PROGRESS", raising=False)
    ubreg.cv(FORMULA, pima, folds=3, seed=0, refit=False)
    assert capsys.readouterr().err == ""                  # not a terminal: nothing
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr("ubreg.numerics.progress.DELAY", 0.0)     # draw at once
    ubreg.cv(FORMULA, pima, folds=3, seed=0, refit=False)
    assert "3-fold CV (uls)" in capsys.readouterr().err


# --------------------------------------------------------------------------- fold warnings
def _noisy_fit(monkeypatch):
    """ubreg.fit wrapped to warn inside every fold: twice the same warning (with a pause,
    so that the folds of a thread scheduler overlap) and another one."""
    import sys
    import time
    import warnings
    module = sys.modules["ubreg.methods.fit"]
    real = module.fit

    def noisy(formula, data, **kw):
        warnings.warn(f"first, {len(data)} rows", UserWarning)
        time.sleep(0.05)
        warnings.warn(f"first, {len(data)} rows", UserWarning)
        warnings.warn("second", RuntimeWarning)
        return real(formula, data, **kw)

    monkeypatch.setattr(module, "fit", noisy)


def _cv_warnings(pima, scheduler):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = ubreg.cv(FORMULA, pima, folds=4, seed=0, refit=False, scheduler=scheduler)
    assert all(w.filename == __file__ for w in caught)       # at the caller's line
    return res, [(w.category, str(w.message)) for w in caught]


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", [None, "threads", "sync"])
def test_fold_warnings_reach_the_caller_once_per_fold_naming_it(pima, monkeypatch, scheduler):
    if scheduler is not None:
        pytest.importorskip("dask")
    _noisy_fit(monkeypatch)
    res, got = _cv_warnings(pima, scheduler)
    want = []
    for k in range(4):
        n = int(res.folds["n_train"].iloc[k])
        want += [(UserWarning, f"fold {k + 1}: first, {n} rows"),
                 (RuntimeWarning, f"fold {k + 1}: second")]
    assert got == want


@pytest.mark.slow
def test_fold_warnings_of_a_method_same_for_threads_and_sequential(pima):
    """uboost warns in every fold that U= is deprecated: four warnings either way."""
    pytest.importorskip("dask")
    import warnings
    out = []
    for scheduler in (None, "threads"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ubreg.cv(FORMULA, pima, method="uboost", U="logistic", folds=4, seed=0,
                     refit=False, scheduler=scheduler, mstop=3)
        out.append([str(w.message) for w in caught])
    assert out[0] == out[1]
    assert [m[:7] for m in out[0]] == ["fold 1:", "fold 2:", "fold 3:", "fold 4:"]
    assert all("U= is deprecated" in m for m in out[0])
