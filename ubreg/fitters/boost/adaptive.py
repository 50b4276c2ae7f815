"""Adaptive choice of the loss out of a bag (paper 000 §7; docs/math.md §6).

``"F."`` and ``"E."`` choose a family at each round inside
:func:`~ubreg.fitters.boost.uls_boost.boost_uls`.  ``"F*"`` chooses once per fit
("per training fold" in the paper's cross-validation): every family of the
bag is boosted on the whole training sample and the one of least empirical
surrogate risk ε_φ = Σ wᵢ F_φ(y*ᵢHᵢ)/Σ wᵢ is kept (``select="train"``, the
paper's rule; the losses are comparable because F_φ(0) = 1 for every
balanced loss).  ``select="cv"`` instead keeps the family of least
inner-cross-validated misclassification rate (ties: least training risk).

In ``reports/uls_flavours.md`` the training-risk rule nearly always keeps
``entropy`` (its F_φ falls fastest at the margins reached), while the CV rule
ranks second of twelve flavours.
"""
from __future__ import annotations

import numpy as np

from ...learners.ensembles import ULSBoostFit, feature_matrix
from ...numerics.folds import stratified_folds
from .uls_boost import boost_uls

__all__ = ["fit_fstar"]


def fit_fstar(X, y, w, bag, *, select: str = "train", inner_folds: int = 5, seed=None,
              binned=None, **kw) -> ULSBoostFit:
    """Strategy F*: the whole fit with the family of least risk (or CV error)."""
    if select not in ("train", "cv"):
        raise ValueError(f"select must be 'train' or 'cv', got {select!r}")
    fits = [boost_uls(X, y, w, [fam], binned=binned, **kw) for fam in bag]
    train_risk = np.array([f.risk_path[-1] for f in fits])
    if select == "train":
        score = train_risk
    else:
        fold = stratified_folds(y, inner_folds, seed)
        err = np.zeros(len(bag))
        for k in range(inner_folds):
            tr, te = fold != k, fold == k
            sub = binned.subset(np.flatnonzero(tr)) if binned is not None else None
            for i, fam in enumerate(bag):
                f = boost_uls(X[tr], y[tr], w[tr], [fam], binned=sub, **kw)
                eta = feature_matrix(f.hypotheses, X[te]) @ f.coef
                err[i] += float(w[te] @ ((eta >= 0) != (y[te] == 1)))
        score = err / w.sum() + 1e-12 * train_risk / max(train_risk.max(), 1e-300)
    best = int(np.argmin(score))
    fit = fits[best]
    fit.strategy = "F*"
    fit.candidates = {repr(f): float(s) for f, s in zip(bag, score)}
    return fit
