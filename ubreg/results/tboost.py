"""The result of ``method="tboost"``: H_J, the clipped H_J^(δ), margins, summary.

docs/tempered.md §2.6 (final classifiers), §2.7 (guarantee), §4 (t-margins).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..design import as_frame
from ..families.tempered_algebra import clip_level, clipped_sum, tanh_t
from ..learners.ensembles import TBoostFit
from .base import BinaryResult, Capabilities, check_predict_type

if TYPE_CHECKING:
    from ..summary.tboost import TBoostSummary

__all__ = ["TBoostResult"]


class TBoostResult(BinaryResult):
    """t-AdaBoost (paper 004): H_J(x) = Σ_j α_j h_j(x) and its clipped version.

    Attributes
    ----------
    t : float
        Temperature.
    delta : float
        Clipping level δ of H_J^(δ): 1/(1 − t) for t < 1, 1/|1 − t| for t > 1,
        ∞ at t = 1 (docs/tempered.md §2.6).
    rounds : int
        Rounds run (fewer than asked when boosting had to stop; ``stopped``).
    rounds_table : pandas.DataFrame
        Per round: μ_j (the μ used), α_j, ρ_j, r_j, Z_j, K_t(ρ_j), forgotten
        weights, min/max co-density.  ρ_j (the normalised edge of h_j) and
        K_t(ρ_j) belong to the closed form §2.2(a): K_t(ρ_j) bounds the
        Z_j^{2−t} of the closed-form μ (§2.7).  With ``mu="exact"`` the table
        adds ``mu_closed`` (the closed-form μ_j) and ``Z_closed`` (the Z_j it
        would have given): K_t(ρ_j) bounds Z_closed^{2−t}, and the exact μ,
        which minimises Z_j, gives Z_j ≤ Z_closed.
    eta_clipped : ndarray
        H_J^(δ) on the training rows (``eta`` holds H_J).
    risk_path : pandas.Series
        The tempered exponential loss Π Z^(2−t) after each round.

    Notes
    -----
    :func:`ubreg.plots.t_margins` draws the distribution of the t-margins with
    their bound.
    """

    method = "tboost"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True,
                                has_risk_path=True, has_t_margins=True)

    def __init__(self, *, fit: TBoostFit, learner: str, options: dict, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fit_info = fit
        self.t = fit.t
        self.learner = learner
        self.options = dict(options)
        self.hypotheses = list(fit.hypotheses)
        self.alpha = np.asarray(fit.alpha)
        self.rounds = len(self.hypotheses)
        self.iterations = self.rounds
        self.delta = clip_level(self.t)
        self.stopped = fit.stopped
        terms = self.alpha[:, None] * np.asarray(fit.train_values)
        self.eta_clipped = clipped_sum(terms, self.delta)
        cols: dict[str, Any] = {"mu": fit.mu}
        exact = self.options.get("mu") == "exact" and fit.mu_closed is not None
        if exact:
            cols["mu_closed"] = fit.mu_closed
        cols.update({"alpha": fit.alpha, "rho": fit.rho, "r": fit.r, "Z": fit.Z})
        if exact:
            cols["Z_closed"] = fit.Z_closed
        cols.update({"K_t(rho)": fit.K, "forgotten": fit.n_forgotten,
                     "co_density_min": fit.co_density_min,
                     "co_density_max": fit.co_density_max})
        self.rounds_table = pd.DataFrame(
            cols, index=pd.RangeIndex(1, self.rounds + 1, name="round"))

    @property
    def df_model(self) -> float:
        """Number of leveraging coefficients α_j (one per round)."""
        return float(self.rounds)

    @property
    def n_forgotten(self) -> int:
        """Weights at 0 after the last round (docs/tempered.md §2.5)."""
        return int(self.fit_info.n_forgotten[-1])

    @property
    def max_forgotten(self) -> int:
        return int(np.max(self.fit_info.n_forgotten))

    # ---- prediction -------------------------------------------------------------
    def _terms(self, X: np.ndarray) -> np.ndarray:
        """(J, n) terms α_j h_j(x)."""
        return np.array([a * h.predict(X) for a, h in zip(self.alpha, self.hypotheses)])

    def _link_for(self, newdata: pd.DataFrame,
                  clipped: bool = False) -> tuple[np.ndarray, np.ndarray]:
        X, na = self.design.transform(newdata)
        terms = self._terms(X)
        return (clipped_sum(terms, self.delta) if clipped else terms.sum(axis=0)), na

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "response",
                clipped: bool = False) -> pd.Series:
        """Predictions of H_J, or of the clipped H_J^(δ) with ``clipped=True``.

        ``type``: ``"link"`` (H), ``"response"`` (p̂ = exp_t(H)/(exp_t(H) +
        exp_t(−H)), §2.6), ``"class"`` (the label with H ≥ 0).
        """
        check_predict_type(type)
        if newdata is None:
            eta = self.eta_clipped if clipped else self.eta
            return self.on_scale(eta, np.zeros(len(eta), dtype=bool), self.index, type)
        newdata = as_frame(newdata, "newdata")
        eta_ok, na = self._link_for(newdata, clipped=clipped)
        eta = np.full(len(newdata), np.nan)
        eta[~na] = eta_ok
        return self.on_scale(eta, na, newdata.index, type)

    # ---- margins (§4) -------------------------------------------------------------
    def margins(self, clipped: bool = False) -> pd.Series:
        """t-margins ν_t = tanh_t(y*H/2) of the training rows (docs/tempered.md §4),
        with the training labels; in (−1, 1] for t < 1."""
        ystar = 2.0 * self.y - 1.0
        H = self.eta_clipped if clipped else self.eta
        return pd.Series(tanh_t(ystar * H / 2.0, self.t), index=self.index, name="t-margin")

    def margin_bound(self, theta: ArrayLike) -> np.ndarray:
        """((1 + θ)/(1 − θ))^{2−t} Π_j K_t(ρ_j), the bound of §2.7 on
        F_{t,θ} = mean[ν_t ≤ θ] (closed-form μ, no forgetting)."""
        theta = np.asarray(theta, dtype=float)
        return ((1 + theta) / (1 - theta)) ** (2.0 - self.t) * float(np.prod(self.fit_info.K))

    @property
    def risk_path(self) -> pd.Series:
        """The tempered exponential loss of H_j, Π_{k≤j} Z_k^(2−t) (docs/tempered.md §2.3),
        1 at round 0 (H = 0) and after each round j."""
        z = np.asarray(self.fit_info.Z, dtype=float)
        loss = np.r_[1.0, np.cumprod(z ** (2.0 - self.t))]
        path = pd.Series(loss, index=pd.RangeIndex(len(loss), name="round"),
                         name="tempered exponential loss")
        # how a plot of the path labels it (ubreg.plots.risk_path reads attrs)
        path.attrs.update(ylabel="tempered exp. loss = Π Z^(2−t)",
                          title=f"Tempered exponential loss (t = {self.t:g})")
        return path

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (t, the rounds and the training error)."""
        from ..summary.printed import framed, tboost_lines
        return framed(self, tboost_lines(self))

    def summary(self) -> TBoostSummary:
        """Rounds, temperature, clipping, training errors and the per-round table."""
        from ..summary.tboost import TBoostSummary
        return TBoostSummary(self)
