"""R's formula algebra: ``update.formula``, a model's terms, ``drop.scope`` and ``add.scope``.

A formula is read into its terms as R's ``terms.formula(simplify = TRUE)`` reads
it: ``*``, ``/``, ``^``, ``:`` and ``-`` expanded (by patsy, whose algebra is R's),
the intercept as a flag, ``offset()`` terms apart, and the terms ordered by
degree (main effects first, then two-way interactions, ...), keeping their order
of appearance within a degree.  A term is identified by the set of its
variables, so ``a:b`` and ``b:a`` are one term (R's ``factor.scope`` compares
sorted variable names).

``update_formula(old, new)`` is R's ``update.formula``: a ``.`` on the left of
``new`` stands for the left of ``old`` (``log(.) ~ .``), a ``.`` on the right for
the right of ``old`` in parentheses (``. ~ . - age``); a ``new`` without a left
side keeps the old response.  The result is written back as R deparses it:
``y ~ a + b + a:b + offset(o)``, ``- 1`` when the intercept is removed,
``y ~ 1 - 1`` when nothing is left.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from patsy import ModelDesc, PatsyError

from ..errors import FormulaError
from .offset import split_offsets
from .parse import _formula_carets, _split_tilde, _sub_dot, expand_dot
from .terms import _display, bang_as_not

__all__ = ["ModelTerms", "model_terms", "update_formula", "drop_scope", "add_scope"]



@dataclass(frozen=True)
class ModelTerms:
    """A formula as R's ``terms`` object sees it.

    Attributes
    ----------
    lhs : str
        The response as written ("" for a one-sided formula).
    labels : tuple of str
        R's ``term.labels``: every term (a factor as one term, ``a:b`` an
        interaction), ordered by degree.
    variables : tuple of frozenset
        The variables of each term (its factors' code), which identify it.
    intercept : bool
        Whether the model has an intercept.
    offsets : tuple of str
        The ``offset(...)`` terms, as written.
    """

    lhs: str
    labels: tuple
    variables: tuple
    intercept: bool
    offsets: tuple = ()

    def key(self, label: str) -> frozenset:
        """The variables of the term ``label``."""
        return self.variables[self.labels.index(label)]

    def formula(self, labels=None) -> str:
        """The formula of these terms (or of ``labels``, a selection of them),
        written as R deparses it."""
        labels = self.labels if labels is None else labels
        parts = [*labels, *self.offsets] or ["1"]
        rhs = " + ".join(parts) + ("" if self.intercept else " - 1")
        return f"{self.lhs} ~ {rhs}" if self.lhs else f"~ {rhs}"

    def with_labels(self, labels, variables) -> ModelTerms:
        """These terms with ``labels`` (and their ``variables``) instead, kept in R's
        order (by degree, stable)."""
        order = sorted(range(len(labels)), key=lambda i: len(variables[i]))
        return ModelTerms(self.lhs, tuple(labels[i] for i in order),
                          tuple(variables[i] for i in order), self.intercept, self.offsets)


def _sides(formula: str, what: str) -> tuple[str, str]:
    if not isinstance(formula, str):
        raise FormulaError(f"{what} must be a formula string like 'y ~ x', got "
                           f"{type(formula).__name__}")
    sides = _split_tilde(formula)
    if sides is None:
        raise FormulaError(f"{what} {formula!r} has no '~'")
    return sides[0].strip(), sides[1].strip()


def model_terms(formula: str) -> ModelTerms:
    """The terms of ``formula`` as R's ``terms.formula(simplify = TRUE)`` gives them.

    Parameters
    ----------
    formula : str
        A formula (``"y ~ a*b + offset(o)"``) or a one-sided one (``"~ a + b"``);
        it may not contain a ``.`` (expand it first, :func:`~ubreg.design.expand_dot`).

    Returns
    -------
    ModelTerms
    """
    lhs, rhs = _sides(formula, "formula")
    if _sub_dot(rhs, "")[1]:
        raise FormulaError(f"formula {formula!r}: '.' stands for the data's columns; expand it "
                           "before reading the terms")
    try:
        desc = ModelDesc.from_formula("~ " + _formula_carets(bang_as_not(rhs or "1")))
    except PatsyError as exc:
        raise FormulaError(f"cannot parse formula {formula!r}: "
                           f"{str(exc).splitlines()[0]}") from None
    desc, offset_codes = split_offsets(desc)
    intercept = any(not t.factors for t in desc.rhs_termlist)
    terms = [t for t in desc.rhs_termlist if t.factors]
    # a term's variables in the order they first appear in the formula, as R lists them
    names = [[_display(f.code) for f in t.factors] for t in terms]
    order: dict[str, int] = {}
    for t, term in zip(terms, names):
        for f, v in zip(t.factors, term):
            at = f.origin.start if f.origin is not None else len(rhs)
            order[v] = min(order.get(v, at), at)
    labels = [":".join(sorted(term, key=order.__getitem__)) for term in names]
    variables = [frozenset(term) for term in names]
    out = ModelTerms(lhs, (), (), intercept, tuple(f"offset({c})" for c in offset_codes))
    return out.with_labels(labels, variables)


def _is_atom(code: str) -> bool:
    try:
        node = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Constant))


def _in_place_of_dot(new_lhs: str, old_lhs: str, old: str) -> str:
    if not _sub_dot(new_lhs, "")[1]:
        return new_lhs
    if not old_lhs:
        raise FormulaError(f"'.' on the left of the new formula stands for the old response, "
                           f"but {old!r} has none")
    if new_lhs == ".":
        return old_lhs
    # R substitutes the expression: parenthesise all but a name or a call
    value = old_lhs if _is_atom(old_lhs) else f"({old_lhs})"
    return _sub_dot(new_lhs, value)[0]


def update_formula(old: str, new: str, columns=None) -> str:
    """R's ``update.formula(old, new)``: ``new`` with its ``.`` read as ``old``.

    Parameters
    ----------
    old : str
        The formula to update (a fitted model's).  A ``.`` on its right stands
        for ``columns`` (R's ``formula(fit)`` is expanded).
    new : str
        ``". ~ . - age"``, ``"log(.) ~ ."``, ``"~ . + x2"`` (one-sided: the old
        response), or a formula without ``.`` that replaces the old one.
    columns : sequence of str, optional
        The data's columns, to expand a ``.`` of ``old``.

    Returns
    -------
    str
        The simplified formula, as R's ``update.formula`` deparses it
        (``terms.formula(simplify = TRUE)``: terms by degree, ``- 1`` for no
        intercept, offsets last).
    """
    if columns is not None:
        old = expand_dot(old, columns)
    old_lhs, old_rhs = _sides(old, "formula")
    new_lhs, new_rhs = _sides(new, "new formula")
    lhs = old_lhs if not new_lhs else _in_place_of_dot(new_lhs, old_lhs, old)
    rhs = _sub_dot(new_rhs, f"({old_rhs or '1'})")[0]
    return model_terms(f"{lhs} ~ {rhs}").formula()


def drop_scope(terms: ModelTerms, lower: ModelTerms | None = None) -> list[str]:
    """The terms that may be dropped, as R's ``drop.scope`` (``factor.scope``).

    The terms of ``terms`` not in ``lower``, less any whose variables all
    belong to another of them (a main effect inside an interaction stays).
    """
    keys = list(terms.variables)
    kept = set(lower.variables) if lower is not None else set()
    missing = kept - set(keys)
    if missing:
        raise FormulaError(f"the lower scope has terms the model lacks: "
                           f"{sorted(':'.join(sorted(v)) for v in missing)}")
    candidates = [i for i, k in enumerate(keys) if k not in kept]
    if len(candidates) <= 1:
        return [terms.labels[i] for i in candidates]
    return [terms.labels[i] for i in candidates
            if not any(j != i and keys[i] <= keys[j] for j in candidates)]


def add_scope(terms: ModelTerms, upper: ModelTerms) -> list[str]:
    """The terms that may be added, as R's ``add.scope`` (``factor.scope``).

    The terms of ``upper`` not in the model, less any that contains another
    candidate's variables (an interaction waits for its main effects).
    """
    keys = set(terms.variables)
    missing = keys - set(upper.variables)
    if missing:
        raise FormulaError(f"the upper scope does not include the model's term(s) "
                           f"{sorted(':'.join(sorted(v)) for v in missing)}")
    candidates = [i for i, k in enumerate(upper.variables) if k not in keys]
    var = upper.variables
    return [upper.labels[j] for j in candidates
            if not any(i != j and var[i] <= var[j] for i in candidates)]
