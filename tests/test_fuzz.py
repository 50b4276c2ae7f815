"""Random data frames, small formulas and every method: a fit succeeds with finite outputs or
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

# every registered method, with small settings (the bad-input matrix's table)
from test_bad_input import METHOD_NAMES, OPTIONS  # noqa: E402

FUZZ_METHODS = sorted(METHOD_NAMES)


def _options(method, solver_choice):
    opts = dict(OPTIONS[method][0])
    if method == "uls":
        opts.update(solver=solver_choice, maxiter=200)
    return method.split("-")[0], opts


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
    method = draw(st.sampled_from(FUZZ_METHODS))
    family = draw(st.sampled_from(["entropy", "gini", "matsushita", "mu", "power", "exponential"]
                                  if method == "uls" else ["entropy", "gini", "matsushita"]))
    if method.startswith("uls") or method == "udt":
        # trees take no interaction terms; a formula error is a documented outcome too
        pass
    return frame, "y ~ " + " + ".join(terms), family, method


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(frames_and_formulas())
def test_fit_succeeds_finitely_or_raises_a_documented_error(case):
    frame, formula, family, method = case
    name, opts = _options(method, "coordinate" if len(frame) % 2 else "corrective")
    if name in ("gnnb", "unn"):
        opts["k"] = 1
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            m = ubreg.fit(formula, frame, family=family, method=name, **opts)
        except UbregError:
            return
        finally:
            pd.testing.assert_frame_equal(frame, before)
    if hasattr(m, "coef") and hasattr(m, "aliased"):
        assert np.all(np.isfinite(m.coef[~m.aliased]))
    link = np.asarray(m.predict(type="link"), dtype=float)
    assert np.all(np.isfinite(link))
    if name not in ("gnnb", "unn"):
        assert np.isfinite(m.deviance) and m.deviance >= 0
    str(m.summary())
