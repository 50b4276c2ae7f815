"""R's expression syntax, as formulas use it: the tokens and one syntax tree.

A formula string, both sides of its ``~``, is read here into one tree of the node
classes below, by R's grammar (R's ``?Syntax``: its operators, their precedence and
associativity, R's names, numbers and strings).  Nothing is evaluated: the tree is
checked whole (:mod:`ubreg.design.allowlist`) and only then evaluated by ubreg's own
interpreter (:mod:`ubreg.design.evaluate`); no text ever reaches Python's ``eval``.

What R itself rewrites is rewritten the same way: ``**`` is ``^``; ``TRUE``, ``FALSE``,
``NA``, ``NULL``, ``Inf`` and ``NaN`` are constants; a name in backticks
(`` `my var` ``) is a name like any other.  What R cannot read is refused here with
the R spelling that works (Python's ``//``, ``%``, ``[...]``, a leading ``_``, ``and``,
a reserved word used as a name).

Chains of one left-associative operator level (``a + b - c + d``, ``a * b / c``) are
kept as one :class:`Chain` node, so a formula of 10 000 terms is a flat node, not a
tree 10 000 deep; nesting (parentheses, calls) is bounded by :data:`MAX_DEPTH`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NoReturn

from ..errors import FormulaError

__all__ = ["Num", "Const", "Str", "Name", "Arg", "Call", "Unary", "Binary", "Chain", "Paren",
           "Node", "parse_formula_text", "parse_expression", "MAX_DEPTH", "is_syntactic",
           "RESERVED", "replace_dot", "has_dot"]

#: deepest nesting of parentheses, calls and unary operators a formula may have
MAX_DEPTH = 100

#: R's reserved words (``?Reserved``): not names unless in backticks
RESERVED = frozenset({"if", "else", "repeat", "while", "function", "for", "next", "break",
                      "in", "TRUE", "FALSE", "NULL", "Inf", "NaN", "NA", "NA_integer_",
                      "NA_real_", "NA_character_", "NA_complex_"})
_CONSTANTS = {"TRUE": True, "FALSE": False, "NULL": None, "NA": float("nan"),
              "NA_integer_": float("nan"), "NA_real_": float("nan"),
              "NA_character_": float("nan"), "Inf": float("inf"), "NaN": float("nan")}


# --- the tree -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Num:
    """A number literal (``2``, ``1e-3``, ``0x10``, ``2L``: ``integer`` marks R's ``L``)."""
    value: float
    integer: bool = False


@dataclass(frozen=True)
class Const:
    """One of R's constants ``TRUE``, ``FALSE``, ``NULL``, ``NA``, ``Inf``, ``NaN``."""
    name: str

    @property
    def value(self):
        return _CONSTANTS[self.name]


@dataclass(frozen=True)
class Str:
    """A string literal (single or double quotes, R's escapes)."""
    value: str


@dataclass(frozen=True)
class Name:
    """A name: a column, a constant such as ``pi``, or (called) a function.
    ``quoted`` marks a name written in backticks (or ``Q("...")``): `` `.` `` is a
    column called ".", where a bare ``.`` stands for the other columns."""
    id: str
    quoted: bool = False

    @property
    def is_dot(self) -> bool:
        return self.id == "." and not self.quoted


@dataclass(frozen=True)
class Arg:
    """One argument of a call: ``value``, or ``name = value``."""
    name: str | None
    value: Node


@dataclass(frozen=True)
class Call:
    """``fn(args)``; the function is always a name (``log``, ``np.log``, ``as.numeric``)."""
    fn: str
    args: tuple


@dataclass(frozen=True)
class Unary:
    """``-x``, ``+x``, ``!x`` and the one-sided formula ``~ x``."""
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    """A binary operator that is not left-associative: ``^`` (right), the comparisons
    (R allows no chain of them) and ``~``."""
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Chain:
    """``operands[0] ops[0] operands[1] ops[1] ...`` for operators of one
    left-associative level: read left to right, as R reads ``((a + b) - c) + d``."""
    ops: tuple
    operands: tuple


@dataclass(frozen=True)
class Paren:
    """``(inner)``: kept, as R keeps it (it matters to ``(a + b)^2`` and to labels)."""
    inner: Node


Node = Num | Const | Str | Name | Call | Unary | Binary | Chain | Paren


# --- tokens ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Token:
    kind: str          # "num", "str", "name", "op", "end"
    text: str
    at: int
    value: Any = None


_DIGITS = frozenset("0123456789")
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+L?|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[Li]?")
_OPERATORS = ("<<-", "->>", ":::", "::", "<-", "->", "<=", ">=", "==", "!=", "&&", "||",
              "**", "|>", "//", "+", "-", "*", "/", "^", "~", ":", "(", ")", ",", "=", "<",
              ">", "!", "&", "|", "$", "@", "[", "]", "{", "}", "?", ";", "\\")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f",
            "v": "\v", "\\": "\\", "'": "'", '"': '"', "`": "`", " ": " "}


def _name_start(ch: str) -> bool:
    return ch.isalpha() or ch == "."


def _name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "._"


def is_syntactic(name: str) -> bool:
    """Whether R reads ``name`` as a name without backticks (``make.names`` rules)."""
    if not name or name in RESERVED or not _name_start(name[0]):
        return False
    if name[0] == "." and len(name) > 1 and name[1].isdigit():
        return False
    return all(_name_char(ch) for ch in name)


class _Lexer:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, why: str, at: int) -> NoReturn:
        raise FormulaError(f"cannot read formula {self.text!r} at position {at + 1}: {why}")

    def tokens(self) -> list[_Token]:
        out: list[_Token] = []
        while True:
            tok = self._next()
            out.append(tok)
            if tok.kind == "end":
                return out

    def _skip_space(self):
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "#":                       # a comment runs to the end of the line
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif ch.isspace():
                self.pos += 1
            else:
                return

    def _next(self) -> _Token:
        self._skip_space()
        text, at = self.text, self.pos
        if at >= len(text):
            return _Token("end", "", at)
        ch = text[at]
        if ch in _DIGITS or (ch == "." and at + 1 < len(text) and text[at + 1] in _DIGITS):
            return self._number()
        if ch in "'\"":
            return self._string()
        if ch == "`":
            return self._backticked()
        if _name_start(ch):
            return self._name()
        if ch == "_":
            end = at
            while end < len(text) and _name_char(text[end]):
                end += 1
            word = text[at:end]
            self.fail(f"{word!r}: an R name cannot start with '_'; write a column of that "
                      f"name in backticks, `{word}`", at)
        if ch == "%":
            end = text.find("%", at + 1)
            if end < 0 or "\n" in text[at:end]:
                self.fail("'%' alone is not an operator in R (R writes the remainder as %% "
                          "and integer division as %/%)", at)
            self.pos = end + 1
            return _Token("op", text[at:end + 1], at)
        for op in _OPERATORS:
            if text.startswith(op, at):
                self.pos = at + len(op)
                return _Token("op", "^" if op == "**" else op, at)
        self.fail(f"unexpected character {ch!r} (U+{ord(ch):04X})", at)

    def _number(self) -> _Token:
        m = _NUMBER.match(self.text, self.pos)
        assert m is not None
        text = m.group()
        self.pos = m.end()
        if text.endswith("i"):
            self.fail(f"{text}: complex numbers are not supported", m.start())
        integer = text.endswith("L")
        body = text[:-1] if integer else text
        value = float(int(body, 16)) if body[:2].lower() == "0x" else float(body)
        if self.pos < len(self.text) and _name_char(self.text[self.pos]):
            self.fail(f"unexpected symbol after the number {text}", self.pos)
        return _Token("num", text, m.start(), (value, integer))

    def _quoted(self, quote: str) -> tuple[str, int]:
        text, at = self.text, self.pos
        i = at + 1
        out: list[str] = []
        while i < len(text):
            ch = text[i]
            if ch == quote:
                return "".join(out), i + 1
            if ch == "\\":
                i, piece = self._escape(i)
                out.append(piece)
                continue
            out.append(ch)
            i += 1
        self.fail(f"the {quote} opened here is never closed", at)

    def _escape(self, i: int) -> tuple[int, str]:
        text = self.text
        if i + 1 >= len(text):
            self.fail("a backslash ends the text", i)
        ch = text[i + 1]
        if ch in _ESCAPES:
            return i + 2, _ESCAPES[ch]
        widths = {"x": 2, "u": 4, "U": 8}
        if ch in widths:
            braced = i + 2 < len(text) and text[i + 2] == "{"
            start = i + 3 if braced else i + 2
            end = start
            while end < len(text) and end - start < widths[ch] and text[end] in \
                    "0123456789abcdefABCDEF":
                end += 1
            if end == start:
                self.fail(f"\\{ch} needs hexadecimal digits", i)
            if braced:
                if end >= len(text) or text[end] != "}":
                    self.fail(f"\\{ch}{{ is not closed", i)
                end += 1
            code = int(text[start:end - 1 if braced else end], 16)
            if code > 0x10FFFF:
                self.fail(f"\\{ch} escape beyond Unicode", i)
            return end, chr(code)
        self.fail(f"'\\{ch}' is not an escape R knows", i)

    def _string(self) -> _Token:
        at = self.pos
        value, end = self._quoted(self.text[at])
        self.pos = end
        return _Token("str", self.text[at:end], at, value)

    def _backticked(self) -> _Token:
        at = self.pos
        value, end = self._quoted("`")
        if not value:
            self.fail("an empty name in backticks", at)
        self.pos = end
        return _Token("name", self.text[at:end], at, value)

    def _name(self) -> _Token:
        text, at = self.text, self.pos
        end = at
        while end < len(text) and _name_char(text[end]):
            end += 1
        word = text[at:end]
        self.pos = end
        return _Token("name", word, at, word)


# --- the parser: R's precedence table (?Syntax), tightest last --------------------------------
_LEFT = {"~": 5, "|": 6, "||": 6, "&": 7, "&&": 7, "+": 10, "-": 10, "*": 11, "/": 11,
         "|>": 12, ":": 13}
_COMPARE = frozenset({"==", "!=", "<", ">", "<=", ">="})
_COMPARE_POWER = 9
_NOT_POWER = 8
_UNARY_POWER = 14
_POW_POWER = 15
_REFUSED = {
    "<-": "assignment is not part of a formula",
    "<<-": "assignment is not part of a formula",
    "->": "assignment is not part of a formula",
    "->>": "assignment is not part of a formula",
    "=": "'=' belongs inside a call, for a named argument (R compares with ==)",
    "?": "help is not part of a formula",
    "$": "'$' (taking a part of an object) is not part of a formula: name the column itself",
    "@": "'@' is not part of a formula",
    "::": "'::' (a package's function) is not supported: call the function by its name",
    ":::": "':::' is not supported",
    "[": "indexing with [ ] is not part of a formula (R's c(1, 2) makes a vector)",
    "{": "braces are not part of a formula",
    ";": "';' is not part of a formula",
    "\\": "'\\' (a function) is not part of a formula",
    "//": "'//' is Python's floor division; R writes it %/%",
}
_PYTHON_WORDS = {"and": "&", "or": "|", "not": "!", "True": "TRUE", "False": "FALSE",
                 "None": "NULL", "is": "==", "lambda": None, "if": None}


def _power(op: str) -> int:
    if op in _LEFT:
        return _LEFT[op]
    if op in _COMPARE:
        return _COMPARE_POWER
    if op == "^":
        return _POW_POWER
    if op.startswith("%") and op.endswith("%"):
        return 12
    return 0


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _Lexer(text).tokens()
        self.i = 0
        self.depth = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def fail(self, why: str, tok: _Token | None = None) -> NoReturn:
        tok = tok or self.tok
        raise FormulaError(f"cannot read formula {self.text!r} at position {tok.at + 1}: {why}")

    def take(self) -> _Token:
        tok = self.tok
        self.i += 1
        return tok

    def expect(self, text: str, why: str) -> None:
        if self.tok.kind == "op" and self.tok.text == text:
            self.i += 1
            return
        self.fail(f"{why}, found {self._shown(self.tok)}")

    def _shown(self, tok: _Token) -> str:
        return "the end of the formula" if tok.kind == "end" else repr(tok.text)

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"the formula nests parentheses, calls or operators more than "
                      f"{MAX_DEPTH} deep")

    def whole(self) -> Node:
        if self.tok.kind == "end":
            self.fail("the formula is empty")
        node = self.expression(0)
        if self.tok.kind != "end":
            self._unexpected(self.tok)
        return node

    def _unexpected(self, tok: _Token, operand: bool = True) -> NoReturn:
        if tok.kind == "op" and tok.text in _REFUSED:
            self.fail(_REFUSED[tok.text], tok)
        if tok.kind == "name" and tok.text in RESERVED and operand:
            self.fail(f"{tok.text!r} is a reserved word of R; a column of that name is "
                      f"written in backticks, `{tok.text}`", tok)
        if tok.kind == "name" and tok.text in _PYTHON_WORDS:
            r = _PYTHON_WORDS[tok.text]
            hint = f" (R writes {r})" if r else ""
            self.fail(f"unexpected {tok.text!r}: formulas are R, not Python{hint}", tok)
        if tok.kind == "name" and tok.text in RESERVED:
            self.fail(f"unexpected {tok.text!r}: R's {tok.text} is not part of a formula", tok)
        self.fail(f"unexpected {self._shown(tok)}", tok)

    def expression(self, floor: int) -> Node:
        self._enter()
        left = self.prefix()
        while True:
            tok = self.tok
            if tok.kind != "op":
                if tok.kind == "end":
                    break
                self._unexpected(tok, operand=False)
            op = tok.text
            power = _power(op)
            if power == 0 and op not in (")", ","):
                self._unexpected(tok)
            if power <= floor:
                break
            self.take()
            if op == "^":
                left = Binary("^", left, self.expression(_POW_POWER - 1))
            elif op in _COMPARE:
                right = self.expression(_COMPARE_POWER)
                if self.tok.kind == "op" and self.tok.text in _COMPARE:
                    self.fail("R does not chain comparisons (write a < b & b < c)")
                left = Binary(op, left, right)
            elif op == "~":
                if isinstance(left, (Binary, Unary)) and left.op == "~":
                    self.fail("a formula has one '~'", tok)
                left = Binary("~", left, self.expression(power))
            else:
                left = self._chain(left, op, power)
        self.depth -= 1
        return left

    def _chain(self, first: Node, op: str, power: int) -> Chain:
        ops, operands = [op], [first, self.expression(power)]
        while self.tok.kind == "op" and _power(self.tok.text) == power \
                and self.tok.text not in _COMPARE:
            ops.append(self.take().text)
            operands.append(self.expression(power))
        return Chain(tuple(ops), tuple(operands))

    def prefix(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            value, integer = tok.value
            return Num(value, integer)
        if tok.kind == "str":
            return Str(tok.value)
        if tok.kind == "name":
            return self._name(tok)
        if tok.kind == "op":
            if tok.text in ("-", "+"):
                return Unary(tok.text, self.expression(_UNARY_POWER))
            if tok.text == "!":
                return Unary("!", self.expression(_NOT_POWER))
            if tok.text == "~":
                return Unary("~", self.expression(_LEFT["~"]))
            if tok.text == "(":
                inner = self.expression(0)
                self.expect(")", "a '(' is not closed")
                return Paren(inner)
        if tok.kind == "end":
            self.fail("the formula ends where a term was expected", tok)
        self._unexpected(tok)

    def _name(self, tok: _Token) -> Node:
        word = tok.value
        backticked = tok.text.startswith("`")
        if not backticked and word in _CONSTANTS:
            return Const(word)
        if not backticked and word in RESERVED:
            self._unexpected(tok)
        if self.tok.kind == "op" and self.tok.text == "(":
            self.take()
            return Call(word, self._arguments())
        if self.tok.kind in ("name", "num", "str") and not backticked \
                and word in _PYTHON_WORDS:
            self._unexpected(tok)
        return Name(word, quoted=backticked)

    def _arguments(self) -> tuple:
        args: list[Arg] = []
        if self.tok.kind == "op" and self.tok.text == ")":
            self.take()
            return ()
        while True:
            name = None
            if self.tok.kind in ("name", "str") and self.tokens[self.i + 1].kind == "op" \
                    and self.tokens[self.i + 1].text == "=":
                name = self.take().value
                self.take()
            if self.tok.kind == "op" and self.tok.text in (",", ")"):
                self.fail("an empty argument (R's f(x, ) is not supported)")
            args.append(Arg(name, self.expression(0)))
            if self.tok.kind == "op" and self.tok.text == ",":
                self.take()
                continue
            self.expect(")", "a call's '(' is not closed")
            return tuple(args)


def parse_formula_text(text: str) -> Node:
    """The syntax tree of a whole formula (``"y ~ x"``, or one-sided ``"~ x"``).

    Raises
    ------
    FormulaError
        When ``text`` is not a string, not R's syntax, or has no ``~`` at its top.
    """
    if not isinstance(text, str):
        raise FormulaError(f"formula must be a string like 'y ~ x1 + x2', got "
                           f"{type(text).__name__}")
    node = _Parser(text).whole()
    if not (isinstance(node, Binary) and node.op == "~") and \
            not (isinstance(node, Unary) and node.op == "~"):
        raise FormulaError(f"formula {text!r} has no '~': write it as 'response ~ terms'")
    return node


def parse_expression(text: str, what: str = "expression") -> Node:
    """The syntax tree of one R expression (``subset=``, ``offset=``), which may not
    contain a ``~``."""
    if not isinstance(text, str):
        raise FormulaError(f"{what} must be a string, got {type(text).__name__}")
    node = _Parser(text).whole()
    if isinstance(node, (Binary, Unary)) and node.op == "~":
        raise FormulaError(f"{what} {text!r} is a formula; give an expression")
    return node


def replace_dot(node, replacement, parent: str = "+"):
    """``node`` with every formula-level ``.`` replaced by ``replacement`` (a ``.``
    inside a function's call is left alone: it is not R's dot there), in parentheses
    unless it is a term of a sum, as R's ``ExpandDots`` writes it."""
    if isinstance(node, Name) and node.is_dot:
        if parent != "+" and isinstance(replacement, Chain):
            return Paren(replacement)
        return replacement
    if isinstance(node, Paren):
        return Paren(replace_dot(node.inner, replacement))
    if isinstance(node, Unary):
        return Unary(node.op, replace_dot(node.operand, replacement, node.op))
    if isinstance(node, Binary):
        return Binary(node.op, replace_dot(node.left, replacement, node.op),
                      replace_dot(node.right, replacement, node.op))
    if isinstance(node, Chain):
        parents = (node.ops[0], *node.ops)
        return Chain(node.ops, tuple(replace_dot(o, replacement, p)
                                     for o, p in zip(node.operands, parents)))
    return node


def has_dot(node) -> bool:
    """Whether a formula's side has a ``.`` term."""
    marker = Name("\0dot")
    return replace_dot(node, marker) != node
