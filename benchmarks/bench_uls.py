"""Time ULS (entropy, corrective) against statsmodels GLM(Binomial) and scikit-learn.

Same synthetic data for every peer: n rows, 20 numeric predictors and two
categorical ones (5 and 10 levels), logistic truth.  Each measurement runs in
its own subprocess so that its peak resident memory (ru_maxrss) is its own.

    python benchmarks/bench_uls.py                 # n = 1e5 and 1e6
    python benchmarks/bench_uls.py --n 100000
    python benchmarks/bench_uls.py --smoke         # seconds; what CI runs

Printed: wall time of each task, peak RSS, the ratios the foundation issue
sets goals for, and the largest |coefficient difference| between peers.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

FORMULA = "y ~ " + " + ".join(f"x{j}" for j in range(1, 21)) + " + c5 + c10"


def make_data(n: int, seed: int = 20261122) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20))
    c5 = rng.integers(0, 5, n)
    c10 = rng.integers(0, 10, n)
    beta = np.linspace(-1, 1, 20) / 2
    eta = -0.3 + X @ beta + 0.2 * c5 - 0.05 * c10
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 21)])
    frame["c5"] = np.array(list("abcde"))[c5]
    frame["c10"] = np.array([f"L{k}" for k in range(10)])[c10]
    frame["y"] = y
    return frame


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _design(data):
    import patsy
    return patsy.dmatrices(FORMULA, data, return_type="matrix")


def task(name: str, n: int) -> dict:
    data = make_data(n)
    # imports are not timed: every peer pays them once per session
    import patsy  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    import statsmodels.formula.api  # noqa: F401
    import ubreg  # noqa: F401
    base_mb = _peak_mb()
    coef = None
    extra = {}
    t0 = time.perf_counter()
    if name == "patsy_design":
        _design(data)
    elif name == "ubreg_design":
        from ubreg.formula import build_model_frame
        build_model_frame(FORMULA, data)
    elif name in ("ubreg_fit", "ubreg_coordinate", "ubreg_matsushita"):
        import ubreg
        family = ubreg.Permissible("matsushita" if name == "ubreg_matsushita" else "entropy")
        solver = "coordinate" if name == "ubreg_coordinate" else "corrective"
        m = ubreg.fit(FORMULA, data, family=family, solver=solver)
        coef = m.coef.to_numpy().tolist()
        extra = {"iterations": m.iterations}
    elif name == "ubreg_fit_only":
        import ubreg
        from ubreg.fitters.uls import fit_uls
        from ubreg.formula import build_model_frame
        mf = build_model_frame(FORMULA, data)
        t0 = time.perf_counter()
        f = fit_uls(mf.X, mf.y, mf.weights, ubreg.Permissible("entropy"))
        coef = f.coef.tolist()
        extra = {"iterations": f.iterations}
    elif name == "statsmodels_glm":
        import statsmodels.api as sm
        import statsmodels.formula.api as smf
        r = smf.glm(FORMULA, data, family=sm.families.Binomial()).fit()
        coef = np.asarray(r.params).tolist()
        extra = {"iterations": int(r.fit_history["iteration"])}
    elif name == "sklearn_newton_cholesky":
        from sklearn.linear_model import LogisticRegression
        _, X = _design(data)
        X = np.asarray(X)[:, 1:]
        t0 = time.perf_counter()
        lr = LogisticRegression(penalty=None, solver="newton-cholesky", max_iter=100)
        lr.fit(X, data["y"].to_numpy())
        coef = np.r_[lr.intercept_, lr.coef_.ravel()].tolist()
        extra = {"iterations": int(lr.n_iter_[0])}
    else:
        raise SystemExit(f"unknown task {name}")
    seconds = time.perf_counter() - t0
    out = {"task": name, "n": n, "seconds": seconds, "peak_mb": _peak_mb(),
           "data_mb": base_mb, "coef": coef}
    if coef is not None:
        out.update(extra)
    return out


def run_task(name: str, n: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--task", name, "--n", str(n)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"task {name} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(n: int, tasks: list[str]) -> None:
    res = {t: run_task(t, n) for t in tasks}
    print(f"\n== n = {n:,} rows, 20 numeric + 2 categorical predictors (34 columns) ==")
    print(f"{'task':26s} {'seconds':>9s} {'peak RSS MB':>12s} {'(data MB)':>10s} {'iter':>5s}")
    for t, r in res.items():
        print(f"{t:26s} {r['seconds']:9.3f} {r['peak_mb']:12.0f} {r['data_mb']:10.0f} "
              f"{r.get('iterations', ''):>5}")

    def ratio(a, b):
        if a in res and b in res:
            return res[a]["seconds"] / res[b]["seconds"]
        return float("nan")

    def coef_diff(a, b):
        if a in res and b in res and res[a]["coef"] and res[b]["coef"]:
            return float(np.max(np.abs(np.array(res[a]["coef"]) - np.array(res[b]["coef"]))))
        return float("nan")

    print("\nratios (goal):")
    print(f"  ubreg.fit / statsmodels glm().fit()          = {ratio('ubreg_fit', 'statsmodels_glm'):.3f}  (<= 0.5)")
    print(f"  ULS fit only / sklearn newton-cholesky        = {ratio('ubreg_fit_only', 'sklearn_newton_cholesky'):.3f}  (<= 1.5)")
    print(f"  ubreg design build / ubreg.fit                = {ratio('ubreg_design', 'ubreg_fit'):.3f}")
    print(f"  plain patsy dmatrices / ubreg design build    = {ratio('patsy_design', 'ubreg_design'):.3f}")
    print(f"  coordinate / corrective (whole fit)           = {ratio('ubreg_coordinate', 'ubreg_fit'):.3f}")
    print(f"  matsushita / entropy (whole fit)              = {ratio('ubreg_matsushita', 'ubreg_fit'):.3f}")
    print("largest |coef difference|:")
    print(f"  ubreg vs statsmodels                           = {coef_diff('ubreg_fit', 'statsmodels_glm'):.2e}  (<= 1e-8)")
    print(f"  sklearn newton-cholesky vs statsmodels         = {coef_diff('sklearn_newton_cholesky', 'statsmodels_glm'):.2e}")
    print(f"  coordinate vs corrective                       = {coef_diff('ubreg_coordinate', 'ubreg_fit'):.2e}")
    if "ubreg_fit" in res:
        print(f"peak RSS of ubreg.fit: {res['ubreg_fit']['peak_mb']:.0f} MB (goal <= 2048 MB)")


ALL = ["patsy_design", "ubreg_design", "ubreg_fit", "ubreg_fit_only", "statsmodels_glm", "sklearn_newton_cholesky",
       "ubreg_matsushita", "ubreg_coordinate"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, action="append")
    ap.add_argument("--task")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--skip", action="append", default=[], help="task to leave out")
    args = ap.parse_args()
    if args.task:
        print(json.dumps(task(args.task, args.n[0])))
        return
    if args.smoke:
        report(2000, ["ubreg_fit", "statsmodels_glm", "ubreg_coordinate"])
        return
    for n in args.n or [100_000, 1_000_000]:
        # the coordinate solver is timed at 1e5 only: it needs ~1000 one-column passes
        skip = set(args.skip) | ({"ubreg_coordinate"} if n > 200_000 else set())
        report(n, [t for t in ALL if t not in skip])


if __name__ == "__main__":
    main()
