"""Pickling of patsy's design objects.

patsy refuses to pickle its design objects (``DesignInfo``, ``FactorInfo``,
``SubtermInfo``, ``ContrastMatrix``, ``Term``), because an ``EvalFactor`` may hold
arbitrary code and caller frames.  ubreg's factors hold only checked syntax trees
and the state they learned (:class:`~ubreg.design.rfactor.RFactor`), so the design is
pickled by the objects' attributes and rebuilt the same way.
"""
from __future__ import annotations

import io
import pickle

__all__: list[str] = []


def _new_patsy_object(cls):
    return cls.__new__(cls)


class _DesignPickler(pickle.Pickler):
    """Pickles patsy's and ubreg.design's objects by their ``__dict__``."""

    def reducer_override(self, obj):
        cls = type(obj)
        ours = cls.__module__.startswith(("patsy.", "ubreg.design."))
        if ours and hasattr(obj, "__dict__") and not isinstance(obj, type):
            return _new_patsy_object, (cls,), dict(obj.__dict__)
        return NotImplemented


def _dumps_design_info(design_info) -> bytes:
    buf = io.BytesIO()
    _DesignPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(design_info)
    return buf.getvalue()
