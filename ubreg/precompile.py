"""Compile ubreg's numba kernels into numba's on-disk cache, once, ahead of the first fit.

The kernels are compiled on first use and cached (``cache=True``); on a fresh install the
first U-Boost fit with trees waits about a minute for its compiled tree grower, and the
first fits of the other methods a few seconds each.  ``ubreg precompile`` (or
``python -m ubreg precompile``) runs small fits of every method, on two processes, so
that the cache holds every kernel and their parallel twins before any real fit; ``make
test`` and ``make demo`` run it after installing.  It changes no result: a kernel
loaded from the cache is the kernel compiled on first use.
"""
from __future__ import annotations

import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pandas as pd

__all__ = ["precompile"]

#: rows of the large frame: past every kernel's parallel threshold (20 000 rows, 50 000
#: histogram cells, 2 000 candidate splits), so the parallel twins compile too
_LARGE = 40_000
_FORMULA = "y ~ x0 + x1 + x2 + x3 + f"


def _frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(4)])
    frame["f"] = pd.Categorical(rng.choice(list("abc"), n))
    frame["y"] = (X[:, 0] - X[:, 1] + rng.logistic(size=n) > 0).astype(int)
    frame["y3"] = pd.Categorical(np.digitize(X[:, 2] + rng.logistic(size=n), [-1.0, 1.0]))
    return frame


def _trees() -> None:
    """U-Boost's compiled tree grower and the level kernels, serial and parallel."""
    from .families import Permissible
    from .methods.fit import fit
    for n in (400, _LARGE):
        fit(_FORMULA, _frame(n), method="uboost", mstop=2, depth=3)
        fit(_FORMULA, _frame(n), method="uboost", mstop=2, depth=3, family="matsushita")
        fit(_FORMULA, _frame(n), method="uboost", mstop=2, depth=3, family="mu")
        fit(_FORMULA, _frame(n), method="uboost", mstop=2, depth=3, family="tempered")
        fit("y3 ~ x0 + x1 + x2 + x3 + f", _frame(n), method="uboost", mstop=2, depth=3)
        for t in (-1.0, 1.5):          # the table start's passes, s > 0 and s < 0; ν = 1
            fit(_FORMULA, _frame(n), method="uboost", mstop=2, depth=3, nu=1.0,
                family=Permissible("tempered", t=t))     # saturates rows: FLAT_WEIGHTS


def _the_rest() -> None:
    """Every other method's kernels, in memory and (when Dask is installed) on Dask."""
    from .methods.fit import fit
    from .methods.online import OnlineLearner
    small, large = _frame(400), _frame(_LARGE, seed=1)
    for frame in (small, large):
        fit(_FORMULA, frame, method="udt", xval=0)
        fit(_FORMULA, frame, method="udt", xval=0, bins=32)
        fit("y3 ~ x0 + x1 + x2 + x3 + f", frame, method="udt", xval=0)
    for options in (dict(method="uls"), dict(method="uls", learner="trees", rounds=2),
                    dict(method="uls", learner="stumps", rounds=2),
                    dict(method="uls", learner="rules", rounds=2),
                    dict(method="uboost", learner="stumps", mstop=2),
                    dict(method="uboost", learner="linear", mstop=2),
                    dict(method="tboost", rounds=2), dict(method="tboost", rounds=2,
                                                          learner="udt"),
                    dict(method="tboost", rounds=2, learner="stumps"),
                    dict(method="gnnb", T=5), dict(method="unn", T=5)):
        fit(_FORMULA, small, **options)
    OnlineLearner(_FORMULA).partial_fit(small)
    try:
        import dask.dataframe as dd
    except ImportError:
        return
    import dask
    with dask.config.set(scheduler="synchronous"):
        lazy = dd.from_pandas(small, npartitions=2)
        for options in (dict(method="uls"), dict(method="udt", bins=32),
                        dict(method="uboost", mstop=2)):
            fit(_FORMULA, lazy, **options)


def _run(job: str) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # small fits: separation, few rows, ...
        {"trees": _trees, "rest": _the_rest}[job]()
    return time.perf_counter() - start


def precompile(processes: int = 2) -> dict[str, float]:
    """Compile every kernel into numba's cache; the seconds each job took."""
    jobs = ["trees", "rest"]
    if processes <= 1:
        return {job: _run(job) for job in jobs}
    # spawn: a fresh interpreter per job (numba's threading layer is unsafe after fork)
    with ProcessPoolExecutor(max_workers=min(processes, len(jobs)),
                             mp_context=get_context("spawn")) as pool:
        return dict(zip(jobs, pool.map(_run, jobs)))
