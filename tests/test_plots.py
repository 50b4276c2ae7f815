"""ubreg.plots: every plot draws what it claims, from the Result protocol only."""
import matplotlib

matplotlib.use("Agg")

from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve as sk_roc_curve  # noqa: E402
from statsmodels.stats.proportion import proportion_confint  # noqa: E402

import ubreg  # noqa: E402
from ubreg import plots  # noqa: E402


@pytest.fixture(scope="module")
def model():
    return ubreg.fit("diabetes ~ glucose + mass + age + pedigree", ubreg.datasets.load_pima(),
                     family="matsushita")


def _ax():
    return Figure().add_subplot()


class ThreeClasses:
    """A multiclass result: per-class posteriors through predict_proba."""

    method = "fake"

    def __init__(self):
        rng = np.random.default_rng(2)
        self.P = rng.dirichlet([2, 2, 2], size=200)
        self.y = np.array([rng.choice(3, p=p) for p in self.P]).astype(float)
        self.weights = np.ones(200)

    def predict_proba(self, newdata=None):
        return pd.DataFrame(self.P, columns=["a", "b", "c"])


def test_wilson_interval_equals_statsmodels():
    lo, hi = plots.wilson_interval(np.array([3, 40, 0]), np.array([10, 50, 7]), 0.9)
    elo, ehi = proportion_confint([3, 40, 0], [10, 50, 7], alpha=0.1, method="wilson")
    np.testing.assert_allclose(lo, elo)
    np.testing.assert_allclose(hi, ehi)


def test_calibration_table_bins(model):
    y, p = model.y, model.fitted_values.to_numpy()
    t = plots.calibration_table(y, p, bins=5, strategy="quantile")
    assert t["count"].sum() == len(y)
    assert t["count"].max() - t["count"].min() <= 0.02 * len(y)
    assert np.all((t["lower"] <= t["observed"]) & (t["observed"] <= t["upper"]))
    u = plots.calibration_table(y, p, bins=10)
    np.testing.assert_allclose(u["edges"], np.linspace(0, 1, 11))
    inside = (p >= 0.3) & (p < 0.4)
    k = np.flatnonzero((u["mean_predicted"] >= 0.3) & (u["mean_predicted"] < 0.4))[0]
    assert u["observed"][k] == pytest.approx(y[inside].mean())
    w = np.full_like(y, 3.0)
    tw = plots.calibration_table(y, p, w, bins=10)
    np.testing.assert_allclose(tw["observed"], u["observed"])
    assert np.all(tw["upper"] - tw["lower"] < u["upper"] - u["lower"])


def test_calibration_plot(model):
    ax = plots.calibration(model, ax=_ax(), strategy="quantile", bins=8)
    assert len(ax.containers) == 1 and len(ax.containers[0].lines[0].get_xdata()) == 8
    ax = plots.calibration(ThreeClasses(), ax=_ax())
    assert len(ax.containers) == 3                      # one-vs-rest, one per class


def test_roc_equals_scikit_learn(model):
    y, p = model.y, model.fitted_values.to_numpy()
    fpr, tpr = plots.roc_curve(y, p)
    efpr, etpr, _ = sk_roc_curve(y, p, drop_intermediate=False)
    np.testing.assert_allclose(fpr, efpr)
    np.testing.assert_allclose(tpr, etpr)
    assert np.trapezoid(tpr, fpr) == pytest.approx(roc_auc_score(y, p))
    ax = plots.roc(model, ax=_ax())
    assert f"{roc_auc_score(y, p):.3f}" in ax.get_legend().get_texts()[0].get_text()


def test_margins_share_below_zero_is_the_error_rate(model):
    ax = plots.margins(model, ax=_ax())
    err = ubreg.metrics.metrics_of(model)["error_rate"]
    assert f"{err:.1%}" in ax.get_title()
    assert sum(p.get_height() for p in ax.patches) == pytest.approx(model.nobs)


def test_paths(model):
    ax = plots.risk_path(model, ax=_ax())
    np.testing.assert_allclose(ax.lines[0].get_ydata(), model.fit_info.risk_path)
    ax = plots.edge_path(model, ax=_ax())
    assert ax.get_yscale() == "log"
    assert len(ax.lines[0].get_ydata()) == len(model.fit_info.edge_path)
    with pytest.raises(TypeError, match="risk_path"):
        plots.risk_path(object(), ax=_ax())


def test_cv_risk_from_arrays_and_objects():
    rng = np.random.default_rng(0)
    folds = 1 / (1 + np.arange(30)) + rng.uniform(0, 0.05, size=(5, 30)) + np.arange(30) / 200
    ax = plots.cv_risk(folds, ax=_ax())
    np.testing.assert_allclose(ax.lines[0].get_ydata(), folds.mean(axis=0))
    assert len(ax.collections) == 1                       # the ± SE band

    boosted = SimpleNamespace(cv_risk=SimpleNamespace(
        mean=pd.Series(folds.mean(axis=0)), se=pd.Series(folds.std(axis=0, ddof=1) / np.sqrt(5))))
    ax = plots.cv_risk(boosted, ax=_ax())
    best = int(np.argmin(folds.mean(axis=0)))
    assert f"minimum at {best}" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_coefficients_and_tree(model):
    ax = plots.coefficients(model, ax=_ax())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["glucose", "mass", "age", "pedigree"]
    ax = plots.coefficients(model, ax=_ax(), intercept=True)
    assert len(ax.get_yticklabels()) == 5
    with pytest.raises(TypeError, match="no coefficients"):
        plots.coefficients(ThreeClasses())
    with pytest.raises(TypeError, match="not a tree"):
        plots.tree(model, ax=_ax())


@pytest.mark.skipif("udt" not in ubreg.METHODS, reason="method udt is not registered")
def test_tree_results_are_drawn_and_reported(tmp_path):
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose + mass + age", data, method="udt", xval=0)
    assert "tree" in plots.available(m)
    ax = plots.tree(m, ax=_ax())
    assert ax.texts                                         # split and leaf labels
    html = ubreg.report(m, tmp_path / "t.html").read_text(encoding="utf-8")
    assert 'id="model-1-tree"' in html


def test_ax_none_makes_a_figure_and_available_lists_plots(model):
    import matplotlib.pyplot as plt
    ax = plots.roc(model)
    assert ax.figure is not None
    plt.close(ax.figure)
    assert plots.available(model) == ["calibration", "roc", "margins", "coefficients",
                                      "risk_path", "edge_path"]
    assert plots.available(ThreeClasses()) == ["calibration", "roc", "margins"]


def test_user_strings_are_literal_text_not_mathtext():
    import matplotlib
    matplotlib.use("Agg")
    import ubreg
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"y": rng.integers(0, 2, 60), "cost $ in $US": rng.normal(size=60)})
    m = ubreg.fit("y ~ Q('cost $ in $US')", d)
    ax = ubreg.plots.coefficients(m)
    label = ax.get_yticklabels()[0]
    assert label.get_text() == r"Q('cost \$ in \$US')"
    ax.figure.canvas.draw()      # renders without a mathtext parse of the user string
