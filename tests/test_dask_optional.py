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
    # "uls" routes dask frames; every method is wrapped (also those registered
    # after ubreg.dask is imported, like "tboost"); wrappers keep the in-memory
    # function and never nest
    assert hasattr(ubreg.METHODS["uls"], "_ubreg_in_memory")
    for name, method in ubreg.METHODS.items():
        inner = getattr(method, "_ubreg_in_memory", None)
        assert inner is not None, name
        assert not hasattr(inner, "_ubreg_in_memory"), name


def test_the_uls_router_declares_its_own_options():
    """ubreg.fit checks options through ``options_for``: the router's adds the
    dask-only ones (only when given) to the in-memory method's."""
    from ubreg.dask import dask_only_options
    router = ubreg.METHODS["uls"]
    inner = router._ubreg_in_memory
    assert router.options_for is not inner.options_for
    assert "persist" in dask_only_options()
    assert router.options_for({}) == inner.options_for({})
    label, names = router.options_for({"persist": False})
    assert label == "'uls'" and names[-1] == "persist"


def test_import_ubreg_does_not_import_dask():
    code = ("import sys, ubreg, pandas as pd; "
            "ubreg.fit('y ~ x', pd.DataFrame({'x': [0., 1, 2, 3, 4, 5], 'y': [0, 1, 0, 1, 1, 0]})); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
