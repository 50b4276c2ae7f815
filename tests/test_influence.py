"""Influence measures of linear fits against R (stats' hatvalues, cooks.distance,
rstandard, rstudent, dfbeta, dfbetas, influence.measures; car's vif).

Reference numbers: tests/fixtures/glm_influence.json, written by glm_influence.R (each
case keeps its ``r_code``; 10 significant digits).  Each measure is compared column by
column to 1e-6 of the column's largest |value|.  R reads its measures off the QR and
working weights of its last IRLS iteration, those of the iterate *before* its last
update (glm stops when the deviance changes by under ε = 1e-14, the coefficients then
by ~1e-7): on the six-predictor Pima fit R's hat values are 9e-7 from those of R's own
refit from its estimates (``update(fit, start = coef(fit))``), which ubreg's match to
1.3e-10.  ubreg's are those of the final fit.
"""
import functools
import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import UbregError
from ubreg.results.influence import InfluenceMeasures, abbreviate

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
REFERENCE = json.loads((FIXTURES / "glm_influence.json").read_text())
CASES = REFERENCE["cases"]
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv")
PW = pd.read_csv(FIXTURES / "data" / "pima_weights.csv")
ESOPH_LEVELS = {"agegp": ["25-34", "35-44", "45-54", "55-64", "65-74", "75+"],
                "alcgp": ["0-39g/day", "40-79", "80-119", "120+"],
                "tobgp": ["0-9g/day", "10-19", "20-29", "30+"]}
ESOPH = pd.read_csv(FIXTURES / "data" / "esoph.csv").astype(
    {k: pd.CategoricalDtype(v) for k, v in ESOPH_LEVELS.items()})
#: the ubreg call of each R case (glm_influence.R)
FITS = {
    "pima_factor": ("diabetes ~ glucose + pressure + mass + pedigree + "
                    "cut(age, c(20, 30, 45, 90))", PIMA, {}),
    "pima_numeric": ("diabetes ~ pregnant + glucose + pressure + mass + pedigree + age",
                     PIMA, {}),
    "weighted_frac": ("diabetes ~ glucose + mass + pedigree + age", PW, {"weights": "w_frac"}),
    "weighted_int": ("diabetes ~ glucose + mass + pedigree", PW, {"weights": "w_int"}),
    "na_exclude": ("diabetes ~ glucose + mass + pressure", PIMA, {"na_action": "exclude"}),
    "esoph_cbind": ("cbind(ncases, ncontrols) ~ agegp + alcgp + tobgp", ESOPH, {}),
    "interaction_offset": ("diabetes ~ glucose * mass + pedigree + offset(log(age))", PIMA, {}),
    "no_intercept": ("diabetes ~ glucose + mass + age - 1", PIMA, {}),
    "aliased": ("diabetes ~ glucose + mass + I(2 * mass) + age", PIMA, {}),
}


@functools.cache
def _fit(case, **extra):
    formula, data, kw = FITS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ubreg.errors.InferenceWarning)   # esoph: 12 coefs
        return ubreg.fit(formula, data, **kw, **extra)


def _numbers(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _matrix(stored, n):
    """An R matrix stored by column as an n-row array."""
    return _numbers(stored["values"]).reshape(-1, n).T


def _r_padded(case, values):
    """R's values with NaN where ubreg has NaN: R pads a row dropped under na.exclude
    with NA in the residual-based measures and 0 in hatvalues and dfbeta(s)."""
    values = np.array(values, dtype=float)
    if case == "na_exclude":
        values[np.isnan(_numbers(CASES[case]["rstudent"]))] = np.nan
    return values


def _close(actual, expected, rtol=1e-6):
    """Equal column by column to ``rtol`` of the column's largest |value|; NaN where R
    has NA."""
    a = np.asarray(actual, dtype=float).reshape(len(actual), -1)
    e = np.asarray(expected, dtype=float).reshape(len(expected), -1)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(e))
    scale = np.nanmax(np.abs(e), axis=0)
    assert np.all(np.nan_to_num(np.abs(a - e)) <= rtol * scale), np.nanmax(np.abs(a - e) / scale)


def test_fixture_records_r_and_car_versions():
    assert REFERENCE["r_version"].startswith("R version 4.2.2")
    assert REFERENCE["car"] == "3.1.1"
    assert set(CASES) == set(FITS)


@pytest.mark.parametrize("case", list(FITS))
def test_vector_measures_equal_r(case):
    m, r = _fit(case), CASES[case]
    n = len(r["rows"])
    if case != "na_exclude":                    # R's rows: 1-based CSV row numbers
        assert [str(i + 1) for i in m.hatvalues().index] == r["rows"]
    else:
        assert len(m.hatvalues()) == n == len(PIMA)
    _close(m.hatvalues(), _r_padded(case, r["hat"]))
    _close(m.cooks_distance(), _numbers(r["cooks"]))
    _close(m.rstandard(), _numbers(r["rstandard_deviance"]))
    _close(m.rstandard(type="pearson"), _numbers(r["rstandard_pearson"]))
    _close(m.rstudent(), _numbers(r["rstudent"]))
    assert r["dispersion"] == 1 and m.rank == r["rank"]


@pytest.mark.parametrize("case", list(FITS))
def test_dfbeta_and_dfbetas_equal_r(case):
    m, r = _fit(case), CASES[case]
    n = len(r["rows"])
    k = len(r["dfbetas_columns"])               # R's dfbetas are infmat's first k columns
    for got, want in ((m.dfbeta(), _matrix(r["dfbeta"], n)),
                      (m.dfbetas(), _matrix(r["infmat"], n)[:, :k])):
        assert list(got.columns) == r["dfbetas_columns"]    # the coefficients not aliased
        assert got.index.equals(m.hatvalues().index)
        _close(got, _r_padded(case, want))


@pytest.mark.parametrize("case", list(FITS))
def test_influence_measures_equal_r_columns_and_flags(case):
    m, r = _fit(case), CASES[case]
    n = len(r["rows"])
    im = m.influence_measures()
    assert isinstance(im, InfluenceMeasures)
    assert list(im.infmat.columns) == r["infmat"]["columns"]
    assert list(im.is_inf.columns) == r["is_inf"]["columns"]
    _close(im.infmat, _r_padded(case, _matrix(r["infmat"], n)))
    want = _r_padded(case, _matrix(r["is_inf"], n))
    got = im.is_inf.astype(float).to_numpy()
    np.testing.assert_array_equal(got, want)
    flagged = want[~np.isnan(want).any(axis=1)].astype(bool).any(axis=1)
    assert len(im.influential()) == flagged.sum() > 0


def test_excluded_rows_are_nan_where_r_pads_na_or_zero():
    m, r = _fit("na_exclude"), CASES["na_exclude"]
    dropped = np.isnan(_numbers(r["rstudent"]))
    assert dropped.sum() == m.n_dropped > 0
    assert np.all(_numbers(r["hat"])[dropped] == 0)          # R's hatvalues pads 0
    assert m.hatvalues()[dropped].isna().all()               # ubreg: NaN, as hat_values did
    assert m.dfbeta()[dropped].isna().all().all()
    assert m.influence_measures().is_inf[dropped].isna().all().all()


def test_rows_of_weight_zero_are_left_out_as_r_does():
    m = _fit("weighted_int")
    assert len(m.hatvalues()) == np.count_nonzero(PW.loc[m.index, "w_int"]) == m.nobs
    assert (m.hatvalues().index == m.index[m.weights > 0]).all()


def test_frequency_weights_give_the_numbers_of_prior_weights():
    prior = _fit("weighted_int")
    freq = ubreg.fit(FITS["weighted_int"][0], PW, freq_weights="w_int")
    pd.testing.assert_series_equal(freq.rstudent(), prior.rstudent(), rtol=1e-9)
    pd.testing.assert_frame_equal(freq.influence_measures().infmat,
                                  prior.influence_measures().infmat, rtol=1e-8)


def test_hat_values_is_the_older_name_of_hatvalues():
    m = _fit("pima_numeric")
    assert type(m).hat_values is type(m).hatvalues
    assert m.hatvalues().sum() == pytest.approx(m.rank, rel=1e-12)


def test_rstandard_type_is_checked():
    with pytest.raises(ValueError, match="deviance"):
        _fit("pima_numeric").rstandard(type="working")


@pytest.mark.parametrize("index", range(len(REFERENCE["abbreviate"])))
def test_dfbetas_column_names_abbreviate_as_r(index):
    case = REFERENCE["abbreviate"][index]
    assert abbreviate(case["input"]) == case["output"]


# --- car::vif ------------------------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in FITS if "vif_error" not in CASES[c]])
def test_vif_equals_car(case):
    m, r = _fit(case), CASES[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = ubreg.vif(m)
    said = [str(w.message) for w in caught if "intercept" in str(w.message)]
    assert said == ([r["vif_warning"]] if "vif_warning" in r else [])
    if "vif" in r:                           # a term of Df > 1: car's matrix
        assert isinstance(v, pd.DataFrame)
        assert list(v.columns) == ["GVIF", "Df", "GVIF^(1/(2*Df))"]
        assert list(v.index) == r["vif"]["terms"] and list(v["Df"]) == r["vif"]["Df"]
        np.testing.assert_allclose(v["GVIF"], r["vif"]["GVIF"], rtol=1e-6)
        np.testing.assert_allclose(v["GVIF^(1/(2*Df))"], r["vif"]["GVIF_root"], rtol=1e-6)
    else:                                    # every Df = 1: car's named vector
        assert isinstance(v, pd.Series)
        assert list(v.index) == r["vif_vector"]["terms"]
        np.testing.assert_allclose(v, r["vif_vector"]["GVIF"], rtol=1e-6)


def test_vif_refuses_aliased_coefficients_as_car():
    assert "aliased coefficients" in CASES["aliased"]["vif_error"]
    with pytest.raises(UbregError, match="aliased coefficients"):
        ubreg.vif(_fit("aliased"))


def test_vif_needs_two_terms(pima):
    with pytest.raises(UbregError, match="fewer than 2 terms"):
        ubreg.vif(ubreg.fit("diabetes ~ glucose", pima))


# --- other results, other families ------------------------------------------------------
@pytest.mark.parametrize("method", ["udt", pytest.param("uboost", marks=pytest.mark.slow)])
def test_a_tree_or_boosted_result_says_why_it_has_no_influence_measures(pima, method):
    m = ubreg.fit("diabetes ~ glucose + mass", pima.dropna(subset=["glucose", "mass"]),
                  method=method, **({"mstop": 5} if method == "uboost" else {}))
    for name in ("hatvalues", "cooks_distance", "rstudent", "dfbeta", "influence_measures"):
        with pytest.raises(AttributeError, match="linear fits"):
            getattr(m, name)
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        m.nonsense                                        # noqa: B018
    with pytest.raises(UbregError, match="linear fit"):
        ubreg.vif(m)


def _sherman_morrison_change(m, i):
    """R's dfbeta of row i, A⁻¹xᵢ√cᵢdᵢ/(1 − hᵢ), computed as A₍ᵢ₎⁻¹xᵢ√cᵢdᵢ with A₍ᵢ₎ the
    Hessian Σ cⱼxⱼxⱼᵀ of the other rows (cⱼ = wⱼℓ''ⱼ, dᵢ the deviance residual): the
    one-step leave-one-out change of the fit with dᵢ in place of the score residual."""
    X = m.model_matrix
    c = m.weights * m.family.hessian(m.y, m.eta)
    keep = np.arange(len(c)) != i
    A_i = (X[keep] * c[keep, None]).T @ X[keep]
    return np.linalg.solve(A_i, X[i] * np.sqrt(c[i]) * m.residuals("deviance").iloc[i])


@pytest.mark.parametrize("family", ["matsushita", "gini", "logcosh", "entropy2",
                                    "exponential"])
def test_other_families_shapes_and_identities(pima, family):
    fam = ubreg.Exponential() if family == "exponential" else family
    data = pima.dropna(subset=["glucose", "mass", "age"])
    m = ubreg.fit("diabetes ~ glucose + mass + age", data, family=fam)
    n, k = len(m.y), m.rank
    h = m.hatvalues()
    assert h.shape == (n,) and h.sum() == pytest.approx(k, rel=1e-9)
    assert ((h >= 0) & (h <= 1)).all()
    # the Pearson residual is ±inf where gini's p̂ leaves (0, 1) and NaN on a saturated
    # row of logcosh (p̂ exactly 0 or 1): the measures that read it are NaN there (R's
    # is.infinite -> NaN), the others finite
    pearson = np.isfinite(m.residuals("pearson").to_numpy())
    assert pearson.all() == (family not in ("gini", "logcosh"))
    assert np.isfinite(m.rstandard()).all()
    for s in (m.cooks_distance(), m.rstandard("pearson"), m.rstudent()):
        assert s.shape == (n,)
        assert np.isfinite(s[pearson]).all() and s[~pearson].isna().all()
    db, dbs = m.dfbeta(), m.dfbetas()
    assert db.shape == dbs.shape == (n, k) and np.isfinite(dbs.to_numpy()).all()
    for i in (0, int(np.argmax(h)), n // 2):
        np.testing.assert_allclose(db.iloc[i], _sherman_morrison_change(m, i),
                                   rtol=1e-7, atol=1e-12 * np.abs(db.to_numpy()).max())
    r = m.residuals("pearson").to_numpy()
    np.testing.assert_allclose(m.cooks_distance()[pearson], ((r / (1 - h)) ** 2 * h / k)[pearson],
                               rtol=1e-10)
    im = m.influence_measures()
    assert im.infmat.shape == im.is_inf.shape == (n, k + 4)


@pytest.mark.parametrize("column", ["I(lwt * 1e-200)", "I(lwt * 1e200)", "lwt_3e7"])
def test_measures_do_not_depend_on_a_columns_unit_or_origin(column):
    # a column fitted in a power-of-two unit or centred (docs/inference.md, aliased
    # coefficients): the slopes' dfbetas and every row measure are those of lwt itself
    data = pd.read_csv(FIXTURES / "data" / "birthwt_shifted.csv")
    base = ubreg.fit("low ~ age + lwt", data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # vcov leaves the doubles (1e±200)
        m = ubreg.fit(f"low ~ age + {column}", data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        im, im0 = m.influence_measures().infmat, base.influence_measures().infmat
    np.testing.assert_allclose(im.iloc[:, 1:], im0.iloc[:, 1:], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.rstudent(), base.rstudent(), rtol=1e-10)
