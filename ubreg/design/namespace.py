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

from . import splines, transforms

__all__ = ["FORMULA_NAMESPACE", "NUMPY_FUNCTIONS", "TRANSFORMS", "ESCAPE"]


#: numpy ufuncs a formula may call by bare name
NUMPY_FUNCTIONS = {
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs,
}

#: stateful transforms, skipping missing values as R's do (:mod:`.transforms`)
TRANSFORMS = {"center": transforms.center, "standardize": transforms.standardize,
              "scale": transforms.scale, "bs": transforms.bs, "cr": transforms.cr,
              "cc": transforms.cc, "poly": splines.poly, "ns": splines.ns}

#: names a formula may use besides the data's columns
FORMULA_NAMESPACE = {"np": np, **NUMPY_FUNCTIONS, **TRANSFORMS}

_PATSY_BUILTINS: dict = {}
exec("from patsy.builtins import *", {}, _PATSY_BUILTINS)

#: prefix of the second name under which every function of a formula is reachable: a
#: column called ``C`` or ``log`` hides the function of that name from patsy, so a call
#: ``C(g)`` is evaluated as ``_ubreg_fn_C(g)`` when the data have such a column
ESCAPE = "_ubreg_fn_"


def _lookup(name: str):
    """The object a formula name stands for (``None`` if it is not one of ours)."""
    if name.startswith(ESCAPE):
        name = name[len(ESCAPE):]
    if name in FORMULA_NAMESPACE:
        return FORMULA_NAMESPACE[name]
    return _PATSY_BUILTINS.get(name)


def _namespace() -> dict:
    names = {**_PATSY_BUILTINS, **FORMULA_NAMESPACE}
    return {**FORMULA_NAMESPACE, **{ESCAPE + k: v for k, v in names.items()}}


def _environment() -> EvalEnvironment:
    return EvalEnvironment([_namespace()])


def _restore_environment(names):
    ns = {}
    for name in names:
        if _lookup(name) is not None:
            ns[name] = _lookup(name)
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
        ours = cls.__module__.startswith(("patsy.", "ubreg.design."))
        if ours and hasattr(obj, "__dict__") and not isinstance(obj, type):
            return _new_patsy_object, (cls,), dict(obj.__dict__)
        return NotImplemented


def _dumps_design_info(design_info) -> bytes:
    buf = io.BytesIO()
    _DesignPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(design_info)
    return buf.getvalue()


def _known_names() -> set[str]:
    return set(FORMULA_NAMESPACE) | set(_PATSY_BUILTINS) | set(dir(builtins))
