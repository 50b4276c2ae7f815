"""ubreg on dask DataFrames: the same fit, partition by partition.

Every test runs on one LocalCluster of 2 worker processes (module fixture),
except the one that checks the default local scheduler.
"""
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional extra: "
                                  "pip install 'ubreg[dask]'")
import dask  # noqa: E402

import ubreg  # noqa: E402
from ubreg.errors import DataError, FormulaError  # noqa: E402

pytestmark = pytest.mark.slow  # every test here runs on a local Dask cluster

TOL = 1e-8
FAMILIES = [ubreg.Permissible("entropy"), ubreg.Permissible("matsushita"),
            ubreg.Permissible("gini"), ubreg.Permissible("mu", mu=0.3)]


def _data(n=800, seed=3):
    """Numeric and string predictors, NA rows, a weight column, and a factor
    whose levels are missing from some partitions (level 'd' only in the last
    quarter, 'a' never there)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                       "x3": rng.uniform(1, 3, size=n)})
    q = n // 4
    df["g"] = np.concatenate([rng.choice(["a", "b"], q), rng.choice(["a", "b", "c"], 2 * q),
                              rng.choice(["b", "c", "d"], n - 3 * q)])
    df["w"] = rng.integers(1, 4, size=n).astype(float)
    eta = 0.6 * df.x1 - 0.4 * df.x2 + 0.5 * (df.g == "c") - 0.3 * (df.g == "d")
    df["y"] = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-eta)), "yes", "no")
    df.loc[[3, 250, 610], "x1"] = np.nan
    df.loc[[20, 700], "y"] = None
    df.loc[[450], "g"] = None
    return df


def _assert_same_fit(mem, out):
    np.testing.assert_allclose(out.coef.to_numpy(), mem.coef.to_numpy(), rtol=0, atol=TOL)
    for kind in ("model", "robust"):
        np.testing.assert_allclose(out.vcov(kind).to_numpy(), mem.vcov(kind).to_numpy(),
                                   rtol=0, atol=TOL)
    np.testing.assert_allclose(out.bse.to_numpy(), mem.bse.to_numpy(), rtol=0, atol=TOL)
    for stat in ("deviance", "null_deviance", "loglik", "aic", "bic", "nobs", "df_resid"):
        assert getattr(out, stat) == pytest.approx(getattr(mem, stat), abs=TOL, rel=0,
                                                   nan_ok=True), stat
    assert out.n_dropped == mem.n_dropped
    assert out.n_input == mem.n_input
    assert list(out.coef.index) == list(mem.coef.index)
    assert out.iterations == mem.iterations
    assert out.converged and mem.converged
    assert sorted(out.na_factors) == sorted(mem.na_factors)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.describe())
def test_cluster_fit_equals_in_memory_fit(client, frame, ddf, family):
    formula = "y ~ x1 + x2 + np.log(x3) + g"
    mem = ubreg.fit(formula, frame, family=family)
    with distributed.get_task_stream(client) as tasks:
        out = ubreg.fit(formula, ddf, family=family)
    assert {t["worker"] for t in tasks.data}, "the fit did not run on the cluster"
    _assert_same_fit(mem, out)
    assert out.n_dropped == 6        # 2 NA responses, 3 NA x1, 1 NA g
    assert "gd" in out.coef.index   # a level only the last partition has


def test_weights_stateful_transforms_and_interactions(client, frame, ddf):
    formula = "y ~ center(x2) + standardize(x3) + g + x1:g"
    mem = ubreg.fit(formula, frame, family="matsushita", freq_weights="w")
    out = ubreg.fit(formula, ddf, family="matsushita", freq_weights="w")
    _assert_same_fit(mem, out)
    assert out.nobs == pytest.approx(frame.loc[mem.index, "w"].sum())


def test_prior_and_frequency_weights_equal_in_memory(client, frame):
    """Prior weights (R's): nobs and df count the rows of non-zero weight, HC0 meat
    Σ w² r² x xᵀ, AIC/BIC R's; frequency weights: Σ w.  Zero weights included."""
    data = frame.assign(w=np.where(np.arange(len(frame)) % 5 == 0, 0.0, frame["w"]))
    d = dd.from_pandas(data, npartitions=4, sort=True)
    for kind in ("weights", "freq_weights"):
        mem = ubreg.fit("y ~ x1 + x2 + g", data, **{kind: "w"})
        out = ubreg.fit("y ~ x1 + x2 + g", d, **{kind: "w"})
        _assert_same_fit(mem, out)
        assert out.weight_kind == mem.weight_kind
    assert mem.nobs == data.loc[mem.index, "w"].sum()
    prior = ubreg.fit("y ~ x1 + x2 + g", d, weights="w")
    assert prior.nobs == np.count_nonzero(data.loc[mem.index, "w"])


def test_parquet_source_and_no_persist(client, frame, tmp_path):
    frame.to_parquet(tmp_path / "part.0.parquet", index=True)
    src = dd.from_pandas(frame, npartitions=3, sort=True)
    src.to_parquet(str(tmp_path / "data"), write_index=True)
    disk = dd.read_parquet(str(tmp_path / "data"))
    mem = ubreg.fit("y ~ x1 + g", frame)
    out = ubreg.fit("y ~ x1 + g", disk, persist=False)
    _assert_same_fit(mem, out)


def test_aliased_column_and_summary(client, frame, ddf):
    data = frame.assign(x4=2 * frame.x2)
    d = dd.from_pandas(data, npartitions=4, sort=True)
    mem = ubreg.fit("y ~ x1 + x2 + x4 + g", data)
    out = ubreg.fit("y ~ x1 + x2 + x4 + g", d)
    _assert_same_fit(mem, out)
    assert out.aliased["x4"] and np.isnan(out.coef["x4"])
    text = str(out.summary())
    assert "Residual deviance" in text and "aliased: x4" in text
    got, want = out.summary().facts(), mem.summary().facts()
    for key in ("deviance", "null_deviance", "aic", "loglik", "df_resid", "df_null", "nobs"):
        assert got[key] == pytest.approx(want[key], abs=TOL, rel=0), key
    for key in ("n_dropped", "iterations", "converged", "positive", "family"):
        assert got[key] == want[key], key
    assert str(out.summary().frame().round(6)) == str(mem.summary().frame().round(6))


def test_far_from_zero_columns_equal_in_memory_and_r(client):
    """Aliasing judged scale-free on the partitions too: a timestamp and a weight + 3e7
    (tests/fixtures/glm_aliasing.json, R 4.2.2) are fitted, with R's numbers."""
    import json
    import pathlib
    fixtures = pathlib.Path(__file__).parent / "fixtures"
    ref = json.loads((fixtures / "glm_aliasing.json").read_text())
    data = pd.read_csv(fixtures / ref["data_file"])
    d = dd.from_pandas(data, npartitions=3, sort=True)
    for case in ref["cases"]:
        mem = ubreg.fit(case["formula"], data)
        out = ubreg.fit(case["formula"], d)
        np.testing.assert_array_equal(out.aliased.to_numpy(), case["aliased_default_control"])
        want = np.array([np.nan if v is None else v for v in case["estimate"]], dtype=float)
        np.testing.assert_allclose(out.coef.to_numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(out.coef.to_numpy(), mem.coef.to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(out.bse.to_numpy(), mem.bse.to_numpy(), rtol=1e-8)


def test_predict_is_lazy_and_equals_in_memory(client, frame, ddf):
    mem = ubreg.fit("y ~ x1 + x2 + g", frame, family="matsushita")
    out = ubreg.fit("y ~ x1 + x2 + g", ddf, family="matsushita")
    for type in ("response", "link", "class"):
        lazy = out.predict(ddf, type=type)
        assert isinstance(lazy, dd.Series)
        got = lazy.compute()
        want = mem.predict(frame, type=type)
        assert got.index.equals(want.index)
        if type == "class":
            assert got.isna().equals(want.isna())
            assert (got[want.notna()] == want[want.notna()]).all()
        else:
            np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    # NA predictors give NaN, aligned with the input
    assert np.isnan(out.predict(ddf).compute().loc[3])
    # training-row quantities: lazy too
    fitted = out.fitted_values
    assert isinstance(fitted, dd.Series)
    pd.testing.assert_series_equal(fitted.compute(), mem.fitted_values, check_names=False,
                                   atol=1e-12, rtol=0)
    r = out.residuals("deviance").compute()
    np.testing.assert_allclose(r.to_numpy(), mem.residuals("deviance").to_numpy(), atol=1e-12)
    # no newdata: the complete training rows, on every scale
    for type in ("response", "link", "class"):
        got, want = out.predict(type=type).compute(), mem.predict(type=type)
        assert got.index.equals(want.index)
        if type == "class":
            assert (got == want).all()
        else:
            np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    # a pandas frame gives the in-memory prediction
    pd.testing.assert_series_equal(out.predict(frame.head(20)), mem.predict(frame.head(20)),
                                   atol=1e-12, rtol=0)


def test_default_local_scheduler_needs_no_setup(frame, ddf):
    mem = ubreg.fit("y ~ x1 + x2 + g", frame)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit("y ~ x1 + x2 + g", ddf)
        lazy = out.predict(ddf)
        got = lazy.compute()
    _assert_same_fit(mem, out)
    np.testing.assert_allclose(got.to_numpy(), mem.predict(frame).to_numpy(), atol=1e-12)


def test_result_pickles_and_inputs_untouched(client, frame, ddf):
    before, dtypes = frame.copy(), ddf.dtypes.copy()
    out = ubreg.fit("y ~ x1 + g", ddf)
    back = pickle.loads(pickle.dumps(out))
    pd.testing.assert_series_equal(back.coef, out.coef)
    assert back.deviance == out.deviance
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_series_equal(ddf.dtypes, dtypes)
    assert ddf.npartitions == 4


def test_clear_errors(client, frame, ddf):
    with pytest.raises(ValueError, match="solver='corrective'"):
        ubreg.fit("y ~ x1", ddf, solver="coordinate")
    with pytest.raises(DataError, match="name of one of its columns"):
        ubreg.fit("y ~ x1", ddf, weights=np.ones(len(frame)))
    with pytest.raises(ValueError, match="needs the data in memory"):
        ubreg.fit("y ~ x1", ddf, learner="stumps")
    with pytest.raises(DataError, match="method 'gnnb' does not run on Dask frames.*"
                                        r"method='uls'.*method='udt'.*method='uboost'.* do; "
                                        r"call \.compute\(\)"):
        ubreg.fit("y ~ x1", ddf, method="gnnb")
    with pytest.raises(FormulaError, match="not in the data"):
        ubreg.fit("y ~ nope", ddf)
    with pytest.raises(FormulaError, match="cannot read"):
        ubreg.fit("y ~ I(__import__('os').getpid())", ddf)
    with pytest.raises(FormulaError, match="not allowed: unknown function 'Sys.getpid'"):
        ubreg.fit("y ~ I(Sys.getpid())", ddf)
    with pytest.raises(DataError, match="na_action='fail'"):
        ubreg.fit("y ~ x1", ddf, na_action="raise")
    one_class = dd.from_pandas(frame.assign(y="yes"), npartitions=2)
    with pytest.raises(ubreg.errors.ResponseError):
        ubreg.fit("y ~ x1", one_class)


def _separated():
    x = np.linspace(-3, 3, 200)
    return pd.DataFrame({"x": x, "y": (x > 0).astype(int)})


def test_separation_symptom_warns(client):
    with pytest.warns(ubreg.errors.SeparationWarning):
        ubreg.fit("y ~ x", dd.from_pandas(_separated(), npartitions=2), maxiter=30)


def test_on_separation_raise_raises_on_the_symptom(client, ddf):
    d = dd.from_pandas(_separated(), npartitions=2)
    with pytest.raises(DataError, match="numerically 0 or 1.*on_separation='raise'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ubreg.errors.ConvergenceWarning)
            ubreg.fit("y ~ x", d, maxiter=30, on_separation="raise")
    # in memory the same data raise too (the linear program confirms the separation)
    with pytest.raises(DataError, match="separation"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ubreg.errors.ConvergenceWarning)
            ubreg.fit("y ~ x", _separated(), maxiter=30, on_separation="raise")
    # a fit without the symptom is not affected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ubreg.fit("y ~ x1 + x2", ddf, on_separation="raise")
    with pytest.raises(ValueError, match="on_separation must be"):
        ubreg.fit("y ~ x1", ddf, on_separation="ignore")


def test_every_other_method_refuses_a_dask_frame(client, ddf):
    """Every method of the registry without a Dask backend."""
    for name in sorted(ubreg.METHODS):
        if ubreg.METHODS[name].dask is not None:
            continue
        with pytest.raises(DataError, match=f"method '{name}' does not run on Dask frames"):
            ubreg.fit("y ~ x1", ddf, method=name)


def test_a_method_registered_by_a_user_refuses_a_dask_frame(ddf, frame):
    from ubreg.methods.registry import METHODS, register
    from ubreg.methods.spec import Method

    calls = []

    def later(spec, *, depth: int = 1):
        calls.append(type(spec.data).__name__)
        return depth

    register(Method("later", fit=later, result=int))
    try:
        with pytest.raises(ValueError, match="exists already"):
            register(Method("later", fit=later, result=int))
        assert ubreg.fit("y ~ x1", frame, method="later", depth=3) == 3
        with pytest.raises(DataError, match="method 'later' does not run on Dask frames"):
            ubreg.fit("y ~ x1", ddf, method="later")
        with pytest.raises(ubreg.errors.OptionError, match="no option 'persist'"):
            ubreg.fit("y ~ x1", frame, method="later", persist=False)
        assert calls == ["DataFrame"]
    finally:
        METHODS.pop("later", None)


def test_persist_is_a_dask_only_option(client, frame, ddf):
    with pytest.raises(ubreg.errors.OptionError, match="'persist' applies to dask DataFrames "
                                                       "only; the data is a pandas.DataFrame"):
        ubreg.fit("y ~ x1", frame, persist=False)
    with pytest.raises(ubreg.errors.OptionError, match="has no option 'nope'; it accepts: "
                                                       "learner, solver"):
        ubreg.fit("y ~ x1", ddf, nope=1)
    with pytest.raises(ValueError, match="persist must be"):
        ubreg.fit("y ~ x1", ddf, persist="sometimes")
    mem = ubreg.fit("y ~ x1 + x2 + g", frame)
    fits = {p: ubreg.fit("y ~ x1 + x2 + g", ddf, persist=p) for p in ("auto", True, False)}
    for out in fits.values():
        _assert_same_fit(mem, out)
    assert fits["auto"].persisted                            # a small design: kept
    assert fits[True].persisted and not fits[False].persisted


def test_persist_auto_rule():
    from ubreg.dask.frame import PERSIST_FRACTION, design_bytes, should_persist
    gib = 2 ** 30
    assert design_bytes(10_000_000, 34) == 10_000_000 * 8 * 36
    # 1e7 rows x 34 columns on 2 workers of 12 GiB: 1.44 GB a worker, kept
    assert should_persist(10_000_000, 34, 500_000, workers=2, memory_limit=12 * gib)
    # ... not on 2 workers of 3 GiB (more than PERSIST_FRACTION of a worker)
    assert not should_persist(10_000_000, 34, 500_000, workers=2, memory_limit=3 * gib)
    # the largest partition bounds a worker's share from below
    limit = design_bytes(4_000_000, 34) / PERSIST_FRACTION
    assert should_persist(4_000_000, 34, 1_000_000, workers=1, memory_limit=limit)
    assert not should_persist(4_000_000, 34, 4_000_001, workers=8, memory_limit=limit / 8)
    # unknown memory: persist
    assert should_persist(10 ** 9, 34, 10 ** 6, workers=1, memory_limit=0)


def test_packed_design_is_lossless_and_smaller():
    from ubreg.dask.packed import pack
    rng = np.random.default_rng(0)
    n = 5000
    X = np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n),
                         rng.normal(size=n).astype(np.float32), rng.integers(-300, 300, n),
                         rng.integers(0, 2, n) * 1e6, np.full(n, 2.0 ** 40), rng.uniform(size=n)])
    y = rng.integers(0, 2, n).astype(float)
    piece = pack(X, y, np.ones(n))
    kinds = {np.dtype(g.dtype).name: g.shape[1] for g in piece.groups}
    assert kinds == {"float64": 2, "float32": 3, "int16": 1, "int8": 2}, kinds
    assert piece.w is None and piece.y.dtype == np.int8
    assert piece.nbytes == n * (2 * 8 + 3 * 4 + 2 + 2 * 1 + 1)   # 33 bytes a row instead of 72
    out = np.empty((1000, X.shape[1]))
    for start in range(0, n, 1000):
        block = piece.unpack(start, start + 1000, out)
        np.testing.assert_array_equal(block, X[start:start + 1000][:, piece.order])
    np.testing.assert_array_equal(piece.colmax(), np.abs(X).max(axis=0))
    np.testing.assert_array_equal(piece.y_block(0, n), y)
    w = rng.uniform(size=n)
    assert pack(X, y, w).w is w
    plain = pack(X, y, w, compact=False)
    assert plain.groups[0] is X and plain.identity


def test_storage_types_test_every_row():
    """The exactness tests run on a sample of rows first; a column that passes there
    is tested whole (a value past the sample decides), and the type is the
    smallest that holds every value."""
    from ubreg.dask.packed import _SAMPLE_ROWS, _storage_types
    rng = np.random.default_rng(1)
    n = 3 * _SAMPLE_ROWS
    late = lambda head, tail: np.r_[head, tail]                     # noqa: E731
    cols = {np.int8: [np.ones(n), late(np.zeros(n - 1), 127.0)],
            np.int16: [late(np.zeros(n - 1), 128.0), late(np.zeros(n - 1), -32768.0)],
            np.float32: [late(np.zeros(n - 1), 0.5), late(np.zeros(n - 1), 1e10),
                         late(np.zeros(n - 1), np.inf), rng.normal(size=n).astype(np.float32),
                         late(np.zeros(n - 1), 40000.0)],
            np.float64: [late(np.zeros(n - 1), 0.1), late(np.zeros(n - 1), np.nan),
                         rng.normal(size=n), late(np.zeros(n - 1), 1e300),
                         late(np.zeros(n - 1), 2.0 ** 25 + 1)]}
    X = np.column_stack([c for group in cols.values() for c in group])
    want = [t for t, group in cols.items() for _ in group]
    assert _storage_types(X) == want
    for j, t in enumerate(want):                                    # lossless
        np.testing.assert_array_equal(X[:, j].astype(t).astype(np.float64), X[:, j])


def test_cv_on_the_cluster_is_identical(client, frame):
    data = frame.dropna()
    seq = ubreg.cv("y ~ x1 + x2 + g", data, folds=4, seed=7, refit=False)
    par = ubreg.cv("y ~ x1 + x2 + g", data, folds=4, seed=7, refit=False, scheduler=client)
    pd.testing.assert_frame_equal(seq.folds, par.folds)
    pd.testing.assert_series_equal(seq.predictions, par.predictions)
    pd.testing.assert_series_equal(seq.fold, par.fold)


def test_candidate_models_on_the_cluster(client, frame):
    data = frame.dropna()
    from ubreg.evaluate.parallel import fit_models
    fits = fit_models({"entropy": {"formula": "y ~ x1 + g"},
                       "gini": {"formula": "y ~ x1 + g", "family": "gini"}},
                      data, scheduler=client)
    for name, fam in (("entropy", "entropy"), ("gini", "gini")):
        mem = ubreg.fit("y ~ x1 + g", data, family=fam)
        pd.testing.assert_series_equal(fits[name].coef, mem.coef)
    table = ubreg.compare(fits).statistics()
    assert list(table.columns) == ["entropy", "gini"]


def test_no_warning_on_a_clean_fit(client, ddf):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ubreg.fit("y ~ x1 + x2", ddf)




def test_na_action_takes_rs_names(client, frame, ddf):
    """omit (alias drop) and fail (alias raise) as in memory; exclude is refused: its
    padded residuals need rows a Dask fit does not hold."""
    mem = ubreg.fit("y ~ x1 + g", frame, na_action="omit")
    np.testing.assert_allclose(ubreg.fit("y ~ x1 + g", ddf, na_action="omit").coef,
                               mem.coef, rtol=1e-10)
    with pytest.raises(ValueError, match="does not hold"):
        ubreg.fit("y ~ x1", ddf, na_action="exclude")
    with pytest.raises(DataError, match="na_action='fail'"):
        ubreg.fit("y ~ x1", ddf, na_action="fail")
