"""Families: permissible functions φ and the losses they generate (docs/math.md §2).

``Permissible(name, **params)`` builds a registered family by name; the
registry is :data:`FAMILIES`.  ``Exponential()`` is AdaBoost's loss and
``CustomPermissible(phi, ...)`` builds a family from a user's φ.  ``binomial(link=...)``
is R's binomial likelihood with a link (:mod:`ubreg.families.links`).
"""
from __future__ import annotations

from typing import Any

from .base import Family, PermissibleFamily
from .closed import Entropy, Entropy2, Gini, Matsushita, Mu
from .custom import CustomPermissible
from .exponential import Exponential
from .links import LINKS, BinomialLink, binomial, family_from_call
from .logcosh import LogCosh
from .power import Power
from .tempered import Tempered

__all__ = [
    "Family", "PermissibleFamily", "Permissible", "Exponential", "CustomPermissible",
    "Gini", "Entropy", "Entropy2", "Matsushita", "Mu", "Power", "LogCosh",
    "BinomialLink", "binomial", "FAMILIES", "ALIASES", "resolve_family",
]

#: every permissible family by canonical name
FAMILIES: dict[str, type[PermissibleFamily]] = {
    "gini": Gini,
    "entropy": Entropy,
    "entropy2": Entropy2,
    "matsushita": Matsushita,
    "mu": Mu,
    "power": Power,
    "logcosh": LogCosh,
    "tempered": Tempered,
}

#: other names users know the same families by
ALIASES = {"logistic": "entropy", "binomial": "entropy", "brier": "gini", "squared": "gini"}


def Permissible(name: str, **params: Any) -> PermissibleFamily:
    """The permissible family called ``name``, with its parameters.

    Parameters
    ----------
    name : str
        One of ``gini``, ``entropy`` (natural log), ``entropy2`` (base 2),
        ``matsushita``, ``mu`` (parameter ``mu``), ``power`` (parameter ``v``),
        ``logcosh`` (parameter ``zeta`` < 0), ``tempered`` (parameter ``t`` < 2,
        the tempered loss of paper 004: its φ is 4 × gini's at t = 0 and
        2 × matsushita's at t = 1 (the same trees; a linear fit differs where
        gini's linear probability model leaves [0, 1]); without ``t`` the family
        takes t = 0.5, t-AdaBoost's default); aliases ``logistic`` and ``binomial`` (entropy: R's
        ``family = binomial``), ``brier`` and ``squared`` (gini).
    **params
        The family's parameters.

    Examples
    --------
    >>> Permissible("matsushita")
    Permissible("matsushita")
    >>> Permissible("mu", mu=0.3).b
    0.35
    """
    if not isinstance(name, str):
        raise TypeError(f"family name must be a string, got {type(name).__name__}")
    key = ALIASES.get(name.lower(), name.lower())
    if key not in FAMILIES:
        known = ", ".join(sorted([*FAMILIES, *ALIASES]))
        raise ValueError(f"unknown permissible family {name!r}; known families: {known}")
    try:
        return FAMILIES[key](**params)
    except TypeError as exc:
        raise TypeError(f"family {key!r}: {exc}") from None


def resolve_family(family: Family | str | None) -> Family:
    """Accept a Family instance, a family name or R's call ``binomial(link = "...")``
    (:func:`~ubreg.families.links.family_from_call`); return a Family.

    A link's name alone (``"probit"``) is refused: it names no family."""
    if family is None:
        return Entropy()
    if isinstance(family, Family):
        return family
    if isinstance(family, str):
        if family.lower() in ("exponential", "adaboost"):
            return Exponential()
        called = family_from_call(family)
        if called is not None:
            return called
        if family.strip().lower() in LINKS:
            link = family.strip().lower()
            raise ValueError(f"{family!r} is a link, not a family: write "
                             f"family='binomial(link = \"{link}\")' (R's spelling) or "
                             f"family=ubreg.binomial(link={link!r})")
        return Permissible(family)
    raise TypeError(f"family must be a ubreg family or a name, got {type(family).__name__}")
