"""The API reference pages, written from the packages' ``__all__`` at every build.

Every public name is documented because the pages are made from the lists that
define what is public: ``ubreg.__all__`` (grouped by :data:`GROUPS`; a name in no
group lands in "Other"), the result classes of ``ubreg.results`` and
``ubreg.methods.online``, the classes of ``ubreg.evaluate`` and
``ubreg.summary``, and ``ubreg.sklearn``, ``ubreg.families``, ``ubreg.plots``,
``ubreg.errors``, ``ubreg.datasets``.  The pages go to ``docs/api/pages/``
(not committed; remade at each build), one per group, each an overview table
(autosummary) followed by the autodoc entries (numpydoc renders the
docstrings).
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import re
import shutil

#: the top-level names by group, in reading order; names not in ubreg.__all__ are skipped
GROUPS = [
    ("Fitting", ["fit", "glm_control", "OnlineLearner", "update"]),
    ("Losses", ["Permissible", "Exponential", "CustomPermissible", "binomial", "U_alpha",
                "U_custom"]),
    ("Evaluating and comparing", ["compare", "cv", "cv_risk", "anova", "Anova", "drop1", "add1",
                                  "step", "linear_hypothesis", "wald_test", "tidy", "glance",
                                  "augment", "vif", "emmeans", "avg_slopes",
                                  "avg_comparisons"]),
    ("Reports", ["report", "render_markdown", "render_vignette", "modelsummary",
                 "datasummary_df"]),
    ("Settings", ["set_memory_cap"]),
]
#: top-level names that are modules, with the page documenting them
MODULE_PAGES = {"plots": "plots", "families": "families", "datasets": "datasets",
                "errors": "errors"}
#: top-level data, described here (autodoc cannot read a comment for a lazy attribute)
DATA = {
    "METHODS": "The fitting methods of :func:`ubreg.fit` by name (a ``dict`` of "
               ":class:`ubreg.methods.spec.Method`): ``uls``, ``udt``, ``uboost``, "
               "``gnnb``, ``unn``, ``tboost``.",
    "__version__": "The version of ubreg, a string.",
}
#: scikit-learn's base classes whose members the estimator pages leave to scikit-learn
SKLEARN_BASES = "BaseEstimator, ClassifierMixin"


def _title(text: str, char: str = "=") -> list[str]:
    return [text, char * len(text), ""]


def _table(names: list[str]) -> list[str]:
    return [".. autosummary::", "", *[f"   {n}" for n in names], ""] if names else []


def _entry(name: str, obj, inherited: str | None = "") -> list[str]:
    """The autodoc directive documenting ``obj`` under the full ``name``."""
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return [f".. autoexception:: {name}", "   :show-inheritance:", ""]
        lines = [f".. autoclass:: {name}", "   :members:", "   :show-inheritance:"]
        if any(b.__name__ == "DataFrame" for b in obj.__mro__[1:]):
            inherited = None            # a table is a DataFrame: not pandas' whole API again
        if inherited is not None:
            lines.append(f"   :inherited-members: {inherited}".rstrip())
        return lines + [""]
    if callable(obj):
        return [f".. autofunction:: {name}", ""]
    return [f".. autodata:: {name}", "   :no-value:", ""]


def _module_members(module) -> list[tuple[str, object]]:
    return [(n, getattr(module, n)) for n in module.__all__]


def _submodules(package: str) -> list:
    pkg = importlib.import_module(package)
    return [importlib.import_module(f"{package}.{m.name}")
            for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")]


def _classes_of(package: str, keep) -> list[tuple[str, object]]:
    """Classes in the ``__all__`` of the modules of ``package`` that ``keep`` accepts,
    in module order, each once (under the module that defines it)."""
    seen, out = set(), []
    for module in _submodules(package):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if (inspect.isclass(obj) and keep(obj) and obj not in seen
                    and obj.__module__ == module.__name__):
                seen.add(obj)
                out.append((f"{module.__name__}.{name}", obj))
    return out


def toplevel_page(ubreg) -> list[str]:
    names = [n for n in ubreg.__all__]
    grouped = {n for _, g in GROUPS for n in g} | set(MODULE_PAGES) | set(DATA)
    groups = [(title, [n for n in g if n in names]) for title, g in GROUPS]
    other = [n for n in names if n not in grouped]
    if other:
        groups.append(("Other", other))
    lines = _title("The ``ubreg`` namespace") + [
        ".. currentmodule:: ubreg", "",
        "Everything in ``ubreg.__all__``; ``import ubreg`` loads the families and little",
        "else, the rest on first use.", ""]
    for title, group in groups:
        if not group:
            continue
        lines += _title(title, "-") + _table(group)
        for n in group:
            lines += _entry(f"ubreg.{n}", getattr(ubreg, n))
    lines += _title("Modules", "-")
    for n, page in MODULE_PAGES.items():
        if n in names:
            lines.append(f"- :doc:`ubreg.{n} <{page}>`")
    lines += [""] + _title("Data", "-")
    for n, text in DATA.items():
        if n in names:
            lines += [f".. data:: {n}", "", f"   {text}", ""]   # under currentmodule ubreg
    return lines


def module_page(module, title: str, documented: set, intro: list[str] = (),
                inherited: str | None = "", title_char: str = "=") -> list[str]:
    """A module's docstring, a table of its ``__all__`` and an entry per name (names
    documented on the top-level page are linked there instead)."""
    members = _module_members(module)
    # relative to the current module (automodule sets it): autosummary refuses items
    # that repeat it
    table = [f"ubreg.{n}" if n in documented else n for n, _ in members]
    lines = _title(title, title_char) + [f".. automodule:: {module.__name__}",
                                         "   :no-members:", ""]
    lines += list(intro) + _table(table)
    for n, obj in members:
        if n not in documented:
            lines += _entry(f"{module.__name__}.{n}", obj, inherited)
    return lines


def classes_page(title: str, intro: list[str], classes) -> list[str]:
    lines = _title(title) + list(intro) + _table([n for n, _ in classes])
    for n, obj in classes:
        lines += _entry(n, obj)
    return lines


def write_api_pages(srcdir) -> list[str]:
    """Write ``api/pages/*.rst``; return the names of the pages."""
    import ubreg
    from ubreg.results.base import Capabilities, Result
    from ubreg.results.influence import InfluenceMeasures
    from ubreg.summary.base import Summary

    out = pathlib.Path(srcdir) / "api" / "pages"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    top = {n for n in ubreg.__all__ if n not in MODULE_PAGES and n not in DATA}
    pages = {"toplevel": toplevel_page(ubreg)}

    results = _classes_of("ubreg.results", lambda c: issubclass(c, Result))
    pages["results"] = classes_page("Results", [
        "What :func:`ubreg.fit` returns: one class per kind of model, each declaring its",
        ":class:`~ubreg.results.base.Capabilities` (the on-line learner,",
        ":class:`ubreg.OnlineLearner`, is its own result).  Inherited members are listed",
        "on each class.", ""], results + [("ubreg.results.base.Capabilities", Capabilities),
                                          ("ubreg.results.influence.InfluenceMeasures",
                                           InfluenceMeasures)])

    evaluate = _classes_of("ubreg.evaluate", lambda c: True)
    import ubreg.evaluate.metrics as metrics
    pages["evaluate"] = classes_page("Evaluation results", [
        "What :func:`ubreg.compare`, :func:`ubreg.cv`, :func:`ubreg.cv_risk` and",
        ":func:`ubreg.anova` (and the other evaluation functions) return, and the",
        "metrics they compute (:mod:`ubreg.evaluate.metrics`).", ""], evaluate)
    pages["evaluate"] += [""] + module_page(metrics, "Metrics", top, title_char="-")

    summaries = _classes_of("ubreg.summary", lambda c: issubclass(c, Summary))
    pages["summaries"] = classes_page("Summaries", [
        "What ``summary()`` returns: ``str()`` gives the text, ``html()`` the HTML and",
        "``frame()`` the table as a DataFrame.", ""], summaries)

    import ubreg.datasets
    import ubreg.errors
    import ubreg.families
    import ubreg.plots
    import ubreg.sklearn
    pages["families"] = module_page(ubreg.families, "``ubreg.families``", top, [
        "The mathematics of every family is on :doc:`../../math`.", ""])
    pages["sklearn"] = module_page(ubreg.sklearn, "``ubreg.sklearn``", top,
                                   inherited=SKLEARN_BASES)
    pages["plots"] = module_page(ubreg.plots, "``ubreg.plots``", top)
    pages["errors"] = module_page(ubreg.errors, "``ubreg.errors``", top)
    pages["datasets"] = module_page(ubreg.datasets, "``ubreg.datasets``", top)
    for name, lines in pages.items():
        (out / f"{name}.rst").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return list(pages)


_INLINE = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]*`|`[^`]*`_?)")


def _escape_bars(line: str) -> str:
    """``|x|`` in running text is an absolute value, not a reST substitution: escape
    every ``|`` outside inline literals and interpreted text."""
    parts = _INLINE.split(line)
    return "".join(p if i % 2 else p.replace("|", "\\|") for i, p in enumerate(parts))


def escape_absolute_values(app, what, name, obj, options, lines) -> None:
    """ubreg's docstrings write |edge|, |δ_j|, |x| for absolute values (plain text that
    reads well in ``help()``); reST would take them for substitution references.  The
    bars are escaped in the rendered docstring only, outside literal blocks and
    doctests."""
    literal_indent = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if stripped.startswith(">>>") or stripped.startswith("..."):
            continue
        if "|" in line:
            lines[i] = _escape_bars(line)
        if stripped.endswith("::"):
            literal_indent = indent


def skip_sklearn_members(app, what, name, obj, skip, options):
    """scikit-learn's own members (metadata-routing setters made per class) are
    scikit-learn's to document: their docstrings point into its documentation."""
    if getattr(obj, "__module__", "") and str(getattr(obj, "__module__", "")).startswith(
            "sklearn."):
        return True
    return None


def _made_by_ubreg(obj) -> bool:
    """Classes that ubreg's functions build (results, summaries, evaluation results):
    their constructors are not an interface, so their pages show no signature."""
    from ubreg.methods.online import OnlineLearner
    from ubreg.results.base import Result
    from ubreg.summary.base import Summary
    if not inspect.isclass(obj) or issubclass(obj, (OnlineLearner, BaseException)):
        return False
    return (issubclass(obj, (Result, Summary))
            or obj.__module__.startswith("ubreg.evaluate."))


def hide_internal_signatures(app, what, name, obj, options, signature, return_annotation):
    if what == "class" and _made_by_ubreg(obj):
        return "", None
    return None


def builder_inited(app) -> None:
    write_api_pages(app.srcdir)


def setup(app):
    # before autosummary (priority 500), which reads the pages for its tables
    app.connect("builder-inited", builder_inited, priority=100)
    # after numpydoc (priority 500), on the reST it makes of the NumPy sections
    app.connect("autodoc-process-docstring", escape_absolute_values, priority=600)
    app.connect("autodoc-skip-member", skip_sklearn_members)
    app.connect("autodoc-process-signature", hide_internal_signatures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
