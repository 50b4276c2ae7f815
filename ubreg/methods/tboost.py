"""``ubreg.fit(..., method="tboost")``: t-AdaBoost (docs/tempered.md §2)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import OptionError
from ..families.tempered import Tempered
from ..families.tempered_exponential import TemperedExponential
from ..fitters.tboost.boost import normalise_weights, tboost
from ..fitters.tboost.learners import fit_stump, fit_tempered_tree, fit_udt_tree
from ..learners.base import OnColumns
from ..numerics import options as opt
from ..numerics.warnings import user_stacklevel
from ..results.tboost import TBoostResult
from .schema import Option, Schema
from .spec import FitSpec, Method, model_frame

__all__ = ["fit_tboost", "OPTIONS", "METHOD"]

LEARNERS = ("trees", "udt", "stumps")
#: depth of the shared trees of learner="udt" when depth= is not given
DEFAULT_UDT_DEPTH = 2
#: t when neither t= nor a tempered family is given
DEFAULT_T = 0.5


#: tboost's options
OPTIONS = Schema((
    Option("t", "real", None, "Deprecated: the loss is `family=`, "
           "`ubreg.TemperedExponential(t)` (default t = 0.5) or the tempered family of the "
           "same t, `Permissible(\"tempered\", t=...)`.  `t=0.3` still works, with a "
           "FutureWarning.", low=-math.inf, high=2.0, open_low=True, open_high=True,
           none=True, public=False),
    Option("rounds", "whole", 20, "J, the number of weak hypotheses.", low=1,
           high=opt.MAX_ROUNDS),
    Option("learner", "choice", "trees", "`\"trees\"`: the authors' §3.3 tree "
           "(docs/tempered.md §3.3): Σq statistics, the L_t split score, admissible splits, "
           "leaves η_t(p), grown by the most populated leaf up to `max_size` nodes, with at "
           "most `max_candidates` random candidate thresholds per node, at within-node "
           "midpoints (between consecutive distinct values of the rows in the node, as the "
           "authors' code).  `\"udt\"`: the shallow binned trees shared with `uls` and "
           "`uboost`, grown level-wise to `depth` (default 2) with the statistics, criterion "
           "and leaves of the §3.3 tree.  `\"stumps\"`: AdaBoost's ±1 stumps.",
           choices=LEARNERS),
    Option("mu", "choice", "closed", "μ_j by the closed form of docs/tempered.md §2.2(a) or "
           "the exact projection §2.2(b), a one-dimensional root to 1e−10.",
           choices=("closed", "exact")),
    Option("max_size", "whole", 5, "Tree size in nodes (internal + leaves, 3: one split), "
           "§3.3.", low=3, high=10 ** 9),
    Option("depth", "whole", None, "`\"trees\"`: grow to this depth instead of `max_size`; "
           "`\"udt\"`: the tree depth (None: 2).", low=1, high=62, none=True),
    Option("max_candidates", "whole", 2000, "Candidate splits drawn per node (§3.3).", low=1,
           high=2 ** 31 - 1),
    Option("max_bins", "whole", 255, "`\"udt\"` and `\"stumps\"`: at most this many bins "
           "per column.", low=2, high=65535),
    Option("seed", "seed", 0, "Seed of the candidate draw (`\"trees\"`)."),
), label="'tboost'")


def fit_tboost(spec: FitSpec, *, t: float | None, rounds: int, learner: str, mu: str,
               max_size: int, depth: int | None, max_candidates: int, max_bins: int,
               seed) -> TBoostResult:
    """t-AdaBoost with stumps or §3.3 trees (docs/tempered.md §2, §3.3), with the
    options :data:`OPTIONS`.

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
    mf = model_frame(spec, "tboost", keep_na=True)
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
                        **spec.recorded(), na_factors=mf.na_factors)


def _resolve_t(family, family_given, t):
    """The temperature t < 2 of the loss: of ``family=`` (a tempered exponential loss,
    or the tempered family of the same t), of the deprecated ``t=`` (with a
    FutureWarning; with a family too, refused), else :data:`DEFAULT_T`."""
    if t is not None:
        if family_given:
            raise OptionError(f"give the loss once: family={family!r} and t={t!r} were both "
                             "given (t= is the old spelling of "
                             "family=ubreg.TemperedExponential(t))")
        warnings.warn(f"t= is deprecated: pass family=TemperedExponential({t!r}) instead",
                      FutureWarning, stacklevel=user_stacklevel())
        return float(t)
    if not family_given:
        # the middle of the range [0, 1] of the convergence theorem
        return DEFAULT_T
    if isinstance(family, (TemperedExponential, Tempered)):
        return family.t
    if isinstance(family, list):
        raise OptionError("method 'tboost' boosts one loss, not a bag of families")
    raise OptionError(f"method 'tboost' minimises the tempered exponential loss (Nock, Amid and "
                     f"Warmuth 2023): family=ubreg.TemperedExponential(t), or "
                     f"Permissible(\"tempered\", t=...) for the same t; "
                     f"{family.describe()} is not one of them")


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
    from ..trees.binning import bin_design
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


METHOD = Method("tboost", fit=fit_tboost, result=TBoostResult, schema=OPTIONS,
                quick={"": {"rounds": 3}}, keeps_missing=True)
