"""Properties of the UDT engine (ubreg.tree): Theorem 4, weights, ties,
categorical splits, missing values, pruning, prediction and output."""
import itertools
import pickle

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ubreg.families import Permissible
from ubreg.fitters.udt import TreeColumn, cp_table_cv, grow_tree, one_se_cp
from ubreg.plots.treeplot import plot_tree
from ubreg.trees.criterion import make_criterion

matplotlib.use("Agg")

FAMILIES = [("gini", {}), ("entropy", {}), ("matsushita", {}), ("mu", {"mu": 0.3}),
            ("power", {"v": 0.3}), ("entropy2", {})]


def data(n=600, p=4, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    eta = X[:, 0] - 0.8 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3]
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta / noise))).astype(int)
    return X, y


def cols_of(X, names=None):
    names = names or [f"x{j}" for j in range(X.shape[1])]
    return [TreeColumn(nm, "numeric", np.ascontiguousarray(X[:, j], dtype=float))
            for j, nm in enumerate(names)]


def structure(tree):
    f = tree.frame
    return list(zip(f["node"], f["var"], f["threshold"].fillna(-999.0), f["direction"]))


# ---- Theorem 4 and the risks --------------------------------------------------
@pytest.mark.parametrize("name, params", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_theorem4_surrogate_of_tree(name, params):
    """Theorem 4: Σ_i w_i F_φ(y*_i ∇φ(p_leaf(i))) = Σ_k w_k(−φ(p_k))/b_φ − W a_φ/b_φ."""
    fam = Permissible(name, **params)
    X, y = data(800, seed=1, noise=3.0)
    w = np.random.default_rng(2).integers(1, 4, size=len(y)).astype(float)
    tree = grow_tree(cols_of(X), y, w, fam, min_leaf=40, max_depth=4, cp=0)
    p = tree.predict(cols_of(X), type="response")
    assert np.all((p > 0) & (p < 1))                     # no pure leaf: uncapped links
    H = fam.dphi(p)
    lhs = np.sum(w * fam.F((2 * y - 1) * H))
    leaves = tree.leaves
    rhs = np.sum(leaves["weight"] * -fam.phi(leaves["yprob"])) / fam.b - w.sum() * fam.a / fam.b
    assert lhs == pytest.approx(rhs, rel=1e-9)
    assert tree.surrogate_risk == pytest.approx(rhs, rel=1e-9)
    # deviance 2 Σ w D_φ(y‖p) (docs/math.md §3), and the root's for the null deviance
    assert tree.deviance == pytest.approx(2 * np.sum(w * fam.D(y, p)), rel=1e-9)
    pbar = np.sum(w * y) / w.sum()
    assert tree.null_deviance == pytest.approx(2 * np.sum(w * fam.D(y, pbar)), rel=1e-9)
    # each split lowers the surrogate by its recorded improvement (eq. 104)
    assert tree.frame["improve"].sum() == pytest.approx(
        tree.frame["risk"].iloc[0] - tree.surrogate_risk, rel=1e-9)


def test_entropy_deviance_is_binomial_deviance():
    X, y = data(500, seed=3)
    tree = grow_tree(cols_of(X), y, None, Permissible("entropy"), max_depth=3, cp=0)
    p = np.clip(tree.predict(cols_of(X)), 1e-300, 1)
    q = np.clip(1 - tree.predict(cols_of(X)), 1e-300, 1)
    dev = -2 * np.sum(y * np.log(p) + (1 - y) * np.log(q))
    assert tree.deviance == pytest.approx(dev, rel=1e-10)


def test_fast_criteria_equal_generic_phi():
    """The closed forms of the splitter equal w(−φ(wy/w) − a_φ) from φ itself."""
    from ubreg.trees.criterion import Criterion
    wy = np.array([0.0, 1.0, 2.5, 7.0, 3.0])
    w = np.array([4.0, 1.0, 5.0, 9.0, 3.0])
    for name, params in FAMILIES:
        fam = Permissible(name, **params)
        fast, slow = make_criterion(fam), Criterion(fam)
        np.testing.assert_allclose(fast.node_term(wy, w), slow.node_term(wy, w),
                                   rtol=1e-12, atol=1e-12)
        lw, lwy = np.array([2.0, 3.0]), np.array([1.0, 0.5])
        rw, rwy = np.array([7.0, 6.0]), np.array([1.0, 5.5])
        g1, g2 = np.empty(2), np.empty(2)
        fast.gain(lwy, lw, rwy, rw, None, g1, np.empty(2), np.empty(2))
        slow.gain(lwy, lw, rwy, rw, None, g2, np.empty(2), np.empty(2))
        tot = fast.offset(lwy + rwy, lw + rw)
        np.testing.assert_allclose(tot - g1, -g2, rtol=1e-12)


@pytest.mark.parametrize("name", ["gini", "entropy", "matsushita"])
def test_splits_are_best_by_brute_force(name):
    """The root split maximises the drop of Σ w(−φ(p)) over all variables and cuts."""
    fam = Permissible(name)
    X, y = data(200, p=4, seed=4)
    X = X[:, :3]
    X = np.round(X, 1)                                   # repeated values
    tree = grow_tree(cols_of(X), y, None, fam, min_split=2, min_leaf=5, max_depth=1, cp=0)
    crit = make_criterion(fam)
    best = -np.inf
    for j in range(3):
        for t in np.unique(X[:, j])[1:]:
            left = X[:, j] < t
            if left.sum() < 5 or (~left).sum() < 5:
                continue
            drop = (crit.node_term(y.sum(), len(y)) - crit.node_term(y[left].sum(), left.sum())
                    - crit.node_term(y[~left].sum(), (~left).sum())) / fam.b
            best = max(best, drop)
    assert tree.frame["improve"].iloc[0] == pytest.approx(best, rel=1e-12)


# ---- weights --------------------------------------------------------------------
def test_weight_two_equals_duplicated_row():
    X, y = data(300, seed=5)
    w = np.ones(len(y))
    w[::3] = 2.0
    dup = np.repeat(np.arange(len(y)), w.astype(int))
    a = grow_tree(cols_of(X), y, w, Permissible("entropy"), min_split=2, min_leaf=1,
                  max_depth=6, cp=0)
    b = grow_tree(cols_of(X[dup]), y[dup], None, Permissible("entropy"), min_split=2,
                  min_leaf=1, max_depth=6, cp=0)
    assert structure(a) == structure(b)
    np.testing.assert_allclose(a.frame["weight"], b.frame["weight"])
    np.testing.assert_allclose(a.frame["yprob"], b.frame["yprob"], rtol=1e-12)
    np.testing.assert_allclose(a.frame["improve"], b.frame["improve"], rtol=1e-9)
    assert a.deviance == pytest.approx(b.deviance, rel=1e-10)


def _weighted_mixed_data(seed):
    """Numeric (one with missing values) and categorical predictors, and
    integer frequency weights 0..4."""
    rng = np.random.default_rng(seed)
    n = 160
    x0 = rng.standard_normal(n)
    x1 = rng.standard_normal(n)
    x1[rng.random(n) < 0.15] = np.nan
    g = rng.integers(0, 5, n)
    eta = 1.5 * x0 - np.nan_to_num(x1) + (g == 2) - (g == 4)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    w = rng.choice([0, 1, 1, 2, 3, 4], size=n)

    def cols(rows):
        return [TreeColumn("x0", "numeric", x0[rows]), TreeColumn("x1", "numeric", x1[rows]),
                TreeColumn("g", "categorical", g[rows], ["a", "b", "c", "d", "e"])]

    return cols, y, w


@pytest.mark.parametrize("seed, family", [(1, "gini"), (2, "entropy"), (3, "matsushita")])
def test_min_leaf_and_min_split_count_frequency_weights(seed, family):
    # a row of weight w counts w times in min_split and min_leaf: the weighted
    # tree is the tree of the repeated rows, with both controls binding
    cols, y, w = _weighted_mixed_data(seed)
    rows = np.arange(len(y))
    rep = np.repeat(rows, w)
    ctl = dict(min_split=30, min_leaf=12, max_depth=8, cp=0)
    a = grow_tree(cols(rows), y, w.astype(float), Permissible(family), **ctl)
    b = grow_tree(cols(rep), y[rep], None, Permissible(family), **ctl)
    fa, fb = a.frame, b.frame
    for c in ("node", "var", "is_leaf", "direction", "left_levels", "right_levels", "na_goes",
              "n_tied"):
        assert fa[c].tolist() == fb[c].tolist(), c
    np.testing.assert_array_equal(fa["threshold"], fb["threshold"])
    for c in ("weight", "yprob", "risk", "improve", "complexity"):
        np.testing.assert_allclose(fa[c], fb[c], rtol=1e-10, atol=1e-12, err_msg=c)
    # the controls bind ...
    loose = grow_tree(cols(rep), y[rep], None, Permissible(family), min_split=2, min_leaf=1,
                      max_depth=8, cp=0)
    assert len(loose.frame) > len(fb)
    # ... on observations, not rows: some child has fewer rows than min_leaf
    # (the row-count rule would have refused it) but weight at least min_leaf
    kids = fa[fa["depth"] > 0]
    assert (kids["weight"] >= ctl["min_leaf"]).all()
    assert (kids["n"] < ctl["min_leaf"]).any()
    inner = fa[~fa["is_leaf"]]
    assert (inner["weight"] >= ctl["min_split"]).all()


def test_min_leaf_weight_sums_tolerate_rounding():
    # 21 rows of weight 1/3 sum to 6.999999999999997 in floating point: they
    # are 7 observations, so min_leaf = 7 admits the perfect split at the middle
    x = np.arange(42.0)
    y = (x >= 21).astype(int)
    w = np.full(42, 1.0 / 3.0)
    assert np.cumsum(w)[20] < 7.0
    g = np.repeat(np.arange(6), 7)   # the categorical splitter: levels of 7 rows
    # the missing-value path of the splitter: three more rows, x missing
    xn = np.concatenate([x, [np.nan] * 3])
    yn = np.concatenate([y, [0, 0, 0]])
    wn = np.full(45, 1.0 / 3.0)
    for c, yy, ww in (([TreeColumn("x", "numeric", x)], y, w),
                      ([TreeColumn("g", "categorical", g, list("abcdef"))], y, w),
                      ([TreeColumn("x", "numeric", xn)], yn, wn)):
        tree = grow_tree(c, yy, ww, Permissible("gini"), min_split=14, min_leaf=7, cp=0,
                         max_depth=1)
        f = tree.frame
        assert f["var"].tolist() == [c[0].name, "<leaf>", "<leaf>"]
        if c[0].kind == "numeric":
            assert f["threshold"].iloc[0] == 20.5
        else:
            assert list(f["left_levels"].iloc[0]) == ["a", "b", "c"]
        # (the missing rows join one child: the observed weights tie up to rounding)
        np.testing.assert_allclose(np.sort(f["weight"].iloc[1:]), [7.0, 7.0 + (yy is yn)])
    # one observation short: no split
    for ctl in (dict(min_split=2, min_leaf=8), dict(min_split=15, min_leaf=1)):
        tree = grow_tree([TreeColumn("x", "numeric", x)], y, w, Permissible("gini"), cp=0,
                         **ctl)
        assert len(tree.frame) == 1


@pytest.mark.parametrize("risk", ["surrogate", "misclass"])
def test_zero_weight_equals_removed_row(risk):
    X, y = data(400, seed=6)
    w = np.ones(len(y))
    w[::5] = 0.0
    keep = w > 0
    a = grow_tree(cols_of(X), y, w, Permissible("gini"), cp=0.001, risk=risk)
    b = grow_tree(cols_of(X[keep]), y[keep], None, Permissible("gini"), cp=0.001, risk=risk)
    assert structure(a) == structure(b)
    np.testing.assert_allclose(a.frame["yprob"], b.frame["yprob"], rtol=1e-12)
    # zero-weight rows are still routed and counted in n
    assert a.frame["n"].iloc[0] == len(y)
    leaf_a = a.apply(cols_of(X))
    np.testing.assert_array_equal(leaf_a[keep], b.apply(cols_of(X[keep])))


# ---- ties -----------------------------------------------------------------------
def test_ties_go_to_first_column_then_smallest_threshold():
    X, y = data(300, seed=7)
    cols = cols_of(np.column_stack([X[:, 0], X[:, 0] * 2.0, X[:, 1]]), ["a", "b", "c"])
    tree = grow_tree(cols, y, None, Permissible("gini"), max_depth=3, cp=0)
    assert "b" not in set(tree.frame["var"])             # a copy of "a" never wins a tie
    first = tree.frame[tree.frame["var"] == "a"]
    assert (first["n_tied"] >= 2).all()
    swapped = grow_tree([cols[1], cols[0], cols[2]], y, None, Permissible("gini"), max_depth=3,
                        cp=0)
    assert "a" not in set(swapped.frame["var"])
    # a symmetric pattern: two cuts with the same improvement, the smaller wins
    x = np.arange(8.0)
    yy = np.array([1, 0, 0, 0, 0, 0, 0, 1])
    t = grow_tree([TreeColumn("x", "numeric", x)], yy, None, Permissible("entropy"),
                  min_split=2, min_leaf=1, max_depth=1, cp=0)
    assert t.frame["threshold"].iloc[0] == 0.5 and t.frame["n_tied"].iloc[0] == 2


# ---- categorical predictors -------------------------------------------------------
@pytest.mark.parametrize("name", ["gini", "entropy", "matsushita"])
def test_categorical_partition_is_optimal(name):
    rng = np.random.default_rng(8)
    L = 6
    levels = [f"l{k}" for k in range(L)]
    code = rng.integers(0, L, size=300)
    prob = np.array([0.1, 0.8, 0.45, 0.3, 0.6, 0.9])[code]
    y = (rng.random(300) < prob).astype(int)
    w = rng.uniform(0.5, 2.0, size=300)
    fam = Permissible(name)
    col = TreeColumn("g", "categorical", code, levels)
    tree = grow_tree([col], y, w, fam, min_split=2, min_leaf=1, max_depth=1, cp=0)
    crit = make_criterion(fam)
    best, best_set = -np.inf, None
    for r in range(1, L):
        for subset in itertools.combinations(range(L), r):
            left = np.isin(code, subset)
            drop = (crit.node_term(np.sum(w * y), w.sum())
                    - crit.node_term(np.sum((w * y)[left]), w[left].sum())
                    - crit.node_term(np.sum((w * y)[~left]), w[~left].sum())) / fam.b
            if drop > best:
                best, best_set = drop, set(subset)
    root = tree.frame.iloc[0]
    assert root["improve"] == pytest.approx(best, rel=1e-12)
    chosen = {levels.index(v) for v in root["left_levels"]}
    assert chosen in (best_set, set(range(L)) - best_set)
    # the left child is the one with the smaller proportion of y = 1
    kids = tree.frame.iloc[1:]
    assert kids["yprob"].iloc[0] < kids["yprob"].iloc[1]
    assert tree.apply([col]).tolist() == np.where(np.isin(code, sorted(chosen)), 2, 3).tolist()


def test_unseen_and_missing_levels_follow_majority():
    code = np.repeat([0, 1, 2], [60, 30, 30])
    y = np.r_[np.zeros(60), np.ones(30), np.zeros(30)].astype(int)
    y[:6] = 1
    col = TreeColumn("g", "categorical", code, ["a", "b", "c"])
    tree = grow_tree([col], y, None, Permissible("gini"), min_split=2, min_leaf=1, max_depth=1,
                     cp=0)
    root = tree.frame.iloc[0]
    assert set(root["left_levels"]) == {"a", "c"} and root["na_goes"] == "left"
    new = TreeColumn("g", "categorical", np.array([-1, 0, 1, 3]), ["a", "b", "c", "zz"])
    np.testing.assert_array_equal(tree.apply([new]), [2, 2, 3, 2])


# ---- missing values -----------------------------------------------------------------
def test_na_rows_follow_the_majority_branch():
    rng = np.random.default_rng(9)
    x = rng.uniform(0, 1, 400)
    y = (x > 0.7).astype(int)
    x_na = x.copy()
    miss = rng.random(400) < 0.2
    x_na[miss] = np.nan
    z = rng.standard_normal(400)
    cols = [TreeColumn("x", "numeric", x_na), TreeColumn("z", "numeric", z)]
    tree = grow_tree(cols, y, None, Permissible("gini"), max_depth=1, cp=0)
    root = tree.frame.iloc[0]
    assert root["var"] == "x"
    # the search used the observed rows only: same split as without the NA rows
    obs = grow_tree([TreeColumn("x", "numeric", x[~miss]), TreeColumn("z", "numeric", z[~miss])],
                    y[~miss], None, Permissible("gini"), max_depth=1, cp=0)
    assert root["threshold"] == obs.frame["threshold"].iloc[0]
    # NA rows join the heavier child (x < t: about 70 % of the rows) and are counted
    kids = tree.frame.iloc[1:].set_index("node")
    heavy = 2 if root["direction"] == "<" else 3
    obs_kids = obs.frame.iloc[1:].set_index("node")
    assert kids.loc[heavy, "n"] == obs_kids.loc[heavy, "n"] + miss.sum()
    assert kids["n"].sum() == 400
    assert np.all(tree.apply(cols)[miss] == heavy)
    assert root["na_goes"] == ("left" if heavy == 2 else "right")


# ---- pruning and the cp table ---------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("risk", ["surrogate", "misclass"])
def test_pruning_is_monotone_and_nested(risk):
    X, y = data(1500, seed=10, noise=2.0)
    tree = grow_tree(cols_of(X), y, None, Permissible("entropy"), cp=0, max_depth=8, risk=risk)
    cpt = tree.cptable
    assert (np.diff(cpt["CP"]) < 0).all() and (np.diff(cpt["nsplit"]) > 0).all()
    assert (np.diff(cpt["rel error"]) <= 1e-12).all()
    prev = None
    for _, row in cpt.iterrows():
        pruned = tree.prune(row["CP"])
        assert int((~pruned.is_leaf).sum()) == row["nsplit"]
        rel = pruned.grown_node_risk(risk)[pruned.is_leaf].sum() / pruned.root_risk
        assert rel == pytest.approx(row["rel error"], rel=1e-9)
        nodes = set(pruned.frame["node"])
        if prev is not None:
            assert nodes >= prev                          # smaller cp: a larger tree
        prev = nodes
    # a cp strictly between two rows selects the tree of the lower row
    assert tree.prune(0.5 * cpt["CP"].iloc[-2] + 0.5 * cpt["CP"].iloc[-3]).n_nodes \
        == 2 * cpt["nsplit"].iloc[-2] + 1
    assert tree.prune(0.0).n_nodes == tree.n_nodes and tree.n_nodes > 0


@pytest.mark.slow
def test_cp_table_cv_and_one_se_rule():
    X, y = data(600, seed=11, noise=2.0)
    kw = dict(cp=0.002, max_depth=6, risk="surrogate")    # the root's CV surrogate risk is ~1
    cpt = cp_table_cv(cols_of(X), y, None, Permissible("gini"), folds=5, seed=1, **kw)
    assert list(cpt.columns) == ["CP", "nsplit", "rel error", "xerror", "xstd"]
    tree = grow_tree(cols_of(X), y, None, Permissible("gini"), **kw)
    pd.testing.assert_frame_equal(cpt[["CP", "nsplit", "rel error"]], tree.cptable)
    assert np.isfinite(cpt["xerror"]).all() and (cpt["xstd"] > 0).all()
    assert cpt["xerror"].iloc[0] == pytest.approx(1.0, abs=0.05)   # the root's CV risk
    again = cp_table_cv(cols_of(X), y, None, Permissible("gini"), folds=5, seed=1, **kw)
    pd.testing.assert_frame_equal(cpt, again)
    cp = one_se_cp(cpt)
    i_min = cpt["xerror"].idxmin()
    row = cpt[cpt["CP"] == cp].iloc[0]
    assert row["xerror"] <= cpt["xerror"][i_min] + cpt["xstd"][i_min]
    assert row["nsplit"] <= cpt["nsplit"][i_min]
    assert int((~tree.prune(cp).is_leaf).sum()) == row["nsplit"]
    mis = cp_table_cv(cols_of(X), y, None, Permissible("gini"), folds=5, seed=1,
                      **dict(kw, risk="misclass"))
    assert 0 < mis["xerror"].min() < 1.2


# ---- prediction and output ---------------------------------------------------------
def test_predict_types_and_capped_links():
    X, y = data(400, seed=12)
    X[:, 0] = np.where(y == 1, X[:, 0] + 10, X[:, 0])    # a pure leaf
    cols = cols_of(X)
    for name in ("gini", "entropy", "matsushita"):
        fam = Permissible(name)
        tree = grow_tree(cols, y, None, fam, max_depth=2, cp=0)
        p = tree.predict(cols)
        link = tree.predict(cols, type="link")
        assert np.isfinite(link).all()
        assert np.any(p == 1.0)
        np.testing.assert_array_equal(tree.predict(cols, type="class"), (p >= 0.5).astype(int))
        np.testing.assert_array_equal(tree.predict(cols, type="leaf"), tree.apply(cols))
        inner = (p > 0) & (p < 1)
        np.testing.assert_allclose(link[inner], fam.dphi(p[inner]), rtol=1e-12)
        if name == "gini":
            assert link[p == 1.0].max() == 1.0            # the bound of the link domain
        else:
            # capped at ∇φ(1 − ε) = −∇φ(ε), ε = 1e-12 (φ is symmetric about 1/2)
            assert link[p == 1.0].max() == pytest.approx(-fam.dphi(1e-12), rel=1e-12)
    with pytest.raises(ValueError, match="type"):
        tree.predict(cols, type="prob")


def test_tree_pickles_without_training_data():
    X, y = data(20000, seed=13)
    tree = grow_tree(cols_of(X), y, None, Permissible("matsushita"), max_depth=4)
    blob = pickle.dumps(tree)
    assert len(blob) < 50_000                             # no per-row arrays inside
    back = pickle.loads(blob)
    np.testing.assert_array_equal(back.predict(cols_of(X[:50])), tree.predict(cols_of(X[:50])))
    pd.testing.assert_frame_equal(back.frame, tree.frame)


def test_listing_importance_and_plot():
    X, y = data(500, seed=14)
    tree = grow_tree(cols_of(X), y, None, Permissible("gini"), max_depth=3, cp=0.01)
    from ubreg.summary.tree_listing import listing
    text = listing(tree, labels=("neg", "pos"))
    assert "node), split, n, loss, yval, (yprob)" in text and " 1) root 500 " in text
    assert text.count(" *\n") == int(tree.is_leaf.sum())
    imp = tree.variable_importance
    internal = tree.frame[~tree.frame["is_leaf"]]
    # rpart's: the primary splits' improvements (in its units: half of ubreg's for gini)
    # plus the surrogates' shares (tests/test_rpart_predict.py compares with R)
    primary = 0.5 * internal.groupby("var")["improve"].sum()
    sur = tree.surrogates.merge(internal[["node", "improve"]], on="node")
    assert imp.sum() == pytest.approx(primary.sum() + 0.5 * (sur["improve"] * sur["adj"]).sum())
    assert (imp[primary.index] >= primary - 1e-12).all()
    ax = plot_tree(tree)
    assert len(ax.texts) >= tree.n_nodes
    import matplotlib.pyplot as plt
    plt.close("all")


def test_frame_columns_and_numbering():
    X, y = data(800, seed=15)
    tree = grow_tree(cols_of(X), y, None, Permissible("entropy"), max_depth=4, cp=0)
    f = tree.frame
    for col in ("node", "var", "is_leaf", "threshold", "left_levels", "n", "weight", "yprob",
                "risk", "link", "improve", "complexity", "depth"):
        assert col in f
    # rpart order: depth first, left child first; children of k are 2k and 2k + 1
    assert f["node"].iloc[0] == 1
    for i in range(1, len(f)):
        assert f["parent"].iloc[i] == f["node"].iloc[i] // 2
    internal = f[~f["is_leaf"]].set_index("node")
    by_node = f.set_index("node")
    for k, row in internal.iterrows():
        assert by_node.loc[2 * k, "n"] + by_node.loc[2 * k + 1, "n"] == row["n"]
        assert by_node.loc[2 * k, "yprob"] <= by_node.loc[2 * k + 1, "yprob"]
    assert (f["n"][f["is_leaf"]] >= 7).all()


def test_bad_input_raises():
    X, y = data(50, seed=16)
    fam = Permissible("gini")
    with pytest.raises(ValueError, match="rows"):
        grow_tree(cols_of(X[:40]) + cols_of(X[:, :1], ["z"]), y, None, fam)
    with pytest.raises(ValueError, match="shape"):
        grow_tree(cols_of(X), y[:10], None, fam)
    with pytest.raises(ValueError, match="0 and 1"):
        grow_tree(cols_of(X), y + 1, None, fam)
    with pytest.raises(ValueError, match="non-negative"):
        grow_tree(cols_of(X), y, -np.ones(50), fam)
    with pytest.raises(ValueError, match="min_leaf"):
        grow_tree(cols_of(X), y, None, fam, min_leaf=0)
    with pytest.raises(ValueError, match="max_depth"):
        grow_tree(cols_of(X), y, None, fam, max_depth=63)
    with pytest.raises(ValueError, match="codes"):
        grow_tree([TreeColumn("g", "categorical", np.array([0, 5] * 25), ["a", "b"])], y, None,
                  fam)
