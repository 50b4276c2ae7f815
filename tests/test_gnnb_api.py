"""ubreg.fit(..., method="gnnb" / "unn"): formula, predictions, summary, pickling, errors."""
import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.errors import DataError
from ubreg.results.gnnb import GNNBResult


@pytest.fixture(scope="module")
def three():
    rng = np.random.default_rng(0)
    n = 240
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n) * 100.0          # a large unit: standardisation matters
    g = rng.choice(["u", "v", "w"], size=n)
    score = x1 + x2 / 100.0 + np.where(g == "w", 1.0, 0.0) + rng.normal(scale=0.5, size=n)
    cls = np.select([score < -0.5, score < 0.7], ["a", "b"], "c")
    return pd.DataFrame({"Class": cls, "x1": x1, "x2": x2, "g": g})


@pytest.fixture(scope="module")
def fitted(three):
    return ubreg.fit("Class ~ .", three, family=ubreg.Permissible("entropy"), method="gnnb", k=8)


def test_predict_scales(fitted, three):
    new = three.iloc[:25]
    p = fitted.predict(new, type="response")
    assert list(p.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert ((p >= 0) & (p <= 1)).all().all()
    h = fitted.predict(new, type="link")
    cls = fitted.predict(new, type="class")
    assert (cls.to_numpy() == np.asarray(h.columns)[h.to_numpy().argmax(axis=1)]).all()
    # the normalised posteriors are the one-vs-rest posteriors ∇φ⁻¹(h_c) over their sum
    raw = 1.0 / (1.0 + np.exp(-h.to_numpy()))
    np.testing.assert_allclose(p.to_numpy(), raw / raw.sum(axis=1, keepdims=True), rtol=1e-10)
    assert p.index.equals(new.index)


def test_link_is_leveraged_vote(fitted, three):
    # h_c(x) = Σ_{j∈kNN(x)} α_jc y_jc (eq. 16), neighbours in the standardised space
    X = three[["x1", "x2"]].to_numpy()
    Z = np.column_stack([(X - X.mean(0)) / X.std(0),
                         (three.g == "v"), (three.g == "w"), (three.g == "u")]).astype(float)
    q = Z[3]
    d2 = ((Z - q) ** 2).sum(1)
    nn = np.lexsort((np.arange(len(Z)), d2))[:8]
    lev = fitted.alpha.to_numpy() * fitted.Y
    np.testing.assert_allclose(fitted.predict(three.iloc[[3]], type="link").to_numpy()[0],
                               lev[nn].sum(axis=0), atol=1e-12)


def test_training_predictions_leave_self_out(fitted):
    h = fitted.predict(type="link")
    assert h.shape == (fitted.nobs, 3)
    assert fitted.predict(type="response").sum(axis=1).round(12).eq(1).all()
    assert 0.5 < fitted.training_accuracy <= 1.0


def test_na_rows_and_data_not_modified(three):
    data = three.copy()
    data.loc[data.index[:4], "x1"] = np.nan
    before = data.copy(deep=True)
    m = ubreg.fit("Class ~ x1 + x2", data, family="entropy", method="gnnb", k=5)
    assert m.n_dropped == 4 and m.nobs == len(data) - 4
    p = m.predict(data.iloc[:6], type="response")
    assert p.iloc[:4].isna().all().all() and p.iloc[4:].notna().all().all()
    assert m.predict(data.iloc[:6], type="class").iloc[:4].isna().all()
    pd.testing.assert_frame_equal(data, before)


def test_pickle_roundtrip(fitted, three):
    m2 = pickle.loads(pickle.dumps(fitted))
    pd.testing.assert_frame_equal(m2.predict(three, type="response"),
                                  fitted.predict(three, type="response"))
    assert isinstance(m2, GNNBResult)


def test_deterministic(three):
    a = ubreg.fit("Class ~ .", three, family="matsushita", method="gnnb", k=6)
    b = ubreg.fit("Class ~ .", three, family="matsushita", method="gnnb", k=6)
    assert np.array_equal(a.alpha.to_numpy(), b.alpha.to_numpy())


def test_summary(fitted):
    s = fitted.summary()
    text = str(s)
    for needle in ("k = 8", "chooser: sequential", "entropy", "Hamming risk", "optimum:",
                   "updates l(T,c)"):
        assert needle in text
    f = s.frame()
    assert list(f.index) == ["a", "b", "c"]
    assert (f["updates"] == fitted.nobs * 8).all()
    assert ((f["risk"] >= f["optimum"] - 1e-12) & (f["risk"] <= 1.0)).all()
    assert f["accuracy"].between(0, 1).all() and f["F"].between(0, 1).all()
    html = s.html()
    assert html.startswith("<div") and "Hamming risk" in html


def test_summary_html_escapes_labels():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"y": rng.choice(["<b>x</b>", "ok"], 60), "x": rng.normal(size=60)})
    html = ubreg.fit("y ~ x", df, family="gini", method="gnnb", k=3).summary().html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


@pytest.mark.parametrize("method, opts, header", [
    ("gnnb", {"chooser": "largest", "T": 100},
     "GNNB* (largest |delta|), family: entropy; k = 5, T = 100"),
    ("unn", {}, "UNN, family: entropy; k = 5, T = 240, chooser: sequential"),
    ("gnnb", {"blocks": 2, "norm": "l1"}, "2 distance columns in 2 blocks (l1-normalised)")])
def test_variants(three, method, opts, header):
    m = ubreg.fit("Class ~ x1 + x2", three, family="entropy", method=method, k=5, **opts)
    p = m.predict(three.iloc[:10])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert header in str(m.summary())        # the summary says which variant was fitted


def test_blocks_average_block_posteriors(three):
    m = ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="gnnb", k=5, blocks=2)
    new = three.iloc[:7]
    X, _ = m.design.transform(new)
    links = m._links_for(X)
    avg = np.mean([1 / (1 + np.exp(-h)) for h in links], axis=0)
    np.testing.assert_allclose(m.predict(new).to_numpy(), avg / avg.sum(1, keepdims=True))
    # each block has one column here, scaled to unit L2 norm: |x| = 1
    assert all(np.allclose(np.abs(b.index.X), 1.0) for b in m.blocks)


def test_categorical_refused_when_asked(three):
    with pytest.raises(DataError, match="categorical"):
        ubreg.fit("Class ~ .", three, family="entropy", method="gnnb", categorical="refuse")


@pytest.mark.parametrize("opts,match", [
    ({"k": 0}, "k must be a whole number from 1"),
    ({"k": 10_000}, "k = 10000"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"epsilon": 1.5}, "epsilon"),
    ({"chooser": "best"}, "chooser"),
    ({"T": -1}, "T must"),
    ({"blocks": 99}, "blocks"),
])
def test_errors(three, opts, match):
    with pytest.raises(ValueError, match=match):
        ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="gnnb", **opts)


def test_weights_repeat_rows_and_must_be_integers(three):
    w = np.arange(len(three)) % 3                     # 0, 1, 2: removed, once, twice
    m = ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="gnnb", k=4,
                  freq_weights=w)
    rep = three.loc[three.index.repeat(w)]
    r = ubreg.fit("Class ~ x1 + x2", rep, family="entropy", method="gnnb", k=4)
    np.testing.assert_array_equal(m.predict(three, type="link").to_numpy(),
                                  r.predict(three, type="link").to_numpy())
    assert m.nobs == int(w.sum()) and m.weighted_rows == len(three)
    assert m.alpha.index.equals(rep.index)            # one row per copy, the row's label
    assert f"Frequency weights: {len(three)} data rows" in str(m.summary())
    with pytest.raises(ubreg.errors.DataError, match="integer frequency weights only.*1 weight"):
        ubreg.fit("Class ~ x1", three, family="entropy", method="gnnb",
                  weights=np.r_[0.5, np.ones(len(three) - 1)])


def test_refuses_non_permissible(three):
    with pytest.raises(ValueError, match="permissible"):
        ubreg.fit("Class ~ x1", three, family=ubreg.Exponential(), method="gnnb")


# ---- Lemma 3 optimum in the summary: repeated rows, any row order ------------
@pytest.fixture(scope="module")
def repeated():
    """Few distinct rows, each repeated with noisy labels: Lemma 3's optimum > 0."""
    rng = np.random.default_rng(11)
    base = pd.DataFrame({"x1": rng.integers(0, 4, 30).astype(float),
                         "x2": rng.integers(0, 3, 30).astype(float) * 10.0})
    rows = base.iloc[rng.integers(0, 30, 300)].reset_index(drop=True)
    score = rows.x1 + rows.x2 / 10.0 + rng.normal(scale=1.2, size=300)
    rows["Class"] = np.select([score < 1.5, score < 3.0], ["a", "b"], "c")
    return rows[["Class", "x1", "x2"]]


@pytest.mark.parametrize("method,opts", [("gnnb", {}), ("unn", {}), ("gnnb", {"blocks": 2})])
def test_summary_optimum_is_lemma3_and_row_order_free(repeated, method, opts):
    from ubreg.fitters.gnnb import lemma3_optimal_risk
    fam = ubreg.Permissible("entropy")
    m = ubreg.fit("Class ~ x1 + x2", repeated, family=fam, method=method, k=6, **opts)
    # Lemma 3 on input-order data: the distance space of each block, the labels
    X, _ = m.design.transform(repeated)
    want = np.mean([lemma3_optimal_risk(fam, B, m.Y) for B in m.preprocessor.transform(X)],
                   axis=0)
    assert (want > 0.05).all()                  # repeated rows with mixed labels
    got = m.summary().frame()["optimum"].to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # the same for any order of the rows
    shuffled = repeated.sample(frac=1.0, random_state=3)
    m2 = ubreg.fit("Class ~ x1 + x2", shuffled, family=fam, method=method, k=6, **opts)
    np.testing.assert_allclose(m2.summary().frame()["optimum"].to_numpy(), got,
                               rtol=1e-12, atol=1e-14)
    text = str(m.summary())
    assert "repeat" in text and "fall below the optimum" in text


def test_summary_updates_summed_over_blocks(three):
    m = ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="gnnb", k=5, blocks=2)
    f = m.summary().frame()
    per_block = [b.fit.n_updates for b in m.blocks]
    assert (f["updates"].to_numpy() == np.sum(per_block, axis=0)).all()
    assert (f["updates"] == 2 * m.nobs * 5).all()          # T = m in each block: m k each
    assert "l(T,c) is the sum over the blocks" in str(m.summary())


# ---- factors stay together -------------------------------------------------------
@pytest.mark.slow
def test_factor_indicators_adjacent_and_never_split():
    rng = np.random.default_rng(4)
    n = 120
    df = pd.DataFrame({"y": rng.choice(["p", "q"], n), "x1": rng.normal(size=n),
                       "g": rng.choice(["u", "v", "w"], n), "x2": rng.normal(size=n),
                       "h": rng.choice(["r", "s"], n), "x3": rng.normal(size=n)})
    units = 5                    # x1, g, x2, h, x3: a factor counts as one
    for blocks in range(1, units + 1):
        m = ubreg.fit("y ~ x1 + g + x2 + h + x3", df, family="entropy", method="gnnb", k=4,
                      blocks=blocks)
        pre = m.preprocessor
        names = pre.column_names
        for fac, levels in (("g", "uvw"), ("h", "rs")):
            pos = [i for i, nm in enumerate(names) if nm.startswith(fac)
                   and nm[len(fac):] in levels]
            assert len(pos) == len(levels)
            assert pos == list(range(pos[0], pos[0] + len(pos)))     # adjacent
            assert names[pos[0]] == f"{fac}{levels[0]}"              # reference level first
            owner = {b for b, cols in enumerate(pre.blocks) for c in cols if c in pos}
            assert len(owner) == 1                                   # one block
        assert sorted(np.concatenate(pre.blocks).tolist()) == list(range(len(names)))
        # the indicators of the reference level are 1 exactly where g == "u"
        Z = pre.raw(m.design.transform(df)[0])
        np.testing.assert_array_equal(Z[:, names.index("gu")], (df.g == "u").to_numpy())
    with pytest.raises(ValueError, match="blocks"):
        ubreg.fit("y ~ x1 + g + x2 + h + x3", df, family="entropy", method="gnnb", k=4,
                  blocks=units + 1)


def test_numeric_blocks_are_array_split():
    from ubreg.fitters.gnnb.preprocess import _split_units
    for d in range(1, 12):
        for n in range(1, d + 1):
            got = [b.tolist() for b in _split_units([1] * d, n)]
            assert got == [b.tolist() for b in np.array_split(np.arange(d), n)]


# ---- UNN options ------------------------------------------------------------------
@pytest.mark.parametrize("opts", [{"epsilon": 0.3}, {"chooser": "largest"}])
def test_unn_refuses_epsilon_and_chooser(three, opts):
    with pytest.raises(ValueError, match=f"method 'unn' has no option '{next(iter(opts))}'"):
        ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="unn", k=5, **opts)


def test_unn_counts_capped_steps(three):
    m = ubreg.fit("Class ~ x1 + x2", three, family="entropy", method="unn", k=5, delta_max=0.5)
    assert m.n_capped > 0
    assert f"UNN: {m.n_capped} step(s)" in str(m.summary())


def test_canonical_order_is_the_full_lexicographic_order():
    # the order sorts by (hash, row) and falls back to the ranks only on a hash
    # collision: the same permutation as sorting by (hash, class, ranks, row)
    from ubreg.methods.gnnb import canonical_order
    rng = np.random.default_rng(5)
    for n, d in ((1, 1), (30, 1), (400, 3), (2000, 2)):
        X = rng.integers(0, 3, size=(n, d)).astype(float)       # many repeated rows
        codes = rng.integers(0, 3, size=n)
        ranks = [np.unique(X[:, j], return_inverse=True)[1].reshape(-1).astype(np.uint64)
                 for j in range(d)]
        h = np.full(n, np.uint64(0x9E3779B97F4A7C15))
        with np.errstate(over="ignore"):
            for col in [codes.astype(np.uint64)] + ranks:
                h = (h ^ col) * np.uint64(0xBF58476D1CE4E5B9)
                h ^= h >> np.uint64(31)
        ref = np.lexsort(ranks[::-1] + [codes, h])
        np.testing.assert_array_equal(canonical_order(X, codes), ref)


def test_canonical_order_on_hash_collisions():
    from ubreg.methods.gnnb import _sort_keys
    rng = np.random.default_rng(6)
    for n in (1, 2, 50, 300):
        codes = rng.integers(0, 2, size=n)
        ranks = [rng.integers(0, 3, size=n).astype(np.uint64) for _ in range(2)]
        h = rng.integers(0, 4, size=n).astype(np.uint64)       # colliding hashes
        np.testing.assert_array_equal(_sort_keys(h, codes, ranks),
                                      np.lexsort(ranks[::-1] + [codes, h]))
