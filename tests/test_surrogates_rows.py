"""The numeric surrogate search of several predictors at once (whole weights) finds what
the search of one predictor at a time finds, to the last bit."""
import numpy as np
import pytest

from ubreg.trees import surrogates as sg


@pytest.mark.parametrize("count_rows", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_rows_search_is_the_one_predictor_search(seed, count_rows):
    rng = np.random.default_rng(seed)
    g, m = 12, 60
    x = rng.integers(0, 8, (g, m)).astype(float)       # many ties
    x[rng.random((g, m)) < 0.1] = np.nan
    x[0] = np.nan                                        # no value observed
    x[1, 1:] = np.nan                                    # one value observed
    x[2] = 3.0                                           # one distinct value
    d = rng.choice(np.array([-1, 0, 1], dtype=np.int8), m, p=[0.45, 0.1, 0.45])
    d[:20] = np.where(x[3, :20] < 4, 1, -1)              # a predictor that agrees
    w = rng.integers(1, 4, m).astype(float)
    two = 2.0
    o = np.argsort(x, axis=1, kind="stable")
    got = sg._numeric_rows(np.take_along_axis(x, o, axis=1), d[o], w[o], two, count_rows)
    want = {k: sg._numeric(x[k], d, w, two, count_rows) for k in range(g)}
    assert got == {k: v for k, v in want.items() if v is not None}
    assert len(got) >= 3 and 0 not in got and 1 not in got and 2 not in got
