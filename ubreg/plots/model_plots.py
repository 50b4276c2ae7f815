"""Plots of fitted models: each a function ``(result, ax=None, ...) -> ax``.

matplotlib is imported inside the functions, so ``import ubreg`` never needs
it.  With ``ax=None`` a new figure is made with pyplot; pass an ``ax`` (for
instance from :class:`matplotlib.figure.Figure`) to draw without pyplot's
global state, as :mod:`ubreg.report` does.

Everything is written against the :class:`~ubreg.results.base.Result`
contract: posteriors through ``predict``; coefficients, paths, trees and
t-margins only for the results whose declared capabilities
(:class:`~ubreg.results.base.Capabilities`) promise them.  :func:`available`
lists the plots that apply to a result.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..evaluate.cv_risk import CVRisk
from ..evaluate.metrics import auc, observed_and_posterior
from ..results.base import Result, capabilities_of
from ..summary.render import plain_text, shown_names
from .effects import effects, formula_order, has_term_scales
from .treeplot import figure_size, plot_tree

__all__ = ["calibration", "roc", "margins", "t_margins", "risk_path", "edge_path", "cv_risk",
           "coefficients", "tree", "wilson_interval", "calibration_table", "roc_curve",
           "path_of", "available"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    _, ax = plt.subplots()
    return ax


# ---------------------------------------------------------------------------
# calibration / reliability
# ---------------------------------------------------------------------------
def wilson_interval(successes, n, level: float = 0.95):
    """Wilson score interval of a binomial proportion (vectorised).

    (p̂ + z²/2n ± z √(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n); NaN where n = 0.
    ``n`` may be a (frequency-)weighted count.
    """
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / n
        denom = 1 + z ** 2 / n
        centre = (p + z ** 2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z ** 2 / (4 * n ** 2)) / denom
    return centre - half, centre + half


def calibration_table(y, p, weights=None, bins: int = 10, strategy: str = "uniform",
                      level: float = 0.95, counts: str = "frequency"):
    """Binned reliability data: mean posterior, observed rate and Wilson CI per bin.

    Parameters
    ----------
    y, p : arrays
        0/1 outcomes and posteriors P(y = 1) (clipped to [0, 1] for binning).
    weights : array, optional
        Row weights.
    counts : {"frequency", "effective"}
        What a bin's Wilson interval counts: the sum of the weights (frequency weights,
        a weight of 2 being the row twice), or Kish's effective size (Σw)²/Σw² (prior
        weights, so that multiplying every weight by a constant changes nothing).
    bins : int
        Number of bins.
    strategy : {"uniform", "quantile"}
        Equal-width bins on [0, 1], or bins of (weighted) equal count.

    Returns
    -------
    dict of arrays
        ``mean_predicted``, ``observed``, ``lower``, ``upper``, ``count``
        (weighted), one entry per non-empty bin.
    """
    y = np.asarray(y, dtype=float)
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float)
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, bins + 1)
    elif strategy == "quantile":
        order = np.argsort(p)
        cw = np.cumsum(w[order]) / w.sum()
        targets = np.linspace(0, 1, bins + 1)[1:-1]
        inner = p[order][np.minimum(np.searchsorted(cw, targets), len(p) - 1)]
        edges = np.unique(np.r_[0.0, inner, 1.0])
    else:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    nb = len(edges) - 1
    count = np.bincount(which, weights=w, minlength=nb)
    pos = np.bincount(which, weights=w * y, minlength=nb)
    psum = np.bincount(which, weights=w * p, minlength=nb)
    keep = count > 0
    if counts == "effective":
        n = count[keep] ** 2 / np.bincount(which, weights=w * w, minlength=nb)[keep]
        lo, hi = wilson_interval(pos[keep] / count[keep] * n, n, level)
    elif counts == "frequency":
        lo, hi = wilson_interval(pos[keep], count[keep], level)
    else:
        raise ValueError(f"counts must be 'frequency' or 'effective', got {counts!r}")
    return {"mean_predicted": psum[keep] / count[keep], "observed": pos[keep] / count[keep],
            "lower": lo, "upper": hi, "count": count[keep], "edges": edges}


def calibration(result, ax=None, bins: int = 10, strategy: str = "uniform",
                level: float = 0.95, newdata=None, classes=None, weights=None):
    """Reliability diagram: observed frequency against mean posterior, per bin.

    Vertical bars are Wilson intervals at ``level`` (binomial, with the
    weights as counts).  A result with per-class posteriors (``predict``
    gives a DataFrame) is drawn one-vs-rest, one line per class (or the
    ``classes`` given).

    Parameters
    ----------
    result : Result
    ax : matplotlib Axes, optional
    bins, strategy : see :func:`calibration_table`
    level : float
        Confidence level of the intervals.
    newdata : DataFrame, optional
        Evaluate on these rows (they must hold the response); default: the
        training rows.
    classes : list, optional
        Classes drawn for a multiclass result (default: all).
    weights : array, str or False, optional
        Frequency weights of the rows: default (None) the model's prior
        weights on the training rows and ones on ``newdata``; an array with
        one value per row (of the training rows the model used, or of
        ``newdata``), or a column of ``newdata``; ``False`` for ones.  They
        weight the bin means; given, they are the counts of the Wilson intervals,
        while the model's own prior weights count as their effective size
        (Σw)²/Σw² per bin (:func:`calibration_table`), which does not depend on
        their scale.

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    y, p, w, labels = observed_and_posterior(result, newdata, weights=weights)
    counts = ("effective" if weights is None and newdata is None and isinstance(result, Result)
              and result.weight_kind == "prior" else "frequency")
    series: list[tuple[str | None, np.ndarray, np.ndarray]]
    if labels is None:
        series = [(None, y, p)]
    else:
        chosen = labels if classes is None else list(classes)
        series = [(shown, (y == labels.index(c)).astype(float), p[:, labels.index(c)])
                  for c, shown in zip(chosen, shown_names(chosen))]
    ax.plot([0, 1], [0, 1], ls="--", color="0.6", lw=1, label="perfect calibration")
    for label, yy, pp in series:
        t = calibration_table(yy, pp, w, bins=bins, strategy=strategy, level=level,
                              counts=counts)
        err = np.maximum(np.vstack([t["observed"] - t["lower"], t["upper"] - t["observed"]]), 0)
        name = "model" if label is None else f"class {label} vs rest"
        ax.errorbar(t["mean_predicted"], t["observed"], yerr=err, marker="o", ms=4, capsize=2,
                    lw=1.2, label=plain_text(name))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("mean posterior p̂ in bin")
    ax.set_ylabel("observed frequency")
    ax.set_title(f"Calibration ({strategy} bins, {int(level * 100)}% Wilson CI)")
    ax.legend(loc="upper left", fontsize="small")
    return ax


# ---------------------------------------------------------------------------
# ROC
# ---------------------------------------------------------------------------
def roc_curve(y, score, weights=None):
    """(false positive rate, true positive rate) at every distinct threshold, weighted."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(score, dtype=float)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float)
    order = np.argsort(-s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    last = np.r_[s[1:] != s[:-1], True]           # end of each group of tied scores
    tp = np.cumsum(w * y)[last]
    fp = np.cumsum(w * (1 - y))[last]
    P, N = tp[-1], fp[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.r_[0.0, fp / N], np.r_[0.0, tp / P]


def roc(result, ax=None, newdata=None, weights=None):
    """ROC curve with its AUC in the legend (one-vs-rest per class for multiclass).

    ``weights`` as for :func:`calibration` (default: the model's prior weights).
    """
    ax = _axes(ax)
    y, p, w, labels = observed_and_posterior(result, newdata, weights=weights)
    series = ([("model", y, p)] if labels is None else
              [(f"class {c} vs rest", (y == k).astype(float), p[:, k])
               for k, c in enumerate(shown_names(labels))])
    ax.plot([0, 1], [0, 1], ls="--", color="0.6", lw=1)
    for name, yy, pp in series:
        fpr, tpr = roc_curve(yy, pp, w)
        ax.plot(fpr, tpr, lw=1.5, label=f"{plain_text(name)} (AUC = {auc(yy, pp, w):.3f})")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("ROC")
    ax.set_aspect("equal", adjustable="box")
    ax.legend(loc="lower right", fontsize="small")
    return ax


# ---------------------------------------------------------------------------
# margins (eq. 42-43)
# ---------------------------------------------------------------------------
def margins(result, ax=None, newdata=None, bins: int = 40, weights=None):
    """Distribution of the normalised margins μ = y*(2p̂ − 1) ∈ [−1, 1] (eq. 42-43).

    μ < 0 is a misclassified row; the share of weight there is the error rate.
    For multiclass results μ uses the posterior of the observed class in the
    one-vs-rest sense.  ``weights`` as for :func:`calibration`.
    """
    from matplotlib.ticker import MultipleLocator

    ax = _axes(ax)
    y, p, w, labels = observed_and_posterior(result, newdata, weights=weights)
    if labels is not None:
        p = p[np.arange(len(y)), y.astype(int)]
        y = np.ones_like(y)
    mu = np.clip((2 * y - 1) * (2 * p - 1), -1, 1)
    ax.hist(mu, bins=np.linspace(-1, 1, bins + 1), weights=w, color="C0", alpha=0.8)
    ax.axvline(0, color="C3", lw=1)
    wrong = float(w[mu < 0].sum() / w.sum())
    ax.set_xlim(-1.04, 1.04)
    ax.xaxis.set_major_locator(MultipleLocator(0.5))     # −1, −0.5, 0, 0.5, 1: never crowded
    ax.xaxis.set_minor_locator(MultipleLocator(0.25))
    ax.set_xlabel("normalised margin μ = y*(2p̂ − 1)")
    ax.set_ylabel("weighted count")
    ax.set_title(f"Margins: {wrong:.1%} of the weight has μ < 0", fontsize="medium")
    return ax


# ---------------------------------------------------------------------------
# paths
# ---------------------------------------------------------------------------
def path_of(result, name: str):
    """The path ``name`` (``"risk_path"`` or ``"edge_path"``) of a result, or None.

    A Series (indexed by the iteration or round) or a 1-d array, for a result
    whose capabilities include ``has_risk_path`` / ``has_edge_path`` and whose
    path is not empty; None otherwise.  A Series' ``attrs`` (``ylabel``, ``title``) label
    its plot: t-AdaBoost's risk path, its tempered exponential loss Π_{k≤j} Z_k^(2−t)
    (docs/tempered.md §2.3), says so.
    """
    if name not in ("risk_path", "edge_path"):
        raise ValueError(f"name must be 'risk_path' or 'edge_path', got {name!r}")
    caps = capabilities_of(result)
    if not (caps.has_risk_path if name == "risk_path" else caps.has_edge_path):
        return None
    value = result.risk_path if name == "risk_path" else result.edge_path
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 1 or not arr.size:
        return None
    if not isinstance(value, pd.Series):
        return arr
    return value          # its attrs (ylabel, title) are the result's, as t-AdaBoost's


_AXIS_NAMES = {"mstop": "iterations (mstop)", "round": "round"}


def _path(result, name, ax, ylabel, title, log):
    from matplotlib.ticker import MaxNLocator

    ax = _axes(ax)
    values = result if isinstance(result, (np.ndarray, list, tuple)) else path_of(result, name)
    if values is None:
        raise TypeError(f"{type(result).__name__} has no {name} (its capabilities do not "
                        f"include has_{name}, or the path is empty)")
    xlabel = "iteration"
    if isinstance(values, pd.Series):
        it = values.index.to_numpy()                  # e.g. rounds from 1
        xlabel = _AXIS_NAMES.get(values.index.name, xlabel)
        ylabel = values.attrs.get("ylabel", ylabel)
        title = values.attrs.get("title", title)
    else:
        it = np.arange(len(values))
    values = np.asarray(values, dtype=float)
    marker = "." if len(values) <= 60 else None
    if log and np.all(values[np.isfinite(values)] > 0):
        ax.semilogy(it, values, marker=marker, lw=1.2)
    else:
        ax.plot(it, values, marker=marker, lw=1.2)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def risk_path(result, ax=None):
    """Training risk before each iteration and at the end.

    The surrogate risk ε_φ = Σ wᵢ F_φ(y*ᵢHᵢ)/Σ wᵢ of ULS, the U-risk of
    U-Boost, or the tempered exponential loss of t-AdaBoost (see
    :func:`path_of`).
    """
    return _path(result, "risk_path", ax, "surrogate risk ε_φ", "Surrogate risk path", False)


def edge_path(result, ax=None):
    """Largest |edge| before each iteration and at the end (log scale)."""
    return _path(result, "edge_path", ax, "max |edge|", "Edge path", True)


def _cv_arrays(obj, se):
    """(mean, se) of a CV risk path: a CVRisk, a DataFrame with ``mean`` and ``se``
    columns, a folds × iterations array, or a 1-d array of means (with ``se``)."""
    if isinstance(obj, CVRisk):
        return obj.mean, pd.Series(np.asarray(obj.se, dtype=float), index=obj.mean.index)
    if isinstance(obj, pd.DataFrame) and {"mean", "se"} <= set(obj.columns):
        return obj["mean"], obj["se"]
    if isinstance(obj, Result):
        raise TypeError(f"cv_risk draws a cross-validated risk path, not a "
                        f"{type(obj).__name__}: pass ubreg.cv_risk(result) (which refits)")
    arr = np.asarray(obj, dtype=float)
    if arr.ndim == 2:   # folds × iterations
        k = arr.shape[0]
        return arr.mean(axis=0), arr.std(axis=0, ddof=1) / np.sqrt(k)
    if arr.ndim == 1:
        return arr, (None if se is None else np.asarray(se, dtype=float))
    raise TypeError(f"cannot read a CV risk path from {type(obj).__name__}")


def cv_risk(obj, ax=None, se=None, label: str = "CV risk"):
    """Cross-validated risk against the number of iterations, with a ±1 SE band.

    Parameters
    ----------
    obj : CVRisk, DataFrame or array
        A :class:`~ubreg.evaluate.cv_risk.CVRisk` (from :func:`ubreg.cv_risk`:
        its chosen and 1-SE mstop are marked, its folds named in the title),
        a DataFrame with ``mean`` and ``se`` columns (its index gives the
        iterations), a folds × iterations array (mean and SE over the folds
        are taken), or a 1-d array of mean risks (then give ``se``).  Nothing
        is computed here: a fitted model is refused.
    se : array, optional
        Standard errors for a 1-d ``obj``.
    """
    from matplotlib.ticker import MaxNLocator

    ax = _axes(ax)
    mean, s = _cv_arrays(obj, se)
    xlabel = "iteration"
    if isinstance(mean, pd.Series):
        it = mean.index.to_numpy()
        xlabel = _AXIS_NAMES.get(mean.index.name, xlabel)
    else:
        it = np.arange(len(mean))
    mean = np.asarray(mean, dtype=float)
    ax.plot(it, mean, lw=1.5, label=label)
    if s is not None:
        s = np.asarray(s, dtype=float)
        ax.fill_between(it, mean - s, mean + s, alpha=0.25, label="± 1 SE")
    best = it[int(np.nanargmin(mean))]
    ax.axvline(best, color="C3", ls=":", lw=1, label=f"minimum at {best}")
    if isinstance(obj, CVRisk) and obj.mstop_1se != best:
        ax.axvline(obj.mstop_1se, color="C2", ls="--", lw=1, label=f"1-SE rule: {obj.mstop_1se}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cross-validated risk")
    ax.set_title("CV risk path" + (f" ({obj.folds}-fold)" if isinstance(obj, CVRisk) else ""))
    ax.legend(fontsize="small")
    return ax


# ---------------------------------------------------------------------------
# coefficients, trees
# ---------------------------------------------------------------------------
def coefficients(result, ax=None, level: float = 0.95, cov: str | None = None,
                 intercept: bool = False, scale: str = "sd"):
    """Estimates with Wald confidence intervals (results with ``has_coefficients``).

    ``scale="sd"`` (default) puts every numeric predictor on a common scale: its
    coefficient and interval times the standard deviation of its design column over
    the training rows, the change of the link per SD (0/1 indicators stay per unit;
    :func:`~ubreg.plots.effects.effects`).  ``scale="raw"`` draws the coefficients as
    fitted, per unit, with the covariance ``cov``; so does ``"sd"`` for a result that
    holds no training design matrix (a fit of a Dask frame).  The axis label says which.
    """
    if not capabilities_of(result).has_coefficients:
        raise TypeError(f"{type(result).__name__} has no coefficients (no coef_table)")
    if scale not in ("sd", "raw"):
        raise ValueError(f"scale must be 'sd' or 'raw', got {scale!r}")
    ax = _axes(ax)
    if scale == "raw" or not has_term_scales(result):
        t = result.coef_table(cov=cov, level=level).rename(
            columns={"conf_low": "lower", "conf_high": "upper"})
        t = t.loc[[i for i in formula_order(result) if intercept or i != "(Intercept)"]]
        t = t[np.isfinite(t["estimate"].to_numpy(dtype=float))]
        kind = cov or result.default_vcov           # has_coefficients: a linear fit
        what = f"estimate with {int(level * 100)}% CI ({kind} covariance)"
    else:
        t = effects(result, scale=scale, level=level, intercept=intercept)
        what = f"per-SD change of the link, {int(level * 100)}% Wald CI"
    pos = np.arange(len(t))[::-1]
    est = t["estimate"].to_numpy(dtype=float)
    err = np.vstack([est - t["lower"].to_numpy(dtype=float),
                     t["upper"].to_numpy(dtype=float) - est])
    ax.errorbar(est, pos, xerr=err, fmt="o", ms=4, capsize=3, lw=1.2)
    ax.axvline(0, color="0.6", ls="--", lw=1)
    ax.set_yticks(pos)
    ax.set_yticklabels([plain_text(i) for i in shown_names(t.index)])   # short, distinct
    ax.set_xlabel(what)
    ax.set_title("Coefficients")
    return ax


def tree(result, ax=None, **options):
    """Draw a fitted tree (a result with ``is_tree``, ``method="udt"``).

    :func:`~ubreg.plots.treeplot.plot_tree` of ``result.tree`` with the
    response's class labels; ``options`` are passed on (``digits``,
    ``fontsize``, ``max_depth``).  With ``ax=None`` a pyplot figure of
    :func:`~ubreg.plots.treeplot.figure_size` is made.
    """
    if not capabilities_of(result).is_tree:
        raise TypeError(f"{type(result).__name__} is not a tree (no tree to draw)")
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=figure_size(result.tree, options.get("max_depth")))
    return plot_tree(result.tree, ax=ax, labels=result.class_labels, **options)


def t_margins(result, ax=None, clipped: bool = False):
    """Cumulative distribution of the t-margins ν_t = tanh_t(y*H/2) of the training
    rows (docs/tempered.md §4) with the bound of §2.7 (results with
    ``has_t_margins``: t-AdaBoost).

    ``clipped=True`` reads the clipped H_J^(δ).  Returns the axes (a new
    figure of 5 × 3.5 inches with ``ax=None``).
    """
    if not capabilities_of(result).has_t_margins:
        raise TypeError(f"{type(result).__name__} has no t-margins (t-AdaBoost, "
                        "method='tboost', has them)")
    if ax is None:
        import matplotlib.pyplot as plt
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


def available(result, newdata=None) -> list[str]:
    """Names of the plots of this module that apply to ``result``, from its
    declared capabilities.

    Calibration, ROC and margins need posteriors and observed classes: the
    training rows (``has_training_rows``) or ``newdata``.  ``coefficients``
    needs ``has_coefficients``, ``risk_path``/``edge_path`` a non-empty path
    (:func:`path_of`), ``tree`` ``is_tree``.  ``cv_risk`` is never listed: a
    CV risk path is computed on request (:func:`ubreg.cv_risk`, refits), e.g.
    by ``ubreg.report(..., cv_risk=True)``.
    """
    caps = capabilities_of(result)
    names = []
    if caps.has_training_rows or newdata is not None:
        names += ["calibration", "roc", "margins"]
    if caps.has_coefficients:
        names.append("coefficients")
    if path_of(result, "risk_path") is not None:
        names.append("risk_path")
    if path_of(result, "edge_path") is not None:
        names.append("edge_path")
    if caps.is_tree:
        names.append("tree")
    return names
