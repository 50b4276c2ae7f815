"""``ubreg.step``: stepwise selection of terms, as R's ``step``.

Each step scores the model less each droppable term (R's ``drop.scope``) and
plus each addable one (``add.scope`` of the upper scope) with the tables of
:mod:`ubreg.evaluate.single_terms`, takes the best change, refits the model
through its call (R's ``update(fit, ~ . - term)``) and stops when no change
improves the criterion, or when the refit's rows differ from the start's (R:
"number of rows in use has changed").  A term with zero degrees of freedom is
dropped first, one at a time, as R does.  The chosen model is returned with
its path as R's ``$anova`` (``Step``, ``Df``, ``Deviance``, ``Resid. Df``,
``Resid. Dev`` and the criterion).

The criterion is R's ``extractAIC(fit, k = k)`` (``k = 2``: AIC; ``k =
log(n)``: BIC) for a likelihood fit (``entropy``).  The AIC of any other
family is not a likelihood AIC (its deviance is a surrogate risk, docs/math.md
§3), so ``step`` selects those by cross-validated deviance instead: the
out-of-fold 2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) of K-fold fits, the same stratified folds for
every candidate, and says so; ``criterion="aic"`` refuses them.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from ..design.update import ModelTerms, add_scope, drop_scope, model_terms, update_formula
from ..numerics.folds import stratified_folds
from .deviance_table import DevianceTable, deviance_of, extract_aic, is_likelihood, r_edf
from .single_terms import single_term_fits, single_term_table
from .update import check_refittable, data_of, refit_on_rows, terms_of

if TYPE_CHECKING:
    from ..results.base import BinaryResult
    from ..results.linear import LinearResult

__all__ = ["step", "step_folds"]

_CV = "CV deviance"


def step_folds(model: BinaryResult, folds: int = 10, seed: int | None = 1) -> np.ndarray:
    """The fold (0..folds−1) of each row the model used, stratified by class
    (:func:`~ubreg.numerics.folds.stratified_folds`): ``step``'s folds."""
    return stratified_folds(model.y, folds, seed)


class _Criterion:
    """What ``step`` minimises: R's AIC with penalty ``k``, or the K-fold
    cross-validated deviance of the folds ``fold`` (a Series over the start's rows)."""

    def __init__(self, model: LinearResult, criterion: str, k: float, folds: int,
                 seed: int | None) -> None:
        likelihood = is_likelihood(model)
        if criterion == "auto":
            criterion = "aic" if likelihood else "cv"
        if criterion not in ("aic", "cv"):
            raise ValueError(f"criterion must be 'auto', 'aic' or 'cv', got {criterion!r}")
        family = model.family.describe()
        if criterion == "aic" and not likelihood:
            raise ValueError(f"step: the {family} family's deviance is not a likelihood, so "
                             "its AIC is not a likelihood AIC; select by cross-validated "
                             "deviance instead: step(m, criterion='cv')")
        if criterion == "cv" and k != 2:
            raise ValueError("step: k is the AIC's penalty; it does not apply to "
                             "criterion='cv'")
        self.k, self.cv = float(k), criterion == "cv"
        self.column = _CV if self.cv else "AIC"
        self.folds = int(folds)
        self.fold = (pd.Series(step_folds(model, folds, seed), index=model.index)
                     if self.cv else None)
        self._cache: dict = {}
        self.note = (f"Selected by {folds}-fold cross-validated deviance (stratified folds, "
                     f"seed {seed}): the {family} family's deviance is not a likelihood, so "
                     "AIC does not apply (docs/math.md §3)." if self.cv and not likelihood
                     else f"Selected by {folds}-fold cross-validated deviance (stratified "
                     f"folds, seed {seed})." if self.cv else "")

    def of(self, fit: LinearResult) -> float:
        """The criterion of ``fit`` (a model on the start's rows)."""
        if not self.cv:
            return extract_aic(fit, self.k)
        key = (fit.formula, tuple(fit.index))
        if key not in self._cache:
            self._cache[key] = self._cv_deviance(fit)
        return self._cache[key]

    def _cv_deviance(self, fit: LinearResult) -> float:
        """Σ over the folds of 2 Σ wᵢ D_φ(yᵢ‖p̂ᵢ) on the held-out rows, each fold's
        model refitted on the other rows ``fit`` used."""
        assert self.fold is not None            # set for criterion="cv"
        fold = self.fold.loc[fit.index].to_numpy()
        data = data_of(fit)
        total = 0.0
        for k in range(self.folds):
            held = fold == k
            train = data.index.isin(fit.index[~held])
            part = refit_on_rows(fit, fit.formula, train, f"step, fold {k + 1}")
            eta = part.predict(data.loc[fit.index[held]], type="link").to_numpy()
            total += 2.0 * float(np.sum(fit.weights[held]
                                        * fit.family.divergence(fit.y[held], eta)))
        return total


def _scored(fit: LinearResult, direction: str, labels: Sequence[str],
            crit: _Criterion) -> pd.DataFrame:
    """The drop1 (add1) table of ``labels`` with the criterion as a column, rows
    named as R's step names them (``<none>``, ``- term``, ``+ term``)."""
    base, labs, fits = single_term_fits(fit, direction, labels)
    table = single_term_table(fit, base, labs, fits, direction, None, crit.k).table
    table = table[["Df", "Deviance"] + (["AIC"] if not crit.cv else [])]
    if crit.cv:
        table[_CV] = [crit.of(f) for f in [base, *fits]]
    sign = "-" if direction == "drop" else "+"
    table.index = ["<none>", *(f"{sign} {lab}" for lab in labs)]
    return table


def _choose(fit: LinearResult, terms: ModelTerms, lower: ModelTerms | None,
            upper: ModelTerms | None, backward: bool, forward: bool, crit: _Criterion,
            trace: int) -> str | None:
    """R's choice of one step: the change (``"- term"``, ``"+ term"``) or None."""
    drops = drop_scope(terms, lower) if backward else []
    adds = add_scope(terms, upper) if forward and upper is not None else []
    table = _scored(fit, "drop", drops, crit) if drops else None
    if table is not None:
        zero = table.index[1:][table["Df"].iloc[1:].to_numpy() == 0]
        if len(zero):                       # zero-df terms first, one at a time
            return zero[-1]
    if adds:
        added = _scored(fit, "add", adds, crit)
        table = added if table is None else pd.concat([table, added.iloc[1:]])
    if table is None:
        return None
    table = table[~(table["Df"] == 0)]
    order = np.argsort(table[crit.column].to_numpy(), kind="stable")
    if trace:
        print(DevianceTable(table.iloc[order], []).__str__().lstrip("\n"))
    return None if order[0] == 0 else table.index[order[0]]


def _changed(terms: ModelTerms, change: str) -> str:
    label = change[2:]
    if change.startswith("-"):
        return terms.formula([t for t in terms.labels if t != label])
    key = model_terms(f"~ {label}").variables[0]
    return terms.with_labels([*terms.labels, label], [*terms.variables, key]).formula()


def _path_row(fit: LinearResult, change: str, value: float) -> dict:
    return {"Step": change, "deviance": deviance_of(fit), "df": fit.nobs - r_edf(fit),
            "value": value}


def _path(rows: list[dict], crit: _Criterion, start: str, final: str) -> pd.DataFrame:
    dev = np.array([r["deviance"] for r in rows], float)
    rdf = np.array([r["df"] for r in rows], float)
    out = pd.DataFrame({"Step": [r["Step"] for r in rows],
                        "Df": np.r_[np.nan, np.diff(rdf)],
                        "Deviance": np.r_[np.nan, np.abs(np.diff(dev))],
                        "Resid. Df": rdf, "Resid. Dev": dev,
                        crit.column: [r["value"] for r in rows]})
    heading = ["Stepwise Model Path", "Analysis of Deviance Table", "", "Initial Model:",
               start, "", "Final Model:", final]
    out.attrs["heading"] = "\n".join(heading + ([crit.note] if crit.note else []))
    return out


def _scopes(model: LinearResult, scope: str | dict[str, str] | None,
            columns: Iterable[str]) -> tuple[ModelTerms | None, ModelTerms | None]:
    """(lower, upper) terms of R's ``scope``: None, an upper formula, or a dict with
    ``lower`` and ``upper``."""
    formula = terms_of(model).formula()
    if scope is None:
        return None, None
    if isinstance(scope, dict):
        unknown = set(scope) - {"lower", "upper"}
        if unknown:
            raise ValueError(f"scope takes the keys 'lower' and 'upper', got {sorted(unknown)}")
        read = {key: model_terms(update_formula(formula, scope[key], columns))
                for key in ("lower", "upper") if scope.get(key) is not None}
        return read.get("lower"), read.get("upper")
    return None, model_terms(update_formula(formula, scope, columns))


def _shallow_copy(model: LinearResult) -> LinearResult:
    """A copy of the result sharing its arrays (and its data), to carry ``anova``."""
    copy = object.__new__(type(model))
    copy.__dict__.update(model.__dict__)
    return copy


def step(model: LinearResult, scope: str | dict[str, str] | None = None,
         direction: str | None = None, k: float = 2.0, criterion: str = "auto", folds: int = 10,
         seed: int | None = 1, trace: int = 1, steps: int = 1000) -> LinearResult:
    """Choose a model's terms by AIC, stepwise, as R's ``step``.

    Parameters
    ----------
    model : LinearResult
        The start, a linear fit made by :func:`ubreg.fit` (its data at hand).
    scope : str or dict, optional
        The upper model as a formula read against the model's (``"~ . + z"``,
        ``"~ a + b + c"``), or ``{"lower": ..., "upper": ...}``; by default
        only terms of the model are dropped.
    direction : {"both", "backward", "forward"}, optional
        By default ``"both"``, but without a ``scope`` only backward, as R's
        ``step`` with ``direction`` missing; ``"both"`` given without a scope
        may add back the start's terms (R's upper scope is then the start).
    k : float
        The penalty per parameter: 2 for AIC, ``log(n)`` for BIC.
    criterion : {"auto", "aic", "cv"}
        ``"auto"``: AIC for a likelihood fit (``entropy``), the cross-validated
        deviance for every other family, whose AIC is not a likelihood AIC.
    folds, seed : int
        The stratified folds of the cross-validated deviance.
    trace : int
        R's ``trace``: 1 (R's default) prints the start, each step's table of
        candidate changes and each step taken, as R's ``step`` prints them; 0
        prints nothing.
    steps : int
        The most steps to take.

    Returns
    -------
    Result
        The chosen model, refitted through its call; ``anova`` is its path
        (a DataFrame as R's ``$anova``: ``Step``, ``Df``, ``Deviance``,
        ``Resid. Df``, ``Resid. Dev``, ``AIC`` or ``CV deviance``; its
        ``attrs["heading"]`` names the start, the end and the criterion).
    """
    if direction not in (None, "both", "backward", "forward"):
        raise ValueError(f"direction must be 'both', 'backward' or 'forward', got {direction!r}")
    check_refittable(model, "step")
    crit = _Criterion(model, criterion, k, folds, seed)
    lower, upper = _scopes(model, scope, data_of(model).columns)
    backward, forward = direction != "forward", direction not in ("backward", None)
    if scope is None:
        upper = terms_of(model)            # R: fadd is the start's terms
    elif direction is None:
        forward = True
    fit, terms = model, terms_of(model)
    best = crit.of(fit)
    rows = [_path_row(fit, "", best)]
    _say(trace, f"Start:  {crit.column}={_r_round2(best)}\n{terms.formula()}\n")
    for _ in range(steps):
        change = _choose(fit, terms, lower, upper, backward, forward, crit, trace)
        if change is None:
            break
        new = cast("LinearResult", fit.update(_changed(terms, change)))   # the same method
        if new.n_rows != model.n_rows:
            raise ValueError(f"step: number of rows in use has changed ({model.n_rows} → "
                             f"{new.n_rows} after '{change}'): remove missing values, fitting "
                             "on the rows complete in every variable of the scope")
        value = crit.of(new)
        if value >= best + 1e-7:
            break
        fit, terms, best = new, terms_of(new), value
        rows.append(_path_row(fit, change, value))
        _say(trace, f"\nStep:  {crit.column}={_r_round2(best)}\n{terms.formula()}\n")
    chosen = _shallow_copy(fit) if fit is model else fit
    chosen.anova = _path(rows, crit, terms_of(model).formula(), terms.formula())
    return chosen


def _say(trace: int, text: str) -> None:
    if trace:
        print(text)


def _r_round2(x: float) -> str:
    """R's ``format(round(x, 2))``: two decimals at most, trailing zeros dropped."""
    return f"{round(x, 2):.15g}"
