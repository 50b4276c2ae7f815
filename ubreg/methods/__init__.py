"""Fitting methods; importing a module registers its methods in ``ubreg.fit.METHODS``."""
from . import udt, uls  # noqa: F401
