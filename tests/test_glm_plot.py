"""R's ``plot(m)`` of a glm (tests/fixtures/glm_plot.R): the numbers of the four panels,
their smoothers and labelled rows equal R's (to 1e-6); the figure has R's panels."""
import json
import pathlib
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.plots import diagnostic_panels, diagnostics
from ubreg.plots.glm_panels import CAPTIONS

matplotlib.use("Agg")
FIXTURES = pathlib.Path(__file__).parent / "fixtures"
R = json.loads((FIXTURES / "glm_plot.json").read_text())
PIMA = pd.read_csv(FIXTURES / "data" / "pima_indians_diabetes2.csv").assign(
    y=lambda d: (d["diabetes"] == "pos").astype(int),
    w=lambda d: np.array([0, 0.5, 1, 1.5, 2.5, 0.25, 1])[np.arange(len(d)) % 7])
CASES = {"plain": ("y ~ glucose + mass + age", {}),
         "weighted": ("y ~ glucose + mass + pedigree", {"weights": "w"})}


def _num(values) -> np.ndarray:
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(float)


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    formula, options = CASES[request.param]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # fractional weights: R warns as well
        return request.param, ubreg.fit(formula, PIMA, **options)


def test_panel_numbers_are_r(case):
    key, m = case
    panels, ref = diagnostic_panels(m), R[key]
    f = panels.frame
    assert [str(i + 1) for i in f.index] == ref["labels"]        # zero weights left out
    for ours, theirs in [("fitted", "fitted"), ("residuals", "residuals"),
                         ("rstandard", "rstandard"), ("hat", "hat"), ("cook", "cook"),
                         ("theoretical", "qq_x")]:
        np.testing.assert_allclose(f[ours], _num(ref[theirs]), rtol=1e-6, atol=1e-9,
                                   err_msg=ours)
    assert panels.rank == ref["rank"]


def test_labelled_rows_are_r(case):
    key, m = case
    panels, ref = diagnostic_panels(m), R[key]
    for panel, name in [(1, "id_residuals"), (2, "id_rstandard"), (3, "id_rstandard"),
                        (5, "id_cook")]:
        assert [str(i + 1) for i in panels.labelled[panel]] == ref[name]


def test_smoothers_are_r_lowess(case):
    key, m = case
    panels = diagnostic_panels(m)
    for panel in (1, 3, 5):
        x, y = panels.smooth(panel)
        ref = R[key][f"smooth{panel}"]
        np.testing.assert_allclose(x, _num(ref["x"]), rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(y, _num(ref["y"]), rtol=1e-6, atol=1e-7)


def test_figure_has_r_panels(case):
    _, m = case
    fig = diagnostics(m)
    assert [ax.get_title() for ax in fig.axes] == list(CAPTIONS.values())
    labels = [t.get_text() for t in fig.axes[3].texts]
    assert labels == [str(k) for k in diagnostic_panels(m).labelled[5]]
    one = diagnostics(m, which=[2], id_n=0)
    assert [ax.get_title() for ax in one.axes] == ["Normal Q-Q"] and not one.axes[0].texts
    matplotlib.pyplot.close("all")


def test_bad_input_is_named():
    m = ubreg.fit("y ~ glucose", PIMA)
    with pytest.raises(ValueError, match="which takes panels 1, 2, 3 and 5"):
        diagnostics(m, which=[4])
    with pytest.raises(ValueError, match="id_n"):
        diagnostic_panels(m, id_n=-1)
    tree = ubreg.fit("y ~ glucose + mass", PIMA, method="udt")
    with pytest.raises(TypeError, match="linear fit"):
        diagnostic_panels(tree)
