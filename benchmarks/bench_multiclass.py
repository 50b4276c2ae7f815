"""More than two classes: ubreg against scikit-learn and statsmodels on the same data.

Data: the bundled Landsat satellite data (``ubreg.datasets.load("satellite")``, 6435 rows,
36 predictors, 6 classes; UCI via R's mlbench), split 70/30 by class (seed 0).  Tasks, in
the same process one after the other:

* U-Boost of the multinomial loss (``method="uboost"``: 6 Newton trees a round, depth 3,
  ν = 0.1, 200 rounds) vs ``HistGradientBoostingClassifier(max_iter=200, max_depth=3,
  learning_rate=0.1, max_leaf_nodes=None, early_stopping=False)``: held-out log loss,
  accuracy and fit time;
* the multinomial logit (``method="uls"``) vs statsmodels' ``MNLogit`` (Newton) and
  scikit-learn's ``LogisticRegression(penalty=None)`` on 8 predictors: the largest
  difference of the fitted probabilities and fit time.

ubreg is timed through ``ubreg.fit`` with a formula (design and binning included); the
peers get numpy arrays.  Each fit runs ``--repeats`` times (default 2) and the fastest is
kept.

    python benchmarks/bench_multiclass.py
    python benchmarks/bench_multiclass.py --smoke     # seconds; what CI runs
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from _results import record


def _best(fit, repeats):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t)
    return out, min(times)


def _split(d, frac, seed=0):
    rng = np.random.default_rng(seed)
    test = np.zeros(len(d), dtype=bool)
    for cls in d["classes"].unique():
        rows = np.flatnonzero((d["classes"] == cls).to_numpy())
        test[rng.choice(rows, int(round(frac * rows.size)), replace=False)] = True
    return d[~test], d[test]


def boosting(train, test, names, rounds, repeats):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import accuracy_score, log_loss

    import ubreg
    formula = "classes ~ " + " + ".join(names)
    m, t_ubreg = _best(lambda: ubreg.fit(formula, train, method="uboost", mstop=rounds,
                                         depth=3, nu=0.1), repeats)
    p = m.predict(test)
    hgb, t_hgb = _best(lambda: HistGradientBoostingClassifier(
        max_iter=rounds, max_depth=3, learning_rate=0.1, max_leaf_nodes=None,
        early_stopping=False, random_state=0).fit(train[names], train["classes"]), repeats)
    ph = hgb.predict_proba(test[names])
    y = test["classes"].astype(str)
    out = {"rounds": rounds, "ubreg_seconds": t_ubreg, "hgb_seconds": t_hgb,
           "time_ratio": t_ubreg / t_hgb,
           "ubreg_log_loss": log_loss(y, p.to_numpy(), labels=[str(c) for c in p.columns]),
           "hgb_log_loss": log_loss(y, ph, labels=[str(c) for c in hgb.classes_]),
           "ubreg_accuracy": accuracy_score(y, p.idxmax(axis=1).astype(str)),
           "hgb_accuracy": accuracy_score(y, hgb.classes_[ph.argmax(axis=1)].astype(str))}
    print(f"uboost, {rounds} rounds: ubreg {t_ubreg:.2f} s, HistGradientBoosting "
          f"{t_hgb:.2f} s, ratio {out['time_ratio']:.2f}; held-out log loss "
          f"{out['ubreg_log_loss']:.4f} vs {out['hgb_log_loss']:.4f}, accuracy "
          f"{out['ubreg_accuracy']:.4f} vs {out['hgb_accuracy']:.4f}")
    return out


def multinomial(train, names, repeats):
    import statsmodels.api as sm
    from sklearn.linear_model import LogisticRegression

    import ubreg
    formula = "classes ~ " + " + ".join(names)
    m, t_ubreg = _best(lambda: ubreg.fit(formula, train), repeats)
    X = train[names].to_numpy(float)
    codes = train["classes"].astype("category").cat.codes.to_numpy()
    mn, t_sm = _best(lambda: sm.MNLogit(codes, sm.add_constant(X)).fit(
        disp=0, method="newton", maxiter=100), repeats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr, t_lr = _best(lambda: LogisticRegression(penalty=None, max_iter=10000,
                                                    tol=1e-10).fit(X, codes), repeats)
    p = m.predict().to_numpy()
    out = {"ubreg_seconds": t_ubreg, "statsmodels_seconds": t_sm, "sklearn_seconds": t_lr,
           "ratio_statsmodels": t_ubreg / t_sm, "ratio_sklearn": t_ubreg / t_lr,
           "max_abs_diff_statsmodels": float(np.abs(p - mn.predict(sm.add_constant(X))).max()),
           "max_abs_diff_sklearn": float(np.abs(p - lr.predict_proba(X)).max())}
    print(f"multinomial logit, {len(names)} predictors: ubreg {t_ubreg:.3f} s, MNLogit "
          f"{t_sm:.3f} s (ratio {out['ratio_statsmodels']:.2f}), LogisticRegression "
          f"{t_lr:.3f} s (ratio {out['ratio_sklearn']:.2f}); probabilities differ by at most "
          f"{out['max_abs_diff_statsmodels']:.1e} / {out['max_abs_diff_sklearn']:.1e}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    from ubreg.datasets import load
    d = load("satellite")
    d["classes"] = d["classes"].astype(str)
    if args.smoke:
        d = d.sample(600, random_state=0)
    train, test = _split(d, 0.3)
    names = [c for c in d.columns if c != "classes"]
    rounds = 5 if args.smoke else args.rounds
    repeats = 1 if args.smoke else args.repeats
    figures = {"boosting": boosting(train, test, names, rounds, repeats),
               "multinomial": multinomial(train, names[:8], repeats)}
    record("bench_multiclass", figures, smoke=args.smoke)


if __name__ == "__main__":
    main()
