"""A formula cannot run code, by whichever route it reaches the formula layer: the library,
the command line, a Dask frame, the on-line learner, cross-validation, update, add1, drop1,
subset= and offset=.  Each attack would create a canary file if any part of it ran.

The attacks are the ones that ran a shell command before the formula layer was R's (a term
or response that merely started with ``cbind(`` skipped the check), plus R's own spellings
of the same intent.
"""
import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.cli import main
from ubreg.errors import FormulaError
from ubreg.methods.online import OnlineLearner

#: right-hand-side terms and whole formulas; {c} is the canary's path
TERMS = [
    "cbind(x) if 0 else __import__('os').system('touch {c}')",
    "I(__import__('os').system('touch {c}'))",
    "system('touch {c}')",
    "eval(parse(text = \"system('touch {c}')\"))",
    "`__import__`('os')",
    "x + base::system('touch {c}')",
]
FORMULAS = [
    "y ~ x + cbind(x) if 0 else __import__('os').system('touch {c}')",
    "cbind(y, y) if 0 else __import__('os').system('touch {c}') or y ~ x",
    "cbind(y, system('touch {c}')) ~ x",
    "I(system('touch {c}')) ~ x",
]


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    n = 60
    return pd.DataFrame({"y": np.tile([0, 1], n // 2), "x": rng.normal(size=n),
                         "z": rng.normal(size=n), "g": rng.choice(["a", "b"], n)})


@pytest.fixture
def canary(tmp_path):
    path = tmp_path / "canary"
    yield path
    assert not path.exists(), "a formula ran code"


def _attacks(canary):
    return [f.format(c=canary) for f in FORMULAS] + \
        [f"y ~ x + {t.format(c=canary)}" for t in TERMS]


def test_library(data, canary):
    for formula in _attacks(canary):
        with pytest.raises(FormulaError):
            ubreg.fit(formula, data)
        with pytest.raises(FormulaError):
            ubreg.fit(formula, data, method="udt", xval=0)


def test_command_line(data, canary, tmp_path, capsys):
    csv = tmp_path / "d.csv"
    data.to_csv(csv, index=False)
    for formula in _attacks(canary):
        assert main(["fit", formula, str(csv)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ubreg: error:") and "Traceback" not in err


def test_on_line_learner(data, canary):
    for formula in _attacks(canary):
        with pytest.raises(FormulaError):
            OnlineLearner(formula).partial_fit(data)
    with pytest.raises(TypeError, match="trusted must be True or False"):
        OnlineLearner("y ~ x", trusted="False")


def test_cross_validation(data, canary):
    for formula in _attacks(canary):
        with pytest.raises(FormulaError):
            ubreg.cv(formula, data, folds=3, seed=1)


def test_update_add1_drop1(data, canary):
    m = ubreg.fit("y ~ x + z", data)
    for term in TERMS:
        term = term.format(c=canary)
        with pytest.raises(FormulaError):
            m.update(f". ~ . + {term}")
        with pytest.raises(FormulaError):
            ubreg.add1(m, f"~ . + {term}")
        with pytest.raises(FormulaError):
            ubreg.drop1(m, f"~ {term}")
    for formula in _attacks(canary):
        with pytest.raises(FormulaError):
            m.update(formula)


def test_subset_and_offset(data, canary):
    for term in TERMS:
        term = term.format(c=canary)
        with pytest.raises(FormulaError):
            ubreg.fit("y ~ x", data, subset=term)
        with pytest.raises(FormulaError):
            ubreg.fit("y ~ x", data, offset=term)


@pytest.mark.slow
def test_dask_frame(data, canary):
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(data, npartitions=2)
    for formula in _attacks(canary):
        for method in ("uls", "udt", "uboost"):
            with pytest.raises(FormulaError):
                ubreg.fit(formula, ddf, method=method)
