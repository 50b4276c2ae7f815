"""The analysis commands of ``ubreg``: ``compare``, ``anova`` and ``predict``.

- ``ubreg compare data.csv "F1" "F2" --method uls --method udt --report out.html``: each
  formula by each method, cross-validated on the same rows (complete in every formula's
  variables) and the same folds (:func:`ubreg.evaluate.cv.cv_models`); prints the
  comparison table, optionally writes the report.
- ``ubreg anova data.csv "F1" ["F2" ...]``: one formula, its sequential deviance table;
  several, R's ``anova(m1, m2, ...)`` of nested linear fits on the same rows.
- ``ubreg predict model.pkl newdata.csv -o out.csv``: the predictions of a model saved by
  ``ubreg fit ... --save model.pkl``, one row per row of newdata.
"""
from __future__ import annotations

import argparse
import pathlib
import pickle
import warnings
from typing import Any

import pandas as pd

from ._version import __version__
from .errors import UbregError

__all__ = ["add_commands", "read_csv"]


#: each command's order of data and formulas, as an error gives it
_ORDER = {"fit": "the formula first, then the data: ubreg fit {formula!r} {data}",
          "compare": "the data first, then the formulas: ubreg compare {data} {formula!r} ...",
          "anova": "the data first, then the formulas: ubreg anova {data} {formula!r} ..."}


def read_csv(path: str, command: str | None = None, formula: str = "") -> pd.DataFrame:
    """A CSV file with a header row, or an error naming the file (and, when the path is
    a formula, ``command``'s order of its arguments, with the file as ``formula``)."""
    try:
        return pd.read_csv(path)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        if command in _ORDER and "~" in path and not pathlib.Path(path).exists():
            order = _ORDER[command].format(formula=path, data=formula or "data.csv")
            raise UbregError(f"cannot read {path!r}: it is a formula, not a data file; "
                             f"ubreg {command} takes {order}") from None
        raise UbregError(f"cannot read {path!r}: {exc}") from None


def _first_file(values) -> str:
    """The first of ``values`` that is a file (the data given in a formula's place)."""
    return next((v for v in values if pathlib.Path(v).is_file()), "")


def _family(name: str | None) -> Any:
    from .families import resolve_family
    return None if name is None else resolve_family(name)


def _compare(args: argparse.Namespace) -> int:
    from .evaluate.compare import compare
    from .evaluate.cv import cv_models
    from .reporting import report

    data = read_csv(args.data, args.command, _first_file(args.formulas))
    methods = args.method or ["uls"]
    specs = {}
    for formula in args.formulas:
        for method in methods:
            label = formula if len(methods) == 1 else f"{formula} · {method}"
            specs[label] = dict(formula=formula, method=method, family=_family(args.family))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # per-fold warnings: the summaries say them
        models = cv_models(specs, data, folds=args.folds, seed=args.seed,
                           show_progress=False)
    print(f"{len(specs)} models, {args.folds}-fold CV (seed {args.seed}) on the same rows "
          "and folds")
    print(compare(models))
    if args.report:
        path = report(models, args.report, title=f"ubreg compare: {args.data}",
                      call=args.command_line, training_data=data)
        print(f"report: {pathlib.Path(path).resolve()}")
    return 0


def _anova(args: argparse.Namespace) -> int:
    from .evaluate.anova import anova
    from .evaluate.cv import common_rows
    from .methods.fit import fit

    data = read_csv(args.data, args.command, _first_file(args.formulas))
    rows = data.loc[common_rows(data, list(args.formulas))]
    models: list[Any] = [fit(f, rows, family=_family(args.family)) for f in args.formulas]
    print(anova(*models, test=None if args.no_test else "Chisq"))
    return 0


def _predict(args: argparse.Namespace) -> int:
    from ._pickling import warn_if_other_version

    try:
        with open(args.model, "rb") as stream:
            model = pickle.load(stream)
    except (OSError, pickle.UnpicklingError, EOFError) as exc:
        raise UbregError(f"cannot load the model {args.model!r}: {exc}") from None
    except (ImportError, AttributeError) as exc:     # a module or class since renamed
        raise UbregError(f"cannot load the model {args.model!r}: {exc}; it was saved by "
                         f"another ubreg version than {__version__}: refit it (README.md, "
                         "\"Saving fitted models\")") from None
    if not hasattr(model, "predict") or not hasattr(model, "formula"):
        raise UbregError(f"{args.model!r} holds a {type(model).__name__}, not a ubreg model "
                         "(save one with ubreg fit ... --save FILE)")
    warn_if_other_version(getattr(model, "ubreg_version", None))
    newdata = read_csv(args.newdata)
    predicted = model.predict(newdata, type=args.type)
    out = (predicted if isinstance(predicted, pd.DataFrame)
           else predicted.rename(args.type).to_frame())
    out.to_csv(args.output, index=False)
    print(f"{len(out)} predictions ({args.type}) of {model.formula!r}: "
          f"{pathlib.Path(args.output).resolve()}")
    return 0


def add_commands(sub: Any, family_help: str, method_help: str) -> None:
    """The subcommands ``compare``, ``anova`` and ``predict`` of the ``ubreg`` parser."""
    c = sub.add_parser("compare", help="cross-validate each formula by each method on the "
                       "same rows and folds; print the comparison, optionally a report")
    c.add_argument("data", help="CSV file with a header row")
    c.add_argument("formulas", nargs="+", metavar="FORMULA")
    c.add_argument("--method", action="append", help=method_help + " (repeat for several; "
                   "default uls)")
    c.add_argument("--family", default=None, help=family_help)
    c.add_argument("--folds", type=int, default=10, help="cross-validation folds (default 10)")
    c.add_argument("--seed", type=int, default=1, help="seed of the CV split (default 1)")
    c.add_argument("--report", metavar="FILE", help="also write a report (.html or .pdf)")
    c.set_defaults(run=_compare)
    a = sub.add_parser("anova", help="deviance table of one linear fit, or R's anova of "
                       "nested fits on the same rows")
    a.add_argument("data", help="CSV file with a header row")
    a.add_argument("formulas", nargs="+", metavar="FORMULA")
    a.add_argument("--family", default=None, help=family_help)
    a.add_argument("--no-test", action="store_true", help="leave out Pr(>Chi)")
    a.set_defaults(run=_anova)
    p = sub.add_parser("predict", help="predictions of a saved model (ubreg fit ... --save) "
                       "on new rows; load only model files you trust (unpickling runs code)")
    p.add_argument("model", help="a file written by ubreg fit ... --save FILE")
    p.add_argument("newdata", help="CSV file with a header row")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="CSV file to write")
    p.add_argument("--type", default="response", choices=["response", "link", "class"],
                   help="scale of the predictions (default response)")
    p.set_defaults(run=_predict)
