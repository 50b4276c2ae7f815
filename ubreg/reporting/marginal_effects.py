"""The report's average marginal effects: a model's effects on the probability scale,
set beside its odds ratios.

An odds ratio is a factor on the odds, which few readers translate into a change of the
probability; the average marginal effect (AME) is that change.  For each predictor the
table gives marginaleffects' ``avg_slopes`` (the derivative of the predicted probability,
per unit, averaged over the rows of the fit) for a numeric predictor, and
``avg_comparisons`` for a factor (each level against the reference) or a 0/1 indicator
(1 against 0): :mod:`ubreg.evaluate.effects`, with delta-method standard errors.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..evaluate.effects import avg_comparisons, avg_slopes
from ..evaluate.effects_rows import fitted_rows, is_factor_like, levels_of, predictors_of
from ..summary.render import shown_names, visible_text
from .blocks import Paragraph, Row, Table, fmt, fmt_interval

__all__ = ["AME_SENTENCE", "average_effects", "ame_table"]

#: what an average marginal effect is, in one plain sentence
AME_SENTENCE = ("An average marginal effect (AME) is the change in the predicted probability "
                "of the positive class when one predictor increases by one unit (for a factor "
                "or a 0/1 indicator: from the reference level to the level shown), averaged "
                "over the rows the model was fitted to; unlike an odds ratio it is on the "
                "probability scale.")


def average_effects(model: Any, cluster: Any = None) -> pd.DataFrame:
    """marginaleffects' columns for every predictor of ``model``, in the formula's order,
    and ``change``, the change in words: ``avg_slopes`` of a numeric predictor ("per
    unit"), ``avg_comparisons`` of a factor (level "vs" the reference, names shortened as
    in every table) or a 0/1 indicator ("1 vs 0"; a derivative is not a change it makes)."""
    rows = fitted_rows(model)
    # the covariance of the model table: the fit's own, or cluster-robust
    vcov = None if cluster is None else model.vcov(cluster=cluster)
    parts = []
    for name in predictors_of(model):
        column = rows[name]
        if is_factor_like(column):
            frame = avg_comparisons(model, name, vcov=vcov)
            levels = shown_names([visible_text(str(v), newlines=False)
                                  for v in levels_of(column)])
            frame["change"] = [f"{level} vs {levels[0]}" for level in levels[1:]]
        elif np.isin(column.to_numpy(dtype=float), (0.0, 1.0)).all():
            frame = avg_comparisons(model, name, vcov=vcov).assign(change="1 vs 0")
        else:
            frame = avg_slopes(model, name, vcov=vcov).assign(change="per unit")
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def ame_table(name: str, anchor: str, model: Any, cluster: Any = None) -> Table | Paragraph:
    """The table of a model's average marginal effects, or a note saying why there is none
    (its data are not at hand, say)."""
    try:
        frame = average_effects(model, cluster)
    except (ValueError, TypeError) as exc:      # no data at hand, a constant predictor, ...
        return Paragraph(f"{name}: average marginal effects not computed ({exc}).", "note")
    # a predictor the fit does not depend on (its columns aliased, R's NA coefficients)
    # has no identified effect: not the precise-looking 0 (0) of the derivative
    aliased = ((frame["estimate"] == 0.0) & (frame["std.error"] == 0.0)).to_numpy() \
        & bool(np.any(model.aliased))
    rows = [Row([str(r["term"]), r["change"], "aliased", "", ""]) if gone else
            Row([str(r["term"]), r["change"], fmt(r["estimate"], 3),
                 f"({fmt(r['std.error'], 3)})", fmt_interval(r["conf.low"], r["conf.high"])])
            for gone, (_, r) in zip(aliased, frame.iterrows())]
    covariance = "the model table's" if cluster is None else "cluster-robust"
    extra = (["aliased: the predictor's columns are linear combinations of the others "
              "(R's NA coefficients), so the fit does not depend on it and its effect is "
              "not estimable."] if aliased.any() else [])
    return Table(f"ame-{anchor}", f"{name}: average marginal effects on the probability, with "
                 "95% intervals.", ["Predictor", "Change", "AME", "SE", "95% interval"], rows,
                 align="llrrr",
                 notes=["AME: the mean over the rows of the fit of the change in the predicted "
                        "probability (per unit: the derivative, marginaleffects' avg_slopes; "
                        "a level against the reference: the difference, avg_comparisons). "
                        f"Standard errors by the delta method ({covariance} covariance), "
                        "95% Wald intervals. A predictor in an interaction is changed "
                        "with its interaction terms."] + extra)
