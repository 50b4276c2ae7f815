"""ubreg's exceptions and warnings.

Every error a user can cause is a ``ValueError`` subclass whose message names
the problem (the column, the level, the row count).
"""
from __future__ import annotations

__all__ = [
    "UbregError", "FormulaError", "DataError", "ResponseError", "PredictionError",
    "OptionError", "ConvergenceWarning", "SeparationWarning", "PerfectFitWarning",
    "InferenceWarning", "interrupt_behind",
]


class UbregError(ValueError):
    """Base class of the errors ubreg raises on bad input."""


class FormulaError(UbregError):
    """The formula cannot be read or refers to something that is not there."""


class DataError(UbregError):
    """The data cannot be used as given (NA, inf, wrong type, no rows)."""


class ResponseError(DataError):
    """The response is not a binary variable."""


class PredictionError(UbregError):
    """New data do not match the fitted design."""


class OptionError(UbregError):
    """A method option is not one the method accepts (``ubreg.fit(..., method=m, **options)``)."""


class ConvergenceWarning(UserWarning):
    """A fitter stopped before its convergence criterion held."""


class SeparationWarning(UserWarning):
    """Fitted probabilities numerically 0 or 1: (quasi-)separation, Lemma 8."""


class PerfectFitWarning(UserWarning):
    """The fit reproduces the response exactly."""


class InferenceWarning(UserWarning):
    """The fit is fine but its Wald inference may not hold its level (a Hessian carried
    by a few rows)."""


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt at the root of a ``SystemError`` chain, or None.

    A Ctrl-C that arrives while a compiled (numba) kernel runs is raised when the kernel
    next calls into Python, and the dispatcher reports it as ``SystemError: ... returned
    a result with an exception set``, the interrupt at the end of the chain of causes.
    """
    seen = 0
    while isinstance(exc, SystemError) and seen < 32:
        nxt = exc.__cause__ or exc.__context__
        if isinstance(nxt, KeyboardInterrupt):
            return nxt
        if nxt is None:
            return None
        exc, seen = nxt, seen + 1
    return None
