"""``method="uls"`` on a response of more than two classes: the multinomial logit.

With the entropy family, ULS is logistic regression; on K > 2 classes it is its K-class
form, R's ``nnet::multinom`` (:mod:`ubreg.fitters.multinomial`).  The papers give no
K-class construction for the other families, nor for the weak learners: they are refused.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConvergenceWarning, OptionError, SeparationWarning
from ..fitters.multinomial import fit_multinomial
from ..numerics.aliasing import aliased_columns
from ..numerics.separation import R_EPS
from ..numerics.warnings import warn
from ..results.multinomial import MultinomialResult
from .spec import FitSpec

__all__ = ["fit_multinomial_result"]

#: Newton steps when ``maxiter`` is not given (the fit converges in under ten on
#: well-posed data)
DEFAULT_MAXITER = 100


def check_multinomial_family(family, n_classes: int) -> None:
    """Refuse what has no K-class construction, naming it."""
    if isinstance(family, list) or getattr(family, "name", None) != "entropy":
        shown = family if isinstance(family, list) else family.describe()
        raise OptionError(f"a response of {n_classes} classes is fitted by method 'uls' as a "
                          "multinomial logit, which needs family='entropy' (R's "
                          f"nnet::multinom); {shown} has no construction for more than two "
                          "classes in the papers (Nock and Nielsen 2008, 2009)")


def fit_multinomial_result(spec: FitSpec, mf, *, tol: float,
                           maxiter: int | None) -> MultinomialResult:
    """The multinomial logit of ``mf`` (a model frame whose response has K > 2 classes)."""
    K = len(mf.response.levels)
    check_multinomial_family(spec.family, K)
    family = spec.family
    assert not isinstance(family, list)         # refused above
    if mf.design.has_offset:
        raise OptionError("an offset with a response of more than two classes: "
                          "multinom's offset is not supported")
    X = np.asarray(mf.X, dtype=np.float64)
    w = np.asarray(mf.weights, dtype=np.float64)
    # R's rule, as glm: a column that is a combination of earlier ones is not estimated (NA)
    aliased = aliased_columns(X, w)
    fit = fit_multinomial(X[:, ~aliased], mf.y.astype(np.intp), K, w, tol=min(tol, 1e-10),
                          maxiter=DEFAULT_MAXITER if maxiter is None else maxiter)
    if not fit.converged:
        warn(f"the multinomial fit did not converge in {fit.iterations} Newton steps",
             ConvergenceWarning)
    P = fit.probabilities[w > 0]
    if P.size and (P.min() < R_EPS or P.max() > 1 - R_EPS):
        warn("fitted probabilities numerically 0 or 1 occurred: a class is separated, the "
             "optimum is at infinity and the standard errors are not meaningful",
             SeparationWarning)
    return MultinomialResult(fit=fit, aliased=aliased, formula=spec.formula, family=family,
                             design=mf.design, response=mf.response, y=mf.y, weights=w,
                             index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                             **spec.recorded())
