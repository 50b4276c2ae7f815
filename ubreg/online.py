"""On-line learning of a linear separator: Algorithm 2 of paper 000 (MATH.md §9).

A stream of batches (data frames) is learned row by row with the q-norm
geodesic walk (eq. 93)::

    θ_t = ∇ψ_q(w_t) = ∇ψ_q(w_{t−1}) − η (p̂_t − y_t) x_t,   p̂_t = ∇φ⁻¹(w_{t−1}ᵀx_t),

w_0 = 0, with ψ_q(w) = ½‖w‖_q², ∇ψ_q(w)ᵢ = sign(wᵢ)|wᵢ|^{q−1}/‖w‖_q^{q−2} and
its inverse the dual p-norm map ∇ψ_p (1/p + 1/q = 1).  For q = 2 both maps
are the identity and the walk is a plain gradient step.  The learning rate
of Theorem 3 is η = λ/((p − 1)λ_p²) (eq. 98) with λ ≤ inf φ'' (eq. 97) and
λ_p ≥ sup‖x‖_p (eq. 96).

The design (columns, factor levels, response coding) is fixed by the first
batch; later batches go through the stored design and may not bring new
columns, factor levels or response values.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .errors import DataError, ResponseError
from .families import resolve_family
from .families.closed import Entropy, Entropy2, Gini, Matsushita
from .families.tempered import Tempered
from .formula import (
    _as_frame,
    _is_na,
    _parse,
    _response_values,
    build_model_frame,
    code_response_as,
    expand_dot,
)
from .render import render_template

__all__ = ["OnlineLearner"]

_PREDICT_TYPES = ("response", "link", "class")


# ---------------------------------------------------------------------------
# scalar posteriors: the per-row loop calls them once per row
# ---------------------------------------------------------------------------
def _expit_scalar(a):
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


def _scalar_posterior(family):
    """A float → float posterior ∇φ⁻¹ for the per-row loop.

    Closed forms (math module, ~0.1 µs) for the exact classes that have one;
    any other family goes through its vectorised ``posterior`` (slower, same
    values).
    """
    kind = type(family)
    if kind is Entropy:
        return _expit_scalar
    if kind is Entropy2:
        ln2 = math.log(2.0)
        return lambda a: _expit_scalar(a * ln2)
    if kind is Gini:
        # the linear probability model: the posterior leaves [0, 1] as Gini's does
        return lambda a: 0.5 * (1.0 + a)
    if kind is Matsushita:
        return lambda a: 0.5 * (1.0 + a / math.sqrt(1.0 + a * a)) if abs(a) < 1e150 else (
            1.0 if a > 0 else 0.0)
    if isinstance(family, Tempered) and family.t not in (0.0, 1.0):
        return _tempered_scalar_posterior(family)
    post = family.posterior
    return lambda a: float(post(a))


def _tempered_scalar_posterior(family):
    """∇φ⁻¹ of the tempered family for one float: Brent's root of the
    small-side link η_t(ζ) = target in the log-odds ζ ∈ [−746, 0] (the same
    equation as :meth:`Tempered._small_posterior`, in scalar math: ~50 µs
    instead of the vectorised solver's overhead per call)."""
    from scipy.optimize import brentq

    s, c = family._s, family._c
    lo = family.link_domain[0]
    ln2 = math.log(2.0)

    def G(z):
        sz = s * z
        if abs(sz) < 1.0:
            return math.log1p(0.5 * math.expm1(sz)) / s
        return (max(sz, 0.0) + math.log1p(math.exp(-abs(sz))) - ln2) / s

    def eta_small(z):
        e = -c * G(z)
        return -math.inf if e > 709.0 else math.exp(e) * math.expm1(c * z)

    eta_min = eta_small(-746.0)

    def post(a):
        if a == 0.0:
            return 0.5
        target = -abs(a)
        if target <= max(lo, eta_min):
            x = 0.0
        else:
            z = brentq(lambda v: eta_small(v) - target, -746.0, 0.0, xtol=1e-13, rtol=4e-15)
            x = _expit_scalar(z)
        return 1.0 - x if a > 0 else x
    return post


# ---------------------------------------------------------------------------
# the q-norm potential
# ---------------------------------------------------------------------------
def grad_psi(w, q):
    """∇ψ_q(w)ᵢ = sign(wᵢ)|wᵢ|^{q−1}/‖w‖_q^{q−2} (MATH.md §9), 0 at w = 0.

    Computed on w/max|w| (scale-free: ∇ψ_q is 1-homogeneous), so no power
    overflows for large p.
    """
    w = np.asarray(w, dtype=np.float64)
    m = np.max(np.abs(w)) if w.size else 0.0
    if m == 0.0 or q == 2.0:
        return w.copy()
    u = w / m
    au = np.abs(u)
    norm = np.sum(au ** q) ** (1.0 / q)
    return m * np.sign(u) * au ** (q - 1.0) / norm ** (q - 2.0)


def _dual_exponent(q):
    return q / (q - 1.0)


class OnlineLearner:
    """On-line linear separator by the q-norm geodesic walk, Algorithm 2 of paper 000.

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

    Attributes
    ----------
    coef_ : pandas.Series
        The current w_t.
    n_seen : int
        Rows learned so far.
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

    def __init__(self, formula: str, family=None, q: float = 2.0, eta=None, *, lambda_=None,
                 lambda_p=None, positive=None, trusted: bool = False):
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
        self.formula = formula
        self.family = family
        self.q = q
        self.p = _dual_exponent(q) if q < 2.0 else 2.0
        self.eta_given = eta
        self.lambda_given = lambda_
        self.lambda_p_given = lambda_p
        self.positive = positive
        self.trusted = bool(trusted)
        self.design = None
        self.response = None
        self.n_seen = 0
        self.n_batches = 0
        self.n_dropped = 0
        self.online_loss = 0.0
        self.online_errors = 0
        self.max_norm_p = 0.0
        self._w = None
        self._theta = None
        self.last_links_ = np.empty(0)

    # ---- set-up from the first batch -------------------------------------------
    def _lambda_from_family(self):
        """1/sup hessian_eta = inf φ'' (the curvature bound of eq. 97)."""
        lo, hi = self.family.link_domain
        lo, hi = max(lo, -50.0), min(hi, 50.0)
        grid = np.unique(np.r_[np.linspace(lo, hi, 2001), 0.0])
        with np.errstate(all="ignore"):
            h = np.asarray(self.family.hessian_eta(grid), dtype=float)
        sup = float(np.nanmax(h))
        if not (np.isfinite(sup) and sup > 0) or sup > 1e12:
            raise ValueError(f"family {self.family.describe()} has phi'' -> 0 somewhere on [0, 1]: "
                             "no positive lambda <= inf phi'' exists; pass eta= or lambda_= explicitly")
        return 1.0 / sup

    def _start(self, batch):
        frame = build_model_frame(self.formula, batch, na_action="drop", positive=self.positive,
                                  trusted=self.trusted)
        self.design = frame.design
        self.response = frame.response
        self._columns = list(batch.columns)
        self._formula = expand_dot(self.formula, batch.columns)
        d = frame.X.shape[1]
        self._w = np.zeros(d)
        self._theta = np.zeros(d)
        norms = _p_norms(frame.X, self.p)
        if self.eta_given is not None:
            self.eta = float(self.eta_given)
            self.eta_source = "given"
            self.lambda_, self.lambda_p = self.lambda_given, self.lambda_p_given
        else:
            if self.lambda_given is not None:
                self.lambda_, lam_src = float(self.lambda_given), "given"
            else:
                self.lambda_, lam_src = self._lambda_from_family(), "inf phi'' of the family"
            if self.lambda_p_given is not None:
                self.lambda_p, lp_src = float(self.lambda_p_given), "given"
            else:
                self.lambda_p = float(norms.max())
                lp_src = "max ||x||_p of the first batch (an estimate)"
            if not self.lambda_p > 0:
                raise DataError("every row of the first batch has x = 0: lambda_p cannot be "
                                "estimated; pass lambda_p= or eta=")
            self.eta = self.lambda_ / ((self.p - 1.0) * self.lambda_p ** 2)
            self.eta_source = (f"Theorem 3: eta = lambda/((p-1) lambda_p^2), lambda {lam_src}, "
                               f"lambda_p {lp_src}")
        return frame.X, frame.y, len(batch) - len(frame.y)

    def _later(self, batch):
        extra = [c for c in batch.columns if c not in self._columns]
        if extra:
            raise DataError(f"batch {self.n_batches + 1} has columns the first batch did not have: "
                            f"{extra}; the design is fixed by the first batch")
        X, na = self.design.transform(batch)          # raises on new factor levels
        # the parsed formula is not stored: patsy's ModelDesc does not pickle
        _, yvals = _response_values(_parse(self._formula), batch, self._formula)
        yvals = pd.Series(np.asarray(yvals), index=batch.index)
        y_na = _is_na(yvals)
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
    def partial_fit(self, batch) -> OnlineLearner:
        """Learn from one batch, row by row (Algorithm 2).  Returns self.

        Rows with NA are dropped (counted in ``n_dropped``).  ``batch`` is not
        modified.
        """
        batch = _as_frame(batch, "batch")
        if len(batch) == 0:
            return self
        if self.design is None:
            X, y, dropped = self._start(batch)
        else:
            X, y, dropped = self._later(batch)
        self.n_dropped += dropped
        links = self._walk(np.ascontiguousarray(X), y)
        self.last_links_ = links
        self.n_batches += 1
        self.n_seen += len(y)
        self.max_norm_p = max(self.max_norm_p, float(_p_norms(X, self.p).max()) if len(y) else 0.0)
        if len(y):
            self.online_loss += float(np.sum(self.family.loss(y, links)))
            self.online_errors += int(np.sum((links >= 0) != (y == 1)))
        return self

    def _walk(self, X, y):
        """The per-row loop of Algorithm 2; returns w_{t−1}ᵀx_t per row."""
        n = X.shape[0]
        links = np.empty(n)
        post = _scalar_posterior(self.family)
        eta = self.eta
        w = self._w
        if self.q == 2.0:
            # ∇ψ_2 = id: the geodesic walk is a plain gradient step on w
            rows = X.tolist()
            wl = w.tolist()
            yl = y.tolist()
            d = len(wl)
            rng = range(d)
            for i in range(n):
                x = rows[i]
                a = 0.0
                for k in rng:
                    a += x[k] * wl[k]
                links[i] = a
                g = eta * (post(a) - yl[i])
                if g != 0.0:
                    for k in rng:
                        wl[k] -= g * x[k]
            self._w = np.array(wl)
            self._theta = self._w.copy()
            return links
        theta = self._theta
        p = self.p
        for i in range(n):
            x = X[i]
            a = float(x @ w)
            links[i] = a
            theta = theta - (eta * (post(a) - y[i])) * x
            w = grad_psi(theta, p)               # the dual p-norm map inverts ∇ψ_q
        self._theta, self._w = theta, w
        return links

    # ---- prediction ---------------------------------------------------------------
    @property
    def coef_(self) -> pd.Series:
        self._check_started()
        return pd.Series(self._w.copy(), index=self.design.column_names, name="w")

    def _check_started(self):
        if self.design is None:
            raise ValueError("the learner has seen no batch yet: call partial_fit first")

    def predict(self, newdata, type: str = "response") -> pd.Series:
        """Predictions of the current w_t on ``newdata`` (NaN for NA rows).

        ``type`` is ``"response"`` (p̂ = ∇φ⁻¹(wᵀx)), ``"link"`` or ``"class"``.
        """
        if type not in _PREDICT_TYPES:
            raise ValueError(f"type must be one of {_PREDICT_TYPES}, got {type!r}")
        self._check_started()
        newdata = _as_frame(newdata, "newdata")
        X, na = self.design.transform(newdata)
        eta = np.full(len(newdata), np.nan)
        eta[~na] = X @ self._w
        if type == "link":
            return pd.Series(eta, index=newdata.index, name="link")
        if type == "response":
            p = np.full(len(newdata), np.nan)
            p[~na] = self.family.posterior(eta[~na])
            return pd.Series(p, index=newdata.index, name="response")
        labels = np.empty(len(newdata), dtype=object)
        labels[~na] = self.response.labels((eta[~na] >= 0).astype(int))
        labels[na] = None
        return pd.Series(labels, index=newdata.index, name="class")

    def regret_bound_penalty(self, r) -> float:
        """(p − 1)λ_p²‖r‖_q²/(2λ), the penalty of Theorem 3 for a reference r."""
        r = np.asarray(r, dtype=float)
        lam, lp = self.lambda_, self.lambda_p
        if lam is None or lp is None:
            raise ValueError("lambda_ and lambda_p are unknown (eta was given without them)")
        return (self.p - 1.0) * lp ** 2 * np.sum(np.abs(r) ** self.q) ** (2.0 / self.q) / (2.0 * lam)

    # ---- summary -------------------------------------------------------------------
    def summary(self) -> OnlineSummary:
        self._check_started()
        return OnlineSummary(self)

    def __repr__(self):
        return (f"<ubreg OnlineLearner: {self.formula!r}, family={self.family.describe()}, "
                f"q={self.q:g}, n_seen={self.n_seen}>")


def _p_norms(X, p):
    if X.shape[0] == 0:
        return np.zeros(1)
    if p == 2.0:
        return np.sqrt(np.einsum("ij,ij->i", X, X))
    m = np.max(np.abs(X), axis=1, keepdims=True)
    m = np.where(m > 0, m, 1.0)
    return m[:, 0] * np.sum((np.abs(X) / m) ** p, axis=1) ** (1.0 / p)


class OnlineSummary:
    """Summary of an :class:`OnlineLearner`: text, HTML and DataFrame forms."""

    def __init__(self, learner: OnlineLearner):
        self.learner = learner

    def frame(self) -> pd.DataFrame:
        return self.learner.coef_.to_frame("estimate")

    def facts(self) -> dict:
        ol = self.learner
        n = max(ol.n_seen, 1)
        lines = [
            ("Family", ol.family.describe()),
            ("Potential", f"q-norm, q = {ol.q:g} (dual p = {ol.p:g})"),
            ("Learning rate", f"eta = {ol.eta:.6g} ({ol.eta_source})"),
            ("Rows learned", f"{ol.n_seen} in {ol.n_batches} batch(es); {ol.n_dropped} dropped (NA)"),
            ("On-line loss", (f"{ol.online_loss:.6g} (mean {ol.online_loss / n:.6g} per row, "
                              "predictions made before each update)")),
            ("On-line errors", f"{ol.online_errors} ({ol.online_errors / n:.4g})"),
        ]
        notes = []
        if ol.lambda_p is not None and ol.max_norm_p > ol.lambda_p * (1 + 1e-12):
            notes.append(f"Some rows have ||x||_p = {ol.max_norm_p:.6g} > lambda_p = "
                         f"{ol.lambda_p:.6g}: the assumption (96) of Theorem 3 does not hold.")
        return {"lines": lines, "notes": notes}

    def __str__(self):
        f = self.facts()
        out = [f"On-line linear separator (Algorithm 2): {self.learner.formula}", ""]
        width = max(len(k) for k, _ in f["lines"])
        out += [f"{k.ljust(width)}  {v}" for k, v in f["lines"]]
        out += ["", "Coefficients (w_t):"]
        out += [f"  {name:<20} {val: .6g}" for name, val in self.learner.coef_.items()]
        out += [""] + f["notes"] if f["notes"] else []
        return "\n".join(out)

    def __repr__(self):
        return str(self)

    def html(self) -> str:
        f = self.facts()
        rows = [[name, f"{val:.6g}"] for name, val in self.learner.coef_.items()]
        return render_template("online_summary.html", call=repr(self.learner), lines=f["lines"],
                               table_title="Coefficients (w_t)", header=["", "estimate"],
                               rows=rows, notes=f["notes"])

    def _repr_html_(self):
        return self.html()
