"""``ubreg.Anova``: car's ``Anova`` of a glm, Type II and III tests of each term.

R's ``anova(m)`` adds the terms one after another (Type I, :mod:`ubreg.evaluate.sequential`),
so a term's test depends on the order of the formula.  John Fox's ``car::Anova`` tests each
term in the presence of the others:

- **Type II**, likelihood ratio (car's default for a glm): a term against the model of
  every term that does not contain it (marginality: ``a`` is tested without ``a:b``),
  LR = D(that model less the term) − D(that model);
- **Type III**, likelihood ratio: the term's columns removed from the full model matrix,
  LR = D(full less the columns) − D(full) (the other columns as they are: with R's
  treatment contrasts a main effect inside an interaction is then the effect at the
  reference level, as car computes it);
- **Type III**, Wald: χ² = b′V⁻¹b of the term's coefficients (the intercept's too), V the
  fit's covariance (any ``vcov``).

Type II Wald tests (car's hypothesis matrices conjugate to the relatives' columns) are not
offered: refused by name.  Likelihood-ratio tests need a likelihood (``entropy`` or R's
binomial links); for another family the Wald test with the robust covariance is the one
offered.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..fitters.uls import fit_uls
from ..results.inference import deviance
from ..results.linear import LinearResult
from .deviance_table import DevianceTable, chisq_pvalues, deviance_of, is_likelihood
from .update import check_refittable, refit_on_rows, rows_mask, terms_of

__all__ = ["Anova"]

_TYPES = {"II": "II", 2: "II", "2": "II", "III": "III", 3: "III", "3": "III"}


def Anova(model: LinearResult, type: Any = "II", test_statistic: str = "LR",  # noqa: N802
          vcov: Any = None) -> DevianceTable:
    """Tests of each term as ``car::Anova(m, type, test.statistic)`` of a glm.

    Parameters
    ----------
    model : LinearResult
        A binary linear fit made by :func:`ubreg.fit` (its data at hand).
    type : {"II", "III", 2, 3}
        The tests (see the module's text); car's default is Type II.
    test_statistic : {"LR", "Wald"}
        Likelihood ratio (car's default for a glm; Type II or III) or Wald (Type III).
    vcov : str or matrix, optional
        The covariance of the Wald tests (a kind of :meth:`LinearResult.vcov` or a
        matrix); by default the fit's.

    Returns
    -------
    DevianceTable
        car's rows and columns: ``LR Chisq``, ``Df``, ``Pr(>Chisq)`` (likelihood ratio)
        or ``Df``, ``Chisq``, ``Pr(>Chisq)`` (Wald), printed with significance stars.
    """
    if not isinstance(model, LinearResult):
        raise TypeError(f"Anova tests the terms of a linear fit (method 'uls'); got a "
                        f"{type_name(model)}")
    kind = _TYPES.get(type)
    if kind is None:
        raise ValueError(f"type must be 'II' or 'III' (or 2, 3), got {type!r}")
    if test_statistic not in ("LR", "Wald"):
        raise ValueError(f"test_statistic must be 'LR' or 'Wald', got {test_statistic!r}")
    if test_statistic == "Wald":
        if kind == "II":
            raise ValueError("Type II Wald tests are not offered; use test_statistic='LR' "
                             "(car's default for a glm) or type='III'")
        table = _wald_iii(model, vcov)
    else:
        if vcov is not None:
            raise ValueError("vcov= applies to Wald tests (test_statistic='Wald')")
        if not is_likelihood(model):
            raise ValueError(f"likelihood-ratio tests need a likelihood; the deviance of "
                             f"{model.family.describe()} is a surrogate risk (docs/math.md "
                             "§3): use test_statistic='Wald', type='III'")
        table = _lr_ii(model) if kind == "II" else _lr_iii(model)
    heading = [f"Analysis of Deviance Table (Type {kind} tests)", "",
               f"Response: {model.response.name}"]
    return DevianceTable(table, heading)


def type_name(obj: Any) -> str:
    return type(obj).__name__


def _lr_table(labels: list, lr: list, df: list) -> pd.DataFrame:
    lr_a, df_a = np.asarray(lr, float), np.asarray(df, float)
    return pd.DataFrame({"LR Chisq": lr_a, "Df": df_a, "Pr(>Chisq)": chisq_pvalues(lr_a, df_a)},
                        index=labels)


def _lr_ii(model: LinearResult) -> pd.DataFrame:
    """Each term against the model of the terms that do not contain it (car's
    ``Anova.II.LR.glm``), refitted on the model's rows."""
    check_refittable(model, "Anova")
    terms, mask = terms_of(model), rows_mask(model)
    labels, keys = list(terms.labels), list(terms.variables)
    lr, df = [], []
    for label, key in zip(labels, keys):
        relatives = {lab for lab, other in zip(labels, keys) if key < other}
        reference = [lab for lab in labels if lab not in relatives]
        bigger = model if not relatives else refit_on_rows(
            model, terms.formula(reference), mask, f"Anova, {label}")
        smaller = refit_on_rows(model, terms.formula([t for t in reference if t != label]),
                                mask, f"Anova, - {label}")
        lr.append(deviance_of(smaller) - deviance_of(bigger))
        df.append(bigger.df_model - smaller.df_model)
    return _lr_table(labels, lr, df)


def _lr_iii(model: LinearResult) -> pd.DataFrame:
    """Each term's columns removed from the model matrix, the rest kept (car's
    ``Anova.III.LR.glm``)."""
    X = model.model_matrix
    if X is None:
        raise ValueError("Type III tests refit the model matrix, which a fit of a Dask "
                         "frame does not hold: fit the data in memory")
    slices = model.design.term_slices
    intercept = model.design.column_names.index("(Intercept)") \
        if model.design.has_intercept else None
    kept = ~np.asarray(model.aliased, dtype=bool)
    offset = model.offset
    labels = list(terms_of(model).labels)
    full = deviance_of(model)
    lr, df = [], []
    for label in labels:
        drop = np.zeros(X.shape[1], dtype=bool)
        drop[slices[label]] = True
        keep = kept & ~drop
        cols = np.flatnonzero(keep)
        fit = fit_uls(X[:, cols], model.y, model.weights, model.family, offset=offset,
                      intercept=None if intercept is None or not keep[intercept]
                      else int(np.searchsorted(cols, intercept)))
        assert fit.eta is not None
        reduced = deviance(model.family, model.y, fit.eta, model.weights)
        lr.append(reduced * model.family.likelihood_scale - full)
        df.append(int((kept & drop).sum()))
    return _lr_table(labels, lr, df)


def _wald_iii(model: LinearResult, vcov: Any) -> pd.DataFrame:
    """χ² = b′V⁻¹b of each term's coefficients, the intercept's first (car's
    ``Anova.III.Wald``)."""
    V = model.vcov(vcov).to_numpy(dtype=float)
    coef = model.coef.to_numpy(dtype=float)
    rows, chisq, df = [], [], []
    for label, where in model.design.term_slices.items():
        idx = np.arange(len(coef))[where]
        idx = idx[np.isfinite(coef[idx])]              # aliased coefficients: not tested
        b = coef[idx]
        rows.append(label)
        chisq.append(float(b @ np.linalg.solve(V[np.ix_(idx, idx)], b)) if idx.size else np.nan)
        df.append(idx.size)
    chisq_a, df_a = np.asarray(chisq, float), np.asarray(df, float)
    return pd.DataFrame({"Df": df_a, "Chisq": chisq_a,
                         "Pr(>Chisq)": chisq_pvalues(chisq_a, df_a)}, index=rows)
