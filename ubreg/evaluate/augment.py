"""``augment``: the model's rows with their fitted values and diagnostics, as broom's.

R's ``broom::augment(fit, data, newdata, type.predict, type.residuals, se_fit)`` of a
glm: without ``newdata``, the model frame (or ``data``) with ``.fitted``, ``.se.fit``
(with ``se_fit``), ``.resid``, ``.std.resid``, ``.hat``, ``.sigma`` and ``.cooksd``;
with ``newdata``, its rows with ``.fitted`` and ``.se.fit``.
"""
from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ..design.checks import as_frame
from ..results.linear import LinearResult
from .update import data_of

__all__ = ["augment"]

_IDENTIFIER = re.compile(r"[A-Za-z_.][A-Za-z0-9_.]*")


def augment(model: Any, data: pd.DataFrame | None = None,
            newdata: pd.DataFrame | None = None, type_predict: str = "link",
            type_residuals: str = "deviance", se_fit: bool = False) -> pd.DataFrame:
    """A row per observation with its fitted value and diagnostics, as R's
    ``broom::augment`` of a glm.

    Parameters
    ----------
    model : LinearResult
        A binary linear fit (method ``uls``, ``learner="linear"``), any family.
    data : DataFrame, optional
        The rows to augment, by default the model frame: the training rows the fit used
        and the data's columns the formula reads (R's model frame holds evaluated terms,
        such as ``log(x)``, where this holds the columns they read).  Given, it must
        hold exactly the rows the fit used, or, under ``na_action="exclude"``, the rows
        it was given (those it dropped then get NaN, R's ``naresid``).
    newdata : DataFrame, optional
        New rows: only ``.fitted`` (and ``.se.fit``) are added, as broom does.
    type_predict : {"link", "response"}
        The scale of ``.fitted`` and ``.se.fit``.
    type_residuals : {"deviance", "pearson"}
        The residuals of ``.resid`` and ``.std.resid`` (R's ``rstandard`` type).
    se_fit : bool
        Add ``.se.fit``, the standard error of ``.fitted`` (``predict(se_fit=True)``).

    Returns
    -------
    DataFrame
        A copy of the rows (the index identifies them, where broom adds ``.rownames``)
        with broom's columns appended.
    """
    if not isinstance(model, LinearResult):
        raise TypeError("augment adds a linear fit's diagnostics (method 'uls' with "
                        f"learner='linear', two classes); got a {type(model).__name__}")
    if type_predict not in ("link", "response"):
        raise ValueError(f"type_predict must be 'link' or 'response', got {type_predict!r}")
    if type_residuals not in ("deviance", "pearson"):
        raise ValueError("type_residuals must be 'deviance' or 'pearson' (the types of R's "
                         f"rstandard), got {type_residuals!r}")
    if newdata is not None:
        if data is not None:
            raise ValueError("augment takes data (training rows) or newdata, not both")
        return _with_columns(as_frame(newdata, "newdata").copy(),
                             _fitted(model, newdata, type_predict, se_fit))
    rows = _model_frame(model) if data is None else _given_rows(model, data)
    columns = _fitted(model, None, type_predict, se_fit)
    infl = model.influence()
    columns.update({".resid": model.residuals(type_residuals),
                    ".std.resid": model.rstandard(type=type_residuals),
                    ".hat": infl["hat"], ".sigma": infl["sigma"],
                    ".cooksd": model.cooks_distance()})
    return _with_columns(rows, columns)


def _fitted(model, newdata, type_predict: str, se_fit: bool) -> dict:
    if not se_fit:
        return {".fitted": model.predict(newdata, type=type_predict)}
    pred = model.predict(newdata, type=type_predict, se_fit=True)
    return {".fitted": pred["fit"], ".se.fit": pred["se_fit"]}


def _with_columns(rows: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """``rows`` with each Series of ``columns`` matched to it by index label."""
    out = rows.copy()
    for name, values in columns.items():
        out[name] = pd.Series(values).reindex(rows.index).to_numpy(dtype=float)
    return out


def _model_frame(model) -> pd.DataFrame:
    """The rows the fit used, and the data's columns the formula reads: the response's
    first, then the right-hand side's, in the order the formula reads them."""
    data = data_of(model)
    lhs = model.formula.split("~", 1)[0]
    response = [c for c in dict.fromkeys(_IDENTIFIER.findall(lhs)) if c in data.columns]
    names = list(dict.fromkeys(response + [c for c in model.design.variables()
                                           if c in data.columns]))
    return data.loc[model.index, names].copy()


def _given_rows(model, data) -> pd.DataFrame:
    data = as_frame(data, "data")
    if data.index.equals(model.index):
        return data.copy()
    given = model.input_index
    if model.na_action == "exclude" and given is not None and data.index.equals(given):
        return data.copy()
    raise ValueError(f"data has {len(data)} rows and the fit used {len(model.index)}: pass "
                     "the rows the fit used (data.loc[m.index]), leave data out for the "
                     "model frame, or fit with na_action='exclude' to augment every row "
                     "given (those dropped get NaN)")
