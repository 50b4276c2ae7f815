"""The one base of every summary: text, HTML and DataFrame forms of a result.

A summary builds its data once (:meth:`Summary.facts`, its ``table``); the
text form (``str``) and the HTML form (:meth:`Summary.html`, an autoescaped
template) only render it, and :meth:`Summary.frame` returns the table.  What
the summaries share — the ``Call:`` block, the notes, the aligned tables,
``repr`` and ``_repr_html_`` — lives here once.
"""
from __future__ import annotations

import abc
from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .render import render_template, shown_call, shown_names, visible_text

__all__ = ["Summary", "align_rows", "aligned_pairs", "sig_decimals"]


def align_rows(rows: list[list[str]], left_first: bool = True) -> list[str]:
    """Rows of cells as text lines: the first column left-aligned (right with
    ``left_first=False``), the others right-aligned, one space apart.

    The first cell of each row is a name, shown as tables show names
    (:func:`~ubreg.summary.render.shown_names`: long ones shortened, kept
    distinct).
    """
    rows = [[name, *r[1:]] for name, r in zip(shown_names([r[0] for r in rows]), rows)]
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    first = str.ljust if left_first else str.rjust
    return [" ".join([first(r[0], widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])])
            .rstrip() for r in rows]


def aligned_pairs(pairs: list[tuple[str, str]]) -> list[str]:
    """``label  value`` lines, the labels padded to the longest."""
    width = max(len(k) for k, _ in pairs)
    return [f"{k.ljust(width)}  {v}" for k, v in pairs]


def sig_decimals(x: float, digits: int = 5) -> int:
    """Decimals that show ``digits`` significant digits of x (R prints 5)."""
    if not np.isfinite(x) or x == 0:
        return 2
    return int(max(0, digits - 1 - np.floor(np.log10(abs(x)))))


class Summary(abc.ABC):
    """Summary of a fitted model: ``str(s)`` the text, ``s.html()`` (and
    ``_repr_html_``) the HTML, ``s.frame()`` the main table as a DataFrame.

    A subclass sets :attr:`template` and ``table`` and writes :meth:`facts`
    (what both renderings show, as plain data), :meth:`text_lines` and
    :meth:`html_context`.

    Attributes
    ----------
    result : Result
        The summarised model.
    table : pandas.DataFrame
        The main table (coefficients, nodes, features, classes, rounds).
    """

    #: the autoescaped Jinja2 template of :meth:`html` (in ``ubreg/templates``)
    template: ClassVar[str]
    #: the main table (set by each subclass's ``__init__``)
    table: pd.DataFrame

    def __init__(self, result: Any) -> None:
        self.result = result

    @abc.abstractmethod
    def facts(self) -> dict:
        """Everything the summary shows, as plain data (for templates)."""

    @abc.abstractmethod
    def text_lines(self) -> list[str]:
        """The text form, line by line."""

    @abc.abstractmethod
    def html_context(self) -> dict:
        """The variables of :attr:`template`."""

    def frame(self) -> pd.DataFrame:
        """The main table as a DataFrame (a copy)."""
        return self.table.copy()

    # ---- pieces the text forms share ----------------------------------------
    def call_lines(self) -> list[str]:
        """A blank line, ``Call:`` and the call."""
        return ["", "Call:", shown_call(self.result.call)]

    @staticmethod
    def note_lines(notes: Iterable[str]) -> list[str]:
        """Each note after a blank line."""
        return [line for note in notes for line in ("", note)]

    # ---- renderings -----------------------------------------------------------
    def __str__(self) -> str:
        # whatever a line holds (a family's or a level's name), nothing in it is hidden
        return visible_text("\n".join(self.text_lines()))

    def __repr__(self) -> str:
        return str(self)

    def html(self) -> str:
        """HTML fragment (the autoescaped template :attr:`template`)."""
        return render_template(self.template, **self.html_context())

    def _repr_html_(self) -> str:
        return self.html()
