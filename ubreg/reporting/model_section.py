"""The report's model table (in modelsummary's layout) and its odds ratios.

The model table puts the models with coefficients side by side: one row per term (in
the order the formulas write them, as R's), the estimate with its significance stars
and its standard error in parentheses under it, then a block of goodness-of-fit
rows: n, the deviance where it is a likelihood-ratio deviance (``entropy``), the AIC
where it is defined (results that declare ``has_likelihood``), the Brier score and
AUC on the training rows and the cross-validated log loss (the entropy risk) when
the models were cross-validated.  Every family names its link.

The odds ratios are exp(cβ) for the families whose posterior is logistic, with
profile-likelihood intervals where the fit offers them (else Wald, labelled), per
unit and per SD of the predictor (:func:`ubreg.plots.effects`), and a forest plot
on a log axis.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..evaluate.compare import Comparison, fit_statistics
from ..evaluate.metrics import metrics_of
from ..plots.effects import (
    effects,
    formula_order,
    has_term_scales,
    is_interaction,
    odds_ratio_scale,
)
from ..results.base import Result, capabilities_of
from ..results.linear import LinearResult
from ..summary.linear import significance_stars
from .blocks import Row, Section, Table, fixed_pm, fmt, fmt_count, fmt_interval, slug
from .figures import section_figure
from .marginal_effects import AME_SENTENCE, ame_table

__all__ = ["link_text", "link_name", "models_section", "odds_ratio_section", "coefficient_models",
           "odds_ratio_models"]


def _link_form(family):
    if isinstance(family, (list, tuple)):
        return None
    return family.posterior_form if family.is_permissible else None


def _link(family) -> tuple[str, str]:
    """(short name, written-out formula) of the link η = ∇φ(p) of a family."""
    if isinstance(family, (list, tuple)):
        return "bag", "a bag of families"
    if family.name == "exponential":
        return "½ logit", "η = ½ logit(p)"
    form = _link_form(family)
    if form is None:
        return "∇φ", f"η = ∇φ(p), φ of {family.describe()}"
    shape, c = form
    scale = "" if c == 1 else f"{fmt(c, 3)} × "
    if shape == "logistic":
        return (("logit", "η = logit(p)") if c == 1
                else ("logit / c", f"η = logit(p) / {fmt(c, 3)}"))
    if shape == "linear":
        return "linear", f"η = {scale}(2p − 1)"
    return "Matsushita", f"η = {scale}(2p − 1) / (2√(p(1 − p)))"


def link_text(family) -> str:
    """The link η = ∇φ(p) of a family, written out where it has a closed form."""
    return _link(family)[1]


def link_name(family) -> str:
    """A short name of the link, for a table cell (:func:`link_text` writes it out)."""
    return _link(family)[0]


def coefficient_models(models: dict) -> dict:
    """The models (results) with coefficients, in order."""
    return {n: m for n, m in models.items() if capabilities_of(m).has_coefficients}


def odds_ratio_models(models: dict) -> dict:
    """The linear fits whose family has a logistic posterior (entropy, entropy2)."""
    return {n: m for n, m in coefficient_models(models).items()
            if isinstance(m, Result) and odds_ratio_scale(m.family) is not None}


#: the normal quantile of a two-sided 95% interval
_Z95 = 1.959963984540054


def probability_scale(model) -> float | None:
    """The half-slope 1/(2c) that takes a linear probability model's coefficients from its
    link η = c(2p − 1) to the probability scale (``lm``'s); None for any other model."""
    if not (isinstance(model, LinearResult) and model.is_linear_probability_model):
        return None
    form = _link_form(model.family)
    c = form[1] if form is not None and form[0] == "linear" else 1.0
    return 1.0 / (2.0 * c)


def _coefficient_rows(comparison: Comparison, names: list, order: list,
                      models: dict | None = None) -> list:
    c = comparison.coefficients()
    half = {n: probability_scale((models or {}).get(n)) for n in names}
    rows = []
    for term in order:
        est, second, third = [], [], []
        for name in names:
            e, s, p = (c.loc[term, (name, k)] for k in ("estimate", "std_error", "p"))
            if half[name] is not None:      # p = ½ + η/(2c): lm's coefficients
                e, s = e * half[name] + (0.5 if term == "(Intercept)" else 0.0), s * half[name]
            # the mark set apart from the number ("-1.40 ." not "-1.40.", read as a typo)
            mark = significance_stars(p)
            est.append(fmt(e, 3) + (f" {mark}" if mark else "") if np.isfinite(e) else "")
            second.append(f"({fmt(s, 3)})" if np.isfinite(s) else "")
            # the 95% Wald interval of the standard error shown above it
            third.append(fmt_interval(e - _Z95 * s, e + _Z95 * s)
                         if np.isfinite(e) and np.isfinite(s) else "")
        if any(est):
            rows += [Row([str(term), *est]), Row(["", *second], "second"),
                     Row(["", *third], "second")]
    return rows


def _fit_rows(models: dict, cvs: dict) -> list:
    """The goodness-of-fit block: n, deviance (likelihood), AIC, Brier, AUC, CV log loss."""
    stats = {n: fit_statistics(m) for n, m in models.items()}
    train = {n: metrics_of(m) if capabilities_of(m).has_training_rows else {}
             for n, m in models.items()}
    lik_dev = {n: bool(m.family.likelihood_deviance) for n, m in models.items()}
    rows = [Row(["Num. obs.", *(fmt_count(stats[n]["nobs"]) for n in models)], "first"),
            Row(["Deviance", *(fmt(stats[n]["deviance"], 4) if lik_dev[n] else ""
                               for n in models)]),
            Row(["AIC", *(fmt(stats[n]["aic"], 4) for n in models)]),
            Row(["Brier (train)", *(fmt(train[n].get("brier"), 3) for n in models)]),
            Row(["AUC (train)", *(fmt(train[n].get("auc"), 3) for n in models)])]
    if any(cv is not None for cv in cvs.values()):
        rows.append(Row(["CV log loss",
                         *(fixed_pm(cvs[n].mean["log_loss"], cvs[n].se["log_loss"], 3)
                           if cvs.get(n) is not None else "" for n in models)]))
    rows.append(Row(["Link", *("probability" if probability_scale(m) else link_name(m.family)
                               for m in models.values())]))
    return rows


def models_section(models: dict, cvs: dict, cluster: Any = None) -> Section | None:
    """The ``models`` section: the coefficient models side by side (modelsummary), with
    cluster-robust standard errors given ``cluster``."""
    chosen = coefficient_models(models)
    if not chosen:
        return None
    comparison = Comparison(chosen, cluster=cluster)
    names = list(chosen)
    order = list(dict.fromkeys(t for m in chosen.values() for t in formula_order(m)))
    rows = _coefficient_rows(comparison, names, order, chosen) + _fit_rows(chosen, cvs)
    covariance = ("model-based sandwich covariance" if cluster is None else
                  "cluster-robust HC0 covariance, sandwich::vcovCL")
    notes = [f"Estimates on each family's link scale (last row; the linear probability "
             "model's on the probability scale, as lm's: p = ½ + η/2), standard errors "
             f"({covariance}) "
             "in parentheses and 95% Wald confidence intervals in brackets below them; "
             "* p < 0.05, ** p < 0.01, *** p < 0.001, . p < 0.1 (Wald).",
             "Deviance only where it is a binomial deviance (entropy); for the other families "
             "2 Σ D_φ is a risk, not comparable across families. AIC from the binomial "
             "log-likelihood, only for the fits whose loss is that likelihood; blank for "
             "the others. Brier score and AUC on the training rows."]
    notes.append("Links: " + "; ".join(f"{name}: {link_text(m.family)}"
                                      for name, m in chosen.items()) + ".")
    if any(cvs.get(n) is not None for n in names):
        notes.append("CV log loss: mean ± standard error over the folds of the comparison "
                     "(section Comparison).")
    n_rows = {fit_statistics(m)["nobs"] for m in chosen.values()}
    if len(n_rows) > 1:
        notes.append("The models were fitted to different numbers of rows: their deviances "
                     "and AICs are not comparable.")
    section = Section("models", "Models")
    section.add(Table("model-table", "Coefficients of the linear fits, side by side.",
                      ["", *names], rows, notes=notes))
    return section


def _odds_table(name: str, m) -> Table:
    raw = effects(m, scale="raw", interval="profile", odds_ratios=True)
    per_sd = effects(m, scale="sd" if has_term_scales(m) else "raw", interval="profile",
                     odds_ratios=True)
    rows = []
    for term in raw.index:
        r, s = raw.loc[term], per_sd.loc[term]
        if not has_term_scales(m):          # no design matrix of the training rows: no SDs
            rows.append(Row([str(term), fmt(r["estimate"], 3),
                             fmt_interval(r["lower"], r["upper"]), "", "", ""]))
            continue
        if is_interaction(str(term)):       # a product has no SD of one predictor
            rows.append(Row([str(term), fmt(r["estimate"], 3),
                             fmt_interval(r["lower"], r["upper"]), "interaction", "", ""]))
            continue
        sd = fmt(s["sd"], 3) if s["per"] == "SD" else "indicator"
        rows.append(Row([str(term), fmt(r["estimate"], 3), fmt_interval(r["lower"], r["upper"]),
                         sd, fmt(s["estimate"], 3), fmt_interval(s["lower"], s["upper"])]))
    how = raw["interval"].iloc[0] if len(raw) else "profile likelihood"
    return Table(f"odds-{slug(name)}", f"{name}: odds ratios with 95% intervals ({how}).",
                 ["Term", "OR", "95% interval", "SD", "OR per SD", "95% interval"], rows,
                 notes=["OR = exp(cβ) with p = expit(cη) (c = 1 for entropy). Per SD: the "
                        "odds ratio for one standard deviation (divisor n − 1) of the predictor "
                        "over the training rows; 0/1 indicators and interactions are per "
                        "unit."])


def odds_ratio_section(models: dict, cluster: Any = None) -> Section | None:
    """The ``odds-ratios`` section: for each entropy-family model its odds ratios and,
    beside them, its average marginal effects on the probability scale
    (:mod:`.marginal_effects`), then a forest plot; the link of every other linear fit."""
    linear = coefficient_models(models)
    logistic = odds_ratio_models(models)
    if not linear:
        return None
    section = Section("odds-ratios", "Odds ratios")
    if logistic:
        section.text("For the families with a logistic posterior (entropy, entropy2) exp(cβ) "
                     "is the odds ratio of a coefficient: the factor by which the odds of "
                     "the positive class change with one unit (or one SD) of the predictor. "
                     + AME_SENTENCE)
        for name, m in logistic.items():
            section.add(_odds_table(name, m), ame_table(name, slug(name), m, cluster))
        section.add(section_figure("odds_ratio_forest", logistic))
    others = {n: m for n, m in linear.items() if n not in logistic}
    if others:
        section.text("Other families have no odds ratios: their coefficients are changes of "
                     "the link η, shown in the model table; "
                     + "; ".join(f"{n}: {link_text(m.family)}" for n, m in others.items())
                     + ".", "note")
    return section
