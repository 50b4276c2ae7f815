"""The report's comparison and calibration sections.

Models are compared on equal footing only: cross-validations on the same rows with
the same folds (:func:`ubreg.evaluate.cv.cv_models`) give each model's mean held-out
log loss, Brier score, AUC and error rate, and its difference to the best model
paired fold by fold, with the standard error of that difference; a model is within
noise of the best unless a paired t test on the folds rejects at familywise level
:data:`~ubreg.evaluate.cv.NOISE_LEVEL`, Holm-adjusted over every pair of models
(:func:`~ubreg.evaluate.cv.fold_differences`).  Cross-validations on
different rows or folds are listed, flagged, and not paired.  Log-likelihoods and
AICs are compared only among fits with a likelihood (``has_likelihood``) to the
same rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..evaluate.compare import has_information_criteria
from ..evaluate.cv import NOISE_LEVEL, paired_differences, same_folds
from ..evaluate.metrics import METRIC_NAMES, metrics_of, observed_and_posterior
from ..results.base import capabilities_of
from .blocks import Row, Section, Table, fixed_pm, fmt, fmt_count
from .figures import section_figure

__all__ = ["comparison_section", "calibration_section"]


def _footing(cvs: dict) -> str:
    """``"paired"`` (every model cross-validated on the same rows and folds),
    ``"unpaired"`` (cross-validated, but not so) or ``"none"``."""
    present = [c for c in cvs.values() if c is not None]
    if not present:
        return "none"
    if len(present) == len(cvs) and same_folds(present):
        return "paired"
    return "unpaired"


def _verdict(row) -> str:
    if row["best"] or row.get("tied", False):
        return "tied for best" if row.get("ties", 1) > 1 else "best"
    return "within noise" if row["within_noise"] else "worse"


def _with_ties(d):
    """The table with ``ties``: how many models share the best score (within 1e-12)."""
    d = d.copy()
    d["ties"] = int(d["tied"].sum()) if "tied" in d else 1
    return d


def _paired_table(cvs: dict) -> tuple[Table, dict]:
    diffs = {k: _with_ties(paired_differences(cvs, k, NOISE_LEVEL)) for k in ("log_loss", "brier")}
    first = next(iter(cvs.values()))
    rows = []
    for name, cv in cvs.items():
        ll, br = diffs["log_loss"].loc[name], diffs["brier"].loc[name]
        rows.append(Row([name, fixed_pm(ll["mean"], ll["se"], 3),
                         "" if ll["best"] else fixed_pm(ll["diff"], ll["diff_se"]), _verdict(ll),
                         fixed_pm(br["mean"], br["se"], 3),
                         "" if br["best"] else fixed_pm(br["diff"], br["diff_se"]),
                         fixed_pm(cv.mean["auc"], cv.se["auc"], 3)],
                        "mark" if ll["best"] else "body"))
    n, k = len(first.fold), first.n_folds
    table = Table("comparison-cv", f"Cross-validated comparison: the same {n} rows and the "
                  f"same {k} folds (seed {first.seed}) for every model.",
                  ["Model", "Log loss", "Δ log loss", "Verdict", "Brier", "Δ Brier", "AUC"],
                  rows,
                  notes=[f"Mean ± standard error over the {k} folds. Δ: the model's score minus "
                         "the best model's, fold by fold, averaged, ± the standard error of "
                         "those paired differences. Verdict (by log loss): 'worse' when a "
                         f"paired t test on the {k} folds ({k - 1} degrees of freedom) "
                         f"rejects equality with the best at familywise level {NOISE_LEVEL:g}, "
                         "Holm-adjusted over every pair of models (the best is chosen on the "
                         "same folds); 'within noise' otherwise. Fold "
                         "standard errors treat the folds as independent; their training "
                         "parts overlap, so they understate the uncertainty somewhat. Error "
                         "rates are in each model's section."])
    return table, diffs


def _summary_text(diffs: dict) -> str:
    parts = []
    for key, label in (("log_loss", "log loss"), ("brier", "Brier score")):
        d = diffs[key]
        top = d["best"] | d.get("tied", d["best"])
        best = list(d.index[top])
        near = [n for n in d.index if not top[n] and d.loc[n, "within_noise"]]
        far = [n for n in d.index if not d.loc[n, "within_noise"]]
        text = (f"By cross-validated {label} the best model is {best[0]}" if len(best) == 1 else
                f"By cross-validated {label} {', '.join(best)} are tied for best (scores equal "
                "within 1e-12 on every fold)")
        text += ("; within noise of it: " + ", ".join(near)) if near else \
            "; no other model is within noise of it"
        text += ("; clearly worse: " + ", ".join(far)) if far else ""
        parts.append(text + ".")
    return " ".join(parts)


def _unpaired(section: Section, cvs: dict) -> None:
    present = {n: c for n, c in cvs.items() if c is not None}
    rows = [Row([name, str(len(c.fold)), str(c.n_folds), str(c.seed),
                 fixed_pm(c.mean["log_loss"], c.se["log_loss"]),
                 fixed_pm(c.mean["brier"], c.se["brier"]),
                 fixed_pm(c.mean["auc"], c.se["auc"], 3)]) for name, c in present.items()]
    section.text("These cross-validations were not run on the same rows with the same folds "
                 "(or not every model was cross-validated), so their differences cannot be "
                 "paired and may reflect the rows as much as the models; "
                 "ubreg.evaluate.cv.cv_models cross-validates models on equal footing.", "note")
    section.add(Table("comparison-cv", "Cross-validations as given (not on equal footing).",
                      ["Model", "n", "K", "Seed", "Log loss", "Brier", "AUC"], rows))


def _likelihood_table(models: dict) -> Table | None:
    """Log-likelihood and AIC of the fits with a likelihood, grouped by their rows; a
    ΔAIC only within a group of the same rows."""
    fits = {n: m for n, m in models.items() if has_information_criteria(m)}
    if len(fits) < 2:
        return None
    groups: list[tuple[pd.Index, list]] = []
    for name, m in fits.items():
        for index, names in groups:
            if index.equals(m.index):
                names.append(name)
                break
        else:
            groups.append((m.index, [name]))
    rows = []
    for g, (_, names) in enumerate(groups, 1):
        aic = pd.Series({n: float(fits[n].aic) for n in names})
        finite = aic[np.isfinite(aic)]
        for i, n in enumerate(names):
            delta = aic[n] - finite.min() if len(finite) > 1 and np.isfinite(aic[n]) else np.nan
            rows.append(Row([n, str(g), fmt_count(fits[n].nobs), fmt(fits[n].loglik, 5),
                             fmt(aic[n], 5), fmt(delta, 3)], "first" if i == 0 and g > 1
                            else "body"))
    return Table("comparison-aic", "Log-likelihood and AIC of the fits with a likelihood; "
                 "ΔAIC within a group of fits to the same rows.",
                 ["Model", "Rows group", "n", "Log-likelihood", "AIC", "ΔAIC"], rows,
                 notes=["Only fits whose loss is the binomial likelihood (entropy, entropy2) "
                        "have an AIC; the other families maximise no likelihood (as R's quasi "
                        "families) and are compared by their cross-validated log loss and "
                        "Brier score. Trees, boosting and nearest-neighbour rules choose their "
                        "structure adaptively and have no AIC either; their count of leaves "
                        "or rounds is not degrees of freedom."])


def _training_table(models: dict) -> Table:
    rows = []
    for name, m in models.items():
        values = metrics_of(m) if capabilities_of(m).has_training_rows else {}
        rows.append(Row([name, *(fmt(values.get(k), 4) for k in METRIC_NAMES)]))
    return Table("comparison-training", "Metrics on the training rows (optimistic: each model "
                 "is scored on the rows it was fitted to).", ["Model", *METRIC_NAMES.values()],
                 rows)


def comparison_section(models: dict, cvs: dict) -> Section:
    """The ``comparison`` section (see the module notes)."""
    section = Section("comparison", "Comparison")
    footing = _footing(cvs)
    if footing == "paired" and len(cvs) > 1:
        first = next(iter(cvs.values()))
        where = first.rows_note or f"{len(first.fold)} rows"
        section.text(f"{first.n_folds}-fold {'stratified ' if first.stratified else ''}"
                     f"cross-validation (seed {first.seed}) on {where}: every model is fitted "
                     "on the same training parts and scored on the same held-out rows.")
        table, diffs = _paired_table(cvs)
        section.add(table)
        section.text(_summary_text(diffs))
    elif footing != "none":
        _unpaired(section, cvs)
    else:
        section.text("The models were not cross-validated: only their training-row metrics "
                     "(optimistic) and likelihoods are compared. Pass ubreg.cv results, or "
                     "cross-validate on equal footing with ubreg.evaluate.cv.cv_models.", "note")
        section.add(_training_table(models))
    section.add(_likelihood_table(models))
    return section


def _posteriors(models: dict, cvs: dict, data) -> tuple[dict, str]:
    """``{name: (y, p, w)}`` of the binary models, and where they come from."""
    out = {}
    if _footing(cvs) == "paired":
        for name, cv in cvs.items():
            if isinstance(cv.predictions, pd.Series):
                out[name] = (cv.observed.to_numpy(), cv.predictions.to_numpy(),
                             cv.row_weights.to_numpy())
        first = next(iter(cvs.values()))
        return out, (f"out-of-fold posteriors of the cross-validation ({len(first.fold)} rows, "
                     f"{first.n_folds} folds): each row scored by the model that did not see it")
    for name, m in models.items():
        if data is None and not capabilities_of(m).has_training_rows:
            continue
        y, p, w, classes = observed_and_posterior(m, data)
        if classes is None:
            out[name] = (y, p, w)
    where = "the data passed to the report" if data is not None else \
        "the training rows (optimistic: each model scored on the rows it was fitted to)"
    return out, where


def calibration_section(models: dict, cvs: dict, data=None) -> Section | None:
    """The ``calibration`` section: one reliability panel per binary model, shared axes."""
    posteriors, where = _posteriors(models, cvs, data)
    if not posteriors:
        return None
    section = Section("calibration", "Calibration")
    section.text(f"Posteriors from {where}. A well calibrated model's points lie on the "
                 "diagonal; bars are 95% Wilson intervals of the observed frequency, and "
                 "the number above a point is the rows in its bin.")
    section.add(section_figure("calibration_grid", posteriors))
    return section

