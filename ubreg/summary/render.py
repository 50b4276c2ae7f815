"""Rendering: Jinja2 with autoescaping on for every template, and the one rule for
showing user strings (column names, levels, titles, formulas, calls) in HTML, PDF and plots.

Hidden characters
    Every character of Unicode category Cc (control), Cf (format: the
    bidirectional embeddings, overrides and isolates U+202A–U+202E,
    U+2066–U+2069, the marks U+200E, U+200F, U+061C, the zero-width U+200B–U+200D,
    U+FEFF, the soft hyphen, tag characters), Cs (lone surrogates), Zl or Zp
    (line and paragraph separators) is shown as the visible escape ``<U+XXXX>``
    (its code point, upper-case hexadecimal, at least 4 digits): ``"a\\u202eb"``
    is shown ``a<U+202E>b``.  Newline and tab are kept in running text (summaries
    are multi-line) and escaped in names.  :func:`visible_text` applies it; the
    Jinja environment applies it to every ``{{ … }}`` output (``finalize``),
    before autoescaping, and the plots and the PDF writer call it on every user
    string they draw.
Long names
    A name longer than :data:`NAME_LIMIT` (40) characters, after the escapes
    above, is shown as its first 22 characters, ``…`` and its last 17.  Names
    of one table that would then look alike (they differ only in the middle)
    are shown as ``head…#xxxxxx…tail`` with ``xxxxxx`` the first six hex digits
    of the SHA-1 of the name, so that shown names stay distinct.  HTML tables
    carry the full name in a ``title`` tooltip; the DataFrame forms
    (``coef_table()``, ``frame()``) keep the full names.  :func:`shown_names`
    applies it.

Jinja2 and MarkupSafe are imported by the functions that render, so that
importing this module (and ``import ubreg``) loads neither.
"""
from __future__ import annotations

import hashlib
import sys
import unicodedata
from functools import lru_cache

__all__ = ["environment", "render_template", "visible_text", "shown_names", "shown_name",
           "shown_call", "NAME_LIMIT"]

#: longest name shown in full in tables and plots
NAME_LIMIT = 40
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt) outside
#: Cc/Cf: characters a renderer draws as nothing (U+034F, the Hangul fillers U+3164,
#: U+115F, U+1160, U+FFA0, the variation selectors), and the blank-looking U+2800
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
              (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0),
              (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def _hidden(ch: str) -> bool:
    """Drawn as nothing, or as an ordinary space while it is not one."""
    category = unicodedata.category(ch)
    if category in _HIDDEN or (category == "Zs" and ch != " "):
        return True
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


def _visible(text: str, newlines: bool, html: bool) -> str:
    probe = text.replace("\n", "").replace("\t", "") if newlines else text
    if probe.isascii() and probe.isprintable():     # fast path: nothing to escape
        return text
    out = []
    for ch in text:
        if (newlines and ch in "\n\t") or not _hidden(ch):
            out.append(ch)
        else:
            out.append(f"&lt;U+{ord(ch):04X}&gt;" if html else f"<U+{ord(ch):04X}>")
    return "".join(out)


def visible_text(value, newlines: bool = True):
    """``value`` with every hidden character shown as ``<U+XXXX>`` (see the module notes).

    Parameters
    ----------
    value : object
        A ``str`` is returned escaped; a :class:`markupsafe.Markup` (HTML) is
        returned as Markup with the escape itself HTML-escaped
        (``&lt;U+202E&gt;``); anything else is returned unchanged.
    newlines : bool
        Keep newline and tab (running text); ``False`` escapes them too (names).

    Returns
    -------
    object
        The same kind of value as ``value``; never modified in place.
    """
    markupsafe = sys.modules.get("markupsafe")      # no Markup exists before it is loaded
    if markupsafe is not None and isinstance(value, markupsafe.Markup):
        return markupsafe.Markup(_visible(str(value), newlines, True))
    if isinstance(value, str):
        return _visible(value, newlines, False)
    return value


def _cut(name: str, limit: int) -> str:
    head = (limit * 11) // 20
    return name[:head] + "…" + name[len(name) - (limit - 1 - head):]


def _tagged(name: str, limit: int) -> str:
    tag = "#" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    room = limit - len(tag) - 2
    return name[:room - room // 2] + "…" + tag + "…" + name[len(name) - room // 2:]


def shown_names(names, limit: int = NAME_LIMIT) -> list[str]:
    """The names as tables and plots show them: escaped, shortened, distinct.

    Parameters
    ----------
    names : iterable
        Names (anything with ``str``), e.g. a DataFrame index.
    limit : int
        Longest name shown in full (at least 16).

    Returns
    -------
    list of str
        One shown name per name: the name with hidden characters (newline and
        tab included) as ``<U+XXXX>``; if longer than ``limit``, its head, ``…``
        and its tail, ``limit`` characters in all.  Distinct names give distinct
        shown names (see the module notes), equal names equal ones.
    """
    if limit < 16:
        raise ValueError(f"limit must be at least 16 characters, got {limit}")
    full = _apart(visible_text(str(n), newlines=False) for n in names)
    shown = [s if len(s) <= limit else _cut(s, limit) for s in full]
    owners: dict[str, set] = {}
    for f, s in zip(full, shown):
        owners.setdefault(s, set()).add(f)
    shown = [_tagged(f, limit) if len(owners[s]) > 1 and len(f) > limit else s
             for f, s in zip(full, shown)]
    numbered: dict[str, dict] = {}          # a SHA-1 prefix collision (1 in 16.7 million)
    out = []
    for f, s in zip(full, shown):
        k = numbered.setdefault(s, {}).setdefault(f, len(numbered[s]))
        out.append(s if k == 0 else f"{s[:limit - len(str(k)) - 1]}~{k}")
    return out


def _apart(names) -> list[str]:
    """Names that look alike because they differ only in Unicode normalisation ("é" as
    U+00E9 or as e + U+0301) with the combining marks of those not in NFC shown as
    ``<U+XXXX>``."""
    names = list(names)
    if all(n.isascii() for n in names):
        return names
    forms: dict[str, set] = {}
    for n in names:
        forms.setdefault(unicodedata.normalize("NFC", n), set()).add(n)
    return [n if len(forms[unicodedata.normalize("NFC", n)]) == 1
            or unicodedata.normalize("NFC", n) == n
            else "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c).startswith("M") else c
                         for c in n)
            for n in names]


def shown_call(call) -> str:
    """A call or formula as text shows it: hidden characters escaped, each name longer
    than :data:`NAME_LIMIT` shortened as :func:`shown_name` shortens it."""
    import re
    text = visible_text(str(call), newlines=False)
    long_word = r"[^\s\"'`(),~+*:/^|=\-\[\]]{" + str(NAME_LIMIT + 1) + ",}"
    return re.sub(long_word, lambda m: shown_name(m.group(0)), text)


def shown_name(name, limit: int = NAME_LIMIT) -> str:
    """One name as :func:`shown_names` shows it."""
    return shown_names([name], limit)[0]


def _with_tooltip(name, shown: str):
    from markupsafe import Markup, escape
    full = visible_text(str(name), newlines=False)
    if full == shown:
        return escape(shown)
    return Markup('<span class="shortened" title="{}">{}</span>').format(full, shown)


def _shown_filter(name):
    """Jinja filter ``shown``: one name, shortened, with its full name as a tooltip."""
    return _with_tooltip(name, shown_name(name))


def _shown_all_filter(names) -> list:
    """Jinja filter ``shown_all``: the names of one table (kept distinct), with tooltips."""
    names = list(names)
    return [_with_tooltip(n, s) for n, s in zip(names, shown_names(names))]


@lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of every template (``ubreg/templates``), made once."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    # autoescape=True (not select_autoescape): user strings are escaped in
    # every template, including ones whose extension is not .html; finalize
    # shows hidden characters of every {{ … }} output as <U+XXXX>
    env = Environment(loader=PackageLoader("ubreg", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      finalize=visible_text)
    env.filters["shown"] = _shown_filter
    env.filters["shown_all"] = _shown_all_filter
    return env


def render_template(name: str, **context) -> str:
    """Render the template ``name`` of ``ubreg/templates`` with ``context``."""
    return environment().get_template(name).render(**context)


def plain_text(label) -> str:
    """A user string as literal matplotlib text: hidden characters (bidirectional
    overrides, zero-width and control characters) shown as ``<U+XXXX>``
    (:func:`visible_text`), ``$`` escaped (it would start mathtext)."""
    return visible_text(str(label), newlines=False).replace("$", r"\$")
