"""Method ``uboost``: U-Boost (paper 003 §4.4), Newton boosting with weak learners."""
from __future__ import annotations

import warnings

from ..fitters.boost.uboost import boost_u, check_leaf_options, check_options
from ..fitters.boost.ulosses import resolve_U
from ..numerics.warnings import user_stacklevel
from ..numerics.weights import relative_weights
from ..results.boost import UBoostResult
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_uboost_method", "METHOD"]


def fit_uboost_method(spec: FitSpec, *, U="logistic", learner: str = "trees", depth: int = 3,
                      mstop: int = 100, nu: float = 0.1, max_bins: int = 255,
                      init: str = "mean", min_child_weight: float = 1e-3,
                      min_samples_leaf: float = 1):
    """U-Boost (paper 003 §4.4), Newton form.  See :mod:`ubreg.fitters.boost.uboost`."""
    if isinstance(spec.family, list):
        raise ValueError("method 'uboost' takes its loss from U=, not a bag of families")
    if spec.family_given:
        warnings.warn(f"method 'uboost' takes its loss from U=, not family=: "
                      f"family={spec.family!r} is ignored (the loss is U={U!r}); pass U= "
                      "instead (e.g. U=\"logistic\", \"exponential\")", UserWarning,
                      stacklevel=user_stacklevel())
    check_options(mstop, nu, depth, learner, init)
    check_leaf_options(min_child_weight, min_samples_leaf, max_bins)
    U = resolve_U(U)
    mf = model_frame(spec, "uboost")
    options = dict(learner=learner, depth=int(depth), mstop=int(mstop), nu=float(nu),
                   max_bins=int(max_bins), init=init, min_child_weight=float(min_child_weight),
                   min_samples_leaf=float(min_samples_leaf))
    # prior weights are relative (min_child_weight counts average rows); frequency weights
    # are counts (ubreg.numerics.weights)
    w = relative_weights(mf.weights)[0] if spec.weight_kind == "prior" else mf.weights
    fit = boost_u(mf.X, mf.y, w, U, term_slices=mf.design.term_slices,
                  has_intercept=mf.design.has_intercept, **options)
    return UBoostResult(fit=fit, U=U, options=options, X=mf.X, formula=spec.formula,
                        design=mf.design, response=mf.response, y=mf.y, weights=mf.weights,
                        eta=fit.eta, index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                        call=spec.call, na_factors=mf.na_factors)


METHOD = Method("uboost", fit=fit_uboost_method, result=UBoostResult, quick={"": {"mstop": 5}},
                dask="ubreg.dask.uboost:fit_uboost_dask")
