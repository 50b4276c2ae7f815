"""Issue 27 §1, the scale of prior weights: multiplying every weight by a constant does not
change a fit (R's glm, rpart and gbm are scale-free in prior weights).  Frequency weights are
counts (weight 2 is the row twice), so their scale is part of their meaning."""
import warnings

import numpy as np
import pytest

import ubreg

FORMULA = "diabetes ~ glucose + mass + age + pedigree"
SCALES = [5e-324, 1e-100, 1e-8, 1e8, 1e100, 1e300, 1e305]
METHODS = [("uls", {}), ("uls", {"learner": "stumps"}), ("udt", {"xval": 0}),
           ("uboost", {"mstop": 20})]


@pytest.fixture(scope="module")
def complete(pima):
    return pima.dropna().reset_index(drop=True)


def _predict(data, method, options, **weights):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit(FORMULA, data, method=method, **options, **weights)
    return np.asarray(m.predict(data), dtype=float)


@pytest.fixture(scope="module")
def reference():
    """``reference(complete, method, options, key)``: the predictions of the fit without
    weights (key None) or with the weights ``uniform_weights`` (key "uniform"), fitted
    once per method for the module (each scale is compared with the same fit; read only)."""
    fits = {}

    def get(data, method, options, key=None):
        name = (method, repr(sorted(options.items())), key)
        if name not in fits:
            weights = {} if key is None else {"weights": uniform_weights(data)}
            fits[name] = _predict(data, method, options, **weights)
            fits[name].flags.writeable = False
        return fits[name]
    return get


def uniform_weights(data):
    return np.random.default_rng(0).uniform(0.2, 3.0, len(data))


@pytest.mark.slow
@pytest.mark.parametrize("method, options", METHODS)
@pytest.mark.parametrize("scale", SCALES)
def test_constant_prior_weights_are_no_weights(complete, reference, method, options, scale):
    ref = reference(complete, method, options)
    got = _predict(complete, method, options, weights=np.full(len(complete), scale))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("method, options", METHODS)
@pytest.mark.parametrize("scale", [1e-100, 1e100])
def test_scaled_prior_weights_give_the_same_fit(complete, reference, method, options, scale):
    w = uniform_weights(complete)
    ref = reference(complete, method, options, "uniform")
    got = _predict(complete, method, options, weights=w * scale)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


def test_weights_whose_sum_overflows_are_refused_by_name(complete):
    # udt with every weight 1e308 raised IndexError
    for method, options in METHODS:
        with pytest.raises(ubreg.errors.DataError, match="weights add up to more than"):
            ubreg.fit(FORMULA, complete, method=method, weights=np.full(len(complete), 1e308),
                      **options)


@pytest.fixture(scope="module")
def sklearn_reference():
    """``sklearn_reference(name)``: X, y and the probabilities of the estimator ``name``
    fitted without sample_weight, once per estimator for the module (read only)."""
    pytest.importorskip("sklearn")
    import ubreg.sklearn as sk
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    X.flags.writeable = y.flags.writeable = False
    fits = {}

    def get(name):
        if name not in fits:
            fits[name] = getattr(sk, name)().fit(X, y).predict_proba(X)
            fits[name].flags.writeable = False
        return X, y, fits[name]
    return get


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ULSClassifier", "UDTClassifier", "UBoostClassifier"])
@pytest.mark.parametrize("scale", [5e-324, 1e-100, 1e100])
def test_scikit_learn_sample_weight_is_scale_free(sklearn_reference, name, scale):
    """sample_weight × 1e-100 gave UDT a root-only tree and U-Boost a constant: they were
    read as frequency weights (1e-100 of an observation).  As scikit-learn's trees count
    rows for their size limits, they are now R's prior weights."""
    import ubreg.sklearn as sk
    X, y, ref = sklearn_reference(name)
    got = getattr(sk, name)().fit(X, y, sample_weight=np.full(300, scale)).predict_proba(X)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("method, options", [("uls", {}), ("udt", {"xval": 0}),
                                             ("uboost", {"mstop": 10})])
@pytest.mark.parametrize("scale", [1e-100])
def test_constant_prior_weights_on_dask_are_no_weights(complete, method, options, scale):
    dd = pytest.importorskip("dask.dataframe")
    data = complete.assign(w=1.0)
    ref = ubreg.fit(FORMULA, dd.from_pandas(data, npartitions=2), method=method, **options)
    got = ubreg.fit(FORMULA, dd.from_pandas(data.assign(w=scale), npartitions=2),
                    method=method, weights="w", **options)
    np.testing.assert_allclose(np.asarray(got.predict(complete), float),
                               np.asarray(ref.predict(complete), float), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e300])
def test_a_tree_s_cp_table_and_complexities_do_not_depend_on_the_weights_scale(complete, scale):
    # the tree was the same, but its cp table was 1e300 off (inf at 5e-324, one row at
    # 1e300) and frame["complexity"] with it: the complexities stayed in the units of the
    # weights divided by a power of two
    ref = ubreg.fit(FORMULA, complete, method="udt", xval=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        m = ubreg.fit(FORMULA, complete, method="udt", xval=0,
                      weights=np.full(len(complete), scale))
        np.testing.assert_allclose(m.cptable.to_numpy(), ref.cptable.to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(m.frame["complexity"], ref.frame["complexity"], rtol=1e-9)
        assert m.prune(0.02).n_leaves == ref.prune(0.02).n_leaves
