"""The formula layer on its own: '.' expansion, raw columns, design pickling."""
import pickle

import numpy as np
import pandas as pd
import pytest

from ubreg.design import build_model_frame, build_raw_frame, expand_dot
from ubreg.errors import DataError, FormulaError, PredictionError, ResponseError


@pytest.fixture
def frame():
    rng = np.random.default_rng(7)
    n = 40
    return pd.DataFrame({"y": rng.integers(0, 2, n), "x": rng.normal(size=n),
                         "odd name": rng.normal(size=n), "g": rng.choice(["u", "v", "w"], n)})


def test_dot_expands_to_every_other_column(frame):
    f = expand_dot("y ~ .", frame.columns)
    assert f == "y ~ x + `odd name` + g"                      # as R's formula(fit) writes it
    mf = build_model_frame("y ~ .", frame)
    assert mf.design.column_names == ["(Intercept)", "x", "`odd name`", "gv", "gw"]


def test_dot_inside_numbers_and_calls_is_left_alone():
    assert expand_dot("y ~ I(x * 0.5)", ["y", "x"]) == "y ~ I(x * 0.5)"


@pytest.mark.parametrize("formula", [
    "y ~ Q('.')", 'y ~ Q(".")', "y ~ C(g, Treatment('.'))", "y ~ Q('a . b')",
    "y ~ Q('it\\'s .')", "y ~ Q(\"'.'\")",
])
def test_dot_inside_a_string_literal_is_left_alone(formula):
    assert expand_dot(formula, ["y", "x", "."]) == formula


def test_dot_next_to_a_string_literal_still_expands():
    assert expand_dot("y ~ Q('.') + .", ["y", "x", "."]) == "y ~ `.` + x + `.`"
    assert expand_dot("y ~ `.` - .", ["y", "x", "."]) == "y ~ `.` - (x + `.`)"


def test_multiclass_coding_keeps_sorted_levels(frame):
    mf = build_model_frame("g ~ x", frame, response="multiclass")
    assert mf.response.levels == ["u", "v", "w"]
    np.testing.assert_array_equal(np.array(["u", "v", "w"])[mf.y.astype(int)], frame.g)
    with pytest.raises(ResponseError, match="1 class"):
        build_model_frame("g ~ x", frame.assign(g="u"), response="multiclass")


def test_raw_frame_keeps_formula_order_levels_and_na(frame):
    d = frame.copy()
    d.loc[[0, 5], "x"] = np.nan
    rf = build_raw_frame("y ~ x + g + np.exp(x)", d)
    assert [c.name for c in rf.columns] == ["x", "g", "np.exp(x)"]
    assert [c.kind for c in rf.columns] == ["numeric", "categorical", "numeric"]
    assert rf.columns[1].levels == ["u", "v", "w"]
    assert rf.na_counts == {"x": 2, "np.exp(x)": 2}
    assert len(rf.y) == len(d)           # NA predictors are kept for the method
    with pytest.raises(DataError, match="'x' \\(2 rows\\)"):
        build_raw_frame("y ~ x + g", d, na_action="raise")


def test_raw_frame_refuses_interactions(frame):
    with pytest.raises(FormulaError, match="interactions"):
        build_raw_frame("y ~ x:g", frame)


def test_raw_design_pickles_and_names_new_levels(frame):
    rf = build_raw_frame("y ~ x + g", frame)
    design = pickle.loads(pickle.dumps(rf.design))
    cols = design.columns(frame, "newdata")
    for a, b in zip(cols, rf.columns):
        np.testing.assert_array_equal(a.values, b.values)
    with pytest.raises(PredictionError, match=r"new level\(s\) \['zz'\]"):
        design.columns(frame.head(2).assign(g=["u", "zz"]), "newdata")


def test_model_design_pickles_with_stateful_transforms(frame):
    mf = build_model_frame("y ~ center(x) + standardize(Q('odd name')) + C(g, Sum)", frame)
    design = pickle.loads(pickle.dumps(mf.design))
    X, na = design.transform(frame)
    np.testing.assert_allclose(X, mf.X)
    assert not na.any()
    # the stored centre is the training one, not the new data's
    X_head, _ = design.transform(frame.head(5))
    np.testing.assert_allclose(X_head, mf.X[:5])


@pytest.mark.parametrize("build, kw", [
    (build_model_frame, {}), (build_model_frame, {"response": "multiclass"}),
    (build_raw_frame, {}),
])
def test_infinite_response_is_refused_with_its_rows(frame, build, kw):
    d = frame.astype({"y": float})
    d.loc[[3, 8], "y"] = [np.inf, -np.inf]
    with pytest.raises(ResponseError, match=r"response 'y' has infinite values \(\+inf, -inf\) "
                                            r"in 2 row\(s\) \[3, 8\]"):
        build("y ~ x", d, **kw)


def test_code_response_refuses_infinity_directly():
    # the partitioned (dask) path codes the response without _prepare
    from ubreg.design import code_response, code_response_multiclass
    values = pd.Series([0.0, 1.0, np.inf, np.nan])
    with pytest.raises(ResponseError, match=r"infinite values \(\+inf\) in 1 row\(s\) \[2\]"):
        code_response(values, "y")
    with pytest.raises(ResponseError, match="infinite"):
        code_response_multiclass(values, "y")
    with pytest.raises(ResponseError, match="infinite"):      # floats held as objects
        code_response(values.astype(object), "y")


def test_wrong_dtype_at_predict_names_the_column(frame):
    mf = build_model_frame("y ~ x + np.exp(x) + g", frame)
    rf = build_raw_frame("y ~ x + np.exp(x) + g", frame)
    bad = frame.head(3).assign(x=["1", "two", None])
    with pytest.raises(PredictionError, match=r"column 'x' holds non-numeric values "
                                              r"\(e\.g\. '1'.*as a number in 'x'"):
        mf.design.transform(bad)
    with pytest.raises(PredictionError, match=r"column 'x' holds non-numeric"):
        rf.design.columns(bad, "newdata")
    # numbers held as objects are numbers (None is NA)
    objects = frame.head(3).assign(x=pd.Series([0.5, None, 2], dtype=object, index=[0, 1, 2]))
    X, na = mf.design.transform(objects)
    assert na.tolist() == [False, True, False] and X.shape == (2, 5)
    cols = rf.design.columns(objects, "newdata")
    assert np.isnan(cols[0].values[1]) and cols[0].values[2] == 2.0


def test_level_names_are_r_text_not_numpy_reprs(frame):
    # R's as.character of a level: 1 (not np.int64(1) or 1.0), 0.5, TRUE
    d = frame.assign(induced=np.resize(np.array([0, 1, 2], dtype=np.int64), len(frame)),
                     half=np.resize([0.5, 1.5], len(frame)),
                     flag=np.resize([True, False], len(frame)))
    mf = build_model_frame("y ~ C(induced) + factor(half) + flag", d)
    assert mf.design.column_names == ["(Intercept)", "C(induced)1", "C(induced)2",
                                      "factor(half)1.5", "flagTRUE"]


def test_unused_categories_are_dropped_as_r_model_frame_drops_them(frame):
    # an unused first category must not become the reference (R: drop.unused.levels)
    g = pd.Categorical(frame.g, categories=["none", "u", "v", "w"])
    mf = build_model_frame("y ~ g", frame.assign(g=g))
    assert mf.design.column_names == ["(Intercept)", "gv", "gw"]
    # a level seen only on rows dropped for NA elsewhere is dropped too
    d = frame.assign(x=np.where(frame.g == "w", np.nan, frame.x))
    mf = build_model_frame("y ~ g + x", d)
    assert mf.design.column_names == ["(Intercept)", "gv", "x"]
    with pytest.raises(PredictionError, match=r"new level\(s\) \['w'\]"):
        mf.design.transform(frame.head(20))
