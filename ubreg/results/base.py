"""The result contract: one :class:`Result` base, declared capabilities, the predict types.

Every fitted model derives from :class:`Result` and declares, as the class
attribute ``capabilities`` (a :class:`Capabilities`), what it provides beyond
``predict`` and ``summary``.  :mod:`ubreg.evaluate`, :mod:`ubreg.plots` and
:mod:`ubreg.reporting` read that declaration (:func:`capabilities_of`) and
never probe a result for attributes.

:class:`BinaryResult` holds what the two-class results share: they know their
formula, family, response coding and design, the training link values η and
weights, and how to compute η for new data (:meth:`BinaryResult._link_for`).
Everything else — predictions on every scale, residuals, deviance,
log-likelihood, information criteria — is derived there, lazily, and
identically for every method.

Objects that are not results
    :func:`ubreg.compare`, :func:`ubreg.report`, the metrics and the plots
    also accept an object that is not a :class:`Result` (a wrapper, a model of
    one's own).  It declares nothing, so it is read as :data:`UNDECLARED`: it
    must provide ``predict(newdata=None, type="response")`` (a Series of
    P(y = 1), or a DataFrame of per-class posteriors, for the training rows
    when ``newdata`` is None), ``y`` (the training classes: 0/1, or codes
    0..C−1 in the order of the posterior columns) and ``weights`` (one per
    training row); to be scored on new data, also ``response`` (the
    :class:`~ubreg.design.Response` coding of the observed classes).  Nothing
    else of it is read: no summary, coefficients, statistics or paths.
"""
from __future__ import annotations

import abc
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._pickling import warn_if_other_version
from .._version import __version__
from ..design import Design, Response, as_frame, is_dask_frame
from ..design.update import update_formula
from ..families.base import Family
from .inference import bernoulli_loglik, deviance, null_eta

if TYPE_CHECKING:
    from ..summary.base import Summary

__all__ = ["Result", "Provenance", "BinaryResult", "Capabilities", "UNDECLARED", "capabilities_of",
           "INFLUENCE_METHODS",
           "PREDICT_TYPES", "check_predict_type", "class_series", "NO_LIKELIHOOD"]

#: the scales of ``predict(newdata, type=...)`` every result offers
PREDICT_TYPES = ("response", "link", "class")


def check_predict_type(type: str, allowed: tuple = PREDICT_TYPES) -> None:
    """Raise ``ValueError`` naming the allowed types unless ``type`` is one of them."""
    if type not in allowed:
        raise ValueError(f"type must be one of {allowed}, got {type!r}")


def class_series(levels: Sequence, codes: ArrayLike, index: pd.Index) -> pd.Series:
    """``predict(type="class")`` of every result: a Series of category dtype whose
    categories are the response's ``levels`` (in their order), from ``codes``
    (positions in ``levels``; −1 for NA)."""
    cat = pd.Categorical.from_codes(np.asarray(codes, dtype=np.int64), categories=list(levels))
    return pd.Series(cat, index=index, name="class")


def dask_dispatching(predict: Callable[..., Any]) -> Callable[..., Any]:
    """``predict`` that hands a Dask ``newdata`` to
    :func:`ubreg.results.dask_predict.predict_frame` (imported when one arrives; it
    imports dask only then).

    :class:`Result` applies it to the ``predict`` of every subclass, so every
    result predicts a ``dask.dataframe.DataFrame`` lazily, partition by
    partition, through its own in-memory ``predict`` (docs/dask.md); any other
    ``newdata`` goes to ``predict`` unchanged.
    """
    if getattr(predict, "dask_dispatching", False):
        return predict

    @functools.wraps(predict)
    def dispatch(self: Result, *args: Any, **kwargs: Any) -> Any:
        newdata = args[0] if args else kwargs.get("newdata")
        if newdata is None or not is_dask_frame(newdata):
            return predict(self, *args, **kwargs)
        from .dask_predict import predict_frame
        kwargs.pop("newdata", None)
        return predict_frame(self, newdata, *args[1:], **kwargs)

    dispatch.dask_dispatching = True        # type: ignore[attr-defined]
    return dispatch


#: why a result without a likelihood reports no AIC, BIC or residual degrees of freedom
NO_LIKELIHOOD = (
    "NaN for a result that does not declare ``Capabilities.has_likelihood`` (a tree, a "
    "boosted ensemble, a nearest-neighbour rule): it chooses its structure adaptively, so "
    "the count of leaves, rounds or features it reports is not a number of degrees of "
    "freedom, and an AIC, a BIC or a residual df built on it would mislead (U-Boost's 100 "
    "trees of depth 3 count 797 leaf values: 724 Pima rows would leave −73 residual df).")


@dataclass(frozen=True)
class Capabilities:
    """What a result provides beyond ``predict`` and ``summary``, declared by its class.

    Each flag promises an interface; :mod:`ubreg.evaluate`, :mod:`ubreg.plots`
    and :mod:`ubreg.reporting` use it only when the flag is set.

    Attributes
    ----------
    has_training_rows : bool
        ``predict()`` without ``newdata`` gives the training rows, with their
        classes ``y`` (0/1, or codes 0..C−1 for a multiclass result) and
        ``weights``: the model can be scored on its training rows.
    has_deviance : bool
        ``deviance``, ``null_deviance``, ``loglik`` (the Bernoulli
        log-likelihood of p̂), ``df_model`` and ``df_resid`` are numbers.
    has_likelihood : bool
        The fit is a parametric model of a fixed design whose parameters are
        its coefficients: ``df_model`` counts degrees of freedom, so ``aic``
        and ``bic`` are meaningful (and shown).  Whether its deviance is also
        a likelihood-ratio deviance (χ² tests) is the family's
        :attr:`~ubreg.families.base.Family.likelihood_deviance`.  A tree, a
        boosted ensemble or a nearest-neighbour rule chooses its structure
        adaptively: the count its ``df_model`` reports is not a number of
        degrees of freedom, and it does not declare this.
    has_residuals : bool
        ``residuals(type)`` for ``"deviance"``, ``"pearson"`` and ``"response"``.
    has_coefficients : bool
        ``coef`` and ``coef_table(cov=, level=)`` (estimate, std_error, z, p,
        conf_low, conf_high by term).
    has_covariance : bool
        ``vcov(kind)`` for ``"model"`` and ``"robust"`` (with coefficients).
    has_risk_path : bool
        ``risk_path``: the training risk at the start and after each
        iteration (a Series indexed by the iteration, or an array).
    has_edge_path : bool
        ``edge_path``: the largest |edge| of each iteration.
    has_cv_path : bool
        Its risk path can be cross-validated by :func:`ubreg.cv_risk`, which
        refits it on folds of its training rows (U-Boost: ``X``, ``U``,
        ``options``, ``mstop``).
    has_t_margins : bool
        ``margins(clipped=)`` and ``margin_bound(theta)``: t-margins and their
        bound (t-AdaBoost, docs/tempered.md §4).
    is_tree : bool
        ``tree``: a fitted tree (:class:`~ubreg.trees.model.Tree`) to draw.
    is_multiclass : bool
        It fits any number of classes (``classes``): with three or more,
        ``predict(type="response")`` and ``type="link"`` are DataFrames with one
        column per class; with two, Series as for every binary result.
    """

    has_training_rows: bool = False
    has_deviance: bool = False
    has_likelihood: bool = False
    has_residuals: bool = False
    has_coefficients: bool = False
    has_covariance: bool = False
    has_risk_path: bool = False
    has_edge_path: bool = False
    has_cv_path: bool = False
    has_t_margins: bool = False
    is_tree: bool = False
    is_multiclass: bool = False

    def __post_init__(self) -> None:
        # a declaration that promises an interface without the one it rests on is a bug
        needs = {"has_deviance": "has_training_rows", "has_likelihood": "has_deviance",
                 "has_residuals": "has_training_rows", "has_covariance": "has_coefficients",
                 "has_cv_path": "has_risk_path"}
        for flag, base in needs.items():
            if getattr(self, flag) and not getattr(self, base):
                raise ValueError(f"Capabilities: {flag} needs {base}")

    def declared(self) -> list[str]:
        """The names of the capabilities set, in declaration order."""
        return [f.name for f in fields(self) if getattr(self, f.name)]


#: what an object that is not a :class:`Result` is taken to provide (see the module notes)
UNDECLARED = Capabilities(has_training_rows=True)


def capabilities_of(model: object) -> Capabilities:
    """The capabilities ``model`` declares: its class's for a :class:`Result`,
    :data:`UNDECLARED` for any other object."""
    return type(model).capabilities if isinstance(model, Result) else UNDECLARED


@dataclass(frozen=True)
class Provenance:
    """How a result was made, as R's fit keeps its ``call``: the arguments
    :func:`ubreg.fit` was given, the data (by reference, not copied; left out of a
    pickle) and the function that refits them (``ubreg.fit`` itself, handed down so that
    results import no method).  :meth:`Result.update`, ``drop1``, ``add1`` and ``step``
    refit from it."""

    arguments: dict
    data: Any
    refit: Callable[..., Result]


#: the influence measures of a linear result (:mod:`ubreg.results.influence`): another
#: result's error for them says why it has none
INFLUENCE_METHODS = frozenset({"hatvalues", "hat_values", "cooks_distance", "rstandard",
                               "rstudent", "dfbeta", "dfbetas", "influence_measures"})


class Result(abc.ABC):
    """A fitted ubreg model: the base of every result.

    A subclass declares its :attr:`capabilities` and provides ``predict``,
    ``summary`` (a :class:`~ubreg.summary.base.Summary`), ``nobs`` and
    ``n_dropped``; the interfaces its capabilities promise are described by
    :class:`Capabilities`.

    Attributes
    ----------
    formula, family, method, call : the model as specified
    capabilities : Capabilities
        What the class provides beyond ``predict`` and ``summary``.
    ubreg_version : str
        The version that fitted it (pickles record it; loading one from
        another version warns).
    """

    capabilities: ClassVar[Capabilities] = Capabilities()
    method: str = "?"
    #: set by every subclass's ``__init__``
    formula: str
    family: Family
    #: how the model was made, as code (empty for a model not made by one call)
    call: str = ""
    #: cached values dropped from pickles (recomputed after loading)
    _unpickled: ClassVar[tuple] = ()
    #: how the model was made (:class:`Provenance`; None for a model not made by
    #: :func:`ubreg.fit`)
    provenance: Provenance | None = None
    #: what the weights mean, "prior" or "freq"
    weight_kind: str

    @property
    def fit_arguments(self) -> dict | None:
        """What :func:`ubreg.fit` was given (None for a model not made by it)."""
        return None if self.provenance is None else self.provenance.arguments

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "predict" in cls.__dict__:       # every predict takes Dask frames (dask_dispatching)
            cls.predict = dask_dispatching(cls.__dict__["predict"])    # type: ignore[method-assign]

    @abc.abstractmethod
    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """Predictions on one of :data:`PREDICT_TYPES` (``newdata=None``: the
        training rows, for a result that has them).

        Every subclass's ``predict`` also takes a ``dask.dataframe.DataFrame``
        as ``newdata`` (:func:`dask_dispatching`): it returns a lazy Dask Series
        (or DataFrame), the in-memory ``predict`` of each partition, with the
        same options."""

    if not TYPE_CHECKING:        # hidden from mypy, which would accept any attribute
        def __getattr__(self, name: str) -> Any:
            # only reached for a missing attribute: say why there are no influence measures
            if name in INFLUENCE_METHODS:
                raise AttributeError(f"{type(self).__name__} has no {name}(): influence "
                                     "measures (R's hatvalues, rstudent, cooks.distance, "
                                     "dfbeta, ...) are defined for linear fits "
                                     "(method='uls') only")
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def shipped(self) -> Result:
        """The result as shipped to the workers that predict a Dask frame's
        partitions: itself; a result fitted on a Dask frame leaves out its lazy
        per-row series and its training frame."""
        return self

    @abc.abstractmethod
    def summary(self) -> Summary:
        """A :class:`~ubreg.summary.base.Summary`: text, HTML and DataFrame forms."""

    @property
    @abc.abstractmethod
    def nobs(self) -> float:
        """The number of observations the fit used."""

    @property
    @abc.abstractmethod
    def n_dropped(self) -> int:
        """Rows dropped for missing values."""

    def update(self, formula: str | None = None, **changes: Any) -> Result:
        """The model refitted with a changed formula or arguments, as R's ``update``.

        Parameters
        ----------
        formula : str, optional
            R's formula update (:func:`~ubreg.design.update.update_formula`):
            ``". ~ . - age"``, ``"log(.) ~ ."``, ``"~ . + z"``; a ``.`` stands for
            the old side.
        **changes
            Arguments of :func:`ubreg.fit` to change (``family=``, ``weights=``,
            ``subset=``, method options, ...); ``data=`` refits on other data
            (by default the data of the fit, which a pickle does not keep).

        Returns
        -------
        Result
        """
        if self.provenance is None:
            raise TypeError(f"this {type(self).__name__} was not made by ubreg.fit: there is "
                            "no call to update")
        data = changes.pop("data", None)
        if data is None:
            data = self.provenance.data
        if data is None:
            raise ValueError("the data this model was fitted on are not kept in a pickle "
                             "(nor after copying): give them, update(..., data=...)")
        arguments = dict(self.provenance.arguments)
        for kind, other in (("weights", "freq_weights"), ("freq_weights", "weights")):
            if changes.get(kind) is not None:
                arguments[other] = None          # one kind of weights replaces the other
        arguments.update(changes)
        if formula is not None:
            arguments["formula"] = update_formula(arguments["formula"], formula, data.columns)
        return self.provenance.refit(data=data, **arguments)

    # ---- pickling ---------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for key in self._unpickled:
            state.pop(key, None)
        if self.provenance is not None:     # the data are the user's, not the model's
            state["provenance"] = replace(self.provenance, data=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        warn_if_other_version(state.get("ubreg_version"))
        self.__dict__.update(state)

    # ---- what only a likelihood gives ---------------------------------------
    @property
    def aic(self) -> float:
        return float("nan")

    @property
    def bic(self) -> float:
        return float("nan")

    @property
    def df_resid(self) -> float:
        return float("nan")

    aic.__doc__ = bic.__doc__ = df_resid.__doc__ = NO_LIKELIHOOD

    def __repr__(self) -> str:
        """What R's ``print`` shows of a fit: ``print.glm``'s call, coefficients,
        degrees of freedom, deviances and AIC for a linear fit; the call and the
        main numbers for the others (:mod:`ubreg.summary.printed`)."""
        from ..summary.render import visible_text
        return visible_text("\n".join(self.print_lines()))

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)``: the call and the main numbers (each result class
        gives its own, :mod:`ubreg.summary.printed`)."""
        from ..summary.printed import framed, generic_lines
        return framed(self, generic_lines(self))


class BinaryResult(Result):
    """A fitted two-class model with a link η per training row.

    Attributes
    ----------
    formula, family, method : the model as specified
    nobs : float
        The number of observations.  With prior weights (``weights=``, R's
        meaning) the rows used that have a non-zero weight (R's
        ``nobs.glm``); with frequency weights (``freq_weights=``) Σ w, a
        weight of 2 counting a row twice.  The row count when unweighted.
    weight_kind : {"prior", "freq"}
        What the weights mean (:func:`ubreg.fit`).
    n_dropped : int
        Rows dropped for missing values.
    """

    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True)
    #: results pickled before weight kinds existed had frequency weights
    weight_kind: str = "freq"
    #: the trials of a ``cbind(successes, failures)`` response (its log-likelihood
    #: counts binomials of these), None otherwise
    trials: np.ndarray | None = None
    _unpickled = ("deviance", "null_deviance", "loglik")

    def __init__(self, *, formula: str, family: Family, design: Design, response: Response,
                 y: np.ndarray, weights: np.ndarray, eta: np.ndarray, index: pd.Index,
                 n_input: int, dropped: pd.Index, call: str, na_factors: Iterable[str] = (),
                 weight_kind: str = "prior", provenance: Provenance | None = None) -> None:
        self.formula = formula
        self.family = family
        self.design = design
        self.response = response
        self.y = y
        self.weights = weights
        self.eta = eta
        self.index = index
        self.n_input = n_input
        self.dropped = dropped
        self.call = call
        self.na_factors = list(na_factors)
        if weight_kind not in ("prior", "freq"):
            raise ValueError(f"weight_kind must be 'prior' or 'freq', got {weight_kind!r}")
        self.weight_kind = weight_kind
        self.provenance = provenance
        self.ubreg_version = __version__

    # ---- what each method provides --------------------------------------
    @abc.abstractmethod
    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """η for the complete rows of ``newdata`` and the mask of NA rows."""

    @property
    @abc.abstractmethod
    def df_model(self) -> float:
        """Number of estimated parameters (for AIC, BIC and df)."""

    converged: bool = True
    iterations: int = 0

    # ---- data-derived quantities ----------------------------------------
    @property
    def nobs(self) -> float:
        if self.weight_kind == "freq":
            return float(self.weights.sum())
        return float(np.count_nonzero(self.weights))

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)

    @property
    def has_intercept(self) -> bool:
        return self.design.has_intercept

    @property
    def fitted_values(self) -> pd.Series:
        """Posterior p̂ᵢ of the training rows (unclipped for the LPM)."""
        return pd.Series(self.family.posterior(self.eta), index=self.index, name="fitted")

    @cached_property
    def deviance(self) -> float:
        """2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) (docs/math.md §3)."""
        return deviance(self.family, self.y, self.eta, self.weights)

    @cached_property
    def null_deviance(self) -> float:
        eta0 = null_eta(self.family, self.y, self.weights, self.has_intercept)
        return deviance(self.family, self.y, np.full_like(self.y, eta0), self.weights)

    @property
    def df_null(self) -> float:
        return self.nobs - (1.0 if self.has_intercept else 0.0)

    @property
    def df_resid(self) -> float:
        if not type(self).capabilities.has_likelihood:
            return float("nan")
        return self.nobs - self.df_model

    df_resid.__doc__ = ("Residual degrees of freedom, n − parameters (R's ``df.residual``); "
                        f"{NO_LIKELIHOOD}")

    @cached_property
    def loglik(self) -> float:
        """Bernoulli log-likelihood of p̂ (the maximum only for entropy).

        Prior weights: R's binomial()$aic, Σ_{wᵢ>0} log dbinom(round(wᵢyᵢ),
        round(wᵢ), p̂ᵢ) (integer weights: Σ wᵢ[yᵢ ln p̂ᵢ + (1 − yᵢ) ln(1 − p̂ᵢ)]),
        and for a ``cbind`` response the prior weight times each row's binomial of
        its trials; frequency weights: Σ wᵢ[yᵢ ln p̂ᵢ + (1 − yᵢ) ln(1 − p̂ᵢ)].
        """
        return bernoulli_loglik(self.family, self.y, self.eta, self.weights, self.weight_kind,
                                self.trials)

    @property
    def _has_aic(self) -> bool:
        """A likelihood's fit: declared (``has_likelihood``) and a family whose loss is the
        Bernoulli likelihood (``entropy``, ``entropy2``); as R's quasi families, any other
        family's fit maximises no likelihood, so it has no AIC."""
        return (type(self).capabilities.has_likelihood
                and bool(getattr(self.family, "binomial_likelihood", False)))

    @property
    def aic(self) -> float:
        if not self._has_aic:
            return float("nan")
        return -2.0 * self.loglik + 2.0 * self.df_model

    aic.__doc__ = (f"−2 logLik + 2 × parameters (R's ``AIC``) for ``entropy`` and ``entropy2``; "
                   "NaN for another family (its loss is not a likelihood: compare families "
                   f"by cross-validated log loss or Brier score) and {NO_LIKELIHOOD}")

    @property
    def bic(self) -> float:
        if not self._has_aic:
            return float("nan")
        n = self.nobs if self.weight_kind == "freq" else float(self.n_rows)
        return -2.0 * self.loglik + np.log(n) * self.df_model

    bic.__doc__ = ("−2 logLik + log(n) × parameters.  n is R's for prior weights (``BIC(glm)`` "
                   "takes logLik's nobs, the rows of the fit *including* those of weight 0), "
                   f"Σ w for frequency weights (statsmodels' ``bic_llf``); {NO_LIKELIHOOD}")

    @property
    def n_rows(self) -> int:
        """Rows the fit used (complete rows), those of weight 0 included."""
        return len(self.weights)

    # ---- prediction -------------------------------------------------------
    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series:
        """Predictions on the link, response or class scale.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows to predict; by default the training rows.  New data go
            through the stored design; rows with NA give NaN, aligned with
            ``newdata.index``.
        type : {"response", "link", "class"}
            ``response`` is p̂ = ∇φ⁻¹(η), P(y = positive class) (for the LPM it
            may leave [0, 1]); ``link`` is η, the method's score; ``class`` is
            the response label with p̂ ≥ 1/2 (η ≥ 0), a Series of category
            dtype with the response's levels (NaN for NA rows).

        Returns
        -------
        pandas.Series
            Indexed like ``newdata`` (the training rows when it is None).
        """
        check_predict_type(type)
        if newdata is None:
            eta, index, na = self.eta, self.index, np.zeros(len(self.eta), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            eta_ok, na = self._link_for(newdata)
            index = newdata.index
            eta = np.full(len(newdata), np.nan)
            eta[~na] = eta_ok
        return self.on_scale(eta, na, index, type)

    def on_scale(self, eta: np.ndarray, na: np.ndarray, index: pd.Index,
                  type: str) -> pd.Series:
        if type == "link":
            return pd.Series(eta, index=index, name="link")
        if type == "response":
            p = np.full(len(eta), np.nan)
            p[~na] = self.family.posterior(eta[~na])
            return pd.Series(p, index=index, name="response")
        levels = list(self.response.levels)
        positive = levels.index(self.response.positive)
        codes = np.where(na, -1, np.where(np.nan_to_num(eta) >= 0, positive, 1 - positive))
        return class_series(levels, codes, index)

    def residuals(self, type: str = "deviance") -> pd.Series:
        """Residuals of the training rows, as R's ``residuals.glm``.

        ``deviance``: sign(y − p̂)·√(2 w D_φ(y‖p̂)); ``pearson``:
        √w (y − p̂)/√(p̂(1 − p̂)); ``response``: y − p̂.
        """
        p = self.family.posterior(self.eta)
        if type == "response":
            r = self.y - p
        elif type == "deviance":
            r = np.sign(self.y - p) * np.sqrt(2.0 * self.weights
                                              * self.family.divergence(self.y, self.eta))
        elif type == "pearson":
            var = (self.family.score_variance(self.eta) if self.family.is_permissible
                   else p * (1 - p))
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.sqrt(self.weights) * (self.y - p) / np.sqrt(var)
        else:
            raise ValueError(f"type must be 'deviance', 'pearson' or 'response', got {type!r}")
        return pd.Series(r, index=self.index, name=f"{type} residual")
