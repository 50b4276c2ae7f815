"""uboost on Dask frames reads consecutive partitions' codes in blocks: the same fit."""
import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is an optional extra: "
                         "pip install 'ubreg[dask]'")
import dask  # noqa: E402

import ubreg  # noqa: E402
import ubreg.dask.boost_passes as dask_uboost  # noqa: E402

TOL = 1e-10


def test_blocks_group_consecutive_partitions_up_to_a_share_of_a_worker():
    assert dask_uboost._blocks([500_000] * 20, 2) == [[2 * i, 2 * i + 1] for i in range(10)]
    assert dask_uboost._blocks([500_000] * 6, 2) == [[i] for i in range(6)]   # 4 a worker
    assert dask_uboost._blocks([500_000] * 2, 2) == [[0], [1]]
    assert dask_uboost._blocks([3_000_000, 10, 10], 1) == [[0], [1, 2]]
    assert dask_uboost._blocks([0, 0], 1) == [[0, 1]]


@pytest.mark.slow
@pytest.mark.parametrize("kw", [dict(mstop=15), dict(mstop=8, weights="w", depth=2,
                                                      min_samples_leaf=5, max_bins=32)])
def test_blocks_of_partitions_give_the_in_memory_fit(monkeypatch, kw):
    rng = np.random.default_rng(5)
    n = 4000
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 40, n).astype(float),
                       "g": rng.choice(["p", "q", "r"], n), "w": rng.integers(0, 3, n) * 0.5})
    eta = df.a - 0.05 * df.b + 0.5 * (df.g == "q")
    df["y"] = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    ddf = dd.from_pandas(df, npartitions=5, sort=True)
    monkeypatch.setattr(dask_uboost, "_blocks", lambda rows, workers: [[0, 1], [2, 3, 4]])
    mem = ubreg.fit("y ~ a + b + g", df, method="uboost", **kw)
    with dask.config.set(scheduler="threads"):
        out = ubreg.fit("y ~ a + b + g", ddf, method="uboost", **kw)
    assert out._stats["partitions"] == 2
    np.testing.assert_allclose(out.predict(df), mem.predict(df), rtol=0, atol=TOL)
    np.testing.assert_allclose(out.risk_path, mem.risk_path, rtol=0, atol=TOL)
    assert [t.feature.tolist() for t in out.fit_info.learners] == \
        [t.feature.tolist() for t in mem.fit_info.learners]
    assert out.deviance == pytest.approx(mem.deviance, rel=1e-10)
