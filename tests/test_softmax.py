"""``log_softmax``: the class-by-class path (fewer than 8 classes) gives the numbers of
the row-wise reductions to the bit, at any scores, and leaves its input alone."""
import numpy as np
import pytest

from ubreg.numerics.softmax import log_softmax


def _row_wise(scores):
    z = scores - scores.max(axis=1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))


@pytest.mark.parametrize("K", range(1, 11))
@pytest.mark.parametrize("order", ["C", "F"])
def test_same_numbers_as_the_row_wise_reductions(K, order):
    rng = np.random.default_rng(K)
    scores = np.asarray(rng.normal(size=(5000, K)) * 10.0 ** rng.uniform(-3, 3, (5000, 1)),
                        order=order)
    scores[:4] = np.array([[1e300] * K, [-1e300] * K, [np.inf] + [0.0] * (K - 1),
                           [np.nan] * K])
    before = scores.copy()
    with np.errstate(all="ignore"):
        got, expected = log_softmax(scores), _row_wise(scores)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(scores, before, equal_nan=True)
