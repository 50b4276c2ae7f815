"""The report's data section: what was read, what was used and why, and each variable.

In the manner of gtsummary's ``tbl_summary``: one line per model variable (type,
missing values, mean and SD or the counts of each level), the response's balance,
and the rows dropped for missing values, per variable.  The summaries describe the
rows the comparison uses (complete in every variable of every model); the missing
counts are over the rows read.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..evaluate.cv import formula_variables_in
from ..results.base import BinaryResult, Result, capabilities_of
from .blocks import Row, Section, Table, fmt, fmt_count

__all__ = ["DataSummary", "data_summary", "data_section", "VARIABLE_LEVELS_SHOWN"]

#: levels of a factor listed by name (the rest are counted together)
VARIABLE_LEVELS_SHOWN = 6


@dataclass
class DataSummary:
    """The numbers of the data section (see :func:`data_summary`)."""

    rows_read: int
    rows_used: int
    response: str
    variables: list            # model variables, response first, in formula order
    missing: dict              # variable -> rows read with NA in it
    balance: list              # (level, count, share) over the rows used
    lines: list                # (variable, type, missing, summary) per variable
    model_rows: dict           # model name -> rows its fit used (BinaryResult: n_rows)


def _kind(col: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(col):
        return "logical"
    if pd.api.types.is_numeric_dtype(col):
        return "numeric"
    return "factor"


def _level_counts(col: pd.Series) -> str:
    counts = col.value_counts(sort=False).sort_index()
    total = counts.sum()
    shown = [f"{level}: {n} ({100 * n / total:.1f}%)"
             for level, n in counts.iloc[:VARIABLE_LEVELS_SHOWN].items()]
    rest = counts.iloc[VARIABLE_LEVELS_SHOWN:]
    if len(rest):
        shown.append(f"{len(rest)} more levels: {rest.sum()} ({100 * rest.sum() / total:.1f}%)")
    return "; ".join(shown)


def _variable_line(name: str, read: pd.Series, used: pd.Series) -> tuple:
    kind = _kind(read)
    missing = int(read.isna().sum())
    if kind == "numeric":
        values = used.to_numpy(dtype=float)
        summary = f"{fmt(values.mean(), 4)} ({fmt(values.std(ddof=1), 3)})"
    else:
        summary = _level_counts(used.astype(str) if kind == "factor" else used)
        kind = f"factor, {used.nunique()} levels" if kind == "factor" else kind
    return name, kind, missing, summary


def _models_of(named: dict) -> dict:
    return {name: m for name, m in named.items() if isinstance(m, Result)}


def data_summary(data: pd.DataFrame, models: dict) -> DataSummary:
    """The data section's numbers for ``data`` (the rows the models were fitted to).

    Parameters
    ----------
    data : DataFrame
        The data as read, before any row was dropped.
    models : dict
        ``{name: result}``; their formulas give the model variables.

    Returns
    -------
    DataSummary
        Rows read, rows complete in every model variable ("used"), the response
        and its balance over the rows used, per variable its type, the rows read
        missing it and its mean (SD) or level counts over the rows used, and the
        rows each model's fit used.
    """
    results = _models_of(models)
    variables: dict[str, None] = {}
    for m in results.values():
        variables.update(dict.fromkeys(formula_variables_in(m.formula, data)))
    names = list(variables)
    response = next(iter(results.values())).response.name if results else names[0]
    names = [response] + [n for n in names if n != response]
    complete = data[names].notna().all(axis=1).to_numpy()
    used = data.loc[complete, names]
    counts = used[response].astype(str).value_counts(sort=False).sort_index()
    balance = [(level, int(n), n / counts.sum()) for level, n in counts.items()]
    return DataSummary(
        rows_read=len(data), rows_used=int(complete.sum()), response=response, variables=names,
        missing={v: int(data[v].isna().sum()) for v in names}, balance=balance,
        lines=[_variable_line(v, data[v], used[v]) for v in names],
        model_rows={name: (m.n_rows if isinstance(m, BinaryResult) else int(m.nobs))
                    for name, m in results.items()})


def _dropped_text(s: DataSummary) -> str:
    dropped = s.rows_read - s.rows_used
    if not dropped:
        return f"All {s.rows_read} rows read are complete in the model variables and are used."
    why = ", ".join(f"{v} {n}" for v, n in sorted(s.missing.items(), key=lambda kv: -kv[1])
                    if n)
    return (f"{s.rows_read} rows were read; {s.rows_used} are complete in every model variable "
            f"and are used; {dropped} were dropped for missing values. Rows missing each "
            f"variable: {why} (a row may miss several).")


def data_section(data, models: dict) -> Section:
    """The ``data`` section: from the data when given, else from what the fits hold."""
    section = Section("data", "Data")
    if data is None:
        return _section_from_fits(section, models)
    s = data_summary(data, models)
    section.text(_dropped_text(s))
    section.text(f"Response {s.response}: " + ", ".join(
        f"{level} {n} ({100 * share:.1f}%)" for level, n, share in s.balance)
        + f" of the {s.rows_used} rows used.")
    other = {name: n for name, n in s.model_rows.items() if n != s.rows_used}
    if other:
        section.text("Fits to other rows: " + "; ".join(f"{name} used {n}"
                                                        for name, n in other.items())
                     + " (a tree keeps rows with missing predictors; deviances and AICs of "
                       "fits to different rows are not compared).", "note")
    rows = [Row([name, kind, str(missing), summary])
            for name, kind, missing, summary in s.lines]
    section.add(Table("data-variables", "The model variables: type, missing values among the "
                      f"{s.rows_read} rows read, and mean (SD) or level counts over the "
                      f"{s.rows_used} rows used (standard deviations with divisor n − 1 throughout "
                      "the report).", ["Variable", "Type", "Missing", "Summary"],
                      rows, align="llrl"))
    return section


def _section_from_fits(section: Section, models: dict) -> Section:
    rows = []
    for name, m in models.items():
        if not isinstance(m, Result):
            continue
        balance = ""
        if capabilities_of(m).has_training_rows and isinstance(m, BinaryResult):
            y = np.asarray(m.y, dtype=float)
            balance = (f"{m.response.positive}: {int((y == 1).sum())} "
                       f"({100 * float((y == 1).mean()):.1f}%)")
        rows.append(Row([name, fmt_count(m.nobs), str(m.n_dropped), balance]))
    section.text("The data the models were fitted to were not given to the report (pass "
                 "training_data= to ubreg.report for a description of every variable); "
                 "what each fit records:", "note")
    if rows:
        section.add(Table("data-fits", "Rows used and dropped for missing values by each fit, "
                          "and the share of the positive class.",
                          ["Model", "n", "Dropped (NA)", "Positive class"], rows))
    return section
