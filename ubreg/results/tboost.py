"""The result of ``method="tboost"``: H_J, the clipped H_J^(δ), margins, summary.

docs/tempered.md §2.6 (final classifiers), §2.7 (guarantee), §4 (t-margins).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..design import as_frame
from ..fitters.tboost.algebra import clip_level, clipped_sum, is_one, tanh_t
from ..fitters.tboost.boost import TBoostFit
from ..summary.render import render_template
from .base import Result

__all__ = ["TBoostResult", "TBoostSummary", "plot_margins"]

_PREDICT_TYPES = ("response", "link", "class")


class TBoostResult(Result):
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
    """

    method = "tboost"

    def __init__(self, *, fit: TBoostFit, learner: str, options: dict, **kwargs):
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
        cols = {"mu": fit.mu}
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
    def _terms(self, X):
        """(J, n) terms α_j h_j(x)."""
        return np.array([a * h.predict(X) for a, h in zip(self.alpha, self.hypotheses)])

    def _link_for(self, newdata, clipped=False):
        X, na = self.design.transform(newdata)
        terms = self._terms(X)
        return (clipped_sum(terms, self.delta) if clipped else terms.sum(axis=0)), na

    def predict(self, newdata=None, type: str = "response", clipped: bool = False) -> pd.Series:
        """Predictions of H_J, or of the clipped H_J^(δ) with ``clipped=True``.

        ``type``: ``"link"`` (H), ``"response"`` (p̂ = exp_t(H)/(exp_t(H) +
        exp_t(−H)), §2.6), ``"class"`` (the label with H ≥ 0).
        """
        if type not in _PREDICT_TYPES:
            raise ValueError(f"type must be one of {_PREDICT_TYPES}, got {type!r}")
        if newdata is None:
            eta = self.eta_clipped if clipped else self.eta
            return self._on_scale(eta, np.zeros(len(eta), dtype=bool), self.index, type)
        newdata = as_frame(newdata, "newdata")
        eta_ok, na = self._link_for(newdata, clipped=clipped)
        eta = np.full(len(newdata), np.nan)
        eta[~na] = eta_ok
        return self._on_scale(eta, na, newdata.index, type)

    # ---- margins (§4) -------------------------------------------------------------
    def margins(self, clipped: bool = False) -> pd.Series:
        """t-margins ν_t = tanh_t(y*H/2) of the training rows (docs/tempered.md §4),
        with the training labels; in (−1, 1] for t < 1."""
        ystar = 2.0 * self.y - 1.0
        H = self.eta_clipped if clipped else self.eta
        return pd.Series(tanh_t(ystar * H / 2.0, self.t), index=self.index, name="t-margin")

    def margin_bound(self, theta) -> np.ndarray:
        """((1 + θ)/(1 − θ))^{2−t} Π_j K_t(ρ_j), the bound of §2.7 on
        F_{t,θ} = mean[ν_t ≤ θ] (closed-form μ, no forgetting)."""
        theta = np.asarray(theta, dtype=float)
        return ((1 + theta) / (1 - theta)) ** (2.0 - self.t) * float(np.prod(self.fit_info.K))

    def plot_margins(self, ax=None, clipped: bool = False):
        return plot_margins(self, ax=ax, clipped=clipped)

    def summary(self):
        return TBoostSummary(self)


def plot_margins(result: TBoostResult, ax=None, clipped: bool = False):
    """Cumulative distribution of the t-margins (docs/tempered.md §4) with the
    bound of §2.7; returns the axes.  matplotlib is imported here only."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.5))
    nu = np.sort(result.margins(clipped=clipped).to_numpy())
    ecdf = np.arange(1, nu.size + 1) / nu.size
    ax.step(nu, ecdf, where="post", label=f"F(ν ≤ θ), t = {result.t:g}"
            + (" (clipped)" if clipped else ""))
    theta = np.linspace(-0.99, 0.99, 200)
    bound = result.margin_bound(theta)
    ax.plot(theta, np.minimum(bound, 1.0), ls="--", lw=1, label="bound (§2.7)")
    ax.set_xlabel("t-margin θ")
    ax.set_ylabel("fraction of training rows")
    ax.set_xlim(-1, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(loc="upper left", fontsize="small")
    return ax


class TBoostSummary:
    """Summary of a t-AdaBoost fit: text, HTML and DataFrame (the rounds)."""

    def __init__(self, result: TBoostResult):
        self.result = result

    def frame(self) -> pd.DataFrame:
        return self.result.rounds_table.copy()

    def facts(self) -> dict:
        r = self.result
        ystar = 2.0 * r.y - 1.0
        # weights over a power of two near their largest: no overflow of Σ w, same bits
        w = np.ldexp(r.weights, -int(np.frexp(np.max(r.weights))[1]))
        err = float(np.sum(w * (ystar * r.eta <= 0)) / np.sum(w))
        err_c = float(np.sum(w * (ystar * r.eta_clipped <= 0)) / np.sum(w))
        obs = f"{r.nobs:g}"
        if r.n_dropped:
            obs += f" ({r.n_dropped} observation(s) deleted due to missingness)"
        lines = [
            ("Observations", obs),
            ("Temperature", f"t = {r.t:g} (t* = {1 / (2 - r.t):.4g})"),
            ("Weak learner", f"{r.learner} {r.options.get('learner_desc', '')}".strip()),
            ("mu", r.options.get("mu", "closed")),
            ("Rounds", f"{r.rounds}" + (f" (stopped: {r.stopped})" if r.stopped else "")),
            ("Clipping level", "none (t = 1)" if is_one(r.t) else f"delta = {r.delta:.6g}"),
            ("Training error", f"{err:.4g} (H_J), {err_c:.4g} (clipped H_J^(delta))"),
            ("Forgotten weights", (f"{r.n_forgotten} after the last round, at most "
                                   f"{r.max_forgotten} in a round")),
            ("Tempered exp. loss", f"prod Z^(2-t) = {float(np.prod(r.fit_info.Z ** (2 - r.t))):.6g}"),
        ]
        notes = []
        if r.max_forgotten and r.options.get("mu") == "closed":
            notes.append("Weights were forgotten with the closed-form mu: some |rho_j| = 1, "
                         "or (t > 1) some weight became infinite and the infinite weights took "
                         "all the mass.")
        if "mu_closed" in r.rounds_table:
            notes.append("mu = exact: mu is the exact projection (the mu used); rho_j and "
                         "K_t(rho_j) are those of the closed form (2.2a), not of the exact mu. "
                         "K_t(rho_j) bounds Z_closed^(2-t), the Z_j the closed-form mu_closed "
                         "would give; the exact mu minimises Z_j, so Z_j <= Z_closed.")
        return {"lines": lines, "notes": notes}

    def _table(self):
        cols = ["mu", "mu_closed", "alpha", "rho", "Z", "Z_closed", "K_t(rho)", "forgotten"]
        tab = self.frame()
        return tab[[c for c in cols if c in tab]]

    def __str__(self):
        f = self.facts()
        out = [f"t-AdaBoost (paper 004): {self.result.formula}", "",
               "Call:", str(self.result.call), ""]
        width = max(len(k) for k, _ in f["lines"])
        out += [f"{k.ljust(width)}  {v}" for k, v in f["lines"]]
        out += ["", self._table().to_string(float_format=lambda v: f"{v:.5g}")]
        out += f["notes"]
        return "\n".join(out)

    def __repr__(self):
        return str(self)

    def html(self) -> str:
        f = self.facts()
        tab = self._table()
        rows = [[str(i)] + [f"{v:.5g}" for v in row] for i, row in zip(tab.index, tab.to_numpy())]
        return render_template("tboost_summary.html", call=self.result.call, lines=f["lines"],
                               table_title="Rounds", header=["round", *tab.columns], rows=rows,
                               notes=f["notes"])

    def _repr_html_(self):
        return self.html()
