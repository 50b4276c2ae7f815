"""R's ``plot(m)`` of a glm: the four panels of ``plot.lm(which = c(1, 2, 3, 5))``.

1. *Residuals vs Fitted*: deviance residuals against the linear predictor, with a
   lowess smoother;
2. *Normal Q-Q*: standardised deviance residuals (``rstandard``) against normal
   quantiles at R's ``ppoints``, with the line through the quartiles (``qqline``);
3. *Scale-Location*: √|standardised deviance residual| against the linear predictor;
4. *Residuals vs Leverage*: standardised deviance residuals against the hat values,
   with Cook's distance contours at 0.5 and 1 (√(c·k(1 − h)/h), k the rank).

As R draws them: rows of zero weight are left out; the ``id_n`` most extreme rows are
labelled with their index labels (R's row names): by |residual| in panel 1, by
|standardised residual| in panels 2 and 3, by Cook's distance in panel 4; the smoother is
R's ``panel.smooth``, ``lowess(f = 2/3, iter = 3)``.  :func:`diagnostic_panels` returns
the numbers, :func:`diagnostics` draws them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..results.linear import LinearResult

__all__ = ["diagnostics", "diagnostic_panels", "DiagnosticPanels", "CAPTIONS"]

#: plot.lm's captions of panels 1, 2, 3 and 5 (R 4.2)
CAPTIONS = {1: "Residuals vs Fitted", 2: "Normal Q-Q", 3: "Scale-Location",
            5: "Residuals vs Leverage"}
_COOK_LEVELS = (0.5, 1.0)


@dataclass
class DiagnosticPanels:
    """The numbers of the four panels, a row per training row of non-zero weight.

    Attributes
    ----------
    frame : DataFrame
        ``fitted`` (linear predictor), ``residuals`` (deviance), ``rstandard``
        (standardised deviance residuals, NaN where h = 1), ``hat``, ``cook`` and
        ``theoretical`` (the normal quantile of each standardised residual, qqnorm's).
    labelled : dict
        Panel number → the index labels of its ``id_n`` labelled rows.
    rank : int
        The number of coefficients estimated (k of the Cook's contours).
    """

    frame: pd.DataFrame
    labelled: dict
    rank: int

    def smooth(self, panel: int) -> tuple[np.ndarray, np.ndarray]:
        """R's ``panel.smooth`` line of panel 1, 3 or 5: ``lowess(x, y, f = 2/3, iter =
        3)`` (x sorted, the smoothed y)."""
        f = self.frame
        x, y = {1: (f["fitted"], f["residuals"]),
                3: (f["fitted"], np.sqrt(np.abs(f["rstandard"]))),
                5: (f["hat"], f["rstandard"])}[panel]
        return r_lowess(np.asarray(x, float), np.asarray(y, float))


def r_lowess(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``lowess(x, y, f = 2/3, iter = 3)`` (``delta`` = 1% of the range of x) on the
    finite pairs, by statsmodels' implementation of the same algorithm (Cleveland 1979)."""
    from statsmodels.nonparametric.smoothers_lowess import lowess
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    delta = 0.01 * float(np.ptp(x)) if x.size else 0.0
    out = lowess(y, x, frac=2.0 / 3.0, it=3, delta=delta, return_sorted=True)
    return out[:, 0], out[:, 1]


def r_ppoints(n: int) -> np.ndarray:
    """R's ``ppoints(n)``: (i − a)/(n + 1 − 2a), a = 3/8 for n ≤ 10, else 1/2."""
    a = 3.0 / 8.0 if n <= 10 else 0.5
    return (np.arange(1, n + 1) - a) / (n + 1 - 2 * a)


def diagnostic_panels(result, id_n: int = 3) -> DiagnosticPanels:
    """The numbers R's ``plot(m)`` draws for a linear fit (see the module's text).

    Parameters
    ----------
    result : LinearResult
        A binary linear fit (method ``uls``), any family.
    id_n : int
        How many of the most extreme rows each panel labels (R's ``id.n``).
    """
    if not isinstance(result, LinearResult):
        raise TypeError("the diagnostic panels of R's plot(glm) need a linear fit's "
                        "influence measures (method 'uls', learner='linear', two classes); "
                        f"got a {type(result).__name__}")
    if isinstance(id_n, bool) or not isinstance(id_n, (int, np.integer)) or id_n < 0:
        raise ValueError(f"id_n must be a whole number ≥ 0, got {id_n!r}")
    infl = result.influence()
    rows = infl.index
    frame = pd.DataFrame({
        "fitted": result.predict(type="link").reindex(rows).to_numpy(float),
        "residuals": result.residuals("deviance").reindex(rows).to_numpy(float),
        "rstandard": result.rstandard().reindex(rows).to_numpy(float),
        "hat": infl["hat"].to_numpy(float),
        "cook": result.cooks_distance().reindex(rows).to_numpy(float)}, index=rows)
    frame["theoretical"] = _qq_quantiles(frame["rstandard"].to_numpy())
    top = min(int(id_n), len(frame))

    def extreme(values) -> list:
        order = np.argsort(-np.nan_to_num(np.asarray(values, float), nan=-np.inf),
                           kind="stable")
        return list(rows[order[:top]])

    by_rs = extreme(np.abs(frame["rstandard"]))
    labelled = {1: extreme(np.abs(frame["residuals"])), 2: by_rs, 3: by_rs,
                5: extreme(frame["cook"])}
    rank = int((~np.asarray(result.aliased, dtype=bool)).sum())
    return DiagnosticPanels(frame=frame, labelled=labelled, rank=rank)


def _qq_quantiles(rs: np.ndarray) -> np.ndarray:
    """qqnorm's x: the normal quantile at ``ppoints`` of each value's rank (NaN kept)."""
    out = np.full(rs.shape, np.nan)
    ok = np.isfinite(rs)
    ranks = np.argsort(np.argsort(rs[ok], kind="stable"), kind="stable")
    out[ok] = stats.norm.ppf(r_ppoints(int(ok.sum())))[ranks]
    return out


def diagnostics(result, which=(1, 2, 3, 5), id_n: int = 3, fig=None):
    """Draw R's ``plot(m)`` panels of a linear fit (see the module's text).

    Parameters
    ----------
    result : LinearResult
    which : sequence of {1, 2, 3, 5}
        The panels, R's ``which`` (R's default ``c(1, 2, 3, 5)``).
    id_n : int
        How many extreme rows each panel labels.
    fig : matplotlib Figure, optional
        Drawn into (a new pyplot figure by default).

    Returns
    -------
    matplotlib.figure.Figure
        With one axes per panel, titled with R's captions.
    """
    which = tuple(which)
    bad = [w for w in which if w not in CAPTIONS]
    if bad or not which:
        raise ValueError(f"which takes panels 1, 2, 3 and 5 (R's plot.glm), got {bad or which}")
    panels = diagnostic_panels(result, id_n)
    if fig is None:
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(9, 8) if len(which) > 1 else (5, 4.5))
    ncols = 2 if len(which) > 1 else 1
    nrows = -(-len(which) // ncols)
    for i, panel in enumerate(which):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        _DRAW[panel](ax, panels)
        ax.set_title(CAPTIONS[panel])
    fig.suptitle(f"{result.formula}", fontsize="small")
    fig.tight_layout()
    return fig


def _label(ax, panels, panel, x, y):
    f = panels.frame
    for key in panels.labelled[panel]:
        ax.annotate(str(key), (f.at[key, x], f.at[key, y]), xytext=(4, 0),
                    textcoords="offset points", fontsize="x-small", va="center")


def _points(ax, x, y):
    ax.scatter(x, y, s=9, facecolors="none", edgecolors="black", linewidths=0.6)


def _residuals_vs_fitted(ax, panels):
    f = panels.frame
    _points(ax, f["fitted"], f["residuals"])
    ax.plot(*panels.smooth(1), color="red", lw=1)
    ax.axhline(0.0, ls=":", color="gray")
    _label(ax, panels, 1, "fitted", "residuals")
    ax.set_xlabel("Predicted values")
    ax.set_ylabel("Residuals")


def _normal_qq(ax, panels):
    f = panels.frame.dropna(subset=["rstandard"])
    _points(ax, f["theoretical"], f["rstandard"])
    y1, y3 = np.quantile(f["rstandard"], [0.25, 0.75])      # qqline: through the quartiles
    x1, x3 = stats.norm.ppf([0.25, 0.75])
    slope = (y3 - y1) / (x3 - x1)
    ax.axline((x1, y1), slope=slope, ls=":", color="gray")
    _label(ax, panels, 2, "theoretical", "rstandard")
    ax.set_xlabel("Theoretical Quantiles")
    ax.set_ylabel("Std. deviance resid.")


def _scale_location(ax, panels):
    f = panels.frame.assign(root=lambda d: np.sqrt(np.abs(d["rstandard"])))
    _points(ax, f["fitted"], f["root"])
    ax.plot(*panels.smooth(3), color="red", lw=1)
    for key in panels.labelled[3]:
        ax.annotate(str(key), (f.at[key, "fitted"], f.at[key, "root"]), xytext=(4, 0),
                    textcoords="offset points", fontsize="x-small", va="center")
    ax.set_xlabel("Predicted values")
    ax.set_ylabel("√|Std. deviance resid.|")


def _residuals_vs_leverage(ax, panels):
    f = panels.frame
    _points(ax, f["hat"], f["rstandard"])
    ax.plot(*panels.smooth(5), color="red", lw=1)
    ax.axhline(0.0, ls=":", color="gray")
    ax.axvline(0.0, ls=":", color="gray")
    lo, hi = ax.get_xlim()
    ylim = ax.get_ylim()
    h = np.linspace(max(min(f["hat"].min(), f["hat"].max() / 100), 1e-12), hi, 101)
    for level in _COOK_LEVELS:
        contour = np.sqrt(level * panels.rank * (1 - h) / h)
        ax.plot(h, contour, ls="--", color="red", lw=0.8)
        ax.plot(h, -contour, ls="--", color="red", lw=0.8)
    ax.set_xlim(lo, hi)
    ax.set_ylim(*ylim)                  # as R: the contours do not widen the panel
    ax.plot([], [], ls="--", color="red", lw=0.8, label="Cook's distance")
    ax.legend(loc="lower left", frameon=False, fontsize="x-small")
    _label(ax, panels, 5, "hat", "rstandard")
    ax.set_xlabel("Leverage")
    ax.set_ylabel("Std. deviance resid.")


_DRAW = {1: _residuals_vs_fitted, 2: _normal_qq, 3: _scale_location,
         5: _residuals_vs_leverage}
