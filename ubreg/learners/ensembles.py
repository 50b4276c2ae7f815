"""The fitted boosting ensembles results hold and predict with.

What a boosting fitter returns, beside its statistics: the weak learners it chose, their
coefficients and how they add up on new rows.  They live below the fitters
(:mod:`ubreg.fitters.boost`, :mod:`ubreg.fitters.tboost`) so that a result, a Dask result
and cross-validation predict with them without importing a fitter:

- :class:`UBoostFit` and :func:`staged_F`: U-Boost on two classes, F = F0 + ν Σ_m f_m(x)
  (docs/math.md §6);
- :class:`MulticlassBoostFit`, :func:`staged_scores` and :func:`truncated`: U-Boost's K
  trees a round on the multinomial loss;
- :class:`ULSBoostFit` and :func:`feature_matrix`: ULS with weak learners, H = Σ_j α_j h_j
  (paper 000 Algorithm 1);
- :class:`TBoostFit`: t-AdaBoost's hypotheses, coefficients and per-round record
  (docs/tempered.md §2).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..families.base import Family

__all__ = ["MulticlassBoostFit", "TBoostFit", "UBoostFit", "ULSBoostFit", "feature_matrix",
           "staged_F", "staged_scores", "truncated"]


@dataclass
class UBoostFit:
    """Arrays of a U-Boost run (no statistics)."""

    learners: list          # the base-learner of each iteration (Tree or LinearStep)
    F0: float
    nu: float
    eta: np.ndarray         # F on the training rows
    risk_path: np.ndarray   # Σ w U(y*F)/Σ w at iterations 0..mstop
    gains: np.ndarray       # (mstop, n_terms) risk reduction per term per iteration
    selected: np.ndarray    # (mstop, n_terms) bool: term used by the iteration


def staged_F(fit: UBoostFit, X) -> np.ndarray:
    """(m, mstop + 1) F after 0..mstop iterations on design rows X."""
    out = np.empty((X.shape[0], len(fit.learners) + 1))
    out[:, 0] = fit.F0
    for m, base in enumerate(fit.learners):
        out[:, m + 1] = out[:, m] + fit.nu * base.predict(X)
    return out


@dataclass(frozen=True)
class MulticlassBoostFit:
    """``learners[m][k]``: the tree of class k at round m; ``F0`` the (K,) start."""

    learners: list
    F0: np.ndarray
    nu: float
    F: np.ndarray                   # (n, K) training scores
    risk_path: np.ndarray           # Σ w (−log p_y) / Σ w after 0..mstop rounds


def staged_scores(fit: MulticlassBoostFit, X: np.ndarray):
    """Yield the (n, K) scores F on design rows X after 0, 1, ..., mstop rounds (0: F0):
    each round adds ν times its tree of class k to F_k, in class order (the arithmetic
    of the fit itself, so the last are the training scores to the bit on its rows)."""
    F = np.tile(fit.F0, (X.shape[0], 1))
    yield F.copy()
    for trees in fit.learners:
        for k, tree in enumerate(trees):
            F[:, k] += fit.nu * tree.predict(X)
        yield F.copy()


def truncated(fit: MulticlassBoostFit, mstop: int, X: np.ndarray) -> MulticlassBoostFit:
    """The fit of the first ``mstop`` rounds; ``X`` its training design (to recompute F)."""
    short = MulticlassBoostFit(learners=fit.learners[:mstop], F0=fit.F0, nu=fit.nu, F=fit.F,
                               risk_path=fit.risk_path[:mstop + 1])
    *_, F = staged_scores(short, X)
    return MulticlassBoostFit(learners=short.learners, F0=fit.F0, nu=fit.nu, F=F,
                              risk_path=short.risk_path)


@dataclass
class ULSBoostFit:
    """Arrays of a ULS boosting run (no statistics)."""

    hypotheses: list              # one per round; each gives ≥ 1 feature
    blocks: list                  # number of features of each round's hypothesis
    coef: np.ndarray              # one per feature
    coef_history: np.ndarray | None   # (rounds, features) when corrective
    eta: np.ndarray
    risk_path: np.ndarray         # surrogate risk at H = 0 and after each round
    edge_path: np.ndarray         # normalised |edge| of each round's hypothesis
    family_path: list             # the family used at each round
    family: Family                # the family whose posterior reads H
    capped: int = 0               # rounds whose δ hit MAX_DELTA (separation)
    strategy: str | None = None
    candidates: dict = field(default_factory=dict)   # F*: risk of each family


def feature_matrix(hypotheses, X) -> np.ndarray:
    """(m, total features) values of every hypothesis on design rows X."""
    if not hypotheses:
        return np.zeros((X.shape[0], 0))
    return np.hstack([h.transform(X) for h in hypotheses])


@dataclass
class TBoostFit:
    """What t-AdaBoost returns (arrays only)."""

    t: float
    hypotheses: list
    alpha: np.ndarray
    mu: np.ndarray
    rho: np.ndarray
    r: np.ndarray
    Z: np.ndarray
    K: np.ndarray
    n_forgotten: np.ndarray          # zero weights after each update
    train_values: list               # h_j(x_i) on the training rows
    weights: np.ndarray              # q_{J+1}
    margin_clipped: np.ndarray       # γ_i of §2.5 (one-sided clipped margin)
    stopped: str = ""
    co_density_min: list = field(default_factory=list)
    co_density_max: list = field(default_factory=list)
    #: the closed-form μ_j of §2.2(a) and the Z_j it would give (equal to mu
    #: and Z when mu="closed"; for the record when mu="exact")
    mu_closed: np.ndarray | None = None
    Z_closed: np.ndarray | None = None
