"""The evaluation namespace of formulas, and pickling of patsy's design objects.

Formulas are evaluated in a fixed namespace (numpy as ``np``, a few numpy
functions, and patsy's builtins ``C``, ``I``, ``Q``, ``center``, ``standardize``,
``scale``, ``bs``, ``cr``, ``cc``, ``te``): never the caller's variables.  That makes a
fitted design reproducible and picklable.
"""
from __future__ import annotations

import builtins
import io
import pickle

import numpy as np
from patsy import EvalEnvironment

__all__ = ['FORMULA_NAMESPACE']


#: names a formula may use besides the data's columns
FORMULA_NAMESPACE = {
    "np": np,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs,
}


_PATSY_BUILTINS: dict = {}
exec("from patsy.builtins import *", {}, _PATSY_BUILTINS)


def _environment() -> EvalEnvironment:
    return EvalEnvironment([dict(FORMULA_NAMESPACE)])


def _restore_environment(names):
    ns = {}
    for name in names:
        if name in FORMULA_NAMESPACE:
            ns[name] = FORMULA_NAMESPACE[name]
        elif name in _PATSY_BUILTINS:
            ns[name] = _PATSY_BUILTINS[name]
        elif hasattr(builtins, name):
            ns[name] = getattr(builtins, name)
    return EvalEnvironment([ns])


def _new_patsy_object(cls):
    return cls.__new__(cls)


class _DesignPickler(pickle.Pickler):
    """Pickles patsy objects by their ``__dict__``.

    patsy refuses pickling because an EvalEnvironment may hold arbitrary
    caller frames.  Ours only ever holds :data:`FORMULA_NAMESPACE`, so an
    environment is stored as the list of names it resolves and rebuilt.
    """

    def reducer_override(self, obj):
        if isinstance(obj, EvalEnvironment):
            names = sorted({k for ns in obj._namespaces for k in ns})
            return _restore_environment, (names,)
        cls = type(obj)
        if cls.__module__.startswith("patsy.") and hasattr(obj, "__dict__") and not isinstance(obj, type):
            return _new_patsy_object, (cls,), dict(obj.__dict__)
        return NotImplemented


def _dumps_design_info(design_info) -> bytes:
    buf = io.BytesIO()
    _DesignPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(design_info)
    return buf.getvalue()


def _known_names() -> set[str]:
    return set(FORMULA_NAMESPACE) | set(_PATSY_BUILTINS) | set(dir(builtins))
