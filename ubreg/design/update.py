"""R's formula algebra: ``update.formula``, a model's terms, ``drop.scope`` and ``add.scope``.

A formula is read into its terms as R's ``terms.formula(simplify = TRUE)`` reads
it: ``*``, ``/``, ``^``, ``:`` and ``-`` expanded (R's algorithm, :mod:`.rformula`),
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

from dataclasses import dataclass

from ..errors import FormulaError
from .deparse import deparse
from .parse import expand_dot, replace_dot
from .rformula import canonical, formula_terms, parse_cached
from .rsyntax import Arg, Binary, Call, Name, Paren, Unary

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


def _sides(formula: str, what: str):
    """(left, right) syntax trees of ``formula`` (left None when one-sided)."""
    if not isinstance(formula, str):
        raise FormulaError(f"{what} must be a formula string like 'y ~ x', got "
                           f"{type(formula).__name__}")
    tree = canonical(parse_cached(formula))
    if isinstance(tree, Unary):
        return None, tree.operand
    return tree.left, tree.right


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
    parsed = formula_terms(formula)
    lhs = parsed.response.label if parsed.response is not None else ""
    labels = parsed.term_labels
    variables = [frozenset(v.label for v in parsed.term_variables(t)) for t in parsed.terms]
    return ModelTerms(lhs, tuple(labels), tuple(variables), parsed.intercept,
                      tuple(v.label for v in parsed.offsets))


def _into_calls(node, value):
    """``node`` with every ``.`` replaced by ``value``, inside calls too (R's
    ``ExpandDots`` of ``update``: ``log(.) ~ .``)."""
    if isinstance(node, Call):
        return Call(node.fn, tuple(Arg(a.name, _into_calls(a.value, value))
                                   for a in node.args))
    if isinstance(node, Name) and node.is_dot:
        return value
    if isinstance(node, Paren):
        return Paren(_into_calls(node.inner, value))
    if isinstance(node, Unary):
        return Unary(node.op, _into_calls(node.operand, value))
    if isinstance(node, Binary):
        return Binary(node.op, _into_calls(node.left, value), _into_calls(node.right, value))
    return replace_dot(node, value)


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
    if new_lhs is None:
        lhs = old_lhs
    else:
        marker = Name("\0")
        if _into_calls(new_lhs, marker) != new_lhs and old_lhs is None:
            raise FormulaError(f"'.' on the left of the new formula stands for the old "
                               f"response, but {old!r} has none")
        atom = old_lhs if isinstance(old_lhs, (Name, Call)) else Paren(old_lhs)
        lhs = _into_calls(new_lhs, atom) if old_lhs is not None else new_lhs
    rhs = replace_dot(new_rhs, Paren(old_rhs))
    text = deparse(Binary("~", lhs, rhs) if lhs is not None else Unary("~", rhs))
    return model_terms(text).formula()


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
