"""A grammar-based fuzz test of the formula language: formulas built from R's grammar, mixed
with Python's and with attacks, fitted by ``ubreg.fit``, and the evaluation watched.

A formula is read whole into one syntax tree, checked against the allowlist and evaluated
by ubreg's own interpreter, which resolves names in two places only:
``Environment.column`` (the data's columns, then ``CONSTANTS``) and
``Environment.function`` (``FUNCTIONS``; numpy only when trusted).  The strategy below
builds formula strings from a grammar (R's formula operators at the top; names, numbers,
strings and calls of the declared functions with arbitrary arguments inside; Python and
R attack syntax spliced in at random places, on both sides of ``~``; very deep nesting and
very long chains), and every fit runs under :class:`Guard`, which

- wraps ``Environment.column`` and ``Environment.function`` and records every name the
  interpreter resolves: each column must be one of the data's or a ``CONSTANTS`` name,
  each function a ``FUNCTIONS`` declaration (the fits are not trusted), and
  ``numpy_function`` must never hand out a numpy callable;
- replaces ``builtins.eval``/``exec``/``compile`` (a call from anything but a known code
  generator, numba or the import system, is recorded and refused), ``builtins.__import__``
  (an import of ``os``, ``subprocess``, ``builtins``, ... by a direct call or from code
  compiled from a string is recorded and refused; ordinary lazy ``import`` statements of
  modules, ``os`` included, still work), ``os.system``/``posix.system``/``os.popen``/the
  ``exec*``, ``spawn*`` and ``fork`` functions/``subprocess.Popen``, and ``open``
  (``builtins``, ``io``, ``os``) for writing (refused, except numba writing its cache);
- stops an example after :data:`TIME_LIMIT` seconds (SIGALRM; a hang is a failure).

Allowed outcomes: the fit succeeds (coefficients finite or NaN; a tree's fitted
probabilities in [0, 1]), or it raises a :class:`~ubreg.errors.UbregError`.  Anything
else (RecursionError, KeyError, OverflowError, AssertionError, a numpy or patsy error, a
hang) fails the test, and so does a canary file created by an attack.

The examples are derandomized (the same formulas on every run, CI included) and have no
explain phase (it traces every later example, which slows fits past the time limit).
``UBREG_FORMULA_FUZZ_EXAMPLES`` sets the number of examples (default 200: about 10 s);
``UBREG_FORMULA_FUZZ_SURVEY=1`` goes on past failures and lists every kind found, each
with the shortest formula that showed it (hypothesis shrinks only the first otherwise).
``OUTCOMES`` counts the outcomes of a run (printed at its end, ``pytest -s``).

What the guard does not see, and why: ``import os`` statements of library code are
ordinary lazy imports (refusing them would break numpy, scipy and pandas), so only an
import by a direct ``__import__(...)`` call or from code compiled from a string counts;
``exec`` of a module's code while it is being imported is the import system's own; the
warm-up fits (the ``canary`` fixture) load every lazily imported module first.
"""
from __future__ import annotations

import builtins
import io
import os
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import ubreg
from ubreg.design import allowlist as allowlist_module
from ubreg.design import evaluate as evaluate_module
from ubreg.design.rfunctions import CONSTANTS, FUNCTIONS, RFunction
from ubreg.errors import FormulaError, UbregError

# it times itself (a time limit per example, bounds on seconds): under pytest-xdist (make
# test: -n auto --dist loadgroup) the timed tests run one after another on one worker
pytestmark = pytest.mark.xdist_group("timing")

EXAMPLES = int(os.environ.get("UBREG_FORMULA_FUZZ_EXAMPLES", "200"))
#: a survey (UBREG_FORMULA_FUZZ_SURVEY=1) records every kind of failure, with its
#: shortest formula, and fails once at the end with the list, instead of stopping and
#: shrinking at the first
SURVEY = os.environ.get("UBREG_FORMULA_FUZZ_SURVEY") == "1"
#: kind of failure -> (the shortest formula that showed it, the method), in a survey
FOUND: dict = {}
#: seconds an example may run before it counts as a hang
TIME_LIMIT = 2.0
#: what happened to each example of a run: "ok uls", "FormulaError (parse)", ...
OUTCOMES: Counter = Counter()
#: seconds spent per outcome in a run
SECONDS: Counter = Counter()
CANARY = "CANARY"                       # replaced by the canary's path in every formula

# --- the data ---------------------------------------------------------------------------------
_N = 30
_RNG = np.random.default_rng(20240531)
DATA = pd.DataFrame({
    "y": np.r_[0, 1, _RNG.integers(0, 2, _N - 2)],
    "x": _RNG.uniform(0.5, 3.0, _N),
    "z": _RNG.uniform(0.1, 5.0, _N),
    "g": np.r_[["a", "b", "c"], _RNG.choice(["a", "b", "c"], _N - 3)],
    "h": np.r_[[True, False], _RNG.integers(0, 2, _N - 2).astype(bool)],
    "odd name": _RNG.normal(size=_N),
})
ALLOWED_NAMES = frozenset(DATA.columns) | frozenset(CONSTANTS)

# --- the grammar ------------------------------------------------------------------------------
COLUMN_NAMES = ["x", "z", "g", "h", "y", "`odd name`", "`x`", "`g`", "Q('odd name')", 'Q("z")']
MISSING_NAMES = [
    "w", "x2", "X", "odd", "`odd  name`", "`x `", "`__import__`", "`__builtins__`",
    "`__class__`", "os", "sys", "self", "data", "np", "np.linalg", "builtins", "locals",
    "x.__class__", "x.real", "..1", "._x", "`.`", "`1x`", "`if`", "`y~x`",
    "\uff58",              # fullwidth x
    "\u0445",              # Cyrillic x
    "\u217cog",            # small roman numeral fifty + "og": NFKC makes it "log"
    "`x\u200b`", "`x\\0`", "`g\\x00`", "`\\u0078`",
]
CONSTANT_NAMES = ["pi", "T", "F", "TRUE", "FALSE", "NA", "NULL", "Inf", "NaN", "NA_real_",
                  "NA_character_", "np.pi", "np.e", "True", "None"]
NUMBERS = ["0", "1", "2", "3", "-1", "0.5", ".5", "1.", "2L", "0x10", "1e308",
           "1.7976931348623157e308", "1e309", "1e999", "5e-324", "1e-400", "1e-308",
           "0xFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "9" * 400, "10^10^8", "(10^10)^8", "2^1024",
           "1e308 * 10", "-1e308 - 1e308", "1 / 0", "0 / 0", "00012"]
BAD_NUMBERS = ["1i", "1e", "0x", "1.2.3", "1_000"]
STRINGS = ["'b'", '"a"', "'c'", "'zz'", "''", "'it\\'s'", '"\\x62"', '"\\u00e9"', "'\\0'",
           "'a\\nb'", "'\\U0001F600'", '"\\\\"', "'%s'", "'{x}'", "'__import__'",
           "'touch CANARY'"]
BAD_STRINGS = ["'unterminated", "'\\q'", '"\\x"', "'\\u{110000}'", "'\\'"]
#: functions that are not declared: refused by name, whatever their arguments
UNKNOWN_FUNCTIONS = [
    "system", "get", "eval", "exec", "open", "getattr", "do.call", "Sys.setenv", "`__import__`",
    "library", "source", "file.create", "writeLines", "sink", "parse", "quote", "assign",
    "environment", ".Internal", ".Call", "list", "mean", "s", "interaction", "print",
    "np.load", "np.save", "np.cumsum", "np.linalg.norm", "np.lib.npyio.savetxt", "np.fromfile",
    "np.frompyfunc", "np.vectorize", "np.array", "np._core.multiarray.normalize_axis_index",
    "pd.eval", "compile", "globals", "vars", "breakpoint", "input", "setattr", "delattr",
    "\uff53\uff59\uff53\uff54\uff45\uff4d",     # fullwidth "system"
]
#: attacks, Python's and R's, used as whole terms or spliced into the text
ATTACKS = [
    "__import__('os').system('touch CANARY')",
    "`__import__`('os')$system('touch CANARY')",
    "I(__import__('os').system('touch CANARY'))",
    "cbind(x) if 0 else __import__('os').system('touch CANARY')",
    "eval(parse(text = \"system('touch CANARY')\"))",
    "eval(\"__import__('os').system('touch CANARY')\")",
    "exec(\"open('CANARY', 'w')\")",
    "open('CANARY', 'w')",
    "I(open('CANARY', 'w'))",
    "getattr(x, '__class__')",
    "x.__class__.__mro__[1].__subclasses__()",
    "I(x.__class__)",
    "(lambda: __import__('os'))()",
    "lambda v: v",
    "[v for v in x]",
    "{'a': x}",
    "{x, z}",
    "{k: v for k, v in []}",
    "[x, z]",
    "(x, z)",
    "x[0]",
    "x[[1]]",
    "x$y",
    "base::system('touch CANARY')",
    "stats:::log(x)",
    "x <- 1",
    "x <<- 1",
    "1 -> x",
    "x = 1",
    "system(\"touch CANARY\")",
    "system2('touch', 'CANARY')",
    "get(\"system\")(\"touch CANARY\")",
    "do.call('system', list('touch CANARY'))",
    "Sys.setenv(A = 1)",
    "file.create('CANARY')",
    "writeLines('x', 'CANARY')",
    "f\"{__import__('os').system('touch CANARY')}\"",
    "f'{x}'",
    "b'x'",
    "r'x'",
    "`__import__`('os')",
    "`eval`('1')",
    "`system`('touch CANARY')",
    "np.lib.npyio.savetxt('CANARY', x)",
    "np.save('CANARY', x)",
    "import os",
    "not x",
    "x and z",
    "x or z",
    "x is None",
    "x if h else z",
    "x // 2",
    "x % 2",
    "x @ z",
    "x |> log()",
    "x ; system('touch CANARY')",
    "{x}",
    "function(v) v",
    "\\(v) v",
    "?system",
    "x@y",
    "`x`$`y`",
    "# __import__('os').system('touch CANARY')\n x",
    "x\x00",
    "\x00",
    "'\x00'",
    "`\x00`",
    "\u202ex",                            # right-to-left override
    "x\u00a0+\u00a0z",                    # no-break spaces
    "x\u2009+ z",                         # thin space
    "\u0440\u0456",                       # Cyrillic "pi"
    "\uff49(x)",                          # fullwidth I(x)
    "\u217cog(x)",                        # NFKC "log(x)"
    "log\u2061(x)",                       # function application (invisible)
    "\u00b2",                             # superscript two
    "x\u00b2",
    ".\u00b2",
    "\u0663",                             # Arabic-Indic digit three
    "\U0001d7d9",                         # mathematical double-struck one
    "0\u0663",
]
#: calls written as they are meant (each a good example of a declared function)
PLAUSIBLE_CALLS = [
    "log(x, 2)", "log(x)", "log(x, base = 10)", "I(x^2)", "I(x > 1)", "factor(g)", "factor(h)",
    "factor(x > 1)", "relevel(g, ref = \"b\")", "relevel(factor(g), ref = 'c')",
    "C(g, contr.sum)", "C(g, Treatment('b'))", "C(g, contr.treatment(3, base = 2))",
    "C(g, Sum(omit = 'a'))", "C(g, Helmert)", "C(g, contr.poly)", "poly(x, 2)",
    "poly(z, 3, raw = TRUE)", "cut(x, c(0, 1))", "cut(x, c(0, 1, 2, 3), right = FALSE)",
    "cut(z, c(0, 2.5, 5), labels = c('lo', 'hi'))", "ifelse(h, x, z)", "ifelse(x > 1, 1, 0)",
    "np.log(x)", "np.sqrt(z)", "np.power(x, 2)", "np.clip(z, 1, 3)", "np.where(h, x, 0)",
    "np.maximum(x, z)", "np.round(x, 1)", "pmin(x, z)", "pmax(x, 1, na.rm = TRUE)",
    "scale(x)", "center(z)", "standardize(x)", "ns(x, df = 3)", "bs(z, df = 4)",
    "bs(x, knots = c(1, 2))", "cr(x, df = 3)", "cc(z, df = 4)", "te(cr(x, df = 3), cc(z, df = 3))",
    "sqrt(z)", "exp(-x)", "abs(`odd name`)", "as.numeric(h)", "is.na(x)", "round(z, 1)",
    "signif(x, 2)", "g %in% c('a', 'b')", "I(g == 'a')", "I(x * z)", "Q('odd name')",
    "I(`odd name` + x)", "log1p(z)", "I(pi * x)", "I(T + x)",
]
#: well-formed calls of numpy functions that are not declared: refused unless trusted
#: (a trusted fit is the only one that may reach them, and these fits are not trusted)
UNDECLARED_NUMPY_CALLS = ["np.cumsum(x)", "np.arcsinh(z)", "np.negative(x)", "np.sort(z)",
                          "np.cbrt(x + z)", "np.load('CANARY')", "np.save('CANARY', x)",
                          "np.vectorize(x)", "np.fromfile('CANARY')"]
#: arithmetic, comparison and logical operators inside a call (some refused there)
INNER_OPERATORS = ["+", "-", "*", "/", "^", "**", "%%", "%/%", "==", "!=", "<", ">", "<=",
                   ">=", "&", "|", "&&", "||", "%in%", ":", "%o%", "|>", "~"]
#: operators of the formula's terms
TERM_OPERATORS = ["+", "+", "+", "-", "*", ":", "/", "%in%"]
POWERS = ["2", "3", "2", "1", "0", "-1", "2.5", "T", "x", "(2)", "1e9", "1e308", "1e999",
          "10^10^8", "0x10", "100"]
#: parameter names given to calls: the declared ones and some that are not
EXTRA_ARGUMENT_NAMES = ["out", "where", "dtype", "ref", "base", "x", "df", "levels",
                        "labels", "contrast", "object", "degree", "raw", "digits", "breaks",
                        "na.rm", "__class__", "`odd name`", "'x'", "y", "..."]
NESTERS = ["I(", "(", "log(", "sqrt(", "-", "!", "+", "scale(", "np.exp(", "pmin(", "factor(",
           "~"]


def _join(parts, sep=" "):
    return sep.join(parts)


# Every strategy takes ``wild``: a wild formula has attacks, Python's syntax and malformed
# atoms mixed in; a tame one is R (its names, calls and arguments as arbitrary, possibly
# wrong, as a wild one's), so that half of the examples get past the parser and reach
# the allowlist and the interpreter, which are what this test watches.

@st.composite
def atoms(draw, wild: bool = True):
    """A name, a constant, a number or a string (an R atom), or, when wild, now and then
    something that is not one (an attack, a malformed number or string)."""
    kinds = ["column"] * 12 + ["number"] * 3 + ["constant"] * 2 + ["string"] * 2 + ["missing"]
    kind = draw(st.sampled_from(kinds + ["malformed"] if wild else kinds))
    if kind == "column":
        return draw(st.sampled_from(COLUMN_NAMES))
    if kind == "missing":
        return draw(st.sampled_from(MISSING_NAMES))
    if kind == "constant":
        return draw(st.sampled_from(CONSTANT_NAMES))
    if kind == "number":
        return draw(st.sampled_from(NUMBERS))
    if kind == "string":
        return draw(st.sampled_from(STRINGS))
    return draw(st.sampled_from(ATTACKS + BAD_NUMBERS + BAD_STRINGS))


@st.composite
def calls(draw, depth: int = 2, wild: bool = True):
    """A call: of a declared function with arbitrary arguments, a plausible one, or of a
    function that is not declared."""
    kind = draw(st.sampled_from(["declared", "declared", "plausible", "unknown"]))
    if kind == "plausible":
        return draw(st.sampled_from(PLAUSIBLE_CALLS))
    if kind == "unknown":
        fn = draw(st.sampled_from(UNKNOWN_FUNCTIONS))
    else:
        fn = draw(st.sampled_from(sorted(FUNCTIONS) + ["Q", "offset", "cbind", "c"]))
    params = [p.name for p in FUNCTIONS[fn].params] if fn in FUNCTIONS else []
    args = []
    for _ in range(draw(st.integers(0, 4))):
        value = draw(expressions(depth - 1, wild))
        named = draw(st.sampled_from(["plain", "plain", "param", "other"]))
        if named == "param" and params:
            args.append(f"{draw(st.sampled_from(params))} = {value}")
        elif named == "other":
            args.append(f"{draw(st.sampled_from(EXTRA_ARGUMENT_NAMES))} = {value}")
        else:
            args.append(value)
    return f"{fn}({', '.join(args)})"


@st.composite
def expressions(draw, depth: int = 3, wild: bool = True):
    """An R expression of the kind a call's argument or ``I()`` holds."""
    if depth <= 0:
        return draw(atoms(wild))
    kinds = ["atom"] * 4 + ["call"] * 4 + ["binary"] * 3 + ["unary", "paren", "in", "deep"]
    kind = draw(st.sampled_from(kinds + ["python"] if wild else kinds))
    if kind == "atom":
        return draw(atoms(wild))
    if kind == "call":
        return draw(calls(depth, wild))
    if kind == "binary":
        left, right = draw(expressions(depth - 1, wild)), draw(expressions(depth - 1, wild))
        return _join([left, draw(st.sampled_from(INNER_OPERATORS)), right])
    if kind == "unary":
        return draw(st.sampled_from(["-", "!", "+", "- -", "!!"])) + \
            draw(expressions(depth - 1, wild))
    if kind == "paren":
        return f"({draw(expressions(depth - 1, wild))})"
    if kind == "in":
        levels = draw(st.lists(st.sampled_from(STRINGS[:5] + NUMBERS[:6] + ["TRUE", "x"]),
                               max_size=3))
        return f"{draw(expressions(depth - 1, wild))} %in% c({', '.join(levels)})"
    if kind == "python":
        a, b = draw(expressions(depth - 1, wild)), draw(expressions(depth - 1, wild))
        return draw(st.sampled_from([
            f"[{a} for v in {b}]", f"{{{a}: {b}}}", f"{{{a}, {b}}}", f"{a} if {b} else {a}",
            f"lambda: {a}", f"{a}.__class__", f"{a}[{b}]", f"{a}${b}", f"base::{a}",
            f"{a} <- {b}", f"f'{{{a}}}'", f"not {a}", f"{a} and {b}", f"{a} is {b}",
            f"{a} // {b}", f"{a} % {b}", f"({a}, {b})", f"{a} ** {b}", f"{a}; {b}",
            f"function(v) {a}", f"\\(v) {a}"]))
    return draw(deep(expressions(depth - 1, wild)))


#: the most characters a repetition (a long chain, many ``~``) makes: long enough to
#: find what depth and length do, short enough that reading the text stays fast
MAX_REPEATED = 20_000


def _repeat(draw, piece: str, sep: str, most: int) -> str:
    """``piece`` repeated 2 to ``most`` times (fewer when it is long), joined by ``sep``."""
    most = max(2, min(most, MAX_REPEATED // (len(piece) + len(sep))))
    return sep.join([piece] * draw(st.integers(2, most)))


@st.composite
def deep(draw, inner):
    """``inner`` nested very deeply, or repeated in a very long chain."""
    kind = draw(st.sampled_from(["nest", "chain", "parens"]))
    piece = draw(inner)
    if kind == "nest":
        opener = draw(st.sampled_from(NESTERS))
        k = draw(st.integers(1, 120))
        closer = ")" if opener.endswith("(") else ""
        return opener * k + piece + closer * k
    if kind == "parens":
        k = draw(st.integers(95, 102))
        return "(" * k + piece + ")" * k
    op = draw(st.sampled_from(["+", "*", ":", "-", "/", "^", "&", "==", "~", "%in%"]))
    return _repeat(draw, piece, f" {op} ", 1500)


@st.composite
def variables(draw, depth: int = 2, wild: bool = True):
    """A variable of the formula: a column, a call, ``I(...)``, ``offset()``, an atom, an
    undeclared numpy function, a column with a name that is not one, or (wild) an
    attack."""
    kinds = ["column"] * 4 + ["plausible"] * 3 + ["call"] * 3 + ["mixed"] * 3 + \
        ["numpy"] * 2 + ["I", "offset", "atom"]
    kind = draw(st.sampled_from(kinds + ["attack"] if wild else kinds))
    if kind == "column":
        return draw(st.sampled_from(COLUMN_NAMES))
    if kind == "plausible":
        return draw(st.sampled_from(PLAUSIBLE_CALLS))
    if kind == "call":
        return draw(calls(depth, wild))
    if kind in ("I", "offset"):
        return f"{kind}({draw(expressions(depth, wild))})"
    if kind == "atom":
        return draw(atoms(wild))
    if kind == "numpy":
        return draw(st.sampled_from(UNDECLARED_NUMPY_CALLS))
    if kind == "mixed":             # a column with a name that is not one, in a call
        fn = draw(st.sampled_from(["I", "log", "sqrt", "pmin", "ifelse(h, x, 0) + I"]))
        name = draw(st.sampled_from(MISSING_NAMES + CONSTANT_NAMES))
        op = draw(st.sampled_from(["+", "*", "-", ">"]))
        return f"{fn}({draw(st.sampled_from(COLUMN_NAMES[:5]))} {op} {name})"
    return draw(st.sampled_from(ATTACKS))


@st.composite
def right_hand_sides(draw, depth: int = 3, wild: bool = True):
    """The terms: R's formula operators over variables."""
    if depth <= 0:
        return draw(variables(1, wild))
    kind = draw(st.sampled_from(["var", "var", "ops", "ops", "paren", "power", "special",
                                 "minus", "deep"]))
    if kind == "var":
        return draw(variables(2, wild))
    if kind == "ops":
        parts = [draw(right_hand_sides(depth - 1, wild))]
        for _ in range(draw(st.integers(1, 4))):
            parts += [draw(st.sampled_from(TERM_OPERATORS)),
                      draw(right_hand_sides(depth - 1, wild))]
        return _join(parts)
    if kind == "paren":
        return f"({draw(right_hand_sides(depth - 1, wild))})"
    if kind == "power":
        return f"({draw(right_hand_sides(depth - 1, wild))})^{draw(st.sampled_from(POWERS))}"
    if kind == "special":
        return draw(st.sampled_from([".", "1", "0", "-1", "+1", "- 1", ". - y", ".^2", "x + 0",
                                     "x - 1", ". %in% g", "offset(log(z))", "-0", "(.)", "x:.",
                                     "-.", ". ^ 3", "1 + 0 - 1"]))
    if kind == "minus":
        return f"- {draw(right_hand_sides(depth - 1, wild))}"
    return draw(deep(right_hand_sides(depth - 1, wild)))


@st.composite
def left_hand_sides(draw, wild: bool = True):
    """The response: mostly ``y``; also other columns, expressions and (wild) attacks."""
    kinds = ["y"] * 6 + ["listed"] * 3 + ["expression", "call"]
    kind = draw(st.sampled_from(kinds + ["attack"] if wild else kinds))
    if kind == "y":
        return "y"
    if kind == "listed":
        return draw(st.sampled_from([
            "h", "g", "x", "`y`", "Q('y')", "I(y)", "factor(y)", "y == 1", "g == 'a'", "!h",
            "cbind(y, 1 - y)", "cbind(y, 1)", "cbind(g, z)", "cbind(y, y, y)", "(y)", "-y",
            "y + 0", "ifelse(h, 1, 0)", "pi", "T", "NA", "1", "'y'",
            "relevel(factor(y), ref = '1')", "as.numeric(x > 1)", "cut(x, c(0, 1.5, 5))",
            "`odd name` > 0"]))
    if kind == "expression":
        return draw(expressions(2, wild))
    if kind == "call":
        return draw(calls(2, wild))
    return draw(st.sampled_from(ATTACKS))


@st.composite
def formulas(draw):
    """A whole formula, tame or wild: ``lhs ~ rhs`` (or a malformed cousin), and when
    wild perhaps an attack spliced into the text at a random place."""
    wild = draw(st.booleans())
    lhs, rhs = draw(left_hand_sides(wild)), draw(right_hand_sides(3, wild))
    shape = draw(st.sampled_from(["two"] * 12 + ["one", "none", "tildes", "empty"]))
    if shape == "two":
        text = f"{lhs} ~ {rhs}"
    elif shape == "one":
        text = f"~ {rhs}"
    elif shape == "none":
        text = rhs
    elif shape == "tildes":
        text = f"{lhs} ~ {_repeat(draw, rhs, ' ~ ', 1200)}"
    else:
        text = f"{lhs} ~"
    if wild and draw(st.integers(0, 3)) == 0:
        attack = draw(st.sampled_from(ATTACKS + UNKNOWN_FUNCTIONS + STRINGS + BAD_STRINGS +
                                      MISSING_NAMES + BAD_NUMBERS))
        at = draw(st.integers(0, len(text)))
        glue = draw(st.sampled_from(["", " ", " + ", " if 0 else ", " or ", "; ", ",", "\x00"]))
        text = text[:at] + glue + attack + text[at:]
    return text


# --- the guard --------------------------------------------------------------------------------
DANGEROUS_MODULES = frozenset({"os", "posix", "nt", "subprocess", "sys", "builtins", "shutil",
                               "socket", "ctypes", "importlib", "pty", "pickle", "marshal",
                               "code", "codeop", "runpy", "io", "_io", "pathlib", "tempfile",
                               "multiprocessing", "signal", "gc", "inspect", "urllib"})
#: modules that legitimately generate code with exec/compile/eval (not from formulas)
CODE_GENERATORS = ("numba", "llvmlite", "importlib", "dataclasses", "collections", "typing",
                   "enum", "functools")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Refused(RuntimeError):
    """What a guarded function raises when the formula reached it."""


class ExampleTimeout(BaseException):
    """An example ran past :data:`TIME_LIMIT` (a BaseException: ``except Exception`` in the
    code under test cannot swallow it)."""


def _caller(depth: int = 2):
    frame = sys._getframe(depth)
    return frame.f_globals.get("__name__") or "?", frame.f_code.co_filename


def _shown(args) -> str:
    try:
        return repr(args)[:100]
    except Exception:  # a half-built object (Popen) may not have a repr
        return "(...)"


def _importing(depth: int = 2) -> bool:
    """Whether the import system is running (a module's code executing on import)."""
    frame = sys._getframe(depth)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


class Guard:
    """Records every name the interpreter resolves and refuses what a formula must never
    reach, for the duration of a ``with`` block."""

    def __init__(self):
        self.columns: list[str] = []
        self.functions: list[tuple[str, object]] = []
        self.numpy: list[tuple[str, object]] = []
        self.violations: list[str] = []
        self._saved: list[tuple[object, str, object]] = []

    # --- what is recorded ---------------------------------------------------------------------
    def bad_names(self) -> list[str]:
        return sorted({n for n in self.columns if n not in ALLOWED_NAMES})

    def bad_functions(self) -> list[str]:
        return sorted({name for name, fn in self.functions
                       if name not in FUNCTIONS or fn is not FUNCTIONS[name]
                       or not isinstance(fn, RFunction)})

    def numpy_handed_out(self) -> list[str]:
        return sorted({name for name, fn in self.numpy if fn is not None})

    # --- patching -------------------------------------------------------------------------------
    def _patch(self, owner, attr: str, make):
        original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        self._saved.append((owner, attr, original))
        setattr(owner, attr, make(original))

    def _refuse(self, what: str):
        self.violations.append(what)
        raise Refused(f"the formula reached {what}")

    def __enter__(self):
        guard = self
        env = evaluate_module.Environment

        def column(original):
            def wrapped(self, name):
                guard.columns.append(name)
                return original(self, name)
            return wrapped

        def function(original):
            def wrapped(self, name):
                fn = original(self, name)           # raises for an unknown name
                guard.functions.append((name, fn))
                return fn
            return wrapped

        def numpy_function(original):
            def wrapped(name):
                fn = original(name)
                guard.numpy.append((name, fn))
                return fn
            return wrapped

        def code_runner(name):
            def make(original):
                def wrapped(*args, **kwargs):
                    module, _ = _caller()
                    if not module.startswith(CODE_GENERATORS) and not _importing():
                        guard._refuse(f"builtins.{name} (called from {module}: "
                                      f"{str(args[:1])[:80]})")
                    if name != "compile" and len(args) < 2 and "globals" not in kwargs:
                        caller = sys._getframe(1)       # eval/exec run in the caller's scope
                        args = (*args, caller.f_globals, caller.f_locals)
                    return original(*args, **kwargs)
                return wrapped
            return make

        def importer(original):
            def wrapped(name, globals=None, locals=None, fromlist=(), level=0):
                _, filename = _caller()
                direct = globals is None or "__name__" not in globals
                from_text = filename.startswith("<") and not filename.startswith("<frozen")
                if level == 0 and name.partition(".")[0] in DANGEROUS_MODULES \
                        and (direct or from_text):
                    guard._refuse(f"__import__({name!r}) (from {filename})")
                return original(name, globals, locals, fromlist, level)
            return wrapped

        def refused(what):
            def make(original):
                def wrapped(*args, **kwargs):
                    guard._refuse(f"{what}{_shown(args)}")
                return wrapped
            return make

        def opener(what):
            def make(original):
                def wrapped(file, mode="r", *args, **kwargs):
                    module, _ = _caller()
                    if isinstance(mode, str) and set(mode) & set("wax+") \
                            and not module.startswith(("numba", "llvmlite")):
                        guard._refuse(f"{what}({file!r}, {mode!r}) from {module}")
                    return original(file, mode, *args, **kwargs)
                return wrapped
            return make

        def os_opener(original):
            def wrapped(path, flags, *args, **kwargs):
                module, _ = _caller()
                if flags & _WRITE_FLAGS and not module.startswith(("numba", "llvmlite")):
                    guard._refuse(f"os.open({path!r}, {flags}) from {module}")
                return original(path, flags, *args, **kwargs)
            return wrapped

        self._patch(env, "column", column)
        self._patch(env, "function", function)
        self._patch(evaluate_module, "numpy_function", numpy_function)
        self._patch(allowlist_module, "numpy_function", numpy_function)
        for name in ("eval", "exec", "compile"):
            self._patch(builtins, name, code_runner(name))
        self._patch(builtins, "__import__", importer)
        self._patch(builtins, "open", opener("open"))
        self._patch(io, "open", opener("io.open"))
        self._patch(os, "open", os_opener)
        posix = sys.modules.get("posix") or sys.modules.get("nt")
        for owner in (os, posix):
            for name in ("system", "popen", "fork", "forkpty", "execv", "execve", "execvp",
                         "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve",
                         "spawnvp", "spawnl", "posix_spawn", "posix_spawnp"):
                if owner is not None and hasattr(owner, name):
                    self._patch(owner, name, refused(f"{owner.__name__}.{name}"))
        # every child process of subprocess.Popen (run, call, check_output) starts here
        self._patch(subprocess.Popen, "_execute_child", refused("subprocess.Popen"))
        return self

    def __exit__(self, *exc):
        while self._saved:
            owner, attr, original = self._saved.pop()
            setattr(owner, attr, original)
        return False


_ALARM = {"armed": False, "fired": False}


def _on_alarm(signum, frame):
    if _ALARM["armed"]:
        _ALARM["fired"] = True
        raise ExampleTimeout


@dataclass
class Fit:
    """What one guarded fit did."""

    guard: Guard
    result: object = None
    error: BaseException | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stopped_at: str = ""                # where ubreg was when the time ran out


def guarded_fit(formula: str, method: str = "uls", **options) -> Fit:
    """``ubreg.fit(formula, DATA)`` under a :class:`Guard` and a time limit.

    Once the time is up the alarm repeats every 50 ms until the fit has stopped: an
    ExampleTimeout raised where Python cannot propagate it (a garbage-collection
    callback, a ``__del__``) is lost, and the next one stops the fit."""
    kwargs = {"xval": 0} if method == "udt" else {}
    kwargs.update(options)
    fit = Fit(Guard())
    use_alarm = hasattr(signal, "setitimer")
    _ALARM.update(armed=use_alarm, fired=False)
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT, 0.05)
    start = time.perf_counter()
    try:
        with fit.guard, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fit.result = ubreg.fit(formula, DATA, method=method, **kwargs)
            except ExampleTimeout as exc:
                fit.stopped_at = _where_in_ubreg(exc)
            except Exception as exc:  # judged by the caller
                fit.error = exc
            finally:
                _ALARM["armed"] = False
    except ExampleTimeout:          # the alarm fired before it was disarmed
        pass
    finally:
        _ALARM["armed"] = False
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    fit.seconds = time.perf_counter() - start
    fit.timed_out = _ALARM["fired"]
    return fit


def _where_in_ubreg(exc: BaseException) -> str:
    """The innermost frame of ubreg's code in ``exc``'s traceback, as ``path:line (fn)``."""
    where, tb = "", exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if f"{os.sep}ubreg{os.sep}" in code.co_filename:
            where = (f"ubreg{code.co_filename.rsplit(f'{os.sep}ubreg', 1)[1]}:{tb.tb_lineno} "
                     f"({code.co_name})")
        tb = tb.tb_next
    return where


def _outcome(method: str, fit: Fit) -> str:
    if fit.timed_out:
        return "HANG"
    if fit.error is None:
        return f"fit {method}"
    name = type(fit.error).__name__
    if isinstance(fit.error, FormulaError):
        text = str(fit.error)
        why = ("syntax" if "cannot read" in text else
               "allowlist" if "is not allowed" in text else
               "unknown column" if "not in the data" in text else "other")
        return f"{name} ({why})"
    if isinstance(fit.error, UbregError):
        return name
    return f"UNEXPECTED {type(fit.error).__module__}.{name}"


def _short(text: str, keep: int = 300) -> str:
    return repr(text) if len(text) <= keep else \
        f"{text[:keep // 2]!r} ... {text[-keep // 2:]!r} ({len(text)} characters)"


def problems(fit: Fit, method: str, canary) -> list[tuple[str, str]]:
    """What the fit did wrong, as (kind, detail) pairs; empty when all is well."""
    guard, out = fit.guard, []
    if canary.exists():
        out.append(("canary", "created the canary file"))
    out += [("guard", f"reached {v}") for v in guard.violations]
    if guard.bad_names():
        out.append(("names", f"the interpreter resolved names outside the allowlist "
                             f"{guard.bad_names()}"))
    if guard.bad_functions():
        out.append(("functions", f"the interpreter resolved functions outside FUNCTIONS "
                                 f"{guard.bad_functions()}"))
    if guard.numpy_handed_out():
        out.append(("numpy", f"an untrusted fit was handed numpy functions "
                             f"{guard.numpy_handed_out()}"))
    if fit.timed_out:
        out.append((f"hang at {fit.stopped_at or '?'}",
                    f"ran for more than {TIME_LIMIT} s (stopped at {fit.stopped_at or '?'})"))
    elif fit.error is not None and not isinstance(fit.error, UbregError):
        kind = f"{type(fit.error).__module__}.{type(fit.error).__name__}"
        out.append((f"{kind} at {_where_in_ubreg(fit.error) or '?'}",
                    f"raised {kind}: {str(fit.error)[:300]}"))
    elif fit.error is None and method == "uls":
        coef = np.asarray(fit.result.coef, dtype=np.float64)
        if np.isinf(coef).any():
            out.append(("infinite coefficients", f"infinite coefficients {fit.result.coef}"))
    elif fit.error is None:
        p = np.asarray(fit.result.fitted_values, dtype=np.float64)
        if not np.all(np.isnan(p) | ((p >= 0) & (p <= 1))):
            out.append(("fitted values", f"fitted probabilities outside [0, 1]: {p}"))
    return out


def check_example(formula: str, method: str, canary) -> None:
    """Fit ``formula`` guarded and assert everything the module docstring promises (in
    a survey, record what went wrong instead, and go on)."""
    canary.unlink(missing_ok=True)
    text = formula.replace(CANARY, str(canary))
    fit = guarded_fit(text, method)
    outcome = _outcome(method, fit)
    OUTCOMES[outcome] += 1
    SECONDS[outcome] += fit.seconds
    if fit.guard.columns or fit.guard.functions:
        OUTCOMES["(the interpreter resolved names)"] += 1
    found = problems(fit, method, canary)
    if SURVEY:
        for kind, _ in found:
            known = FOUND.get(kind)
            if known is None or len(text) < len(known[0]):
                FOUND[kind] = (text, method)
        return
    where = f"formula {_short(text)} (method {method!r})"
    if found and found[0][0].startswith(type(fit.error).__module__ + "."):
        # the exception itself, so that hypothesis tells distinct bugs apart by where
        # they arise
        fit.error.add_note(f"{where} {found[0][1]}, not a UbregError")
        raise fit.error
    assert not found, f"{where}: " + "; ".join(detail for _, detail in found)


# --- the tests --------------------------------------------------------------------------------
WARM_UP = [
    "y ~ x", "y ~ log(x) + I(z^2) + factor(g) + h + poly(x, 2) + ns(z, df = 3) + bs(x, df = 3) + "
    "cr(x, df = 3) + cc(z, df = 3) + te(cr(x, df = 3), cc(z, df = 3)) + scale(x) + center(z) + "
    "standardize(x) + cut(x, c(0, 1, 5)) + relevel(g, ref = 'b') + C(g, contr.sum) + "
    "ifelse(h, x, z) + pmin(x, z) + offset(z) + `odd name`", "cbind(y, 1 - y) ~ x",
    "y ~ x * g", "y ~ .", "g == 'a' ~ x + I(h %in% c(TRUE))",
]


@pytest.fixture(scope="module")
def canary(tmp_path_factory):
    """Where the attacks would write: it must never exist.  The fits of the warm-up
    load every lazily imported module and compile numba's kernels first, so that the
    guarded fits of the test see only the formula's own work."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for formula in WARM_UP:
            for method in ("uls", "udt"):
                try:
                    ubreg.fit(formula, DATA, method=method, **({"xval": 0} if method == "udt"
                                                                else {}))
                except UbregError:
                    pass
    return tmp_path_factory.mktemp("formula_fuzz") / "canary"


@settings(max_examples=EXAMPLES, deadline=timedelta(milliseconds=TIME_LIMIT * 1000 + 500),
          derandomize=True, database=None, print_blob=True,
          # no explain phase: it traces every later example (sys.settrace), which slows
          # the fits past the time limit and reports a heavy example as a flaky hang
          phases=[Phase.explicit, Phase.generate, Phase.shrink])
@given(formula=formulas(), method=st.sampled_from(["uls", "uls", "uls", "udt"]))
def _fuzz(canary, formula, method):
    check_example(formula, method, canary)


@pytest.mark.slow
def test_grammar_fuzz_reaches_nothing_outside_the_allowlist(canary):
    OUTCOMES.clear()
    SECONDS.clear()
    FOUND.clear()
    try:
        _fuzz(canary)
    finally:
        total = sum(n for k, n in OUTCOMES.items() if not k.startswith("("))
        print(f"\nformula fuzz: {total} fits (examples, shrinking included), "
              f"{sum(SECONDS.values()):.1f} s in the fits")
        for outcome, count in OUTCOMES.most_common():
            print(f"  {count:6d}  {SECONDS[outcome]:7.2f} s  {outcome}")
    assert not FOUND, "the survey found:\n" + "\n".join(
        f"- {kind}: {_short(text, 200)} (method {method!r})"
        for kind, (text, method) in sorted(FOUND.items()))


ISSUE_ATTACKS = [
    "y ~ x + cbind(x) if 0 else __import__('os').system('touch CANARY')",
    "cbind(y, y) if 0 else __import__('os').system('touch CANARY') or y ~ x",
]


@pytest.mark.slow
@pytest.mark.parametrize("method", ["uls", "udt"])
@pytest.mark.parametrize("formula", ISSUE_ATTACKS)
def test_the_issue_attacks_are_refused(canary, formula, method):
    canary.unlink(missing_ok=True)
    text = formula.replace(CANARY, str(canary))
    fit = guarded_fit(text, method)
    assert isinstance(fit.error, FormulaError), (fit.result, fit.error, fit.timed_out)
    assert "cannot read" in str(fit.error)          # refused by the parser, before anything
    assert not canary.exists()
    assert not problems(fit, method, canary)
    assert not fit.guard.columns and not fit.guard.functions


def test_the_guard_sees_the_interpreter(canary):
    # the instrumentation is not vacuous: the names and functions of a formula are recorded
    fit = guarded_fit("y ~ log(x, 2) + I(z * pi) + relevel(g, ref = 'b') + "
                      "np.sqrt(`odd name` + T)")
    assert fit.error is None
    assert {"x", "z", "pi", "g", "odd name", "T"} <= set(fit.guard.columns)
    assert {"log", "I", "relevel", "np.sqrt"} <= {name for name, _ in fit.guard.functions}
    assert not problems(fit, "uls", canary)


def test_the_guard_refuses_what_a_formula_must_not_reach(canary):
    # and the guards are in place: each of these is refused and recorded, while ordinary
    # lazy imports (a module's code executed by the import system) and reads still work
    posix = sys.modules.get("posix") or os
    attempts = [
        lambda: __import__("os"),
        lambda: __import__("subprocess", {}, {}, ["Popen"]),
        lambda: eval("1"),
        lambda: exec("pass"),
        lambda: compile("1", "<formula>", "eval"),
        lambda: os.system(f"touch {canary}"),
        lambda: posix.system(f"touch {canary}"),
        lambda: os.popen(f"touch {canary}"),
        lambda: subprocess.Popen(["touch", str(canary)]),
        lambda: subprocess.run(["touch", str(canary)]),
        lambda: open(canary, "w"),
        lambda: io.open(canary, "a"),  # noqa: UP020  (io.open is guarded too)
        lambda: os.open(canary, os.O_CREAT | os.O_WRONLY),
        lambda: canary.write_text("x"),
    ]
    originals = (builtins.eval, builtins.__import__, builtins.open, os.system, os.open,
                 subprocess.Popen._execute_child, evaluate_module.Environment.column)
    sys.modules.pop("colorsys", None)
    with Guard() as guard:
        for attempt in attempts:
            with pytest.raises(Refused):
                attempt()
        import colorsys  # noqa: F401  (a lazy import: the module's code runs)
        from os import path  # noqa: F401
        with open(__file__) as fh:
            fh.read(1)
    assert len(guard.violations) == len(attempts)
    assert "colorsys" in sys.modules
    assert not canary.exists()
    assert originals == (builtins.eval, builtins.__import__, builtins.open, os.system, os.open,
                         subprocess.Popen._execute_child, evaluate_module.Environment.column)
