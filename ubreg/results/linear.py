"""The result of a linear ULS fit: coefficients with glm-grade inference."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special

from ..design import as_frame
from ..families.base import ArrayOrFloat, Family
from ..fitters.uls import LinearFit, working_design, working_transform
from ..numerics.factor_matrix import FactorMatrix, row_blocks, take_columns
from ..numerics.separation import Separation
from .base import BinaryResult, Capabilities, check_predict_type
from .cluster import cluster_label, clustered_covariance
from .inference import HC_TYPES, deviance, given_covariance, hc_covariance, wald_table
from .influence import InfluenceMixin
from .terms import predict_terms, row_positions

if TYPE_CHECKING:
    from ..summary.linear import LinearSummary

__all__ = ["LinearResult", "posterior_slope", "one_vcov"]


class LinearResult(InfluenceMixin, BinaryResult):
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
    offset : ndarray or None
        The offset of each training row (η = xᵀβ + offset), None without one.
    na_action : {"omit", "exclude", "fail"}
        R's: with ``"exclude"``, :meth:`residuals`, :attr:`fitted_values`,
        :meth:`hatvalues` and the other influence measures
        (:class:`~ubreg.results.influence.InfluenceMixin`) have one entry per input
        row (after ``subset``), NaN where a row was dropped (R's ``naresid``).
    model_matrix : ndarray or None
        The design matrix of the training rows (R's ``model.matrix``): hat values,
        HC2/HC3, profile intervals and ``predict(se_fit=True)`` of the training
        rows read it.  None for a fit that does not hold its rows (Dask).  The
        result keeps a factor's columns as its codes
        (:class:`~ubreg.numerics.factor_matrix.FactorMatrix`) and those
        computations read it so; this attribute makes the dense n × p array
        on each access.
    profiler : callable or None
        The constrained fits of profile-likelihood intervals
        (:func:`ubreg.fitters.profile.profile_intervals`), handed over by the
        method that made the result, as R's glm records its fitting function for
        ``profile.glm``: a result does not refit by itself.
    """

    method = "uls"
    # defaults for results pickled before these existed
    _X: Any = None
    offset = None
    _null_eta = None
    na_action = "omit"
    input_index = None
    profiler = None
    #: the search's path when the model is :func:`ubreg.step`'s choice (R's ``$anova``)
    anova: pd.DataFrame
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_likelihood=True,
                                has_residuals=True, has_coefficients=True, has_covariance=True,
                                has_risk_path=True, has_edge_path=True)

    def __init__(self, *, fit: LinearFit, covariance: dict, separation: Separation | None,
                 model_matrix: np.ndarray | FactorMatrix | None = None,
                 offset: np.ndarray | None = None,
                 null_eta: np.ndarray | None = None, na_action: str = "omit",
                 input_index: pd.Index | None = None, profiler: Callable[..., Any] | None = None,
                 trials: np.ndarray | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.trials = trials
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
        self._X = model_matrix
        self.offset = None if offset is None else np.asarray(offset, dtype=np.float64)
        self._null_eta = null_eta
        self.na_action = na_action
        self.input_index = input_index
        self.profiler = profiler

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

    # ---- covariances ------------------------------------------------------
    @property
    def hessian_effective_rows(self) -> float:
        """Kish's effective number of rows of the Hessian A = Σ cᵢ xᵢxᵢᵀ, c = w ℓ'': (Σc)²/Σc².

        Near n when every row carries curvature; a few when a thin band of rows at a
        bounded link's edge carries it all (logcosh with ζ = −20: about 3 of 200), where
        the Wald tests, model-based or robust, lose their level: the fit then warns
        (:class:`~ubreg.errors.InferenceWarning`) when it is under
        :data:`CONCENTRATED_ROWS_PER_COEF` per coefficient."""
        c = self.weights * self.family.hessian(self.y, self.eta)
        c = np.where(np.isfinite(c), c, 0.0)
        c = c / c.max() if c.size and c.max() > 0 else c      # scale-free, no overflow
        ss = float(c @ c)
        return float(c.sum() ** 2 / ss) if ss > 0 else 0.0

    def concentration_note(self) -> str | None:
        """Why the Wald inference may not hold its level (a Hessian carried by a few
        rows, :attr:`hessian_effective_rows`), or None."""
        return concentration_message(self)

    @property
    def default_vcov(self) -> str:
        """The covariance of ``bse``, ``summary()`` and every Wald tool unless one is asked
        for: ``"model"`` (R's) for a likelihood family (``entropy``, ``entropy2``), the
        robust sandwich HC0 (``"robust"``) for any other, whose model-based covariance
        undercovers when the data do not follow the family's model."""
        return "model" if self.family.binomial_likelihood else "robust"

    def vcov(self, kind: Any = None, cluster: Any = None) -> pd.DataFrame:
        """Covariance of β̂ (docs/math.md §3).

        Parameters
        ----------
        kind : {"model", "HC0", "HC1", "HC2", "HC3", "robust"}, optional
            By default :attr:`default_vcov`.
            ``"model"``: A⁻¹B_model A⁻¹, glm's ``vcov`` for ``entropy``.  The others
            are ``sandwich::vcovHC(type = kind)``: HC0 (``"robust"`` is its alias)
            A⁻¹B_robust A⁻¹; HC1 = HC0 · n/(n − k) (n = :attr:`nobs`, k the rank);
            HC2 and HC3 divide each row's meat by 1 − hᵢ and (1 − hᵢ)², hᵢ the hat
            values of the weighted fit (:meth:`hatvalues`).
        cluster : str, list of str, array-like or DataFrame, optional
            Cluster-robust: ``sandwich::vcovCL(fit, cluster = ~ g, type = kind)``, by
            default of type HC0 (R's for a glm) with the G/(G − 1) adjustment; HC1 also
            multiplies by (n − 1)/(n − k).  A column name of the fit's data, names for
            multi-way clustering, or one label per training row
            (:func:`~ubreg.results.cluster.clustered_covariance`).

        ``kind`` may also be a covariance matrix (a DataFrame labelled by the coefficients,
        or a (p, p) array), returned checked: the form every Wald tool takes as
        ``vcov=`` (R's ``coeftest(m, vcov = V)``).
        """
        if kind is not None and not isinstance(kind, str):
            if cluster is not None:
                raise ValueError("give a covariance matrix or cluster=, not both")
            names = self.coef.index
            return pd.DataFrame(given_covariance(kind, names), index=names, columns=names)
        if cluster is not None:
            V = clustered_covariance(self, kind, cluster)[0]
            return pd.DataFrame(V, index=self.coef.index, columns=self.coef.index)
        key = self._vcov_key(self.default_vcov if kind is None else kind)
        if key not in self._cov:
            self._cov[key] = self._computed_cov(key)
        names = self.coef.index
        return pd.DataFrame(self._cov[key], index=names, columns=names)

    @staticmethod
    def _vcov_key(kind: str) -> str:
        if isinstance(kind, str):
            if kind in ("model", "robust"):
                return kind
            if kind.upper() in HC_TYPES:
                return "robust" if kind.upper() == "HC0" else kind.upper()
        raise ValueError(f"vcov must be 'model', 'HC0', 'HC1', 'HC2', 'HC3' or 'robust' (HC0), "
                         f"got {kind!r}")

    def _computed_cov(self, key: str) -> np.ndarray:
        """HC1 from HC0; HC2 and HC3 from the hat values of the training rows."""
        if key == "HC1":
            n, k = self.nobs, self.rank
            return self._cov["robust"] * (n / (n - k) if n > k else np.nan)
        X = self._training_matrix(f"vcov({key!r})")
        fit = self.fit_info
        V = hc_covariance(key, working_design(X, fit), self.y, self.weights, self.eta,
                          self.family, transform=working_transform(fit, 1.0),
                          weight_kind=self.weight_kind)
        full = np.full((len(self.coef), len(self.coef)), np.nan)
        keep = ~fit.aliased
        full[np.ix_(keep, keep)] = V
        flat = self.flat.to_numpy()
        full[flat, :] = np.nan
        full[:, flat] = np.nan
        return full

    @property
    def model_matrix(self) -> np.ndarray | None:
        """The design matrix of the training rows, dense (n × p float64), or None
        (the class docstring)."""
        return None if self._X is None else np.asarray(self._X, dtype=np.float64)

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "model_matrix" in state:             # pickled before the codes were kept
            state = dict(state)
            state["_X"] = state.pop("model_matrix")
        super().__setstate__(state)

    def _training_matrix(self, what: str) -> np.ndarray | FactorMatrix:
        if self._X is None:
            raise ValueError(f"{what} needs the design matrix of the training rows, which this "
                             "result does not hold (a fit of a Dask frame): fit the data in "
                             "memory")
        return self._X

    def _wald(self, cov: Any = None, level: float = 0.95,
              cluster: Any = None) -> dict[str, np.ndarray]:
        return wald_table(self.coef.to_numpy(), self.vcov(cov, cluster).to_numpy(), level)

    @property
    def bse(self) -> pd.Series:
        return pd.Series(self._wald()["se"], index=self.coef.index, name="bse")

    @property
    def zvalues(self) -> pd.Series:
        return pd.Series(self._wald()["z"], index=self.coef.index, name="z")

    @property
    def pvalues(self) -> pd.Series:
        return pd.Series(self._wald()["p"], index=self.coef.index, name="p")

    # ---- intervals and tables ----------------------------------------------
    def conf_int(self, level: float = 0.95, cov: Any = None, *, vcov: Any = None,
                 parm: Any = None, cluster: Any = None) -> pd.DataFrame:
        """Wald confidence intervals β̂ ± z_{(1+level)/2}·se (R's ``confint.default``),
        with the covariance ``vcov`` (``cov`` is its older name; a kind or a matrix of
        :meth:`vcov`; by default :attr:`default_vcov`), cluster-robust with ``cluster``
        (``lmtest::coefci(fit, vcov = vcovCL)``); ``parm``: the rows of these
        coefficients only (names), as R's ``parm``."""
        _check_level(level)
        rows = self._parm_rows(parm)
        chosen = one_vcov(vcov, cov, self.default_vcov if cluster is None else "HC0")
        t = self._wald(chosen, level, cluster)
        lo, hi = _interval_names(level)
        return pd.DataFrame({lo: t["lower"], hi: t["upper"]}, index=self.coef.index).iloc[rows]

    def _parm_rows(self, parm: Any) -> list[int]:
        """The positions of R's ``parm`` (a coefficient name or names), all by default."""
        names = list(self.coef.index)
        if parm is None:
            return list(range(len(names)))
        asked = [parm] if isinstance(parm, str) else list(parm)
        unknown = [p for p in asked if p not in names]
        if unknown:
            raise ValueError(f"parm: no coefficient {unknown[0]!r}; the coefficients are "
                             f"{', '.join(names)}")
        return [names.index(p) for p in asked]

    def confint(self, level: float = 0.95, method: str | None = None, *, parm: Any = None,
                cluster: Any = None) -> pd.DataFrame:
        """Confidence intervals for the coefficients, as R's ``confint``.

        Parameters
        ----------
        level : float
            The confidence level; the columns are named as R names them
            (``"2.5 %"``, ``"97.5 %"`` at 0.95).
        method : {"profile", "wald"}, optional
            ``"profile"`` (the default for ``entropy``, R's ``confint`` of a glm):
            the profile-likelihood interval {b : |zⱼ(b)| ≤ z_{(1+level)/2}}, zⱼ the
            signed root of the deviance of the fit with βⱼ held at b
            (:mod:`ubreg.fitters.profile`).  R (MASS) interpolates the profile
            with a spline; ubreg solves for the exact crossing (Brent's method on
            constrained refits), so the two agree to about 1e-4 relative and
            ubreg's is the more exact.  ``"wald"`` (the default and only choice
            for every other family, whose deviance is not a likelihood ratio,
            docs/math.md §3): β̂ ± z·se with the default covariance
            (:attr:`default_vcov`), R's ``confint.default``.
        parm : str or list of str, optional
            R's ``parm``: the intervals of these coefficients only (a profile is then
            computed for them alone).
        cluster : optional
            Wald intervals with the cluster-robust covariance (:meth:`vcov`; R's
            ``lmtest::coefci(fit, vcov = vcovCL(fit, cluster = ~ g))``); the method must
            then be ``"wald"`` (the default with ``cluster``).

        Profile intervals are computed once per level (a result does not change) and
        then returned as copies.
        """
        if not isinstance(level, (int, float)):
            raise ValueError(f"level must be a number; the coefficients go in parm= "
                             f"(R's confint(m, parm)), got level={level!r}")
        _check_level(level)
        rows = self._parm_rows(parm)
        profile_ok = bool(self.family.binomial_likelihood) and cluster is None
        method = ("profile" if profile_ok else "wald") if method is None else method
        if method == "wald":
            return self.conf_int(level, parm=parm, cluster=cluster)
        if cluster is not None:
            raise ValueError("a cluster-robust interval is a Wald interval: use "
                             "method='wald' (or no method) with cluster")
        if method != "profile":
            raise ValueError(f"method must be 'profile' or 'wald', got {method!r}")
        if not profile_ok:
            raise ValueError(f"profile-likelihood intervals need a likelihood: the deviance of "
                             f"family {self.family.describe()} is a surrogate risk, whose "
                             "differences are not likelihood ratios (docs/math.md §3); use "
                             "method='wald'")
        cache = self.__dict__.setdefault("_profiles", {})
        if level in cache:
            return cache[level].iloc[rows].copy()
        if parm is not None:                   # only these profiles
            return self._profile(level, rows).iloc[rows]
        cache[level] = self._profile(level)
        return cache[level].copy()

    def _profile(self, level: float, rows: list[int] | None = None) -> pd.DataFrame:
        """The profile-likelihood intervals at ``level`` (:meth:`confint`)."""
        keep = ~self.fit_info.aliased
        X = take_columns(self._training_matrix("confint(method='profile')"), keep)
        if self.profiler is None:
            raise ValueError("profile-likelihood intervals need the constrained fits of the "
                             "method that made this result, which it was not given; use "
                             "method='wald'")
        offset = np.zeros(len(self.y)) if self.offset is None else self.offset
        lower, upper = np.full(len(keep), np.nan), np.full(len(keep), np.nan)
        kept = np.cumsum(keep) - 1                 # a design column's place among the kept
        columns = None if rows is None else {int(kept[r]) for r in rows if keep[r]}
        lower[keep], upper[keep] = self.profiler(
            X, self.y, self.weights, offset, self.family, self.coef.to_numpy()[keep],
            self.bse.to_numpy()[keep], self.deviance, level, columns)
        lo, hi = _interval_names(level)
        return pd.DataFrame({lo: lower, hi: upper}, index=self.coef.index)

    def coef_table(self, vcov: Any = None, level: float = 0.95, *,
                   cov: Any = None, cluster: Any = None) -> pd.DataFrame:
        """Tidy coefficient table: estimate, std_error, z, p, conf_low, conf_high
        (Wald, with the covariance ``vcov`` of :meth:`vcov`, cluster-robust with
        ``cluster``; ``cov`` is its older name)."""
        default = self.default_vcov if cluster is None else "HC0"
        t = self._wald(one_vcov(vcov, cov, default), level, cluster)
        return pd.DataFrame({"estimate": self.coef.to_numpy(), "std_error": t["se"], "z": t["z"],
                             "p": t["p"], "conf_low": t["lower"], "conf_high": t["upper"]},
                            index=pd.Index(self.coef.index, name="term"))

    # ---- prediction -------------------------------------------------------
    def _rows_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The design rows of the complete rows of ``newdata``, their η (offset
        included) and the mask of NA rows (a missing offset variable included)."""
        X, na = self.design.transform(newdata)
        beta = np.nan_to_num(self.coef.to_numpy(), nan=0.0)  # aliased columns contribute 0
        eta = X @ beta
        if self.design.has_offset:
            offset = self.design.offset_of(newdata)
            missing = np.isnan(offset[~na])
            eta = eta + offset[~na]
            X, eta, na = X[~missing], eta[~missing], na | np.isnan(offset)
        return X, eta, na

    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        _, eta, na = self._rows_for(newdata)
        return eta, na

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "response", *,
                se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                vcov: str | None = None, cluster: Any = None) -> pd.Series | pd.DataFrame:
        """Predictions on the link, response or class scale (:meth:`BinaryResult.predict`).

        With ``se_fit=True`` or ``interval="confidence"`` a DataFrame indexed like
        ``newdata`` (the training rows when it is None), R's ``predict.glm(se.fit =
        TRUE)``: ``fit``, ``se_fit`` (√(xᵀVx) with V the covariance ``vcov`` of
        :meth:`vcov`, by default :attr:`default_vcov`, cluster-robust with ``cluster``,
        on the link scale; times
        |dp̂/dη| = 1/φ''(p̂) on the response scale, the delta method) and,
        with ``interval``, ``lower`` and ``upper``: η ± z_{(1+level)/2}·se on the link
        scale, mapped through the posterior for ``type="response"``.

        ``type="terms"``: R's ``predict(fit, type = "terms")``, η split by term (centred
        columns; ``attrs["constant"]`` holds the rest, :mod:`ubreg.results.terms`).
        """
        if type == "terms":
            if se_fit or interval is not None:
                raise ValueError("se_fit and interval are not given for type='terms'")
            return predict_terms(self, newdata)
        given = cluster is not None or (vcov is not None and not isinstance(vcov, str))
        kind = vcov if given else self._vcov_key(self.default_vcov if vcov is None else vcov)
        if not se_fit and interval is None:
            return super().predict(newdata, type)
        check_predict_type(type)
        if type == "class":
            raise ValueError("se_fit and interval apply to type='link' or 'response', "
                             "not 'class'")
        if interval not in (None, "confidence"):
            raise ValueError(f"interval must be 'confidence' or None, got {interval!r} (a "
                             "prediction interval has no meaning for a binary response)")
        _check_level(level)
        if newdata is None:
            X, eta_ok = self._training_matrix("predict(se_fit=True)"), self.eta
            index, na = self.index, np.zeros(len(self.eta), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            (X, eta_ok, na), index = self._rows_for(newdata), newdata.index
        V = self.vcov(kind, cluster).to_numpy()
        return _se_frame(self, X, eta_ok, na, index, type, se_fit, interval, level, V)

    # ---- residuals, padded as R's na.exclude --------------------------------
    @property
    def fitted_values(self) -> pd.Series:
        """Posterior p̂ᵢ of the training rows (offset included; unclipped for the LPM),
        padded with NaN to the input rows under ``na_action="exclude"``."""
        return self._padded(super().fitted_values)

    def residuals(self, type: str = "deviance") -> pd.Series:
        """Residuals of the training rows, as R's ``residuals.glm``.

        ``deviance``, ``pearson`` and ``response`` as
        :meth:`BinaryResult.residuals`; ``working``: (yᵢ − p̂ᵢ)/(dp̂/dη) =
        (yᵢ − p̂ᵢ)·φ''(p̂ᵢ), the residual of the last IRLS step ((y − p̂)/(p̂(1 − p̂))
        for ``entropy``).  Under ``na_action="exclude"`` one entry per input row,
        NaN where a row was dropped.
        """
        if type == "working":
            slope = posterior_slope(self.family, self.eta)
            with np.errstate(divide="ignore", invalid="ignore"):
                r = (self.y - self.family.posterior(self.eta)) / slope
            out = pd.Series(r, index=self.index, name="working residual")
        elif type in ("deviance", "pearson", "response"):
            out = super().residuals(type)
        else:
            raise ValueError(f"type must be 'deviance', 'pearson', 'working' or 'response', "
                             f"got {type!r}")
        return self._padded(out)

    def _padded(self, values: pd.Series) -> pd.Series:
        """``values`` over the training rows, reindexed to the input rows (NaN for the
        dropped ones) under ``na_action="exclude"`` (R's ``naresid``)."""
        if self.na_action != "exclude" or self.input_index is None:
            return values
        out = np.full(len(self.input_index), np.nan)
        out[row_positions(self.input_index, self.index)] = values.to_numpy(dtype=np.float64)
        return pd.Series(out, index=self.input_index, name=values.name)

    # ---- deviance with an offset -------------------------------------------
    @property
    def null_deviance(self) -> float:
        """The deviance of the null model: the intercept (if any) and the offset, as R's
        glm computes it (the fit of the intercept alone with the offset; without an
        intercept, η = offset)."""
        if self._null_eta is None:
            return super().null_deviance
        return deviance(self.family, self.y, self._null_eta, self.weights)

    @property
    def is_linear_probability_model(self) -> bool:
        return getattr(self.family, "extends_past_domain", False)

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (R's ``print.glm``)."""
        from ..summary.printed import glm_lines
        return glm_lines(self)

    def summary(self, vcov: Any = None, *, cov: Any = None,
                cluster: Any = None) -> LinearSummary:
        """R ``summary.glm``-style summary (text, HTML and DataFrame forms), with the
        standard errors of the covariance ``vcov`` (:meth:`vcov`; ``cov`` is its
        older name), cluster-robust with ``cluster`` (``lmtest::coeftest(fit, vcov =
        vcovCL(fit, cluster = ~ g))``); the header names it."""
        from ..summary.linear import LinearSummary
        if cluster is None:
            chosen = one_vcov(vcov, cov, self.default_vcov)
            label = None if isinstance(chosen, str) else "as given (a vcov= matrix)"
            return LinearSummary(self, cov=chosen, label=label)
        _, clusters, kind = clustered_covariance(self, one_vcov(vcov, cov, "HC0"), cluster)
        return LinearSummary(self, cov=kind, cluster=cluster,
                             label=cluster_label(kind, clusters))


#: fewer effective Hessian rows than this per coefficient: the Wald level is not to be trusted
CONCENTRATED_ROWS_PER_COEF = 10


def concentration_message(result: LinearResult) -> str | None:
    """The warning (and summary note) of a Hessian carried by a few rows, or None."""
    k = int(np.sum(np.isfinite(result.coef.to_numpy())))
    rows = result.hessian_effective_rows
    if k == 0 or rows >= CONCENTRATED_ROWS_PER_COEF * k:
        return None
    return (f"the curvature of the fit is carried by few rows: the Hessian's effective "
            f"number of rows (Σc)²/Σc² is {rows:.1f} of {len(result.y)} for {k} "
            "coefficients, so Wald tests and intervals (model-based or robust) may not hold "
            "their level; prefer cross-validation or a family with a wider link "
            "(docs/inference.md)")


def one_vcov(vcov: Any, cov: Any, default: str = "model") -> Any:
    """The covariance asked for by ``vcov`` or its older name ``cov`` (not both), else
    ``default`` (a result's :attr:`LinearResult.default_vcov`): a kind, checked, or a
    matrix (checked when it is read, :meth:`LinearResult.vcov`)."""
    if vcov is not None and cov is not None and not (isinstance(vcov, str) and vcov == cov):
        raise TypeError("give vcov or cov (its older name), not both")
    kind = vcov if vcov is not None else cov if cov is not None else default
    if isinstance(kind, str):
        LinearResult._vcov_key(kind)
    return kind


def posterior_slope(family: Family, eta: ArrayLike) -> ArrayOrFloat:
    """dp̂/dη (R's ``mu.eta``): :meth:`Family.posterior_derivative`, 1/φ''(p̂) for a
    permissible family (docs/math.md §3: its curvature in η; 0 for a saturated row), the
    closed form of a binomial link, a central difference for any other loss."""
    return family.posterior_derivative(np.asarray(eta, dtype=np.float64))


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def _interval_names(level: float) -> tuple[str, str]:
    """R's column names of a confidence interval: ``"2.5 %"``, ``"97.5 %"``."""
    return f"{100 * (1 - level) / 2:g} %", f"{100 * (1 + level) / 2:g} %"


def _se_frame(result: LinearResult, X: np.ndarray | FactorMatrix, eta_ok: np.ndarray,
              na: np.ndarray,
              index: pd.Index, type: str, se_fit: bool, interval: str | None,
              level: float, V: np.ndarray) -> pd.DataFrame:
    """``predict.glm(se.fit = TRUE)``'s fit and se, and the confidence limits, with the
    covariance V (p × p)."""
    keep = ~result.fit_info.aliased
    V = V[np.ix_(keep, keep)]
    quad = np.empty(X.shape[0])
    for start, stop, rows in row_blocks(take_columns(X, keep)):
        quad[start:stop] = np.einsum("ij,jk,ik->i", rows, V, rows)
    se_link = np.sqrt(np.maximum(quad, 0.0))
    n = len(na)
    cols = {}

    def full(values: ArrayOrFloat) -> np.ndarray:
        out = np.full(n, np.nan)
        out[~na] = values
        return out

    family = result.family
    if type == "link":
        cols["fit"] = full(eta_ok)
        cols["se_fit"] = full(se_link)
    else:
        cols["fit"] = full(family.posterior(eta_ok))
        cols["se_fit"] = full(np.abs(posterior_slope(family, eta_ok)) * se_link)
    if interval is not None:
        q = float(special.ndtri(0.5 + level / 2.0))
        lo: ArrayOrFloat = eta_ok - q * se_link
        hi: ArrayOrFloat = eta_ok + q * se_link
        if type == "response":
            lo, hi = family.posterior(lo), family.posterior(hi)
        cols["lower"], cols["upper"] = full(lo), full(hi)
    if not se_fit:
        del cols["se_fit"]
    return pd.DataFrame(cols, index=index)
