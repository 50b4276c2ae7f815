"""Plots of fitted models: each a function ``(result, ax=None, ...) -> ax``, and R's
``plot(m)`` of a linear fit, :func:`diagnostics` (a figure of four panels).

A plot applies to the results whose declared capabilities it needs
(:func:`available`); matplotlib is imported only when something is drawn.
"""
from .comparison import calibration_grid, grid_shape, odds_ratio_forest
from .effects import effects, odds_ratio_scale, term_scales
from .glm_panels import diagnostic_panels, diagnostics
from .model_plots import (
    available,
    calibration,
    calibration_table,
    coefficients,
    cv_risk,
    edge_path,
    margins,
    path_of,
    risk_path,
    roc,
    roc_curve,
    t_margins,
    tree,
    wilson_interval,
)
from .treeplot import plot_tree

__all__ = ["calibration", "calibration_table", "roc", "roc_curve", "margins", "t_margins",
           "risk_path", "edge_path", "cv_risk", "coefficients", "tree", "plot_tree", "available",
           "path_of", "wilson_interval", "effects", "term_scales", "odds_ratio_scale",
           "calibration_grid", "odds_ratio_forest", "grid_shape", "diagnostic_panels",
           "diagnostics"]
