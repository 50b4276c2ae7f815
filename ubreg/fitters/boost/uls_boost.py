"""ULS with weak learners (paper 000, Algorithm 1 and Section 7; docs/math.md §4, §6).

``ubreg.fit(f, d, method="uls", learner="stumps"|"rules"|"trees", rounds=r)``.
Each round the weak learner returns the hypothesis of largest |edge| under the
current weights ωᵢ = −ψ'(y*ᵢ H(xᵢ)); its features form T_j (classic boosting)
or join every feature so far (``corrective=True``: totally corrective, a
Newton solve of all coefficients); the leveraging coefficients solve eq. (70)
to 1e-10.  With ``Exponential()`` and stumps this is AdaBoost: the root of
(70) is ½ ln((1 − ε)/ε).

Weak learners read the columns of the design matrix built by the formula:
numeric predictors as they are, categorical predictors as their dummy
columns (a stump on a dummy is "level vs the rest"), and the intercept column
never splits.  H starts at 0, as in AdaBoost.  Thresholds are searched on
binned columns (:mod:`ubreg.trees.binning`): exactly when a column has at
most ``max_bins`` (default 255) distinct values, on quantile bins otherwise;
raise ``max_bins`` for an exhaustive search.

A bag of families (``family=[...]``) needs ``strategy`` (paper 000 §7):
``"F*"`` fits every family and keeps the one of least empirical risk,
``"F."`` picks at each round the family whose step gives the least empirical
risk, ``"E."`` the family whose weak hypothesis has the largest |edge|.
"""
from __future__ import annotations

import numpy as np

from ...errors import ConvergenceWarning
from ...learners.ensembles import ULSBoostFit
from ...numerics.warnings import warn
from ...trees.binning import bin_design
from ..uls import fit_uls, surrogate_risk
from .leverage import MAX_DELTA, solve_leverage
from .weak import LEARNERS, propose

__all__ = ["STRATEGIES", "boost_uls"]

STRATEGIES = ("F*", "F.", "E.")


def check_strategy(strategy, bag):
    """A strategy needs a bag of families, and a bag a strategy (paper 000 §7)."""
    if bag and strategy not in STRATEGIES:
        raise ValueError(f"a bag of families (family=[...]) needs strategy= one of {STRATEGIES}, "
                         f"got {strategy!r}")
    if not bag and strategy is not None:
        raise ValueError(f"strategy={strategy!r} needs a bag of families: family=[...]")


def _bounded_domain(family) -> float | None:
    hi = family.link_domain[1]
    return float(hi) if np.isfinite(hi) else None


def boost_uls(X, y, w, bag: list, *, learner: str, rounds: int, corrective: bool = False,
              strategy: str | None = None, literals: int = 2, depth: int = 2,
              max_bins: int = 255, tol: float = 1e-10, max_delta: float = MAX_DELTA,
              min_leaf: float = 1.0, binned=None) -> ULSBoostFit:
    """ULS over weak hypotheses, for one family or a per-round choice in a bag.

    Parameters
    ----------
    X, y, w : design (n, p), 0/1 labels, frequency weights
    bag : list of Family
        One family, or the bag of strategy ``"F."``/``"E."``.
    learner : {"stumps", "rules", "trees"}
    rounds : int
    corrective : bool
        T_j = every feature so far (a Newton solve of eq. 70 on all of them)
        instead of the new hypothesis' features only.
    """
    if learner not in LEARNERS:
        raise ValueError(f"learner must be one of {LEARNERS}, got {learner!r}")
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    binned = bin_design(X, max_bins, weights=w) if binned is None else binned
    wsum = float(w.sum())
    eta = np.zeros(n)
    hyps, blocks, coefs, history = [], [], [], []
    columns = []                               # training values of every feature
    edge_path, fam_path = [], []
    family = bag[0]
    risk_path = [surrogate_risk(family, y, eta, w, wsum)]
    capped = 0
    for _ in range(rounds):
        options = []
        for fam in bag:
            v = -w * fam.gradient(y, eta)     # wᵢ ωᵢ y*ᵢ  (docs/math.md §4)
            prop = propose(learner, binned, v, y, w, fam, literals=literals, depth=depth,
                           min_leaf=min_leaf)
            if prop is not None:
                options.append((fam, *prop))
        if not options:
            break
        pick, solved = _choose(options, strategy, y, w, eta, wsum, tol, max_delta)
        family, hyp, vals, edge = options[pick]
        if abs(edge) == 0.0:
            break                              # no hypothesis has an edge: H is optimal
        deltas, eta, ncap = (solved if solved is not None
                             else _solve_block(vals, y, w, eta, family, tol, max_delta))
        capped += ncap
        hyps.append(hyp)
        blocks.append(vals.shape[1])
        columns.append(vals)
        coefs.append(deltas)
        if corrective:
            Hmat = np.hstack(columns)
            lin = fit_uls(Hmat, y, w, family, solver="corrective", tol=tol, maxiter=50)
            beta = np.nan_to_num(lin.coef, nan=0.0)
            eta = Hmat @ beta
            coefs = _split(beta, blocks)
        eta, scale = _renormalise(eta, family, len(bag) > 1)
        if scale != 1.0:
            coefs = [c * scale for c in coefs]
        if corrective:
            history.append(np.concatenate(coefs))
        risk_path.append(surrogate_risk(family, y, eta, w, wsum))
        edge_path.append(abs(edge))
        fam_path.append(family)
    coef = np.concatenate(coefs) if coefs else np.zeros(0)
    coef_history = _padded(history, coef.size) if corrective and history else None
    if capped:
        warn(f"{capped} leveraging coefficient(s) reached |δ| = {max_delta:g}: the feature "
             "separates the weighted sample (Lemma 8), the root of (70) is at infinity",
             ConvergenceWarning)
    return ULSBoostFit(hypotheses=hyps, blocks=blocks, coef=coef, coef_history=coef_history,
                       eta=eta, risk_path=np.asarray(risk_path), edge_path=np.asarray(edge_path),
                       family_path=fam_path, family=family, capped=capped, strategy=strategy)


def _choose(options, strategy, y, w, eta, wsum, tol, max_delta):
    """The option (family, hypothesis, values, edge) a round keeps, and its solved
    step when the choice needed it: strategy ``"F."`` solves (70) for every family
    and keeps the least risk after the step; one family, or ``"E."``, keeps the
    largest |edge| (docs/math.md §6)."""
    if strategy == "F." and len(options) > 1:
        trials, solved = [], []
        for fam, _, vals, _ in options:
            step = _solve_block(vals, y, w, eta, fam, tol, max_delta)
            eta_new, _ = _renormalise(step[1], fam, True)
            trials.append(surrogate_risk(fam, y, eta_new, w, wsum))
            solved.append(step)
        pick = int(np.nanargmin(trials))
        return pick, solved[pick]
    return int(np.argmax([abs(o[3]) for o in options])), None


def _padded(history, size):
    """The corrective coefficients after each round, zero-padded to ``size``."""
    out = np.zeros((len(history), size))
    for r, c in enumerate(history):
        out[r, :c.size] = c
    return out


def _split(beta, blocks):
    out, i = [], 0
    for b in blocks:
        out.append(beta[i:i + b].copy())
        i += b
    return out


def _solve_block(vals, y, w, eta, family, tol, max_delta):
    """δ for each feature of a hypothesis, one at a time (exact for the disjoint
    leaf indicators of a tree, where the features' equations decouple)."""
    eta = eta.copy()
    deltas = np.zeros(vals.shape[1])
    ncap = 0
    for k in range(vals.shape[1]):           # one feature, or ≤ 2^depth leaves
        h = vals[:, k]
        d, cap = solve_leverage(h, y, w, eta, family, tol=tol, max_delta=max_delta)
        deltas[k] = d
        ncap += cap
        eta += d * h
    return deltas, eta, ncap


def _renormalise(eta, family, in_bag: bool):
    """Paper 000 §7: when a family with a bounded link (gini, eq. 26) is picked
    from a bag, H is rescaled so its output stays in the link domain."""
    hi = _bounded_domain(family)
    if not in_bag or hi is None:
        return eta, 1.0
    m = float(np.max(np.abs(eta), initial=0.0))
    if m <= hi:
        return eta, 1.0
    s = hi / m
    return eta * s, s


