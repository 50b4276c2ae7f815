"""The result contract: every fitted model is a Result that declares its capabilities,
each declared capability holds (and each undeclared one is not used), and the
presentation layers read the declarations instead of probing results."""
import ast
import pathlib
import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import ubreg  # noqa: E402
from ubreg import plots  # noqa: E402
from ubreg.errors import ConvergenceWarning  # noqa: E402
from ubreg.evaluate.metrics import metrics_of  # noqa: E402
from ubreg.results.base import (  # noqa: E402
    PREDICT_TYPES,
    UNDECLARED,
    Capabilities,
    Result,
    capabilities_of,
)
from ubreg.summary.base import Summary  # noqa: E402

from conftest import method_case  # noqa: E402

FORMULA = "diabetes ~ glucose + mass + age"
PACKAGE = pathlib.Path(ubreg.__file__).parent


@pytest.fixture(scope="module")
def pima_rows(pima):
    return pima.dropna(subset=["glucose", "mass", "age"]) \
        .reset_index(drop=True)


_FITTED = {}


def _fitted(label, pima_rows):
    if label not in _FITTED:
        case = method_case(label)
        with warnings.catch_warnings():       # the tiny quick fits may separate or stop early
            warnings.simplefilter("ignore", ConvergenceWarning)
            _FITTED[label] = ubreg.fit(FORMULA, pima_rows, method=case.method, **case.options)
    return _FITTED[label]


def _ax():
    return Figure().add_subplot()


def _check_predict(m, caps, newdata):
    # a multiclass-capable result fitted to three or more classes predicts DataFrames;
    # every two-class result predicts Series (and classes of category dtype)
    frames = caps.is_multiclass and len(m.classes) > 2
    for type in PREDICT_TYPES:
        out = m.predict(newdata, type=type)
        assert len(out) == len(newdata)
        if frames and type != "class":
            assert isinstance(out, pd.DataFrame) and list(out.columns) == m.classes
        else:
            assert isinstance(out, pd.Series)
        if type == "class":
            assert isinstance(out.dtype, pd.CategoricalDtype)
    if frames:
        np.testing.assert_allclose(m.predict(newdata).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="type must be one of"):
        m.predict(newdata, type="probability")


def _check_summary(m, caps):
    s = m.summary()
    assert isinstance(s, Summary)
    text, html = str(s), s.html()
    assert text and html.startswith("<") and s._repr_html_() == html and repr(s) == text
    assert isinstance(s.frame(), pd.DataFrame)
    # AIC is shown exactly for the fits whose parameters are degrees of freedom
    assert ("AIC" in text) == caps.has_likelihood
    assert ("AIC" in html) == caps.has_likelihood


def _check_statistics(m, caps):
    stats = ubreg.compare({"m": m}).statistics()["m"]
    assert stats["nobs"] == m.nobs and stats["n_dropped"] == m.n_dropped
    for key in ("deviance", "null_deviance", "loglik", "df_model"):
        if caps.has_deviance:
            assert stats[key] == pytest.approx(float(getattr(m, key))), key
            assert np.isfinite(stats[key]), key
        else:
            assert np.isnan(stats[key]), key
    for key in ("aic", "bic"):
        if caps.has_likelihood:
            assert stats[key] == pytest.approx(float(getattr(m, key))), key
        else:
            assert np.isnan(stats[key]), key
    if caps.has_training_rows:
        assert stats["auc"] == pytest.approx(metrics_of(m)["auc"])
    else:
        assert np.isnan(stats["auc"])


def _check_training_rows(m, caps, newdata):
    if not caps.has_training_rows:
        with pytest.raises(ValueError, match="keeps no training rows"):
            metrics_of(m)
        assert set(metrics_of(m, newdata)) == {"brier", "log_loss", "auc", "error_rate"}
        return
    y, w = np.asarray(m.y), np.asarray(m.weights)
    assert len(y) == len(w) == len(m.predict())
    assert 0.5 <= metrics_of(m)["auc"] <= 1.0
    if caps.has_residuals:
        for kind in ("deviance", "pearson", "response"):
            assert len(m.residuals(kind)) == len(y)


def _check_coefficients(m, caps):
    if caps.has_coefficients:
        t = m.coef_table()
        assert list(t.columns) == ["estimate", "std_error", "z", "p", "conf_low", "conf_high"]
        assert list(t.index) == list(m.coef.index)
        assert plots.coefficients(m, ax=_ax()).get_title() == "Coefficients"
        coefs = ubreg.compare({"m": m}).coefficients()
        np.testing.assert_allclose(coefs[("m", "estimate")].to_numpy(), t["estimate"].to_numpy())
    else:
        with pytest.raises(TypeError, match="no coefficients"):
            plots.coefficients(m, ax=_ax())
        assert ubreg.compare({"m": m}).coefficients().empty
    if caps.has_covariance:
        for kind in ("model", "robust"):
            V = m.vcov(kind)
            assert V.shape == (len(m.coef), len(m.coef)) and list(V.index) == list(m.coef.index)


def _check_paths(m, caps):
    for name, has in (("risk_path", caps.has_risk_path), ("edge_path", caps.has_edge_path)):
        draw = getattr(plots, name)
        if has:
            path = np.asarray(getattr(m, name), dtype=float)
            ax = draw(m, ax=_ax())
            np.testing.assert_allclose(ax.lines[0].get_ydata(), path)
        else:
            assert plots.path_of(m, name) is None
            with pytest.raises(TypeError, match=name):
                draw(m, ax=_ax())
    if caps.has_cv_path:
        path = ubreg.cv_risk(m, folds=2, seed=1)
        assert path.risk.shape == (m.mstop + 1, 2) and 0 <= path.mstop <= m.mstop
        ax = plots.cv_risk(path, ax=_ax())
        np.testing.assert_allclose(ax.lines[0].get_ydata(), path.mean.to_numpy())
    else:
        with pytest.raises(TypeError, match="cv_risk"):
            ubreg.cv_risk(m, folds=2, seed=1)


def _check_drawings(m, caps):
    if caps.is_tree:
        assert plots.tree(m, ax=_ax()).texts
    else:
        with pytest.raises(TypeError, match="not a tree"):
            plots.tree(m, ax=_ax())
    if caps.has_t_margins:
        ax = plots.t_margins(m, ax=_ax())
        assert len(ax.lines[0].get_xdata()) == len(m.margins())
    else:
        with pytest.raises(TypeError, match="no t-margins"):
            plots.t_margins(m, ax=_ax())


def _expected_plots(m, caps, newdata=None):
    names = ["calibration", "roc", "margins"] \
        if caps.has_training_rows or newdata is not None else []
    names += ["coefficients"] if caps.has_coefficients else []
    names += [n for n, has in (("risk_path", caps.has_risk_path),
                               ("edge_path", caps.has_edge_path)) if has]
    return names + (["tree"] if caps.is_tree else [])


def check_contract(m, newdata):
    """Every declared capability of ``m`` holds, and no undeclared one is used."""
    assert isinstance(m, Result)
    caps = type(m).capabilities
    assert isinstance(caps, Capabilities) and capabilities_of(m) is caps
    assert "capabilities" in vars(type(m)) or isinstance(m, ubreg.results.linear.LinearResult)
    _check_predict(m, caps, newdata)
    _check_summary(m, caps)
    _check_statistics(m, caps)
    _check_training_rows(m, caps, newdata)
    _check_coefficients(m, caps)
    _check_paths(m, caps)
    _check_drawings(m, caps)
    assert plots.available(m) == _expected_plots(m, caps)
    assert plots.available(m, newdata) == _expected_plots(m, caps, newdata)
    for name in plots.available(m, newdata):
        if name in ("calibration", "roc", "margins"):
            getattr(plots, name)(m, ax=_ax(), newdata=newdata)


@pytest.mark.slow
def test_every_method_returns_a_result_that_keeps_its_declarations(every_method, pima_rows):
    check_contract(_fitted(every_method, pima_rows), pima_rows.iloc[:40])


@pytest.mark.slow
def test_the_on_line_learner_keeps_its_declarations(pima_rows):
    online = ubreg.OnlineLearner(FORMULA).partial_fit(pima_rows.iloc[:400])
    assert type(online).capabilities == Capabilities()          # no training rows kept
    check_contract(online, pima_rows.iloc[400:])


@pytest.mark.slow
def test_the_dask_result_keeps_its_declarations(pima_rows):
    dd = pytest.importorskip("dask.dataframe")
    import dask
    with dask.config.set(scheduler="synchronous"):
        m = ubreg.fit(FORMULA, dd.from_pandas(pima_rows, npartitions=2))
        assert type(m).capabilities == ubreg.results.linear.LinearResult.capabilities
        check_contract(m, pima_rows.iloc[:40])


def test_the_declared_capabilities_by_method(pima_rows):
    declared = {label: type(_fitted(label, pima_rows)).capabilities.declared()
                for label in ("uls", "uls-stumps", "udt", "uboost", "tboost", "gnnb")}
    base = ["has_training_rows", "has_deviance"]
    assert declared == {
        "uls": base + ["has_likelihood", "has_residuals", "has_coefficients", "has_covariance",
                       "has_risk_path", "has_edge_path"],
        "uls-stumps": base + ["has_residuals", "has_risk_path", "has_edge_path"],
        "udt": base + ["has_residuals", "is_tree"],
        "uboost": base + ["has_residuals", "has_risk_path", "has_cv_path"],
        "tboost": base + ["has_residuals", "has_risk_path", "has_t_margins"],
        "gnnb": ["has_training_rows", "is_multiclass"],
    }


def test_a_declaration_must_rest_on_what_it_needs():
    with pytest.raises(ValueError, match="has_likelihood needs has_deviance"):
        Capabilities(has_training_rows=True, has_likelihood=True)
    with pytest.raises(ValueError, match="has_covariance needs has_coefficients"):
        Capabilities(has_covariance=True)
    with pytest.raises(ValueError, match="has_deviance needs has_training_rows"):
        Capabilities(has_deviance=True)


def test_objects_that_are_not_results_are_read_as_undeclared(pima_rows):
    m = _fitted("uls", pima_rows)

    class Wrapper:                    # answers every attribute, declares nothing
        def __getattr__(self, name):
            return getattr(m, name)

    assert capabilities_of(Wrapper()) is UNDECLARED
    assert UNDECLARED.declared() == ["has_training_rows"]
    assert plots.available(Wrapper()) == ["calibration", "roc", "margins"]
    stats = ubreg.compare({"w": Wrapper()}).statistics()["w"]
    assert np.isnan(stats["deviance"]) and stats["auc"] == pytest.approx(metrics_of(m)["auc"])


# ---------------------------------------------------------------------------
# the presentation layers never probe results
# ---------------------------------------------------------------------------
#: the handlers of every exception that remain, each justified by a comment above it
CATCH_ALL_ALLOWED = {
    ("reporting/figures.py", "model_figures"),   # a failed figure becomes a note
    ("reporting/pdf.py", "_figure_pages"),       # the same, for the PDF's panels
    ("reporting/pdf.py", "_wide_page"),          # the same, for a wide figure's page
    ("reporting/vignette.py", "_run_cell"),      # a vignette's own error, re-raised naming the cell
}
#: getattr with a default: the IPython display protocol of a vignette cell's value
GETATTR_DEFAULT_ALLOWED = {("reporting/vignette.py", "_run_cell")}


def _presentation_modules():
    for folder in ("evaluate", "plots", "reporting"):
        yield from sorted((PACKAGE / folder).glob("*.py"))


def _functions_of(tree):
    """(function name, node) for every node, the function the node is in."""
    out = []

    def visit(node, name):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else name
            out.append((inner, child))
            visit(child, inner)
    visit(tree, "<module>")
    return out


@pytest.mark.slow
def test_no_catch_all_handlers_or_attribute_probes_in_the_presentation_layers():
    found_catch_all, problems = set(), []
    for path in _presentation_modules():
        rel = str(path.relative_to(PACKAGE))
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for func, node in _functions_of(ast.parse(source)):
            where = f"{rel}:{getattr(node, 'lineno', '?')} in {func}"
            if isinstance(node, ast.ExceptHandler) and (
                    node.type is None or (isinstance(node.type, ast.Name)
                                          and node.type.id in ("Exception", "BaseException"))):
                found_catch_all.add((rel, func))
                if (rel, func) not in CATCH_ALL_ALLOWED:
                    problems.append(f"catch-all handler at {where}")
                elif not lines[node.lineno - 2].strip().startswith("#"):
                    problems.append(f"catch-all handler without a justifying comment at {where}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "hasattr":
                    problems.append(f"hasattr probe at {where}")
                if node.func.id == "getattr" and len(node.args) == 3 \
                        and (rel, func) not in GETATTR_DEFAULT_ALLOWED:
                    problems.append(f"getattr with a default at {where}")
    assert not problems, "\n".join(problems)
    assert found_catch_all == CATCH_ALL_ALLOWED          # the allowance lists no stale entry


def test_results_neither_draw_nor_refit():
    """No result module imports matplotlib or the plots, or refits (the fitters' entry
    points are for methods/ and evaluate/)."""
    for path in sorted((PACKAGE / "results").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                assert not (module or "").startswith(("matplotlib", "plots")), path.name
                assert "plots" not in (module or "").split("."), path.name
        for name in ("boost_u(", "fit_uls(", "grow_tree(", ".plot(", "plt."):
            assert name not in source, (path.name, name)


def test_predict_types_are_written_once():
    """The tuple of predict types is defined in results/base.py only."""
    hits = [str(p.relative_to(PACKAGE)) for p in sorted(PACKAGE.rglob("*.py"))
            if '("response", "link", "class")' in p.read_text(encoding="utf-8")
            or '("link", "response", "class")' in p.read_text(encoding="utf-8")]
    assert hits == ["results/base.py"]


@pytest.mark.slow
def test_import_loads_neither_jinja2_nor_matplotlib():
    """Text summaries need neither; HTML loads Jinja2 when it renders, plots matplotlib
    when they draw."""
    code = ("import sys, ubreg, ubreg.plots, ubreg.reporting\n"
            "from ubreg.summary import render\n"
            "m = ubreg.fit('diabetes ~ glucose', ubreg.datasets.load_pima())\n"
            "text = str(m.summary())\n"
            "print(sorted(k for k in ('jinja2', 'matplotlib') if k in sys.modules))\n"
            "m.summary().html()\n"
            "print('jinja2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == ["[]", "True"]


def test_a_new_result_prints_by_its_class_not_by_its_capability_flags(pima_rows):
    """A result class of one's own that declares a capability another result has
    (a cross-validated risk path, as U-Boost) prints by its own class's form, not by a
    form chosen from the flag (which read U-Boost's attributes and raised)."""
    import copy
    from dataclasses import replace

    m = ubreg.fit("diabetes ~ glucose + mass", pima_rows, learner="stumps", rounds=5)

    class PathResult(type(m)):
        capabilities = replace(type(m).capabilities, has_cv_path=True)

    new = copy.copy(m)
    new.__class__ = PathResult
    assert repr(new) == repr(m)


def test_cv_risk_refuses_a_new_result_that_declares_has_cv_path_by_name(pima_rows):
    """A result class of one's own that declares has_cv_path has no refit in cv_risk: a
    TypeError naming it, not an AttributeError from inside the refit."""
    import copy
    from dataclasses import replace

    m = ubreg.fit("diabetes ~ glucose + mass", pima_rows, learner="stumps", rounds=5)

    class PathResult(type(m)):
        capabilities = replace(type(m).capabilities, has_cv_path=True)

    new = copy.copy(m)
    new.__class__ = PathResult
    with pytest.raises(TypeError, match="a PathResult cannot be refitted on folds"):
        ubreg.cv_risk(new, folds=2)
