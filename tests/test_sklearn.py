"""ubreg's scikit-learn estimators: scikit-learn's own estimator checks, pipelines, grid
search, and the same coefficients as ubreg.fit and as LogisticRegression."""
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import ubreg  # noqa: E402
from ubreg.sklearn import (  # noqa: E402
    GNNBClassifier,
    TBoostClassifier,
    UBoostClassifier,
    UDTClassifier,
    ULSClassifier,
    UNNClassifier,
)

ESTIMATORS = [ULSClassifier(), ULSClassifier(learner="stumps", rounds=10), UDTClassifier(),
              UBoostClassifier(mstop=10), TBoostClassifier(rounds=5), GNNBClassifier(),
              UNNClassifier()]


# Parameters a check runs with, as scikit-learn's own PER_ESTIMATOR_CHECK_PARAMS gives its
# trees: UDT's sample_weight are rpart's case weights and min_split (20) and min_leaf (7)
# count rows, so 15 weighted rows are not split where their 27 repetitions are; without
# those limits the weights must act exactly as repeated rows (3 classes in the check).
CHECK_PARAMS = {("UDTClassifier", "check_sample_weight_equivalence_on_dense_data"):
                [dict(min_split=2, min_leaf=1, family="gini"),
                 dict(min_split=2, min_leaf=1, family="entropy")]}


@pytest.mark.slow
@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_estimator_checks(estimator, check):
    params = CHECK_PARAMS.get((type(estimator).__name__, check.func.__name__), [{}])
    for values in params:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # convergence and separation on toy data
            check(estimator.set_params(**values) if values else estimator)


def test_udt_with_rpart_limits_treats_weights_as_case_weights():
    """With rpart's min_split and min_leaf, weight 2 is not the row twice (rpart's case
    weights: the limits count rows), the reason for CHECK_PARAMS above."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 2))
    y = (X[:, 0] > 0).astype(int)
    weights = np.full(15, 2.0)
    weighted = UDTClassifier(xval=0).fit(X, y, sample_weight=weights)
    repeated = UDTClassifier(xval=0).fit(np.repeat(X, 2, axis=0), np.repeat(y, 2))
    assert weighted.model_.n_leaves == 1 < repeated.model_.n_leaves


# --- in pipelines, grid search and cross-validation --------------------------------------
@pytest.fixture(scope="module")
def pima_xy(pima):
    data = pima.dropna(subset=["glucose", "mass", "age", "pedigree"])
    X = data[["glucose", "mass", "age", "pedigree"]]
    return X, data["diabetes"]


def test_uls_entropy_equals_ubreg_fit_and_logistic_regression(pima_xy):
    from sklearn.linear_model import LogisticRegression
    X, y = pima_xy
    est = ULSClassifier().fit(X, y)
    assert list(est.classes_) == ["neg", "pos"] and list(est.feature_names_in_) == list(X)
    direct = ubreg.fit("diabetes ~ glucose + mass + age + pedigree",
                       X.assign(diabetes=y))
    np.testing.assert_allclose(est.model_.coef.to_numpy(), direct.coef.to_numpy(), rtol=1e-12)
    # no penalty: C = inf (penalty=None is deprecated since scikit-learn 1.8)
    lr = LogisticRegression(C=np.inf, tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(est.model_.coef.to_numpy(), np.r_[lr.intercept_, lr.coef_[0]],
                               rtol=1e-5)
    np.testing.assert_allclose(est.predict_proba(X), lr.predict_proba(X), atol=1e-7)
    assert est.score(X, y) == pytest.approx(lr.score(X, y))


@pytest.mark.slow
def test_pipeline_grid_search_and_cross_val_score(pima_xy):
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X, y = pima_xy
    pipe = make_pipeline(StandardScaler(), UDTClassifier())
    grid = GridSearchCV(pipe, {"udtclassifier__family": ["gini", "entropy"],
                               "udtclassifier__max_depth": [2, 4]}, cv=3).fit(X, y)
    assert set(grid.best_params_) == {"udtclassifier__family", "udtclassifier__max_depth"}
    scores = cross_val_score(GNNBClassifier(k=10), X, y, cv=3)
    assert scores.shape == (3,) and (scores > 0.6).all()
    auc = cross_val_score(ULSClassifier(family="matsushita"), X, y, cv=3, scoring="roc_auc")
    assert (auc > 0.75).all()


def test_uboost_classifier_on_three_classes_is_ubreg_fits_multinomial_boosting():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 3))
    y = np.array(["lo", "mid", "hi"])[np.digitize(X[:, 0] + 0.5 * rng.normal(size=300),
                                                  [-0.5, 0.5])]
    est = UBoostClassifier(mstop=15, depth=2).fit(X, y)
    assert list(est.classes_) == ["hi", "lo", "mid"]
    proba = est.predict_proba(X)
    d = pd.DataFrame({f"x{j}": X[:, j] for j in range(3)}).assign(
        y=np.searchsorted(est.classes_, y))
    m = ubreg.fit("y ~ x0 + x1 + x2", d, method="uboost", mstop=15, depth=2)
    np.testing.assert_array_equal(proba, m.predict(d).to_numpy())
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(proba, axis=1)])
    with pytest.raises(ValueError, match="Only binary classification"):
        UBoostClassifier(learner="linear").fit(X, y)


def test_udt_classifier_on_three_classes_is_the_fit():
    iris = pd.read_csv(pathlib.Path(__file__).parent / "fixtures" / "data" / "iris.csv")
    X, y = iris.drop(columns="Species"), iris["Species"]
    clf = UDTClassifier(xval=0).fit(X, y)
    m = ubreg.fit("Species ~ .", iris, method="udt", xval=0)
    assert list(clf.classes_) == m.classes
    np.testing.assert_array_equal(clf.predict_proba(X), m.predict(type="prob").to_numpy())
    assert (clf.predict(X) == m.predict(type="class").astype(str).to_numpy()).all()
    assert (clf.classes_[clf.decision_function(X).argmax(axis=1)] == clf.predict(X)).all()


def test_udt_classifier_routes_missing_values_as_the_fit():
    # udt routes NaN by rpart's surrogates; UDTClassifier refused X with NaN
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    X[::7, 0] = np.nan
    clf = UDTClassifier(xval=0).fit(X, y)
    data = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(y=y)
    m = ubreg.fit("y ~ x0 + x1 + x2", data, method="udt", xval=0)
    np.testing.assert_array_equal(clf.predict_proba(X)[:, 1], m.predict(type="response"))
    assert clf.__sklearn_tags__().input_tags.allow_nan
