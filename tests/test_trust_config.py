"""Issue 27 §2, configuration and column names: a setting is validated where it is read and
its error names the setting and what it accepts; no setting raises a raw Python error."""
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.numerics.limits import memory_cap, set_memory_cap
from ubreg.numerics.threads import workers


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e999, 0.5, True, False, -1,
                                   "8GB", None])
def test_set_memory_cap_takes_a_whole_number_of_bytes(value):
    if value is None:
        set_memory_cap(None)
        return
    try:
        with pytest.raises(ValueError, match="memory cap"):
            set_memory_cap(value)
    finally:
        set_memory_cap(None)


def test_set_memory_cap_accepts_bytes():
    try:
        set_memory_cap(2 ** 30)
        assert memory_cap() == 2 ** 30
        set_memory_cap(1.5e9)                      # a whole number given as a float
        assert memory_cap() == 1_500_000_000
    finally:
        set_memory_cap(None)


@pytest.mark.parametrize("text", ["1e999", "0.5", "inf", "nan", "-3GB", "abc", "1e999GB", "0"])
def test_the_memory_cap_variable_is_validated_by_name(monkeypatch, text):
    monkeypatch.setenv("UBREG_MEMORY_CAP", text)
    with pytest.raises(ValueError, match="UBREG_MEMORY_CAP"):
        memory_cap()


def test_the_memory_cap_variable_reads_units(monkeypatch):
    monkeypatch.setenv("UBREG_MEMORY_CAP", "512MiB")
    assert memory_cap() == 512 * 2 ** 20


@pytest.mark.parametrize("text", ["abc", "1.5", "0", "-2", "1e9", ""])
def test_the_threads_variable_is_validated_by_name(monkeypatch, text):
    monkeypatch.setenv("UBREG_THREADS", text)
    if text == "":
        assert workers() >= 1                      # unset: the cores
        return
    with pytest.raises(ValueError, match="UBREG_THREADS"):
        workers()


def test_the_threads_variable_reads_a_count(monkeypatch):
    monkeypatch.setenv("UBREG_THREADS", "3")
    assert workers() == 3


@pytest.mark.parametrize("name", ["Intercept", "(Intercept)", "__id", "_x", "if", "1st"])
def test_awkward_column_names_fit_and_are_named_as_r_names_them(name):
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"y": np.tile([0, 1], 30), name: rng.normal(size=60)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ubreg.fit("y ~ .", d)
    label = name if name.isidentifier() and not name.startswith("_") and name != "if" \
        else f"`{name}`"
    assert list(m.coef.index) == ["(Intercept)", label]
    same = ubreg.fit(f"y ~ {label}", d)
    np.testing.assert_allclose(same.coef.to_numpy(), m.coef.to_numpy())


@pytest.mark.parametrize("name, written", [
    ("class", "class"), ("lambda", "lambda"), ("import", "import"), ("True", "True"),
    ("if", "`if`"), ("in", "`in`"), ("for", "`for`"), ("function", "`function`"),
])
def test_columns_named_like_keywords_are_written_as_r_writes_them(name, written):
    # Python's keywords are names to R; R's reserved words need backticks, as in R
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"y": np.tile([0, 1], 30), name: rng.normal(size=60)})
    m = ubreg.fit(f"y ~ {written}", d)
    assert list(m.coef.index) == ["(Intercept)", written]
    if written != name:
        with pytest.raises(ubreg.errors.FormulaError, match=rf"backticks, `{name}`|R's {name}"):
            ubreg.fit(f"y ~ {name}", d)
