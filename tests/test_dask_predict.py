"""``predict`` of every result on a Dask frame: lazy, partition by partition, equal to memory.

Every method of the registry (``every_method``), the on-line learner and the results of
fits of Dask frames take a ``dask.dataframe.DataFrame`` as ``newdata``: the in-memory
``predict`` of each partition, the same ``type`` values and options, NA rows NA, the
``meta`` (name, dtype; categories of ``type="class"``) the in-memory result's.  All on
dask's local threaded scheduler.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
import dask  # noqa: E402

import ubreg  # noqa: E402
from ubreg.errors import PredictionError  # noqa: E402
from ubreg.methods.online import OnlineLearner  # noqa: E402
from ubreg.methods.registry import METHODS  # noqa: E402
from ubreg.results.base import PREDICT_TYPES  # noqa: E402
from ubreg.results.linear import LinearResult  # noqa: E402
from ubreg.results.tboost import TBoostResult  # noqa: E402
from ubreg.results.tree import TreeResult  # noqa: E402

from conftest import METHOD_CASES, method_case  # noqa: E402

FORMULA = "y ~ x1 + x2 + g"
#: NA predictors in these rows of the new data
NA_ROWS = [3, 41, 77]


def _data(n=150, seed=5):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                       "g": rng.choice(["a", "b", "c"], n)})
    eta = 0.8 * df.x1 - 0.5 * df.x2 + 0.6 * (df.g == "c")
    u = rng.uniform(size=n)
    df["y"] = np.where(u < 1 / (1 + np.exp(-eta)), "yes", "no")
    df["y3"] = np.where(df.x1 > 0.5, "hi", np.where(df.x1 < -0.5, "lo", "mid"))
    return df


TRAIN = _data()
NEW = _data(n=90, seed=6)
NEW.loc[NA_ROWS[:2], "x1"] = np.nan
NEW.loc[NA_ROWS[2], "g"] = None
NEW_DDF = dd.from_pandas(NEW, npartitions=3)


def _fit(label, response="y"):
    case = method_case(label)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(FORMULA.replace("y ~", f"{response} ~"), TRAIN, method=case.method,
                         **case.options)


def _predict_cases(model):
    """The predict arguments ``model``'s class supports: every type, and its options."""
    cases = [{"type": t} for t in PREDICT_TYPES]
    if isinstance(model, TreeResult):
        cases.append({"type": "leaf"})
    if isinstance(model, LinearResult):
        cases += [{"type": "link", "se_fit": True},
                  {"type": "response", "interval": "confidence", "level": 0.9}]
    if isinstance(model, TBoostResult):
        cases += [{"type": t, "clipped": True} for t in PREDICT_TYPES]
    return cases


def _no_compute(dsk, keys, **kwargs):
    raise AssertionError("predict computed something")


def _assert_lazy_and_equal(model, kwargs, ddf=NEW_DDF, pdf=NEW):
    with dask.config.set(scheduler=_no_compute):        # building the graph computes nothing
        lazy = model.predict(ddf, **kwargs)
    want = model.predict(pdf, **kwargs)
    if isinstance(want, pd.DataFrame):
        assert isinstance(lazy, dd.DataFrame)
        pd.testing.assert_series_equal(lazy.dtypes, want.dtypes)
        assert list(lazy.columns) == list(want.columns)
        got = lazy.compute(scheduler="threads")
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    else:
        assert isinstance(lazy, dd.Series)
        assert lazy.name == want.name and lazy.dtype == want.dtype
        got = lazy.compute(scheduler="threads")
        pd.testing.assert_series_equal(got, want, check_exact=True)
    assert got.index.equals(pdf.index)
    return got


@pytest.mark.slow
def test_every_method_predicts_a_dask_frame_lazily_and_exactly(every_method):
    model = _fit(every_method)
    for kwargs in _predict_cases(model):
        got = _assert_lazy_and_equal(model, kwargs)
        # routed by the surrogates (predict.rpart) or the learned missing-value directions
        if METHODS[model.method].keeps_missing:
            assert got.loc[NA_ROWS].notna().all(axis=None), (every_method, kwargs)
        else:
            assert got.loc[NA_ROWS].isna().all(axis=None), (every_method, kwargs)


def test_class_meta_is_categorical_with_the_response_levels(every_method):
    model = _fit(every_method)
    lazy = model.predict(NEW_DDF, type="class")
    assert isinstance(lazy.dtype, pd.CategoricalDtype)
    assert list(lazy.dtype.categories) == list(model.predict(NEW, type="class").cat.categories)
    assert lazy.cat.known


@pytest.mark.slow
@pytest.mark.parametrize("label", sorted(k for k, c in METHOD_CASES.items() if c.multiclass))
def test_multiclass_methods_give_a_lazy_frame_of_posteriors(label):
    model = _fit(label, response="y3")
    # a tree routes rows missing a predictor (predict.rpart); the other methods give NA
    routed = METHODS[model.method].keeps_missing
    for kwargs in ({"type": "response"}, {"type": "link"}):
        got = _assert_lazy_and_equal(model, kwargs)
        assert list(got.columns) == ["hi", "lo", "mid"]
        assert got.loc[NA_ROWS[:2]].isna().all(axis=None) != routed
    got = _assert_lazy_and_equal(model, {"type": "class"})
    assert got.loc[NA_ROWS[:2]].isna().all() != routed


@pytest.mark.slow
def test_the_online_learner_predicts_a_dask_frame():
    learner = OnlineLearner(FORMULA).partial_fit(TRAIN.iloc[:80]).partial_fit(TRAIN.iloc[80:])
    for kwargs in [{"type": t} for t in PREDICT_TYPES]:
        _assert_lazy_and_equal(learner, kwargs)
    # newdata as a keyword, type as a positional argument
    lazy = learner.predict(newdata=NEW_DDF)
    pd.testing.assert_series_equal(lazy.compute(), learner.predict(NEW), check_exact=True)


def test_positional_type_and_keyword_newdata():
    model = _fit("uls")
    pd.testing.assert_series_equal(model.predict(NEW_DDF, "link").compute(),
                                   model.predict(NEW, "link"), check_exact=True)
    pd.testing.assert_series_equal(model.predict(newdata=NEW_DDF, type="class").compute(),
                                   model.predict(newdata=NEW, type="class"), check_exact=True)
    # no newdata: the training rows in memory, as before
    pd.testing.assert_series_equal(model.predict(), model.fitted_values.rename("response"))


def test_each_partition_is_predicted_once_on_compute(monkeypatch):
    model = _fit("uls")
    calls = []
    original = LinearResult._rows_for

    def counting(self, newdata):
        calls.append(len(newdata))
        return original(self, newdata)

    monkeypatch.setattr(LinearResult, "_rows_for", counting)
    lazy = model.predict(NEW_DDF, type="link", se_fit=True)
    assert calls == [0]                         # the meta: an empty frame, no rows read
    sizes = NEW_DDF.map_partitions(len).compute(scheduler="sync").tolist()
    lazy.compute(scheduler="sync")
    assert calls[1:] == sizes                   # one call per partition, its rows


@pytest.mark.slow
def test_a_dask_frame_of_other_partitions_and_an_empty_partition():
    model = _fit("udt")
    frame = NEW.copy()
    frame.index = frame.index * 10 + 7                   # the partitions' index, not 0..n-1
    ddf = dd.from_pandas(frame, npartitions=4)
    ddf = dd.concat([ddf, ddf.loc[ddf.x2 > 100]])        # an empty partition at the end
    _assert_lazy_and_equal(model, {"type": "response"}, ddf=ddf, pdf=frame)


def test_errors_are_raised_when_predict_is_called_not_at_compute():
    model = _fit("uls")
    with dask.config.set(scheduler=_no_compute):
        with pytest.raises(ValueError, match="type must be one of"):
            model.predict(NEW_DDF, type="probability")
        with pytest.raises(PredictionError, match=r"lacks column\(s\) \['x2'\]"):
            model.predict(NEW_DDF.drop(columns="x2"))
        with pytest.raises(ValueError, match="se_fit and interval apply to type='link' or "
                                             "'response'"):
            model.predict(NEW_DDF, type="class", se_fit=True)
        with pytest.raises(TypeError, match="clipped"):
            model.predict(NEW_DDF, clipped=True)



@pytest.mark.slow
def test_categorical_columns_known_or_not_predict_as_strings():
    """A categorical column of newdata, its categories known to dask or not, predicts as
    the column of strings, for a model fitted on strings or on a categorical of the same
    levels (in memory, patsy refuses a categorical of other levels or another order;
    each partition is held to that)."""
    model = _fit("uls")
    cat_model = ubreg.fit(FORMULA, TRAIN.assign(g=pd.Categorical(TRAIN.g)))
    want = model.predict(NEW)
    as_category = NEW_DDF.assign(g=NEW_DDF.g.astype(pd.CategoricalDtype(["a", "b", "c"])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for ddf in (as_category.assign(g=as_category.g.cat.as_known()),
                    as_category.assign(g=as_category.g.cat.as_unknown())):
            for m in (model, cat_model):
                pd.testing.assert_series_equal(m.predict(ddf).compute(scheduler="threads"),
                                               want, check_exact=True)


def test_a_predict_that_is_not_row_wise_is_refused():
    """A result of one's own whose predict does not give one row per row (here: a
    summary of all rows) cannot be predicted partition by partition."""
    model = _fit("uls")

    class Pooled(LinearResult):
        def predict(self, newdata=None, type="response", **kwargs):
            out = LinearResult.predict(self, newdata, type)
            return out.iloc[:1] if len(out) else out

    pooled = object.__new__(Pooled)
    pooled.__dict__.update(model.__dict__)
    lazy = pooled.predict(NEW_DDF)
    with pytest.raises(PredictionError, match="did not give one row per row of a partition"):
        lazy.compute(scheduler="sync")


@pytest.mark.slow
def test_results_of_dask_fits_predict_through_the_same_path():
    """uls, udt and uboost fitted on a Dask frame: predict(ddf) lazy and equal to their
    predict of the pandas frame; uls also with se_fit and interval."""
    ddf = dd.from_pandas(TRAIN, npartitions=3)
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {"uls": ubreg.fit(FORMULA, ddf),
                "udt": ubreg.fit(FORMULA, ddf, method="udt", xval=0),
                "uboost": ubreg.fit(FORMULA, ddf, method="uboost", mstop=5)}
    for model in fits.values():
        for kwargs in _predict_cases(model):
            _assert_lazy_and_equal(model, kwargs)
    with pytest.raises(ValueError, match="se_fit and interval of the training rows"):
        fits["uls"].predict(se_fit=True)
    training = fits["uls"].predict(type="class")
    assert isinstance(training.dtype, pd.CategoricalDtype)
    mem = ubreg.fit(FORMULA, TRAIN)
    pd.testing.assert_series_equal(training.compute(scheduler="threads"),
                                   mem.predict(type="class"), check_index_type=False)


def test_what_needs_rows_in_memory_says_so_for_a_dask_frame():
    # staged_predict (and every other call that reads pandas rows) names the Dask frame
    # and the way out, instead of "must be a pandas DataFrame, got DataFrame"
    model = ubreg.fit(FORMULA, TRAIN, method="uboost", mstop=3)
    with pytest.raises(ubreg.errors.DataError, match="Dask DataFrame.*call .compute"):
        model.staged_predict(NEW_DDF)
