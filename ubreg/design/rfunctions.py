"""The functions a formula may call: each declared once, with R's arguments.

A :class:`RFunction` gives a function's parameters (R's names, in R's order, each of a
*kind* that says what may be written there), and either a pure implementation on
:mod:`~ubreg.design.values` or a learning transform (:mod:`ubreg.design.rtransforms`).
The allowlist (:mod:`ubreg.design.allowlist`) checks every call against these
declarations before anything is evaluated; the interpreter
(:mod:`ubreg.design.evaluate`) calls nothing else.

Parameter kinds: ``value`` (any checked expression of the columns), and literals
written in the formula itself: ``count`` (a whole number ≥ 0), ``number``, ``flag``
(TRUE/FALSE), ``text`` (a string), ``level`` (a string or number), ``levels`` and
``numbers`` (``c(...)`` of literals, or one), ``contrast`` (``contr.sum``,
``Treatment("b")``, ...).  The numpy spellings ubreg accepted before (``np.log(x)``,
``np.power(x, 2)``) are declared here too; they are ordinary R names with a dot.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import FormulaError
from .rtransforms import Basis, FactorLevels, Scale, TensorBasis
from .values import Factor, Logical, as_logical, as_numbers

__all__ = ["Param", "RFunction", "FUNCTIONS", "CONSTANTS", "bind", "CONTRAST_NAMES",
           "numpy_function"]


@dataclass(frozen=True)
class Param:
    """One parameter: R's name, what may be written there, its default."""

    name: str
    kind: str = "value"
    default: Any = None
    required: bool = False
    aliases: tuple = ()


@dataclass(frozen=True)
class RFunction:
    """A callable of the formula language (see the module docstring)."""

    name: str
    params: tuple
    apply: Callable | None = None          # (args, where) -> value
    transform: Callable | None = None      # (literal args, where) -> a learning transform
    variadic: str | None = None            # the parameter that takes every positional arg
    columns: Callable | None = None        # (literal args) -> columns the value has
    factor: bool = False                   # returns a factor


#: names a formula may use as values when no column has the name
CONSTANTS = {"pi": float(np.pi), "T": True, "F": False, "np.pi": float(np.pi),
             "np.e": float(np.e)}

#: R's and patsy's contrast names, for C()
CONTRAST_NAMES = {"contr.treatment": "treatment", "contr.SAS": "SAS", "contr.sum": "sum",
                  "contr.helmert": "helmert", "contr.poly": "poly", "treatment": "treatment",
                  "SAS": "SAS", "sum": "sum", "helmert": "helmert", "poly": "poly",
                  "Treatment": "treatment", "Sum": "sum", "Helmert": "helmert", "Poly": "poly",
                  "Diff": "diff"}


def _x(**extra) -> tuple:
    return (Param("x", required=True), *extra.values())


def _elementwise(ufunc) -> Callable:
    def apply(args, where):
        x = as_numbers(args["x"], where)
        with np.errstate(all="ignore"):
            out = ufunc(x)
        return float(out) if np.ndim(out) == 0 else out
    return apply


def _log(args, where):
    x = as_numbers(args["x"], where)
    with np.errstate(all="ignore"):
        out = np.log(x)
        if args.get("base") is not None:
            out = out / np.log(float(args["base"]))
    return float(out) if np.ndim(out) == 0 else out


def _round(args, where):
    # R: digits beyond ±308 change nothing
    digits = max(min(int(args.get("digits") or 0), 308), -308)
    return np.round(as_numbers(args["x"], where), digits)


def _signif(args, where):
    x = np.asarray(as_numbers(args["x"], where), dtype=np.float64)
    digits = max(min(int(args.get("digits", 6) or 6), 22), 1)       # R's range
    with np.errstate(all="ignore"):
        magnitude = np.where(x == 0, 0, np.floor(np.log10(np.abs(x))))
        scale = 10.0 ** (digits - 1 - magnitude)
        return np.round(x * scale) / scale


def _plogis(args, where):
    from scipy.special import expit
    return expit(as_numbers(args["x"], where))


def _qlogis(args, where):
    from scipy.special import logit
    with np.errstate(all="ignore"):
        return logit(as_numbers(args["x"], where))


def _extreme(reduce, skip_na):
    def apply(args, where):
        values = [as_numbers(v, where) for v in args["..."]]
        if not values:
            raise FormulaError(f"{where}: no arguments")
        out = values[0]
        for v in values[1:]:
            out = (skip_na if args.get("na.rm") else reduce)(out, v)
        return out
    return apply


def _ifelse(args, where):
    test = as_logical(args["test"], where)
    yes, no = as_numbers(args["yes"], where), as_numbers(args["no"], where)
    if isinstance(test, bool):
        return yes if test else no
    out = np.where(test.values, yes, no).astype(np.float64)
    if test.na is not None:
        out[test.na] = np.nan
    return out


def _as_numeric(integer: bool):
    def apply(args, where):
        x = args["x"]
        if isinstance(x, Factor):
            if x.text:
                raise FormulaError(f"{where}: the column is text; R's as.numeric() would give "
                                   "NA for every value that is not a number: convert the "
                                   "column in pandas (pd.to_numeric) first")
            out = x.codes.astype(np.float64) + 1.0          # R: a factor's level codes
            out[x.codes < 0] = np.nan
            return out
        out = as_numbers(x, where)
        return np.trunc(out) if integer else out
    return apply


def _is_na(args, where):
    x = args["x"]
    if isinstance(x, Factor):
        return Logical(x.na.copy())
    if isinstance(x, Logical):
        return Logical(x.na.copy() if x.na is not None else np.zeros(len(x), bool))
    return Logical(np.isnan(np.asarray(as_numbers(x, where), dtype=np.float64)))


def _cut_labels(breaks: np.ndarray, right: bool, lowest: bool, digits: int) -> list[str]:
    """R's ``cut`` labels: the breaks by ``formatC(digits = d)`` with the fewest digits
    (from ``dig.lab``) that tell them apart, as ``(a,b]`` or ``[a,b)``."""
    for d in range(digits, max(12, digits) + 1):
        text = [f"{b:.{d}g}" for b in breaks]
        if all(a != b for a, b in zip(text[:-1], text[1:])):
            break
    labels = [f"({a},{b}]" if right else f"[{a},{b})" for a, b in zip(text[:-1], text[1:])]
    if lowest and labels:
        if right:
            labels[0] = "[" + labels[0][1:]
        else:
            labels[-1] = labels[-1][:-1] + "]"
    return labels


def _cut(args, where):
    breaks = np.asarray(args["breaks"], dtype=np.float64)
    if breaks.size < 2:
        raise FormulaError(f"{where}: give the breaks, as in cut(x, c(0, 20, 30, 50)) (a "
                           "number of intervals would learn the breaks from the data)")
    if np.any(np.diff(np.sort(breaks)) == 0):
        raise FormulaError(f"{where}: the breaks are not unique")
    breaks = np.sort(breaks)
    right, lowest = bool(args.get("right", True)), bool(args.get("include.lowest", False))
    x = np.asarray(as_numbers(args["x"], where), dtype=np.float64)
    digits = max(min(int(args.get("dig.lab") or 3), 50), 1)            # formatC's range
    labels = _cut_labels(breaks, right, lowest, digits)
    if args.get("labels") is not None:
        if len(args["labels"]) != len(labels):
            raise FormulaError(f"{where}: {len(args['labels'])} labels for {len(labels)} "
                               "intervals")
        labels = [str(v) for v in args["labels"]]
    codes = np.searchsorted(breaks, x, side="left" if right else "right") - 1
    if lowest:
        edge = breaks[0] if right else breaks[-1]
        codes[x == edge] = 0 if right else len(breaks) - 2
    codes[(codes < 0) | (codes >= len(breaks) - 1) | np.isnan(x)] = -1
    return Factor(codes.astype(np.int64), list(labels), list(labels),
                  ordered=bool(args.get("ordered_result")))


def _identity(args, where):
    return args["x"]


def _power(args, where):
    from .values import arithmetic
    return arithmetic("^", args["x"], args["y"], where)


def _clip(args, where):
    x = as_numbers(args["x"], where)
    return np.clip(x, args.get("a_min"), args.get("a_max"))


def _where(args, where):
    return _ifelse({"test": args["condition"], "yes": args["x"], "no": args["y"]}, where)


def _two(ufunc):
    def apply(args, where):
        return ufunc(as_numbers(args["x"], where), as_numbers(args["y"], where))
    return apply


_UFUNCS = {"log2": np.log2, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
           "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs, "sin": np.sin, "cos": np.cos,
           "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
           "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "floor": np.floor,
           "ceiling": np.ceil, "trunc": np.trunc, "sign": np.sign}
_NUMPY_UFUNCS = {"log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
                 "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs,
                 "square": np.square, "sin": np.sin, "cos": np.cos, "tan": np.tan,
                 "arcsin": np.arcsin, "arccos": np.arccos, "arctan": np.arctan,
                 "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "floor": np.floor,
                 "ceil": np.ceil, "sign": np.sign}


def _factor_transform(kind: str):
    def make(args, where):
        contrast = args.get("contr")
        if args.get("base") is not None:
            if contrast is None or contrast.kind != "treatment":
                raise FormulaError(f"{where}: base = is an argument of contr.treatment")
            contrast = replace(contrast, base=int(args["base"]), names="numbers")
        return FactorLevels(where, levels=args.get("levels"), labels=args.get("labels"),
                            ordered=True if kind == "ordered" else None,
                            ref=args.get("ref"), contrast=contrast)
    return make


def _scale(args, where):
    return Scale(where, args.get("center", True), args.get("scale", True), ddof=1)


def _center(args, where):
    return Scale(where, True, False, ddof=0)


def _standardize(args, where):
    return Scale(where, args.get("center", True), args.get("rescale", True),
                 ddof=int(args.get("ddof") or 0))


def _basis(name: str):
    def make(args, where):
        return Basis(name, where, {k: v for k, v in args.items() if k != "x"})
    return make


def _te(args, where):
    return TensorBasis(where, args.get("constraints"))


def _spline_columns(extra: int):
    def columns(args):
        if args.get("df") is not None:
            return int(args["df"])
        knots = args.get("knots") or ()
        return len(knots) + extra + int(bool(args.get("intercept")))
    return columns


def _bs_columns(args):
    if args.get("df") is not None:
        return int(args["df"])
    return len(args.get("knots") or ()) + int(args.get("degree", 3) or 3) \
        + int(bool(args.get("intercept")))


_BOUNDARY = Param("Boundary.knots", "numbers", aliases=("Boundary_knots",))
_CR = (Param("x", required=True), Param("df", "count"), Param("knots", "numbers"),
       Param("lower_bound", "number"), Param("upper_bound", "number"),
       Param("constraints", "text"))


def _declare() -> dict[str, RFunction]:
    x = Param("x", required=True)
    out = [RFunction(name, (x,), apply=_elementwise(f)) for name, f in _UFUNCS.items()]
    out += [RFunction(f"np.{name}", (x,), apply=_elementwise(f))
            for name, f in _NUMPY_UFUNCS.items()]
    out += [
        RFunction("log", (x, Param("base", "number")), apply=_log),
        RFunction("round", (x, Param("digits", "integer", 0)), apply=_round),
        RFunction("np.round", (x, Param("decimals", "integer", 0)),
                  apply=lambda a, w: _round({"x": a["x"], "digits": a.get("decimals")}, w)),
        RFunction("signif", (x, Param("digits", "integer", 6)), apply=_signif),
        RFunction("plogis", (x,), apply=_plogis),
        RFunction("qlogis", (x,), apply=_qlogis),
        RFunction("pmin", (Param("..."), Param("na.rm", "flag", False)),
                  apply=_extreme(np.minimum, np.fmin), variadic="..."),
        RFunction("pmax", (Param("..."), Param("na.rm", "flag", False)),
                  apply=_extreme(np.maximum, np.fmax), variadic="..."),
        RFunction("ifelse", (Param("test", required=True), Param("yes", required=True),
                             Param("no", required=True)), apply=_ifelse),
        RFunction("I", (x,), apply=_identity),
        RFunction("cut", (x, Param("breaks", "numbers", required=True),
                          Param("labels", "levels"), Param("include.lowest", "flag", False),
                          Param("right", "flag", True), Param("dig.lab", "count", 3),
                          Param("ordered_result", "flag", False)),
                  apply=_cut, factor=True),
        RFunction("as.numeric", (x,), apply=_as_numeric(False)),
        RFunction("as.double", (x,), apply=_as_numeric(False)),
        RFunction("as.integer", (x,), apply=_as_numeric(True)),
        RFunction("is.na", (x,), apply=_is_na),
        RFunction("np.power", (x, Param("y", required=True)), apply=_power),
        RFunction("np.minimum", (x, Param("y", required=True)), apply=_two(np.fmin)),
        RFunction("np.maximum", (x, Param("y", required=True)), apply=_two(np.fmax)),
        RFunction("np.clip", (x, Param("a_min", "number"), Param("a_max", "number")),
                  apply=_clip),
        RFunction("np.where", (Param("condition", required=True), Param("x", required=True),
                               Param("y", required=True)), apply=_where),
        RFunction("factor", (x, Param("levels", "levels"), Param("labels", "levels")),
                  transform=_factor_transform("factor"), factor=True),
        RFunction("as.factor", (x,), transform=_factor_transform("factor"), factor=True),
        RFunction("ordered", (x, Param("levels", "levels"), Param("labels", "levels")),
                  transform=_factor_transform("ordered"), factor=True),
        RFunction("relevel", (x, Param("ref", "level", required=True)),
                  transform=_factor_transform("relevel"), factor=True),
        RFunction("C", (Param("x", required=True, aliases=("object",)),
                        Param("contr", "contrast", aliases=("contrast",)),
                        Param("levels", "levels"), Param("base", "count")),
                  transform=_factor_transform("C"), factor=True),
        RFunction("scale", (x, Param("center", "flag", True), Param("scale", "flag", True)),
                  transform=_scale),
        RFunction("center", (x,), transform=_center),
        RFunction("standardize", (x, Param("center", "flag", True),
                                  Param("rescale", "flag", True), Param("ddof", "count", 0)),
                  transform=_standardize),
        RFunction("poly", (x, Param("degree", "count", 1), Param("raw", "flag", False)),
                  transform=_basis("poly"), columns=lambda a: int(a.get("degree") or 1)),
        RFunction("ns", (x, Param("df", "count"), Param("knots", "numbers"),
                         Param("intercept", "flag", False), _BOUNDARY),
                  transform=_basis("ns"), columns=_spline_columns(1)),
        RFunction("bs", (x, Param("df", "count"), Param("knots", "numbers"),
                         Param("degree", "count", 3), Param("intercept", "flag", False),
                         _BOUNDARY),
                  transform=_basis("bs"), columns=_bs_columns),
        RFunction("cr", _CR, transform=_basis("cr"), columns=_spline_columns(0)),
        RFunction("cc", _CR, transform=_basis("cc"), columns=_spline_columns(0)),
        RFunction("te", (Param("bases"), Param("constraints", "text")), transform=_te,
                  variadic="bases"),
    ]
    return {f.name: f for f in out}


#: every function a formula may call, by name
FUNCTIONS: dict[str, RFunction] = _declare()


def bind(fn: RFunction, args: tuple, where: str) -> dict:
    """R's argument matching for a call of ``fn``: named arguments by their exact
    name (or an alias), then the positional ones in order.  Returns parameter name →
    the argument's node (a list of nodes for the variadic parameter)."""
    names = {p.name: p for p in fn.params}
    for p in fn.params:
        for alias in p.aliases:
            names[alias] = p
    bound: dict = {}
    positional = []
    for arg in args:
        if arg.name is None:
            positional.append(arg.value)
            continue
        param = names.get(arg.name)
        if param is None or param.name == fn.variadic:
            accepted = ", ".join(p.name for p in fn.params if p.name != fn.variadic)
            raise FormulaError(f"{where}: {fn.name}() has no argument {arg.name!r} "
                               f"(its arguments: {accepted or 'none by name'})")
        if param.name in bound:
            raise FormulaError(f"{where}: argument {param.name!r} given twice")
        bound[param.name] = arg.value
    if fn.variadic is not None:
        bound[fn.variadic] = positional
    else:
        free = [p for p in fn.params if p.name not in bound]
        if len(positional) > len(free):
            raise FormulaError(f"{where}: {fn.name}() takes at most {len(fn.params)} "
                               f"argument(s), got {len(args)}")
        for param, node in zip(free, positional):
            bound[param.name] = node
    for p in fn.params:
        if p.required and p.name not in bound:
            raise FormulaError(f"{where}: {fn.name}() needs its argument {p.name!r}")
    return bound


def numpy_function(name: str):
    """For ``trusted=True``: the numpy function ``np.<name>`` names (a public
    callable of numpy's top-level namespace), or None."""
    if not name.startswith("np.") or "." in name[3:] or name[3:].startswith("_"):
        return None
    fn = getattr(np, name[3:], None)
    return fn if callable(fn) and not isinstance(fn, type) else None
