"""The memory cap: refuse an allocation that would exhaust the machine.

A formula, a factor with 100 000 levels or integer weights that repeat rows can
ask for arrays far larger than memory.  Before such an array is built its size is
estimated and compared with the cap, so that the user gets an error naming the
estimate instead of a frozen machine or a crashed interpreter.

The cap defaults to a quarter of physical memory.  Change it for a session with
:func:`set_memory_cap` or, for a process, with the environment variable
``UBREG_MEMORY_CAP`` (bytes, or a number with a unit: ``"8GB"``, ``"512MiB"``).
"""
from __future__ import annotations

import math
import os
import re

from ..errors import DataError

__all__ = ["memory_cap", "set_memory_cap", "check_allocation", "format_bytes",
           "physical_memory"]

_FALLBACK_PHYSICAL = 8 * 2**30
_cap_override: int | None = None
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def physical_memory() -> int:
    """Bytes of physical memory (8 GiB when the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_PHYSICAL


#: the bounds of a cap: 1 kB, and a number far past any machine (so "no cap" is 1e30)
_SMALLEST_CAP, _LARGEST_CAP = 1000, 1e30


def _parse_bytes(text: str) -> int:
    m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"UBREG_MEMORY_CAP={text!r}: expected bytes, e.g. 8GB or 512MiB")
    try:
        value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    except ValueError:
        raise ValueError(f"UBREG_MEMORY_CAP={text!r}: expected bytes, e.g. 8GB or 512MiB") from None
    return _cap_bytes(value, f"UBREG_MEMORY_CAP={text!r}")


def _cap_bytes(value: object, what: str) -> int:
    """A cap as a whole number of bytes, from 1 kB to 1e30 (finite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not _SMALLEST_CAP <= value <= _LARGEST_CAP:
        raise ValueError(f"{what}: the memory cap must be a number of bytes from 1 kB to "
                         f"1e30 (e.g. 8GB, 512MiB), got {value!r}")
    return int(value)


def memory_cap() -> int:
    """The cap in bytes: :func:`set_memory_cap`'s, ``UBREG_MEMORY_CAP``'s, or a
    quarter of physical memory."""
    if _cap_override is not None:
        return _cap_override
    env = os.environ.get("UBREG_MEMORY_CAP")
    if env:
        return _parse_bytes(env)
    return physical_memory() // 4


def set_memory_cap(nbytes: int | None) -> None:
    """Set the cap for this session (``None`` restores the default)."""
    global _cap_override
    _cap_override = None if nbytes is None else _cap_bytes(nbytes, "set_memory_cap")


def format_bytes(nbytes: float) -> str:
    """``1.2 GB`` style (decimal units)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} bytes"


def check_allocation(nbytes: float, what: str) -> None:
    """Raise :class:`~ubreg.errors.DataError` when ``nbytes`` exceeds the cap.

    ``what`` describes the array in the user's terms (``"the design matrix
    (1 000 rows x 100 000 columns)"``); the message gives the estimate, the cap
    and how to raise it.
    """
    cap = memory_cap()
    if nbytes > cap:
        raise DataError(
            f"{what} would need about {format_bytes(nbytes)}, over ubreg's memory cap of "
            f"{format_bytes(cap)} (a quarter of physical memory by default; raise it with "
            f"ubreg.set_memory_cap(bytes) or the environment variable UBREG_MEMORY_CAP)")
