"""Wald tests of linear hypotheses on the coefficients: car's ``linearHypothesis``.

``ubreg.linear_hypothesis(m, "glucose = mass")`` is R's
``car::linearHypothesis(m, "glucose = mass")`` of a glm: the hypothesis Lβ = r, and the
statistic W = (Lβ̂ − r)ᵀ (L V Lᵀ)⁻¹ (Lβ̂ − r), χ² on q = rows of L degrees of freedom, V the
covariance of the fit (its default, any of ``m.vcov``'s kinds, or a matrix).
``ubreg.wald_test(m, L, rhs)`` takes L itself.

A hypothesis is read, never evaluated: each equation is a sum of terms
``[number [*]] coefficient`` or ``number`` on either side of ``=``, the coefficients by
their names as ``m.coef`` gives them (R's: ``I(pregnant > 3)TRUE``, ``poly(age, 2)1``;
between backticks if wished).  Anything else is an error naming where it stopped.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..results.base import capabilities_of
from .deviance_table import DevianceTable

__all__ = ["HypothesisTest", "linear_hypothesis", "wald_test", "parse_hypothesis"]

_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _tokens(text: str, names: Sequence[str]) -> list[tuple[str, Any]]:
    """(kind, value) tokens: ``name`` (a coefficient), ``number``, ``op`` (+ - * = ,)."""
    by_length = sorted(names, key=len, reverse=True)
    out: list[tuple[str, Any]] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if text[i] == "`":
            end = text.find("`", i + 1)
            name = text[i + 1:end] if end > 0 else None
            if name not in names:
                raise ValueError(f"hypothesis {text!r}: {text[i:]!r} is not a coefficient "
                                 f"name; the coefficients are {list(names)}")
            out.append(("name", name))
            i = end + 1
            continue
        name = next((n for n in by_length if text.startswith(n, i)), None)
        number = _NUMBER.match(text, i)
        if name is not None and not (number and number.end() > i + len(name)):
            out.append(("name", name))
            i += len(name)
        elif number is not None:
            out.append(("number", float(number.group())))
            i = number.end()
        elif text[i] in "+-*=,":
            out.append(("op", text[i]))
            i += 1
        else:
            raise ValueError(f"hypothesis {text!r}: cannot read {text[i:]!r}: write sums of "
                             f"[number *] coefficient on either side of '=', the coefficients "
                             f"named as in m.coef: {list(names)}")
    return out


def _side(tokens: list, text: str, p: int, position: dict) -> tuple[np.ndarray, float]:
    """Coefficient weights and constant of one side of an equation."""
    weights, constant, sign, expect_term = np.zeros(p), 0.0, 1.0, True
    k = 0
    while k < len(tokens):
        kind, value = tokens[k]
        if kind == "op" and value in "+-":
            sign = sign * (-1.0 if value == "-" else 1.0)
            expect_term = True
            k += 1
            continue
        if not expect_term:
            raise ValueError(f"hypothesis {text!r}: expected '+' or '-' before {value!r}")
        factor = 1.0
        if kind == "number":
            factor, k = value, k + 1
            if k < len(tokens) and tokens[k] == ("op", "*"):
                k += 1
            if k >= len(tokens) or tokens[k][0] != "name":
                constant += sign * factor
                sign, expect_term = 1.0, False
                continue
            kind, value = tokens[k]
        if kind != "name":
            raise ValueError(f"hypothesis {text!r}: unexpected {value!r}")
        k += 1
        if k < len(tokens) and tokens[k] == ("op", "*"):     # coefficient * number
            if k + 1 >= len(tokens) or tokens[k + 1][0] != "number":
                raise ValueError(f"hypothesis {text!r}: '*' multiplies a number")
            factor, k = factor * tokens[k + 1][1], k + 2
        weights[position[value]] += sign * factor
        sign, expect_term = 1.0, False
    if expect_term:
        raise ValueError(f"hypothesis {text!r}: an equation side is empty or ends with an "
                         "operator")
    return weights, constant


def parse_hypothesis(hypothesis: str | Sequence[str],
                     names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(L, r, the equations as car prints them) of equations over the coefficients
    ``names``; a string may hold several equations separated by commas."""
    names = list(names)
    position = {n: j for j, n in enumerate(names)}
    texts = [hypothesis] if isinstance(hypothesis, str) else list(hypothesis)
    rows, rhs, labels = [], [], []
    for text in texts:
        tokens = _tokens(text, names)
        equations: list[list] = [[]]
        for token in tokens:
            if token == ("op", ","):
                equations.append([])
            else:
                equations[-1].append(token)
        for eq in equations:
            if [t for t in eq if t == ("op", "=")] != [("op", "=")]:
                raise ValueError(f"hypothesis {text!r}: each equation has one '='")
            cut = eq.index(("op", "="))
            (wl, cl), (wr, cr) = (_side(eq[:cut], text, len(names), position),
                                  _side(eq[cut + 1:], text, len(names), position))
            rows.append(wl - wr)
            rhs.append(cr - cl)
            labels.append(_label(wl - wr, cr - cl, names))
    return np.array(rows), np.array(rhs), labels


def _label(weights: np.ndarray, constant: float, names: list[str]) -> str:
    """``2 glucose + mass = 0.1``: car's print of an equation."""
    parts: list[str] = []
    for w, n in zip(weights, names):
        if w == 0:
            continue
        size = "" if abs(w) == 1 else f"{abs(w):g} "
        sign = ("- " if w < 0 else "+ ") if parts else ("- " if w < 0 else "")
        parts.append(f"{sign}{size}{n}")
    return f"{' '.join(parts) or '0'} = {constant:g}"


class HypothesisTest(DevianceTable):
    """car's ``linearHypothesis`` table (Res.Df, Df, Chisq, Pr(>Chisq)), a DataFrame, with
    ``statistic``, ``df``, ``pvalue``, ``L`` and ``rhs``."""

    _metadata = DevianceTable._metadata + ["statistic", "df", "pvalue", "L", "rhs"]


def wald_test(model: Any, L: Any, rhs: Any = None, vcov: Any = None,
              labels: Sequence[str] | None = None) -> HypothesisTest:
    """The Wald χ² test of Lβ = rhs, as car's ``linearHypothesis`` with a matrix.

    R's ``linearHypothesis(m, L, rhs, vcov. = V)``.

    Parameters
    ----------
    model : LinearResult
    L : array or DataFrame, (q, p) or (p,)
        One row per equation, one column per coefficient (a DataFrame's columns name
        them, in any order).
    rhs : array of q numbers, optional
        0 by default.
    vcov : str or (p, p) array or DataFrame, optional
        The covariance: the fit's default, a kind of :meth:`vcov` (``"HC0"``, ...) or a
        matrix (printed as "Coefficient covariance matrix supplied", as car does).
    """
    if not capabilities_of(model).has_coefficients:
        raise TypeError(f"a Wald test needs coefficients and their covariance; this is a "
                        f"{type(model).__name__}")
    names = list(model.coef.index)
    if isinstance(L, pd.DataFrame):
        L = L.reindex(columns=names, fill_value=0.0)
    L = np.atleast_2d(np.asarray(L, dtype=float))
    if L.shape[1] != len(names):
        raise ValueError(f"L has {L.shape[1]} columns; the model has {len(names)} "
                         f"coefficients {names}")
    r = np.zeros(L.shape[0]) if rhs is None else np.atleast_1d(np.asarray(rhs, float))
    if r.shape != (L.shape[0],):
        raise ValueError(f"rhs has {r.size} values for {L.shape[0]} equations")
    V = _covariance(model, vcov, names)
    beta = model.coef.to_numpy(dtype=float)
    aliased = ~np.isfinite(beta)
    if (L[:, aliased] != 0).any():
        raise ValueError(f"the hypothesis involves aliased coefficients "
                         f"{[n for n, a in zip(names, aliased) if a]} (NA in m.coef)")
    Lk, d = L[:, ~aliased], L[:, ~aliased] @ beta[~aliased] - r
    middle = Lk @ V[np.ix_(~aliased, ~aliased)] @ Lk.T
    statistic = float(d @ np.linalg.solve(middle, d))
    q = L.shape[0]
    pvalue = float(stats.chi2.sf(statistic, q))
    table = pd.DataFrame({"Res.Df": [model.df_resid + q, model.df_resid], "Df": [np.nan, q],
                          "Chisq": [np.nan, statistic], "Pr(>Chisq)": [np.nan, pvalue]},
                         index=["1", "2"])
    labels = list(labels) if labels is not None else [_label(row, c, names)
                                                     for row, c in zip(L, r)]
    heading = ["Linear hypothesis test", "", "Hypothesis:", *labels, "",
               "Model 1: restricted model", f"Model 2: {model.formula}"]
    if vcov is not None and not isinstance(vcov, str):
        heading += ["", "Note: Coefficient covariance matrix supplied."]
    out = HypothesisTest(table, heading)
    out.statistic, out.df, out.pvalue, out.L, out.rhs = statistic, q, pvalue, L, r
    return out


def linear_hypothesis(model: Any, hypothesis: Any, rhs: Any = None,
                      vcov: Any = None) -> HypothesisTest:
    """The Wald test of linear equations on the coefficients, as car's ``linearHypothesis``.

    R's ``linearHypothesis(m, hypothesis, vcov. = V)``.  ``hypothesis``: equations over
    the coefficients (``"glucose = mass"``, ``["mass = 0", "age = 0"]``,
    ``"2*glucose + mass = 0.1"``; see the module notes), or a matrix L with ``rhs``, as
    :func:`wald_test`.
    """
    if isinstance(hypothesis, str) or (isinstance(hypothesis, Sequence)
                                       and all(isinstance(h, str) for h in hypothesis)):
        if rhs is not None:
            raise ValueError("rhs goes with a matrix L; write the constants in the equations")
        L, r, labels = parse_hypothesis(hypothesis, list(model.coef.index))
        return wald_test(model, L, r, vcov, labels)
    return wald_test(model, hypothesis, rhs, vcov)


def _covariance(model: Any, vcov: Any, names: list[str]) -> np.ndarray:
    if vcov is None or isinstance(vcov, str):
        return model.vcov(vcov).to_numpy(dtype=float)
    if isinstance(vcov, pd.DataFrame):
        vcov = vcov.loc[names, names]
    V = np.asarray(vcov, dtype=float)
    if V.shape != (len(names), len(names)):
        raise ValueError(f"vcov is {V.shape}; the model has {len(names)} coefficients")
    return V
