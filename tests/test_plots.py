"""ubreg.plots: every plot draws what it claims, from the Result protocol only."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.metrics import roc_curve as sk_roc_curve  # noqa: E402
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
    """Not a ubreg result, with the minimal protocol of ubreg.results.base: per-class
    posteriors from predict, the training classes y and weights."""

    method = "fake"

    def __init__(self):
        rng = np.random.default_rng(2)
        self.P = rng.dirichlet([2, 2, 2], size=200)
        self.y = np.array([rng.choice(3, p=p) for p in self.P]).astype(float)
        self.weights = np.ones(200)

    def predict(self, newdata=None, type="response"):
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
    err = ubreg.evaluate.metrics.metrics_of(model)["error_rate"]
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

    table = pd.DataFrame({"mean": folds.mean(axis=0),
                          "se": folds.std(axis=0, ddof=1) / np.sqrt(5)})
    ax = plots.cv_risk(table, ax=_ax())
    best = int(np.argmin(folds.mean(axis=0)))
    assert f"minimum at {best}" in [t.get_text() for t in ax.get_legend().get_texts()]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), table["mean"])


def test_coefficients_and_tree(model):
    ax = plots.coefficients(model, ax=_ax())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["glucose", "mass", "age", "pedigree"]
    ax = plots.coefficients(model, ax=_ax(), intercept=True)
    assert len(ax.get_yticklabels()) == 5
    with pytest.raises(TypeError, match="no coefficients"):
        plots.coefficients(ThreeClasses())
    with pytest.raises(TypeError, match="not a tree"):
        plots.tree(model, ax=_ax())


@pytest.mark.slow
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


HOSTILE = "$\\undefinedmacro{$"          # mathtext that fails to parse if not escaped


def _hostile_data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    g = rng.choice([HOSTILE, "plain"], size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(2 * x + (g == HOSTILE))))).astype(int)
    return pd.DataFrame({"y": y, HOSTILE: x, "g": g})


def _quoted(name):
    return name.replace("\\", "\\\\")


@pytest.mark.slow
def test_user_strings_are_literal_text_not_mathtext():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import ubreg
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"y": rng.integers(0, 2, 60), "cost $ in $US": rng.normal(size=60)})
    m = ubreg.fit("y ~ Q('cost $ in $US')", d)
    ax = ubreg.plots.coefficients(m)
    label = ax.get_yticklabels()[0]
    assert label.get_text() == r"`cost \$ in \$US`"             # R's name, in backticks
    ax.figure.canvas.draw()      # renders without a mathtext parse of the user string
    plt.close(ax.figure)
    # a udt tree: `$` in a column name (the split), a factor level and a class label
    d = _hostile_data()
    d["y"] = np.where(d["y"] == 1, "$yes$", "no")
    m = ubreg.fit(f'y ~ Q("{_quoted(HOSTILE)}") + g', d, method="udt", xval=0, cp=0.0,
                  min_split=10)
    ax = plots.tree(m, ax=_ax())
    texts = [t for t, _ in _text_boxes(ax)]   # renders: a mathtext parse would raise
    assert any("\\$\\\\" in t for t in texts)                  # the split on the column
    assert "g = " + HOSTILE.replace("$", "\\$") in texts           # the level, escaped
    assert any("\\$yes\\$" in t for t in texts)                  # the class label
    ax = plots.tree(m)                                              # pyplot, ax=None
    ax.figure.canvas.draw()
    plt.close(ax.figure)


def _text_boxes(ax):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    return [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]


@pytest.mark.slow
@pytest.mark.parametrize("size", [None, (5.0, 3.8)])
def test_tree_labels_do_not_overlap_and_stay_in_the_figure(size):
    """The pima tree of the demo: no two labels (splits, node and leaf boxes) overlap."""
    import matplotlib.pyplot as plt
    m = ubreg.fit("diabetes ~ pregnant + glucose + pressure + mass + pedigree + age",
                  ubreg.datasets.load_pima(), method="udt")
    ax = plots.tree(m) if size is None else plots.tree(m, ax=Figure(figsize=size).add_subplot())
    boxes = _text_boxes(ax)
    fig_box = ax.figure.bbox
    for k, (text, a) in enumerate(boxes):
        assert fig_box.x0 <= a.x0 and a.x1 <= fig_box.x1, text
        assert fig_box.y0 <= a.y0 and a.y1 <= fig_box.y1, text
        for other, b in boxes[k + 1:]:
            assert not a.overlaps(b), (text, other)
    if size is None:
        plt.close(ax.figure)


@pytest.mark.slow
def test_every_plot_returns_its_axes_also_with_ax_none(model):
    import matplotlib.pyplot as plt
    for name in plots.available(model):
        ax = getattr(plots, name)(model)
        assert ax is not None and ax.figure is not None, name
        plt.close(ax.figure)
    tree = ubreg.fit("diabetes ~ glucose + mass", ubreg.datasets.load_pima(),
                     method="udt", xval=0)
    ax = plots.tree(tree)                  # was None with ax=None
    assert ax is not None and ax.texts
    assert tuple(ax.figure.get_size_inches()) != (6.4, 4.8)   # sized to the tree
    plt.close(ax.figure)


def test_margins_ticks_are_not_crowded(model):
    ax = plots.margins(model, ax=_ax())
    ticks = [t for t in ax.get_xticks() if -1 <= t <= 1]
    np.testing.assert_allclose(ticks, [-1, -0.5, 0, 0.5, 1])


@pytest.mark.slow
def test_calibration_weights(tmp_path):
    data = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass"]).reset_index(drop=True)
    rng = np.random.default_rng(3)
    data["w"] = rng.integers(1, 4, len(data)).astype(float)
    m = ubreg.fit("diabetes ~ glucose + mass", data, weights="w")
    y, p = m.y, m.predict().to_numpy()

    def drawn(**kw):
        line = plots.calibration(m, ax=_ax(), **kw).lines[1]        # [0]: the diagonal
        return line.get_xdata(), line.get_ydata()

    def table(w):
        t = plots.calibration_table(y, p, w)
        return t["mean_predicted"], t["observed"]

    # default: the model's prior weights
    np.testing.assert_allclose(drawn(), table(m.weights))
    assert not np.allclose(drawn()[1], table(None)[1])
    np.testing.assert_allclose(drawn(weights=False), table(None))
    other = rng.uniform(0.5, 2, len(y))
    np.testing.assert_allclose(drawn(weights=other), table(other))
    # the Wilson intervals count the weights
    t = plots.calibration_table(y, p, other)
    lo, _ = plots.wilson_interval(t["observed"] * t["count"], t["count"])
    ax = plots.calibration(m, ax=_ax(), weights=other)
    seg = ax.containers[0].lines[2][0].get_segments()
    np.testing.assert_allclose([s[0][1] for s in seg], lo)
    # on new data: ones by default, or a column
    np.testing.assert_allclose(drawn(newdata=data, weights="w"), table(data["w"].to_numpy()))
    with pytest.raises(ValueError, match="one value per training row"):
        plots.calibration(m, ax=_ax(), weights=np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        plots.calibration(m, ax=_ax(), weights=-np.ones(len(y)))
    with pytest.raises(ValueError, match="names a column"):
        plots.calibration(m, ax=_ax(), weights="w")


def test_tboost_loss_path_is_available():
    m = ubreg.fit("diabetes ~ glucose + mass + age", ubreg.datasets.load_pima(),
                  method="tboost", family=ubreg.TemperedExponential(0.5), rounds=8)
    assert "risk_path" in plots.available(m)
    path = plots.path_of(m, "risk_path")
    t = m.t
    expected = np.r_[1.0, np.cumprod(m.rounds_table["Z"].to_numpy() ** (2 - t))]
    np.testing.assert_allclose(path.to_numpy(), expected)
    # the last value is the summary's "tempered exp. loss" Π Z^(2−t)
    assert path.iloc[-1] == pytest.approx(float(np.prod(m.fit_info.Z ** (2 - t))))
    ax = plots.risk_path(m, ax=_ax())
    np.testing.assert_allclose(ax.lines[0].get_ydata(), expected)
    assert "tempered" in ax.get_ylabel() and ax.get_xlabel() == "round"


def test_a_cv_risk_path_is_drawn_and_never_computed_by_plots(model):
    from ubreg.evaluate.cv_risk import CVRisk
    mean = pd.Series([0.7, 0.6, 0.55, 0.56], index=pd.RangeIndex(4, name="mstop"))
    se = pd.Series([0.02] * 4, index=mean.index)
    path = CVRisk(risk=pd.DataFrame(), mean=mean, se=se, mstop=2, mstop_1se=1, folds=5, seed=1)
    ax = plots.cv_risk(path, ax=_ax())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "minimum at 2" in legend and "1-SE rule: 1" in legend
    assert ax.get_title() == "CV risk path (5-fold)" and ax.get_xlabel() == "iterations (mstop)"
    # a fitted model is refused (cross-validating it refits: ubreg.cv_risk), and no
    # result lists cv_risk among its plots
    boost = ubreg.fit("diabetes ~ glucose + mass", ubreg.datasets.load_pima(),
                      method="uboost", mstop=5)
    with pytest.raises(TypeError, match="ubreg.cv_risk"):
        plots.cv_risk(boost, ax=_ax())
    assert "cv_risk" not in plots.available(boost)


def test_t_margins_of_tboost_only(model):
    m = ubreg.fit("diabetes ~ glucose + mass + age", ubreg.datasets.load_pima(),
                  method="tboost", family=ubreg.TemperedExponential(0.5), rounds=8)
    ax = plots.t_margins(m, ax=_ax())
    nu = np.sort(m.margins().to_numpy())
    np.testing.assert_allclose(ax.lines[0].get_xdata()[:len(nu)], nu)
    assert ax.get_xlabel() == "t-margin θ" and "bound (§2.7)" in \
        [t.get_text() for t in ax.get_legend().get_texts()]
    with pytest.raises(TypeError, match="no t-margins"):
        plots.t_margins(model, ax=_ax())


def test_objects_that_are_not_results_get_the_posterior_plots_only(model):
    class Wrapper:                   # answers everything, declares nothing
        def __init__(self, r):
            self._r = r

        def __getattr__(self, name):
            return getattr(self._r, name)

    wrapped = Wrapper(model)
    assert plots.available(wrapped) == ["calibration", "roc", "margins"]
    with pytest.raises(TypeError, match="no coefficients"):
        plots.coefficients(wrapped, ax=_ax())
    with pytest.raises(TypeError, match="risk_path"):
        plots.risk_path(wrapped, ax=_ax())
    plots.calibration(wrapped, ax=_ax())            # predict, y and weights suffice
