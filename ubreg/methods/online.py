"""On-line learning of a linear separator: Algorithm 2 of paper 000 (docs/math.md §9).

A stream of batches (data frames) is learned row by row with the q-norm
geodesic walk (eq. 93); the walk, the potential ψ_q and Theorem 3's rate
η = λ/((p − 1)λ_p²) (eq. 98) are in :mod:`ubreg.fitters.online`.  This module
holds the learner: formula, batches, design, prediction and summary.

Two options go beyond Algorithm 2 (which is the default walk): a decaying
rate η_t = η/√t (``rate="sqrt"``), and the average of the iterates as the
predictor (``average``, Polyak–Ruppert; on by default with the constant rate).
Averaging leaves the walk, and so Theorem 3's guarantee on its prequential
predictions, unchanged: only ``coef_``/``predict`` use w̄_T = (1/T) Σ_t w_t.

The design (columns, factor levels, response coding) is fixed by the first
batch; later batches go through the stored design and may not bring new
columns, factor levels or response values.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._pickling import warn_if_other_version
from .._version import __version__
from ..design import (
    Design,
    Response,
    as_frame,
    build_model_frame,
    checked_trusted,
    code_response_as,
    expand_dot,
    is_na,
    parse_formula,
    response_values,
)
from ..errors import DataError, FormulaError, PredictionError, ResponseError
from ..families import Family, PermissibleFamily, resolve_family
from ..fitters import online as qnorm
from ..results.base import Capabilities, Result, check_predict_type, class_series
from ..summary.online import OnlineSummary

__all__ = ["OnlineLearner"]

_RATES = ("constant", "sqrt")


class OnlineLearner(Result):
    """On-line linear separator by the q-norm geodesic walk, Algorithm 2 of paper 000.

    The learner is also its own fitted model: after ``partial_fit`` it predicts
    and summarises as every result does, and :func:`ubreg.compare`,
    :func:`ubreg.report` and the plots take it.  So it derives from
    :class:`~ubreg.results.base.Result` and declares its capabilities like
    every result: none beyond ``predict`` and ``summary``.  It keeps no
    training rows (the rows of a stream are seen once and let go), hence no
    training metrics, deviance or residuals: it is evaluated on new data
    (``ubreg.report(..., data=)``, ``metrics_of(learner, newdata)``).

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + x2"``; evaluated on the first batch, which fixes the design.
    family : Family or str, default ``Permissible("entropy")``
        A permissible family (the loss D_φ(y‖∇φ⁻¹(wᵀx))).
    q : float, default 2.0
        Exponent of the potential ψ_q = ½‖w‖_q², 1 < q ≤ 2 (Theorem 3).
        q = 2 is on-line gradient descent; q → 1 suits sparse references.
    eta : float, optional
        Learning rate.  ``None`` uses Theorem 3's η = λ/((p − 1)λ_p²) (eq. 98).
    rate : {"constant", "sqrt"}, default "constant"
        ``"constant"``: η at every row (Algorithm 2; Theorem 3 is stated for
        it).  ``"sqrt"``: η_t = η/√t, t = 1, 2, … counting rows from the
        first batch on (Theorem 3's bound is not claimed for it).
    average : bool, optional
        Predict with the average w̄_T = (1/T) Σ_{t≤T} w_t of the iterates
        (Polyak–Ruppert) instead of the last one, w_T.  Default: True with
        ``rate="constant"``, False with ``rate="sqrt"`` (averaging the early,
        large steps of a decaying rate slows it down).  The walk itself, its
        prequential predictions (``last_links_``, ``online_loss``) and
        ``walk_coef_`` do not depend on it.
    lambda_ : float, optional
        λ ≤ inf φ'' (eq. 97).  By default 1/sup_η hessian_eta(η), the exact
        infimum of φ'' over [0, 1] for a family whose φ'' is bounded below.
    lambda_p : float, optional
        λ_p ≥ sup‖x‖_p (eq. 96).  By default the largest ‖x‖_p of the first
        batch (an estimate: later rows may exceed it; the summary says so).
    positive : optional
        Response level coded y = 1 (default: the second level, as in R).
    trusted : bool, default False
        Passed to the formula checker (see :func:`ubreg.fit`).

    Notes
    -----
    What a stationary stream gives (entropy, the streams of tests/test_online.py
    and benchmarks/bench_online.py; test risk relative to the batch ULS fit of
    the same rows):

    * the last iterate w_T with the constant rate of Theorem 3 does not
      converge: it keeps moving by about η‖x‖ per row, so its risk stays at a
      level set by η, 4–15% above the batch risk on the test streams and
      11% (q = 2) and 7% (q = 1.5) above it on the 1e6-row benchmark, however
      long the stream.  Theorem 3 bounds the regret of the prequential
      predictions, not this;
    * the average w̄_T (the default predictor) removes that noise: within
      0.1–0.4% of the batch risk from a few thousand rows on (0.36% for q = 2
      and 0.12% for q = 1.5 on the benchmark), but a bias of order η
      remains, so the gap does not go to 0;
    * ``rate="sqrt"`` (last iterate) closes the gap as the stream grows:
      about 3% at 5 000 rows, 0.5% at 20 000, 0.03% at 80 000.

    Attributes
    ----------
    coef_ : pandas.Series
        The predictor's coefficients: w̄_T with ``average``, else w_T.
    walk_coef_ : pandas.Series
        The walk's current iterate w_T (Algorithm 2's state).
    n_seen, nobs : int
        Rows learned so far.
    n_dropped : int
        Rows dropped for NA.
    online_loss : float
        Σ_t D_φ(y_t‖p̂_t) of the predictions made *before* each update (the
        left-hand side of the regret bound, prequential).
    last_links_ : ndarray
        w_{t−1}ᵀx_t of the last batch's rows (the links used for p̂_t).

    Examples
    --------
    >>> import numpy as np, pandas as pd, ubreg
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": rng.normal(size=200)})
    >>> df["y"] = (df.x + rng.normal(size=200) > 0).astype(int)
    >>> ol = ubreg.OnlineLearner("y ~ x", q=2.0)
    >>> _ = ol.partial_fit(df.iloc[:100]).partial_fit(df.iloc[100:])
    >>> ol.n_seen
    200
    """

    method = "online"
    capabilities = Capabilities()
    #: rows dropped for NA so far
    n_dropped: int = 0
    family: PermissibleFamily           # Algorithm 2 walks on D_φ (checked in __init__)
    # Set by the first batch (partial_fit sets its state in one step, through
    # __dict__); absent before it.
    eta: float
    eta_source: str
    lambda_: float | None
    lambda_p: float | None
    _columns: list
    _formula: str

    def __init__(self, formula: str, family: Family | str | None = None, q: float = 2.0,
                 eta: float | None = None, *, rate: str = "constant",
                 average: bool | None = None, lambda_: float | None = None,
                 lambda_p: float | None = None, positive: Any = None,
                 trusted: bool = False) -> None:
        if not isinstance(formula, str):
            raise TypeError(f"formula must be a string, got {type(formula).__name__}")
        family = resolve_family(family)
        if not family.is_permissible:
            raise ValueError(f"OnlineLearner needs a permissible family (Algorithm 2 walks on "
                             f"D_phi); got {family.describe()}")
        try:
            q = float(q)
        except (TypeError, ValueError):
            raise ValueError(f"q must be a number with 1 < q <= 2, got {q!r}") from None
        if not (1.0 < q <= 2.0):
            raise ValueError(f"q must satisfy 1 < q <= 2 (Theorem 3), got q={q!r}")
        for name, v in (("eta", eta), ("lambda_", lambda_), ("lambda_p", lambda_p)):
            if v is not None and not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite positive number, got {v!r}")
        if rate not in _RATES:
            raise ValueError(f"rate must be one of {_RATES}, got {rate!r}")
        if average is None:
            average = rate == "constant"
        if not isinstance(average, (bool, np.bool_)):
            raise ValueError(f"average must be True, False or None, got {average!r}")
        self.formula = formula
        self.family = cast(PermissibleFamily, family)     # is_permissible, checked above
        self.rate = rate
        self.average = bool(average)
        self.q = q
        self.p = qnorm.dual_exponent(q)
        self.eta_given = eta
        self.lambda_given = lambda_
        self.lambda_p_given = lambda_p
        self.positive = positive
        self.trusted = checked_trusted(trusted)
        self.design: Design | None = None
        self.response: Response | None = None
        self.n_seen = 0
        self.n_batches = 0
        self.n_dropped = 0
        self.online_loss = 0.0
        self.online_errors = 0
        self.max_norm_p = 0.0
        self._w: np.ndarray | None = None
        self._theta: np.ndarray | None = None
        self._w_sum: np.ndarray | None = None           # Σ_{t≤T} w_t, for the average
        self.last_links_ = np.empty(0)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["ubreg_version"] = __version__
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        warn_if_other_version(state.pop("ubreg_version", None), what="on-line learner")
        # pickles of versions without the rate/average options: the constant
        # rate and the last iterate, as they had
        self.__dict__.update(state)
        self.__dict__.setdefault("rate", "constant")
        self.__dict__.setdefault("average", False)
        if self.__dict__.get("_w_sum") is None and self.__dict__.get("_w") is not None:
            self._w_sum = np.zeros_like(self._w)

    # ---- set-up from the first batch -------------------------------------------
    def _lambda_from_family(self) -> float:
        """1/sup hessian_eta = inf φ'' (the curvature bound of eq. 97)."""
        return self.family.curvature_lower_bound()

    def _start(self, batch: pd.DataFrame) -> tuple[dict[str, Any], np.ndarray, np.ndarray, int]:
        """The state the first batch sets (design, rate, zero iterates) as a dict,
        and the batch's rows: nothing is set on ``self`` (see :meth:`partial_fit`)."""
        frame = build_model_frame(self.formula, batch, na_action="drop", positive=self.positive,
                                  trusted=self.trusted)
        X = np.asarray(frame.X)                 # dense (no factor_codes)
        d = X.shape[1]
        st = {"design": frame.design, "response": frame.response,
              "_columns": list(batch.columns), "_formula": expand_dot(self.formula, batch.columns),
              "_w": np.zeros(d), "_theta": np.zeros(d), "_w_sum": np.zeros(d)}
        if self.eta_given is not None:
            st.update(eta=float(self.eta_given), eta_source="given", lambda_=self.lambda_given,
                      lambda_p=self.lambda_p_given)
            return st, X, frame.y, len(batch) - len(frame.y)
        if self.lambda_given is not None:
            lam, lam_src = float(self.lambda_given), "given"
        else:
            lam, lam_src = self._lambda_from_family(), "inf phi'' of the family"
        if self.lambda_p_given is not None:
            lp, lp_src = float(self.lambda_p_given), "given"
        else:
            lp = float(qnorm.p_norms(X, self.p).max())
            lp_src = "max ||x||_p of the first batch (an estimate)"
        if not lp > 0:
            raise DataError("every row of the first batch has x = 0: lambda_p cannot be "
                            "estimated; pass lambda_p= or eta=")
        eta = qnorm.theorem3_eta(lam, self.p, lp)
        if not (np.isfinite(eta) and eta >= np.finfo(float).tiny):
            raise DataError(f"Theorem 3's rate eta = lambda/((p-1) lambda_p^2) is {eta:.3g} with "
                            f"lambda_p = {lp:.3g} ({lp_src}): it underflows (or overflows), so "
                            "every step would be zero; rescale the predictors, or pass "
                            "lambda_p= or eta=")
        st.update(lambda_=lam, lambda_p=lp, eta=eta,
                  eta_source=(f"Theorem 3: eta = lambda/((p-1) lambda_p^2), lambda {lam_src}, "
                              f"lambda_p {lp_src}"))
        return st, X, frame.y, len(batch) - len(frame.y)

    def _later(self, batch: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, int]:
        k = self.n_batches + 1
        assert self.design is not None and self.response is not None    # after the first
        extra = [c for c in batch.columns if c not in self._columns]
        if extra:
            raise DataError(f"batch {k} has columns the first batch did not have: "
                            f"{extra}; the design is fixed by the first batch")
        try:
            X, na = self.design.transform(batch)      # raises on new factor levels
            parsed = parse_formula(self._formula, self._columns, trusted=self.trusted)
            assert parsed.response is not None      # a fit's formula has one
            missing = [c for c in parsed.response.reads if c not in batch.columns]
            if missing:
                raise DataError(f"the response {parsed.response.label!r} needs column(s) "
                                f"{missing}, which the batch lacks")
            _, yvals = response_values(parsed, batch, self.trusted)
        except (DataError, FormulaError, PredictionError) as exc:
            raise _in_batch(exc, k) from None
        yvals = pd.Series(np.asarray(yvals), index=batch.index)
        y_na = is_na(yvals)
        present = set(pd.unique(yvals[~y_na]).tolist())
        new = present - set(self.response.levels)
        if new:
            raise ResponseError(f"batch {self.n_batches + 1}: response {self.response.name!r} has "
                                f"values {sorted(map(str, new))} not among the levels "
                                f"{self.response.levels} of the first batch")
        y_all = code_response_as(yvals, self.response)
        y = y_all[~na]
        keep = ~np.isnan(y)
        return X[keep], y[keep], len(batch) - int(keep.sum())

    # ---- learning --------------------------------------------------------------
    def partial_fit(self, batch: pd.DataFrame) -> OnlineLearner:
        """Learn from one batch, row by row (Algorithm 2).  Returns self.

        Rows with NA are dropped (counted in ``n_dropped``).  ``batch`` is not
        modified.  All or nothing: the new state (iterates, average, counters,
        on-line loss and, on the first batch, the design) is computed aside and
        set in one step at the end, so an error or a ``KeyboardInterrupt`` in
        the middle of a batch leaves the learner exactly as it was before it.
        """
        batch = as_frame(batch, "batch")
        if len(batch) == 0:
            return self
        if self.design is None:
            st, X, y, dropped = self._start(batch)
        else:
            X, y, dropped = self._later(batch)
            st = {}
        eta = st.get("eta", getattr(self, "eta", None))
        links, w, theta, w_sum = self._walk(
            np.ascontiguousarray(X), y, eta, *(st.get(k, getattr(self, k))
                                              for k in ("_w", "_theta", "_w_sum")))
        st.update(_w=w, _theta=theta, _w_sum=w_sum, last_links_=links,
                  n_dropped=self.n_dropped + dropped, n_batches=self.n_batches + 1,
                  n_seen=self.n_seen + len(y),
                  max_norm_p=max(self.max_norm_p,
                                 float(qnorm.p_norms(X, self.p).max()) if len(y) else 0.0))
        if len(y):
            st["online_loss"] = self.online_loss + float(np.sum(self.family.loss(y, links)))
            st["online_errors"] = self.online_errors + int(np.sum((links >= 0) != (y == 1)))
        self.__dict__.update(st)          # one step: the batch is learned, or not at all
        return self

    def _walk(self, X: np.ndarray, y: np.ndarray, eta: float | None, w: np.ndarray,
              theta: np.ndarray, w_sum: np.ndarray) -> tuple[np.ndarray, ...]:
        """The per-row loop of Algorithm 2 (:func:`ubreg.fitters.online.walk`)
        from the iterates (w, θ) and the sum of the iterates so far."""
        rates = qnorm.step_sizes(self.n_seen, X.shape[0], eta, self.rate)
        return qnorm.walk(X, y, self.family, eta, rates, w, theta, w_sum, self.q, self.p)

    # ---- prediction ---------------------------------------------------------------
    def _coef(self) -> np.ndarray:
        w_sum = getattr(self, "_w_sum", None)        # None in pickles of older versions
        if getattr(self, "average", False) and w_sum is not None and self.n_seen > 0:
            return w_sum / self.n_seen
        assert self._w is not None              # started (callers check)
        return self._w.copy()

    @property
    def coef_(self) -> pd.Series:
        """The predictor's coefficients: the average w̄_T with ``average``, else w_T."""
        self._check_started()
        assert self.design is not None
        name = "w_bar" if getattr(self, "average", False) else "w"
        return pd.Series(self._coef(), index=self.design.column_names, name=name)

    @property
    def walk_coef_(self) -> pd.Series:
        """The walk's current iterate w_T (Algorithm 2's state)."""
        self._check_started()
        assert self.design is not None and self._w is not None
        return pd.Series(self._w.copy(), index=self.design.column_names, name="w")

    def _check_started(self) -> None:
        if self.design is None:
            raise ValueError("the learner has seen no batch yet: call partial_fit first")

    # ignored [override]: newdata is required, a learner keeps no training rows
    def predict(self, newdata: pd.DataFrame,  # type: ignore[override]
                type: str = "response") -> pd.Series:
        """Predictions of the current w_t on ``newdata`` (NaN for NA rows).

        ``type`` is ``"response"`` (p̂ = ∇φ⁻¹(wᵀx)), ``"link"`` or ``"class"`` (category
        dtype with the response's levels, as every result).
        """
        check_predict_type(type)
        self._check_started()
        assert self.design is not None and self.response is not None
        newdata = as_frame(newdata, "newdata")
        X, na = self.design.transform(newdata)
        eta = np.full(len(newdata), np.nan)
        eta[~na] = X @ self._coef()
        if type == "link":
            return pd.Series(eta, index=newdata.index, name="link")
        if type == "response":
            p = np.full(len(newdata), np.nan)
            p[~na] = self.family.posterior(eta[~na])
            return pd.Series(p, index=newdata.index, name="response")
        levels = list(self.response.levels)
        pos = levels.index(self.response.positive)
        return class_series(levels, np.where(na, -1, np.where(np.nan_to_num(eta) >= 0, pos,
                                                              1 - pos)), newdata.index)

    def regret_bound_penalty(self, r: ArrayLike) -> float:
        """(p − 1)λ_p²‖r‖_q²/(2λ), the penalty of Theorem 3 for a reference r."""
        lam, lp = self.lambda_, self.lambda_p
        if lam is None or lp is None:
            raise ValueError("lambda_ and lambda_p are unknown (eta was given without them)")
        return qnorm.regret_bound_penalty(r, self.p, self.q, lam, lp)

    @property
    def nobs(self) -> int:
        """Rows learned so far (``n_seen``)."""
        return self.n_seen

    # ---- summary -------------------------------------------------------------------
    def summary(self) -> OnlineSummary:
        """Family, potential, rate, rows, on-line loss and the coefficients
        (:class:`~ubreg.summary.online.OnlineSummary`)."""
        self._check_started()
        return OnlineSummary(self)

    def __repr__(self) -> str:
        return (f"<ubreg OnlineLearner: {self.formula!r}, family={self.family.describe()}, "
                f"q={self.q:g}, rate={getattr(self, 'rate', 'constant')!r}, "
                f"average={getattr(self, 'average', False)}, n_seen={self.n_seen}>")


def _in_batch(exc: Exception, k: int) -> Exception:
    """The same error, naming batch k instead of "newdata" (design.transform's word)."""
    msg = str(exc)
    msg = (msg.replace("newdata", f"batch {k}") if "newdata" in msg else f"batch {k}: {msg}")
    msg = msg.replace("not seen in fitting", "not seen in the first batch")
    msg = msg.replace("levels seen in fitting", "levels of the first batch")
    return type(exc)(msg)
