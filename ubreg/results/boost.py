"""Results of boosting: ULS with weak learners and U-Boost.

Both predict on new data through the stored design (the formula's columns,
then the stored weak hypotheses), pickle, and give staged predictions (after
each round), the risk path and — for ULS — the edge path.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..errors import SeparationWarning
from ..learners.ensembles import UBoostFit, ULSBoostFit, feature_matrix, staged_F
from .base import BinaryResult, Capabilities, check_predict_type

if TYPE_CHECKING:
    from ..families.base import Family
    from ..families.ulosses import ULoss
    from ..summary.boost import UBoostSummary, ULSBoostSummary

__all__ = ["UBoostResult", "ULSBoostResult", "weighted_mean"]


def weighted_mean(w: np.ndarray, v: ArrayLike) -> float | np.ndarray:
    """Σ w v / Σ w (over the first axis of ``v``) with w divided by the power of two
    nearest its largest value: the same bits as without it, and no overflow of Σ w."""
    w = np.ldexp(w, -int(np.frexp(np.max(w))[1]))
    out = (w @ np.asarray(v, dtype=np.float64)) / w.sum()
    return float(out) if np.ndim(out) == 0 else out


class ULSBoostResult(BinaryResult):
    """H(x) = Σ_t α_t h_t(x) over weak hypotheses, fitted by ULS.

    Attributes
    ----------
    coef : pandas.Series
        The leveraging coefficients α_t, one per feature (a tree contributes
        one feature per leaf), labelled by the feature.
    rounds : int
        Rounds run (fewer than asked when no hypothesis had an edge).
    risk_path : pandas.Series
        Training surrogate risk ε = Σ wᵢ F(y*ᵢ H(xᵢ))/Σ wᵢ at H = 0 (round 0)
        and after each round (docs/math.md §4).
    edge_path : pandas.Series
        |normalised edge| Σ vᵢ h(xᵢ)/Σ |vᵢ| of the hypothesis of each round.
    family_path : list of Family
        The family used at each round (constant unless ``strategy`` is
        ``"F."`` or ``"E."``).

    Notes
    -----
    ``predict(type="response")`` is the family's posterior ∇φ⁻¹(H).  For gini
    that is (1 + H)/2 (docs/math.md §3), which leaves [0, 1] when |H| > 1, as the
    fitted values of a linear probability model do; it is not clipped, so the
    deviance and the surrogate risk stay those of the fit.  Within a bag of
    families (``strategy=``) H is renormalised to [−1, 1] whenever gini reads it.
    """

    method = "uls"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True,
                                has_risk_path=True, has_edge_path=True)

    def __init__(self, *, fit: ULSBoostFit, learner: str, options: dict, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fit_info = fit
        self.learner = learner
        self.options = dict(options)
        self.hypotheses = list(fit.hypotheses)
        names = self.design.column_names
        labels = []
        for r, h in enumerate(self.hypotheses, start=1):
            for text in h.describe(names):
                labels.append(f"[{r}] {text}")
        self.coef = pd.Series(fit.coef, index=labels, name="coef")
        self.rounds = len(self.hypotheses)
        self.iterations = self.rounds
        self.converged = fit.capped == 0
        self.risk_path = pd.Series(fit.risk_path, index=pd.RangeIndex(len(fit.risk_path),
                                                                      name="round"), name="risk")
        self.edge_path = pd.Series(fit.edge_path, index=pd.RangeIndex(1, self.rounds + 1,
                                                                      name="round"), name="edge")
        self.family_path = list(fit.family_path)

    @property
    def df_model(self) -> float:
        """Number of distinct features with a non-zero coefficient."""
        return float(np.sum(self.feature_table()["coef"] != 0))

    # ---- prediction -------------------------------------------------------
    def _features(self, X: np.ndarray) -> np.ndarray:
        return feature_matrix(self.hypotheses, X)

    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        X, na = self.design.transform(newdata)
        return self._features(X) @ self.fit_info.coef, na

    def staged_link(self, newdata: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(m, rounds) link values after each round, for the rows of ``newdata``
        without NA, and the (n,) mask of the rows with NA."""
        if newdata is None:
            raise ValueError("staged predictions need newdata (the training rows: pass the data)")
        X, na = self.design.transform(newdata)
        Hm = self._features(X)
        ends = np.cumsum(self.fit_info.blocks)
        if self.fit_info.coef_history is not None:
            out = np.column_stack([Hm[:, :e] @ c[:e]
                                   for e, c in zip(ends, self.fit_info.coef_history)])
        else:
            contrib = Hm * self.fit_info.coef
            cum = np.cumsum(contrib, axis=1) if contrib.shape[1] else contrib
            out = cum[:, ends - 1] if ends.size else np.zeros((X.shape[0], 0))
        return out, na

    def staged_predict(self, newdata: pd.DataFrame, type: str = "response") -> pd.DataFrame:
        """Predictions after each round (columns 1..rounds), on the scale ``type``.

        With ``strategy="F."``/``"E."`` the posterior after round r reads H
        with the family of round r.
        """
        check_predict_type(type)
        eta_ok, na = self.staged_link(newdata)
        cols = {}
        for r in range(eta_ok.shape[1]):
            eta = np.full(len(newdata), np.nan)
            eta[~na] = eta_ok[:, r]
            fam = self.family_path[r] if self.family_path else self.family
            cols[r + 1] = self._scaled(eta, na, newdata.index, type, fam)
        return pd.DataFrame(cols, index=newdata.index).rename_axis(columns="round")

    def _scaled(self, eta: np.ndarray, na: np.ndarray, index: pd.Index, type: str,
                family: Family) -> np.ndarray:
        if type == "response":
            p = np.full(len(eta), np.nan)
            p[~na] = family.posterior(eta[~na])
            return p
        if type == "class":
            return self.on_scale(eta, na, index, type).to_numpy()
        return eta

    # ---- tables ---------------------------------------------------------------
    def feature_table(self) -> pd.DataFrame:
        """Distinct features with their total leveraging coefficient.

        The same stump or rule chosen in several rounds is one feature whose
        coefficient is the sum; tree leaves are distinct features.
        """
        names = self.design.column_names
        rows: dict[tuple, dict[str, Any]] = {}
        pos = 0
        for r, h in enumerate(self.hypotheses, start=1):
            texts = h.describe(names)
            for k, text in enumerate(texts):
                key = h.key() + ((k,) if len(texts) > 1 else ())
                a = float(self.fit_info.coef[pos])
                pos += 1
                if key in rows:
                    rows[key]["coef"] += a
                    rows[key]["rounds"] += 1
                else:
                    rows[key] = {"feature": text, "coef": a, "rounds": 1, "first_round": r}
        df = pd.DataFrame(list(rows.values()), columns=["feature", "coef", "rounds", "first_round"])
        order = np.argsort(-np.abs(df["coef"].to_numpy()), kind="stable")
        return df.iloc[order].reset_index(drop=True)

    @property
    def training_error(self) -> float:
        return float(weighted_mean(self.weights, (self.eta >= 0) != (self.y == 1)))

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (the learner, rounds and risk)."""
        from ..summary.printed import framed, ulsboost_lines
        return framed(self, ulsboost_lines(self))

    def summary(self, top: int = 10) -> ULSBoostSummary:
        """Rounds, training risk, deviance and the top features."""
        from ..summary.boost import ULSBoostSummary
        return ULSBoostSummary(self, top=top)


# ---------------------------------------------------------------------------
# U-Boost
# ---------------------------------------------------------------------------
class UBoostResult(BinaryResult):
    """F(x) = F₀ + ν Σ_m f_m(x) fitted by U-Boost; p̂ is the family's posterior at F.

    ``family`` is the family boosted (``family=`` of :func:`ubreg.fit`: a U-loss, any
    permissible family, the exponential or a tempered loss; ``Permissible("entropy")`` is
    the logistic U).  ``predict(type="response")`` and ``loglik`` take the family's
    posterior at F: expit(F) for the U-losses (Theorem 1 of paper 003: F reads as a
    log-odds) and entropy, ∇φ⁻¹(F) for another permissible family; ``deviance`` is the
    family's, 2 Σ w [ℓ(y, F) − min ℓ] (the binomial deviance for the logistic U and
    entropy).  The U-risk that boosting minimises is ``risk_path``.

    Attributes
    ----------
    U : ULoss
        The U boosted (the logistic U for ``Permissible("entropy")``).
    mstop, nu : the iterations run and the step length
    risk_path : Series
        Training U-risk Σ w U(y*F)/Σ w after 0..mstop iterations.
    coef, coef_path : Series, DataFrame
        (``learner="linear"`` only) coefficients on the design columns after
        mstop iterations, and after each iteration (rows 0..mstop).
    X : ndarray
        The training design matrix, from which :func:`ubreg.cv_risk` refits
        the folds (so the pickle grows with rows × columns).
    """

    method = "uboost"
    capabilities = Capabilities(has_training_rows=True, has_deviance=True, has_residuals=True,
                                has_risk_path=True, has_cv_path=True)

    def extreme_rows(self) -> tuple[int, int]:
        """(training rows whose fitted probability is numerically 0 or 1, within 10ε as R's
        glm tests, and how many of them are on the wrong side: y = 1 at 0, y = 0 at 1)."""
        return extreme_counts(self.family, np.asarray(self.y), self.eta)

    def __init__(self, *, fit: UBoostFit, U: ULoss, options: dict, X: np.ndarray,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fit_info = fit
        self.U = U
        self.options = dict(options)
        self.learner = options["learner"]
        self.nu = fit.nu
        self.mstop = len(fit.learners)
        self.iterations = self.mstop
        self.X = X                       # the training design, for ubreg.cv_risk
        self.risk_path = pd.Series(fit.risk_path, index=pd.RangeIndex(self.mstop + 1,
                                                                      name="mstop"), name="risk")
        self.term_names = list(self.design.term_slices)

    # ---- parameters -----------------------------------------------------------
    @property
    def df_model(self) -> float:
        """Linear learner: non-zero coefficients; trees: distinct leaf values fitted."""
        if self.learner == "linear":
            return float(np.sum(self.coef.to_numpy() != 0))
        return float(1 + sum(t.leaves.size for t in self.fit_info.learners))

    @property
    def coef_path(self) -> pd.DataFrame:
        if self.learner != "linear":
            raise AttributeError("coef_path exists for learner='linear' only")
        p = self.X.shape[1]
        names = self.design.column_names
        path = np.zeros((self.mstop + 1, p))
        icol = names.index("(Intercept)") if "(Intercept)" in names else None
        cur = np.zeros(p)
        if icol is not None:
            cur[icol] = self.fit_info.F0
        path[0] = cur
        for m, step in enumerate(self.fit_info.learners, start=1):
            cur = cur.copy()
            cur[step.cols] += self.nu * step.b
            if icol is not None:
                # centred columns: x − c contributes −c·b to the intercept
                cur[icol] -= self.nu * float(step.centre @ step.b)
            path[m] = cur
        return pd.DataFrame(path, index=pd.RangeIndex(self.mstop + 1, name="mstop"),
                            columns=names)

    @property
    def coef(self) -> pd.Series:
        if self.learner != "linear":
            raise AttributeError("coef exists for learner='linear' only")
        return self.coef_path.iloc[-1].rename("coef")

    def importance(self) -> pd.DataFrame:
        """Training-risk reduction per term (summed over iterations) and its share.

        Trees and stumps split an iteration's reduction over the terms of
        their splits in proportion to the split gains.
        """
        g = self.fit_info.gains.sum(axis=0)
        tot = g.sum()
        df = pd.DataFrame({"risk_reduction": g, "share": g / tot if tot > 0 else g},
                          index=pd.Index(self.term_names, name="term"))
        return df.sort_values("risk_reduction", ascending=False)

    def selection_frequencies(self) -> pd.Series:
        """Fraction of the iterations whose base-learner used each term."""
        sel = self.fit_info.selected
        f = sel.mean(axis=0) if sel.shape[0] else np.zeros(len(self.term_names))
        return pd.Series(f, index=pd.Index(self.term_names, name="term"),
                         name="selection frequency").sort_values(ascending=False)

    # ---- prediction -------------------------------------------------------
    def _link_for(self, newdata: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        X, na = self.design.transform(newdata)
        F = np.full(X.shape[0], self.fit_info.F0)
        for base in self.fit_info.learners:
            F += self.nu * base.predict(X)
        return F, na

    def staged_predict(self, newdata: pd.DataFrame, type: str = "response") -> pd.DataFrame:
        """Predictions after 0..mstop iterations (columns), on the scale ``type``."""
        check_predict_type(type)
        X, na = self.design.transform(newdata)
        S = staged_F(self.fit_info, X)
        cols = {}
        for m in range(S.shape[1]):
            eta = np.full(len(newdata), np.nan)
            eta[~na] = S[:, m]
            cols[m] = self.on_scale(eta, na, newdata.index, type).to_numpy()
        return pd.DataFrame(cols, index=newdata.index).rename_axis(columns="mstop")

    def with_mstop(self, mstop: int) -> UBoostResult:
        """A new result keeping the first ``mstop`` iterations (this one is unchanged)."""
        if isinstance(mstop, bool) or not isinstance(mstop, (int, np.integer)) \
                or not 0 <= mstop <= self.mstop:
            raise ValueError(f"mstop must be an integer in [0, {self.mstop}], got {mstop!r}")
        f = self.fit_info
        eta = staged_F(UBoostFit(f.learners[:mstop], f.F0, f.nu, f.eta, f.risk_path, f.gains,
                                 f.selected), self.X)[:, -1]
        fit = UBoostFit(learners=f.learners[:mstop], F0=f.F0, nu=f.nu, eta=eta,
                        risk_path=f.risk_path[:mstop + 1], gains=f.gains[:mstop],
                        selected=f.selected[:mstop])
        return UBoostResult(fit=fit, family=self.family, U=self.U,
                            options={**self.options, "mstop": int(mstop)}, X=self.X,
                            formula=self.formula, design=self.design,
                            response=self.response, y=self.y, weights=self.weights, eta=eta,
                            index=self.index, n_input=self.n_input, dropped=self.dropped,
                            call=self.call, na_factors=self.na_factors,
                            weight_kind=self.weight_kind)

    @property
    def training_error(self) -> float:
        return float(weighted_mean(self.weights, (self.eta >= 0) != (self.y == 1)))

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (U-Boost's loss, rounds and risk)."""
        from ..summary.printed import framed, uboost_lines
        return framed(self, uboost_lines(self))

    def summary(self, top: int = 10) -> UBoostSummary:
        """Iterations, U-risk, deviance, variable importance and selection frequencies."""
        from ..summary.boost import UBoostSummary
        return UBoostSummary(self, top=top)


def extreme_counts(family: Any, y: np.ndarray, F: np.ndarray) -> tuple[int, int]:
    """:meth:`UBoostResult.extreme_rows` of rows ``y`` (0/1) at margins ``F`` (also summed
    partition by partition on Dask)."""
    p = np.asarray(family.posterior(F), dtype=float)
    eps = 10.0 * np.finfo(float).eps
    low, high = p < eps, p > 1.0 - eps
    return int(np.sum(low | high)), int(np.sum((low & (y == 1)) | (high & (y == 0))))


def warn_extreme(result: UBoostResult) -> None:
    """glm's warning where fitted probabilities are numerically 0 or 1 (within 10ε, R's
    test; :meth:`UBoostResult.extreme_rows`), with how many training rows, why (a bounded
    link saturates past its end) and, where such a row is on the wrong side, that the
    log-likelihood is −Inf.  Raised by the fit, in memory and on Dask."""
    extreme, wrong = result.extreme_rows()
    if not extreme:
        return
    family = result.family
    lo, hi = getattr(family, "link_domain", (-np.inf, np.inf))
    why = (f" ({family.describe()} has a bounded link: past its end the posterior is 0 or 1)"
           if np.isfinite(hi) or np.isfinite(lo) else "")
    harm = (f"; {wrong} of them on the wrong side, so the log-likelihood is -Inf" if wrong
            else "")
    warnings.warn(f"fitted probabilities numerically 0 or 1 occurred: {extreme} training "
                  f"row{'s' if extreme != 1 else ''}{why}{harm}", SeparationWarning,
                  stacklevel=4)
