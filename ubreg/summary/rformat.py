"""Numbers as R prints them: ``format``, ``signif``, ``format.pval`` and named vectors.

R formats a vector of numbers together (``formatReal``): every element gets the
same notation and the same number of decimals, enough to show each one to
``digits`` significant digits (trailing zeros dropped), in fixed notation
unless scientific notation is narrower.  :func:`format_r` does the same;
:func:`format_pvalues` is ``format.pval`` as ``printCoefmat`` calls it (a
floor of machine epsilon, shown as ``< 2e-16``); :func:`named_vector_lines`
is ``print.default`` of a named vector (``print.glm``'s coefficients).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["format_r", "signif", "format_pvalues", "named_vector_lines", "matrix_lines", "EPS"]

#: R's ``.Machine$double.eps``, the floor of printed p-values
EPS = float(np.finfo(float).eps)
#: R's ``getOption("width")``
WIDTH = 80


def _sig_exp(x: float, digits: int) -> tuple[int, int]:
    """(significant digits needed, decimal exponent) of |x| rounded to ``digits``."""
    if x == 0:
        return 1, 0
    mantissa, exp = f"{abs(x):.{digits - 1}e}".split("e")
    sig = len(mantissa.replace(".", "").rstrip("0")) or 1
    return sig, int(exp)


def format_r(values, digits: int = 7) -> list[str]:
    """R's ``format(x, digits = digits)`` of a numeric vector: common notation and
    decimals, right-justified to a common width; NaN as ``NA``, ±inf as ``Inf``,
    ``-Inf``."""
    x = np.asarray(values, dtype=float).ravel()
    finite = x[np.isfinite(x)]
    if finite.size == 0:
        cells = ["NA" if np.isnan(v) else ("Inf" if v > 0 else "-Inf") for v in x]
    else:
        facts = [_sig_exp(v, digits) for v in finite.tolist()]
        neg = int(bool(np.any(finite < 0)))
        rgt = max(max(sig - exp - 1 for sig, exp in facts), 0)
        left = max(int(v < 0) + max(exp + 1, 1) for v, (_, exp) in zip(finite.tolist(), facts))
        fixed_width = left + rgt + (rgt > 0)
        mxns = max(sig for sig, _ in facts)
        big_exp = any(abs(exp) >= 100 for _, exp in facts)
        sci_width = neg + (mxns > 1) + (mxns - 1) + 4 + (2 if big_exp else 1)
        if fixed_width <= sci_width:
            def fmt(v):
                return f"{v:.{rgt}f}"
        else:
            def fmt(v):
                m, e = f"{v:.{mxns - 1}e}".split("e")
                return f"{m}e{e[0]}{abs(int(e)):0{3 if big_exp else 2}d}"
        cells = [fmt(v) if np.isfinite(v) else ("NA" if np.isnan(v) else
                                                 ("Inf" if v > 0 else "-Inf")) for v in x]
    width = max(len(c) for c in cells) if cells else 0
    return [c.rjust(width) for c in cells]


def signif(x: float, digits: int) -> float:
    """R's ``signif``: ``x`` rounded to ``digits`` significant digits."""
    if not math.isfinite(x) or x == 0:
        return x
    return float(f"{x:.{digits - 1}e}")


def format_pvalues(p, digits: int = 3, eps: float = EPS) -> list[str]:
    """R's ``format.pval(p, digits, eps)``: the p-values at least ``eps`` formatted
    together (those of exponent ≥ −3, or −4 when ``digits`` > 1, in one group,
    the smaller ones in another),
    the others as ``< 2e-16`` (``<2e-16`` when every other cell is at most six
    characters wide, as R writes it); NaN as ``NA``."""
    p = np.asarray(p, dtype=float).ravel()
    out = ["NA"] * p.shape[0]
    ok = ~np.isnan(p)
    small = ok & (p < eps)
    rest = np.flatnonzero(ok & ~small)
    if rest.size:
        v = p[rest]
        with np.errstate(divide="ignore"):
            expo = np.floor(np.log10(np.where(v > 0, v, 1e-50)))
        fixp = (expo >= -3) | ((expo == -4) & (digits > 1))
        for group in (fixp, ~fixp):
            if group.any():
                for i, cell in zip(rest[group], format_r(v[group], digits)):
                    out[i] = cell
    if small.any():
        d = max(1, digits - 2)
        if rest.size:
            nc = max(len(out[i]) for i in rest)
            if d > 1 and d + 6 > nc:
                d = max(1, nc - 7)
            sep = "" if d == 1 and nc <= 6 else " "
        else:
            sep = "" if d == 1 else " "
        floor = format_r([eps], d)[0]
        for i in np.flatnonzero(small):
            out[i] = f"<{sep}{floor}"
    return out


def named_vector_lines(names, cells, gap: int = 2, width: int = WIDTH) -> list[str]:
    """``print.default`` of a named character vector (``quote = FALSE``,
    ``print.gap = gap``): names over values, every column as wide as the widest
    name or value, right-justified, each followed by ``gap`` spaces, as many
    columns to a line as fit in ``width``."""
    names, cells = [str(n) for n in names], [str(c) for c in cells]
    if not names:
        return []
    w = max(max(map(len, names)), max(map(len, cells)))
    per_line = max(1, width // (w + gap))
    lines = []
    for i in range(0, len(names), per_line):
        lines.append("".join(n.rjust(w) + " " * gap for n in names[i:i + per_line]))
        lines.append("".join(c.rjust(w) + " " * gap for c in cells[i:i + per_line]))
    return lines


def matrix_lines(row_names, columns: dict) -> list[str]:
    """``print`` of a numeric matrix whose columns are already formatted
    (``{header: cells}``): row names left-justified, each column right-justified
    to its widest cell or header, one space apart."""
    rows = [str(r) for r in row_names]
    rw = max([len(r) for r in rows] + [0])
    widths = {h: max([len(h)] + [len(c) for c in cells]) for h, cells in columns.items()}
    lines = [" " * rw + "".join(" " + h.rjust(widths[h]) for h in columns)]
    for i, r in enumerate(rows):
        lines.append(r.ljust(rw) + "".join(" " + cells[i].rjust(widths[h])
                                           for h, cells in columns.items()))
    return lines
