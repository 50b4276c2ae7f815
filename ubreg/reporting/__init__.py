"""``ubreg.report``: an HTML or PDF report of fitted models.

The report's sections, each with a stable anchor (HTML ``id``), where they apply:

- ``data``: rows read and used, the rows dropped for missing values per variable,
  the response's balance, one line per model variable (:mod:`.data_section`);
- ``models``: the linear fits side by side in modelsummary's layout, with a
  goodness-of-fit block (:mod:`.model_section`);
- ``odds-ratios``: odds ratios of the entropy-family fits with profile intervals,
  each table followed by the model's average marginal effects on the probability
  scale (:mod:`.marginal_effects`), and a forest plot on a log axis; the link of
  every other family;
- ``likelihood-ratio``: R's ``drop1(m, test = "LRT")`` of each fit whose family is a
  likelihood (entropy, entropy2), and which fits have none (:mod:`.lrt_section`);
- ``comparison``: cross-validated scores on the same rows and folds, differences
  to the best model paired by fold, AICs of fits to the same rows
  (:mod:`.comparison_section`);
- ``calibration``: one reliability panel per model on shared axes;
- ``trees``: each ``udt`` tree pruned by its cp table (:mod:`.trees_section`);

then one section per model (``model-1``, ...) and the software versions.  The PDF
(:mod:`.pdf`) numbers the same sections and puts the models in an appendix.

The report is built in three steps, one module each: :mod:`.context` turns
the models into plain data (summaries, metrics, the comparison table),
:mod:`.figures` draws the diagnostics on pyplot-free matplotlib figures, and
:mod:`.html` / :mod:`.pdf` render them (Jinja2 with autoescaping for HTML,
matplotlib's PdfPages for PDF).  :mod:`.vignette` runs and renders vignettes;
:mod:`.markdown` renders a Markdown file (the replication reports) as a page.

User strings (column names, factor and response levels, model names, titles,
the formula and the call) follow one rule, applied by :mod:`ubreg.summary.render`:

- Hidden characters are shown, never interpreted.  Every character of Unicode
  category Cc (controls), Cf (format: the bidirectional embeddings, overrides
  and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and
  U+061C, zero-width characters such as U+200B and U+FEFF), Cs (lone
  surrogates), Zl or Zp is replaced by the visible escape ``<U+XXXX>`` (its code
  point in upper-case hexadecimal), so ``"a\u202eb"`` reads ``a<U+202E>b``.
  Newline and tab are kept in running text and escaped in names.  The HTML
  applies it to every template output (the Jinja environment's ``finalize``,
  before autoescaping), the PDF to every line and heading it draws, the plots
  to every label (:func:`ubreg.summary.render.plain_text`).
- Names longer than 40 characters are shortened in tables and plots (HTML,
  PDF, text summaries): the first 22 characters, ``…``, the last 17.  Names of
  one table that would then look alike are shown as ``head…#xxxxxx…tail``
  (``xxxxxx``: the start of the name's SHA-1), so shown names stay distinct.
  In HTML the full name is the tooltip (``title`` attribute) of the shown one;
  the DataFrame forms (``coef_table()``, ``frame()``) keep full names.  A
  coefficient plot with long names is drawn wider, across the HTML page and on
  a PDF page of its own.
"""
from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence
from typing import Any, TypeAlias, overload

import pandas as pd

from ..evaluate.compare import named_models
from .context import build_context, versions
from .html import render_html
from .markdown import render_markdown
from .pdf import write_pdf

__all__ = ["report", "versions", "render_vignette", "render_markdown"]

#: a file to write: a path, as text or path-like; several files: a list or tuple of them
PathArg: TypeAlias = "str | os.PathLike[str]"
PathArgs: TypeAlias = "list[PathArg] | tuple[PathArg, ...]"
#: the data the models were fitted to: a DataFrame or a dict of columns (or None)
TrainingData: TypeAlias = "pd.DataFrame | dict[str, Any] | None"


def _report_call(models: dict[str, Any], path: PathArg | PathArgs, title: str,
                 data: pd.DataFrame | None, cv_risk: bool | int = False,
                 training_data: TrainingData = None, prune: str | None = "1se",
                 cluster: Any = None) -> str:
    names = ", ".join(repr(n) for n in models)
    extra = ", data=<DataFrame>" if data is not None else ""
    extra += ", training_data=<DataFrame>" if training_data is not None else ""
    extra += f", cv_risk={cv_risk!r}" if cv_risk else ""
    extra += f", prune={prune!r}" if prune != "1se" else ""
    extra += "" if cluster is None else (f", cluster={cluster!r}" if isinstance(cluster, str)
                                         else ", cluster=<labels>")
    where = [str(p) for p in path] if isinstance(path, (list, tuple)) else str(path)
    return f"ubreg.report([{names}], {where!r}, title={title!r}{extra})"


@overload
def report(models: Any, path: PathArg, title: str = ..., data: pd.DataFrame | None = ..., *,
           names: Sequence[str] | None = ..., format: str | None = ..., call: str | None = ...,
           cv_risk: bool | int = ..., training_data: TrainingData = ...,
           prune: str | None = ..., cluster: Any = ...) -> pathlib.Path: ...


@overload
def report(models: Any, path: PathArgs, title: str = ..., data: pd.DataFrame | None = ..., *,
           names: Sequence[str] | None = ..., format: str | None = ..., call: str | None = ...,
           cv_risk: bool | int = ..., training_data: TrainingData = ...,
           prune: str | None = ..., cluster: Any = ...) -> list[pathlib.Path]: ...


def report(models: Any, path: PathArg | PathArgs, title: str = "ubreg report",
           data: pd.DataFrame | None = None, *, names: Sequence[str] | None = None,
           format: str | None = None, call: str | None = None, cv_risk: bool | int = False,
           training_data: TrainingData = None, prune: str | None = "1se",
           cluster: Any = None) -> pathlib.Path | list[pathlib.Path]:
    """Write a report of one or more fitted models.

    Parameters
    ----------
    models : result, list, tuple or dict
        Fitted ubreg models (any method) or :class:`~ubreg.cv.CVResult`
        objects with their full-data fit (``refit=True``); a dict names them.
    path : str, path-like, or a list of them
        Output file; ``.html``/``.htm`` gives HTML, ``.pdf`` gives PDF.  A
        list writes several files from one computation (figures drawn once).
    title : str
        Title of the report.
    data : DataFrame, optional
        Held-out data (with the response): calibration, ROC, margins and a
        second metrics column are computed on it instead of the training rows.
    names : list of str, optional
        Model names (default: dict keys, or "(i) method · family").
    format : {"html", "pdf"}, optional
        Overrides the file extension.
    call : str, optional
        How the report was produced, stated in it (default: this call).
    cv_risk : bool or int
        Also cross-validate the risk path of the models that can (those that
        declare ``has_cv_path``, U-Boost: :func:`ubreg.cv_risk`, K refits,
        seed 1) and draw it with its ±1 SE band, with the chosen mstop in a
        note; ``True`` is 10 folds, an int gives the folds.
    training_data : DataFrame, optional
        The data the models were fitted to, as read, for the data section (without
        it the section shows what the fits record).
    prune : {"1se", "min"} or None
        ``udt`` trees are shown pruned by the 1-SE rule of their cross-validated cp
        table (default), at its least error, or as fitted (None); the pruned tree
        stands for its model in the whole report (the fitted model is unchanged).
    cluster : optional
        Cluster-robust (``sandwich::vcovCL``, HC0) standard errors of the linear fits in
        their summaries and table (:meth:`~ubreg.results.linear.LinearResult.vcov`).

    Returns
    -------
    pathlib.Path or list of pathlib.Path
        The file(s) written.

    Notes
    -----
    What a model shows is what its declared capabilities promise
    (:class:`~ubreg.results.base.Capabilities`): every figure
    :func:`ubreg.plots.available` lists for it (with ``data``, the figures
    of its posteriors also for a model that keeps no training rows) is drawn;
    one that fails (while drawing or rendering) is replaced by a note naming
    it and the error, and the report is still written.  An object that is not
    a ubreg result is shown by its metrics and the figures of its posteriors
    (the minimal protocol of :mod:`ubreg.results.base`).

    The sections and their anchors are listed in the module notes.  The HTML is
    one self-contained file: inline CSS, figures as base64 PNG, no script, every
    user string escaped (Jinja2 ``autoescape=True``).  The PDF is a short paper
    typeset with matplotlib's PdfPages (tables, wrapped text and vector figures
    inside the text block of A4 pages) so that it needs only pip-installed
    packages; see :mod:`ubreg.reporting.pdf`.
    """
    many = isinstance(path, (list, tuple))
    paths = [pathlib.Path(p) for p in (path if isinstance(path, (list, tuple)) else [path])]
    formats = [_format_of(p, format) for p in paths]
    named = named_models(models, names)
    ctx = build_context(named, title=title, data=data, cv_risk=cv_risk,
                        training_data=training_data, prune=prune, cluster=cluster,
                        call=call or _report_call(named, path, title, data, cv_risk,
                                                  training_data, prune, cluster))
    for p, fmt in zip(paths, formats):
        p.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "html":
            p.write_text(render_html(ctx), encoding="utf-8")
        else:
            write_pdf(ctx, p)
    return paths if many else paths[0]


def _format_of(path: pathlib.Path, format: str | None) -> str:
    fmt = (format or path.suffix.lstrip(".")).lower()
    fmt = {"htm": "html"}.get(fmt, fmt)
    if fmt not in ("html", "pdf"):
        raise ValueError(f"cannot tell the report format from {str(path)!r}: use a .html or "
                         f".pdf file name, or format='html' / 'pdf'")
    return fmt


def render_vignette(path: PathArg, out: PathArg | None = None) -> pathlib.Path:
    """Run a vignette script and write it as HTML (see :mod:`ubreg.reporting.vignette`)."""
    from .vignette import render_vignette as _render
    return _render(path, out)
