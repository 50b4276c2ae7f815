"""Figures of several models at once: calibration panels on shared axes, a forest plot of
odds ratios.

These draw on a figure (or axes) they are given and return what they drew; the
numbers come from the caller (posteriors) or from :func:`~ubreg.plots.effects.effects`.
"""
from __future__ import annotations

import numpy as np

from ..summary.render import plain_text, shown_names
from .effects import effects
from .model_plots import calibration_table

__all__ = ["calibration_grid", "odds_ratio_forest", "grid_shape"]


def grid_shape(n: int, ncols: int = 3) -> tuple[int, int]:
    """(rows, columns) of a grid of ``n`` panels at most ``ncols`` wide."""
    cols = max(1, min(ncols, n))
    return -(-n // cols), cols


def calibration_grid(posteriors: dict, fig=None, bins: int = 10, strategy: str = "uniform",
                     level: float = 0.95, ncols: int = 3, rect=(0.08, 0.08, 0.9, 0.86),
                     label_size: float = 8.0):
    """Reliability diagrams of several models, one panel each, on shared axes.

    Parameters
    ----------
    posteriors : dict
        ``{name: (y, p, w)}``: observed 0/1 classes, posteriors P(y = 1) and
        frequency weights of the rows each model is judged on (the same rows for
        every model when they come from :func:`~ubreg.evaluate.cv.cv_models`).
    fig : matplotlib Figure, optional
        Drawn on (a new pyplot figure by default).
    bins, strategy, level
        As for :func:`~ubreg.plots.calibration_table`: the bins, and the level of
        the Wilson intervals drawn as bars.
    ncols : int
        Panels per row.
    rect : (left, bottom, width, height)
        The part of the figure the grid fills (figure fractions).
    label_size : float
        Font size of titles and labels; the counts are drawn a little smaller.

    Returns
    -------
    list of matplotlib Axes
        One per model, in the order of ``posteriors``.  Above each bin's point is
        the (weighted) number of rows in the bin.
    """
    if fig is None:
        import matplotlib.pyplot as plt
        fig = plt.figure(figsize=(9, 3.2 * grid_shape(len(posteriors), ncols)[0]))
    nrows, cols = grid_shape(len(posteriors), ncols)
    left, bottom, width, height = rect
    grid = fig.add_gridspec(nrows, cols, left=left, right=left + width, bottom=bottom,
                            top=bottom + height, hspace=0.45, wspace=0.12)
    axes, first = [], None
    names = shown_names(list(posteriors))
    for i, ((_, (y, p, w)), shown) in enumerate(zip(posteriors.items(), names)):
        ax = fig.add_subplot(grid[i // cols, i % cols], sharex=first, sharey=first)
        first = first or ax
        _one_panel(ax, y, p, w, bins, strategy, level, label_size)
        ax.set_title(plain_text(shown), fontsize=label_size)
        if i % cols:
            ax.tick_params(labelleft=False)
        else:
            ax.set_ylabel("observed frequency", fontsize=label_size)
        if i // cols == nrows - 1 or i + cols >= len(posteriors):
            ax.set_xlabel("mean posterior in bin", fontsize=label_size)
        ax.tick_params(labelsize=label_size - 1)
        axes.append(ax)
    return axes


def _one_panel(ax, y, p, w, bins, strategy, level, label_size):
    t = calibration_table(y, p, w, bins=bins, strategy=strategy, level=level)
    err = np.maximum(np.vstack([t["observed"] - t["lower"], t["upper"] - t["observed"]]), 0)
    ax.plot([0, 1], [0, 1], ls="--", color="0.6", lw=0.8)
    ax.errorbar(t["mean_predicted"], t["observed"], yerr=err, marker="o", ms=3, capsize=1.5,
                lw=1.0, color="C0")
    for x, top, n in zip(t["mean_predicted"], t["upper"], t["count"]):
        ax.annotate(f"{n:.0f}", (x, min(top, 1.0)), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=label_size - 2.5, color="0.35",
                    annotation_clip=False)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.12)
    ax.set_xticks([0, 0.5, 1])
    ax.set_yticks([0, 0.5, 1])


def odds_ratio_forest(results: dict, ax=None, scale: str = "sd", level: float = 0.95,
                      interval: str = "profile"):
    """Odds ratios with their intervals of several models on a log axis (a forest plot).

    Parameters
    ----------
    results : dict
        ``{name: result}`` of linear fits whose family has a logistic posterior
        (:func:`~ubreg.plots.effects.odds_ratio_scale`).
    ax : matplotlib Axes, optional
    scale : {"sd", "raw"}
        Odds ratio per SD of each numeric predictor (default; indicators per unit),
        or per unit.
    level, interval
        As for :func:`~ubreg.plots.effects.effects`: profile-likelihood limits where
        available, else Wald.

    Returns
    -------
    matplotlib Axes
        Terms in the order they first appear, one marker per model, dodged.
    """
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots()
    tables = {name: effects(m, scale=scale, level=level, interval=interval, odds_ratios=True)
              for name, m in results.items()}
    terms = list(dict.fromkeys(t for table in tables.values() for t in table.index))
    step = 0.7 / max(len(tables), 1)
    for j, (table, shown) in enumerate(zip(tables.values(), shown_names(list(tables)))):
        pos = np.array([len(terms) - 1 - terms.index(t) for t in table.index], dtype=float)
        pos += 0.35 - step / 2 - j * step if len(tables) > 1 else 0.0
        est = table["estimate"].to_numpy(dtype=float)
        err = np.vstack([est - table["lower"].to_numpy(dtype=float),
                         table["upper"].to_numpy(dtype=float) - est])
        ax.errorbar(est, pos, xerr=np.maximum(err, 0), fmt="os^Dv"[j % 5], ms=3.5, capsize=2,
                    lw=1.0, label=plain_text(shown))
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.axvline(1.0, color="0.6", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 3.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(np.arange(len(terms))[::-1])
    ax.set_yticklabels([plain_text(t) for t in shown_names(terms)])
    per = "per SD (indicators per unit)" if scale == "sd" \
        else "per unit of each predictor"
    ax.set_xlabel(f"odds ratio {per}, log scale")
    if len(tables) > 1:
        ax.legend(fontsize="small", loc="best")
    return ax
