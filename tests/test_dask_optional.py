"""ubreg without dask: importable, in-memory fits untouched, a clear message."""
import subprocess
import sys

import pytest

import ubreg
from ubreg.dask import INSTALL_HINT, is_dask_frame, require_dask


def test_missing_dask_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)   # `import dask` now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ubreg\[dask\]'"):
        require_dask()
    with pytest.raises(ImportError, match="ubreg\\[dask\\]"):
        ubreg.dask.fit_models({"a": {"formula": "y ~ x"}}, None, scheduler="threads")
    assert "ubreg[dask]" in INSTALL_HINT


def test_pandas_data_never_reach_the_dask_path():
    import pandas as pd
    assert not is_dask_frame(pd.DataFrame({"a": [1]}))
    assert not is_dask_frame(None)
    # "uls" routes dask frames; wrappers keep the in-memory function and never nest
    # (methods registered after ubreg.dask is imported are left as they are)
    assert hasattr(ubreg.METHODS["uls"], "_ubreg_in_memory")
    for name, method in ubreg.METHODS.items():
        inner = getattr(method, "_ubreg_in_memory", None)
        assert inner is None or not hasattr(inner, "_ubreg_in_memory"), name


def test_import_ubreg_does_not_import_dask():
    code = "import sys, ubreg; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
