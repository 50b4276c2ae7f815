"""ubreg: classification by proper scoring rules and Bregman divergences.

Boosting, tree induction and boosted nearest neighbours built on permissible
functions φ (Nock & Nielsen), with the ergonomics of R's ``glm``::

    import ubreg
    m = ubreg.fit("y ~ x1 + x2", data, family=ubreg.Permissible("matsushita"))
    print(m.summary())
    m.predict(newdata, type="response")
"""
from __future__ import annotations

__version__ = "0.1.0"

from . import datasets, errors, families  # noqa: E402
from .numerics.limits import set_memory_cap  # noqa: E402
from .families import CustomPermissible, Exponential, Permissible  # noqa: E402
from .fit import METHODS, fit  # noqa: E402
from . import methods  # noqa: E402,F401  (registers the methods)

__all__ = ["fit", "set_memory_cap", "Permissible", "Exponential", "CustomPermissible", "METHODS", "families",
           "datasets", "errors", "__version__"]

# model comparison, cross-validation, plots and reports
from . import plots  # noqa: E402
from .anova import anova  # noqa: E402
from .compare import compare  # noqa: E402
from .cv import cv  # noqa: E402
from .report import render_markdown, render_vignette, report  # noqa: E402

__all__ += ["compare", "cv", "anova", "report", "render_vignette", "render_markdown", "plots"]
from . import gnnb  # noqa: E402,F401
from . import boosting  # noqa: E402,F401  (registers boosting methods)
from .boosting import U_alpha, U_custom  # noqa: E402

__all__ += ["U_alpha", "U_custom"]
from . import dask as _dask  # noqa: E402,F401  (routes dask DataFrames to ubreg.dask; issue 9)
from .online import OnlineLearner  # noqa: E402  (on-line learning, Algorithm 2; issue 5)
__all__ += ["OnlineLearner"]
from . import tempered  # noqa: E402,F401  (registers method "tboost"; issue 5)
