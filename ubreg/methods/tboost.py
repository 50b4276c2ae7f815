"""``ubreg.fit(..., method="tboost")``: t-AdaBoost (docs/tempered.md §2)."""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import OptionError
from ..families.tempered import Tempered
from ..fitters.tboost.boost import normalise_weights, tboost
from ..fitters.tboost.learners import fit_stump, fit_tempered_tree, fit_udt_tree
from ..fitters.tboost.loss import TemperedExponential
from ..learners.base import OnColumns
from ..numerics import options as opt
from ..numerics.warnings import user_stacklevel
from ..results.tboost import TBoostResult
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_tboost"]

LEARNERS = ("trees", "udt", "stumps")
#: depth of the shared trees of learner="udt" when depth= is not given
DEFAULT_UDT_DEPTH = 2
#: t when neither t= nor a tempered family is given
DEFAULT_T = 0.5


def fit_tboost(spec: FitSpec, *, t=None, rounds: int = 20, learner: str = "trees",
               mu: str = "closed", max_size: int = 5, depth=None, max_candidates: int = 2000,
               max_bins: int = 255, seed=0) -> TBoostResult:
    """t-AdaBoost with stumps or §3.3 trees (docs/tempered.md §2, §3.3).

    Parameters
    ----------
    t : float
        Temperature, t < 2 (t ∈ [0, 1] is the range of the convergence
        theorem; t > 1 is allowed as in the authors' code).  If omitted, the
        t of ``family=Permissible("tempered", t=...)``, else 0.5.  (Other
        families are ignored, with a warning: the loss is the tempered
        exponential loss.)
    rounds : int, default 20
        J, the number of weak hypotheses (≥ 1).
    learner : {"trees", "udt", "stumps"}
        ``"trees"`` (default): the authors' §3.3 tree (Σq statistics, L_t split
        score, admissible splits, leaves η_t(p), grown by the most populated
        leaf up to ``max_size`` nodes, at most ``max_candidates`` random
        candidate thresholds per node).  Its thresholds are within-node
        midpoints, as in the authors' code: the midpoint of two consecutive
        distinct values of a column among the training rows in the node (not
        among all rows of the column, as the binned cuts of ``"udt"`` and
        ``"stumps"``); ``x <= threshold`` goes left.  ``"udt"``: the shallow
        trees shared with ``method="uls"``/``"uboost"`` (ubreg.learners.trees,
        ``max_bins`` binned cuts per column, level-wise to ``depth``, default
        2) with the statistics, criterion, admissibility and η_t leaves of the
        §3.3 tree (:func:`ubreg.fitters.tboost.learners.fit_udt_tree`).
        ``"stumps"``: AdaBoost's ±1 stumps (``max_bins`` cuts per column).
    mu : {"closed", "exact"}
        μ_j by the closed form §2.2(a) (default) or the exact projection
        §2.2(b), a 1-D root to 1e−10.
    max_size : int, default 5
        Tree size in nodes (internal + leaves), §3.3.
    depth : int, optional
        ``"trees"``: grow to this depth instead of ``max_size``; ``"udt"``:
        the tree depth (default 2).
    max_candidates : int, default 2000
        Candidate splits drawn per node (§3.3).
    max_bins : int, default 255
        ``"udt"`` and ``"stumps"``: at most this many bins per column (every
        midpoint when a column has fewer distinct values).
    seed : int
        Seed of the candidate draw (``"trees"``).

    Notes
    -----
    Row weights (``weights=`` or ``freq_weights=`` of :func:`ubreg.fit`: the same
    fit, they differ only in ``nobs``) enter as
    :func:`ubreg.fitters.tboost.boost.normalise_weights` gives them (divided by a
    power of two, mean in [1, 2); all equal: the unweighted data): the fit
    does not depend on their scale, and the q, μ_j and r_j it records are
    on that scale.
    """
    t = _resolve_t(spec.family, spec.family_given, t)
    _check_options(rounds, learner, mu, depth, max_size)
    max_candidates = opt.whole(max_candidates, "max_candidates", 1, 2 ** 31 - 1)
    max_bins = opt.whole(max_bins, "max_bins", 2, 65535)
    seed = opt.seed(seed)
    mf = model_frame(spec, "tboost")
    # scale-free (docs/tempered.md §2.1): the learners and the loop see the same
    # normalised weights; weights all equal are the unweighted data
    w = normalise_weights(mf.weights)
    w = None if np.all(w == 1.0) else w
    X, ystar = mf.X, 2.0 * mf.y - 1.0
    # the intercept column carries no split: leave it out of the learners
    cols = [j for j, n in enumerate(mf.design.column_names) if n != "(Intercept)"]
    depth = DEFAULT_UDT_DEPTH if depth is None and learner == "udt" else depth
    if learner == "trees":
        weak, desc = _tree_learner(X[:, cols], ystar, t, w, max_size, depth, max_candidates,
                                   seed)
    else:
        weak, desc = _binned_learner(learner, X[:, cols], ystar, t, w, mf.weights, depth,
                                     max_bins)
    fit = tboost(X, ystar, t, int(rounds), _on_columns(weak, cols), mu=mu, weights=w)
    options = {"t": t, "rounds": int(rounds), "learner": learner, "mu": mu,
               "max_size": int(max_size), "depth": depth, "seed": seed, "learner_desc": desc}
    return _result(spec, mf, fit, options)


def _result(spec, mf, fit, options):
    """The :class:`TBoostResult` of ``fit`` (H_J on the training rows as ``eta``)."""
    eta = np.sum(fit.alpha[:, None] * np.asarray(fit.train_values), axis=0)
    return TBoostResult(fit=fit, learner=options["learner"], options=options,
                        formula=spec.formula, family=TemperedExponential(fit.t),
                        design=mf.design, response=mf.response, y=mf.y, weights=mf.weights,
                        eta=eta, index=mf.index, n_input=mf.n_input, dropped=mf.dropped,
                        call=spec.call, na_factors=mf.na_factors)


def _resolve_t(family, family_given, t):
    """The temperature: ``t``, else the tempered family's t, else :data:`DEFAULT_T`
    (any other family is ignored, with a warning)."""
    if isinstance(family, list):
        raise ValueError("method 'tboost' takes its loss from t=, not a bag of families")
    if family_given and not isinstance(family, Tempered):
        warnings.warn(f"method 'tboost' minimises the tempered exponential loss of t=: "
                      f"family={family!r} is ignored; pass t= or "
                      "family=Permissible(\"tempered\", t=...)", UserWarning,
                      stacklevel=user_stacklevel())
    if t is None:
        # the family's t when it is tempered; otherwise the middle of the
        # range [0, 1] of the convergence theorem
        t = family.t if isinstance(family, Tempered) else DEFAULT_T
    elif isinstance(family, Tempered) and family.t != float(t):
        raise ValueError(f"t={t!r} disagrees with the family's t={family.t!r}")
    if isinstance(t, (bool, np.bool_)):
        raise OptionError(f"t must be a number < 2, got {t!r}")
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ValueError(f"t must be a number < 2, got {t!r}") from None
    if not (np.isfinite(t) and t < 2):
        raise ValueError(f"t must be a finite number < 2, got t={t!r}")
    return t


def _check_options(rounds, learner, mu, depth, max_size):
    opt.whole(rounds, "rounds", 1, opt.MAX_ROUNDS)
    if learner not in LEARNERS:
        raise ValueError(f"learner must be one of {LEARNERS}, got {learner!r}")
    if mu not in ("closed", "exact"):
        raise ValueError(f"mu must be 'closed' or 'exact', got {mu!r}")
    if depth is not None:
        opt.whole(depth, "depth", 1, 62)
    opt.whole(max_size, "max_size (3: one split)", 3, 10 ** 9)


def _tree_learner(Xw, ystar, t, w, max_size, depth, max_candidates, seed):
    """The §3.3 tree as a weak learner q -> (tree, values), and its description."""
    rng = np.random.default_rng(seed)

    def weak(q):
        tree = fit_tempered_tree(Xw, ystar, q, t, max_size=int(max_size), depth=depth,
                                 max_candidates=int(max_candidates), rng=rng, w=w)
        if tree.n_nodes == 1:
            return None, None
        return tree, tree.predict(Xw)
    return weak, (f"(depth {depth})" if depth is not None else f"(max_size {max_size} nodes)")


def _binned_learner(learner, Xw, ystar, t, w, weights, depth, max_bins):
    """The shared trees (``"udt"``) or ±1 stumps on binned columns as a weak learner
    q -> (hypothesis, values), and its description."""
    from ..learners.binning import bin_design
    if learner == "udt":
        depth = int(depth)
        # float64 histograms: tempered weights span many orders of magnitude
        binned = bin_design(Xw, max_bins, weights=weights, float32=False)
        desc = f"(shared trees of ubreg.learners, depth {depth}, {max_bins} bins)"
        return (lambda q: fit_udt_tree(binned, ystar, q, t, depth, w)), desc
    binned = bin_design(Xw, max_bins, weights=weights)
    return (lambda q: fit_stump(binned, ystar, q, w)), f"(+-1, {max_bins} bins)"


def _on_columns(weak, cols):
    """``weak`` with its hypotheses read on the design columns ``cols``."""
    def on_columns(q):
        hyp, values = weak(q)
        return (None, None) if hyp is None else (OnColumns(hyp, cols), values)
    return on_columns


METHOD = Method("tboost", fit=fit_tboost, result=TBoostResult, quick={"": {"rounds": 3}})
