"""Time and memory of ubreg's UDT engine against scikit-learn's DecisionTreeClassifier.

Same synthetic data for both (20 standard-normal predictors rounded to
multiples of 2^-16, exact in float32 which sklearn works in, and never closer
than sklearn's FEATURE_THRESHOLD = 1e-7 below which it refuses to cut; y from
a logistic model with an interaction and a sine term), min_leaf 1, min_split 2,
cp 0 (sklearn's defaults), max_depth 8 and unbounded.  Each fit runs in a
fresh subprocess, which reports its wall time and its peak resident memory
(``ru_maxrss``, data included; the baseline after generating the data is
printed too), and its CPU seconds (the "cpu x" column, a fairer ratio on
a loaded machine).  The two trees are then compared node by node (features,
thresholds, node sizes, leaf probabilities); sklearn breaks exact ties
between features at random, so when the trees differ the first difference is
reported with the number of tied candidates our engine saw there.
Matsushita (Kearns–Mansour) has no sklearn counterpart; its time is compared
with ubreg's gini time.  In trees large enough (here at 10^6 rows) ubreg's
split search runs in compiled kernels (ubreg.fitters.udt.fused, and the gain
kernels of ubreg.trees.gain_kernels with frequency weights), the predictors
and the partitions of the orderings on a thread per core (scikit-learn's tree
runs on one: compare the "cpu x" column too); the times and memory then include
numba's start-up (about 0.4 s of CPU and 100 MB, once per process).

Usage::

    python benchmarks/bench_udt.py --smoke           # seconds
    python benchmarks/bench_udt.py --n 100000        # the 1e5 table
    python benchmarks/bench_udt.py --n 1000000       # minutes
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from _results import record

ROOT = pathlib.Path(__file__).resolve().parents[1]
P = 20


def make_data(n, seed=0):
    rng = np.random.default_rng(seed)
    # on a grid of 2^-16: sklearn never cuts between values closer than 1e-7
    # (its FEATURE_THRESHOLD), so continuous data would let it miss best splits
    X = np.asfortranarray(np.round(rng.standard_normal((n, P)) * 2.0 ** 16) / 2.0 ** 16)
    eta = X[:, 0] - 0.7 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + 0.3 * np.sin(3 * X[:, 4])
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-2.0 * eta))).astype(np.int64)
    return X, y


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# ---- workers (run in a subprocess) ---------------------------------------------
def export_sklearn(model):
    t = model.tree_
    out = {k: [] for k in ("feature", "threshold", "n", "prob", "n_tied")}

    def walk(k):
        leaf = t.children_left[k] == -1
        out["feature"].append(-1 if leaf else int(t.feature[k]))
        out["threshold"].append(np.nan if leaf else float(t.threshold[k]))
        out["n"].append(int(t.n_node_samples[k]))
        v = t.value[k][0]
        out["prob"].append(float(v[1] / v.sum()))
        out["n_tied"].append(0)
        if not leaf:
            walk(t.children_left[k])
            walk(t.children_right[k])

    sys.setrecursionlimit(10000)
    walk(0)
    return out


def export_ubreg(tree):
    """Our tree in sklearn's preorder: the x < threshold side first."""
    nd = tree.nodes
    out = {k: [] for k in ("feature", "threshold", "n", "prob", "n_tied")}
    stack = [0]
    while stack:
        i = stack.pop()
        leaf = nd["left"][i] < 0
        out["feature"].append(-1 if leaf else int(nd["var"][i]))
        out["threshold"].append(np.nan if leaf else float(nd["threshold"][i]))
        out["n"].append(int(nd["n"][i]))
        out["prob"].append(float(nd["wy"][i] / nd["weight"][i]))
        out["n_tied"].append(0 if leaf else int(nd["n_tied"][i]))
        if not leaf:
            below, above = nd["left"][i], nd["right"][i]
            if nd["direction"][i] > 0:
                below, above = above, below
            stack += [above, below]
    return out


def worker(engine, n, depth, criterion, out_path):
    X, y = make_data(n)
    base = peak_mb()
    if engine == "sklearn":
        from sklearn.tree import DecisionTreeClassifier
        t0, c0 = time.perf_counter(), time.process_time()
        model = DecisionTreeClassifier(criterion=criterion, max_depth=depth, random_state=0)
        model.fit(X, y)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        tree = export_sklearn(model)
    else:
        sys.path.insert(0, str(ROOT))
        from ubreg.families import Permissible
        from ubreg.fitters.udt import TreeColumn, grow_tree
        cols = [TreeColumn(f"x{j}", "numeric", X[:, j]) for j in range(P)]   # views
        t0, c0 = time.perf_counter(), time.process_time()
        model = grow_tree(cols, y, None, Permissible(criterion), min_split=2, min_leaf=1,
                          max_depth=62 if depth is None else depth, cp=0, risk="surrogate")
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        tree = export_ubreg(model)
    peak = peak_mb()
    np.savez(out_path, **{k: np.asarray(v) for k, v in tree.items()})
    print(json.dumps({"time": elapsed, "cpu": cpu, "peak_mb": peak, "base_mb": base,
                      "nodes": len(tree["n"])}))


def run(engine, n, depth, criterion, repeat=1):
    best = None
    for _ in range(repeat):
        info, tree = _run_once(engine, n, depth, criterion)
        if best is None or info["time"] < best[0]["time"]:
            best = (info, tree)
    return best


def _run_once(engine, n, depth, criterion):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tree.npz")
        cmd = [sys.executable, __file__, "--worker", engine, "--n", str(n),
               "--depth", str(depth), "--criterion", criterion, "--out", out]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        info = json.loads(res.stdout.strip().splitlines()[-1])
        tree = dict(np.load(out))
    return info, tree


def _ends(tree):
    """Index one past the end of each node's subtree in a preorder listing."""
    feat = tree["feature"]
    end = np.empty(len(feat), dtype=np.int64)
    stack = []                      # [index, children still to close]
    for i in range(len(feat) - 1, -1, -1):
        if feat[i] < 0:
            end[i] = i + 1
            stack.append(i)
        else:
            stack.pop()                 # the left child's subtree root
            right = stack.pop()
            end[i] = end[right]
            stack.append(i)
    return end


def _drop(y, mask_left, crit):
    def h(v):
        if v.size == 0:
            return 0.0
        q = v.mean()
        if crit == "gini":
            return v.size * q * (1.0 - q)
        return -v.size * sum(r * np.log(r) for r in (q, 1.0 - q) if r > 0)
    return h(y) - h(y[mask_left]) - h(y[~mask_left])


def compare(a, b, n, criterion, verify=25):
    """Walk both preorder listings together.

    Returns (verdict, details): "yes" when every node agrees; otherwise the
    subtrees under nodes where the two engines chose different but exactly
    tied splits (same impurity drop on the node's rows, checked for the first
    ``verify`` of them) are skipped, and any other difference is a mismatch.
    """
    if (len(a["n"]) == len(b["n"]) and np.array_equal(a["feature"], b["feature"])
            and np.array_equal(a["threshold"], b["threshold"], equal_nan=True)
            and np.array_equal(a["n"], b["n"])
            and np.allclose(a["prob"], b["prob"], rtol=1e-12, atol=0)):
        return "yes"
    X = y = None
    ea, eb = _ends(a), _ends(b)
    i = k = 0
    path = []                       # (feature, threshold, goes_below) to the current node
    stack = []
    tied = verified = 0
    while True:
        same_node = a["n"][i] == b["n"][k] and abs(a["prob"][i] - b["prob"][k]) <= 1e-12
        if not same_node:
            return f"NO: node sizes differ at preorder {i}"
        fa, fb = a["feature"][i], b["feature"][k]
        if fa < 0 or fb < 0:
            if fa != fb:
                return f"NO: leaf vs split at preorder {i}"
            nxt = None
        elif fa == fb and a["threshold"][i] == b["threshold"][k]:
            nxt = (i + 1, k + 1)
            stack.append((ea[i + 1], eb[k + 1], path + [(fa, a["threshold"][i], False)]))
            path = path + [(fa, a["threshold"][i], True)]
        else:
            if a["n_tied"][i] < 2:
                return f"NO: different split at preorder {i} (n={a['n'][i]}, not a tie)"
            tied += 1
            if verified < verify:
                if X is None:
                    X, y = make_data(n)
                rows = np.ones(n, dtype=bool)
                for f, t, below in path:
                    rows &= (X[:, f] < t) if below else (X[:, f] >= t)
                yr = y[rows]
                da = _drop(yr, X[rows, fa] < a["threshold"][i], criterion)
                db = _drop(yr, X[rows, fb] <= b["threshold"][k], criterion)
                if not np.isclose(da, db, rtol=1e-9, atol=0):
                    return f"NO: preorder {i} is not an exact tie ({da} vs {db})"
                verified += 1
            nxt = None
        if nxt is not None:
            i, k = nxt
            continue
        if not stack:
            break
        i, k, path = stack.pop()
    return f"same up to {tied} exact ties ({verified} verified)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny n, a few seconds")
    ap.add_argument("--n", type=int, nargs="*", default=None, help="rows (default 1e5)")
    ap.add_argument("--depths", default="8,none", help="comma list; 'none' = unbounded")
    ap.add_argument("--criteria", default="gini,entropy,matsushita")
    ap.add_argument("--repeat", type=int, default=1,
                    help="fits per configuration and engine; the fastest is kept")
    ap.add_argument("--worker", choices=["sklearn", "ubreg"], help=argparse.SUPPRESS)
    ap.add_argument("--depth", help=argparse.SUPPRESS)
    ap.add_argument("--criterion", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        depth = None if args.depth in (None, "None", "none") else int(args.depth)
        worker(args.worker, args.n[0], depth, args.criterion, args.out)
        return
    ns = [2000] if args.smoke else (args.n or [100_000])
    if args.smoke:
        args.depths, args.criteria = "4", "gini,matsushita"
    depths = [None if d.strip().lower() == "none" else int(d) for d in args.depths.split(",")]
    criteria = [c.strip() for c in args.criteria.split(",")]
    head = (f"{'n':>8} {'depth':>5} {'criterion':>10} {'sklearn s':>9} {'ubreg s':>8} "
            f"{'ratio':>6} {'cpu x':>6} {'skl MB':>7} {'ubreg MB':>8} {'mem x':>6} {'data MB':>7} "
            f"{'nodes':>7}  identical")
    print(head)
    print("-" * len(head))
    rows = []
    for n in ns:
        for depth in depths:
            gini_time = None
            for crit in criteria:
                ours, t_ours = run("ubreg", n, depth, crit, args.repeat)
                if crit == "gini":
                    gini_time, gini_cpu = ours["time"], ours["cpu"]
                if crit in ("gini", "entropy"):
                    sk, t_sk = run("sklearn", n, depth, crit, args.repeat)
                    ratio = ours["time"] / sk["time"]
                    cpu_ratio = ours["cpu"] / sk["cpu"]
                    mem = ours["peak_mb"] / sk["peak_mb"]
                    ident = compare(t_ours, t_sk, n, crit)
                    skt, skm = f"{sk['time']:9.2f}", f"{sk['peak_mb']:7.0f}"
                else:
                    ratio = ours["time"] / gini_time if gini_time else float("nan")
                    cpu_ratio = ours["cpu"] / gini_cpu if gini_time else float("nan")
                    mem, ident, skt, skm = float("nan"), "(vs ubreg gini)", f"{'-':>9}", f"{'-':>7}"
                print(f"{n:>8} {str(depth):>5} {crit:>10} {skt} {ours['time']:8.2f} "
                      f"{ratio:6.2f} {cpu_ratio:6.2f} {skm} {ours['peak_mb']:8.0f} {mem:6.2f} "
                      f"{ours['base_mb']:7.0f} {ours['nodes']:>7}  {ident}", flush=True)
                rows.append({"n": n, "depth": depth, "criterion": crit,
                             "ubreg_seconds": ours["time"], "ubreg_peak_mb": ours["peak_mb"],
                             "ratio": ratio, "cpu_ratio": cpu_ratio, "memory_ratio": mem,
                             "nodes": ours["nodes"], "identical": ident})
    record("bench_udt", {"rows": rows}, smoke=args.smoke)


if __name__ == "__main__":
    main()
