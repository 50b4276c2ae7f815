"""ubreg without dask: importable, in-memory fits untouched, a clear message."""
import subprocess
import sys

import pytest

import ubreg
from ubreg.dask import INSTALL_HINT, is_dask_frame, require_dask
from ubreg.evaluate.parallel import fit_models


def test_missing_dask_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)   # `import dask` now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ubreg\[dask\]'"):
        require_dask()
    with pytest.raises(ImportError, match="ubreg\\[dask\\]"):
        fit_models({"a": {"formula": "y ~ x"}}, None, scheduler="threads")
    assert "ubreg[dask]" in INSTALL_HINT


def test_pandas_data_never_reach_the_dask_path():
    import pandas as pd
    assert not is_dask_frame(pd.DataFrame({"a": [1]}))
    assert not is_dask_frame(None)


def test_the_registry_declares_the_dask_backends():
    """``uls``, ``udt`` and ``uboost`` have a Dask backend: a function of the method
    that imports ``ubreg.dask`` only when a Dask frame arrives (tests/test_schema.py
    checks that the backends take the schema's options)."""
    assert {n for n, m in ubreg.METHODS.items() if m.dask} == {"uls", "udt", "uboost"}
    for name in ("uls", "udt", "uboost"):
        assert ubreg.METHODS[name].dask_backend().__module__ == f"ubreg.methods.{name}"
    assert ubreg.METHODS["uls"].schema_for({}).names(on_dask=True) == [
        "learner", "solver", "tol", "maxiter", "on_separation", "persist"]


@pytest.mark.slow
def test_import_ubreg_does_not_import_dask():
    code = ("import sys, ubreg, pandas as pd; "
            "ubreg.fit('y ~ x', "
            "pd.DataFrame({'x': [0., 1, 2, 3, 4, 5], 'y': [0, 1, 0, 1, 1, 0]})); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
