"""Issue 27 §2, unbounded work and raw errors from options: counts of rounds are bounded
(a documented maximum, and the memory cap), and a bad value is refused at the call, naming
the option and the range it takes."""
import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError, OptionError
from ubreg.numerics.options import MAX_ROUNDS


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 400
    return pd.DataFrame({"y": rng.integers(0, 2, n), "x": rng.normal(size=n),
                         "z": rng.normal(size=n)})


@pytest.mark.parametrize("method, option, value", [
    ("uboost", "mstop", 10 ** 9), ("uboost", "mstop", -1), ("uboost", "nu", float("nan")),
    ("tboost", "rounds", 10 ** 9), ("tboost", "rounds", float("inf")),
    ("tboost", "rounds", float("nan")), ("gnnb", "T", 10 ** 12), ("gnnb", "k", 2.5),
    ("uls", "maxiter", 0), ("uls", "tol", "x"), ("uls", "tol", float("inf")),
    ("udt", "seed", -1), ("udt", "xval", float("-inf")), ("udt", "xval", "ten"),
    ("uls-stumps", "rounds", 10 ** 7),
])
def test_a_bad_option_is_refused_at_the_call_by_name(data, method, option, value):
    name, _, learner = method.partition("-")
    extra = {"learner": learner} if learner else {}
    with pytest.raises(OptionError, match=rf"^{option} must be"):
        ubreg.fit("y ~ x + z", data, method=name, **extra, **{option: value})


def test_the_maximum_is_documented_and_a_million():
    assert MAX_ROUNDS == 1_000_000


def test_gnnb_neighbours_are_bounded_by_the_memory_cap():
    rng = np.random.default_rng(1)
    n = 50_000
    d = pd.DataFrame({"y": rng.integers(0, 2, n), "x": rng.normal(size=n)})
    with pytest.raises(DataError, match="k = 40000 on 50000 rows would need about"):
        ubreg.fit("y ~ x", d, method="gnnb", k=40_000)
