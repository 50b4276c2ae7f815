"""The package's registries as test fixtures.

Every method variant (``ubreg.METHODS`` and each method's ``quick`` settings) and every
family (``ubreg.families.FAMILIES``) is read from the package itself, so a method or a
family added there is tested by the shared matrices (bad input, invariances, weights,
formula safety, fuzzing) without editing them.  A test asks for ``every_method`` (a
method label such as ``"uls-stumps"``), ``every_multiclass_method`` (those of them that fit
more than two classes) or ``every_family`` (a family name) and is run
once per entry; :func:`method_case` gives a label's method, options and traits.

``pima`` is the Pima Indians diabetes data as ``ubreg.datasets.load_pima()`` gives them
(with their missing values), loaded once for the session; a test never modifies it (no
fit modifies its data).

``client`` is the Dask cluster of the cluster tests (``tests/test_dask*.py``): a
``distributed.Client`` on a LocalCluster of two worker processes, one per test
module (the worker-kill tests kill its workers).  Those modules' data: ``frame`` is the
module's own ``_data()``, ``ddf`` the same rows as a Dask frame of 4 partitions,
``frame_na`` and ``ddf_na`` the same with missing predictors (:func:`with_missing`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

# Read before numpy, scikit-learn or numba load their thread pools (nothing has imported
# them when this file runs).  GNU OpenMP (numba's omp layer, scikit-learn's histogram
# boosting) makes a waiting thread spin; on cores that another process (an xdist worker,
# another test run) needs, the spinning costs both time and CPU time: one 1.3 s test took
# 69 s, and the demo's CPU-time test measured 77 s of CPU (bound 60 s) where it takes 38 s
# with passive waiting on the same shared machine.  Passive waiting changes no number and
# no thread count (the tests that compare numba's parallel kernels with their serial twins
# still run them on every thread numba has).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # under pytest-xdist (make test, make test-fast: -n auto) the workers share the cores:
    # OpenBLAS's threads would spin the same way
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

import ubreg
from ubreg.families import FAMILIES


@dataclass(frozen=True)
class MethodCase:
    """One variant of a registered method, with its small, fast settings."""

    label: str
    method: str
    options: dict
    multiclass: bool
    keeps_missing: bool
    #: the options the variant accepts (its schema's names): tests of an option's outcome
    #: ask whether a method has it, not which method it is
    accepts: frozenset = frozenset()


def _method_cases() -> dict[str, MethodCase]:
    out = {}
    for name, entry in ubreg.METHODS.items():
        for variant, options in entry.quick.items():
            label = f"{name}-{variant}" if variant else name
            accepts = frozenset(entry.schema_for(dict(options)).names())
            out[label] = MethodCase(label, name, dict(options), entry.multiclass,
                                    entry.keeps_missing, accepts)
    return out


#: every method variant by label ("uls", "uls-stumps", "udt", ...)
METHOD_CASES = _method_cases()
#: every permissible family by name
FAMILY_NAMES = sorted(FAMILIES)


def method_case(label: str) -> MethodCase:
    """The variant ``label`` of :data:`METHOD_CASES`."""
    return METHOD_CASES[label]


def pytest_generate_tests(metafunc):
    if "every_method" in metafunc.fixturenames:
        metafunc.parametrize("every_method", sorted(METHOD_CASES))
    if "every_multiclass_method" in metafunc.fixturenames:
        metafunc.parametrize("every_multiclass_method",
                             sorted(k for k, c in METHOD_CASES.items() if c.multiclass))
    if "every_family" in metafunc.fixturenames:
        metafunc.parametrize("every_family", FAMILY_NAMES)


@pytest.fixture(scope="session")
def methods_registry() -> dict[str, MethodCase]:
    return dict(METHOD_CASES)


@pytest.fixture(scope="session")
def families_registry() -> dict:
    return dict(FAMILIES)


@pytest.fixture(scope="module")
def client():
    """A Client on a LocalCluster of 2 worker processes, 1 thread each (per module)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def frame(request):
    """The Dask test module's data, its ``_data()``."""
    return request.module._data()


def with_missing(df, seed=1):
    """NA predictors, kept in memory and on Dask: b in 10 % of the rows, the factor g in
    5 % (NaN in each of its dummies), x in one row.  (With seed 3 a tree of
    test_dask_uboost's CASES[3] meets two splits of the same rows whose gains, 3e-6 of the
    node's sums, differ by rounding beyond TIE_RTOL: another column, the same
    predictions.)"""
    rng = np.random.default_rng(seed)
    df = df.copy()
    df.loc[rng.uniform(size=len(df)) < 0.1, "b"] = np.nan
    df.loc[rng.uniform(size=len(df)) < 0.05, "g"] = None
    df.loc[[17], "x"] = np.nan
    return df


@pytest.fixture(scope="module")
def frame_na(frame):
    return with_missing(frame)


def _partitioned(df):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(df, npartitions=4, sort=True)


@pytest.fixture(scope="module")
def ddf(frame):
    return _partitioned(frame)


@pytest.fixture(scope="module")
def ddf_na(frame_na):
    return _partitioned(frame_na)


@pytest.fixture(scope="session")
def pima():
    """The Pima data, with their missing values (``ubreg.datasets.load_pima()``)."""
    return ubreg.datasets.load_pima()
