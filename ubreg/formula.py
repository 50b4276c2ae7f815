"""Formulas to design matrices.  The only module that knows patsy.

``build_model_frame`` turns ``(formula, data, weights)`` into arrays for a
fitter plus a :class:`Design` that rebuilds the same columns from new data.
Formulas are evaluated in a fixed namespace (numpy as ``np``, a few numpy
functions, and patsy's builtins ``C``, ``I``, ``Q``, ``center``,
``standardize``, ``scale``, ``bs``, ``cr``, ``cc``, ``te``): never the
caller's variables.  That makes a fitted design reproducible and picklable.
"""
from __future__ import annotations

import ast
import builtins
import io
import numbers
import pickle
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import patsy
from patsy import EvalEnvironment, ModelDesc, NAAction, PatsyError

from .errors import DataError, FormulaError, PredictionError, ResponseError, UbregError

__all__ = ["Design", "Response", "ModelFrame", "build_model_frame", "FORMULA_NAMESPACE",
           "PartitionedFormula", "parse_partitioned", "partition_levels", "combine_levels",
           "learn_design", "code_response_as", "build_partition_frame"]

#: names a formula may use besides the data's columns
FORMULA_NAMESPACE = {
    "np": np,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs,
}
_PATSY_BUILTINS = {}
exec("from patsy.builtins import *", {}, _PATSY_BUILTINS)


def _environment() -> EvalEnvironment:
    return EvalEnvironment([dict(FORMULA_NAMESPACE)])


# ---------------------------------------------------------------------------
# pickling patsy's DesignInfo (patsy marks its classes unpicklable)
# ---------------------------------------------------------------------------
def _restore_environment(names):
    ns = {}
    for name in names:
        if name in FORMULA_NAMESPACE:
            ns[name] = FORMULA_NAMESPACE[name]
        elif name in _PATSY_BUILTINS:
            ns[name] = _PATSY_BUILTINS[name]
        elif hasattr(builtins, name):
            ns[name] = getattr(builtins, name)
    return EvalEnvironment([ns])


def _new_patsy_object(cls):
    return cls.__new__(cls)


class _DesignPickler(pickle.Pickler):
    """Pickles patsy objects by their ``__dict__``.

    patsy refuses pickling because an EvalEnvironment may hold arbitrary
    caller frames.  Ours only ever holds :data:`FORMULA_NAMESPACE`, so an
    environment is stored as the list of names it resolves and rebuilt.
    """

    def reducer_override(self, obj):
        if isinstance(obj, EvalEnvironment):
            names = sorted({k for ns in obj._namespaces for k in ns})
            return _restore_environment, (names,)
        cls = type(obj)
        if cls.__module__.startswith("patsy.") and hasattr(obj, "__dict__") and not isinstance(obj, type):
            return _new_patsy_object, (cls,), dict(obj.__dict__)
        return NotImplemented


def _dumps_design_info(design_info) -> bytes:
    buf = io.BytesIO()
    _DesignPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(design_info)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# NA bookkeeping
# ---------------------------------------------------------------------------
class _RecordingNAAction(NAAction):
    """patsy's NA handler that remembers which rows had NA, and where."""

    def __init__(self, on_NA="drop"):
        super().__init__(on_NA="drop", NA_types=["None", "NaN"])
        self.mode = on_NA
        self.mask = None
        self.na_factors = []

    def handle_NA(self, values, is_NAs, origins):
        n = len(is_NAs[0]) if is_NAs else 0
        mask = np.zeros(n, dtype=bool)
        for is_na, origin in zip(is_NAs, origins):
            if np.any(is_na):
                name = origin.code[origin.start:origin.end] if origin is not None else "?"
                self.na_factors.append((name, int(np.sum(is_na))))
            mask |= is_na
        self.mask = mask
        if self.mode == "raise" and mask.any():
            detail = ", ".join(f"{name!r} ({k} rows)" for name, k in self.na_factors)
            raise DataError(f"missing values (NA) in {detail} and na_action='raise'")
        return super().handle_NA(values, is_NAs, origins)


# ---------------------------------------------------------------------------
# the design
# ---------------------------------------------------------------------------
class Design:
    """The right-hand side of a fitted formula: rebuilds its columns on new data.

    Wraps patsy's DesignInfo; pickles (see :class:`_DesignPickler`).
    """

    def __init__(self, design_info, formula_rhs: str, label_levels: dict | None = None):
        self.design_info = design_info
        self.formula_rhs = formula_rhs
        self.label_levels = dict(label_levels or {})

    @property
    def column_names(self) -> list[str]:
        return list(self.design_info.column_names)

    @property
    def term_names(self) -> list[str]:
        return list(self.design_info.term_names)

    @property
    def term_slices(self) -> dict[str, slice]:
        return dict(self.design_info.term_name_slices)

    @property
    def has_intercept(self) -> bool:
        return "Intercept" in self.design_info.column_names

    @property
    def factor_names(self) -> list[str]:
        return sorted({f.name() for t in self.design_info.terms for f in t.factors})

    def levels(self) -> dict[str, list]:
        """Levels of every categorical factor, as learned from training data."""
        out = {}
        for factor, info in self.design_info.factor_infos.items():
            if info.type == "categorical":
                out[factor.name()] = list(info.categories)
        return out

    def transform(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Design matrix of ``data``'s complete rows and the mask of NA rows."""
        data = _as_frame(data, "newdata")
        _check_columns(self.design_info, data, "newdata")
        _check_real(data, data.columns, "newdata")
        data = _check_numeric_columns(self.design_info, data, self.label_levels, "newdata")
        data = _as_categoricals(data, self.label_levels, "newdata")
        na = _RecordingNAAction("drop")
        try:
            (X,) = patsy.build_design_matrices([self.design_info], data, NA_action=na,
                                               return_type="matrix")
        except PatsyError as exc:
            raise _translate_patsy_error(exc, self, predicting=True) from None
        except UbregError:
            raise
        except Exception as exc:  # patsy or a transform failed on the new values
            raise PredictionError(f"newdata: cannot evaluate the formula's right-hand side "
                                  f"{self.formula_rhs!r}: {type(exc).__name__}: {exc}") from None
        mask = na.mask if na.mask is not None else np.zeros(len(data), dtype=bool)
        X = np.asarray(X, dtype=np.float64)
        _check_finite(X, self.column_names, "newdata")
        return X, mask

    def __getstate__(self):
        return {"design_info": _dumps_design_info(self.design_info),
                "formula_rhs": self.formula_rhs, "label_levels": self.label_levels}

    def __setstate__(self, state):
        self.design_info = pickle.loads(state["design_info"])
        self.formula_rhs = state["formula_rhs"]
        self.label_levels = state.get("label_levels", {})

    def __repr__(self):
        return f"Design({self.formula_rhs!r}, columns={self.column_names})"


@dataclass
class Response:
    """How the response was coded: ``y = 1`` means ``positive``."""

    name: str
    levels: list
    positive: object
    kind: str  # "numeric 0/1", "bool", "factor"

    @property
    def negative(self):
        return self.levels[0] if self.levels[1] == self.positive else self.levels[1]

    def labels(self, cls01: np.ndarray) -> np.ndarray:
        """Map 0/1 classes to the response's labels."""
        out = np.where(cls01 == 1, self.positive, self.negative)
        return out


@dataclass
class ModelFrame:
    """Everything a fitter needs, and what the result keeps about the data."""

    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    design: Design
    response: Response
    index: pd.Index
    n_input: int
    dropped: pd.Index
    na_factors: list = field(default_factory=list)

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)


def _as_frame(data, what) -> pd.DataFrame:
    if isinstance(data, dict):
        data = pd.DataFrame(data)
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"{what} must be a pandas DataFrame or a dict of columns, "
                        f"got {type(data).__name__}")
    dup = data.columns[data.columns.duplicated()]
    if len(dup):
        raise DataError(f"{what} has duplicated column names: {sorted(set(map(str, dup)))}")
    return data


def _check_real(data: pd.DataFrame, names, what="data"):
    """Complex columns would lose their imaginary part silently in the design."""
    for name in names:
        if name in data.columns and data[name].dtype.kind == "c":
            raise DataError(f"{what}: column {name!r} holds complex numbers; ubreg needs real "
                            "numbers")


def _formula_names(code: str) -> set[str]:
    """Bare names a factor's Python code uses (``Q("x")`` counts as x)."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula term {code!r}: {exc.msg}") from None
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "Q" and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(str(node.args[0].value))
    return names


#: numpy functions a formula may call as ``np.<name>``
NUMPY_ALLOWED = frozenset({
    "log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "abs", "square", "power",
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "floor",
    "ceil", "round", "clip", "minimum", "maximum", "where", "sign", "pi", "e",
})
#: callables a formula may call by bare name
CALLS_ALLOWED = frozenset(FORMULA_NAMESPACE) | frozenset(
    {"C", "I", "Q", "center", "standardize", "scale", "bs", "cr", "cc", "te", "Treatment",
     "Sum", "Helmert", "Poly", "Diff"})
_STRING_CALLS = frozenset({"Q", "C", "Treatment", "Sum", "Helmert", "Poly", "Diff"})
#: numpy functions that are not ufuncs: (most positional arguments, keywords allowed);
#: an ufunc takes exactly its ``nin`` inputs and no keyword (``out=`` and ``where=``
#: would write into or mask the data)
_NUMPY_SIGNATURES = {
    "round": (2, frozenset({"decimals"})),
    "clip": (3, frozenset({"a_min", "a_max", "min", "max"})),
    "where": (3, frozenset()),
}


def _numpy_arguments_refusal(name: str, node: ast.Call) -> str | None:
    """Why the call ``node`` of numpy function ``name`` is refused, or None."""
    func = getattr(np, name, None)
    label = f"np.{name}" if isinstance(node.func, ast.Attribute) else name
    if isinstance(func, np.ufunc):
        most, keywords = func.nin, frozenset()
    elif name in _NUMPY_SIGNATURES:
        most, keywords = _NUMPY_SIGNATURES[name]
    else:
        return f"{label} is not a function"
    if len(node.args) > most:
        hint = "" if name == "where" else " (a further argument would be numpy's out=)"
        return (f"{label} takes at most {most} positional argument(s) here, got "
                f"{len(node.args)}{hint}")
    for kw in node.keywords:
        if kw.arg not in keywords:
            allowed = f" (allowed: {', '.join(sorted(keywords))})" if keywords else ""
            return f"keyword argument {kw.arg}= of {label}{allowed}"
    return None
_NODES_ALLOWED = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare,
    ast.BoolOp, ast.Call, ast.keyword, ast.Attribute, ast.Tuple, ast.List,
    ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
)


def check_formula_code(code: str, columns) -> None:
    """Refuse a formula term that is not plain arithmetic on columns.

    patsy evaluates formula terms as Python, so ``I(__import__('os')...)``
    would run.  Allowed: column names, ``Q("odd name")``, numbers,
    arithmetic and comparisons, calls of :data:`CALLS_ALLOWED`, and
    ``np.<f>`` for f in :data:`NUMPY_ALLOWED`; strings only inside ``Q``,
    ``C`` and contrast calls.  A numpy ufunc (``log``, ``np.exp``, ...) takes
    exactly its inputs: no ``out=``/``where=`` or other keyword, no extra
    positional argument (which numpy reads as ``out``).  Everything else
    raises :class:`FormulaError` before any evaluation.
    """
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot parse formula term {code!r}: {exc.msg}") from None
    columns = set(map(str, columns))

    def refuse(why):
        raise FormulaError(f"formula term {code!r} is not allowed: {why} "
                           "(pass trusted=True to evaluate arbitrary Python)")

    def visit(node, in_string_call=False):
        if not isinstance(node, _NODES_ALLOWED):
            refuse(f"{type(node).__name__} expressions are not permitted")
        if isinstance(node, ast.Name):
            if node.id.startswith("__"):
                refuse(f"name {node.id!r}")
            if node.id not in columns and node.id not in CALLS_ALLOWED and node.id != "np":
                refuse(f"unknown name {node.id!r}")
        elif isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "np"
                    and node.attr in NUMPY_ALLOWED):
                refuse(f"attribute access {ast.unparse(node)!r} (only np.<function> is allowed)")
            return
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and not in_string_call:
                refuse("string constants are allowed only inside Q(), C() and contrasts")
            if not isinstance(node.value, (int, float, str, bool, type(None))):
                refuse(f"constant {node.value!r}")
        elif isinstance(node, ast.Call):
            func = node.func
            numpy_name = None
            if isinstance(func, ast.Name):
                if func.id not in CALLS_ALLOWED or func.id == "np":
                    refuse(f"call of {func.id!r}")
                in_string_call = in_string_call or func.id in _STRING_CALLS
                if func.id in FORMULA_NAMESPACE:   # log, exp, ...: numpy ufuncs
                    numpy_name = FORMULA_NAMESPACE[func.id].__name__
            elif isinstance(func, ast.Attribute):
                visit(func)
                numpy_name = func.attr
            else:
                refuse("calls must name a function")
            if numpy_name is not None:
                why = _numpy_arguments_refusal(numpy_name, node)
                if why:
                    refuse(why)
            for arg in node.args:
                visit(arg, in_string_call)
            for kw in node.keywords:
                if kw.arg is None or kw.arg.startswith("__"):
                    refuse("keyword unpacking")
                visit(kw.value, in_string_call)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, in_string_call)

    visit(tree)


def _known_names() -> set[str]:
    return set(FORMULA_NAMESPACE) | set(_PATSY_BUILTINS) | set(dir(builtins))


def _check_columns(design_info, data, what):
    missing = []
    for factor in design_info.factor_infos:
        for name in _formula_names(factor.name()):
            if name not in data.columns and name not in _known_names():
                missing.append(name)
    if missing:
        raise PredictionError(f"{what} lacks column(s) {sorted(set(missing))} used by the model")


def _check_numeric_columns(design_info, data: pd.DataFrame, label_levels: dict,
                           what: str) -> pd.DataFrame:
    """A column the model reads as a number must hold numbers in ``data``.

    patsy would fail on a string in a numeric factor with an unrelated error
    (an AttributeError inside its own message); name the column instead.  A
    column of another dtype that holds only numbers (object dtype, e.g.) is
    returned as float64.  Columns coded as labels in fitting
    (``label_levels``) are checked against their levels elsewhere.
    """
    converted = {}
    for factor, info in design_info.factor_infos.items():
        if info.type != "numerical":
            continue
        for name in sorted(_formula_names(factor.name())):
            if name in label_levels or name not in data.columns:
                continue
            col = data[name]
            if col.dtype.kind in "iufb":
                continue
            values = col.dropna()
            bad = [v for v in values.tolist() if not isinstance(v, numbers.Real)]
            if bad:
                raise PredictionError(
                    f"{what}: column {name!r} holds non-numeric values (e.g. {bad[0]!r}; "
                    f"dtype {col.dtype}) but the model uses it as a number in "
                    f"{factor.name()!r}")
            converted[name] = pd.to_numeric(col, errors="coerce").astype(np.float64)
    return data.assign(**converted) if converted else data


def _check_finite(X, names, what):
    bad = ~np.isfinite(X)
    if bad.any():
        cols = [names[j] for j in np.flatnonzero(bad.any(axis=0))]
        raise DataError(f"{what}: infinite values in design column(s) {cols} "
                        f"({int(bad.any(axis=1).sum())} rows)")


def _is_label_column(col: pd.Series) -> bool:
    return (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)
            or pd.api.types.is_bool_dtype(col)) and not isinstance(col.dtype, pd.CategoricalDtype)


def _label_levels(data: pd.DataFrame, names) -> dict[str, list]:
    """Sorted levels of the string/bool columns a formula uses.

    patsy codes such columns value by value in Python; handing it a pandas
    Categorical with the same (sorted) levels lets it use the codes directly,
    which is what makes the design fast at 1e6 rows.
    """
    out = {}
    for name in names:
        if name in data.columns and _is_label_column(data[name]):
            values = data[name].dropna().unique()
            if len(values) == 0:
                raise DataError(f"column {name!r} has only missing values ({len(data)} rows)")
            try:
                out[name] = sorted(values.tolist())
            except TypeError:  # mixed types: leave the column to patsy
                continue
    return out


def _as_categoricals(data: pd.DataFrame, levels: dict[str, list], what: str) -> pd.DataFrame:
    """A new frame whose label columns are Categoricals with the given levels."""
    if not levels:
        return data
    converted = {}
    for name, lv in levels.items():
        if name not in data.columns:
            continue
        col = data[name]
        new = ~np.asarray(col.isin(lv) | col.isna(), dtype=bool)
        if new.any():
            unseen = pd.unique(np.asarray(col)[new])[:5].tolist()
            raise PredictionError(f"{what}: factor {name!r} has new level(s) {unseen} not seen "
                                  f"in fitting (levels: {lv})")
        converted[name] = pd.Categorical(col, categories=lv)
    return data.assign(**converted)


_LEVEL_RE = re.compile(r"observation with value (.+?) does not match any of the expected levels")


def _translate_patsy_error(exc: PatsyError, design: Design | None, predicting: bool) -> Exception:
    msg = str(exc).split("\n")[0]
    code = None
    if exc.origin is not None:
        code = exc.origin.code[exc.origin.start:exc.origin.end]
    m = _LEVEL_RE.search(msg)
    if m:
        level = m.group(1)
        known = ""
        if design is not None and code is not None:
            for name, levels in design.levels().items():
                if code in name or name in code:
                    known = f"; levels seen in fitting: {levels}"
                    break
        return PredictionError(f"factor {code!r} has a new level {level} not seen in fitting{known}")
    where = f" in {code!r}" if code else ""
    cls = PredictionError if predicting else FormulaError
    return cls(f"cannot evaluate the formula{where}: {msg}")


_DOT = re.compile(r"(?<![\w.\]])\.(?![\w.(])")
_STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'" r'|"(?:[^"\\]|\\.)*"')


def _outside_strings(text: str):
    """(start, end) spans of ``text`` that are not inside a string literal."""
    pos = 0
    for m in _STRING_LITERAL.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


def _sub_dot(rhs: str, replacement: str) -> tuple[str, int]:
    """Replace every ``.`` term of ``rhs`` outside string literals
    (``Q('a.b')``, ``Treatment('.')`` keep their dots)."""
    pieces, count, last = [], 0, 0
    for start, end in _outside_strings(rhs):
        pieces.append(rhs[last:start])
        new, k = _DOT.subn(lambda _: replacement, rhs[start:end])
        pieces.append(new)
        count += k
        last = end
    pieces.append(rhs[last:])
    return "".join(pieces), count


def expand_dot(formula: str, columns) -> str:
    """Replace a ``.`` term on the right of ``~`` by every other column (R's ``y ~ .``).

    Columns used on the left are left out; names that are not Python
    identifiers are quoted with ``Q("...")``.
    """
    if not isinstance(formula, str) or "~" not in formula:
        return formula
    lhs, rhs = formula.split("~", 1)
    if _sub_dot(rhs, "")[1] == 0:
        return formula
    used = _formula_names(lhs) if lhs.strip() else set()
    others = [c for c in map(str, columns) if c not in used]
    terms = " + ".join(c if c.isidentifier() else f"Q({c!r})" for c in others)
    return f"{lhs}~{_sub_dot(rhs, f'({terms})')[0]}"


def _parse(formula: str) -> ModelDesc:
    if not isinstance(formula, str):
        raise FormulaError(f"formula must be a string like 'y ~ x1 + x2', got {type(formula).__name__}")
    if "~" not in formula:
        raise FormulaError(f"formula {formula!r} has no '~': write it as 'response ~ terms'")
    try:
        return ModelDesc.from_formula(formula)
    except PatsyError as exc:
        raise FormulaError(f"cannot parse formula {formula!r}: {str(exc).splitlines()[0]}") from None


def _check_formula_names(desc: ModelDesc, data: pd.DataFrame, formula: str,
                         trusted: bool = False):
    known = _known_names()
    missing = set()
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        for factor in term.factors:
            for name in _formula_names(factor.code):
                if name not in data.columns and name not in known:
                    missing.add(name)
    if missing:
        cols = list(map(str, data.columns))
        shown = cols if len(cols) <= 20 else cols[:20] + ["..."]
        raise FormulaError(f"formula {formula!r} names column(s) {sorted(missing)} that are not in "
                           f"the data (columns: {shown})")
    if not trusted:
        for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
            for factor in term.factors:
                check_formula_code(factor.code, data.columns)


def _response_values(desc: ModelDesc, data: pd.DataFrame, formula: str):
    if len(desc.lhs_termlist) != 1 or len(desc.lhs_termlist[0].factors) != 1:
        raise FormulaError(f"formula {formula!r} needs exactly one response on the left of '~'")
    code = desc.lhs_termlist[0].factors[0].code
    if code in data.columns:
        return code, data[code]
    try:
        value = _environment().with_outer_namespace(_PATSY_BUILTINS).eval(code, inner_namespace=data)
    except Exception as exc:  # the user's expression: report whatever it raised
        raise FormulaError(f"cannot evaluate the response {code!r}: {exc}") from None
    return code, pd.Series(np.asarray(value), index=data.index) if np.ndim(value) == 1 else value


def _is_na(values: pd.Series) -> np.ndarray:
    return np.asarray(pd.isna(values), dtype=bool)


def _infinite(values) -> np.ndarray:
    """Mask of ±inf entries of a 1-D column (numeric, or object holding floats)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        return np.zeros(len(arr), dtype=bool)
    if arr.dtype.kind == "f":
        return np.isinf(arr)
    if arr.dtype.kind == "O":
        return np.fromiter((isinstance(v, (float, np.floating)) and bool(np.isinf(v))
                            for v in arr), dtype=bool, count=len(arr))
    return np.zeros(len(arr), dtype=bool)


def check_response_finite(values, name: str) -> None:
    """Refuse ±inf in the response: not a class label, for binary and multiclass
    responses alike (it would otherwise be counted as a class of its own)."""
    bad = _infinite(values)
    if not bad.any():
        return
    rows = (list(values.index[bad]) if isinstance(values, pd.Series)
            else np.flatnonzero(bad).tolist())
    shown = rows[:10] + (["..."] if len(rows) > 10 else [])
    signs = sorted({"+inf" if v > 0 else "-inf" for v in np.asarray(values)[bad].astype(float)})
    raise ResponseError(f"response {name!r} has infinite values ({', '.join(signs)}) in "
                        f"{int(bad.sum())} row(s) {shown}; a class label must be finite "
                        "(use NaN for a missing label)")


def code_response(values: pd.Series, name: str, positive=None) -> tuple[np.ndarray, Response]:
    """Code a binary response as 0/1; NA rows give NaN.

    The positive class (y = 1) is the second level in sorted order, as in R,
    unless ``positive`` names it.  A pandas Categorical keeps its own level
    order, as an R factor does.
    """
    check_response_finite(values, name)
    na = _is_na(values)
    present = values[~na]
    if isinstance(values.dtype, pd.CategoricalDtype):
        observed = set(present.unique())
        levels = [c for c in values.cat.categories if c in observed]
        kind = "factor"
    else:
        arr = np.asarray(present)
        if arr.dtype.kind == "b":
            levels, kind = [False, True], "bool"
        elif arr.dtype.kind in "iuf":
            levels = sorted(set(arr.tolist()))
            kind = "numeric 0/1" if set(levels) <= {0, 1} else "numeric"
            if set(levels) <= {0, 1}:
                levels = [0, 1]
        elif arr.dtype.kind == "c":
            raise ResponseError(f"response {name!r} is complex; it must be binary")
        else:
            try:
                levels = sorted(set(arr.tolist()))
            except TypeError:
                raise ResponseError(f"response {name!r} mixes types that cannot be ordered") from None
            kind = "factor"
    if kind != "bool" and len(levels) != 2:
        shown = levels[:10] + (["..."] if len(levels) > 10 else [])
        raise ResponseError(f"response {name!r} has {len(levels)} distinct value(s) {shown} "
                            f"among {len(present)} non-missing rows; a binary response needs exactly 2")
    if positive is None:
        positive = levels[1]
    elif positive not in levels:
        raise ResponseError(f"positive={positive!r} is not a level of {name!r} (levels: {levels})")
    y = np.full(len(values), np.nan)
    y[~na] = (np.asarray(present) == positive).astype(np.float64)
    observed = y[~na]
    if observed.size == 0 or observed.min() == observed.max():
        raise ResponseError(f"response {name!r} has only one class among the {observed.size} "
                            f"rows used")
    return y, Response(name=name, levels=list(levels), positive=positive, kind=kind)


def _check_weighted_classes(y: np.ndarray, w: np.ndarray, name: str) -> None:
    """A row of weight 0 counts as a removed row: refuse a fit whose rows of
    positive weight hold one class only, as :func:`code_response` refuses it
    when the rows are removed (the optimum would be at infinity)."""
    present = y[w > 0]
    if present.size and np.unique(present).size < 2 and np.unique(y).size >= 2:
        raise ResponseError(f"response {name!r} has only one class among the {present.size} "
                            f"rows of positive weight ({int((w == 0).sum())} rows have weight 0)")


def _finite_nonnegative_weights(w: np.ndarray) -> np.ndarray:
    """float64 weights, or a DataError naming the NaN, infinite or negative ones."""
    if w.dtype.kind not in "iufb":
        raise DataError(f"weights must be numeric, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if np.isnan(w).any():
        raise DataError(f"weights contain {int(np.isnan(w).sum())} NaN value(s)")
    if not np.isfinite(w).all():
        raise DataError(f"weights contain {int(np.isinf(w).sum())} infinite value(s)")
    if (w < 0).any():
        raise DataError(f"weights contain {int((w < 0).sum())} negative value(s)")
    return w


def check_weights(weights, data: pd.DataFrame) -> np.ndarray | None:
    """Frequency weights: a column name or an array with one value per row."""
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in data.columns:
            raise DataError(f"weights column {weights!r} is not in the data")
        weights = data[weights]
    w = np.asarray(weights)
    if w.ndim != 1 or len(w) != len(data):
        raise DataError(f"weights has {w.size} values but the data have {len(data)} rows")
    w = _finite_nonnegative_weights(w)
    if w.sum() <= 0:
        raise DataError("weights are all zero")
    return w


def code_response_multiclass(values: pd.Series, name: str) -> tuple[np.ndarray, Response]:
    """Code a response with two or more classes as 0..C−1 (NaN for NA).

    Levels are sorted (a pandas Categorical keeps its own order).
    """
    check_response_finite(values, name)
    na = _is_na(values)
    present = values[~na]
    if isinstance(values.dtype, pd.CategoricalDtype):
        observed = set(present.unique())
        levels = [c for c in values.cat.categories if c in observed]
    else:
        try:
            levels = sorted(set(np.asarray(present).tolist()))
        except TypeError:
            raise ResponseError(f"response {name!r} mixes types that cannot be ordered") from None
    if len(levels) < 2:
        raise ResponseError(f"response {name!r} has {len(levels)} class(es) among "
                            f"{len(present)} non-missing rows; classification needs at least 2")
    lookup = {v: k for k, v in enumerate(levels)}
    y = np.full(len(values), np.nan)
    y[~na] = [lookup[v] for v in np.asarray(present).tolist()]
    return y, Response(name=name, levels=list(levels), positive=None, kind="multiclass")


@dataclass
class _Parsed:
    """What both frame builders learn before touching the predictors."""

    formula: str
    desc: ModelDesc
    weights: np.ndarray | None
    response_name: str
    response_values: object
    response_na: np.ndarray


def _prepare(formula, data, weights, na_action, trusted) -> tuple[pd.DataFrame, _Parsed]:
    """Validate the data and formula; evaluate the response and weights."""
    data = _as_frame(data, "data")
    if na_action not in ("drop", "raise"):
        raise ValueError(f"na_action must be 'drop' or 'raise', got {na_action!r}")
    if len(data) == 0:
        raise DataError("data has 0 rows")
    formula = expand_dot(formula, data.columns)
    desc = _parse(formula)
    _check_formula_names(desc, data, formula, trusted)
    w_full = check_weights(weights, data)
    name, yvals = _response_values(desc, data, formula)
    check_response_finite(yvals, name)
    y_na = _is_na(yvals)
    if y_na.any() and na_action == "raise":
        raise DataError(f"missing values (NA) in response {name!r} ({int(y_na.sum())} rows) "
                        f"and na_action='raise'")
    return data, _Parsed(formula, desc, w_full, name, yvals, y_na)


def build_model_frame(formula: str, data, weights=None, na_action: str = "drop",
                      positive=None, response: str = "binary", trusted: bool = False) -> ModelFrame:
    """Evaluate ``formula`` on ``data``: design matrix, 0/1 response, weights.

    Rows with NA in the response or in any variable the formula uses are
    dropped (``na_action="drop"``, counted in ``n_dropped``) or refused
    (``na_action="raise"``).  Never modifies ``data``.  Formula terms must pass
    :func:`check_formula_code` unless ``trusted=True``.  ``response="multiclass"``
    codes a response with two or more classes as 0..C−1 instead of 0/1.
    A ``.`` on the right of ``~`` stands for every other column.
    """
    data, parsed = _prepare(formula, data, weights, na_action, trusted)
    formula, desc, w_full = parsed.formula, parsed.desc, parsed.weights
    name, yvals, y_na = parsed.response_name, parsed.response_values, parsed.response_na
    rhs = ModelDesc([], desc.rhs_termlist)
    frame = data if not y_na.any() else data.loc[~y_na]
    used = set().union(*[_formula_names(f.code) for t in desc.rhs_termlist for f in t.factors])
    _check_real(frame, used)
    label_levels = _label_levels(frame, sorted(used))
    frame = _as_categoricals(frame, label_levels, "data")
    na = _RecordingNAAction(na_action)
    try:
        X = patsy.dmatrix(rhs, frame, eval_env=_environment(), NA_action=na, return_type="matrix")
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except DataError:
        raise
    except Exception as exc:  # anything else patsy or a user transform raised
        raise FormulaError(f"cannot build the design of {formula!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    design = Design(X.design_info, rhs.describe(), label_levels)
    X = np.asarray(X, dtype=np.float64)
    if X.shape[1] == 0:
        raise FormulaError(f"formula {formula!r} has no terms on the right-hand side")
    rhs_na = na.mask if na.mask is not None else np.zeros(len(frame), dtype=bool)
    keep = ~y_na
    keep[np.flatnonzero(keep)[rhs_na]] = False
    index = data.index[keep]
    if len(index) == 0:
        raise DataError(f"no rows left after removing missing values: all {len(data)} rows have "
                        f"NA in a variable of the formula")
    _check_finite(X, design.column_names, "data")
    yk = yvals[keep] if isinstance(yvals, pd.Series) else yvals[keep]
    if response == "multiclass":
        y, response_info = code_response_multiclass(pd.Series(yk), name)
    else:
        y, response_info = code_response(yk, name, positive)
    w = np.ones(len(y)) if w_full is None else w_full[keep]
    if w.sum() <= 0:
        raise DataError("weights are all zero on the rows left after removing missing values")
    _check_weighted_classes(y, w, name)
    na_factors = list(na.na_factors)
    if y_na.any():
        na_factors.insert(0, (name, int(y_na.sum())))
    return ModelFrame(X=X, y=y, weights=w, design=design, response=response_info, index=index,
                      n_input=len(data), dropped=data.index[~keep], na_factors=na_factors)


# ---------------------------------------------------------------------------
# raw predictor columns, for methods that split on variables (trees)
# ---------------------------------------------------------------------------
@dataclass
class RawColumn:
    """One predictor as a tree sees it: numeric values or categorical codes.

    ``values`` is float64 with NaN for missing (numeric) or int64 codes
    0..L−1 with −1 for missing (categorical, ``levels`` names the codes).
    """

    name: str
    kind: str  # "numeric" or "categorical"
    values: np.ndarray
    levels: list | None = None


class RawDesign:
    """Rebuilds a formula's predictors as raw columns, one per term.

    Every right-hand term must be a single factor (``x``, ``np.log(x)``,
    ``C(g)``); interactions have no meaning for a tree and are refused.
    Categorical factors keep their levels (no dummy coding), numeric factors
    their values; NA stays NA (the method decides what to do with it).
    """

    def __init__(self, design_info, formula_rhs: str, label_levels: dict, term_order: list):
        self.design_info = design_info
        self.formula_rhs = formula_rhs
        self.label_levels = dict(label_levels)
        # patsy reorders terms (categorical first); ties between splits are
        # broken by the formula's order, so keep it
        self.term_order = list(term_order)

    @property
    def names(self) -> list[str]:
        return list(self.term_order)

    def _terms(self):
        by_name = {t.name(): t for t in self.design_info.terms if t.factors}
        return [by_name[n] for n in self.term_order]

    def columns(self, data, what="data") -> list[RawColumn]:
        data = _as_frame(data, what)
        predicting = what != "data"
        _check_columns(self.design_info, data, what)
        if predicting:
            data = _check_numeric_columns(self.design_info, data, self.label_levels, what)
        data = _as_categoricals(data, self.label_levels, what)
        error = PredictionError if predicting else FormulaError
        out = []
        for term in self._terms():
            factor = term.factors[0]
            info = self.design_info.factor_infos[factor]
            try:
                values = factor.eval(info.state, data)
            except PatsyError as exc:
                raise _translate_patsy_error(exc, None, predicting=predicting) from None
            except Exception as exc:  # the user's expression raised
                raise error(f"{what}: cannot evaluate {factor.name()!r}: {exc}") from None
            if info.type == "categorical":
                na = NAAction(NA_types=["None", "NaN"])
                try:
                    codes = patsy.categorical.categorical_to_int(values, info.categories, na)
                except PatsyError as exc:
                    raise _translate_patsy_error(exc, None, predicting=True) from None
                out.append(RawColumn(term.name(), "categorical", np.asarray(codes, np.int64),
                                     list(info.categories)))
                continue
            try:
                arr = np.asarray(values, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise error(f"{what}: {factor.name()!r} is not numeric: {exc}") from None
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr[:, 0]
            if arr.ndim == 1:
                out.append(RawColumn(term.name(), "numeric", arr))
            else:
                out += [RawColumn(f"{term.name()}[{j}]", "numeric", arr[:, j])
                        for j in range(arr.shape[1])]
        for col in out:
            if col.kind == "numeric" and np.isinf(col.values).any():
                raise DataError(f"{what}: infinite values in {col.name!r} "
                                f"({int(np.isinf(col.values).sum())} rows)")
        return out

    def __getstate__(self):
        return {"design_info": _dumps_design_info(self.design_info),
                "formula_rhs": self.formula_rhs, "label_levels": self.label_levels,
                "term_order": self.term_order}

    def __setstate__(self, state):
        self.design_info = pickle.loads(state["design_info"])
        self.formula_rhs = state["formula_rhs"]
        self.label_levels = state["label_levels"]
        self.term_order = state["term_order"]


@dataclass
class RawFrame:
    """Raw predictor columns, 0/1 response and weights of the rows used."""

    columns: list
    y: np.ndarray
    weights: np.ndarray
    design: RawDesign
    response: Response
    index: pd.Index
    n_input: int
    dropped: pd.Index
    na_counts: dict

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)


def build_raw_frame(formula: str, data, weights=None, na_action: str = "drop",
                    positive=None, trusted: bool = False) -> RawFrame:
    """Like :func:`build_model_frame`, but predictors stay raw columns.

    Rows with NA in the response are dropped (counted).  NA in predictors is
    kept for the method to handle, or refused with ``na_action="raise"``.
    """
    data, parsed = _prepare(formula, data, weights, na_action, trusted)
    formula, desc, w_full = parsed.formula, parsed.desc, parsed.weights
    name, yvals, y_na = parsed.response_name, parsed.response_values, parsed.response_na
    for term in desc.rhs_termlist:
        if len(term.factors) > 1:
            raise FormulaError(f"term {term.name()!r}: interactions are not supported by this "
                               "method (a tree finds interactions itself)")
    frame = data if not y_na.any() else data.loc[~y_na]
    if len(frame) == 0:
        raise DataError(f"no rows left: the response {name!r} is NA in all {len(data)} rows")
    used = set().union(*[_formula_names(f.code) for t in desc.rhs_termlist for f in t.factors])
    _check_real(frame, used)
    label_levels = _label_levels(frame, sorted(used))
    frame_c = _as_categoricals(frame, label_levels, "data")
    rhs = [t for t in desc.rhs_termlist]
    try:
        (info,) = patsy.design_matrix_builders([rhs], lambda: iter([frame_c]), _environment(),
                                               NA_action=NAAction(NA_types=["None", "NaN"]))
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    order = list(dict.fromkeys(t.name() for t in rhs if t.factors))
    design = RawDesign(info, ModelDesc([], rhs).describe(), label_levels, order)
    if not design.names:
        raise FormulaError(f"formula {formula!r} has no predictors on the right-hand side")
    columns = design.columns(frame)
    na_counts = {}
    for col in columns:
        k = int(np.sum(col.values < 0) if col.kind == "categorical" else np.isnan(col.values).sum())
        if k:
            na_counts[col.name] = k
    if na_counts and na_action == "raise":
        detail = ", ".join(f"{n!r} ({k} rows)" for n, k in na_counts.items())
        raise DataError(f"missing values (NA) in {detail} and na_action='raise'")
    keep = ~y_na
    y, response = code_response(yvals[keep], name, positive)
    w = np.ones(len(y)) if w_full is None else w_full[keep]
    if w.sum() <= 0:
        raise DataError("weights are all zero on the rows used")
    _check_weighted_classes(y, w, name)
    return RawFrame(columns=columns, y=y, weights=w, design=design, response=response,
                    index=data.index[keep], n_input=len(data), dropped=data.index[~keep],
                    na_counts=na_counts)


# ---------------------------------------------------------------------------
# partitioned data (ubreg.dask): one design learned before fitting, then
# applied partition by partition.  The dask side never sees patsy.
# ---------------------------------------------------------------------------
@dataclass
class PartitionedFormula:
    """A checked formula for data that arrive in partitions.

    ``meta`` is an empty frame with the data's columns and dtypes (a dask
    frame's ``_meta``); ``used`` are the columns the right-hand side reads and
    ``label_columns`` those of them coded as labels (strings, bools), whose
    levels must come from a full pass over the data.
    """

    formula: str
    desc: ModelDesc
    response_name: str
    used: list
    label_columns: list
    response_columns: list = field(default_factory=list)

    def columns(self, available, weights=None) -> list:
        """The columns of ``available`` the model reads (response, right-hand
        side, weights), in ``available``'s order: what a reader must load."""
        needed = set(self.used) | set(self.response_columns) | ({weights} if weights else set())
        return [c for c in available if c in needed]

    @property
    def rhs(self) -> ModelDesc:
        return ModelDesc([], self.desc.rhs_termlist)

    # patsy refuses to pickle a ModelDesc; partitions are built in other
    # processes, so the formula travels as text and is parsed again there
    def __getstate__(self):
        state = dict(self.__dict__)
        del state["desc"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.desc = _parse(state["formula"])


def parse_partitioned(formula: str, meta: pd.DataFrame, trusted: bool = False) -> PartitionedFormula:
    """Check ``formula`` against the columns of ``meta`` (no rows needed).

    The same checks as :func:`build_model_frame`: ``.`` expansion, parsing,
    unknown names, and the allowlist of :func:`check_formula_code` unless
    ``trusted``.
    """
    meta = _as_frame(meta, "data")
    formula = expand_dot(formula, meta.columns)
    desc = _parse(formula)
    _check_formula_names(desc, meta, formula, trusted)
    if len(desc.lhs_termlist) != 1 or len(desc.lhs_termlist[0].factors) != 1:
        raise FormulaError(f"formula {formula!r} needs exactly one response on the left of '~'")
    used = sorted(set().union(*[_formula_names(f.code) for t in desc.rhs_termlist
                                for f in t.factors]))
    _check_real(meta, used)
    labels = [n for n in used if n in meta.columns and _is_label_column(meta[n])]
    code = desc.lhs_termlist[0].factors[0].code
    response_columns = [code] if code in meta.columns else sorted(
        n for n in _formula_names(code) if n in meta.columns)
    return PartitionedFormula(formula, desc, code, used, labels, response_columns)


def partition_levels(parsed: PartitionedFormula, frame: pd.DataFrame) -> dict:
    """What one partition contributes to the levels: the distinct response
    values and, among rows whose response is not NA, the distinct values of
    every label column (as :func:`build_model_frame` learns them)."""
    _, yvals = _response_values(parsed.desc, frame, parsed.formula)
    y_na = _is_na(yvals)
    values = pd.Series(yvals)[~y_na] if not isinstance(yvals, pd.Series) else yvals[~y_na]
    kept = frame if not y_na.any() else frame.loc[~y_na]
    levels = {n: set(kept[n].dropna().unique().tolist()) for n in parsed.label_columns}
    return {"response": values.drop_duplicates(), "levels": levels,
            "response_na": int(y_na.sum()), "rows": len(frame)}


def combine_levels(parsed: PartitionedFormula, pieces: list, positive=None) -> tuple[dict, Response]:
    """Label levels and response coding from every partition's
    :func:`partition_levels` (sorted levels, the positive class as in R)."""
    label_levels = {}
    for name in parsed.label_columns:
        values = set().union(*[p["levels"][name] for p in pieces])
        if not values:
            raise DataError(f"column {name!r} has only missing values")
        try:
            label_levels[name] = sorted(values)
        except TypeError:  # mixed types: leave the column to patsy, as in memory
            continue
    response_values = pd.concat([p["response"] for p in pieces]).drop_duplicates()
    if len(response_values) == 0:
        raise ResponseError(f"response {parsed.response_name!r} is NA in every row")
    _, response = code_response(response_values.reset_index(drop=True),
                                parsed.response_name, positive)
    return label_levels, response


def learn_design(parsed: PartitionedFormula, frames, label_levels: dict) -> Design:
    """The right-hand side's :class:`Design`, learned over partitions.

    ``frames`` is a callable returning a fresh iterator of pandas frames (the
    partitions, in order).  patsy's incremental builder reads only as many
    partitions as it needs: one for the column types when every label column
    has known levels, every partition for the moments of stateful transforms
    (``center``, ``standardize``) and for the levels of ``C(x)`` on numbers.
    Rows with NA in the response are left out, as in :func:`build_model_frame`.
    """
    def prepared():
        for frame in frames():
            _, yvals = _response_values(parsed.desc, frame, parsed.formula)
            y_na = _is_na(yvals)
            kept = frame if not y_na.any() else frame.loc[~y_na]
            yield _as_categoricals(kept, label_levels, "data")

    try:
        (info,) = patsy.design_matrix_builders([parsed.desc.rhs_termlist], prepared,
                                               _environment(),
                                               NA_action=NAAction(NA_types=["None", "NaN"]))
    except PatsyError as exc:
        raise _translate_patsy_error(exc, None, predicting=False) from None
    except (DataError, PredictionError):
        raise
    except Exception as exc:  # anything else patsy or a user transform raised
        raise FormulaError(f"cannot build the design of {parsed.formula!r}: "
                           f"{type(exc).__name__}: {exc}") from None
    if len(info.column_names) == 0:
        raise FormulaError(f"formula {parsed.formula!r} has no terms on the right-hand side")
    return Design(info, parsed.rhs.describe(), label_levels)


def code_response_as(values, response: Response) -> np.ndarray:
    """0/1 coding of a partition's response with a coding learned on all
    the data (:func:`combine_levels`); NaN for NA."""
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    na = _is_na(values)
    y = np.full(len(values), np.nan)
    y[~na] = (np.asarray(values[~na]) == response.positive).astype(np.float64)
    return y


def build_partition_frame(parsed: PartitionedFormula, design: Design, response: Response,
                          frame: pd.DataFrame, weights=None, na_action: str = "drop") -> dict:
    """One partition's arrays, as :func:`build_model_frame` makes them.

    Returns a dict: ``X``, ``y``, ``w`` (complete rows), ``index`` (their
    labels), ``n_input``, ``n_dropped`` and ``na_counts`` (name → rows, the
    response first, in the order of :attr:`ModelFrame.na_factors`).
    ``weights`` is ``None`` or the name of a column.
    """
    _, yvals = _response_values(parsed.desc, frame, parsed.formula)
    y_na = _is_na(yvals)
    if y_na.any() and na_action == "raise":
        raise DataError(f"missing values (NA) in response {parsed.response_name!r} "
                        f"({int(y_na.sum())} rows) and na_action='raise'")
    kept = frame if not y_na.any() else frame.loc[~y_na]
    kept = _as_categoricals(kept, design.label_levels, "data")
    na = _RecordingNAAction(na_action)
    try:
        (X,) = patsy.build_design_matrices([design.design_info], kept, NA_action=na,
                                           return_type="matrix")
    except PatsyError as exc:
        raise _translate_patsy_error(exc, design, predicting=False) from None
    X = np.asarray(X, dtype=np.float64)
    _check_finite(X, design.column_names, "data")
    rhs_na = na.mask if na.mask is not None else np.zeros(len(kept), dtype=bool)
    keep = ~y_na
    keep[np.flatnonzero(keep)[rhs_na]] = False
    yk = yvals[keep] if isinstance(yvals, pd.Series) else np.asarray(yvals)[keep]
    y = code_response_as(yk, response)
    if weights is None:
        w = np.ones(len(y))
    else:
        w = _finite_nonnegative_weights(np.asarray(frame[weights]))[keep]
    counts = {}
    if y_na.any():
        counts[parsed.response_name] = int(y_na.sum())
    for name, k in na.na_factors:
        counts[name] = counts.get(name, 0) + k
    return {"X": X, "y": y, "w": w, "index": frame.index[keep], "n_input": len(frame),
            "n_dropped": int((~keep).sum()), "na_counts": counts}
