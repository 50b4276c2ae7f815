"""Issue 27 §2, unbounded work and raw errors from options: counts of rounds are bounded
(a documented maximum, and the memory cap), and a bad value is refused at the call, naming
the option and the range it takes."""
import warnings

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


def _option_cases():
    from ubreg.methods.registry import METHODS
    for name, method in METHODS.items():
        variants = [{}] + ([{"learner": x} for x in ("stumps", "rules", "trees")]
                           if name == "uls" else [])
        for base in variants:
            for option in method.schema_for(base).names(on_dask=False, public=True):
                if option not in base:
                    yield name, base, option


BAD_VALUES = ["x", -1, -0.5, 1e30, float("inf"), float("-inf"), float("nan"), [1]]


@pytest.mark.slow
@pytest.mark.xdist_group("timing")        # each fit under an alarm
def test_every_option_of_every_method_is_refused_by_name_or_accepted():
    """Of 900 (option, bad value) pairs over every method, 52 ended in a TypeError, an
    OverflowError or a numpy message that did not name the option (tol='x', seed=-1,
    max_bins=inf, max_candidates=-1, min_split=[1]); and corrective, select, inner_folds,
    seed (uls's weak learners), standardize and trace took anything.  Now each value is
    accepted (a fit, finite) or refused with a ValueError or TypeError naming the option."""
    import signal
    data = ubreg.datasets.load_pima().dropna().reset_index(drop=True).head(120)
    unnamed = []

    def too_long(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, too_long)
    try:
        for name, base, option in _option_cases():
            for value in BAD_VALUES:
                signal.alarm(30)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ubreg.fit("diabetes ~ glucose + mass", data, method=name, **base,
                                  **{option: value})
                except (ValueError, TypeError) as exc:
                    if option not in str(exc):
                        unnamed.append((name, base, option, value, str(exc)[:80]))
                except Exception as exc:            # noqa: BLE001 - the test's point
                    unnamed.append((name, base, option, value, repr(exc)[:80]))
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert unnamed == []


@pytest.mark.parametrize("method, option, value", [
    ("gnnb", "standardize", "False"), ("gnnb", "trace", 1), ("tboost", "t", True),
    ("uls", "corrective", "yes")])
def test_flags_take_bools_only(method, option, value):
    data = ubreg.datasets.load_pima().dropna().reset_index(drop=True).head(120)
    extra = {"learner": "stumps"} if option == "corrective" else {}
    with pytest.raises(ValueError, match=option):
        ubreg.fit("diabetes ~ glucose + mass", data, method=method, **extra, **{option: value})
