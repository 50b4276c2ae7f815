"""ubreg.tidy and ubreg.glance: broom's frames of a glm and of a multinomial logit
(tests/fixtures/broom_tidy.R)."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

REF = json.loads((pathlib.Path(__file__).parent / "fixtures" / "broom_tidy.json").read_text())


@pytest.fixture(scope="module")
def rows(pima):
    d = pima.dropna(subset=["glucose", "mass", "age"]).copy()
    d["band"] = pd.Categorical(pd.cut(d["glucose"], [0, 110, 140, 300],
                                      labels=["lo", "mid", "hi"]), ["lo", "mid", "hi"])
    return d


def _compare(frame: pd.DataFrame, ref: dict, rtol: float, skip=()):
    assert list(frame.columns) == list(ref)
    for column, values in ref.items():
        values = values if isinstance(values, list) else [values]   # jsonlite unboxes 1
        if column in skip:
            continue
        if isinstance(values[0], str):
            assert list(frame[column].astype(str)) == values, column
        elif column in ("conf.low", "conf.high"):
            # R (MASS) interpolates the profile with a spline, ubreg solves for its exact
            # crossing: about 1e-4 relative (LinearResult.confint)
            np.testing.assert_allclose(frame[column].to_numpy(float), values, rtol=1e-4,
                                       err_msg=column)
        elif column == "p.value":      # in the tails, on the scale that conditions them
            np.testing.assert_allclose(np.log(frame[column].to_numpy(float)), np.log(values),
                                       rtol=rtol, err_msg=column)
        else:
            np.testing.assert_allclose(frame[column].to_numpy(float), values, rtol=rtol,
                                       err_msg=column)


def test_tidy_and_glance_of_a_glm_are_brooms(rows):
    m = ubreg.fit("diabetes ~ glucose + mass + age", rows)
    _compare(ubreg.tidy(m, conf_int=True), REF["tidy"], 1e-6)
    _compare(ubreg.tidy(m, conf_int=True, conf_level=0.9, exponentiate=True),
             REF["tidy_exp"], 1e-6)
    _compare(ubreg.glance(m), REF["glance"], 1e-6)
    assert list(ubreg.tidy(m).columns) == ["term", "estimate", "std.error", "statistic",
                                          "p.value"]


def test_tidy_and_glance_of_a_multinomial_logit(rows):
    m = ubreg.fit("band ~ mass + age", rows)
    # nnet's standard errors are not a reference (docs/methods/uls.md): the estimates are
    _compare(ubreg.tidy(m), REF["tidy_multinom"], 1e-5,
             skip=("std.error", "statistic", "p.value"))
    t = ubreg.tidy(m)
    np.testing.assert_allclose(t["std.error"], m.std_errors.to_numpy().ravel())
    np.testing.assert_allclose(t["std.error"], REF["tidy_multinom"]["std.error"], rtol=1e-3)
    _compare(ubreg.glance(m), REF["glance_multinom"], 1e-6)


def test_non_likelihood_family_has_no_aic(rows):
    m = ubreg.fit("diabetes ~ glucose + mass", rows, family="matsushita")
    g = ubreg.glance(m)
    assert np.isnan(g["AIC"].iloc[0]) and g["deviance"].iloc[0] == pytest.approx(m.deviance)
    t = ubreg.tidy(m)
    np.testing.assert_allclose(t["std.error"], m.coef_table()["std_error"])


def test_models_without_coefficients_are_refused_by_name(rows):
    tree = ubreg.fit("diabetes ~ glucose + mass", rows, method="udt", xval=0)
    with pytest.raises(TypeError, match="no coefficients"):
        ubreg.tidy(tree)
    with pytest.raises(TypeError, match="no coefficients"):
        ubreg.glance(tree)
