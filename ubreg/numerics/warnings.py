"""ubreg's warnings policy, in one place.

* A warning ubreg gives points at the user's line: :func:`warn` (or
  ``stacklevel=user_stacklevel()``), wherever in ubreg it is raised and
  through however many wrappers.
* Warnings raised inside a unit of work that runs many times (a
  cross-validation fold, a candidate model) are recorded
  (:func:`record_warnings`) and re-issued once per distinct warning, in
  order, named after the unit: ``"fold 3: ..."`` (:func:`reissue_warnings`).
* A computation that expects warnings it has no use for silences them
  (:func:`ignoring`), or turns them into exceptions to test whether
  something works (:func:`raising`).

The last three act on the calling thread only.  ``warnings.catch_warnings``
is process-wide: two threads using it at once restore each other's state and
lose warnings (the thread scheduler of ``ubreg.cv`` once lost all of them).
Here the first handler of the process installs one shared context (every
warning shown, through a dispatcher that passes it to the innermost handler
of the thread that raised it) and the last one removes it.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypedDict

__all__ = ["warn", "user_stacklevel", "record_warnings", "reissue_warnings", "ignoring",
           "raising"]

#: the ubreg package directory: frames under it are ubreg's own
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_LOCK = threading.Lock()
_LOCAL = threading.local()


class _State(TypedDict):
    depth: int
    context: warnings.catch_warnings[None] | None
    show: Callable[..., object] | None
    filters: tuple[Any, ...]


#: the handlers alive in this process, the catch_warnings context they share, and the
#: showwarning and filters it replaced
_STATE: _State = {"depth": 0, "context": None, "show": None, "filters": ()}


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside ubreg.

    ``fit()`` reaches a method through wrappers, so the depth is not fixed.
    Call it as an argument of ``warnings.warn`` in the function that warns.
    """
    level = 2
    frame: FrameType | None = sys._getframe(2)      # 1: the warning function, 2: its caller
    while frame is not None and frame.f_code.co_filename.startswith(_ROOT):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` at the first caller outside ubreg."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


def _replaced_action(message, category, filename, lineno) -> str:
    """What the filters the shared context replaced would do with this warning
    (the module is matched by the file's base name: a filter on a dotted module
    name may not match)."""
    text = str(message)
    module = os.path.splitext(os.path.basename(filename))[0]
    for action, msg, cat, mod, ln in _STATE["filters"]:
        if ((msg is None or msg.match(text)) and issubclass(category, cat)
                and (mod is None or mod.match(module)) and ln in (0, lineno)):
            return action
    return warnings.defaultaction  # type: ignore[attr-defined]  # not in typeshed's stub


def _dispatch(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while handlers are alive: to the innermost handler of
    the calling thread that takes it, else as the replaced filters say (shown,
    ignored or raised)."""
    for handle in reversed(getattr(_LOCAL, "handlers", ())):
        if handle(message, category):
            return
    action = _replaced_action(message, category, filename, lineno)
    if action == "ignore":
        return
    if action == "error":
        raise message if isinstance(message, Warning) else category(message)
    show = _STATE["show"]
    if show is not None and show is not getattr(warnings, "_showwarning_orig", None):
        show(message, category, filename, lineno, file, line)
    else:          # the default display, or the log of a catch_warnings(record=True)
        warnings._showwarnmsg_impl(  # type: ignore[attr-defined]  # not in typeshed's stub
            warnings.WarningMessage(message, category, filename, lineno, file, line))


@contextmanager
def _handling(handler):
    """Pass the warnings of this thread to ``handler(message, category) -> taken``
    (innermost first) for the duration of the block."""
    with _LOCK:
        if _STATE["depth"] == 0:
            context = warnings.catch_warnings()
            context.__enter__()
            replaced = tuple(warnings.filters)
            warnings.simplefilter("always")
            _STATE["context"] = context
            _STATE["show"] = warnings.showwarning
            _STATE["filters"] = replaced
            warnings.showwarning = _dispatch
        _STATE["depth"] += 1
    handlers = getattr(_LOCAL, "handlers", None)
    if handlers is None:
        handlers = _LOCAL.handlers = []
    handlers.append(handler)
    try:
        yield
    finally:
        handlers.pop()
        with _LOCK:
            _STATE["depth"] -= 1
            if _STATE["depth"] == 0:
                shared = _STATE["context"]
                assert shared is not None       # entered by the first handler
                shared.__exit__(None, None, None)    # filters and showwarning back
                _STATE["context"], _STATE["show"], _STATE["filters"] = None, None, ()


@contextmanager
def record_warnings():
    """Record the warnings raised in this thread; yields the list of
    ``(category, message)``."""
    log = []

    def take(message, category):
        log.append((category, str(message)))
        return True

    with _handling(take):
        yield log


def reissue_warnings(caught, label: str | None = None) -> None:
    """Warn again, at the caller's line outside ubreg, each distinct
    ``(category, message)`` of ``caught`` once, in order, as ``"label: message"``."""
    for category, message in dict.fromkeys(caught):
        text = message if label is None else f"{label}: {message}"
        warnings.warn(text, category, stacklevel=user_stacklevel())


@contextmanager
def ignoring(*categories: type[Warning]):
    """Silence the warnings of these categories (all by default) raised in this thread."""
    categories = categories or (Warning,)
    with _handling(lambda message, category: issubclass(category, categories)):
        yield


@contextmanager
def raising():
    """Turn every warning raised in this thread into an exception (the warning
    itself), as ``simplefilter("error")`` does."""
    def throw(message, category):
        raise message if isinstance(message, Warning) else category(message)

    with _handling(throw):
        yield
