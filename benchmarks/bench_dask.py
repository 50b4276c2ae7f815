"""Out-of-core ULS: fit from parquet files on a local Dask cluster.

Data: the generator of ``bench_uls.make_data`` (20 numeric + 2 categorical
predictors, 34 design columns, logistic truth), written chunk by chunk as
parquet files into a temporary folder (one file per ``--rows-per-file`` rows,
chunk i drawn with seed 20261122 + i, so memory stays bounded).

Measured, each in its own process so that each peak RSS is its own:

- ``dask``: ``ubreg.fit(FORMULA, dd.read_parquet(folder), family="entropy")``
  on a LocalCluster (``--workers`` processes, one thread each): wall time of
  the fit (reading, design, Newton passes, sandwich), peak RSS of the client
  and of every worker;
- ``memory``: ``pd.read_parquet`` of the same files (not timed), then the
  in-memory ``ubreg.fit``: wall time and peak RSS.

    python benchmarks/bench_dask.py --smoke            # seconds (uls, udt and uboost)
    python benchmarks/bench_dask.py --n 1000000        # dask and in-memory at 1e6
    python benchmarks/bench_dask.py --n 10000000 --memory-n 1000000
    python benchmarks/bench_dask.py --method udt --n 10000000 --memory-n 1000000
    python benchmarks/bench_dask.py --method uboost --n 10000000 --memory-n 1000000
    python benchmarks/bench_dask.py --method uls,udt,uboost   # all three on the same files

``--method udt`` fits ``method="udt", bins=255`` (rpart's controls, no
cross-validation: ``xval=0`` in memory, the Dask default), ``--method uboost``
fits ``method="uboost"`` (logistic U, trees of depth 3, ``--mstop`` iterations,
255 bins), both in memory with the same options.  Their identity figure is the
largest |difference| of the predicted P(y = 1) on the rows of the in-memory fit
(when both fits ran on the same rows).

Printed: the table, the ratios (time per row of dask at n vs in-memory at
``--memory-n``, by wall time and per core — the dask fit has ``--workers``
cores, the in-memory one ``--blas-threads``; goals: ≤ 2x time per row,
< 2 GB per worker at 1e7) and the largest |coefficient difference| when both
fits ran on the same rows.  ``persist`` is ubreg's default ("auto") unless
``--no-persist`` or ``--persist`` is given.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def _blas_threads() -> str:
    argv = sys.argv
    if "--blas-threads" in argv[:-1]:
        return argv[argv.index("--blas-threads") + 1]
    return "1"


# BLAS threads of every process, set before numpy loads OpenBLAS.  The dask
# workers get 1 thread from distributed's defaults; the in-memory reference is
# given the same, so the comparison is per core.  (On a busy 2-core machine,
# OpenBLAS with 2 threads made one 1e5 x 34 Gram matrix 100x slower.)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, _blas_threads())

import numpy as np  # noqa: E402

from _results import record  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_uls import FORMULA, make_data  # noqa: E402

SEED = 20261122


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def generate(folder: str, n: int, rows_per_file: int) -> None:
    """Parquet files of n rows in ``folder`` (chunk i: make_data(rows, SEED + i))."""
    os.makedirs(folder, exist_ok=True)
    start, i = 0, 0
    while start < n:
        rows = min(rows_per_file, n - start)
        chunk = make_data(rows, seed=SEED + i)
        chunk.index = np.arange(start, start + rows)
        chunk.to_parquet(os.path.join(folder, f"part.{i:05d}.parquet"), engine="pyarrow")
        start += rows
        i += 1


def _options(method: str, on_dask: bool, persist="auto", mstop: int = 100) -> dict:
    """``ubreg.fit`` keywords of the benchmarked method."""
    if method == "uls":
        return dict(family="entropy", **({"persist": persist} if on_dask else {}))
    if method == "udt":
        return dict(method="udt", bins=255, **({} if on_dask else {"xval": 0}))
    return dict(method="uboost", mstop=mstop)


def _summary(m, method: str) -> dict:
    """Iterations (uls: Newton; udt: leaves; uboost: mstop) and what the identity
    check compares (uls: the coefficients; trees: P(y = 1) of the first rows)."""
    if method == "uls":
        return {"iterations": m.iterations, "coef": m.coef.tolist(), "deviance": m.deviance}
    return {"iterations": m.n_leaves if method == "udt" else m.mstop,
            "deviance": m.deviance}


def _check_rows(folder: str):
    """The rows whose predictions the identity check compares (the first file's)."""
    import pandas as pd
    first = sorted(f for f in os.listdir(folder) if f.endswith(".parquet"))[0]
    return pd.read_parquet(os.path.join(folder, first), engine="pyarrow").iloc[:5000]


def task_dask(folder: str, workers: int, persist="auto", method: str = "uls",
              mstop: int = 100) -> dict:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import ubreg
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        # not timed, like the imports of the in-memory reference: a long-lived
        # cluster pays its workers' imports once
        client.run(lambda: __import__("ubreg") and None)
        base_mb = _peak_mb()
        t0 = time.perf_counter()
        ddf = dd.read_parquet(folder, engine="pyarrow")
        m = ubreg.fit(FORMULA, ddf, **_options(method, True, persist, mstop))
        seconds = time.perf_counter() - t0
        worker_mb = client.run(_peak_mb)
        out = {"task": "dask", "n": int(m.nobs), "seconds": seconds, "peak_mb": _peak_mb(),
               "base_mb": base_mb, "worker_peak_mb": sorted(worker_mb.values()),
               "passes": m.passes, "partitions": m._stats["partitions"],
               "persisted": bool(m._stats.get("persisted", True)), "cores": workers,
               **_summary(m, method)}
        if method != "uls":
            out["check"] = m.predict(_check_rows(folder)).tolist()
    finally:
        client.close()
        cluster.close()
    return out


def task_memory(folder: str, method: str = "uls", mstop: int = 100) -> dict:
    import pandas as pd

    import ubreg
    data = pd.read_parquet(folder, engine="pyarrow")
    base_mb = _peak_mb()
    t0 = time.perf_counter()
    m = ubreg.fit(FORMULA, data, **_options(method, False, mstop=mstop))
    seconds = time.perf_counter() - t0
    out = {"task": "memory", "n": int(m.nobs), "seconds": seconds, "peak_mb": _peak_mb(),
           "base_mb": base_mb, "cores": int(_blas_threads()), **_summary(m, method)}
    if method != "uls":
        out["check"] = m.predict(_check_rows(folder)).tolist()
    return out


def _run(args: list[str]) -> dict:
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), *args,
                           "--blas-threads", _blas_threads()], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{args} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _methods(text: str) -> list[str]:
    """``--method``: one method or several, separated by commas."""
    names = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in names if m not in ("uls", "udt", "uboost")]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"methods are uls, udt and uboost, got {text!r}")
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10_000_000, help="rows fitted with dask")
    ap.add_argument("--memory-n", type=int, default=None,
                    help="rows of the in-memory reference (default: min(n, 1e6))")
    ap.add_argument("--rows-per-file", type=int, default=500_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="20 000 rows in 4 files")
    ap.add_argument("--blas-threads", default="1",
                    help="OPENBLAS/OMP/MKL_NUM_THREADS of the in-memory fit and the client")
    ap.add_argument("--no-persist", action="store_true",
                    help="persist=False: rebuild each partition's design at every pass")
    ap.add_argument("--persist", action="store_true",
                    help="persist=True: keep the designs in worker memory whatever their size")
    ap.add_argument("--keep", help="folder for the parquet files (kept; default: a temp dir)")
    ap.add_argument("--method", type=_methods, default=None,
                    help="the method fitted, or several separated by commas, e.g. "
                         "uls,udt,uboost (on the same files; default uls; --smoke runs all "
                         "three)")
    ap.add_argument("--mstop", type=int, default=100, help="uboost's iterations")
    ap.add_argument("--task", choices=["dask", "memory", "generate"], help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.task == "generate":
        generate(args.folder, args.n, args.rows_per_file)
        print(json.dumps({"task": "generate"}))
        return
    method = (args.method or ["uls"])[0]
    if args.task == "dask":
        persist = False if args.no_persist else True if args.persist else "auto"
        print(json.dumps(task_dask(args.folder, args.workers, persist, method, args.mstop)))
        return
    if args.task == "memory":
        print(json.dumps(task_memory(args.folder, method, args.mstop)))
        return

    methods = args.method or ["uls"]
    if args.smoke:
        args.n, args.rows_per_file = 20_000, 5_000
        methods = args.method or ["uls", "udt", "uboost"]
        args.mstop = min(args.mstop, 10)
    persist = ["--no-persist"] if args.no_persist else ["--persist"] if args.persist else []
    persist_label = ("persist=False" if args.no_persist else "persist=True" if args.persist
                     else "persist='auto'")
    mem_n = args.memory_n or min(args.n, 1_000_000)
    root = args.keep or tempfile.mkdtemp(prefix="ubreg-bench-dask-")
    try:
        big, small = os.path.join(root, f"n{args.n}"), os.path.join(root, f"n{mem_n}")
        t0 = time.perf_counter()
        for folder, n in {big: args.n, small: mem_n}.items():
            if not os.path.isdir(folder):
                _run(["--task", "generate", "--folder", folder, "--n", str(n),
                      "--rows-per-file", str(args.rows_per_file)])
        print(f"parquet written to {root} in {time.perf_counter() - t0:.1f} s", flush=True)
        results = {}
        for name in methods:
            extra = ["--method", name, "--mstop", str(args.mstop)]
            res = {"dask": _run(["--task", "dask", "--folder", big, "--workers",
                                 str(args.workers), *persist, *extra])}
            print(f"{name}: dask fit at n = {args.n:,} done in {res['dask']['seconds']:.1f} s",
                  flush=True)
            if mem_n == args.n:
                res["memory"] = _run(["--task", "memory", "--folder", big, *extra])
            else:
                res["dask_small"] = _run(["--task", "dask", "--folder", small,
                                          "--workers", str(args.workers), *persist, *extra])
                res["memory"] = _run(["--task", "memory", "--folder", small, *extra])
            results[name] = res
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    for name, res in results.items():
        _report(name, res, args, persist_label)


def _identity(method: str, a: dict, m: dict) -> str:
    if method == "uls":
        diff = np.max(np.abs(np.array(a["coef"]) - np.array(m["coef"])))
        return f"largest |coef diff| dask vs in-memory at n={a['n']:,}: {diff:.2e}  (<= 1e-8)"
    diff = np.max(np.abs(np.array(a["check"]) - np.array(m["check"])))
    return (f"largest |P(y=1) diff| dask vs in-memory at n={a['n']:,} "
            f"({len(m['check'])} rows): {diff:.2e}  (<= 1e-10)")


def _report(method: str, res: dict, args, persist_label: str) -> None:
    what = {"uls": "uls entropy", "udt": "udt bins=255 (rpart controls, xval=0)",
            "uboost": f"uboost logistic, trees of depth 3, mstop={args.mstop}"}[method]
    print(f"\n== {what} from parquet; dask: {args.workers} workers x 1 thread, "
          f"{args.rows_per_file:,} rows per file, {persist_label}; "
          f"in-memory: {args.blas_threads} BLAS thread(s) ==")
    print("(iter: Newton iterations (uls), leaves (udt), iterations (uboost); "
          "us/row: wall time per row; core-us/row: wall time x cores per row, cores = dask "
          "workers x 1 thread, or the in-memory BLAS threads)")
    print(f"{'fit':12s} {'n':>11s} {'seconds':>9s} {'us/row':>7s} {'cores':>5s} "
          f"{'core-us/row':>11s} {'client MB':>10s} {'worker peak MB':>18s} {'iter':>5s} "
          f"{'passes':>6s} {'persisted':>9s}")
    for name, r in res.items():
        workers = ",".join(f"{v:.0f}" for v in r.get("worker_peak_mb", [])) or "-"
        print(f"{name:12s} {r['n']:11,d} {r['seconds']:9.2f} {1e6 * r['seconds'] / r['n']:7.2f} "
              f"{r['cores']:5d} {1e6 * r['seconds'] * r['cores'] / r['n']:11.2f} "
              f"{r['peak_mb']:10.0f} {workers:>18s} {r['iterations']:5d} "
              f"{r.get('passes', ''):>6} {str(r.get('persisted', '-')):>9s}")
    d, m = res["dask"], res["memory"]
    per_row = (d["seconds"] / d["n"]) / (m["seconds"] / m["n"])
    per_core = per_row * d["cores"] / m["cores"]
    print("\nratios (goal):")
    goal = "<= 2" if method == "uls" else "<= 1.5 at 1e7 rows"
    print(f"  time per row, dask at n={d['n']:,} / in-memory at n={m['n']:,} = {per_row:.2f}  "
          f"({goal})")
    print(f"  time per row per core, dask ({d['cores']} cores) / in-memory ({m['cores']}) "
          f"= {per_core:.2f}")
    if "dask_small" in res:
        s = res["dask_small"]
        print(f"  dask time growth n={d['n']:,} vs n={s['n']:,}: {d['seconds'] / s['seconds']:.2f} "
              f"for {d['n'] / s['n']:.0f}x the rows (linear = {d['n'] / s['n']:.0f})")
        print(f"  {_identity(method, s, m)}")
    else:
        print(f"  {_identity(method, d, m)}")
    print(f"  peak RSS per worker: {max(d['worker_peak_mb']):.0f} MB (goal < 2048 MB); "
          f"client {d['peak_mb']:.0f} MB; in-memory fit {m['peak_mb']:.0f} MB")
    fields = ("n", "seconds", "cores", "peak_mb", "worker_peak_mb", "iterations", "passes")
    record("bench_dask" if method == "uls" else f"bench_dask_{method}",
           {"fits": {k: {f: r[f] for f in fields if f in r} for k, r in res.items()},
            "time_per_row_ratio": per_row, "time_per_row_per_core": per_core},
           smoke=args.smoke)


if __name__ == "__main__":
    main()
