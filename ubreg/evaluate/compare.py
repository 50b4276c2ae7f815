"""``ubreg.compare``: fitted models side by side (stargazer / modelsummary style).

A :class:`Comparison` holds plain data built once from the models — the
coefficient estimates of the models that have them, and per model the fit
statistics and the training-set metrics — and renders it as a DataFrame,
text or HTML.  What it shows of a model is what the model's declared
capabilities (:class:`~ubreg.results.base.Capabilities`) promise: a model
without coefficients (a tree, a nearest-neighbour classifier) leaves its
coefficient cells empty, one without a deviance (GNNB) its deviance cells,
one without training rows (the on-line learner) its training metrics.  An
object that is not a :class:`~ubreg.results.base.Result` contributes its
training metrics only (:mod:`ubreg.results.base`, "Objects that are not
results").

AIC and BIC are shown for the linear fits only — the models that declare
``has_likelihood``, whose parameters are the coefficients of a fixed design
fitted by minimising the loss.  A tree (udt), a boosted
ensemble (uboost, tboost) or a nearest-neighbour rule (gnnb) chooses its
structure adaptively: the count its ``df_model`` reports (leaves, the leaves
of every base tree, rounds) is not a number of degrees of freedom, and an
AIC built on it (U-Boost with 100 trees of depth 3 "has" ~800 parameters)
would mislead.  Their AIC and BIC cells are blank, their parameter count is
marked with † and a footnote says why.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from ..results.base import Result, capabilities_of
from ..summary.linear import significance_stars
from ..summary.render import render_template, shown_names
from .cv import CVResult
from .metrics import METRIC_NAMES, metrics_of

__all__ = ["compare", "Comparison", "model_label", "method_label", "as_model_and_cv",
           "format_number", "has_information_criteria", "named_models", "fit_statistics"]

#: fit statistics shown for every model, in order: key -> label
FIT_STATISTICS = {"nobs": "n", "n_dropped": "Dropped (NA)", "df_model": "Parameters",
                  "deviance": "Deviance", "null_deviance": "Null deviance",
                  "loglik": "Log-likelihood", "aic": "AIC", "bic": "BIC"}


def format_number(v: float | None, digits: int = 4) -> str:
    """``digits`` significant digits, positional notation for moderate values."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return ""
    v = float(v)
    if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-4):
        return f"{v:.{digits - 1}e}"
    if abs(v) >= 10 ** (digits - 1):
        return f"{v:.0f}"
    return f"{v:#.{digits}g}"


def has_information_criteria(model: object) -> bool:
    """Whether AIC and BIC are meaningful for ``model``: a linear fit, i.e. a
    result that declares ``has_likelihood`` (see the module notes)."""
    # a result that declares has_likelihood is a linear fit, which has a family
    return (capabilities_of(model).has_likelihood
            and bool(cast(Any, model).family.binomial_likelihood))


def fit_statistics(model: Any) -> dict[str, float]:
    """The :data:`FIT_STATISTICS` of ``model``; NaN for those its capabilities do
    not promise (AIC and BIC of a model without ``has_likelihood`` included)."""
    caps = capabilities_of(model)
    out = dict.fromkeys(FIT_STATISTICS, float("nan"))
    if isinstance(model, Result):
        out.update(nobs=float(model.nobs), n_dropped=float(model.n_dropped))
    if caps.has_deviance:
        out.update(df_model=float(model.df_model), deviance=float(model.deviance),
                   null_deviance=float(model.null_deviance), loglik=float(model.loglik))
    if caps.has_likelihood:
        out.update(aic=float(model.aic), bic=float(model.bic))
    return out


def as_model_and_cv(item: Any) -> tuple[Any, CVResult | None]:
    """Split an item into (fitted model, cross-validation or None).

    A :class:`~ubreg.evaluate.cv.CVResult` stands for its full-data model
    (``cv.model``) and its CV estimates; anything else is a model without
    cross-validation.
    """
    if isinstance(item, CVResult):
        if item.model is None:
            raise ValueError("a CV result compared as a model needs its full-data fit: "
                             "run ubreg.cv(..., refit=True)")
        return item.model, item
    return item, None


def method_label(result: object) -> str:
    """The method of a result (``result.method``); the class name of an object
    that is not a :class:`~ubreg.results.base.Result`."""
    return str(result.method) if isinstance(result, Result) else type(result).__name__


def model_label(result: object) -> str:
    """A short default name: method and family (``?`` for an object that is not
    a :class:`~ubreg.results.base.Result`)."""
    if not isinstance(result, Result):
        return f"{method_label(result)} · ?"
    fam = result.family
    if isinstance(fam, (list, tuple)):
        fam_name = "[" + ",".join(f.name for f in fam) + "]"
    else:
        fam_name = fam.describe()
    return f"{result.method} · {fam_name}"


def named_models(models: Any, names: Sequence[str] | None = None) -> dict:
    """``{name: item}`` from a model, a list or tuple of them, or a dict (whose keys
    are the names).

    ``names`` overrides the names; by default an item is named ``"(i) method ·
    family"`` (:func:`model_label`).  An item is a fitted model or a
    :class:`~ubreg.evaluate.cv.CVResult` (:func:`as_model_and_cv`).  Raises
    ``ValueError`` for no models, a wrong number of names or a repeated name.
    """
    if isinstance(models, dict):
        items = list(models.items())
    else:
        if not isinstance(models, (list, tuple)):
            models = [models]
        items = [(None, m) for m in models]
    if names is not None:
        if len(names) != len(items):
            raise ValueError(f"{len(names)} names for {len(items)} models")
        items = [(n, m) for n, (_, m) in zip(names, items)]
    if not items:
        raise ValueError("no models to compare")
    out = {}
    for i, (name, item) in enumerate(items):
        model, _ = as_model_and_cv(item)
        name = str(name) if name is not None else f"({i + 1}) {model_label(model)}"
        if name in out:
            raise ValueError(f"two models are named {name!r}")
        out[name] = item
    return out


class Comparison:
    """Models side by side: coefficients (with SE or z) and fit statistics.

    Build it with :func:`compare`.  ``frame()`` is the display table as a
    DataFrame, ``str()`` the text, ``html()`` (and ``_repr_html_``) the HTML;
    :meth:`coefficients` and :meth:`statistics` hold the numbers.
    """

    def __init__(self, models: dict, statistic: str = "se", cov: str | None = None,
                 cluster: Any = None):
        if statistic not in ("se", "z"):
            raise ValueError(f"statistic must be 'se' or 'z', got {statistic!r}")
        self.statistic = statistic
        self.cov = cov
        #: the clusters of a cluster-robust covariance (``LinearResult.vcov(cluster=)``)
        self.cluster = cluster
        self.names = list(models)
        self.models = {}
        self.cvs = {}
        for name, item in models.items():
            self.models[name], self.cvs[name] = as_model_and_cv(item)
        self._ic = {name: has_information_criteria(m) for name, m in self.models.items()}
        self._coefficients = self._build_coefficients()
        self._statistics = self._build_statistics()

    # ---- numbers -------------------------------------------------------
    def _build_coefficients(self) -> pd.DataFrame:
        tables, terms = {}, []
        for name, m in self.models.items():
            if not capabilities_of(m).has_coefficients:
                continue
            t = (m.coef_table(cov=self.cov, cluster=self.cluster) if self.cluster is not None
                 else m.coef_table() if self.cov is None else m.coef_table(cov=self.cov))
            tables[name] = t
            terms += [term for term in t.index if term not in terms]  # first-appearance order
        cols = pd.MultiIndex.from_product([self.names, ["estimate", "std_error", "z", "p"]],
                                          names=["model", "value"])
        out = pd.DataFrame(np.nan, index=pd.Index(terms, name="term"), columns=cols)
        for name, t in tables.items():
            for key in ("estimate", "std_error", "z", "p"):
                out.loc[t.index, (name, key)] = t[key].to_numpy()
        return out

    def _build_statistics(self) -> pd.DataFrame:
        rows = {}
        for name, m in self.models.items():
            col = fit_statistics(m)
            if capabilities_of(m).has_training_rows:
                col.update(metrics_of(m))
            else:                                   # nothing to score it on
                col.update(dict.fromkeys(METRIC_NAMES, float("nan")))
            cv = self.cvs[name]
            for k in METRIC_NAMES:
                col[f"cv_{k}"] = float(cv.mean[k]) if cv is not None else np.nan
                col[f"cv_{k}_se"] = float(cv.se[k]) if cv is not None else np.nan
            rows[name] = col
        return pd.DataFrame(rows)

    def coefficients(self) -> pd.DataFrame:
        """Terms × (model, estimate/std_error/z/p), terms in first-appearance order."""
        return self._coefficients.copy()

    def statistics(self) -> pd.DataFrame:
        """Statistics × models: fit statistics, training metrics, CV mean and SE.

        ``aic`` and ``bic`` are NaN for the models without a coefficient
        table (see :func:`has_information_criteria`)."""
        return self._statistics.copy()

    @property
    def has_cv(self) -> bool:
        return any(cv is not None for cv in self.cvs.values())

    # ---- display -------------------------------------------------------
    def _coef_cells(self) -> list[tuple[str, list[str], list[str]]]:
        rows = []
        c = self._coefficients
        for term in c.index:
            est, sec = [], []
            for name in self.names:
                e, s, z, p = (c.loc[term, (name, k)] for k in ("estimate", "std_error", "z", "p"))
                est.append(format_number(e) + significance_stars(p) if np.isfinite(e) else "")
                second = s if self.statistic == "se" else z
                sec.append(f"({format_number(second)})" if np.isfinite(second) else "")
            rows.append((str(term), est, sec))
        return rows

    def _stat_rows(self) -> list[tuple[str, list[str]]]:
        s = self._statistics
        rows = [("Method", [method_label(self.models[n]) for n in self.names]),
                ("Family", [model_label(self.models[n]).split(" · ", 1)[1] for n in self.names])]
        for key, label in FIT_STATISTICS.items():
            vals = s.loc[key]
            if key in ("nobs", "n_dropped"):
                cells = [f"{v:g}" if np.isfinite(v) else "" for v in vals]
            elif key == "df_model":
                cells = [(f"{v:g}" + ("" if self._linear(n) else "†")) if np.isfinite(v) else ""
                         for n, v in zip(self.names, vals)]
            else:
                cells = [f"{v:.2f}" if np.isfinite(v) else ("" if np.isnan(v) else
                                                            ("-Inf" if v < 0 else "Inf"))
                         for v in vals]
            rows.append((label, cells))
        for key, label in METRIC_NAMES.items():
            rows.append((f"{label} (train)", [f"{v:.4f}" if np.isfinite(v) else ""
                                              for v in s.loc[key]]))
        if self.has_cv:
            for key, label in METRIC_NAMES.items():
                m, se = s.loc[f"cv_{key}"], s.loc[f"cv_{key}_se"]
                rows.append((f"{label} (CV)", [f"{a:.4f} ± {b:.4f}" if np.isfinite(a) else ""
                                               for a, b in zip(m, se)]))
        return rows

    def _linear(self, name: str) -> bool:
        """A fit with a parameter count (``has_likelihood``), whatever its family."""
        return capabilities_of(self.models[name]).has_likelihood

    def _note(self) -> str:
        second = "standard errors" if self.statistic == "se" else "z statistics"
        cov = {None: "each model's default: model-based for a likelihood family, robust HC0 "
                     "otherwise", "model": "model-based"}.get(self.cov, self.cov)
        if self.cluster is not None:
            cov = f"cluster-robust {self.cov or 'HC0'} (sandwich::vcovCL)"
        note = (f"Estimates with {second} ({cov} covariance) in parentheses; "
                "* p < 0.05, ** p < 0.01, *** p < 0.001, . p < 0.1. "
                "Metrics on the training rows (frequency-weighted).")
        quasi = sorted({model_label(self.models[n]).split(" · ", 1)[1] for n in self.names
                        if self._linear(n) and not self._ic[n]})
        if quasi:
            note += (f" No AIC or BIC for {', '.join(quasi)}: the loss is not a likelihood (as "
                     "for R's quasi families); compare families by cross-validated log loss "
                     "or Brier score.")
        others = sorted({method_label(self.models[n]) for n in self.names
                         if not self._linear(n)})
        if others:
            note += (" † Not degrees of freedom: the count the method reports (leaves, leaves "
                     "of the base trees, rounds) for a structure chosen adaptively; AIC and "
                     f"BIC are therefore given for the linear fits only, not for "
                     f"{', '.join(others)}.")
        n = self._statistics.loc["nobs"].dropna().unique()
        if len(n) > 1:
            note += (" The models were fitted on different numbers of rows "
                     f"({', '.join(f'{v:g}' for v in sorted(n))}): their deviances, "
                     "log-likelihoods and AICs are not comparable.")
        if self.has_cv:
            folds = {cv.n_folds for cv in self.cvs.values() if cv is not None}
            k = ", ".join(str(f) for f in sorted(f for f in folds if f)) or "K"
            note += f" CV: mean ± standard error over {k} folds."
        return note

    def frame(self) -> pd.DataFrame:
        """The display table (strings): coefficients, then statistics."""
        index, data = [], []
        for term, est, sec in self._coef_cells():
            index += [term, ""]
            data += [est, sec]
        for label, cells in self._stat_rows():
            index.append(label)
            data.append(cells)
        return pd.DataFrame(data, index=index, columns=self.names)

    def text(self, width: int | None = None) -> str:
        """The table as text; with ``width``, models are split into blocks of
        columns so that no line is longer than ``width`` characters."""
        f = self.frame()
        labels = shown_names(f.index)          # long names shortened, kept distinct
        cols = [[name] + list(f[name]) for name in self.names]
        col_w = [max(map(len, c)) for c in cols]
        first = max(map(len, labels))
        blocks: list[list[int]] = []
        current: list[int] = []
        used = first
        for j, w in enumerate(col_w):
            if current and width is not None and used + 2 + w > width:
                blocks.append(current)
                current, used = [], first
            current.append(j)
            used += 2 + w
        blocks.append(current)
        n_coef = 2 * len(self._coefficients)
        out = []
        for block in blocks:
            total = first + sum(2 + col_w[j] for j in block)
            line = "-" * total
            rows = [[""] + [cols[j][0] for j in block]]
            rows += [[labels[i]] + [cols[j][i + 1] for j in block] for i in range(len(labels))]
            # coefficient rows (estimate + parenthesis) empty in every model of the block
            coef_rows = []
            for i in range(1, n_coef + 1, 2):
                if any(c for c in rows[i][1:]) or any(c for c in rows[i + 1][1:]):
                    coef_rows += [rows[i], rows[i + 1]]
            fmt = lambda r, block=block: "  ".join(  # noqa: E731
                [r[0].ljust(first)] + [c.rjust(col_w[j]) for c, j in zip(r[1:], block)]).rstrip()
            out += [line, fmt(rows[0]), line] + [fmt(r) for r in coef_rows]
            if coef_rows:
                out.append(line)
            out += [fmt(r) for r in rows[n_coef + 1:]] + [line, ""]
        out.append(self._note())
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return str(self)

    def context(self) -> dict:
        """Plain data for templates."""
        return {"names": self.names, "coef_rows": self._coef_cells(),
                "stat_rows": self._stat_rows(), "note": self._note()}

    def html(self) -> str:
        """HTML fragment (autoescaped template ``report/comparison.html``)."""
        return render_template("report/comparison.html", **self.context())

    def _repr_html_(self) -> str:
        return self.html()


def compare(models: Any, names: Sequence[str] | None = None, statistic: str = "se",
            cov: str | None = None, cluster: Any = None) -> Comparison:
    """Compare fitted models side by side.

    Parameters
    ----------
    models : list, tuple or dict of results
        Fitted ubreg models (any method), or :class:`~ubreg.cv.CVResult`
        objects from ``ubreg.cv(..., refit=True)``, which add their
        cross-validated metrics (mean ± SE).  A dict gives the column names.
    names : list of str, optional
        Column names (default: the dict keys, or "(i) method · family").
    statistic : {"se", "z"}
        What the parentheses under each estimate hold.
    cov : {"model", "robust", "HC0", "HC1", "HC2", "HC3"}, optional
        Covariance of the standard errors, for models with coefficients; by default
        each model's own (``default_vcov``: model-based for ``entropy`` and
        ``entropy2``, the robust HC0 sandwich for any other family).
    cluster : optional
        Cluster-robust standard errors (``sandwich::vcovCL``, of type ``cov``, HC0 by
        default): a column name of the models' data, or labels
        (:meth:`~ubreg.results.linear.LinearResult.vcov`).

    Returns
    -------
    Comparison
        Renders as a DataFrame (``frame()``), text (``str``) and HTML
        (``html()``); per model: n, deviance, null deviance, logLik, AIC, BIC,
        and the Brier score, log loss, AUC and error rate on the training rows.

    Examples
    --------
    >>> c = ubreg.compare({"logistic": m1, "matsushita": m2})   # doctest: +SKIP
    >>> print(c)                                                # doctest: +SKIP
    """
    return Comparison(named_models(models, names), statistic=statistic, cov=cov,
                      cluster=cluster)
