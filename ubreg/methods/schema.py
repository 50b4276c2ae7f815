"""A method's options, declared once.

Each method declares one :class:`Schema`: for every option its name, kind, default,
range and help.  Everything else is read from it: :func:`ubreg.fit`'s checks (an
unknown option, or a value out of range, is refused naming the option before any work
starts), the Dask backend's (its restrictions and defaults are part of the declaration,
:class:`OnDask`), the command line's ``-o key=value`` (:meth:`Option.parse`), the
scikit-learn estimators (:mod:`ubreg.sklearn` generates their parameters) and the
option tables of the documentation (:meth:`Schema.markdown`).  ``tests/test_schema.py``
checks that they agree.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import OptionError
from ..numerics import options as opt

__all__ = ["Option", "OnDask", "Schema", "KINDS"]

#: what an option's value is: a whole number, a real number, one of named choices, a
#: yes/no flag, a seed, or a value its own ``check`` reads (a loss, a graph)
KINDS = ("whole", "real", "choice", "flag", "seed", "value")

_TYPE_TEXT = {"whole": "int", "real": "float", "choice": "str", "flag": "bool",
              "seed": "int or None", "value": "object"}
_INT = re.compile(r"[+-]?\d+")
_BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


@dataclass(frozen=True)
class OnDask:
    """How an option differs on a Dask frame: the values accepted there (``allowed``,
    empty: all), the default there when it differs, and why."""

    allowed: tuple = ()
    default: Any = None
    has_default: bool = False
    why: str = ""


@dataclass(frozen=True)
class Option:
    """One option of a method.

    Parameters
    ----------
    name : str
        The keyword of :func:`ubreg.fit`.
    kind : str
        One of :data:`KINDS`.
    default
        The value when the option is not given.
    help : str
        One or two sentences for the documentation and the command line.
    low, high, open_low, open_high
        The range of a ``"whole"`` or ``"real"`` option.
    choices : tuple
        The values of a ``"choice"`` option.
    none : bool
        Whether None is a value (its meaning is in ``help``).
    check : callable, optional
        ``value -> value`` of a ``"value"`` option, raising a ``ValueError``
        naming the option.
    where : {"both", "memory", "dask"}
        Data the option applies to: every frame, in-memory frames, Dask frames.
    dask : OnDask, optional
        Restrictions on a Dask frame.
    public : bool
        False for an option that :func:`ubreg.cv` passes to its fits (not shown
        to users: no command line, no estimator parameter, no table row).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float = -math.inf
    high: float = math.inf
    open_low: bool = False
    open_high: bool = False
    choices: tuple = ()
    none: bool = False
    check: Callable | None = None
    where: str = "both"
    dask: OnDask | None = None
    public: bool = True

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name!r}: kind must be one of {KINDS}")
        if self.kind == "value" and self.check is None:
            raise ValueError(f"option {self.name!r}: a 'value' option needs check=")
        if self.kind != "value":       # the default is a value of the option, as written
            checked = self.validate(self.default)
            if checked != self.default or type(checked) is not type(self.default):
                raise ValueError(f"option {self.name!r}: default {self.default!r} is not "
                                 f"a {self.kind} value as written ({checked!r})")

    # -- reading a value ------------------------------------------------------------------
    def validate(self, value: Any) -> Any:
        """``value`` checked and normalised, or an :class:`OptionError` naming the option."""
        if value is None and (self.none or self.kind == "seed"):
            return None
        if self.kind in ("whole", "real"):
            try:
                return self._number(value)
            except OptionError as exc:
                if not self.none:
                    raise
                raise OptionError(str(exc).replace(f"{self.name} must be",
                                                   f"{self.name} must be None or", 1)) from None
        name = self.name
        if self.kind == "flag":
            return opt.flag(value, name)
        if self.kind == "seed":
            return opt.seed(value, name)
        if self.kind == "choice":
            return self._choice(value)
        assert self.check is not None
        return self.check(value)

    def _number(self, value):
        if self.kind == "whole":
            return opt.whole(value, self.name, int(self.low), int(self.high))
        return opt.real(value, self.name, self.low, self.high, open_low=self.open_low,
                        open_high=self.open_high)

    def _choice(self, value):
        for c in self.choices:
            if type(value) is type(c) and value == c:
                return c
        shown = [*map(repr, self.choices), *(["None"] if self.none else [])]
        raise OptionError(f"{self.name} must be one of {', '.join(shown)}, got {value!r}")

    def parse(self, text: str) -> Any:
        """The value of ``-o name=text`` on the command line, read by the option's kind
        (nothing is evaluated); an :class:`OptionError` naming the option otherwise."""
        word = text.strip()
        if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
            return self.validate(word[1:-1])
        low = word.lower()
        if low in ("none", "null") and (self.none or self.kind == "seed"):
            return None
        try:
            if self.kind in ("whole", "seed"):
                value: Any = int(word) if _INT.fullmatch(word) else float(word)
            elif self.kind == "real":
                value = float(word)
            elif self.kind == "flag":
                value = _BOOLEANS[low]
            elif self.kind == "choice":
                value = _choice_word(word, self.choices)
            else:
                value = word
        except (KeyError, ValueError):
            raise OptionError(f"{self.name}={text}: {self.describe_type()} expected") from None
        return self.validate(value)

    # -- describing it ----------------------------------------------------------------------
    def describe_type(self) -> str:
        """``int from 1 to 12``, ``float in (0, 1]``, ``'l1' or 'l2'``."""
        if self.kind == "whole":
            text = f"a whole number from {int(self.low)} to {int(self.high)}"
        elif self.kind == "real":
            lo, hi = "(" if self.open_low else "[", ")" if self.open_high else "]"
            text = f"a number in {lo}{_g(self.low)}, {_g(self.high)}{hi}"
        elif self.kind == "flag":
            text = "true/false/yes/no/1/0"
        elif self.kind == "seed":
            text = "a seed (a whole number ≥ 0, or none)"
        elif self.kind == "choice":
            text = " or ".join(map(repr, self.choices))
        else:
            text = "a value"
        return text + (" or none" if self.none and self.kind != "seed" else "")

    def type_text(self) -> str:
        """The type as numpydoc writes it."""
        base = _TYPE_TEXT[self.kind]
        if self.kind == "choice":
            base = "{" + ", ".join(map(repr, self.choices)) + "}"
        return base + (" or None" if self.none and self.kind != "seed" else "")

    def default_on(self, on_dask: bool) -> Any:
        if on_dask and self.dask is not None and self.dask.has_default:
            return self.dask.default
        return self.default


def _g(x) -> str:
    return "∞" if x == math.inf else "−∞" if x == -math.inf else f"{x:g}"


def _choice_word(word: str, choices: tuple):
    """The choice spelled ``word``: a name, a yes/no word for a bool choice, or a number."""
    if word in choices:
        return word
    low = word.lower()
    if low in _BOOLEANS and any(isinstance(c, bool) for c in choices):
        return _BOOLEANS[low]
    if any(isinstance(c, (int, float)) and not isinstance(c, bool) for c in choices):
        return int(word) if _INT.fullmatch(word) else float(word)
    return word


@dataclass(frozen=True)
class Schema:
    """The options of a method (or of one variant of it, such as ``uls``'s learners)."""

    options: tuple[Option, ...]
    label: str = ""
    by_name: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"schema {self.label!r} declares an option twice: {names}")
        object.__setattr__(self, "by_name", {o.name: o for o in self.options})

    def __iter__(self):
        return iter(self.options)

    def __contains__(self, name: str) -> bool:
        return name in self.by_name

    def __getitem__(self, name: str) -> Option:
        return self.by_name[name]

    def names(self, on_dask: bool | None = None, public: bool = False) -> list[str]:
        """The option names for in-memory data (``on_dask=False``), Dask frames
        (True), or either (None)."""
        out = []
        for o in self.options:
            if public and not o.public:
                continue
            if on_dask is None or o.where == "both" or o.where == ("dask" if on_dask
                                                                    else "memory"):
                out.append(o.name)
        return out

    def defaults(self, on_dask: bool = False) -> dict:
        return {o.name: o.default_on(on_dask) for o in self.options
                if o.name in self.names(on_dask)}

    def with_options(self, *more: Option, label: str | None = None) -> Schema:
        """This schema with ``more`` options after its own."""
        return Schema((*self.options, *more), label=self.label if label is None else label)

    def replaced(self, name: str, **changes) -> Schema:
        """This schema with option ``name`` changed (a variant's own default)."""
        return Schema(tuple(replace(o, **changes) if o.name == name else o
                            for o in self.options), label=self.label)

    def resolve(self, given: dict, *, on_dask: bool = False, type_name: str = "") -> dict:
        """Every option of this schema, checked: those given and the defaults of the
        rest.  An unknown option, an option for the other kind of frame, a bad value or
        a value a Dask frame does not take is refused by name."""
        unknown = [k for k in given if k not in self.by_name]
        if unknown:
            accepted = self.names(on_dask, public=True)
            raise OptionError(f"method {self.label} has no option "
                              f"{', '.join(map(repr, unknown))}; it accepts: "
                              f"{', '.join(accepted) if accepted else '(no options)'}")
        elsewhere = [k for k in given if k not in self.names(on_dask)]
        if elsewhere:
            where = "dask DataFrames" if not on_dask else "data in memory"
            raise OptionError(f"method {self.label} option {', '.join(map(repr, elsewhere))} "
                              f"applies to {where} only; the data is a {type_name}")
        out = {}
        for name in self.names(on_dask):
            o = self.by_name[name]
            value = o.validate(given[name]) if name in given else o.default_on(on_dask)
            if on_dask and o.dask is not None and o.dask.allowed \
                    and not any(value == a and type(value) is type(a) for a in o.dask.allowed):
                raise OptionError(f"{name}={value!r} on a Dask frame: {o.dask.why}")
            out[name] = value
        return out

    def markdown(self, exclude: tuple = ()) -> str:
        """The option table of the documentation: one definition per public option
        (but those in ``exclude``)."""
        lines = []
        for o in self.options:
            if not o.public or o.name in exclude:
                continue
            default = "None" if o.default is None else repr(o.default)
            head = f"`{o.name}` : {o.type_text()}, default {default}"
            if o.where != "both":
                head += f" ({'Dask frames' if o.where == 'dask' else 'in memory'} only)"
            body = o.help
            if o.kind in ("whole", "real"):
                body += f"  Takes {o.describe_type()}."
            if o.dask is not None and o.where == "both":
                body += f"  On a Dask frame: {o.dask.why.rstrip('.')}."
            lines += [head, f": {body}", ""]
        return "\n".join(lines).rstrip() + "\n"
