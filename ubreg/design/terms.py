"""Formula terms as R users write them, evaluated as Python.

patsy hands each term's code to Python.  Three things a statistician writes
would then mean something else, so a term's code is rewritten (token by token,
strings untouched) before it is checked and evaluated, while the name shown in
coefficients stays the one written:

- ``^`` inside a term is R's power: ``I(age^2)`` is ``age ** 2`` (Python would
  read an exclusive or).  Between terms, ``(a + b)^2`` keeps patsy's (and R's)
  meaning of all interactions up to order 2; patsy splits those before any term
  code is read.  Precedence is R's, which is Python's for ``**``:
  ``x^2 + 1`` is ``(x**2) + 1``, ``-x^2`` is ``-(x**2)``, ``2^3^2`` is ``2^9``.
- A column called like a formula function (``C``, ``log``, ``np``, ``I``)
  would hide the function: such calls are evaluated through a second name
  of the function (``_ubreg_fn_C``), so both the column and ``C(g)`` work.
- Python reads identifiers in Unicode normal form NFKC (``ｘ`` as ``x``): a
  column whose name is not in that form is read through ``Q("ｘ")``.
- ``&``, ``|`` and ``!`` have R's precedence, below the comparisons:
  ``I(age > 30 & mass < 40)`` and ``subset="age > 30 & mass < 40"`` mean what they
  mean in R (Python would read ``age > (30 & mass) < 40``); they act elementwise.
"""
from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
import unicodedata

from patsy import EvalFactor, ModelDesc, Term

from .namespace import ESCAPE
from .safety import CALLS_ALLOWED

__all__ = ["UFactor", "rewrite_code", "rewrite_terms", "quoted_name", "nfkc", "bang_as_not"]

_SPACED_CARET = re.compile(r"\s*\^\s*")
_STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'" r'|"(?:[^"\\]|\\.)*"')


def nfkc(name: str) -> str:
    """``name`` as Python reads an identifier (Unicode normal form NFKC)."""
    return unicodedata.normalize("NFKC", name)


def quoted_name(name: str) -> str:
    """A column name as a formula term: bare when Python reads it as written,
    else ``Q("...")``."""
    if name.isidentifier() and not keyword.iskeyword(name) and nfkc(name) == name:
        return name
    return f"Q({name!r})"


class UFactor(EvalFactor):
    """A patsy factor evaluated from rewritten code but named as written."""

    def __init__(self, code: str, display: str, origin=None):
        super().__init__(code, origin)
        self.display = display

    def name(self) -> str:
        return self.display

    def __repr__(self):
        return f"UFactor({self.code!r}, shown as {self.display!r})"


def _significant(tokens):
    return [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                tokenize.INDENT, tokenize.DEDENT,
                                                tokenize.ENDMARKER)]


_LOGICAL = {"&": " and ", "|": " or "}


def _replacement(tokens, i: int, columns: set) -> str | None:
    """The new text of token ``i``, or None to keep it."""
    tok = tokens[i]
    if tok.type == tokenize.OP and tok.string == "^":
        return "**"
    if tok.type == tokenize.OP and tok.string in _LOGICAL:
        return _LOGICAL[tok.string]
    if tok.type == tokenize.ERRORTOKEN and tok.string == "!":
        return " not "
    if tok.type != tokenize.NAME or keyword.iskeyword(tok.string):
        return None
    before = tokens[i - 1].string if i > 0 else ""
    after = tokens[i + 1].string if i + 1 < len(tokens) else ""
    if before == "." or after == "=":
        return None
    name = tok.string
    if name in columns and ((after == "(" and name in CALLS_ALLOWED)
                            or (after == "." and name == "np")):
        return ESCAPE + name
    if after != "(" and name in columns and nfkc(name) != name:
        return f"Q({name!r})"
    return None


def rewrite_code(code: str, columns) -> str:
    """The code Python should evaluate for the term ``code`` (see the module docstring)."""
    try:
        tokens = _significant(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code                      # patsy or the check reports the syntax error
    columns = _as_set(columns)
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    pieces, last = [], 0
    for i, tok in enumerate(tokens):
        new = _replacement(tokens, i, columns)
        if new is None:
            continue
        begin = starts[tok.start[0] - 1] + tok.start[1]
        end = starts[tok.end[0] - 1] + tok.end[1]
        pieces += [code[last:begin], new]
        last = end
    if not pieces:
        return _elementwise(code) if _is_logical(tokens) else code
    out = "".join(pieces) + code[last:]
    return _elementwise(out) if _is_logical(tokens) else out


def _is_logical(tokens) -> bool:
    return any(t.string in ("&", "|", "!", "and", "or", "not") for t in tokens)


def bang_as_not(text: str) -> str:
    """R's ``!`` as Python's ``not`` (``!=`` kept, strings untouched): patsy's
    tokenizer cannot read a lone ``!``."""
    if "!" not in text:
        return text
    pieces, last = [], 0
    for m in _STRING_LITERAL.finditer(text):
        pieces += [re.sub(r"!(?!=)", " not ", text[last:m.start()]), m.group()]
        last = m.end()
    return "".join(pieces) + re.sub(r"!(?!=)", " not ", text[last:])


class _Elementwise(ast.NodeTransformer):
    """``and``/``or``/``not`` (R's precedence) as the elementwise ``&``/``|``/``~``."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = ast.BitAnd() if isinstance(node.op, ast.And) else ast.BitOr()
        out = node.values[0]
        for value in node.values[1:]:
            out = ast.BinOp(left=out, op=op, right=value)
        return out

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.UnaryOp(op=ast.Invert(), operand=node.operand)
        return node


def _elementwise(code: str) -> str:
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError:
        return code                      # the check reports it
    return ast.unparse(ast.fix_missing_locations(_Elementwise().visit(tree)))


def _r_spelling(text: str) -> str:
    return re.sub(r"\bnot\s+", "!", _SPACED_CARET.sub("^", text))


def _display(code: str) -> str:
    """The name shown for a term: patsy's spacing, but R's ``x^2`` and ``!x``."""
    if "^" not in code and "not" not in code:
        return code
    pieces, last = [], 0
    for m in _STRING_LITERAL.finditer(code):
        pieces += [_r_spelling(code[last:m.start()]), m.group()]
        last = m.end()
    return "".join(pieces) + _r_spelling(code[last:])


def _factor(factor, columns):
    if not isinstance(factor, EvalFactor) or isinstance(factor, UFactor):
        return factor
    code = rewrite_code(factor.code, columns)
    shown = _display(factor.code)
    if code == factor.code and shown == factor.code:
        return factor
    return UFactor(code, shown, factor.origin)


def _as_set(columns) -> frozenset:
    return columns if isinstance(columns, frozenset) else frozenset(map(str, columns))


def rewrite_terms(desc: ModelDesc, columns) -> ModelDesc:
    """``desc`` with every factor's code rewritten for ``columns``."""
    columns = _as_set(columns)
    def terms(termlist):
        return [Term([_factor(f, columns) for f in t.factors]) for t in termlist]
    return ModelDesc(terms(desc.lhs_termlist), terms(desc.rhs_termlist))
