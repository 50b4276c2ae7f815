"""scikit-learn estimators over ubreg's fitters.

``ULSClassifier``, ``UDTClassifier``, ``UBoostClassifier``, ``TBoostClassifier``,
``GNNBClassifier`` and ``UNNClassifier`` follow scikit-learn's estimator contract
(``fit(X, y, sample_weight=None)``, ``predict``, ``predict_proba``,
``decision_function``, ``classes_``, ``n_features_in_``, ``feature_names_in_``,
``get_params``/``set_params``, ``clone``, ``score``), so they work in ``Pipeline``,
``GridSearchCV`` and ``cross_val_score``.  Each is a thin wrapper: it names the
columns of ``X`` (``x0``, ``x1``, … or the DataFrame's own names), writes the
formula ``y ~ x0 + x1 + …`` and calls :func:`ubreg.fit` with the method and the
estimator's parameters as options; the fitted ubreg result is ``model_``, with its
``summary()``.  ``sample_weight`` are R's prior weights (``weights=``): a fit does not
depend on their scale, and size limits (``min_split``, ``min_leaf``) count rows, as
scikit-learn's trees count samples; GNNB and UNN, whose Algorithm 1 has no example
weights, take integer ones as frequency weights (``freq_weights=``: a row repeated).

ULS, UDT, U-Boost and t-AdaBoost classify two classes (``classes_[1]`` is the
positive class, as in R); GNNB and UNN any number.  This module imports
scikit-learn, which ``import ubreg`` does not (``pip install scikit-learn``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .methods.fit import fit as ubreg_fit

__all__ = ["ULSClassifier", "UDTClassifier", "UBoostClassifier", "TBoostClassifier",
           "GNNBClassifier", "UNNClassifier"]

_RESPONSE = ".ubreg_y"


class _UbregClassifier(ClassifierMixin, BaseEstimator):
    """The shared machinery: X and y to a formula fit, and back."""

    _method = ""
    _binary = True
    _family_param = True
    #: sample_weight as frequency weights (a row repeated; GNNB's Algorithm 1 has no example
    #: weights) rather than R's prior weights (scale-free, rows counted as rows)
    _weights_repeat_rows = False
    #: scikit-learn estimator checks this estimator fails, with the reason (none)
    expected_failed_checks: dict = {}

    def _options(self) -> dict:
        """The ubreg.fit options of this estimator: its parameters but ``family``."""
        return {k: v for k, v in self.get_params(deep=False).items() if k != "family"}

    def _frame(self, X) -> pd.DataFrame:
        names = [f"x{j}" for j in range(X.shape[1])]
        return pd.DataFrame(np.asarray(X, dtype=np.float64), columns=names)

    def _formula(self, n_features: int) -> str:
        return f"{_RESPONSE} ~ " + " + ".join(f"x{j}" for j in range(n_features))

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n_samples, n_features) and labels ``y``."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes in y, got "
                             f"only one ({self.classes_[0]!r})")
        if self._binary and len(self.classes_) > 2:
            raise ValueError(f"Only binary classification is supported. {type(self).__name__} "
                             f"classifies two classes; y has {len(self.classes_)} "
                             f"({list(self.classes_)[:10]})")
        data = self._frame(X).assign(**{_RESPONSE: codes})
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if weights is not None and weights.shape != (len(y),):
            raise ValueError(f"sample_weight has shape {weights.shape}, expected ({len(y)},)")
        family = self.family if self._family_param else None
        prior, freq = (None, weights) if self._weights_repeat_rows else (weights, None)
        self.model_ = ubreg_fit(self._formula(X.shape[1]), data, family=family,
                                method=self._method, weights=prior, freq_weights=freq,
                                **self._options())
        return self

    def _scores(self, X, type: str):
        check_is_fitted(self, "model_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.model_.predict(self._frame(X), type=type)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, one column per entry of ``classes_``."""
        p = self._scores(X, "response")
        if isinstance(p, pd.DataFrame):
            return p.to_numpy(dtype=np.float64)
        p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X) -> np.ndarray:
        """The method's score: the link η for two classes (positive means
        ``classes_[1]``), one column per class otherwise."""
        h = self._scores(X, "link")
        if not isinstance(h, pd.DataFrame):
            return np.asarray(h, dtype=np.float64)
        h = h.to_numpy(dtype=np.float64)
        # two classes, one-vs-rest: positive for classes_[1], as scikit-learn expects
        return h[:, 1] - h[:, 0] if h.shape[1] == 2 else h

    def predict(self, X) -> np.ndarray:
        """The class of largest probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary
        return tags


class ULSClassifier(_UbregClassifier):
    """ULS over the columns of X (paper 000 Algorithm 1): with ``family="entropy"``,
    logistic regression without penalty.  ``learner="stumps"|"rules"|"trees"`` boosts
    weak learners instead (``rounds``).  See :func:`ubreg.fit` for the options."""

    _method = "uls"

    def __init__(self, family="entropy", learner="linear", solver="corrective", tol=1e-10,
                 maxiter=None, rounds=100):
        self.family = family
        self.learner = learner
        self.solver = solver
        self.tol = tol
        self.maxiter = maxiter
        self.rounds = rounds

    def _options(self) -> dict:
        if self.learner == "linear":
            return {"learner": "linear", "solver": self.solver, "tol": self.tol,
                    "maxiter": self.maxiter}
        return {"learner": self.learner, "rounds": self.rounds}


class UDTClassifier(_UbregClassifier):
    """A UDT tree (paper 000 Algorithm 3) with rpart's controls: ``family="gini"`` is
    CART, ``"entropy"`` C4.5, ``"matsushita"`` Kearns–Mansour."""

    _method = "udt"

    def __init__(self, family="gini", min_split=20, min_leaf=7, max_depth=30, cp=0.01,
                 xval=0, seed=0):
        self.family = family
        self.min_split = min_split
        self.min_leaf = min_leaf
        self.max_depth = max_depth
        self.cp = cp
        self.xval = xval
        self.seed = seed


class UBoostClassifier(_UbregClassifier):
    """U-Boost (paper 003 §4.4): Newton boosting of ``learner`` under the loss ``U``."""

    _method = "uboost"
    _family_param = False

    def __init__(self, U="logistic", learner="trees", depth=3, mstop=100, nu=0.1,
                 max_bins=255):
        self.U = U
        self.learner = learner
        self.depth = depth
        self.mstop = mstop
        self.nu = nu
        self.max_bins = max_bins


class TBoostClassifier(_UbregClassifier):
    """t-AdaBoost (paper 004): boosting with tempered weights, temperature ``t``.

    On perfectly separated training data no round can be taken (the tempered
    weights vanish after the first update, docs/tempered.md §2.5) and ``fit``
    raises :class:`~ubreg.errors.DataError`; scikit-learn's checks that fit such
    data are listed in :attr:`expected_failed_checks`.
    """

    _method = "tboost"
    _family_param = False
    #: scikit-learn estimator checks this estimator fails, with the reason
    expected_failed_checks = {name: (
        "t-AdaBoost cannot take a round on perfectly separated training data: the tempered "
        "weights vanish after the first update (docs/tempered.md §2.5)") for name in (
        "check_sample_weight_equivalence_on_dense_data", "check_pipeline_consistency",
        "check_estimators_pickle", "check_classifiers_classes", "check_fit2d_1feature")}

    def __init__(self, t=0.5, rounds=20, learner="trees", max_size=5, seed=0):
        self.t = t
        self.rounds = rounds
        self.learner = learner
        self.max_size = max_size
        self.seed = seed


class GNNBClassifier(_UbregClassifier):
    """Gentle nearest-neighbour boosting (paper 002, Algorithm 1), any number of
    classes (one-vs-rest)."""

    _method = "gnnb"
    _binary = False
    _weights_repeat_rows = True

    def __init__(self, family="entropy", k=10, epsilon=0.5, chooser="sequential",
                 standardize=True):
        self.family = family
        self.k = k
        self.epsilon = epsilon
        self.chooser = chooser
        self.standardize = standardize

    def fit(self, X, y, sample_weight=None):
        if sample_weight is not None:
            weights = np.asarray(sample_weight, dtype=np.float64)
            if not np.all(weights == np.round(weights)):
                raise ValueError("GNNB takes integer sample weights (each row repeated by "
                                 "its weight: Algorithm 1 has no example weights)")
        return super().fit(X, y, sample_weight)


class UNNClassifier(GNNBClassifier):
    """UNN (the exact-step baseline of paper 002), any number of classes."""

    _method = "unn"

    def __init__(self, family="entropy", k=10, standardize=True):
        self.family = family
        self.k = k
        self.standardize = standardize
