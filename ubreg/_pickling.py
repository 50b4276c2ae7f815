"""The version check every ubreg pickle makes when it is loaded.

Unpickling runs code chosen by whoever wrote the file: load only trusted files
(README.md, "Saving fitted models").
"""
from __future__ import annotations

import warnings

from ._version import __version__


def warn_if_other_version(saved: str | None, what: str = "model") -> None:
    """Warn when a pickle written by another ubreg version (or none recorded) is loaded."""
    if saved != __version__:
        warnings.warn(f"this {what} was pickled by ubreg {saved}, loaded by {__version__}; "
                      f"refit it if predictions matter (README.md, \"Saving fitted models\")",
                      UserWarning, stacklevel=3)
