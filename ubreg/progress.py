"""Progress bars for long loops: tqdm on a terminal, nothing otherwise."""
from __future__ import annotations

import sys

__all__ = ["progress"]


def progress(iterable, *, desc: str, total: int | None = None, show: bool | None = None):
    """Wrap ``iterable`` in a tqdm bar written to stderr.

    ``show=None`` (default) shows the bar only when stderr is a terminal, so
    logs, pipes and CI output stay clean; ``True``/``False`` force it.
    """
    if show is None:
        show = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    if not show:
        return iterable
    from tqdm.auto import tqdm
    return tqdm(iterable, desc=desc, total=total, leave=False, file=sys.stderr)
