"""``ubreg.augment`` = R's ``broom::augment`` of a glm (tests/fixtures/broom_augment.R), and
``m.influence()`` = R's ``influence(m, do.coef = FALSE)``: every column to 1e-6."""
import json
import pathlib

import numpy as np
import pandas as pd
import pytest

import ubreg

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "broom_augment.json").read_text())
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv").assign(
    y=lambda d: (d["diabetes"] == "pos").astype(int))
ESOPH = pd.read_csv(FIXTURES / "data" / "esoph.csv").astype(
    {"agegp": pd.CategoricalDtype(["25-34", "35-44", "45-54", "55-64", "65-74", "75+"])})


@pytest.fixture(scope="module")
def m():
    return ubreg.fit("y ~ glucose + mass + age", PIMA)


def _same(frame: pd.DataFrame, ref: dict, columns=None):
    for c in columns or [c for c in ref if c.startswith(".") and c != ".rownames"]:
        np.testing.assert_allclose(frame[c], np.asarray(ref[c], float), rtol=1e-6, atol=1e-12,
                                   err_msg=c)


@pytest.mark.parametrize("case, options", [
    ("default", {}),
    ("response_se", {"type_predict": "response", "se_fit": True}),
    ("newdata", {"newdata": PIMA.iloc[:5], "type_predict": "response", "se_fit": True}),
])
def test_augment_is_broom(m, case, options):
    a = ubreg.augment(m, **options)
    ref = R[case]
    assert list(a.columns) == [c for c in ref if c != ".rownames"]
    _same(a, ref)
    if ".rownames" in ref:                   # the model frame's rows, as broom names them
        assert [str(i + 1) for i in a.index] == ref[".rownames"]
        assert a["glucose"].tolist() == ref["glucose"]


def test_pearson_std_resid_is_r_rstandard(m):
    """broom 1.0.3 writes the deviance rstandard into .std.resid whatever the residual
    type; ubreg gives R's rstandard(m, type = "pearson") with type_residuals="pearson"."""
    a = ubreg.augment(m, type_residuals="pearson")
    _same(a, R["pearson"], [".fitted", ".resid", ".hat", ".sigma", ".cooksd"])
    np.testing.assert_allclose(a[".std.resid"], R["rstandard_pearson"], rtol=1e-6)


def test_influence_is_r(m):
    infl = m.influence()
    for c in ("hat", "sigma", "dev.res", "pear.res"):
        np.testing.assert_allclose(infl[c], R["influence"][c], rtol=1e-6, atol=1e-12)


def test_cbind_response_and_transformed_predictor():
    with pytest.warns(ubreg.errors.InferenceWarning):   # 88 rows, few cases
        me = ubreg.fit("cbind(ncases, ncontrols) ~ agegp + log(ncontrols + 1)", ESOPH)
    a = ubreg.augment(me)
    _same(a, R["esoph"])
    # the columns the formula reads (R's model frame holds the evaluated terms)
    assert list(a.columns[:3]) == ["ncases", "ncontrols", "agegp"]


def test_data_must_be_the_rows_used(m):
    with pytest.raises(ValueError, match="768 rows and the fit used 752"):
        ubreg.augment(m, data=PIMA)
    used = PIMA.loc[m.index]
    a = ubreg.augment(m, data=used)
    assert list(a.columns[:len(PIMA.columns)]) == list(PIMA.columns)
    _same(a, R["default"])


def test_na_exclude_pads_the_dropped_rows():
    me = ubreg.fit("y ~ glucose + mass + age", PIMA, na_action="exclude")
    a = ubreg.augment(me, data=PIMA)
    assert len(a) == len(PIMA)
    dropped = ~PIMA.index.isin(me.index)
    assert a.loc[dropped, ".fitted"].isna().all() and a.loc[~dropped, ".hat"].notna().all()
    _same(a.loc[~dropped], R["default"])


def test_bad_input_is_named(m):
    with pytest.raises(ValueError, match="type_predict"):
        ubreg.augment(m, type_predict="class")
    with pytest.raises(ValueError, match="type_residuals"):
        ubreg.augment(m, type_residuals="working")
    with pytest.raises(ValueError, match="not both"):
        ubreg.augment(m, data=PIMA, newdata=PIMA)
    tree = ubreg.fit("y ~ glucose + mass", PIMA, method="udt")
    with pytest.raises(TypeError, match="linear fit"):
        ubreg.augment(tree)


def test_input_not_mutated(m):
    before = PIMA.copy()
    ubreg.augment(m, newdata=PIMA.iloc[:5])
    ubreg.augment(m, data=PIMA.loc[m.index])
    pd.testing.assert_frame_equal(PIMA, before)
