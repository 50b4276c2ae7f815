"""Formulas are checked against an allowlist before patsy evaluates them."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import ConvergenceWarning, FormulaError


@pytest.fixture
def frame():
    rng = np.random.default_rng(2)
    n = 60
    return pd.DataFrame({"y": rng.integers(0, 2, n), "x": rng.uniform(1, 2, n),
                         "z": rng.normal(size=n), "g": rng.choice(["a", "b"], n),
                         "h": rng.choice(["p", "q", "r"], n)})


@pytest.mark.parametrize("term", [
    "I(__import__('os').system('touch {path}'))",
    "I(x.__class__)",
    "I((lambda: 1)())",
    "I([v for v in x])",
    "eval('1')",
    "I(open('{path}', 'w'))",
    "np.lib.npyio.savetxt('{path}', x)",
    "I('string')",
    "getattr(x, 'sum')",
])
def test_injection_is_rejected_before_evaluation(frame, tmp_path, term):
    path = tmp_path / "F"
    with pytest.raises(FormulaError, match="not allowed|unknown name|names column"):
        ubreg.fit("y ~ x + " + term.format(path=path), frame)
    assert not path.exists()


def test_injection_on_the_left_is_rejected(frame, tmp_path):
    path = tmp_path / "F"
    with pytest.raises(FormulaError):
        ubreg.fit(f"I(__import__('os').system('touch {path}')) ~ x", frame)
    assert not path.exists()


# every name of README "Formulas" (np, log, log2, log10, log1p, exp, expm1, sqrt, abs,
# C, I, Q, center, standardize, scale, bs, cr, cc, te) and every contrast
@pytest.mark.parametrize("rhs", [
    "x + z", "np.log(x) + np.sqrt(x)", "log(x) + exp(z) + log1p(x)", "center(x) + standardize(z)",
    "log2(x) + log10(x)", "expm1(z) + abs(z)", "sqrt(x)", "np.log2(x) + np.abs(z)",
    "scale(z)", "C(g)", "C(g, Treatment('b'))", "C(g, Sum)", "I(x ** 2) + I(x > 1.5)",
    "C(h, Treatment)", "C(h, Treatment(reference='r'))", "C(h, Sum)", "C(h, Sum(omit='q'))",
    "C(h, Poly)", "C(h, Helmert)", "C(h, Diff)",
    "bs(x, df=3)", "cr(x, df=3)", "cc(z, df=4)", "te(cr(x, df=3), cc(z, df=3))",
    "Q('x') + x:z", "np.clip(z, -1, 1)", "np.clip(z, a_min=-1, a_max=1)", "x * z",
    "np.round(x, decimals=1)", "np.power(x, 2) + np.maximum(z, 0)", "np.where(z > 0, x, 0)",
])
def test_documented_transforms_still_work(frame, rhs):
    m = ubreg.fit(f"y ~ {rhs}", frame)
    assert np.all(np.isfinite(m.coef.dropna()))
    # the design rebuilds on new data (stateful transforms keep the training state)
    new = frame.sample(frac=1.0, random_state=0).head(25)
    np.testing.assert_allclose(m.predict(new, type="link"),
                               m.predict(type="link")[new.index], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("term, why", [
    ("np.log(x, out=z)", "keyword argument out= of np.log"),
    ("log(x, out=z)", "keyword argument out= of log"),
    ("np.exp(z, where=z > 0)", "keyword argument where= of np.exp"),
    ("sqrt(x, where=x > 1, out=z)", "keyword argument where= of sqrt"),
    ("np.abs(z, dtype=x)", "keyword argument dtype= of np.abs"),
    ("log(x, z)", r"log takes at most 1 positional argument\(s\) here, got 2"),
    ("np.log1p(x, z)", r"np.log1p takes at most 1 positional argument"),
    ("np.maximum(x, z, z)", r"np.maximum takes at most 2 positional argument"),
    ("np.clip(z, -1, 1, z)", r"np.clip takes at most 3 positional argument"),
    ("np.round(x, 1, z)", r"np.round takes at most 2 positional argument"),
    ("np.clip(z, -1, 1, out=z)", "keyword argument out= of np.clip"),
    ("I(np.log(x, out=z) + 1)", "keyword argument out= of np.log"),
    ("np.pi(x)", "np.pi is not a function"),
    ("np(x)", "call of 'np'"),
])
def test_ufunc_out_where_and_extra_arguments_are_rejected(frame, term, why):
    before = frame.copy()
    with pytest.raises(FormulaError, match=rf"{re.escape(term)}.*not allowed: {why}"):
        ubreg.fit("y ~ x + " + term, frame)
    pd.testing.assert_frame_equal(frame, before)


def test_out_argument_is_allowed_only_when_trusted(frame):
    # trusted=True evaluates the term as written (the caller's responsibility)
    m = ubreg.fit("y ~ np.log(x, out=np.empty(len(x)))", frame, trusted=True)
    assert np.all(np.isfinite(m.coef))


@pytest.mark.parametrize("formula, names", [
    # a column called "." and a level called "." are not the '.' of R's 'y ~ .'
    ("y ~ Q('.') + x", ["Intercept", "Q('.')", "x"]),
    ('y ~ Q(".")', ["Intercept", 'Q(".")']),
    ("y ~ x + C(k, Treatment('.'))", ["Intercept", "C(k, Treatment('.'))[T.u]", "x"]),
    # '.' itself still expands, and leaves the quoted name alone
    ("y ~ . - Q('.') - k - g - h", ["Intercept", "x", "z"]),
])
def test_dot_inside_a_string_literal_is_not_expanded(frame, formula, names):
    d = frame.assign(**{".": frame.z * 2, "k": np.where(frame.g == "a", ".", "u")})
    m = ubreg.fit(formula, d)
    assert list(m.coef.index) == names


def test_trusted_opts_out(frame):
    # a harmless call outside the allowlist goes through only when trusted
    with pytest.raises(FormulaError, match="not allowed"):
        ubreg.fit("y ~ np.cumsum(z)", frame)
    m = ubreg.fit("y ~ np.cumsum(z)", frame, trusted=True)
    assert "np.cumsum(z)" in m.coef.index


# ---- every method ---------------------------------------------------------------------
from conftest import method_case  # noqa: E402
from test_bad_input import METHOD_NAMES  # noqa: E402


def _fit_method(method, formula, data, **kw):
    return ubreg.fit(formula, data, method=method_case(method).method,
                     **{**method_case(method).options, **kw})


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_injection_is_rejected_for_every_method(frame, tmp_path, method):
    path = tmp_path / "F"
    with pytest.raises(FormulaError, match="not allowed"):
        _fit_method(method, f"y ~ x + I(__import__('os').system('touch {path}'))", frame)
    with pytest.raises(FormulaError, match="keyword argument out= of np.log"):
        _fit_method(method, "y ~ x + np.log(x, out=z)", frame)
    assert not path.exists()


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_trusted_opts_out_for_every_method(frame, method):
    with pytest.raises(FormulaError, match="not allowed"):
        _fit_method(method, "y ~ x + np.cumsum(z)", frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)     # small data: |δ| may be capped
        m = _fit_method(method, "y ~ x + np.cumsum(z)", frame, trusted=True)
    assert np.all(np.isfinite(np.asarray(m.predict(frame, type="link"), dtype=float)))
