"""ubreg against the libraries users would pick instead (issue 32's table).

One task per row of the issue's goal table (the non-logistic uboost row is in
bench_boost.py, the Dask row in bench_dask.py):

* ``boost``: uboost logistic, depth 3 x 200 rounds, 1e5 x 20 (bench_boost.make_data)
  vs HistGradientBoosting, LightGBM and XGBoost ``hist`` with matched settings
  (depth 3 / 8 leaves, learning rate 0.1, >= 20 rows a leaf, 255 bins, no early
  stopping, the same threads); goal <= 0.8 x the fastest at equal test log loss (+- 0.002);
* ``multiclass``: uboost, 4 simulated classes, 1e5 x 20, 200 rounds vs
  HistGradientBoosting and LightGBM (XGBoost printed too); goal <= 1.0 x the faster;
* ``uls``: ``ubreg.fit`` ULS entropy on bench_uls's data (1e6 x 34 design columns),
  formula included, the first call in a fresh process, vs glum's
  ``GeneralizedLinearRegressor(family="binomial", alpha=0, formula=...)`` and statsmodels'
  ``smf.glm``; goal <= 0.6 x glum, <= 0.12 x statsmodels, peak RSS <= 600 MB;
* ``gnnb``: GNNB k = 10 on LetterRecognition, one ``ubreg.fit`` (+ predict) per fold,
  5 folds, vs ``KNeighborsClassifier`` on the same standardised data; goal <= 1.5 x;
* ``first-fit``: a fresh process with an empty numba cache (NUMBA_CACHE_DIR a new empty
  directory) importing ubreg and fitting uboost on Pima, vs a fresh process importing
  scikit-learn and fitting HistGradientBoosting; goal <= 3 s;
* ``fresh-process``: with the cache warm, one fresh process per method (import, fit on
  Pima and print the summary) vs a process doing the same with statsmodels' glm; goal
  <= 1.0 x each.

Every contender runs ``--repeats`` times, interleaved with its peers (a, b, c, a, b, c,
...), and keeps its fastest run; wall-clock and CPU seconds are printed side by side
(on a shared machine CPU time moves less).  Whole-process rows are timed from the
parent (interpreter start included, alike for both sides), CPU from RUSAGE_CHILDREN.
BLAS/OpenMP threads (OPENBLAS/OMP/MKL_NUM_THREADS) and every library's thread count are
``--threads`` (default: the machine's cores).  A peer that is not installed (lightgbm,
xgboost, glum: ``pip install -e '.[bench]'``) is reported as "not installed".

    python benchmarks/bench_peers.py                     # every task, full size
    python benchmarks/bench_peers.py --task boost --task uls
    python benchmarks/bench_peers.py --smoke             # seconds; what CI runs

Figures go to benchmarks/results/bench_peers.json (one key per task, merged).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def _threads_arg() -> str:
    argv = sys.argv
    if "--threads" in argv[:-1]:
        return argv[argv.index("--threads") + 1]
    return str(os.cpu_count() or 1)


# every contender gets the same BLAS/OpenMP threads, set before numpy loads
# (also before bench_uls is imported: it sets these variables itself when unset)
THREADS = int(_threads_arg())
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PIMA_CSV = ROOT / "ubreg" / "datasets" / "pima_indians_diabetes2.csv"
PIMA_FORMULA = "diabetes ~ pregnant + glucose + pressure + mass + pedigree + age"
PIMA_COLS = ["diabetes", "pregnant", "glucose", "pressure", "mass", "pedigree", "age"]
NOT_INSTALLED = "not installed"


def installed(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def _fmt(t) -> str:
    return NOT_INSTALLED if t is None else f"{t[0]:.3f} s (CPU {t[1]:.2f})"


def show_row(workload: str, ubreg_t, peers: dict, ratio: float, goal: str, met: bool,
             quality: str) -> dict:
    """Print one row of the table: ubreg's time, each peer's, the ratio and the goal."""
    print(f"\n== {workload} ==")
    print(f"  ubreg: {_fmt(ubreg_t)}")
    for name, t in peers.items():
        print(f"  {name}: {_fmt(t)}")
    print(f"  ratio {ratio:.2f}   goal {goal}: {'met' if met else 'NOT met'}")
    if quality:
        print(f"  {quality}")
    return {"workload": workload, "ratio": ratio, "goal": goal, "met": bool(met),
            "ubreg_seconds": None if ubreg_t is None else ubreg_t[0],
            "ubreg_cpu_seconds": None if ubreg_t is None else ubreg_t[1],
            "peers": {k: (None if v is None else {"seconds": v[0], "cpu_seconds": v[1]})
                      for k, v in peers.items()}}


def interleaved(fns: dict, repeats: int, slow: float = float("inf")) -> dict:
    """Each callable of ``fns`` (returning (result, wall, cpu)) ``repeats`` times in turn;
    one whose first run took over ``slow`` seconds runs once.  Per name: (last result,
    (wall, cpu) of the fastest run by wall clock, every run's wall seconds)."""
    runs: dict = {k: [] for k in fns}
    out: dict = {}
    for r in range(repeats):
        for name, fn in fns.items():
            if r and runs[name][0][0] > slow:
                continue
            res, wall, cpu = fn()
            runs[name].append((wall, cpu))
            out[name] = res
    return {k: (out[k], min(v), [round(w, 3) for w, _ in v]) for k, v in runs.items()}


def _timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


# ---------------------------------------------------------------- tree boosting --
def _tree_peers(rounds: int, threads: int, multiclass: bool) -> dict:
    """Matched peers: depth 3 (8 leaves), learning rate 0.1, >= 20 rows a leaf, 255 bins,
    no L2 penalty, no early stopping, ``threads`` threads; None where not installed."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    peers: dict = {"HistGradientBoosting": HistGradientBoostingClassifier(
        max_iter=rounds, max_depth=3, max_leaf_nodes=8, learning_rate=0.1,
        min_samples_leaf=20, max_bins=255, l2_regularization=0.0, early_stopping=False)}
    if installed("lightgbm"):
        import lightgbm
        peers["LightGBM"] = lightgbm.LGBMClassifier(
            n_estimators=rounds, num_leaves=8, max_depth=3, learning_rate=0.1,
            min_child_samples=20, max_bin=255, reg_lambda=0.0, subsample=1.0,
            colsample_bytree=1.0, n_jobs=threads, verbose=-1)
    else:
        peers["LightGBM"] = None
    if installed("xgboost"):
        import xgboost
        # XGBoost has no minimum of rows a leaf: min_child_weight bounds the leaf's
        # hessian sum (left at its default, 1)
        peers["XGBoost hist"] = xgboost.XGBClassifier(
            n_estimators=rounds, tree_method="hist", max_depth=3, learning_rate=0.1,
            max_bin=255, reg_lambda=0.0, n_jobs=threads, verbosity=0)
    else:
        peers["XGBoost hist"] = None
    return peers


def _fit_trees(formula, train, test, names, rounds, repeats, threads, classes):
    """uboost and the installed peers fitted in turn; per name (probabilities, (wall, cpu),
    runs) and None for the peers not installed."""
    import numpy as np

    import ubreg
    peers = _tree_peers(rounds, threads, classes > 2)
    Xtr, Xte = train[names].to_numpy(), test[names].to_numpy()
    ytr = train["y"].astype("category").cat.codes.to_numpy() if classes > 2 \
        else train["y"].to_numpy()
    # once per process (numba import and kernel load; peers' imports): not timed
    ubreg.fit(formula, train.iloc[:30_000], method="uboost", depth=3, mstop=2)
    for est in peers.values():
        if est is not None:
            est.set_params(n_estimators=2) if hasattr(est, "n_estimators") \
                else est.set_params(max_iter=2)
            est.fit(Xtr[:2000], ytr[:2000])
            est.set_params(n_estimators=rounds) if hasattr(est, "n_estimators") \
                else est.set_params(max_iter=rounds)

    def ubreg_fit():
        return ubreg.fit(formula, train, method="uboost", learner="trees", depth=3,
                         mstop=rounds, nu=0.1, min_samples_leaf=20)

    fns = {"ubreg": lambda: _timed(ubreg_fit)}
    for name, est in peers.items():
        if est is not None:
            fns[name] = (lambda e=est: _timed(lambda: e.fit(Xtr, ytr)))
    res = interleaved(fns, repeats)
    probs = {}
    for name, (model, best, runs) in res.items():
        if name == "ubreg":
            p = model.predict(test, type="response")
            p = p.to_numpy() if classes > 2 else np.asarray(p, dtype=float)
        else:
            p = model.predict_proba(Xte)
            p = p if classes > 2 else p[:, 1]
        probs[name] = (p, best, runs)
    return probs, [n for n, e in peers.items() if e is None]


def _quality(probs: dict, y, classes: int) -> tuple[dict, str]:
    import numpy as np
    from sklearn.metrics import log_loss
    q = {}
    for name, (p, _, _) in probs.items():
        pred = p.argmax(1) if classes > 2 else (p > 0.5).astype(int)
        q[name] = {"test_log_loss": float(log_loss(y, p, labels=list(range(classes))
                                                   if classes > 2 else None)),
                   "test_accuracy": float(np.mean(pred == y))}
    text = "; ".join(f"{k} log loss {v['test_log_loss']:.4f}, accuracy "
                     f"{v['test_accuracy']:.4f}" for k, v in q.items())
    return q, "test " + text


def task_boost(n: int, rounds: int, repeats: int, threads: int) -> dict:
    from bench_boost import FORMULA, NAMES, make_data
    train, test = make_data(n), make_data(max(n // 5, 100), seed=7)
    probs, missing = _fit_trees(FORMULA, train, test, NAMES, rounds, repeats, threads, 2)
    q, text = _quality(probs, test["y"].to_numpy(), 2)
    times = {k: v[1] for k, v in probs.items()}
    fastest = min((k for k in times if k != "ubreg"), key=lambda k: times[k][0])
    ratio = times["ubreg"][0] / times[fastest][0]
    dll = q["ubreg"]["test_log_loss"] - q[fastest]["test_log_loss"]
    row = show_row(f"uboost logistic, depth 3 x {rounds}, {n:,} x 20 ({threads} threads)",
                   times["ubreg"], {k: times.get(k) for k in
                                    ("HistGradientBoosting", "LightGBM", "XGBoost hist")},
                   ratio, f"<= 0.8 x the fastest ({fastest}), log loss +- 0.002",
                   ratio <= 0.8 and abs(dll) <= 0.002, text)
    print("  every run (s): " + "; ".join(f"{k} {v[2]}" for k, v in probs.items()))
    return {**row, "n": n, "rounds": rounds, "threads": threads, "fastest_peer": fastest,
            "cpu_ratio": times["ubreg"][1] / times[fastest][1], "quality": q,
            "runs": {k: v[2] for k, v in probs.items()}, "not_installed": missing}


def make_multiclass(n: int, seed: int = 20261128):
    """4 classes from a multinomial logit on 20 normal predictors (linear parts, one
    interaction, one quadratic term): columns x1..x20 and y (labels a-d).  The truth (B)
    is the same for every seed; the seed draws the rows."""
    import numpy as np
    from bench_boost import NAMES, make_data
    frame = make_data(n, seed).drop(columns="y")
    X = frame.to_numpy()
    B = np.random.default_rng(20261128).normal(scale=0.4, size=(20, 4))
    rng = np.random.default_rng(seed + 1)
    eta = X @ B
    eta[:, 1] += 0.6 * X[:, 0] * X[:, 1]
    eta[:, 2] -= 0.5 * (X[:, 2] ** 2 - 1)
    p = np.exp(eta - eta.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    codes = (rng.uniform(size=(n, 1)) > p.cumsum(1)).sum(1).clip(0, 3)
    frame = frame[NAMES].copy()
    frame["y"] = np.array(list("abcd"))[codes]
    return frame


def task_multiclass(n: int, rounds: int, repeats: int, threads: int) -> dict:
    from bench_boost import FORMULA, NAMES
    train, test = make_multiclass(n), make_multiclass(max(n // 5, 100), seed=11)
    probs, missing = _fit_trees(FORMULA, train, test, NAMES, rounds, repeats, threads, 4)
    y = test["y"].astype("category").cat.codes.to_numpy()
    q, text = _quality(probs, y, 4)
    times = {k: v[1] for k, v in probs.items()}
    goal_peers = [k for k in ("HistGradientBoosting", "LightGBM") if k in times]
    faster = min(goal_peers, key=lambda k: times[k][0])
    ratio = times["ubreg"][0] / times[faster][0]
    row = show_row(f"uboost, 4 classes, {n:,} x 20, {rounds} rounds ({threads} threads)",
                   times["ubreg"], {k: times.get(k) for k in
                                    ("HistGradientBoosting", "LightGBM", "XGBoost hist")},
                   ratio, f"<= 1.0 x the faster of HGB and LightGBM ({faster})",
                   ratio <= 1.0, text)
    print("  every run (s): " + "; ".join(f"{k} {v[2]}" for k, v in probs.items()))
    return {**row, "n": n, "rounds": rounds, "threads": threads, "faster_peer": faster,
            "cpu_ratio": times["ubreg"][1] / times[faster][1], "quality": q,
            "runs": {k: v[2] for k, v in probs.items()}, "not_installed": missing}


# ------------------------------------------------------------------------- GNNB --
def task_gnnb(folds: int, k: int, repeats: int, n: int | None) -> dict:
    import numpy as np
    from bench_gnnb import load
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier

    import ubreg
    df = load(n)
    y = df["lettr"].to_numpy()
    X = df.drop(columns="lettr").to_numpy(dtype=float)
    splits = list(StratifiedKFold(n_splits=folds, shuffle=True,
                                  random_state=20261122).split(X, y))
    ubreg.fit("lettr ~ .", df.iloc[:300], family="entropy", method="gnnb", k=k)  # kernels

    def gnnb(train, test):
        m = ubreg.fit("lettr ~ .", df.iloc[train], family="entropy", method="gnnb", k=k)
        return m.predict(df.iloc[test], type="class").to_numpy()

    def knn(train, test):
        mu, sd = X[train].mean(0), X[train].std(0)
        clf = KNeighborsClassifier(n_neighbors=k).fit((X[train] - mu) / sd, y[train])
        return clf.predict((X[test] - mu) / sd)

    tot = {"ubreg": [0.0, 0.0], "KNeighborsClassifier": [0.0, 0.0]}
    acc: dict = {name: [] for name in tot}
    for train, test in splits:
        res = interleaved({"ubreg": lambda tr=train, te=test: _timed(lambda: gnnb(tr, te)),
                           "KNeighborsClassifier":
                               lambda tr=train, te=test: _timed(lambda: knn(tr, te))},
                          repeats)
        for name, (pred, (wall, cpu), _) in res.items():
            tot[name][0] += wall
            tot[name][1] += cpu
            acc[name].append(float(np.mean(pred == y[test])))
    ratio = tot["ubreg"][0] / tot["KNeighborsClassifier"][0]
    a = {name: float(np.mean(v)) for name, v in acc.items()}
    row = show_row(f"gnnb k = {k}, LetterRecognition ({len(df)} rows), one ubreg.fit per "
                   f"fold, {folds} folds (fit + predict, summed; fastest of {repeats} a fold)",
                   tuple(tot["ubreg"]),
                   {"KNeighborsClassifier": tuple(tot["KNeighborsClassifier"])},
                   ratio, "<= 1.5", ratio <= 1.5,
                   f"accuracy: GNNB {a['ubreg']:.4f}, k-NN {a['KNeighborsClassifier']:.4f}")
    return {**row, "k": k, "folds": folds, "rows": len(df), "accuracy": a,
            "cpu_ratio": tot["ubreg"][1] / tot["KNeighborsClassifier"][1]}


# ----------------------------------------------------- fresh-process children --
def _peak_mb() -> float:
    """Peak RSS in MB: VmHWM (Linux, resettable by :func:`_reset_peak`), else ru_maxrss."""
    try:
        for line in pathlib.Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak() -> bool:
    """Reset the peak RSS to the current RSS (Linux: clear_refs 5), so that the peak
    measured after the fit is the fit's (with the data resident), not the data generator's."""
    try:
        pathlib.Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def child_uls(who: str, n: int) -> dict:
    """One fit on bench_uls's data, the first call of its kind in this process (the
    data and the import of the fitting library alone not timed); its seconds, CPU
    seconds, peak RSS and coefficients (by name: c5b for c5[T.b], c5[b] and c5b)."""
    import gc
    import re

    from bench_uls import FORMULA, make_data
    data = make_data(n)
    gc.collect()
    reset = _reset_peak()
    base = _peak_mb()
    if who == "ubreg":
        import ubreg
        t, c = time.perf_counter(), time.process_time()
        coef = ubreg.fit(FORMULA, data, family=ubreg.Permissible("entropy")).coef
    elif who == "glum":
        from glum import GeneralizedLinearRegressor
        t, c = time.perf_counter(), time.process_time()
        g = GeneralizedLinearRegressor(family="binomial", alpha=0, formula=FORMULA,
                                       drop_first=True).fit(data)
        coef = dict(zip(["Intercept", *g.feature_names_], [g.intercept_, *g.coef_]))
    else:
        import statsmodels.api as sm
        import statsmodels.formula.api as smf
        t, c = time.perf_counter(), time.process_time()
        coef = smf.glm(FORMULA, data, family=sm.families.Binomial()).fit().params
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": _peak_mb(), "data_mb": base,
            "peak_reset_after_data": reset,
            "coef": {re.sub(r"[\[\]()]|T\.", "", str(k)): float(v)
                     for k, v in dict(coef).items()}}


def child_pima(who: str) -> dict:
    """Import, fit on Pima (the demo's formula, complete rows) and, for fresh-process,
    print the summary: ``first:<ubreg|hgb>`` or ``fresh:<method|statsmodels>``."""
    import pandas as pd
    d = pd.read_csv(PIMA_CSV).dropna(subset=PIMA_COLS)
    kind, name = who.split(":")
    if name == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier
        X = d[PIMA_COLS[1:]].to_numpy()
        HistGradientBoostingClassifier().fit(X, (d["diabetes"] == "pos").to_numpy())
    elif name == "statsmodels":
        import statsmodels.api as sm
        import statsmodels.formula.api as smf
        d["y"] = (d["diabetes"] == "pos").astype(int)
        r = smf.glm(PIMA_FORMULA.replace("diabetes", "y"), d,
                    family=sm.families.Binomial()).fit()
        print(r.summary(), file=sys.stderr)
    else:
        import ubreg
        m = ubreg.fit(PIMA_FORMULA, d, method="uboost" if kind == "first" else name)
        if kind == "fresh":
            print(m.summary(), file=sys.stderr)
    return {}


def run_child(who: str, n: int = 0, env: dict | None = None) -> tuple[dict, float, float]:
    """``who`` in a fresh interpreter: (its JSON line, wall seconds, CPU seconds of the
    child process), both measured from here (interpreter start included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", who, "--n", str(n),
                           "--threads", str(THREADS)], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{who} failed:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall, cpu


def task_uls(n: int, repeats: int) -> dict:
    def fn(who):
        def go():
            out, _, _ = run_child(f"uls:{who}", n)
            return out, out["seconds"], out["cpu_seconds"]
        return go

    fns = {"ubreg": fn("ubreg"), "statsmodels": fn("statsmodels")}
    if installed("glum"):
        fns["glum"] = fn("glum")
    res = interleaved(fns, repeats, slow=60.0)
    times = {k: v[1] for k, v in res.items()}
    peak = {k: v[0]["peak_mb"] for k, v in res.items()}
    coef = {k: v[0]["coef"] for k, v in res.items()}
    r_sm = times["ubreg"][0] / times["statsmodels"][0]
    r_glum = times["ubreg"][0] / times["glum"][0] if "glum" in times else float("nan")
    diff = {k: max(abs(coef[k][j] - coef["ubreg"][j]) for j in coef["ubreg"])
            for k in coef if k != "ubreg" and set(coef[k]) == set(coef["ubreg"])}
    met = (r_glum <= 0.6 or "glum" not in times) and r_sm <= 0.12 and peak["ubreg"] <= 600
    row = show_row(f"ubreg.fit uls entropy, {n:,} x 34, formula included, first call in "
                   "the process", times["ubreg"],
                   {"glum (formula)": times.get("glum"), "statsmodels": times["statsmodels"]},
                   r_glum, f"<= 0.6 x glum (ratio vs statsmodels {r_sm:.3f}: <= 0.12), "
                   f"peak <= 600 MB", met,
                   "peak RSS MB: " + ", ".join(f"{k} {v:.0f}" for k, v in peak.items())
                   + f" (data resident: {res['ubreg'][0]['data_mb']:.0f}; peak "
                   + ("from after the data were made" if res["ubreg"][0]["peak_reset_after_data"]
                      else "of the whole process, data generation included")
                   + "); largest |coef "
                   "difference| to ubreg: " + ", ".join(f"{k} {v:.1e}" for k, v in diff.items()))
    print("  every run (s): " + "; ".join(f"{k} {v[2]}" for k, v in res.items()))
    return {**row, "n": n, "ratio_vs_statsmodels": r_sm, "peak_mb": peak,
            "max_coef_diff": diff, "runs": {k: v[2] for k, v in res.items()},
            "not_installed": [] if "glum" in times else ["glum"]}


def task_first_fit(repeats: int) -> dict:
    def first_ubreg():
        cache = tempfile.mkdtemp(prefix="ubreg-numba-cache-")
        try:
            return run_child("first:ubreg", env={"NUMBA_CACHE_DIR": cache})
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    res = interleaved({"ubreg": first_ubreg, "hgb": lambda: run_child("first:hgb")}, repeats)
    u, h = res["ubreg"][1], res["hgb"][1]
    row = show_row("first fit after installation (empty numba cache): Pima, uboost; whole "
                   "process (interpreter, imports, data, fit)", u,
                   {"HistGradientBoosting first fit (fresh process)": h}, u[0] / h[0],
                   "ubreg <= 3 s", u[0] <= 3.0, "")
    print("  every run (s): " + "; ".join(f"{k} {v[2]}" for k, v in res.items()))
    return {**row, "runs": {k: v[2] for k, v in res.items()}}


def task_fresh_process(repeats: int) -> dict:
    import ubreg
    ubreg.fit(PIMA_FORMULA, pd_pima(), method="uboost")   # the numba cache warm
    methods = list(ubreg.METHODS)
    fns = {m: (lambda m=m: run_child(f"fresh:{m}")) for m in methods}
    fns["statsmodels"] = lambda: run_child("fresh:statsmodels")
    res = interleaved(fns, repeats)
    sm = res["statsmodels"][1]
    rows = {}
    for m in methods:
        t = res[m][1]
        rows[m] = show_row(f"first fit in a fresh process (cache warm): Pima, {m}, import "
                           "and summary included", t, {"statsmodels glm process": sm},
                           t[0] / sm[0], "<= 1.0", t[0] / sm[0] <= 1.0, "")
    print("\n  every run (s): " + "; ".join(f"{k} {v[2]}" for k, v in res.items()))
    return {"methods": rows, "statsmodels_seconds": sm[0],
            "all_met": all(r["met"] for r in rows.values()),
            "runs": {k: v[2] for k, v in res.items()}}


def pd_pima():
    import pandas as pd
    return pd.read_csv(PIMA_CSV).dropna(subset=PIMA_COLS)


# ------------------------------------------------------------------------ main --
def save(task: str, figures: dict, smoke: bool) -> None:
    """Merge this task's figures into bench_peers[.smoke].json (the other tasks' kept)."""
    from _results import RESULTS, record
    path = RESULTS / f"bench_peers{'.smoke' if smoke else ''}.json"
    old = json.loads(path.read_text())["figures"] if path.exists() else {}
    old[task] = {**figures, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "threads": THREADS, "cpus": os.cpu_count(),
                 "load_average_1min": os.getloadavg()[0]}
    record("bench_peers", old, smoke=smoke)


TASKS = ["boost", "multiclass", "uls", "gnnb", "first-fit", "fresh-process"]


def run_task(task: str, a) -> dict:
    if task == "boost":
        return task_boost(a.n or (2000 if a.smoke else 100_000), 20 if a.smoke else 200,
                          a.repeats, THREADS)
    if task == "multiclass":
        return task_multiclass(a.n or (2000 if a.smoke else 100_000), 10 if a.smoke else 200,
                               a.repeats, THREADS)
    if task == "uls":
        return task_uls(a.n or (5000 if a.smoke else 1_000_000), a.repeats)
    if task == "gnnb":
        return task_gnnb(2 if a.smoke else 5, 10, a.repeats, 2000 if a.smoke else a.n)
    if task == "first-fit":
        return task_first_fit(a.repeats)
    return task_fresh_process(a.repeats)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", action="append", choices=TASKS, help="default: every task")
    ap.add_argument("--smoke", action="store_true", help="tiny data, one run each")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved runs (fastest kept)")
    ap.add_argument("--n", type=int, default=None, help="rows (boost, multiclass, uls, gnnb)")
    ap.add_argument("--threads", type=int, default=THREADS,
                    help="threads of every library and BLAS (default: the machine's cores)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        out = child_uls(a.child.split(":")[1], a.n) if a.child.startswith("uls:") \
            else child_pima(a.child)
        print(json.dumps(out))
        return
    if a.smoke:
        a.repeats = 1
    print(f"{os.cpu_count()} cores, {THREADS} threads for every library; load average "
          f"{os.getloadavg()[0]:.2f} (other processes share the machine: figures taken "
          f"under load); times: fastest of {a.repeats} interleaved runs, wall (CPU) seconds")
    # a cold numba compile takes tens of seconds: --smoke leaves first-fit out unless asked
    for task in a.task or [t for t in TASKS if not (a.smoke and t == "first-fit")]:
        save(task, run_task(task, a), a.smoke)


if __name__ == "__main__":
    main()
