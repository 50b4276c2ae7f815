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


@pytest.mark.parametrize("K", [1, 4, 7, 8, 11])
def test_a_work_gives_the_same_numbers_call_after_call(K):
    """With a ``SoftmaxWork`` the arrays are reused (a boosting round's page faults), the
    numbers those of the call without it, whatever the previous call left in them."""
    from ubreg.numerics.softmax import SoftmaxWork
    rng = np.random.default_rng(K)
    work = SoftmaxWork(3000, K)
    for scale in (1.0, 1e3, 1e-3):
        scores = rng.normal(size=(3000, K)) * scale
        scores[0] = np.inf if K > 1 else 0.0
        with np.errstate(all="ignore"):
            got, expected = log_softmax(scores, work), log_softmax(scores)
        assert np.array_equal(got, expected, equal_nan=True)


def test_a_multiclass_round_forms_numpys_numbers():
    """The compiled passes of a K-class U-Boost round: g, h and F's update to the bit of
    the NumPy expressions they replace, on one core and split across the cores."""
    from ubreg.fitters.boost.multinomial import _Round
    rng = np.random.default_rng(0)
    n, K = 30000, 4
    codes = rng.integers(0, K, n)
    w = rng.uniform(0.1, 3.0, n)
    F = rng.normal(size=(n, K))
    for chunks in (1, 2):
        arrays = _Round(n, K, codes)
        arrays.chunks = chunks
        risk = arrays.start(F, w, w.sum())
        log_p = log_softmax(F)
        assert risk == float(-np.sum(w * log_p[np.arange(n), codes]) / w.sum())
        P, Y = np.exp(log_p), np.eye(K)[codes]
        stats = np.empty((n, 2))
        for k in range(K):
            arrays.class_stats(k, w, stats)
            assert np.array_equal(stats[:, 0], w * (P[:, k] - Y[:, k]))
            assert np.array_equal(stats[:, 1], w * P[:, k] * (1.0 - P[:, k]))
        value, node = rng.normal(size=15), rng.integers(7, 15, n).astype(np.int32)
        G, expected = F.copy(), F.copy()
        arrays.advance(G, 2, 0.1, value, node)
        expected[:, 2] += 0.1 * value[node]
        assert np.array_equal(G, expected)
