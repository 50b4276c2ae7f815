"""Plots of fitted models: each a function ``(result, ax=None, ...) -> ax``.

A plot applies to the results whose declared capabilities it needs
(:func:`available`); matplotlib is imported only when something is drawn.
"""
from .diagnostics import (
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
           "path_of", "wilson_interval"]
