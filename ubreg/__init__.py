"""ubreg: classification by proper scoring rules and Bregman divergences.

Boosting, tree induction and boosted nearest neighbours built on permissible
functions φ (Nock & Nielsen), with the ergonomics of R's ``glm``::

    import ubreg
    m = ubreg.fit("y ~ x1 + x2", data, family=ubreg.Permissible("matsushita"))
    print(m.summary())
    m.predict(newdata, type="response")

``__all__`` is the documented API.  Everything but the families, the errors and
the data sets is loaded on first use, so ``import ubreg`` (and ``import
ubreg.families``) stays light: it loads neither the fitters, matplotlib, Jinja2,
numba nor Dask.
"""
import importlib
from typing import TYPE_CHECKING, Any

from . import datasets, errors, families
from ._version import __version__
from .families import CustomPermissible, Exponential, Permissible, binomial
from .numerics.limits import set_memory_cap

if TYPE_CHECKING:
    # what a type checker sees of the names below, which load on first use (__getattr__)
    from . import plots
    from .evaluate.anova import anova
    from .evaluate.augment import augment
    from .evaluate.car_anova import Anova
    from .evaluate.compare import compare
    from .evaluate.cv import cv
    from .evaluate.cv_risk import cv_risk
    from .evaluate.effects import avg_comparisons, avg_slopes
    from .evaluate.emmeans import emmeans
    from .evaluate.hypothesis import linear_hypothesis, wald_test
    from .evaluate.single_terms import add1, drop1
    from .evaluate.stepwise import step
    from .evaluate.tidy import glance, tidy
    from .evaluate.update import update
    from .evaluate.vif import vif
    from .families.tempered_exponential import TemperedExponential
    from .families.ulosses import U, U_alpha, U_custom
    from .fitters.irls import glm_control
    from .methods.fit import fit
    from .methods.online import OnlineLearner
    from .methods.registry import METHODS
    from .reporting import render_markdown, render_vignette, report
    from .reporting.modelsummary import datasummary_df, modelsummary

#: public names loaded on first use: name -> (module, attribute; None for the module)
_LAZY = {
    "fit": ("ubreg.methods.fit", "fit"),
    "glm_control": ("ubreg.fitters.irls", "glm_control"),
    "METHODS": ("ubreg.methods.registry", "METHODS"),
    "OnlineLearner": ("ubreg.methods.online", "OnlineLearner"),
    "U": ("ubreg.families.ulosses", "U"),
    "U_alpha": ("ubreg.families.ulosses", "U_alpha"),
    "U_custom": ("ubreg.families.ulosses", "U_custom"),
    "TemperedExponential": ("ubreg.families.tempered_exponential", "TemperedExponential"),
    "compare": ("ubreg.evaluate.compare", "compare"),
    "cv": ("ubreg.evaluate.cv", "cv"),
    "cv_risk": ("ubreg.evaluate.cv_risk", "cv_risk"),
    "anova": ("ubreg.evaluate.anova", "anova"),
    "Anova": ("ubreg.evaluate.car_anova", "Anova"),
    "update": ("ubreg.evaluate.update", "update"),
    "drop1": ("ubreg.evaluate.single_terms", "drop1"),
    "tidy": ("ubreg.evaluate.tidy", "tidy"),
    "linear_hypothesis": ("ubreg.evaluate.hypothesis", "linear_hypothesis"),
    "wald_test": ("ubreg.evaluate.hypothesis", "wald_test"),
    "glance": ("ubreg.evaluate.tidy", "glance"),
    "augment": ("ubreg.evaluate.augment", "augment"),
    "add1": ("ubreg.evaluate.single_terms", "add1"),
    "step": ("ubreg.evaluate.stepwise", "step"),
    "vif": ("ubreg.evaluate.vif", "vif"),
    "emmeans": ("ubreg.evaluate.emmeans", "emmeans"),
    "avg_slopes": ("ubreg.evaluate.effects", "avg_slopes"),
    "avg_comparisons": ("ubreg.evaluate.effects", "avg_comparisons"),
    "plots": ("ubreg.plots", None),
    "report": ("ubreg.reporting", "report"),
    "modelsummary": ("ubreg.reporting.modelsummary", "modelsummary"),
    "datasummary_df": ("ubreg.reporting.modelsummary", "datasummary_df"),
    "render_markdown": ("ubreg.reporting", "render_markdown"),
    "render_vignette": ("ubreg.reporting", "render_vignette"),
}

__all__ = ["fit", "glm_control", "METHODS", "Permissible", "Exponential", "CustomPermissible",
           "binomial", "U", "U_alpha",
           "U_custom", "TemperedExponential", "OnlineLearner", "compare", "cv", "cv_risk",
           "anova", "Anova", "update",
           "drop1", "add1", "step", "tidy", "glance", "augment", "linear_hypothesis",
           "wald_test", "vif", "emmeans", "avg_slopes", "avg_comparisons",
           "report", "modelsummary", "datasummary_df",
           "render_markdown", "render_vignette", "plots", "set_memory_cap", "families",
           "datasets", "errors", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        loaded = importlib.import_module(module)
        value = loaded if attribute is None else getattr(loaded, attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ubreg' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
