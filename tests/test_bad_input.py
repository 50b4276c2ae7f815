"""The shared bad-input matrix: every case against every registered method.

Each case either raises a ``ValueError`` subclass whose message names the
problem, or is a documented non-error (checked for finite outputs).  Methods
are the registry's (``every_method``, tests/conftest.py: each method and
variant with its ``quick`` settings), so a method registered later is covered
without editing this file.
"""
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import (
    ConvergenceWarning,
    DataError,
    FormulaError,
    OptionError,
    PredictionError,
    ResponseError,
    SeparationWarning,
)

from conftest import METHOD_CASES, method_case  # noqa: E402

#: the method labels of the registry (tests/conftest.py)
METHOD_NAMES = sorted(METHOD_CASES)


def _fit(method, formula, data, **kw):
    case = method_case(method)
    opts = {**case.options, **kw}
    name = case.method
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ubreg.fit(formula, data, method=name, **opts)


def _fit_recording(method, formula, data, **kw):
    """Like :func:`_fit`, but returns the warnings raised too."""
    case = method_case(method)
    opts = {**case.options, **kw}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = ubreg.fit(formula, data, method=case.method, **opts)
    return m, [w for w in caught if not issubclass(w.category, DeprecationWarning)]


def _warned(caught, category, pattern):
    import re
    return any(issubclass(w.category, category) and re.search(pattern, str(w.message))
               for w in caught)


def _values(pred):
    return np.asarray(pred, dtype=float)


@pytest.fixture
def frame():
    rng = np.random.default_rng(11)
    n = 60
    x1 = rng.normal(size=n)
    y = (x1 + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": rng.normal(size=n),
                         "g": rng.choice(["a", "b", "c"], size=n)})


@pytest.mark.slow
def test_na_in_response_is_dropped_and_counted_or_refused(every_method, frame):
    method = every_method
    d = frame.astype({"y": float})
    d.loc[[2, 3, 4], "y"] = np.nan
    m = _fit(method, "y ~ x1 + x2", d)
    assert m.n_dropped == 3
    with pytest.raises(DataError, match="response 'y'"):
        _fit(method, "y ~ x1 + x2", d, na_action="raise")


def test_na_in_predictor(every_method, frame):
    method = every_method
    d = frame.copy()
    d.loc[[5, 6], "x2"] = np.nan
    m = _fit(method, "y ~ x1 + x2", d)
    p = m.predict(d)
    assert len(p) == len(d) and p.index.equals(d.index)
    if not method_case(method).keeps_missing:
        assert m.n_dropped == 2
        assert p.iloc[[5, 6]].isna().all().all() if p.ndim == 2 else p.iloc[[5, 6]].isna().all()
    with pytest.raises(DataError, match="x2"):
        _fit(method, "y ~ x1 + x2", d, na_action="raise")


def test_infinite_predictor(every_method, frame):
    method = every_method
    d = frame.copy()
    d.loc[7, "x1"] = -np.inf
    with pytest.raises(DataError, match="infinite"):
        _fit(method, "y ~ x1 + x2", d)


def test_zero_rows(every_method, frame):
    method = every_method
    with pytest.raises(DataError, match="0 rows"):
        _fit(method, "y ~ x1", frame.iloc[:0])


def test_zero_rows_after_na_removal(every_method, frame):
    method = every_method
    d = frame.astype({"y": float}).assign(y=np.nan)
    with pytest.raises(DataError, match="no rows left|NA in all"):
        _fit(method, "y ~ x1", d)


def test_one_row(every_method, frame):
    method = every_method
    with pytest.raises(ResponseError, match="class"):
        _fit(method, "y ~ x1", frame.iloc[:1])


def test_one_class_only(every_method, frame):
    method = every_method
    with pytest.raises(ResponseError, match="class"):
        _fit(method, "y ~ x1", frame.assign(y=0))


@pytest.mark.slow
def test_constant_predictor_fits_finitely(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + z", frame.assign(z=3.0))
    link = m.predict(frame.assign(z=3.0), type="link")
    assert np.all(np.isfinite(np.asarray(link, dtype=float)))


def _linear_fit(method) -> bool:
    """Whether the variant is a linear fit over the design columns with glm's controls (ULS's
    linear fit, or a method declaring its options): glm's outcomes are expected of it."""
    return "on_separation" in method_case(method).accepts


def test_three_classes(every_method, frame):
    method = every_method
    if method_case(method).multiclass or _linear_fit(method):
        # uls (entropy): the multinomial logit (tests/test_multinomial.py)
        m = _fit(method, "g ~ x1 + x2", frame)
        assert set(m.predict(frame, type="class")) <= {"a", "b", "c"}
        return
    with pytest.raises(ResponseError, match="3 distinct"):
        _fit(method, "g ~ x1", frame)


def test_non_numeric_where_numbers_are_needed(every_method, frame):
    method = every_method
    with pytest.raises(FormulaError, match="log"):
        _fit(method, "y ~ np.log(g)", frame)


def test_complex_numbers(every_method, frame):
    method = every_method
    with pytest.raises(DataError, match="complex"):
        _fit(method, "y ~ x1 + c", frame.assign(c=frame.x1 + 1j))


def test_missing_column(every_method, frame):
    method = every_method
    with pytest.raises(FormulaError, match="nope"):
        _fit(method, "y ~ x1 + nope", frame)


def test_duplicated_column(every_method, frame):
    method = every_method
    d = pd.concat([frame, frame[["x1"]]], axis=1)
    with pytest.raises(DataError, match="duplicated column.*x1"):
        _fit(method, "y ~ x1", d)


@pytest.mark.parametrize("weights, match", [
    (lambda n: -np.ones(n), "negative"), (lambda n: np.zeros(n), "all zero"),
    (lambda n: np.r_[np.nan, np.ones(n - 1)], "NaN"), (lambda n: np.ones(n + 1), "rows"),
    (lambda n: np.r_[np.inf, np.ones(n - 1)], "weights contain 1 infinite"),
    (lambda n: np.r_[np.ones(n - 2), -np.inf, np.inf], "weights contain 2 infinite"),
])
def test_bad_weights(every_method, frame, weights, match):
    method = every_method
    with pytest.raises(ValueError, match=match):
        _fit(method, "y ~ x1", frame, weights=weights(len(frame)))


def test_new_level_at_predict(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + g", frame)
    with pytest.raises(PredictionError, match="zz"):
        m.predict(frame.head(3).assign(g=["a", "zz", "b"]))


def test_missing_column_at_predict(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + x2", frame)
    with pytest.raises(PredictionError, match="x2"):
        m.predict(frame.drop(columns="x2"))


def test_user_data_is_not_modified(every_method, frame):
    method = every_method
    before = frame.copy(deep=True)
    w = np.ones(len(frame))
    m = _fit(method, "y ~ x1 + g", frame, weights=w)
    m.predict(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert np.all(w == 1)


# ---- infinite response --------------------------------------------------------------
@pytest.mark.parametrize("value, sign", [(np.inf, r"\+inf"), (-np.inf, "-inf")])
def test_infinite_response_is_refused(every_method, frame, value, sign):
    method = every_method
    # binary methods used to report "3 distinct value(s) [0.0, 1.0, inf]" and the
    # multiclass ones (gnnb, unn) to take inf as a third class
    d = frame.astype({"y": float})
    d.loc[[4, 9], "y"] = value
    with pytest.raises(DataError, match=rf"response 'y' has infinite values \({sign}\) "
                                        r"in 2 row\(s\) \[4, 9\]"):
        _fit(method, "y ~ x1 + x2", d)


# ---- new data with other columns ----------------------------------------------------
def test_newdata_with_extra_and_reordered_columns_predicts_the_same(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + x2", frame)
    new = frame[["x2", "x1"]].assign(unrelated=["s"] * len(frame), other=np.nan)
    np.testing.assert_array_equal(_values(m.predict(new, type="response")),
                                  _values(m.predict(frame, type="response")))


def test_newdata_missing_a_needed_column_despite_extra_ones(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + x2 + g", frame)
    with pytest.raises(PredictionError, match=r"lacks column\(s\) \['g', 'x2'\]"):
        m.predict(frame[["x1"]].assign(x3=1.0, unrelated="s"))


def test_string_in_a_numeric_column_at_predict(every_method, frame):
    method = every_method
    # patsy failed with "AttributeError: 'DataFrame' object has no attribute 'dtype'",
    # udt with a bare "could not convert string to float"
    m = _fit(method, "y ~ x1 + x2", frame)
    new = frame.head(4).assign(x2=["0.5", "b", None, "c"])
    with pytest.raises(PredictionError, match=r"column 'x2' holds non-numeric values "
                                              r"\(e\.g\. '0\.5'"):
        m.predict(new)


def test_numbers_as_objects_at_predict_are_numbers(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + x2", frame)
    np.testing.assert_allclose(_values(m.predict(frame.astype({"x2": object}))),
                               _values(m.predict(frame)))


def test_numbers_in_a_label_column_at_predict(every_method, frame):
    method = every_method
    m = _fit(method, "y ~ x1 + g", frame)
    with pytest.raises(PredictionError, match=r"factor 'g' has new level\(s\) \[1, 2\]"):
        m.predict(frame.head(2).assign(g=[1, 2]))


def test_unfitted_online_learner_refuses_to_predict(frame):
    # the only model that exists before it is fitted (ubreg.fit returns fitted results)
    learner = ubreg.OnlineLearner("y ~ x1 + x2")
    with pytest.raises(ValueError, match="seen no batch yet: call partial_fit first"):
        learner.predict(frame)
    with pytest.raises(ValueError, match="call partial_fit first"):
        learner.summary()
    learner.partial_fit(frame)
    assert np.all(np.isfinite(_values(learner.predict(frame))))


# ---- options a method does not take ---------------------------------------------------
def test_unknown_option_names_the_method_and_its_options(every_method, frame):
    method = every_method
    name = method_case(method).method
    with pytest.raises(OptionError, match=rf"method '{name}'.* has no option 'no_such_option'; "
                                          "it accepts: ") as info:
        _fit(method, "y ~ x1", frame, no_such_option=1)
    accepted = str(info.value).split("it accepts: ")[1].split(", ")
    assert set(method_case(method).options) <= set(accepted)     # the options this file uses


# ---- complete separation ------------------------------------------------------------
@pytest.fixture
def separated():
    x = np.arange(20.0)
    return pd.DataFrame({"y": (x > 9.5).astype(int), "x": x, "z": np.sin(x)})


def test_complete_separation_has_the_documented_outcome(every_method, separated):
    method = every_method
    d = separated
    m, caught = _fit_recording(method, "y ~ x + z", d)
    link = _values(m.predict(d, type="link"))
    resp = _values(m.predict(d, type="response"))
    assert np.all(np.isfinite(link)) and np.all((resp >= 0) & (resp <= 1))
    text = str(m.summary())
    if _linear_fit(method):
        # glm's outcome: warned by name, flagged, not converged; an error on request
        assert _warned(caught, SeparationWarning, r"complete separation by x\b")
        assert m.separation.kind == "complete" and not m.converged
        assert "separation" in text and "NOT converged" in text
        assert np.all(np.isfinite(m.coef))
        with pytest.raises(DataError, match="complete separation by x"):
            _fit(method, "y ~ x + z", d, on_separation="raise")
        return
    # every other method: the on_separation option does not apply
    with pytest.raises(OptionError, match="has no option 'on_separation'"):
        _fit(method, "y ~ x + z", d, on_separation="raise")
    if method.startswith("uls-"):
        # eq. (70) has its root at infinity: |δ| capped, warned, flagged, not converged
        assert _warned(caught, ConvergenceWarning, r"reached \|δ\| = .*separates the weighted")
        assert not m.converged
        assert "capped: a feature separates the weighted sample" in text
    elif method == "udt":
        # pure leaves: p = 0 or 1, link capped at ±∇φ(1 - 1e-12) (gini, udt's default: the
        # bound of its link domain, ±1), no warning needed
        np.testing.assert_array_equal(resp, d.y)
        assert m.family.name == "gini"
        np.testing.assert_allclose(np.abs(link), 1.0, rtol=1e-12)
        entropy = _fit(method, "y ~ x + z", d, family="entropy")
        cap = float(ubreg.Permissible("entropy").dphi(1 - 1e-12))
        np.testing.assert_allclose(np.abs(_values(entropy.predict(d, type="link"))), cap,
                                   rtol=1e-6)
    elif method == "unn":
        # the zero-edge root is at infinity: δ capped at delta_max, reported
        assert "delta was capped" in text
        assert m.training_accuracy == 1.0
    elif method == "gnnb":
        # eq. (10)'s gentle steps are finite by construction: nothing to cap
        assert m.training_accuracy == 1.0
        assert np.max(np.abs(link)) < 10
    else:
        # boosting with a fixed number of small steps (uboost: nu, tboost: mu_j): the
        # score stays moderate; no "converged" with a huge coefficient
        assert np.max(np.abs(link)) < 10
        if method == "uboost":
            assert ((resp > 0.5) == d.y).all()


# ---- maxiter = 1 ----------------------------------------------------------------------
def test_maxiter_one_has_the_documented_outcome(every_method, frame):
    method = every_method
    if _linear_fit(method):
        m, caught = _fit_recording(method, "y ~ x1 + x2", frame, maxiter=1)
        assert _warned(caught, ConvergenceWarning, "ULS did not converge")
        assert not m.converged and "NOT converged" in str(m.summary())
        assert np.all(np.isfinite(m.coef))
        return
    # no iteration limit called maxiter (boosting has rounds/mstop, trees max_depth)
    with pytest.raises(OptionError, match="has no option 'maxiter'; it accepts: "):
        _fit(method, "y ~ x1 + x2", frame, maxiter=1)


# ---- aliasing: x3 = 2 x1 --------------------------------------------------------------
def test_aliased_column(every_method, frame):
    method = every_method
    d = frame.assign(x3=2 * frame.x1)
    m = _fit(method, "y ~ x1 + x2 + x3", d)
    base = _fit(method, "y ~ x1 + x2", d)
    p = _values(m.predict(d, type="response"))
    assert np.all(np.isfinite(p))
    if _linear_fit(method):
        # R's NA for the aliased coefficient
        assert np.isnan(m.coef["x3"]) and bool(m.aliased["x3"])
        assert "aliased: x3" in str(m.summary())
    if method in ("gnnb", "unn"):
        # a nearest-neighbour metric counts x1 twice: not the fit without x3, but
        # (predictors standardised) the same as with an exact copy of x1
        copy = frame.assign(x3=frame.x1)
        twice = _fit(method, "y ~ x1 + x2 + x3", copy)
        np.testing.assert_allclose(p, _values(twice.predict(copy, type="response")), atol=1e-9)
        return
    # linear fits drop the column; a split on 2·x1 is the same split as on x1
    np.testing.assert_allclose(p, _values(base.predict(d, type="response")), atol=1e-9)


# ---- a factor with one level ----------------------------------------------------------


@pytest.mark.parametrize("term, column", [("k", "a"), ("C(z)", 3.0)])
def test_one_level_factor_is_refused_as_r_refuses_it(every_method, frame, term, column):
    # R's model.matrix: "contrasts can be applied only to factors with 2 or more levels";
    # a tree reads the factor itself (rpart: it never splits on it)
    method = every_method
    d = frame.assign(k=column) if term == "k" else frame.assign(z=column)
    if method != "udt":
        with pytest.raises(FormulaError, match=rf"factor '{re.escape(term)}' has only one "
                           r"level .* contrasts need 2 or more levels"):
            _fit(method, f"y ~ x1 + x2 + {term}", d)
        return
    m = _fit(method, f"y ~ x1 + x2 + {term}", d)
    base = _fit(method, "y ~ x1 + x2", d)
    np.testing.assert_allclose(_values(m.predict(d)), _values(base.predict(d)), atol=1e-9)
