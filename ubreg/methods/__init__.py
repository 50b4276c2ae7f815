"""Fitting methods; importing a module registers its methods in ``ubreg.fit.METHODS``."""
from . import uls  # noqa: F401
