"""The ``ubreg`` command line: ``ubreg demo`` and ``ubreg fit``.

Errors are one line on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import pandas as pd

from . import __version__
from .errors import UbregError

__all__ = ["main"]

DEMO_FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"
DEMO_FAMILIES = ("entropy", "matsushita", "gini", "power")


def _demo(args) -> int:
    from . import datasets, fit
    from .families import Permissible

    data = datasets.load_pima()
    print(f"ubreg {__version__} demo: Pima Indians diabetes (mlbench, {len(data)} rows), "
          f"method uls, families {', '.join(DEMO_FAMILIES)}")
    for name in DEMO_FAMILIES:
        model = fit(DEMO_FORMULA, data, family=Permissible(name), method="uls")
        print(f"\n{'=' * 78}\nfamily = {name}")
        print(model.summary())
    return 0


def _fit(args) -> int:
    from . import fit
    from .families import resolve_family

    try:
        data = pd.read_csv(args.data)
    except (OSError, pd.errors.ParserError) as exc:
        raise UbregError(f"cannot read {args.data!r}: {exc}") from None
    options = {}
    if args.solver:
        options["solver"] = args.solver
    model = fit(args.formula, data, family=resolve_family(args.family), method=args.method,
                **options)
    print(model.summary())
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ubreg", description="Classification by proper "
                                     "scoring rules and Bregman divergences.")
    parser.add_argument("--version", action="version", version=f"ubreg {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="fit several families on bundled data and print them")
    demo.set_defaults(run=_demo)
    f = sub.add_parser("fit", help="fit FORMULA on a CSV file and print the summary")
    f.add_argument("formula")
    f.add_argument("data", help="CSV file with a header row")
    f.add_argument("--family", default="entropy")
    f.add_argument("--method", default="uls")
    f.add_argument("--solver", choices=["corrective", "coordinate"])
    f.set_defaults(run=_fit)
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.formatwarning = lambda msg, cat, *a, **k: f"Warning ({cat.__name__}): {msg}\n"
            return args.run(args)
    except (UbregError, ValueError, TypeError) as exc:
        print(f"ubreg: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
