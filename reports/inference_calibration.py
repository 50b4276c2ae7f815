"""Calibration of ubreg's Wald inference: coverage and null rejection, family by family.

For each family, sample size n and data-generating process, S seeded replications of a
linear fit (``method="uls"``) give

* the coverage of the 95% Wald interval of the slope of a normal predictor x, against its
  true value: β₁ of the family's own model when the data follow it ("well"), and the
  pseudo-true value (the minimiser of the expected surrogate risk, fitted on 400 000
  rows) when they do not ("mis": y ~ Bernoulli(Φ(0.2 + x + 0.5 x²)), a probit with a
  curvature no family's link has);
* the rejection rate at 5% of the coefficient of a binary predictor b and of a predictor f
  far from zero (10 000 + a normal), both independent of y given x: their true (and
  pseudo-true) value is 0;

with the model-based and the robust (HC0) covariance.  Each rate is printed with its Monte
Carlo standard error √(r(1 − r)/S).  ``python reports/inference_calibration.py`` (about 15
minutes on 8 cores; ``--replications`` to change S) writes ``inference_calibration.csv``
and ``inference_calibration.md`` beside itself; tests/test_inference_calibration.py runs a
smaller version of the same simulation (:func:`simulate`) in the test suite.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import ubreg
from ubreg.fitters.uls import fit_uls
from ubreg.results.inference import sandwich

P = ubreg.Permissible
Z_975 = float(stats.norm.ppf(0.975))
#: the families of the table (the slow numerical posteriors at fewer replications)
FAMILIES = {"entropy": P("entropy"), "matsushita": P("matsushita"), "gini": P("gini"),
            "mu 0.3": P("mu", mu=0.3), "logcosh -4": P("logcosh", zeta=-4),
            "logcosh -20": P("logcosh", zeta=-20), "tempered 0": P("tempered", t=0.0),
            "tempered -1": P("tempered", t=-1.0), "exponential": ubreg.Exponential()}
SLOW = {"tempered -1"}
PROCESSES = ("well", "mis")


def truth(family) -> np.ndarray:
    """β of the family's own model (intercept, x, b, f − 10 000): for a bounded link η
    reaches 1.3 × the domain's end at |x| ≈ 2, so ~11% of the rows saturate."""
    hi = family.link_domain[1]
    if family.name == "gini":                 # the LPM: stay inside [-1, 1]
        return np.array([0.1, 0.5, 0.0, 0.0])
    if np.isfinite(hi):
        return hi * np.array([0.12, 0.6, 0.0, 0.0])
    return np.array([0.2, 1.0, 0.0, 0.0])


def design(rng, n: int, family) -> np.ndarray:
    """Columns 1, x, b (binary), f (far from zero)."""
    x = (rng.uniform(-np.sqrt(3), np.sqrt(3), n) if family.name == "gini"
         else rng.normal(size=n))
    return np.column_stack([np.ones(n), x, rng.integers(0, 2, n).astype(float),
                            1e4 + rng.normal(size=n)])


def response(rng, X: np.ndarray, family, process: str) -> np.ndarray:
    x = X[:, 1]
    p = (family.posterior(X @ truth(family)) if process == "well"
         else stats.norm.cdf(0.2 + x + 0.5 * x ** 2))
    return (rng.random(len(x)) < p).astype(float)


def pseudo_truth(family, process: str, n: int = 400_000, seed: int = 99) -> np.ndarray:
    """The coefficients the fit estimates: β of the model, or (misspecified) the minimiser
    of the expected surrogate risk, approximated by one fit to ``n`` rows."""
    if process == "well":
        return truth(family)
    rng = np.random.default_rng(seed)
    X = design(rng, n, family)
    y = response(rng, X, family, process)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_uls(X, y, np.ones(n), family).coef


def simulate(family, S: int, n: int, process: str = "well", seed: int = 0,
             target: np.ndarray | None = None) -> dict:
    """Coverage of β_x's 95% Wald interval and 5% rejection of β_b = 0 and β_f = 0, with
    the model-based and the robust covariance, over S replications of n rows."""
    target = pseudo_truth(family, process) if target is None else target
    rng = np.random.default_rng(seed)
    hits = {k: np.zeros(3) for k in ("model", "robust")}
    w = np.ones(n)
    for _ in range(S):
        X = design(rng, n, family)
        y = response(rng, X, family, process)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # numerically-0/1 warnings of saturation
            fit = fit_uls(X, y, w, family)
            cov = sandwich(X, y, w, fit.eta, family)
        for kind in ("model", "robust"):
            se = np.sqrt(np.diag(cov[kind]))
            hits[kind] += [abs(fit.coef[1] - target[1]) <= Z_975 * se[1],
                           abs(fit.coef[2]) > Z_975 * se[2], abs(fit.coef[3]) > Z_975 * se[3]]
    return {kind: dict(zip(("cover_x", "reject_b", "reject_f"), h / S))
            for kind, h in hits.items()}


def _cell(args) -> list[dict]:
    name, n, process, S = args
    family = FAMILIES[name]
    out = simulate(family, S, n, process, seed=zlib.crc32(f"{name}|{n}|{process}".encode()))
    return [{"family": name, "n": n, "data": process, "covariance": kind, "S": S, **rates}
            for kind, rates in out.items()]


def table(replications: int) -> pd.DataFrame:
    cells = [(name, n, process, max(replications // 8, 50) if name in SLOW else replications)
             for name in FAMILIES for n in (200, 1000) for process in PROCESSES]
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        rows = [r for rs in pool.map(_cell, cells) for r in rs]
    out = pd.DataFrame(rows)
    for col in ("cover_x", "reject_b", "reject_f"):
        out[col + "_mcse"] = np.sqrt(out[col] * (1 - out[col]) / out["S"])
    return out


def markdown(t: pd.DataFrame) -> str:
    lines = ["# Calibration of the Wald inference", "",
             "Generated by `python reports/inference_calibration.py` (see its docstring). "
             "Nominal: coverage 0.95, rejection 0.05; ± the Monte Carlo standard error.", "",
             "| family | n | data | covariance | S | coverage of β_x | rejection β_b = 0 | "
             "rejection β_f = 0 |", "|---|---|---|---|---|---|---|---|"]
    for _, r in t.iterrows():
        lines.append(f"| {r.family} | {r.n} | {r.data} | {r.covariance} | {r.S} | "
                     f"{r.cover_x:.3f} ± {r.cover_x_mcse:.3f} | "
                     f"{r.reject_b:.3f} ± {r.reject_b_mcse:.3f} | "
                     f"{r.reject_f:.3f} ± {r.reject_f_mcse:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    args = parser.parse_args(argv)
    t = table(args.replications)
    here = Path(__file__).parent
    t.to_csv(here / "inference_calibration.csv", index=False)
    (here / "inference_calibration.md").write_text(markdown(t), encoding="utf-8")
    print(markdown(t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
