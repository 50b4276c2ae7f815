"""Method ``uboost``: U-Boost (paper 003 §4.4), Newton boosting with weak learners."""
from __future__ import annotations

import math

import numpy as np

from ..errors import OptionError
from ..families.ulosses import as_u_loss, boosted_family, resolve_U
from ..fitters.boost.multinomial import boost_multinomial
from ..fitters.boost.uboost import boost_u
from ..numerics import options as opt
from ..numerics.weights import relative_weights
from ..results.boost import UBoostResult, warn_extreme
from ..results.boost_multiclass import MulticlassBoostResult
from .schema import OnDask, Option, Schema
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_uboost_method", "boosting_weights", "OPTIONS", "METHOD"]


def _loss(U):
    """U checked (:func:`resolve_U`), kept as given (the call shows it so)."""
    if U is not None:
        resolve_U(U)
    return U


#: uboost's options
OPTIONS = Schema((
    Option("U", "value", None, "Deprecated: the loss is `family=`, any family: a U-loss "
           "(`ubreg.U(\"logistic\" | \"exponential\" | \"squared\")`, `ubreg.U_alpha(alpha)`, "
           "`ubreg.U_custom(d1, d2)`) or another family (`Permissible(\"entropy\")`, the "
           "logistic U, is the default).  `U=\"exponential\"` still works, with a "
           "FutureWarning.", check=_loss, none=True, public=False),
    Option("learner", "choice", "trees", "Newton regression trees of depth `depth` on binned "
           "design columns, stumps, or one componentwise linear base-learner per formula "
           "term (a term with several columns, e.g. a factor, is fitted jointly), which "
           "gives a sparse coefficient path.", choices=("trees", "stumps", "linear"),
           dask=OnDask(allowed=("trees", "stumps"), why=(
               "the componentwise linear base-learner is not available out of core (each "
               "iteration would need a pass per term); use learner='trees' or 'stumps', or "
               "fit in memory"))),
    Option("depth", "whole", 3, "The depth of the trees.", low=1, high=12),
    Option("mstop", "whole", 100, "The number of iterations (mboost's name).", low=0,
           high=opt.MAX_ROUNDS),
    Option("nu", "real", 0.1, "The step length (shrinkage).", low=0.0, high=1.0,
           open_low=True),
    Option("max_bins", "whole", 255, "Trees split on binned design columns: at most this "
           "many quantile bins per column, exact below that many distinct values.", low=2,
           high=65535),
    Option("init", "choice", "mean", "F starts at the log-odds of the weighted mean of y "
           "(the constant minimiser of the risk for every U), or at 0 as AdaBoost and "
           "LogitBoost do.", choices=("mean", "zero")),
    Option("min_child_weight", "real", 1e-3, "The least curvature Σu of a tree's leaf.  With "
           "prior weights (`weights=`) the weights count relative to their mean, so the "
           "bound counts average rows and a constant multiple of the weights is the same "
           "fit; with frequency weights (`freq_weights=`) it is in the weights' own units.",
           low=0.0, high=math.inf),
    Option("min_samples_leaf", "real", 1.0, "The least weight of a tree's leaf, counted as "
           "`min_child_weight` is.", low=0.0, high=math.inf),
), label="'uboost'")


def boosting_weights(weights: np.ndarray, weight_kind: str) -> np.ndarray:
    """The row weights U-Boost boosts with: prior weights relative to their mean (so
    ``min_child_weight`` counts average rows and a constant multiple of the weights is
    the same fit), frequency weights as counts (:mod:`ubreg.numerics.weights`)."""
    return relative_weights(weights)[0] if weight_kind == "prior" else weights


def fit_uboost_method(spec: FitSpec, *, U, learner: str, depth: int, mstop: int, nu: float,
                      max_bins: int, init: str, min_child_weight: float,
                      min_samples_leaf: float):
    """U-Boost (paper 003 §4.4), Newton form, with the options :data:`OPTIONS`.  See
    :mod:`ubreg.fitters.boost.uboost`."""
    family = boosted_family(spec.family, spec.family_given, U)
    U = as_u_loss(family)
    # the linear base-learner has no missing-value direction: its rows are complete (na.omit)
    mf = model_frame(spec, "uboost", response="auto", keep_na=learner != "linear")
    options = dict(learner=learner, depth=depth, mstop=mstop, nu=nu, max_bins=max_bins,
                   init=init, min_child_weight=min_child_weight,
                   min_samples_leaf=min_samples_leaf)
    w = boosting_weights(mf.weights, spec.weight_kind)
    if mf.response.kind == "multiclass":
        return fit_multiclass(spec, mf, family, w, options)
    fit = boost_u(mf.X, mf.y, w, U, term_slices=mf.design.term_slices,
                  has_intercept=mf.design.has_intercept, **options)
    result = UBoostResult(fit=fit, family=family, U=U, options=options, X=mf.X,
                          formula=spec.formula,
                          design=mf.design, response=mf.response, y=mf.y, weights=mf.weights,
                          eta=fit.eta, index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                          **spec.recorded(), na_factors=mf.na_factors)
    warn_extreme(result)
    return result


def fit_multiclass(spec: FitSpec, mf, family, w, options: dict) -> MulticlassBoostResult:
    """K Newton trees a round on the multinomial loss (:mod:`ubreg.fitters.boost.multinomial`),
    for the entropy family; the others, and the linear learner, are refused by name."""
    K = len(mf.response.levels)
    if getattr(family, "name", None) != "entropy":
        raise OptionError(f"a response of {K} classes is boosted on the multinomial log-loss, "
                          f"the K-class form of family='entropy'; {family!r} has no K-class "
                          "form in the papers")
    if options["learner"] == "linear":
        raise OptionError(f"a response of {K} classes is boosted with learner='trees' or "
                          "'stumps' (K trees a round); learner='linear' has no K-class form "
                          "here: method='uls' fits the multinomial logit")
    fit = boost_multiclass(mf.X, mf.y.astype(np.intp), K, w, options)
    return MulticlassBoostResult(fit=fit, options=options, X=mf.X, formula=spec.formula,
                                 family=family,
                                 design=mf.design, response=mf.response, y=mf.y,
                                 weights=mf.weights, index=mf.index, n_input=mf.n_input,
                                 dropped=mf.dropped, **spec.recorded())


def boost_multiclass(X, codes, K: int, w, options: dict):
    """The multinomial U-Boost of ``options`` (:data:`OPTIONS`) on rows X of class codes 0..K−1
    and boosting weights w: the one reading of the options, for the fit and its refits."""
    return boost_multinomial(X, codes, K, w, depth=options["depth"], mstop=options["mstop"],
                             nu=options["nu"], max_bins=options["max_bins"],
                             min_child_weight=options["min_child_weight"],
                             min_samples_leaf=options["min_samples_leaf"],
                             stumps=options["learner"] == "stumps")


def fit_uboost_on_dask(spec: FitSpec, **options):
    """The Dask backend (:func:`ubreg.dask.uboost.fit_uboost_dask`), imported when a Dask
    frame arrives."""
    from ..dask.uboost import fit_uboost_dask
    return fit_uboost_dask(spec, **options)


METHOD = Method("uboost", fit=fit_uboost_method, result=UBoostResult, schema=OPTIONS,
                quick={"": {"mstop": 5}}, dask=fit_uboost_on_dask, multiclass=True,
                keeps_missing=True)
