"""The result of a linear ULS fit: coefficients with glm-grade inference."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..fitters.uls import LinearFit
from ..numerics.separation import Separation
from .base import BinaryResult, Capabilities
from .inference import wald_table

__all__ = ["LinearResult"]


class LinearResult(BinaryResult):
    """A linear separator H(x) = xᵀβ fitted by ULS (method ``"uls"``).

    Attributes
    ----------
    coef : pandas.Series
        Leveraging coefficients β, named as patsy names the design columns;
        NaN for aliased columns (as R reports NA).
    bse, zvalues, pvalues : pandas.Series
        Model-based standard errors, Wald z and two-sided normal p-values
        (use :meth:`coef_table` with ``cov="robust"`` for HC0).
    converged, iterations : bool, int
    risk_path, edge_path : ndarray
        Surrogate risk and largest |edge| per iteration (``fit_info``).
    separation : Separation or None
        The outcome of the separation check, when it ran (Lemma 8).
    flat : pandas.Series of bool
        Coefficients along which the risk has no curvature at the fit (the
        rows that inform them are saturated, :meth:`Family.saturated`): their
        standard errors are NaN, and the summary says why.
    """

    method = "uls"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_likelihood=True,
                                has_residuals=True, has_coefficients=True, has_covariance=True,
                                has_risk_path=True, has_edge_path=True)

    def __init__(self, *, fit: LinearFit, covariance: dict, separation: Separation | None,
                 **kwargs):
        super().__init__(**kwargs)
        names = self.design.column_names
        self.fit_info = fit
        self.coef = pd.Series(fit.coef, index=names, name="coef")
        self.aliased = pd.Series(fit.aliased, index=names, name="aliased")
        self._cov = {}
        keep = ~fit.aliased
        covariance = dict(covariance)
        flat = np.zeros(len(names), dtype=bool)
        flat[keep] = covariance.pop("flat", np.zeros(int(keep.sum()), dtype=bool))
        #: coefficients in a direction without curvature at the fit (no standard error)
        self.flat = pd.Series(flat, index=names, name="flat")
        for kind, V in covariance.items():
            full = np.full((len(names), len(names)), np.nan)
            full[np.ix_(keep, keep)] = V
            self._cov[kind] = full
        self.converged = bool(fit.converged and (separation is None or not separation.separated))
        self.iterations = fit.iterations
        self.separation = separation

    # ---- parameters -----------------------------------------------------
    @property
    def df_model(self) -> float:
        return float(np.sum(~self.fit_info.aliased))

    @property
    def rank(self) -> int:
        return int(np.sum(~self.fit_info.aliased))

    @property
    def risk_path(self) -> np.ndarray:
        """Surrogate risk ε_φ before each ULS iteration and at the end (``fit_info``)."""
        return self.fit_info.risk_path

    @property
    def edge_path(self) -> np.ndarray:
        """Largest |edge| before each ULS iteration and at the end (``fit_info``)."""
        return self.fit_info.edge_path

    def vcov(self, kind: str = "model") -> pd.DataFrame:
        """Covariance of β̂: ``"model"`` A⁻¹B_model A⁻¹ or ``"robust"`` (HC0).

        docs/math.md §3.  For ``entropy`` the model covariance is glm's; the robust
        one is ``sandwich::vcovHC(type = "HC0")``.
        """
        if kind not in self._cov:
            raise ValueError(f"kind must be 'model' or 'robust', got {kind!r}")
        names = self.coef.index
        return pd.DataFrame(self._cov[kind], index=names, columns=names)

    def _wald(self, cov="model", level=0.95):
        return wald_table(self.coef.to_numpy(), self.vcov(cov).to_numpy(), level)

    @property
    def bse(self) -> pd.Series:
        return pd.Series(self._wald()["se"], index=self.coef.index, name="bse")

    @property
    def zvalues(self) -> pd.Series:
        return pd.Series(self._wald()["z"], index=self.coef.index, name="z")

    @property
    def pvalues(self) -> pd.Series:
        return pd.Series(self._wald()["p"], index=self.coef.index, name="p")

    def conf_int(self, level: float = 0.95, cov: str = "model") -> pd.DataFrame:
        """Wald confidence intervals β̂ ± z_{(1+level)/2}·se (R's ``confint.default``)."""
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        t = self._wald(cov, level)
        lo, hi = f"{100 * (1 - level) / 2:g} %", f"{100 * (1 + level) / 2:g} %"
        return pd.DataFrame({lo: t["lower"], hi: t["upper"]}, index=self.coef.index)

    def coef_table(self, cov: str = "model", level: float = 0.95) -> pd.DataFrame:
        """Tidy coefficient table: estimate, std_error, z, p, conf_low, conf_high."""
        t = self._wald(cov, level)
        return pd.DataFrame({"estimate": self.coef.to_numpy(), "std_error": t["se"], "z": t["z"],
                             "p": t["p"], "conf_low": t["lower"], "conf_high": t["upper"]},
                            index=pd.Index(self.coef.index, name="term"))

    # ---- prediction -------------------------------------------------------
    def _link_for(self, newdata):
        X, na = self.design.transform(newdata)
        beta = np.nan_to_num(self.coef.to_numpy(), nan=0.0)  # aliased columns contribute 0
        return X @ beta, na

    @property
    def is_linear_probability_model(self) -> bool:
        return getattr(self.family, "extends_past_domain", False)

    def summary(self, cov: str = "model"):
        """R ``summary.glm``-style summary (text, HTML and DataFrame forms)."""
        from ..summary.linear import LinearSummary
        return LinearSummary(self, cov=cov)
