"""Time ``import ubreg`` against the imports a statistician's script pays anyway.

Each import runs in a fresh interpreter (``python -X importtime`` is not used:
its own bookkeeping slows the import), timed from inside by
``time.perf_counter`` around the import statement; the peer is
``import pandas, scipy.stats, patsy`` (what a script that reads data and fits a
model with statsmodels or patsy loads first).  The runs alternate and each side
keeps its fastest, so a burst of load hits both alike.  Also printed: the
modules ``import ubreg`` loads (it loads the families and little else; the
rest loads on first use, ``ubreg/__init__.py``).

    python benchmarks/bench_import.py               # 7 runs each
    python benchmarks/bench_import.py --smoke       # 2 runs each

Goal (issue 19): ``import ubreg`` within 1.3x the peer's time.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from _results import record

PEER = "import pandas, scipy.stats, patsy"
UBREG = "import ubreg"

_CHILD = """
import sys, time, json
t = time.perf_counter()
{statement}
seconds = time.perf_counter() - t
print(json.dumps({{"seconds": seconds, "modules": len(sys.modules)}}))
"""


def _run(statement: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD.format(statement=statement)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="fresh interpreters per side")
    ap.add_argument("--smoke", action="store_true", help="2 runs per side")
    args = ap.parse_args(argv)
    runs = 2 if args.smoke else args.runs
    times: dict[str, list[float]] = {UBREG: [], PEER: []}
    modules = {}
    for _ in range(runs):
        for statement in (UBREG, PEER):
            r = _run(statement)
            times[statement].append(r["seconds"])
            modules[statement] = r["modules"]
    best = {s: min(t) for s, t in times.items()}
    ratio = best[UBREG] / best[PEER]
    for s in (UBREG, PEER):
        runs_text = " ".join(f"{t:.3f}" for t in times[s])
        print(f"{s:36s} {best[s]:6.3f} s (fastest of {runs}: {runs_text}); "
              f"{modules[s]} modules loaded")
    print(f"import ubreg / ({PEER}) = {ratio:.2f}  (goal <= 1.3)")
    record("bench_import", {"ubreg_s": best[UBREG], "peer_s": best[PEER], "ratio": ratio,
                            "runs": times, "modules": modules, "peer": PEER},
           smoke=args.smoke)


if __name__ == "__main__":
    main()
