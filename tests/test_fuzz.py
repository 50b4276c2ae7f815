"""Random data frames and small formulas: a fit succeeds with finite outputs or
raises one of ubreg's documented errors — never another exception, never a hang.
"""
import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ubreg
from ubreg.errors import UbregError

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, 1e300, -1e-300]


@st.composite
def frames_and_formulas(draw):
    n = draw(st.integers(min_value=0, max_value=25))
    cols = {}
    for j in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["normal", "special", "constant", "category", "int"]))
        if kind == "normal":
            vals = draw(st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n))
        elif kind == "special":
            vals = draw(st.lists(st.one_of(st.floats(-10, 10), st.sampled_from(SPECIAL)),
                                 min_size=n, max_size=n))
        elif kind == "constant":
            vals = [draw(st.floats(-5, 5))] * n
        elif kind == "int":
            vals = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
        else:
            vals = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
        cols[f"x{j}"] = vals
    yk = draw(st.sampled_from(["binary", "bool", "labels", "one", "three", "with_na"]))
    if yk == "binary":
        y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    elif yk == "bool":
        y = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif yk == "labels":
        y = draw(st.lists(st.sampled_from(["neg", "pos"]), min_size=n, max_size=n))
    elif yk == "one":
        y = [1] * n
    elif yk == "three":
        y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    else:
        y = draw(st.lists(st.sampled_from([0.0, 1.0, np.nan]), min_size=n, max_size=n))
    frame = pd.DataFrame({"y": y, **cols}) if n else pd.DataFrame({"y": [], **{k: [] for k in cols}})
    names = list(cols)
    terms = draw(st.lists(st.sampled_from(names + [f"I({names[0]} ** 2)", f"C({names[0]})",
                                                   f"{names[0]}:{names[-1]}"]),
                          min_size=1, max_size=3))
    family = draw(st.sampled_from(["entropy", "gini", "matsushita", "mu", "power", "exponential"]))
    solver = draw(st.sampled_from(["corrective", "coordinate"]))
    return frame, "y ~ " + " + ".join(terms), family, solver


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frames_and_formulas())
def test_fit_succeeds_finitely_or_raises_a_documented_error(case):
    frame, formula, family, solver = case
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            m = ubreg.fit(formula, frame, family=family, solver=solver, maxiter=200)
        except UbregError:
            return
        finally:
            pd.testing.assert_frame_equal(frame, before)
    coef = m.coef[~m.aliased]
    assert np.all(np.isfinite(coef))
    assert np.isfinite(m.deviance) and m.deviance >= 0
    assert np.all(np.isfinite(m.predict(type="link")))
    str(m.summary())
