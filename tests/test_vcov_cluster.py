"""Cluster-robust covariances: ``m.vcov(cluster=...)`` is R's ``sandwich::vcovCL``.

Reference numbers: tests/fixtures/glm_vcovcl.json, written by glm_vcovcl.R (R 4.2.2,
sandwich 3.0-2, lmtest 0.9-40): one cluster (HC0 = R's default for a glm, HC1, HC2,
HC3), two-way, a fit with ``subset``, prior weights and frequency weights (R: the rows
repeated).  1e-6 relative unless stated; R's glm computes its weights one iteration
before the end, so its covariances agree with an exact optimum's to about 1e-7.
"""
from __future__ import annotations

import copy
import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from scipy.linalg import fractional_matrix_power

import ubreg

HERE = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((HERE / "glm_vcovcl.json").read_text())
FORMULA = "diabetes ~ glucose + mass + age + pedigree"


def _pima() -> pd.DataFrame:
    d = pd.read_csv(HERE / "data" / "pima_indians_diabetes2.csv")
    d["ageband"] = d["age"] // 10
    return d


DATA = _pima()
WEIGHTED = pd.read_csv(HERE / "data" / "pima_weights.csv")


@pytest.fixture(scope="module")
def pima():
    return ubreg.fit(FORMULA, DATA)


def _close(V, V_r, scale=None, rtol=1e-6):
    """|V − V_R| ≤ rtol·√(sᵢsⱼ), s the diagonal of ``scale`` (R's V by default)."""
    V_r = np.asarray(V_r, dtype=float)
    s = np.abs(np.diag(V_r if scale is None else scale))
    np.testing.assert_array_less(np.abs(np.asarray(V) - V_r), rtol * np.sqrt(np.outer(s, s)))


# ---- agreement with R ------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["HC0", "HC1", "HC2", "HC3"])
def test_one_cluster_equals_vcovcl(pima, kind):
    _close(pima.vcov(kind, cluster="pregnant"), R["one"][kind])


def test_default_type_is_r_default_for_a_glm_hc0(pima):
    V = pima.vcov(cluster="pregnant").to_numpy()
    _close(V, R["one"]["default"])
    np.testing.assert_array_equal(V, pima.vcov("HC0", cluster="pregnant").to_numpy())
    np.testing.assert_array_equal(V, pima.vcov("robust", cluster="pregnant").to_numpy())


@pytest.mark.parametrize("kind", ["HC0", "HC1", "HC2", "HC3"])
def test_two_way_equals_vcovcl(pima, kind):
    # inclusion–exclusion: the variance of mass is a small difference of large terms (R's
    # is −5.7e-6, not positive semi-definite, as R gives it with fix = FALSE), so the
    # scale is that of the one-way terms
    scale = (pima.vcov(kind, cluster="pregnant").to_numpy()
             + pima.vcov(kind, cluster="ageband").to_numpy())
    _close(pima.vcov(kind, cluster=["pregnant", "ageband"]), R["two"][kind], scale)


def test_subset_fit_reads_the_cluster_of_its_rows():
    m = ubreg.fit(FORMULA, DATA, subset=DATA["age"] > 25)
    np.testing.assert_allclose(m.coef, R["subset"]["coef"], rtol=1e-8)
    for kind in ("HC0", "HC1"):
        _close(m.vcov(kind, cluster="ageband"), R["subset"][kind])


@pytest.mark.parametrize("kind", ["HC0", "HC1", "HC2", "HC3"])
def test_prior_weights_equal_r_without_the_zero_weight_rows(kind):
    # R counts rows of weight 0 in n (and their clusters in G); ubreg leaves them out,
    # as its HC0 does: R's fit on the rows of non-zero weight is the reference
    m = ubreg.fit(FORMULA, WEIGHTED, weights="w_frac")
    np.testing.assert_allclose(m.coef, R["prior"]["coef"], rtol=1e-8)
    _close(m.vcov(kind, cluster="pregnant"), R["prior"][kind])


@pytest.mark.parametrize("kind", ["HC0", "HC1"])
def test_frequency_weights_equal_r_on_the_rows_repeated(kind):
    m = ubreg.fit(FORMULA, WEIGHTED, freq_weights="w_int")
    np.testing.assert_allclose(m.coef, R["expanded"]["coef"], rtol=1e-8)
    _close(m.vcov(kind, cluster="pregnant"), R["expanded"][kind])


def test_summary_equals_coeftest_with_vcovcl(pima):
    s = pima.summary(cluster="pregnant")
    f = s.frame()
    order = [pima.coef.index.get_loc(n) for n in f.index]
    ref = {k: np.asarray(v)[order] for k, v in R["coeftest"].items()}
    np.testing.assert_allclose(f["Std. Error"], ref["se"], rtol=1e-6)
    np.testing.assert_allclose(f["z value"], ref["z"], rtol=1e-6)
    np.testing.assert_allclose(f["Pr(>|z|)"], ref["p"], rtol=1e-5)
    assert "cluster-robust HC0" in f.attrs["covariance"]
    assert "pregnant, G = 17" in str(s)
    assert "pregnant, G = 17" in s.html()


# ---- every place that takes a covariance takes a cluster ----------------------------------
def test_tables_intervals_and_predictions_use_the_cluster_covariance(pima):
    V = pima.vcov("HC1", cluster="pregnant")
    se = np.sqrt(np.diag(V))
    t = pima.coef_table("HC1", cluster="pregnant")
    np.testing.assert_allclose(t["std_error"], se, rtol=1e-12)
    np.testing.assert_allclose(pima.coef_table(cov="HC1", cluster="pregnant")["z"], t["z"])
    ci = pima.conf_int(0.9, "HC1", cluster="pregnant")
    q = stats.norm.ppf(0.95)
    np.testing.assert_allclose(ci.iloc[:, 1], pima.coef + q * se, rtol=1e-12)
    assert "HC1" in pima.summary("HC1", cluster="pregnant").covariance()
    p = pima.predict(type="link", se_fit=True, vcov="HC1", cluster="pregnant")
    X = pima.model_matrix
    np.testing.assert_allclose(p["se_fit"], np.sqrt(np.einsum("ij,jk,ik->i", X, V, X)),
                               rtol=1e-10)
    new = DATA.iloc[:5]
    p_new = pima.predict(new, se_fit=True, interval="confidence", cluster="pregnant")
    assert p_new.shape == (5, 4) and np.all(p_new["lower"] < p_new["upper"])


def test_labels_as_arrays_equal_the_column(pima):
    V = pima.vcov(cluster="pregnant").to_numpy()
    full = DATA["pregnant"].to_numpy()                    # one per data row
    train = DATA.loc[pima.index, "pregnant"].to_numpy()   # one per training row
    np.testing.assert_array_equal(pima.vcov(cluster=full).to_numpy(), V)
    np.testing.assert_array_equal(pima.vcov(cluster=train).to_numpy(), V)
    relabelled = np.array([f"c{v}" for v in train])        # other names, other order
    np.testing.assert_allclose(pima.vcov(cluster=relabelled).to_numpy(), V, rtol=1e-12)
    two = pima.vcov(cluster=DATA[["pregnant", "ageband"]]).to_numpy()
    np.testing.assert_array_equal(two, pima.vcov(cluster=("pregnant", "ageband")).to_numpy())


# ---- identities for every family ----------------------------------------------------------
@pytest.mark.parametrize("family", ["entropy", "matsushita", "logcosh", "gini"])
def test_one_cluster_per_row_is_the_fit_hc_covariance(family):
    # vcovCL with a cluster per row: HC0 · G/(G − 1), HC1 the HC1, HC2/HC3 vcovHC's
    m = ubreg.fit(FORMULA, DATA, family=family)
    n = len(m.y)
    rows = np.arange(n)
    np.testing.assert_allclose(m.vcov("HC0", cluster=rows), m.vcov("HC0") * n / (n - 1),
                               rtol=1e-10, atol=1e-300)
    for kind in ("HC1", "HC2", "HC3"):
        np.testing.assert_allclose(m.vcov(kind, cluster=rows), m.vcov(kind), rtol=1e-8)


@pytest.mark.parametrize("kind", ["HC2", "HC3"])
def test_hc2_hc3_with_saturated_rows_are_the_dense_matrix_powers(kind):
    # logcosh saturates rows (ℓ'' = 0) inside clusters: meatCL's formula read densely,
    # (I − X_g A⁻¹ X_gᵀ C_g)^(−a) r_g with scipy's principal matrix power
    m = ubreg.fit(FORMULA, DATA, family="logcosh")
    assert np.sum(m.family.saturated(m.eta)) > 50
    X, w = m.model_matrix, m.weights
    c, r = w * m.family.hessian(m.y, m.eta), w * m.family.gradient(m.y, m.eta)
    A_inv = np.linalg.inv(X.T @ (c[:, None] * X))
    g = DATA.loc[m.index, "pregnant"].to_numpy()
    groups = np.unique(g)
    U = np.zeros((len(groups), X.shape[1]))
    for j, label in enumerate(groups):
        Xg, rows = X[g == label], g == label
        M = np.eye(len(Xg)) - Xg @ A_inv @ Xg.T * c[rows]
        adj = (np.linalg.solve(M, r[rows]) if kind == "HC3"
               else np.real(fractional_matrix_power(M, -0.5)) @ r[rows])
        U[j] = adj @ Xg
    V = A_inv @ U.T @ U @ A_inv
    np.testing.assert_allclose(m.vcov(kind, cluster="pregnant"), V, rtol=1e-8)


@pytest.mark.parametrize("family", ["entropy", "matsushita"])
def test_frequency_weights_are_the_rows_repeated_in_their_cluster(family):
    w = WEIGHTED["w_int"].to_numpy()
    expanded = WEIGHTED.loc[WEIGHTED.index.repeat(w)].reset_index(drop=True)
    freq = ubreg.fit(FORMULA, WEIGHTED, family=family, freq_weights="w_int")
    rep = ubreg.fit(FORMULA, expanded, family=family)
    for kind in ("HC0", "HC1"):
        np.testing.assert_allclose(freq.vcov(kind, cluster="pregnant"),
                                   rep.vcov(kind, cluster="pregnant"), rtol=1e-7)
    # a cluster per input row: its copies together
    ids = np.arange(len(WEIGHTED))
    np.testing.assert_allclose(freq.vcov(cluster=ids),
                               rep.vcov(cluster=np.repeat(ids, w)[rep.index]), rtol=1e-7)


# ---- bad input -------------------------------------------------------------------------
@pytest.mark.parametrize("cluster, message", [
    ("nope", "'nope' is not a column"),
    (np.arange(10), "has 10 labels"),
    (np.zeros(768), "1 cluster"),
    (["pregnant", "nope"], "'nope' is not a column"),
])
def test_bad_clusters_are_named(pima, cluster, message):
    with pytest.raises(ValueError, match=message):
        pima.vcov(cluster=cluster)


def test_missing_labels_are_refused(pima):
    labels = DATA["pregnant"].to_numpy(dtype=float)
    labels[pima.index[3]] = np.nan
    with pytest.raises(ValueError, match="1 missing label"):
        pima.vcov(cluster=labels)
    d = DATA.copy()
    d["g"] = d["pregnant"].where(d["age"] < 60)
    with pytest.raises(ValueError, match="cluster 'g' has .* missing"):
        ubreg.fit(FORMULA, d).summary(cluster="g")


def test_a_model_covariance_is_not_clustered_and_freq_hc2_is_refused(pima):
    with pytest.raises(ValueError, match="type must be 'HC0'"):
        pima.vcov("model", cluster="pregnant")
    freq = ubreg.fit(FORMULA, WEIGHTED, freq_weights="w_int")
    with pytest.raises(ValueError, match="frequency weights"):
        freq.vcov("HC2", cluster="pregnant")


def test_results_without_their_data_or_rows_say_so(pima):
    lost = copy.copy(pima)
    lost.provenance = None
    with pytest.raises(ValueError, match="does not keep"):
        lost.vcov(cluster="pregnant")
    assert lost.vcov(cluster=DATA.loc[pima.index, "pregnant"]).shape == (5, 5)
    dask_like = copy.copy(pima)
    dask_like._X = None                     # a fit of a Dask frame holds no rows
    with pytest.raises(ValueError, match="Dask"):
        dask_like.vcov(cluster="pregnant")


# ---- coverage ----------------------------------------------------------------------------
def _coverage(seed: int, reps: int, G: int, m: int, rho: float) -> tuple[float, float]:
    """Coverage of the 95% Wald interval of a cluster-level slope, cluster-robust (HC0)
    and model-based.  y = 1{ε < −0.5 + 0.7 z_g + 0.5 x}: ε is logistic for each row (so
    the logistic model holds at the row level, the slope of z is 0.7) but correlated
    within a cluster (a Gaussian copula of correlation rho)."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(G), m)
    q = stats.norm.ppf(0.975)
    hits = np.zeros(2)
    for _ in range(reps):
        z = rng.normal(size=G)[g]
        x = rng.normal(size=G * m)
        e = np.sqrt(rho) * rng.normal(size=G)[g] + np.sqrt(1 - rho) * rng.normal(size=G * m)
        y = (special.logit(stats.norm.cdf(e)) < -0.5 + 0.7 * z + 0.5 * x).astype(float)
        fit = ubreg.fit("y ~ z + x", pd.DataFrame({"y": y, "z": z, "x": x, "g": g}),
                        trusted=True)
        b = fit.coef["z"]
        se = np.sqrt([fit.vcov(cluster="g").loc["z", "z"], fit.vcov("model").loc["z", "z"]])
        hits += np.abs(b - 0.7) < q * se
    return hits[0] / reps, hits[1] / reps


@pytest.mark.slow
def test_cluster_robust_intervals_hold_their_level_where_the_model_ones_do_not():
    clustered, model = _coverage(seed=0, reps=300, G=80, m=12, rho=0.4)
    assert clustered > 0.91            # 0.95 less 3 binomial standard errors
    assert model < 0.88


# ---- the other places that show standard errors -------------------------------------------
def test_confint_compare_and_report_take_the_cluster(pima, tmp_path):
    ci = pima.confint(cluster="pregnant")
    np.testing.assert_allclose(ci, pima.conf_int(cluster="pregnant"), rtol=0)
    with pytest.raises(ValueError, match="Wald interval"):
        pima.confint(method="profile", cluster="pregnant")
    other = ubreg.fit("diabetes ~ glucose + mass", DATA)
    c = ubreg.compare({"a": pima, "b": other}, cluster="pregnant")
    se = c.coefficients()[("b", "std_error")].dropna()
    np.testing.assert_allclose(se, other.coef_table(cluster="pregnant")["std_error"][se.index])
    assert "cluster-robust HC0" in str(c)


@pytest.mark.slow
def test_report_shows_cluster_robust_standard_errors(pima, tmp_path):
    path = ubreg.report({"pima": pima}, tmp_path / "r.html", cluster="pregnant")
    html = path.read_text(encoding="utf-8")
    assert "clusters: pregnant, G = 17" in html
    assert "cluster-robust HC0 covariance, sandwich::vcovCL" in html
    se = f"{pima.coef_table(cluster='pregnant')['std_error']['glucose']:.6f}"
    assert se in html


@pytest.mark.slow
def test_a_fit_of_a_dask_frame_refuses_clusters_by_name():
    dd = pytest.importorskip("dask.dataframe")
    d = DATA.dropna(subset=["glucose", "mass"]).reset_index(drop=True)
    m = ubreg.fit("diabetes ~ glucose + mass", dd.from_pandas(d, npartitions=2, sort=True))
    for call in (lambda: m.vcov(cluster="pregnant"), lambda: m.summary(cluster="pregnant"),
                 lambda: m.coef_table(cluster="pregnant"),
                 lambda: m.predict(d.head(), se_fit=True, cluster="pregnant")):
        with pytest.raises(ValueError, match="Dask frame"):
            call()
