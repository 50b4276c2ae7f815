"""Progress bars for long loops: tqdm on a terminal, nothing otherwise.

One helper for every loop of ubreg (cross-validation folds, the demo's fits,
boosting rounds, GNNB levels, the folds of a tree's cross-validation)::

    from ..progress import progress
    for m in progress(range(mstop), total=mstop, desc="uboost"):
        ...

It returns the iterable itself — no wrapper, no cost — when stderr is not a
terminal (logs, pipes, CI, notebooks' captured stderr), when the loop is
short (fewer than ``min_total`` items), or when ``show=False``; otherwise a
tqdm bar on stderr that appears only once the loop has run ``delay``
seconds, so that fast fits print nothing.  The environment variable
``UBREG_PROGRESS`` overrides the terminal test: ``0`` never shows a bar,
``1`` always does (still subject to ``show=False``).
"""
from __future__ import annotations

import os
import sys

__all__ = ["progress", "progress_enabled"]

#: loops with fewer items than this never get a bar
MIN_TOTAL = 2
#: seconds a loop must run before its bar is drawn
DELAY = 0.5


def progress_enabled(show: bool | None = None) -> bool:
    """Whether a bar would be drawn: ``show`` if given, else ``UBREG_PROGRESS``
    if set, else whether stderr is a terminal."""
    if show is not None:
        return bool(show)
    env = os.environ.get("UBREG_PROGRESS", "").strip()
    if env in ("0", "1"):
        return env == "1"
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):          # a closed or detached stream
        return False


def progress(iterable, desc: str | None = None, *, total: int | None = None,
             show: bool | None = None, min_total: int | None = None,
             delay: float | None = None, **tqdm_options):
    """Wrap ``iterable`` in a tqdm progress bar written to stderr, or return it unchanged.

    Parameters
    ----------
    iterable : iterable
    desc : str, optional
        Label of the bar.
    total : int, optional
        Number of items (default: ``len(iterable)`` when it has one).
    show : bool, optional
        None (default): a bar only when stderr is a terminal (see
        :func:`progress_enabled`); True/False force it.
    min_total : int, optional
        Loops with fewer items (when their length is known) get no bar
        (default :data:`MIN_TOTAL`).
    delay : float, optional
        The bar is drawn only after the loop has run this many seconds
        (default :data:`DELAY`).
    **tqdm_options
        Passed to :class:`tqdm.tqdm` (e.g. ``unit="round"``).

    Returns
    -------
    The iterable itself, or a tqdm object iterating over it.
    """
    if not progress_enabled(show):
        return iterable
    if total is None:
        try:
            total = len(iterable)
        except TypeError:
            total = None
    if total is not None and total < (MIN_TOTAL if min_total is None else min_total):
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:                    # tqdm is a dependency; be safe anyway
        return iterable
    options = {"leave": False, "file": sys.stderr, "dynamic_ncols": True,
               "delay": DELAY if delay is None else delay}
    options.update(tqdm_options)
    try:
        return tqdm(iterable, desc=desc, total=total, **options)
    except TypeError:                      # a tqdm older than 4.61 has no ``delay``
        options.pop("delay", None)
        return tqdm(iterable, desc=desc, total=total, **options)
