"""Issue 28 §1: a method's options are declared once (its schema) and everything else
agrees with it: the fit function's signature, the Dask backend's, the command line's
reading of ``-o``, the scikit-learn estimators' parameters and the option tables of the
documentation."""
import inspect
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.cli import main
from ubreg.errors import DataError, OptionError
from ubreg.methods.registry import METHODS
from ubreg.methods.uls import BOOSTED_OPTIONS, LINEAR_OPTIONS, fit_boosted, fit_linear

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "methods"
#: (method, learner) of every schema variant
VARIANTS = [(name, None) for name in METHODS if name != "uls"] + [
    ("uls", "linear"), ("uls", "stumps"), ("uls", "rules"), ("uls", "trees")]


def _schema(name, learner):
    return METHODS[name].schema_for({} if learner is None else {"learner": learner})


def _keywords(func, skip=1):
    return [p for p in list(inspect.signature(func).parameters)[skip:]]


@pytest.mark.parametrize("name, learner", VARIANTS)
def test_the_fit_function_takes_exactly_the_schema_options(name, learner):
    """No default lives in a signature: the fit function's keywords are the schema's
    names, in order, without defaults (the schema's are the only ones)."""
    schema = _schema(name, learner)
    if name == "uls":
        func, skip = (fit_linear, 1) if learner == "linear" else (fit_boosted, 2)
        expected = schema.names(on_dask=False)[1:]          # learner chooses the function
    else:
        func, skip, expected = METHODS[name].fit, 1, schema.names(on_dask=False)
    params = list(inspect.signature(func).parameters.values())[skip:]
    assert [p.name for p in params] == expected
    assert all(p.default is p.empty for p in params)


@pytest.mark.parametrize("name", ["uls", "udt", "uboost"])
def test_the_dask_backend_takes_the_schema_options_for_dask_frames(name):
    from ubreg.dask.fitter import fit_linear_dask
    from ubreg.dask.uboost import fit_uboost_dask
    from ubreg.dask.udt import fit_udt_dask
    schema = METHODS[name].schema_for({})
    if name == "uls":
        assert _keywords(fit_linear_dask) == LINEAR_OPTIONS.names(on_dask=True)
    else:
        backend = {"udt": fit_udt_dask, "uboost": fit_uboost_dask}[name]
        assert _keywords(backend) == schema.names(on_dask=True)


def test_the_dask_defaults_and_restrictions_are_declared_in_the_schema():
    """udt's xval is 10 in memory and 0 on a Dask frame, both in its one declaration;
    what a Dask frame does not take is refused by name, with the reason."""
    udt = METHODS["udt"].schema_for({})
    assert udt.defaults()["xval"] == 10 and udt.defaults(on_dask=True)["xval"] == 0
    with pytest.raises(OptionError, match=r"xval=10 on a Dask frame: the cross-validated"):
        udt.resolve({"xval": 10}, on_dask=True)
    with pytest.raises(OptionError, match="learner='linear' on a Dask frame"):
        METHODS["uboost"].schema_for({}).resolve({"learner": "linear"}, on_dask=True)
    with pytest.raises(OptionError, match="option 'persist' applies to dask DataFrames only"):
        METHODS["uls"].schema_for({}).resolve({"persist": True}, type_name="pandas.DataFrame")


@pytest.mark.parametrize("name, learner", VARIANTS)
def test_every_option_reads_its_default_back_from_the_command_line(name, learner):
    for option in _schema(name, learner):
        if option.kind == "value" or not option.public:
            continue
        text = "none" if option.default is None else str(option.default).lower() \
            if isinstance(option.default, bool) else str(option.default)
        value = option.parse(text)
        assert value == option.default and type(value) is type(option.default), option.name


@pytest.mark.parametrize("name, learner", VARIANTS)
def test_a_bad_command_line_value_is_refused_naming_the_option(name, learner):
    for option in _schema(name, learner):
        if option.kind in ("value", "choice") or not option.public:
            continue
        with pytest.raises(OptionError, match=rf"^{option.name}\b"):
            option.parse("not-a-value")


@pytest.mark.slow
def test_the_command_line_reads_options_by_their_kind(tmp_path, capsys):
    csv = tmp_path / "pima.csv"
    ubreg.datasets.load_pima().head(200).to_csv(csv, index=False)
    assert main(["fit", "diabetes ~ glucose", str(csv), "--method", "udt", "-o",
                 "xval=ten"]) == 2
    err = capsys.readouterr().err
    assert "xval=ten" in err and "whole number" in err
    assert main(["fit", "diabetes ~ glucose", str(csv), "--method", "udt", "-o",
                 "bins=none", "-o", "cp=0.02"]) == 0
    assert "cp=0.02" in capsys.readouterr().out


def _estimators():
    from ubreg import sklearn as sk
    return {"uls": sk.ULSClassifier, "udt": sk.UDTClassifier, "uboost": sk.UBoostClassifier,
            "tboost": sk.TBoostClassifier, "gnnb": sk.GNNBClassifier,
            "unn": sk.UNNClassifier}


def test_the_estimators_take_every_option_with_its_default():
    pytest.importorskip("sklearn")
    for name, cls in _estimators().items():
        schemas = ([LINEAR_OPTIONS, BOOSTED_OPTIONS] if name == "uls"
                   else [METHODS[name].schema_for({})])
        expected = {}
        for schema in ([METHODS["uls"].schema_for({})] if name == "uls" else []) + schemas:
            for o in schema:
                if o.public and o.where != "dask":
                    expected.setdefault(o.name, o.default)
        params = cls().get_params()
        family = params.pop("family")
        assert params == expected, name
        # every method takes its loss from family= (uboost and tboost once took U= and t=)
        assert family == {"udt": "gini", "tboost": "tempered"}.get(name, "entropy"), name


@pytest.mark.slow
def test_the_estimators_keep_a_data_frames_column_names():
    pytest.importorskip("sklearn")
    pima = ubreg.datasets.load_pima().dropna().head(300)
    X = pima[["glucose", "mass"]].rename(columns={"mass": "body mass"})
    for cls in _estimators().values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls().fit(X, pima["diabetes"])
        assert "glucose" in est.model_.formula and "`body mass`" in est.model_.formula
    est = _estimators()["uls"]().fit(X, pima["diabetes"])
    assert list(est.model_.coef.index) == ["(Intercept)", "glucose", "`body mass`"]
    plain = _estimators()["uls"]().fit(X.to_numpy(), pima["diabetes"])
    assert list(plain.model_.coef.index) == ["(Intercept)", "x0", "x1"]
    np.testing.assert_allclose(plain.model_.coef.to_numpy(), est.model_.coef.to_numpy())


def test_gnnb_estimator_on_fewer_rows_than_k_uses_every_other_row():
    """GNNBClassifier's default k = 10 on a 10-row training set: k = 9, with a warning (as
    scikit-learn's LocalOutlierFactor); ubreg.fit itself refuses k >= rows."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 2)), np.r_[np.zeros(5), np.ones(5)]
    with pytest.warns(UserWarning, match="k = 10 but only 10 training rows; k = 9"):
        est = _estimators()["gnnb"]().fit(X, y)
    assert est.k_ == 9 and est.model_.k == 9
    with pytest.raises(DataError, match="k = 10 but only 10 training rows"):
        ubreg.fit("y ~ a + b", pd.DataFrame({"y": y, "a": X[:, 0], "b": X[:, 1]}),
                  method="gnnb")


@pytest.mark.parametrize("name, learner", [v for v in VARIANTS if v[1] in (None, "linear",
                                                                             "stumps")])
def test_the_documentation_tables_come_from_the_schema(name, learner):
    """Each method's page inserts its table from the schema (no option is described by
    hand there, where it could drift)."""
    page = {"unn": "gnnb"}.get(name, name)
    text = (DOCS / f"{page}.md").read_text()
    directive = "{ubreg-options} " + name + ("" if learner is None else f" {learner}")
    assert directive in text
    for option in _schema(name, learner):
        assert f"\n`{option.name}` :" not in text, option.name
    table = _schema(name, learner).markdown()
    for option in _schema(name, learner):
        if option.public:
            assert f"`{option.name}` : {option.type_text()}" in table
