"""The ``ubreg`` command line: ``ubreg demo``, ``ubreg fit`` (``--save`` a model), and the
analysis commands ``compare``, ``anova`` and ``predict`` (:mod:`ubreg.cli_analysis`).

Errors are one line on stderr (``ubreg: error: ...``, a multi-line message
joined) and exit status 2, never a traceback — unless ``--debug`` is given
or the environment variable ``UBREG_DEBUG`` is set (to anything but ``0``
or an empty string), when the traceback is printed too.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import pickle
import re
import shlex
import sys
import traceback
import warnings
from typing import Any, TypeAlias

import pandas as pd

from ._version import __version__
from .cli_analysis import add_commands, read_csv
from .errors import UbregError

__all__ = ["main", "demo_models", "parse_option"]

DEMO_FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"
#: (label, method, family name, family parameters, fit options) of a demo model; label
#: None: named after the fit, family None: the method's own loss
DemoSpec: TypeAlias = "tuple[str | None, str, str | None, dict[str, float], dict[str, Any]]"
#: the demo's linear fits (one fit per model: a second solver of the same model, e.g. the
#: coordinate solver of the logistic regression, would be the same model twice)
DEMO_SPECS: tuple[tuple[str, str, str, dict[str, float], dict[str, Any]], ...] = (
    ("uls · entropy (logistic regression)", "uls", "entropy", {}, {}),
    ("uls · matsushita", "uls", "matsushita", {}, {}),
    ("uls · gini (linear probability model)", "uls", "gini", {}, {}),
    ("uls · power v=0.3", "uls", "power", {"v": 0.3}, {}),
)
#: other methods tried in the demo when they are registered, with their options (each is
#: labelled after fitting by what it fitted: method · family, e.g. "tboost · tempered
#: exponential (t = 0.5)")
#: family None: the method's default loss (uboost: entropy, the logistic U; tboost: the
#: tempered exponential loss, t = 0.5)
DEMO_OTHER_METHODS: dict[str, tuple[str | None, dict[str, Any]]] = {
    "udt": ("entropy", {"prune": "1se"}), "uboost": (None, {}), "tboost": (None, {}),
    "gnnb": ("entropy", {})}
#: folds of the U-Boost CV risk path drawn in the demo report
DEMO_CV_RISK_FOLDS = 10


def _command_line(argv) -> str:
    args = sys.argv[1:] if argv is None else list(argv)
    return "ubreg " + " ".join(shlex.quote(a) for a in args)


def demo_models(data, folds: int = 10, seed: int = 1, show_progress=None):
    """Fit the demo's models and cross-validate them on equal footing (the same rows, the
    rows complete in every variable of the formula, and the same folds:
    :func:`ubreg.evaluate.cv.cv_models`); return ({label: CVResult}, notes)."""
    from .evaluate.compare import model_label
    from .evaluate.cv import common_rows, cv_models
    from .families import Permissible
    from .methods.fit import fit
    from .methods.registry import METHODS
    from .numerics.progress import progress

    specs: list[DemoSpec] = list(DEMO_SPECS)
    # label None: named after the fit, by the family the method actually fitted
    specs += [(None, name, fam, {}, opts)
              for name, (fam, opts) in DEMO_OTHER_METHODS.items() if name in METHODS]
    rows = data.loc[common_rows(data, [DEMO_FORMULA])]
    chosen, notes = {}, []
    for label, method, fam, params, opts in progress(specs, desc="demo fits", show=show_progress):
        shown = label or method
        try:
            family = None if fam is None else Permissible(fam, **params)
        except (ValueError, TypeError) as exc:
            notes.append(f"{shown}: skipped ({exc})")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = fit(DEMO_FORMULA, rows, family=family, method=method, **opts)
            except Exception as exc:  # noqa: BLE001 — another method's failure must not stop the demo
                notes.append(f"{shown}: skipped ({_one_line(exc)})")
                continue
        chosen[label or model_label(model)] = dict(formula=DEMO_FORMULA, family=family,
                                                   method=method, **opts)
    # every model is cross-validated: the demo's output must not depend on timing
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = cv_models(chosen, data, folds=folds, seed=seed, show_progress=False)
    return models, notes


def _demo(args) -> int:
    from . import datasets
    from .evaluate.compare import compare
    from .reporting import report

    data = datasets.load_pima()
    out = pathlib.Path(args.out)
    print(f"ubreg {__version__} demo: Pima Indians diabetes (mlbench, {len(data)} rows)\n"
          f"model: {DEMO_FORMULA}; {args.folds}-fold stratified CV, seed {args.seed}, "
          "the same rows and folds for every model")
    models, notes = demo_models(data, folds=args.folds, seed=args.seed)
    if not models:
        raise UbregError("no demo model could be fitted")
    call = args.command_line
    html, pdf = report(models, [out / "report.html", out / "report.pdf"],
                       title="ubreg demo: Pima Indians diabetes", call=call,
                       cv_risk=DEMO_CV_RISK_FOLDS, training_data=data)
    print(f"\nHTML report: {html.resolve()}\nPDF report:  {pdf.resolve()}")
    stats = compare(models).statistics()
    # the R-style summaries of the linear fits (one per family; the report has them all)
    for label, _, _, _, opts in DEMO_SPECS:
        result = getattr(models.get(label), "model", None)
        if result is not None and "solver" not in opts:
            print(f"\n== {label} ==\n{result.summary()}")
    print()
    width = max(len(n) for n in models)
    print(f"{'model':<{width}}  {'AIC':>8}  {'CV error rate':>15}  {'CV AUC':>15}")
    for name in models:
        s = stats[name]
        cv_err = (f"{s['cv_error_rate']:.3f} ± {s['cv_error_rate_se']:.3f}"
                  if pd.notna(s["cv_error_rate"]) else "")
        cv_auc = f"{s['cv_auc']:.3f} ± {s['cv_auc_se']:.3f}" if pd.notna(s["cv_auc"]) else ""
        aic = f"{s['aic']:.1f}" if pd.notna(s["aic"]) else ""
        print(f"{name:<{width}}  {aic:>8}  {cv_err:>15}  {cv_auc:>15}")
    if stats.loc["aic"].isna().any():
        print("(AIC only for the linear fits of a likelihood, entropy and entropy2: see the "
              "note under the comparison table.)")
    for note in notes:
        print(f"note: {note}")
    print(f"\nThe reports: {html.resolve()} and {pdf.resolve()}")
    return 0


def _fit(args) -> int:
    from .families import resolve_family
    from .methods.fit import fit
    from .reporting import report

    data = read_csv(args.data, "fit", args.formula)
    options: dict[str, Any] = {}        # ubreg.fit's **options
    raw: dict[str, str] = {}
    for item in args.option or []:
        key, value = parse_option(item)
        if key in options:
            raise UbregError(f"--option {key} is given twice")
        options[key], raw[key] = value, item.partition("=")[2]
    if "trusted" in options:
        raise UbregError("--option trusted: the command line does not widen what a formula "
                         "may call (trusted=True, for formulas you write yourself in Python, "
                         "lets one call numpy's functions)")
    for key in _FIT_ARGUMENTS:
        if key in options:
            raise UbregError(f"--option {key}=...: use the argument for {key}, not --option")
    _typed_options(args.method, options, raw)
    if args.solver:
        if options.get("solver", args.solver) != args.solver:
            raise UbregError(f"--solver {args.solver} and --option solver={options['solver']} "
                             "disagree")
        options["solver"] = args.solver
    # no --family: the method's own default (entropy; tboost's tempered exponential loss)
    family = None if args.family is None else resolve_family(args.family)
    model = fit(args.formula, data, family=family, method=args.method,
                weights=args.weights, freq_weights=args.freq_weights, **options)
    print(model.summary())
    if args.save:
        _save(model, args.save)
    if args.report:
        path = report({"model": model}, args.report, title=f"ubreg fit: {args.formula}",
                      call=args.command_line, cv_risk=args.cv_risk, training_data=data)
        print(f"report: {path.resolve()}")
    return 0


def _save(model: Any, path: str) -> None:
    try:
        with open(path, "wb") as stream:
            pickle.dump(model, stream, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError as exc:
        raise UbregError(f"cannot save the model to {path!r}: {exc}") from None
    print(f"model saved: {pathlib.Path(path).resolve()}")


#: arguments of ubreg.fit that have their own command-line argument
_FIT_ARGUMENTS = ("family", "method", "data", "formula", "weights", "freq_weights")


def _typed_options(method: str, options: dict, raw: dict) -> None:
    """Read each option the method declares from its text by the option's kind
    (:meth:`ubreg.methods.schema.Option.parse`: a yes/no option takes
    true/false/yes/no/1/0, a number a number, ...), the option named in every error;
    others keep :func:`parse_option`'s reading (``ubreg.fit`` refuses them by name)."""
    from .methods.registry import METHODS

    entry = METHODS.get(method)
    if entry is None:
        return
    schema = entry.schema_for(options)
    for key in options:
        if key in schema and schema[key].kind != "value":
            options[key] = schema[key].parse(raw[key])


_INT = re.compile(r"[+-]?\d+")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS = {"true": True, "false": False, "none": None, "null": None}


def parse_option(text: str) -> tuple[str, object]:
    """``key=value`` of ``--option`` as (key, value), without evaluating anything.

    The value is an int (``5``, ``-2``), a float (``0.1``, ``1e-3``, ``inf``),
    a bool (``true``/``false``, any case), None (``none``/``null``), or else
    the string itself (quotes around it are removed: ``'"5"'`` is the string
    ``"5"``).
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not _KEY.fullmatch(key):
        raise UbregError(f"--option expects key=value with a Python name as key, got {text!r}")
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return key, value[1:-1]
    low = value.lower()
    if low in _WORDS:
        return key, _WORDS[low]
    if _INT.fullmatch(value):
        return key, int(value)
    try:
        return key, float(value)
    except ValueError:
        return key, value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ubreg", description="Classification by proper "
                                     "scoring rules and Bregman divergences.")
    parser.add_argument("--version", action="version", version=f"ubreg {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback of an error (also: UBREG_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="compare methods and families on bundled data; write "
                          "an HTML and a PDF report")
    demo.add_argument("--out", default="ubreg-demo", help="output directory (default ./ubreg-demo)")
    demo.add_argument("--folds", type=int, default=10, help="cross-validation folds (default 10)")
    demo.add_argument("--seed", type=int, default=1, help="seed of the CV split (default 1)")
    demo.set_defaults(run=_demo)
    family_help, method_help = _choices_help()
    f = sub.add_parser("fit", help="fit FORMULA on a CSV file and print the summary")
    f.add_argument("formula")
    f.add_argument("data", help="CSV file with a header row")
    f.add_argument("--family", default=None,
                   help=family_help + " (default: the method's, entropy for most)")
    f.add_argument("--method", default="uls", help=method_help + " (default uls)")
    f.add_argument("--solver", choices=["corrective", "coordinate"])
    weights = f.add_mutually_exclusive_group()
    weights.add_argument("--weights", metavar="COLUMN",
                         help="prior weights from this column, as R's glm(weights =)")
    weights.add_argument("--freq-weights", metavar="COLUMN",
                         help="frequency weights from this column (weight 2 = the row twice)")
    f.add_argument("--option", "-o", action="append", metavar="KEY=VALUE",
                   help="an option of the method, repeatable (e.g. -o k=5 for gnnb, "
                   "-o mstop=200 for uboost); ints, floats, true/false and none are "
                   "converted, anything else is a string")
    f.add_argument("--report", metavar="FILE", help="also write a report (.html or .pdf)")
    f.add_argument("--cv-risk", action="store_true",
                   help="in the report, also cross-validate the risk path (uboost)")
    f.add_argument("--save", metavar="FILE", help="also save the fitted model (a pickle, "
                   "for ubreg predict)")
    f.set_defaults(run=_fit)
    add_commands(sub, family_help, method_help)
    pre = sub.add_parser("precompile", help="compile the numba kernels into numba's cache "
                         "once, ahead of the first fit (about two minutes on two cores)")
    pre.add_argument("--processes", type=int, default=2, help="processes (default 2)")
    pre.set_defaults(run=_precompile)
    return parser


def _choices_help() -> tuple[str, str]:
    """The help of --family and --method: their valid values, from the registries."""
    from .families import ALIASES, FAMILIES
    from .methods.registry import METHODS
    aliases = ", ".join(f"{a} ({b})" for a, b in ALIASES.items())
    return (f"one of {', '.join(FAMILIES)}; aliases {aliases}",
            f"one of {', '.join(METHODS)}")


def _precompile(args) -> int:
    from .precompile import precompile
    seconds = precompile(args.processes)
    print("compiled: " + ", ".join(f"{job} {s:.0f} s" for job, s in seconds.items()))
    return 0


def _one_line(exc: BaseException, limit: int = 500) -> str:
    """The message of ``exc`` on one line: its non-blank lines joined (lines of
    only punctuation, such as a parser's ``^`` marker, dropped).  Errors ubreg
    raises on purpose (and ValueError, OSError) show their message; any other
    exception is prefixed with its type."""
    lines = [ln.strip() for ln in str(exc).splitlines()]
    text = " | ".join(ln for ln in lines if any(ch.isalnum() for ch in ln))
    if not isinstance(exc, (UbregError, ValueError, OSError)) or not text:
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _debug_env() -> bool:
    return os.environ.get("UBREG_DEBUG", "") not in ("", "0")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    args.command_line = _command_line(argv)
    # warnings print as one line each, without source lines; restored on exit
    saved_format = warnings.formatwarning
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.formatwarning = _one_line_warning
            return args.run(args)
    except Exception as exc:  # noqa: BLE001 — one line, exit 2, whatever went wrong
        if args.debug or _debug_env():
            traceback.print_exc(file=sys.stderr)
        print(f"ubreg: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = saved_format


def _one_line_warning(message, category, *args, **kwargs) -> str:
    return f"Warning ({category.__name__}): {message}\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
