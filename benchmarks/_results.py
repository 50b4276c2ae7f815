"""Benchmark figures written as JSON beside the scripts, so that a regression is a diff.

Every benchmark calls :func:`record` with the figures it printed (times, ratios against
its peer from the same run, peak memory, identity checks): a full run writes
``benchmarks/results/<name>.json`` (committed), a ``--smoke`` run
``benchmarks/results/<name>.smoke.json`` (ignored by git).
"""
from __future__ import annotations

import datetime
import json
import os
import pathlib
import platform
import subprocess

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=RESULTS.parent,
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _clean(value):
    """JSON for numpy scalars and arrays, NaN as null."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "tolist"):
        return _clean(value.tolist())
    if isinstance(value, float) and value != value:
        return None
    return value


def record(name: str, figures: dict, smoke: bool = False) -> pathlib.Path:
    """Write ``figures`` (with the date, the commit and the machine) and return the path."""
    import ubreg
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}{'.smoke' if smoke else ''}.json"
    data = {"benchmark": name, "date": datetime.date.today().isoformat(),
            "ubreg": ubreg.__version__, "commit": _commit(),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "system": platform.system()},
            "figures": _clean(figures)}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"figures written to {path.relative_to(RESULTS.parent.parent)}")
    return path
