"""Formulas are R: read whole, every node checked against the allowlist before anything is
evaluated, and evaluated by ubreg's interpreter (no text reaches Python's eval)."""
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
    # Python
    "I(__import__('os').system('touch {path}'))",
    "I(x.__class__)",
    "I((lambda: 1)())",
    "I([v for v in x])",
    "eval('1')",
    "I(open('{path}', 'w'))",
    "np.lib.npyio.savetxt('{path}', x)",
    "I('string')",
    "getattr(x, 'sum')",
    "cbind(x) if 0 else __import__('os').system('touch {path}')",
    "`__import__`('os')",
    # R
    "system('touch {path}')",
    "eval(parse(text = 'system(\\'touch {path}\\')'))",
    "base::system('touch {path}')",
    "do.call('system', list('touch {path}'))",
    "I(get('system')('touch {path}'))",
    "writeLines('x', '{path}')",
    "x$y",
    "x[1]",
    "{{x}}",
    "(function(v) v)(x)",
    "I(x <- 1)",
    "I(Sys.setenv(A = 1))",
])
def test_injection_is_rejected_before_evaluation(frame, tmp_path, term):
    path = tmp_path / "F"
    with pytest.raises(FormulaError, match="not allowed|cannot read|names column"):
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
    "C(g, contr.sum)", "C(h, contr.helmert)", "C(h, contr.treatment(3, base = 2))",
    "factor(g) + relevel(h, ref = 'q')", "poly(x, 2) + ns(z, df = 2)", "log(x, 2)",
    "I(h %in% c('p', 'q')) + ifelse(z > 0, x, 0)", "cut(z, c(-5, 0, 5))",
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
    ("np.log(x, out = z)", r"np.log\(\) has no argument 'out'"),
    ("log(x, out = z)", r"log\(\) has no argument 'out' \(its arguments: x, base\)"),
    ("np.exp(z, where = z > 0)", r"np.exp\(\) has no argument 'where'"),
    ("sqrt(x, where = x > 1, out = z)", r"sqrt\(\) has no argument 'where'"),
    ("np.abs(z, dtype = x)", r"np.abs\(\) has no argument 'dtype'"),
    ("log(x, z)", r"log\(x, z\): z must be a value written in the formula"),
    ("np.log1p(x, z)", r"np.log1p\(\) takes at most 1 argument"),
    ("np.maximum(x, z, z)", r"np.maximum\(\) takes at most 2 argument"),
    ("np.clip(z, -1, 1, z)", r"np.clip\(\) takes at most 3 argument"),
    ("np.round(x, 1, z)", r"np.round\(\) takes at most 2 argument"),
    ("np.clip(z, -1, 1, out = z)", r"np.clip\(\) has no argument 'out'"),
    ("I(np.log(x, out = z) + 1)", r"np.log\(\) has no argument 'out'"),
    ("np.pi(x)", "unknown function 'np.pi'"),
    ("np(x)", "unknown function 'np'"),
])
def test_ufunc_out_where_and_extra_arguments_are_rejected(frame, term, why):
    before = frame.copy()
    with pytest.raises(FormulaError, match=why):
        ubreg.fit("y ~ x + " + term, frame)
    pd.testing.assert_frame_equal(frame, before)


def test_trusted_widens_the_functions_but_runs_no_code(frame):
    # trusted=True reaches numpy's functions, with values and numbers as arguments only
    m = ubreg.fit("y ~ np.cumsum(z) + np.arcsinh(x)", frame, trusted=True)
    assert {"np.cumsum(z)", "np.arcsinh(x)"} <= set(m.coef.index)
    with pytest.raises(FormulaError, match="must be a value written in the formula"):
        ubreg.fit("y ~ np.cumsum(z, out = z)", frame, trusted=True)
    for text in ("y ~ np.load('f')", "y ~ np.lib.npyio.savetxt('f', x)",
                 "y ~ I(__import__('os'))"):
        with pytest.raises(FormulaError):
            ubreg.fit(text, frame, trusted=True)
    with pytest.raises(TypeError, match="trusted must be True or False"):
        ubreg.fit("y ~ x", frame, trusted="False")


@pytest.mark.parametrize("formula, names", [
    # a column called "." and a level called "." are not the '.' of R's 'y ~ .'
    ("y ~ Q('.') + x", ["(Intercept)", "`.`", "x"]),
    ('y ~ Q(".")', ["(Intercept)", "`.`"]),
    ("y ~ `.` + x", ["(Intercept)", "`.`", "x"]),
    ("y ~ x + C(k, Treatment('.'))", ["(Intercept)", "x", 'C(k, Treatment("."))u']),
    # '.' itself still expands, and leaves the quoted name alone
    ("y ~ . - Q('.') - k - g - h", ["(Intercept)", "x", "z"]),
])
def test_dot_inside_a_string_literal_is_not_expanded(frame, formula, names):
    d = frame.assign(**{".": frame.z * 2, "k": np.where(frame.g == "a", ".", "u")})
    m = ubreg.fit(formula, d)
    assert list(m.coef.index) == names


def test_trusted_opts_out(frame):
    # a harmless call outside the allowlist goes through only when trusted
    with pytest.raises(FormulaError, match="not allowed: unknown function 'np.cumsum'.*"
                       "trusted=True"):
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
    with pytest.raises(FormulaError, match="cannot read"):
        _fit_method(method, f"y ~ x + I(__import__('os').system('touch {path}'))", frame)
    with pytest.raises(FormulaError, match="not allowed: unknown function 'system'"):
        _fit_method(method, f"y ~ x + system('touch {path}')", frame)
    with pytest.raises(FormulaError, match="has no argument 'out'"):
        _fit_method(method, "y ~ x + np.log(x, out = z)", frame)
    assert not path.exists()


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_trusted_opts_out_for_every_method(frame, method):
    with pytest.raises(FormulaError, match="not allowed"):
        _fit_method(method, "y ~ x + np.cumsum(z)", frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)     # small data: |δ| may be capped
        m = _fit_method(method, "y ~ x + np.cumsum(z)", frame, trusted=True)
    assert np.all(np.isfinite(np.asarray(m.predict(frame, type="link"), dtype=float)))


# ---- found by the grammar fuzz test (tests/test_formula_fuzz.py): each once a crash or a
# hang, now a fit or one of ubreg's errors, quickly -------------------------------------------
@pytest.mark.parametrize("formula, outcome", [
    ("y ~ (x + z)^1e9", "fit"),                                   # R's power: a no-op past m
    ("y ~ (x + z)^1e999", "invalid power"),                       # OverflowError
    ("y ~ " + "I(" * 60 + "x" + ")" * 60, "fit"),                 # exponential checking
    ("y ~ " + "sqrt(" * 60 + "x" + ")" * 60, "fit"),
    ("y" + " ~ x" * 1200, "one '~'"),                             # RecursionError
    ("y ~ x + \u00b2", "unexpected character"),                   # AssertionError
    ("y ~ x:z + x:y", "fit"),                                     # KeyError: the response
    ("pi ~ x", "reads no column"), ("T ~ x", "reads no column"),  # KeyError
    ("cbind(g, z) ~ x", "takes counts"),                          # ValueError
    ("y ~ offset(1)", "reads no column"),                         # TypeError
    ("y ~ te(cr(x, df = 3), 1)", "te\\(\\) multiplies spline bases"),   # patsy's ValueError
    ("y ~ round(x, 1e300)", "beyond R's integers"),               # OverflowError
    ("y ~ signif(x, 40) + round(z, -400)", "fit"),                # R clamps the digits
    ("factor(y) ~ x", "fit"),                                     # learned before evaluated
    ("y ~ cut(x, c(0, 1.5, 3), dig.lab = 1e9)", "fit"),
])
@pytest.mark.xdist_group("timing")    # timed: with the other timed tests under -n auto
def test_fuzz_findings(frame, formula, outcome):
    import time
    start = time.perf_counter()
    if outcome == "fit":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = ubreg.fit(formula, frame)
        assert len(m.coef) >= 1
    else:
        with pytest.raises(ubreg.errors.UbregError, match=outcome):
            ubreg.fit(formula, frame)
    assert time.perf_counter() - start < 2.0
