"""scikit-learn's estimator invariances, for a formula interface, for every method."""
import pickle
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from test_bad_input import _fit

FORMULA = "y ~ x1 + x2 + g"


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(5)
    n = 120
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    y = (x1 - 0.5 * x2 + (g == "b") + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g})


def _values(pred):
    return np.asarray(pred, dtype=float)


def _response(m, data):
    return _values(m.predict(data, type="response"))


def test_integer_weights_equal_repeated_rows(every_method, frame):
    method = every_method
    w = np.ones(len(frame), dtype=int)
    w[::7] = 2
    w[::11] = 3
    a = _fit(method, FORMULA, frame, freq_weights=w)
    b = _fit(method, FORMULA, frame.loc[frame.index.repeat(w)].reset_index(drop=True))
    np.testing.assert_allclose(_response(a, frame), _response(b, frame), rtol=1e-7, atol=1e-9)
    assert a.nobs == pytest.approx(b.nobs)
    # prior weights (R's meaning) fit the same model; nobs counts the rows
    c = _fit(method, FORMULA, frame, weights=w)
    np.testing.assert_allclose(_response(c, frame), _response(a, frame), rtol=1e-12, atol=1e-12)
    assert c.nobs == len(frame)


def test_zero_weights_equal_removed_rows(every_method, frame):
    method = every_method
    w = np.ones(len(frame))
    w[:15] = 0
    a = _fit(method, FORMULA, frame, weights=w)
    b = _fit(method, FORMULA, frame.iloc[15:])
    np.testing.assert_allclose(_response(a, frame), _response(b, frame), rtol=1e-7, atol=1e-9)


def test_refit_is_identical(every_method, frame):
    method = every_method
    a = _fit(method, FORMULA, frame)
    b = _fit(method, FORMULA, frame)
    np.testing.assert_array_equal(_response(a, frame), _response(b, frame))


def test_row_order_does_not_change_predictions(every_method, frame):
    method = every_method
    perm = np.random.default_rng(0).permutation(len(frame))
    a = _fit(method, FORMULA, frame)
    b = _fit(method, FORMULA, frame.iloc[perm])
    np.testing.assert_allclose(_response(a, frame), _response(b, frame), atol=1e-9)


def test_subset_prediction_is_subset_of_predictions(every_method, frame):
    method = every_method
    m = _fit(method, FORMULA, frame)
    full = m.predict(frame, type="response")
    part = m.predict(frame.iloc[10:30], type="response")
    np.testing.assert_allclose(_values(part), _values(full)[10:30], rtol=1e-12, atol=1e-12)


def test_float32_input_works(every_method, frame):
    method = every_method
    f32 = frame.astype({"x1": np.float32, "x2": np.float32})
    m = _fit(method, FORMULA, f32)
    p = _response(m, f32)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p, _response(_fit(method, FORMULA, frame), frame), atol=1e-4)


def test_pickle_round_trip(every_method, frame):
    method = every_method
    m = _fit(method, FORMULA, frame)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(_response(m, frame), _response(m2, frame))
    assert str(m.summary()) == str(m2.summary())


@pytest.mark.slow
def test_pickle_from_another_version_warns(every_method, frame, monkeypatch):
    method = every_method
    # every result records the ubreg version that made it (results/base.py,
    # gnnb/result.py) and warns when another version loads it
    import ubreg
    m = _fit(method, FORMULA, frame)
    assert m.ubreg_version == ubreg.__version__
    state = m.__getstate__()
    state["ubreg_version"] = "0.0.0"
    blob = pickle.dumps(m)
    clone = pickle.loads(blob)
    with pytest.warns(UserWarning, match="pickled by ubreg 0.0.0, loaded by "
                                         f"{ubreg.__version__}; refit it"):
        clone.__setstate__(state)
    # a whole round trip, loaded by "another version": every __setstate__ asks
    # ubreg._pickling, which reads its own __version__
    loader = sys.modules["ubreg._pickling"]
    with monkeypatch.context() as patch:
        patch.setattr(loader, "__version__", "9.9.9")
        with pytest.warns(UserWarning, match=f"pickled by ubreg {ubreg.__version__}, loaded "
                                             "by 9.9.9"):
            old = pickle.loads(blob)
    np.testing.assert_array_equal(_response(old, frame), _response(m, frame))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.loads(blob)          # the same version loads silently
