"""The size of a design is known before it is built: a formula whose design (or the p × p
and L × L matrices that follow it) would exceed the memory cap is refused, with the
estimate in the message, in well under a second, before patsy or numpy allocate anything;
and wide formulas that fit in memory fit (no recursion limit)."""
import re
import time

import numpy as np
import pandas as pd
import pytest

import ubreg
import ubreg.methods.fit  # noqa: F401  (imported here: the refusals are timed, not the import)
from ubreg.errors import DataError, FormulaError
from ubreg.numerics.limits import set_memory_cap

# the refusals are timed (seconds of this process's CPU, so that other processes on the
# machine do not count): under pytest-xdist (make test: -n auto --dist loadgroup) the
# timed tests run one after another on one worker
pytestmark = pytest.mark.xdist_group("timing")


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    n = 3000
    return pd.DataFrame({"y": rng.integers(0, 2, n), "x": rng.normal(size=n),
                         "z": rng.normal(size=n), "w": rng.normal(size=n)})


@pytest.fixture
def small_cap():
    set_memory_cap(200 * 2 ** 20)
    yield
    set_memory_cap(None)


def _refused_quickly(formula, data, error, match, **kw):
    start = time.process_time()
    with pytest.raises(error, match=match):
        ubreg.fit(formula, data, **kw)
    assert time.process_time() - start < 1.0, formula


def test_sequence_repetition_cannot_be_written(data, small_cap):
    _refused_quickly("y ~ I([0] * 10**8)", data, FormulaError, "cannot read")
    _refused_quickly("y ~ I(rep(0, 1e8))", data, FormulaError, "unknown function 'rep'")


def test_tensor_splines_are_estimated_from_the_tree(data, small_cap):
    _refused_quickly("y ~ te(cr(x, df = 100), cr(z, df = 100), cr(w, df = 100))", data,
                     DataError, r"3000 rows × 1000001 columns")


def test_interaction_expansion_is_bounded_before_it_runs():
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(50, 200)), columns=[f"v{j}" for j in range(200)])
    wide.insert(0, "y", np.tile([0, 1], 25))
    _refused_quickly("y ~ (.)^3", wide, FormulaError, r"expands to [\d,]+ terms, more than")
    _refused_quickly("y ~ v0*v1*v2*v3*v4*v5*v6*v7*v8*v9*v10*v11*v12*v13*v14*v15*v16*v17",
                     wide, FormulaError, "terms, more than")


def test_products_of_bases_are_refused_by_their_estimate(data):
    _refused_quickly("y ~ bs(x, df = 2000):bs(z, df = 2000)", data, DataError,
                     r"3000 rows × 4000001 columns\).*over ubreg's memory cap")


@pytest.mark.slow
def test_the_p_by_p_matrices_after_a_design_count(small_cap):
    # 175 columns: (.)^2 has 15 400 terms; the design fits in 200 MB, its QR does not
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(rng.normal(size=(200, 175)), columns=[f"v{j}" for j in range(175)])
    wide.insert(0, "y", np.tile([0, 1], 100))
    _refused_quickly("y ~ (.)^2", wide, DataError,
                     r"15401 × 15401 matrices that follow the design")


def test_a_factor_of_many_levels_is_refused_by_its_contrasts(small_cap):
    n = 43_000
    levels = pd.Series(np.arange(n)).map("L{}".format)
    d = pd.DataFrame({"y": np.tile([0, 1], n // 2), "f": levels})
    _refused_quickly("y ~ f", d, DataError, r"43000 (rows|levels)")


@pytest.mark.slow
def test_wide_formulas_fit():
    rng = np.random.default_rng(2)
    p, n = 600, 700
    X = rng.normal(size=(n, p))
    d = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    d["y"] = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    formula = "y ~ " + " + ".join(f"x{j}" for j in range(p))      # flat, 600 terms
    with pytest.warns(ubreg.errors.SeparationWarning) as caught:
        m = ubreg.fit(formula, d, maxiter=5)
    assert len(m.coef) == p + 1
    # 600 separating columns: the warning and the summary name a few and count the rest
    # (they once listed all 600)
    for text in ([str(w.message) for w in caught
                  if issubclass(w.category, ubreg.errors.SeparationWarning)][0],
                 str(m.summary())):
        said = re.search(r"separation by ([^(]*)\(", text).group(1)
        assert len(said) < 120 and "x599" not in said, said
        assert re.search(r"and \d+ more", said), said


@pytest.mark.slow
def test_every_scikit_learn_estimator_on_800_features():
    pytest.importorskip("sklearn")
    from ubreg import sklearn as usk
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 800))
    y = (X[:, 0] > 0).astype(int)
    for cls in (usk.ULSClassifier, usk.UDTClassifier, usk.UBoostClassifier,
                usk.TBoostClassifier, usk.GNNBClassifier, usk.UNNClassifier):
        est = cls()
        est.fit(X, y)
        assert est.predict(X).shape == (120,), cls.__name__
