"""scikit-learn estimators over ubreg's methods, generated from their option schemas.

``ULSClassifier``, ``UDTClassifier``, ``UBoostClassifier``, ``TBoostClassifier``,
``GNNBClassifier`` and ``UNNClassifier`` follow scikit-learn's estimator contract
(``fit(X, y, sample_weight=None)``, ``predict``, ``predict_proba``,
``decision_function``, ``classes_``, ``n_features_in_``, ``feature_names_in_``,
``get_params``/``set_params``, ``clone``, ``score``), so they work in ``Pipeline``,
``GridSearchCV`` and ``cross_val_score``.  Their parameters are ``family`` (where the
method takes one) and every option of the method's schema
(:mod:`ubreg.methods.schema`), with the same names and defaults as
:func:`ubreg.fit`'s options.  Each is a thin wrapper: it names the columns of ``X``
(a DataFrame's own names, as R names them, else ``x0``, ``x1``, …), writes the formula
``y ~ x0 + x1 + …`` and calls :func:`ubreg.fit`; the fitted ubreg result is
``model_``, with its ``summary()``.  ``sample_weight`` are R's prior weights
(``weights=``): a fit does not depend on their scale, and size limits (``min_split``,
``min_leaf``) count rows, as scikit-learn's trees count samples; GNNB and UNN, whose
Algorithm 1 has no example weights, take integer ones as frequency weights
(``freq_weights=``: a row repeated).

On two classes ``classes_[1]`` is the positive class, as in R.  ULS (linear), UDT (rpart's
tree of K classes), U-Boost (trees), GNNB and UNN take any number of classes; t-AdaBoost
and ULS with weak learners two.  This module imports scikit-learn, which
``import ubreg`` does not (``pip install scikit-learn``).
"""
from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .methods.fit import fit as ubreg_fit
from .methods.registry import METHODS
from .methods.schema import Option, Schema
from .methods.uls import BOOSTED_OPTIONS

__all__ = ["ULSClassifier", "UDTClassifier", "UBoostClassifier", "TBoostClassifier",
           "GNNBClassifier", "UNNClassifier", "estimator_parameters"]

_RESPONSE = ".ubreg_y"


_SYNTACTIC = re.compile(r"(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*|\.")
_RESERVED = {"if", "else", "repeat", "while", "function", "for", "in", "next", "break",
             "TRUE", "FALSE", "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_",
             "NA_complex_", "NA_character_"}


def _r_name(name: str) -> str:
    """A DataFrame column as an R formula names it: as it is when it is a syntactic
    name, else between backticks (R's rule, as ``make.names`` would not)."""
    return name if _SYNTACTIC.fullmatch(name) and name not in _RESERVED else f"`{name}`"


class _UbregClassifier(ClassifierMixin, BaseEstimator):
    """The shared machinery: X and y to a formula fit, and back."""

    _method = ""
    _binary = True
    _family_param = True
    #: sample_weight as frequency weights (a row repeated; GNNB's Algorithm 1 has no example
    #: weights) rather than R's prior weights (scale-free, rows counted as rows)
    _weights_repeat_rows = False

    def _options(self) -> dict:
        """The ubreg.fit options of this estimator: its parameters (but ``family``) that
        the method's schema takes given the others (uls's learner)."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "family"}
        names = METHODS[self._method].schema_for(params).names(on_dask=False, public=True)
        return {k: v for k, v in params.items() if k in names}

    def _names(self, n_features: int) -> list[str]:
        """The columns' names: a DataFrame's own (scikit-learn's ``feature_names_in_``),
        when none holds a backtick, else ``x0``, ``x1``, …"""
        names = getattr(self, "feature_names_in_", None)
        if names is not None and all("`" not in n and "\n" not in n and n != _RESPONSE
                                     for n in names):
            return [str(n) for n in names]
        return [f"x{j}" for j in range(n_features)]

    def _frame(self, X) -> pd.DataFrame:
        return pd.DataFrame(np.asarray(X, dtype=np.float64), columns=self._names(X.shape[1]))

    def _formula(self, n_features: int) -> str:
        return f"{_RESPONSE} ~ " + " + ".join(map(_r_name, self._names(n_features)))

    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (n_samples, n_features) and labels ``y``."""
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2,
                             ensure_all_finite=self._nan_finite())
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
        if weights is not None and self._weights_repeat_rows \
                and not np.all(weights == np.round(weights)):
            raise ValueError(f"{type(self).__name__} takes integer sample weights (each row "
                             "repeated by its weight: Algorithm 1 has no example weights)")
        family = self.family if self._family_param else None
        prior, freq = (None, weights) if self._weights_repeat_rows else (weights, None)
        options = self._options()
        if self._weights_repeat_rows:
            rows = len(y) if weights is None else int(weights.sum())
            options["k"] = self.k_ = _neighbours(options["k"], rows, type(self).__name__)
        self.model_ = ubreg_fit(self._formula(X.shape[1]), data, family=family,
                                method=self._method, weights=prior, freq_weights=freq,
                                **options)
        return self

    def _scores(self, X, type: str):
        check_is_fitted(self, "model_")
        X = validate_data(self, X, dtype=np.float64, reset=False,
                          ensure_all_finite=self._nan_finite())
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

    #: whether the fit keeps rows with NaN in X and routes them (UDT's surrogates, U-Boost's
    #: and t-AdaBoost's trees and stumps: ``Method.keeps_missing``)
    _allow_nan = False

    def _nan_finite(self):
        """scikit-learn's ``ensure_all_finite``: NaN allowed where the method routes it."""
        return "allow-nan" if self._allow_nan else True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary
        tags.input_tags.allow_nan = bool(self._allow_nan)
        return tags


def _neighbours(k, rows: int, name: str):
    """The k of a fit on ``rows`` training rows: k itself when it is smaller, else
    ``rows − 1`` (every other row a neighbour) with a warning, as scikit-learn's
    ``LocalOutlierFactor`` does; ``ubreg.fit`` itself refuses k ≥ rows."""
    if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 1 <= rows - 1 < k + 1:
        warnings.warn(f"{name}: k = {k} but only {rows} training rows; k = {rows - 1} is used "
                      "(every other row a neighbour)", UserWarning, stacklevel=3)
        return rows - 1
    return k


def _init(parameters: list[tuple[str, object]]):
    """An ``__init__`` taking ``parameters`` (name, default) as keywords, as scikit-learn
    reads them (its signature lists them; the values are stored unchanged)."""
    def __init__(self, **params):
        unknown = [k for k in params if k not in dict(parameters)]
        if unknown:
            raise TypeError(f"{type(self).__name__} got unexpected parameters {unknown}")
        for name, default in parameters:
            setattr(self, name, params.get(name, default))

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [self_param, *(inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
                       for n, d in parameters)])
    return __init__


def estimator_parameters(schemas: list[Schema], family: str | None) -> list[Option]:
    """The options an estimator takes: each public in-memory option of ``schemas`` once
    (the first declaration of a name shared by two of them)."""
    out: dict[str, Option] = {}
    for schema in schemas:
        for option in schema:
            if option.public and option.where != "dask" and option.name not in out:
                out[option.name] = option
    return list(out.values())


def _estimator(name: str, method: str, summary: str, schemas: list[Schema],
               family: str | None, family_help: str = "any permissible family",
               **attributes) -> type:
    """A :class:`_UbregClassifier` for ``method``: ``family`` (its default, or None for a
    method that takes no family) and every option of ``schemas``."""
    options = estimator_parameters(schemas, family)
    parameters = ([("family", family)] if family is not None else []) + [
        (o.name, o.default) for o in options]
    lines = [summary, "", "Parameters", "----------"]
    if family is not None:
        lines += ["family : str or Family, default " + repr(family),
                  f"    The loss ({family_help}; :func:`ubreg.fit`'s ``family=``)."]
    for o in options:
        lines += [f"{o.name} : {o.type_text()}, default {o.default!r}", f"    {_rst(o.help)}"]
    return type(name, (_UbregClassifier,), {
        "__init__": _init(parameters), "__doc__": "\n".join(lines), "__module__": __name__,
        "_method": method, "_family_param": family is not None, **attributes})


def _rst(text: str) -> str:
    """Help text as reStructuredText reads it literally (``|δ|`` is no substitution,
    ``GNNB*`` no emphasis)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def _options_of(method: str) -> list[Schema]:
    return [METHODS[method].schema_for({})]


ULSClassifier = _estimator(
    "ULSClassifier", "uls", "ULS over the columns of X (paper 000 Algorithm 1): with "
    "``family=\"entropy\"``, logistic regression without penalty (the multinomial logit on "
    "more than two classes); ``learner=\"stumps\"|\"rules\"|\"trees\"`` boosts weak "
    "learners instead (two classes).",
    [METHODS["uls"].schema_for({}), BOOSTED_OPTIONS], "entropy",
    _binary=property(lambda self: self.learner != "linear"))
UDTClassifier = _estimator(
    "UDTClassifier", "udt", "A UDT tree (paper 000 Algorithm 3) with rpart's controls: "
    "``family=\"gini\"`` is CART, ``\"entropy\"`` C4.5, ``\"matsushita\"`` "
    "Kearns–Mansour; on more than two classes rpart's tree of K classes (gini or "
    "entropy).", _options_of("udt"), "gini", _binary=False, _allow_nan=True)
UBoostClassifier = _estimator(
    "UBoostClassifier", "uboost", "U-Boost (paper 003 §4.4): Newton boosting of ``learner`` "
    "under the U-loss ``family``; on more than two classes, K trees a round on the "
    "multinomial loss (entropy, trees or stumps).", _options_of("uboost"), "entropy",
    "any family: a U-loss, ``ubreg.U(name)``, ``ubreg.U_alpha(alpha)``, "
    "``ubreg.U_custom(d1, d2)``, or a permissible family (``\"entropy\"`` is the logistic U)",
    _binary=property(lambda self: self.learner == "linear"),
    # the linear base-learner leaves rows with NaN out (na.omit): no prediction for them
    _allow_nan=property(lambda self: self.learner != "linear"))
TBoostClassifier = _estimator(
    "TBoostClassifier", "tboost", "t-AdaBoost (paper 004): boosting with tempered weights, "
    "temperature t of ``family``.", _options_of("tboost"), "tempered",
    "``ubreg.TemperedExponential(t)``, or ``\"tempered\"`` and "
    "``Permissible(\"tempered\", t=...)`` for the loss of the same t (default 0.5)",
    _allow_nan=True)
GNNBClassifier = _estimator(
    "GNNBClassifier", "gnnb", "Gentle nearest-neighbour boosting (paper 002, Algorithm 1), "
    "any number of classes (one-vs-rest).", _options_of("gnnb"), "entropy", _binary=False,
    _weights_repeat_rows=True)
UNNClassifier = _estimator(
    "UNNClassifier", "unn", "UNN (the exact-step baseline of paper 002), any number of "
    "classes.", _options_of("unn"), "entropy", _binary=False, _weights_repeat_rows=True)
