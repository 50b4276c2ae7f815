"""GNNB / UNN against the mathematics of paper 002 (Algorithm 1, eq. 9-11, Table 1,
Lemma 3, Theorem 4) and docs/math.md §8."""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from ubreg.families import Permissible
from ubreg.fitters.gnnb.fitter import lemma3_optimal_risk, leverage, surrogate_risk
from ubreg.fitters.gnnb.neighbours import NeighbourIndex, inverse_neighbourhoods

FAMILIES = [("gini", {}), ("entropy", {}), ("entropy2", {}), ("matsushita", {}),
            ("mu", {"mu": 0.3}), ("power", {"v": 0.5}), ("logcosh", {"zeta": -2.0})]
IDS = [name for name, _ in FAMILIES]
LN2 = np.log(2.0)


def _family(name, params):
    return Permissible(name, **params)


def _problem(m=120, C=3, k=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 2))
    y = (np.floor(2 * X[:, 0]) + rng.integers(0, 2, m)) % C      # noisy, learnable
    Y = -np.ones((m, C))
    Y[np.arange(m), y.astype(int)] = 1.0
    knn = NeighbourIndex(X).query(None, k)
    return X, Y, knn


def _reference(knn, Y, fam, eps=0.5, T=None):
    """Algorithm 1 literally: one class at a time, eq. (9), (10), (11) on w."""
    m, C = Y.shape
    T = m if T is None else T
    hs, b = fam.h_star(), fam.b
    inv = [np.flatnonzero((knn == j).any(axis=1)) for j in range(m)]
    alpha = np.zeros((m, C))
    for c in range(C):
        w = np.full(m, 1.0 / (2.0 * b))
        for t in range(T):
            j = t % m
            I = inv[j]  # noqa: E741 - the paper's I
            if I.size == 0:
                continue
            s = Y[I, c] * Y[j, c]
            eta = np.sum(w[I] * s)                                       # (9)
            delta = 2.0 * (1.0 - eps) * eta / (hs * I.size)              # (10)
            w[I] = fam.dphi_inv(-delta * s + fam.dphi(b * w[I])) / b      # (11)
            alpha[j, c] += delta
    return alpha


# ---- Table 1 -------------------------------------------------------------
TABLE1_DELTA = {   # δ_j at ε = 1/2 as a multiple of η/n_j
    "gini": 0.5, "entropy": 4 * LN2, "entropy2": 4 / LN2, "matsushita": 1.0}


def _table1_update(name, w, d, s):
    """Closed-form weight updates of Table 1 (rows A-D)."""
    if name == "gini":                                   # A
        return w - 2 * d * s
    if name == "entropy":
        # B as printed, w/(w ln2 + (1−w) ln2)·e^{δs}, is a misprint (its denominator
        # is just ln 2); (11) with b = ln 2 gives the form below
        return w / (w * LN2 + (1 - w * LN2) * np.exp(d * s))
    if name == "entropy2":                               # C
        return w / (w + (1 - w) * 2.0 ** (d * s))
    r = np.sqrt(w * (2 - w))                             # D (the root covers the sum)
    return 1 - (1 - w + r * d * s) / np.sqrt(1 + d ** 2 * w * (2 - w) + 2 * (1 - w) * r * d * s)


@pytest.mark.parametrize("name", list(TABLE1_DELTA))
def test_table1_delta_is_eq10(name):
    fam = Permissible(name)
    eta, n = 0.37, 7
    generic = 2 * (1 - 0.5) * eta / (fam.h_star() * n)
    assert generic == pytest.approx(TABLE1_DELTA[name] * eta / n, rel=1e-12)


@pytest.mark.parametrize("name", list(TABLE1_DELTA))
def test_table1_weight_update_is_eq11(name):
    fam = Permissible(name)
    b = fam.b
    rng = np.random.default_rng(1)
    w = rng.uniform(0.02, 0.98, 200) / b            # w ∈ (0, 1/b_φ)
    d = rng.normal(scale=0.8, size=200)
    s = rng.choice([-1.0, 1.0], size=200)
    generic = fam.dphi_inv(-d * s + fam.dphi(b * w)) / b
    closed = _table1_update(name, w, d, s)
    if name == "gini":   # the square loss: the same formula also outside [0, 1/b]
        np.testing.assert_allclose(closed, generic, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(closed, generic, rtol=1e-10, atol=1e-12)


def test_h_star_values():
    # H* = 1/(b φ''(1/2)) (docs/math.md §8); π* = b² H*/2 of eq. (43) as in Table 1
    assert Permissible("gini").h_star() == pytest.approx(2.0)
    assert Permissible("matsushita").h_star() == pytest.approx(1.0)
    fam = Permissible("entropy")
    assert fam.b ** 2 * fam.h_star() / 2 == pytest.approx(LN2 / 8)
    assert Permissible("gini").b ** 2 * 2.0 / 2 == pytest.approx(1 / 16)
    # logcosh's φ'' is smallest at the ends of [0, 1], not at 1/2
    lc = Permissible("logcosh", zeta=-2.0)
    assert lc.h_star() > 1.0 / (lc.b * float(lc.d2phi(0.5)))


# ---- the batched loop is Algorithm 1 --------------------------------------
# logcosh is left out: its link domain is bounded, and once −y h leaves it the
# probability-scale recursion (11) clips ∇φ(b w) back into the domain, forgetting
# part of h; the fitter keeps h itself, whose weights ∇φ⁻¹(−y h)/b are eq. (26)
# and the derivatives of the risk (2) that the fitter reports.
@pytest.mark.slow
@pytest.mark.parametrize("name,params", FAMILIES[:-1], ids=IDS[:-1])
def test_fitter_equals_algorithm1(name, params):
    fam = _family(name, params)
    _, Y, knn = _problem(m=90, seed=2)
    for eps, T in ((0.5, None), (0.2, 200)):     # T > m cycles through the examples
        fit = leverage(knn, Y, fam, epsilon=eps, T=T)
        ref = _reference(knn, Y, fam, eps=eps, T=T)
        np.testing.assert_allclose(fit.alpha, ref, rtol=1e-9, atol=1e-11)
        # h_c on the training sample is Σ_{j∈kNN(i)} α_jc y_jc (eq. 16)
        h = (fit.alpha * Y)[knn].sum(axis=1)
        np.testing.assert_allclose(-Y * fit.z, h, atol=1e-10)


def _literal_11(knn, Y, fam, eps, T):
    """(11) iterated on w, its argument clipped into the link's range (past it (11) is
    undefined; gini extends ∇φ⁻¹ linearly, Table 1 row A).  Returns (w, whether some
    argument left the range)."""
    m = Y.shape[0]
    hs, b = fam.h_star(), fam.b
    indptr, indices = inverse_neighbourhoods(knn, m)
    lo, hi = fam.link_domain
    w = np.full(Y.shape, float(fam.posterior_pair(0.0)[0]) / b)
    left = False
    for t in range(T):
        j = t % m
        I = indices[indptr[j]:indptr[j + 1]]  # noqa: E741 - the paper's I
        if I.size == 0:
            continue
        s = Y[I] * Y[j]
        delta = 2.0 * (1.0 - eps) * np.sum(w[I] * s, axis=0) / (hs * I.size)
        arg = -delta * s + fam.dphi(b * w[I])
        left |= bool(np.any((arg < lo) | (arg > hi)))
        w[I] = fam.posterior_pair(arg)[0] / b          # clips (gini: extends linearly)
    return w, left


@pytest.mark.slow
@pytest.mark.parametrize("name,params", [("gini", {}), ("logcosh", {"zeta": -4.0}),
                                         ("tempered", {"t": 0.5})])
def test_bounded_links_depart_from_eq11_as_documented(name, params):
    """What the fitter's docstring says: for a bounded link the weights are
    ∇φ⁻¹(clip(−y h))/b_φ, equal to (11) iterated on w until an argument leaves the
    link's range and different after; gini's linear extension is (11) throughout."""
    from ubreg.fitters.gnnb import fitter
    from ubreg.methods.gnnb import fit_gnnb
    fam = _family(name, params)
    _, Y, knn = _problem(m=60, C=2, seed=4)
    for T, eps in ((12, 0.9), (600, 0.1)):
        fit = leverage(knn, Y, fam, epsilon=eps, T=T)
        w_fit = fam.posterior_pair(fit.z)[0] / fam.b
        w_lit, left = _literal_11(knn, Y, fam, eps, T)
        if name == "gini" or not left:
            np.testing.assert_allclose(w_fit, w_lit, rtol=1e-9, atol=1e-12)
        else:
            assert np.abs(fit.z).max() > fam.link_domain[1]       # z kept beyond the range
            assert np.abs(w_fit - w_lit).max() > 1e-5     # far above rounding
    assert T == 600 and left                                       # the departure was seen
    doc = " ".join(fitter.__doc__.split())
    assert "Bounded links: where the loop departs from (11)" in doc
    assert "w_ic = ∇φ⁻¹(clip(z_ic))/b_φ" in doc
    assert "bounded link" in " ".join(fit_gnnb.__doc__.split())


def test_updates_count_is_sum_of_inverse_neighbourhoods():
    _, Y, knn = _problem(m=80, k=4)
    fit = leverage(knn, Y, Permissible("entropy"))
    assert (fit.n_updates == 80 * 4).all()       # T = m: ℓ(T, c) = Σ_j n_j = m k


# ---- Theorem 4: monotone risk and the per-step guarantee (31)-(32) ---------
@pytest.mark.slow
@pytest.mark.parametrize("name,params", FAMILIES, ids=IDS)
@pytest.mark.parametrize("chooser", ["sequential", "largest"])
def test_risk_never_increases_and_meets_bound(name, params, chooser):
    fam = _family(name, params)
    X, Y, knn = _problem(m=100, seed=3)
    for eps in (0.5, 0.1, 0.9):
        fit = leverage(knn, Y, fam, epsilon=eps, T=150, chooser=chooser, trace=True)
        steps = np.diff(fit.risk_trace, axis=0)
        assert (steps <= 1e-13).all()
        # ε(t+1) − ε(t) ≤ −2ε(1−ε)η²/(H* n_j m)  (eq. 31-32)
        assert (steps <= fit.bound_trace + 1e-13).all()
        # the recorded trace is the risk of the final state
        np.testing.assert_allclose(fit.risk_trace[-1], surrogate_risk(fam, fit.z), atol=1e-12)
    assert fit.risk_trace[0] == pytest.approx(1.0)   # ψ_φ(0) = 1


def _repeated_problem(m=240, C=3, k=5, seed=9):
    """Few distinct points, each repeated with noisy labels: Lemma 3's optimum is
    well above 0, so a risk below it would show."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 5, size=(25, 2)).astype(float)
    X = base[rng.integers(0, 25, m)]
    y = (X[:, 0] + rng.integers(0, 3, m)) % C
    Y = -np.ones((m, C))
    Y[np.arange(m), y.astype(int)] = 1.0
    return X, Y, NeighbourIndex(X).query(None, k)


@pytest.mark.slow
@pytest.mark.parametrize("name,params", FAMILIES, ids=IDS)
@pytest.mark.parametrize("chooser,update", [("sequential", "gnnb"), ("largest", "gnnb"),
                                            ("sequential", "unn")])
def test_risk_of_the_rule_never_below_lemma3(name, params, chooser, update):
    # Lemma 3 bounds every classifier that is a function of x; the fitted rule
    # h_c(x) = Σ_{j ∈ kNN(x)} α_jc y_jc (eq. 16, a training point being its own
    # nearest neighbour) is one, on data where the bound is far from 0
    fam = _family(name, params)
    X, Y, knn = _repeated_problem()
    opt = lemma3_optimal_risk(fam, X, Y)
    assert (opt > 0.1).all()
    for T in (50, 240, 720):
        fit = leverage(knn, Y, fam, T=T, chooser=chooser, update=update)
        h = (fit.alpha * Y)[NeighbourIndex(X).query(X, 5)].sum(axis=1)
        risk = surrogate_risk(fam, -Y * h)
        assert (risk >= opt - 1e-12).all()


def test_leave_self_out_risk_can_fall_below_lemma3():
    # two copies of one point with opposite labels, k = 1: each is the other's
    # neighbour, so the leave-self-out margins are not a function of x and both
    # become positive, below Lemma 3's optimum (the risk of p = 1/2: ψ(0) = 1)
    fam = Permissible("entropy")
    X = np.array([[0.0], [0.0], [5.0], [5.0]])
    Y = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, 1.0]])
    knn = NeighbourIndex(X).query(None, 1)
    assert knn.ravel().tolist() == [1, 0, 3, 2]
    fit = leverage(knn, Y, fam)
    opt = lemma3_optimal_risk(fam, X, Y)
    np.testing.assert_allclose(opt, 1.0)
    assert (surrogate_risk(fam, fit.z) < opt - 0.1).all()


def test_gnnb_star_picks_largest_delta():
    _, Y, knn = _problem(m=60, seed=4)
    fam = Permissible("entropy")
    fit = leverage(knn, Y, fam, T=3, chooser="largest")
    indptr, indices = inverse_neighbourhoods(knn, 60)
    n = np.diff(indptr)
    # at t = 0 all weights are 1/(2b): |δ_j| ∝ |Σ y_ic y_jc| / n_j
    for c in range(Y.shape[1]):
        score = [abs(np.sum(Y[indices[indptr[j]:indptr[j + 1]], c] * Y[j, c])) / max(n[j], 1)
                 for j in range(60)]
        assert score[fit.chosen[0, c]] >= max(score) - 1e-12     # ties: up to rounding


# ---- Lemma 3 ----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name,params", FAMILIES, ids=IDS)
def test_lemma3_with_repeated_observations(name, params):
    fam = _family(name, params)
    rng = np.random.default_rng(5)
    base = rng.integers(0, 4, size=(12, 2)).astype(float)
    X = base[rng.integers(0, 12, size=150)]          # many repeated observations
    C = 3
    y = rng.integers(0, C, size=150)
    Y = -np.ones((150, C))
    Y[np.arange(150), y] = 1.0
    got = lemma3_optimal_risk(fam, X, Y)
    # direct: the best free value h per distinct observation, eq. (14), then average
    _, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.ravel()
    lo, hi = fam.link_domain
    lo, hi = max(lo, -40.0), min(hi, 40.0)
    for c in range(C):
        total = 0.0
        for g in np.unique(inv):
            yc = Y[inv == g, c]
            res = minimize_scalar(lambda h, yc=yc: np.sum(fam.F(yc * h)), bounds=(lo, hi),
                                  method="bounded", options={"xatol": 1e-10})
            total += res.fun
        assert got[c] == pytest.approx(total / len(X), abs=2e-6)
    assert (got > 0).all() and (got < 1).all()


# ---- UNN ----------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name,params", FAMILIES, ids=IDS)
def test_unn_zeroes_the_edge(name, params):
    fam = _family(name, params)
    m = 100
    _, Y, knn = _problem(m=m, seed=6)
    fit = leverage(knn, Y, fam, update="unn", trace=True)
    capped = np.abs(fit.deltas) == 10.0
    assert (~capped).sum() > 50
    steps = np.diff(fit.risk_trace, axis=0)
    assert (steps <= 1e-13).all()                # an exact line search never increases risk
    # the edge after step t, recomputed independently: the state after t + 1 steps
    # (a fit with T = t + 1), its weights w = ∇φ⁻¹(−y h)/b_φ (eq. 26), and eq. (9)
    # summed over the inverse neighbourhood of j = t read off knn directly
    for t in range(0, m, 3):
        z = leverage(knn, Y, fam, update="unn", T=t + 1).z
        w = fam.posterior_pair(z)[0] / fam.b
        inv = np.flatnonzero((knn == t).any(axis=1))
        edge = (w[inv] * Y[inv] * Y[t]).sum(axis=0)
        ok = ~capped[t]
        assert (np.abs(edge[ok]) <= 1e-10).all(), (t, edge)
        # a capped step: every inverse neighbour agrees with j (or none disagrees
        # enough): the edge keeps its sign
        assert (edge[~ok] * fit.deltas[t, ~ok] > 0).all()


def test_unn_equals_gnnb_for_the_square_loss():
    # gini: ψ = (1 − x)², Newton with ε = 1/2 is the exact minimiser
    _, Y, knn = _problem(m=80, seed=7)
    fam = Permissible("gini")
    a = leverage(knn, Y, fam, update="unn").alpha
    b = leverage(knn, Y, fam, update="gnnb").alpha
    np.testing.assert_allclose(a, b, atol=1e-10)


# ---- neighbours -----------------------------------------------------------------
def test_neighbours_exclude_self_and_break_ties_by_index():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(200, 2)).astype(float)      # heavy ties and duplicates
    k = 7
    got = NeighbourIndex(X).query(None, k)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    idx = np.arange(200)
    for i in range(200):
        ref = np.lexsort((idx, d2[i]))[:k]
        assert got[i].tolist() == ref.tolist()
    assert not (got == idx[:, None]).any()
    Q = rng.integers(0, 3, size=(30, 2)).astype(float)
    gq = NeighbourIndex(X).query(Q, k)
    dq = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    for i in range(30):
        assert gq[i].tolist() == np.lexsort((idx, dq[i]))[:k].tolist()


def test_inputs_not_modified_and_errors():
    _, Y, knn = _problem(m=50)
    Y0, knn0 = Y.copy(), knn.copy()
    leverage(knn, Y, Permissible("entropy"), chooser="largest", T=20)
    leverage(knn, Y, Permissible("entropy"), update="unn")
    assert np.array_equal(Y, Y0) and np.array_equal(knn, knn0)
    with pytest.raises(ValueError, match="epsilon"):
        leverage(knn, Y, Permissible("entropy"), epsilon=1.0)
    with pytest.raises(ValueError, match="chooser"):
        leverage(knn, Y, Permissible("entropy"), chooser="random")
    with pytest.raises(ValueError, match="T must"):
        leverage(knn, Y, Permissible("entropy"), T=0)


def _brute_knn(X, Q, k, self_query):
    """(distance, index) order by the module's exact formula, all pairs."""
    from ubreg.fitters.gnnb.neighbours import _sq_dist
    m = len(X)
    out = []
    for i in range(len(Q)):
        d2 = _sq_dist(X, Q, np.arange(m), np.full(m, i))
        if self_query:
            d2[i] = np.inf
        out.append(np.lexsort((np.arange(m), d2))[:k])
    return np.array(out)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["ints4", "ints16", "duplicates", "one_point", "scales",
                                  "high_d"])
def test_neighbours_exact_on_near_ties(case):
    # the float32 screen must never lose a point tied (to the last bit) with the
    # k-th neighbour: integer data standardised (LetterRecognition-like) have
    # many such ties, where a library's approximate distances order them
    # arbitrarily ("ints4": scikit-learn's brute kneighbors plus a tie check on
    # its candidates, this module's former search, got 4 rows wrong at k = 10)
    rng = np.random.default_rng(12)
    ks = (1, 7)
    if case == "ints4":
        X = np.random.default_rng(0).integers(0, 10, size=(3000, 4)).astype(float)
        X = (X - X.mean(0)) / X.std(0)
        ks = (10,)
    elif case == "ints16":
        X = rng.integers(0, 6, size=(900, 16)).astype(float)
        X = (X - X.mean(0)) / X.std(0)
    elif case == "duplicates":
        X = np.repeat(rng.normal(size=(40, 3)), 15, axis=0)
    elif case == "one_point":
        X = np.ones((60, 2))
    elif case == "scales":                # float32 too coarse: the float64 screen takes over
        X = np.column_stack([rng.normal(size=400) * 1e6 + 1e9, rng.normal(size=400) * 1e-3])
    else:
        X = rng.normal(size=(200, 300))
    index = NeighbourIndex(X)
    Q = X[rng.integers(0, len(X), 50)] + rng.integers(0, 2, (50, 1)) * 1e-3
    for k in ks:
        assert np.array_equal(index.query(None, k), _brute_knn(X, X, k, True))
        assert np.array_equal(index.query(Q, k), _brute_knn(X, Q, k, False))


@pytest.mark.parametrize("m,d,k", [(2000, 16, 10), (500, 3, 1), (800, 40, 25)])
def test_neighbours_equal_scipy_kdtree_without_ties(m, d, k):
    # on continuous data (no ties) the search must return exactly what a
    # well-kept library returns: scipy's cKDTree, exact float64 distances
    from scipy.spatial import cKDTree
    rng = np.random.default_rng(m + d)
    X = rng.normal(size=(m, d)) * rng.uniform(0.5, 3.0, size=d)
    Q = rng.normal(size=(300, d))
    tree = cKDTree(X)
    _, ref_self = tree.query(X, k=k + 1)
    ref_self = np.asarray(ref_self).reshape(m, k + 1)
    assert np.array_equal(ref_self[:, 0], np.arange(m))            # each point is its nearest
    index = NeighbourIndex(X)
    assert np.array_equal(index.query(None, k), ref_self[:, 1:])
    _, ref_q = tree.query(Q, k=k)
    assert np.array_equal(index.query(Q, k), np.asarray(ref_q).reshape(len(Q), k))


# ---- compiled loops (numba) -------------------------------------------------------
COMPILED_FAMILIES = FAMILIES[:5]          # closed-form posteriors: gini ... mu


def _fit_fields(fit):
    return {f: getattr(fit, f) for f in ("alpha", "z", "deltas", "chosen", "n_updates")}


@pytest.mark.slow
@pytest.mark.parametrize("name,params", COMPILED_FAMILIES, ids=IDS[:5])
@pytest.mark.parametrize("threads", [False, True], ids=["one_thread", "class_blocks"])
def test_compiled_loops_equal_numpy_loops(name, params, threads, monkeypatch):
    # the kernels are the numpy loops' arithmetic, step for step: equal to the last bit,
    # also when the classes are split into blocks run in threads
    from ubreg.fitters.gnnb import fitter, neighbours
    if threads:
        monkeypatch.setattr(fitter, "_THREAD_WORK", 0)
        monkeypatch.setattr(neighbours, "_workers", lambda: 3)
    fam = _family(name, params)
    _, Y, knn = _problem(m=130, C=5, k=6, seed=4)
    runs = [dict(), dict(T=300, epsilon=0.2), dict(chooser="largest", T=60),
            dict(chooser="largest", T=1100, epsilon=0.3)]      # T > 1024: a refresh of S
    for opts in runs:
        fast = leverage(knn, Y, fam, **opts)
        assert fast.extra.get("compiled")
        monkeypatch.setattr(fitter, "COMPILED", False)
        slow = leverage(knn, Y, fam, **opts)
        monkeypatch.setattr(fitter, "COMPILED", True)
        for key, value in _fit_fields(slow).items():
            np.testing.assert_array_equal(_fit_fields(fast)[key], value, err_msg=f"{opts} {key}")


def test_compiled_loop_only_for_closed_forms():
    _, Y, knn = _problem(m=60)
    assert leverage(knn, Y, Permissible("entropy")).extra.get("compiled")
    assert not leverage(knn, Y, Permissible("power", v=0.5)).extra.get("compiled")
    # trace and UNN keep the numpy loop, with the same numbers
    fam = Permissible("matsushita")
    a = leverage(knn, Y, fam)
    b = leverage(knn, Y, fam, trace=True)
    assert not b.extra.get("compiled")
    np.testing.assert_array_equal(a.alpha, b.alpha)


def test_inverse_neighbourhoods_are_stable():
    rng = np.random.default_rng(3)
    for m, n, k in ((50, 50, 4), (40_000, 3_000, 3)):      # 16-bit keys, and beyond
        knn = rng.integers(0, m, size=(n, k))
        indptr, indices = inverse_neighbourhoods(knn, m)
        order = np.argsort(knn.ravel(), kind="stable")
        np.testing.assert_array_equal(indices, order // k)
        np.testing.assert_array_equal(indptr, np.r_[0, np.cumsum(np.bincount(knn.ravel(),
                                                                             minlength=m))])


@pytest.mark.slow
@pytest.mark.parametrize("chunks", [(1, 10**9, 62), (3, 10**9, 62), (3, 50, 62), (8, 1, 62),
                                    (3, 10**9, 0)],
                         ids=["one_per_task", "three_per_task", "flush_on_ties", "flush_always",
                              "lexsort"])
def test_neighbours_same_for_any_chunking(chunks, monkeypatch):
    # screened chunks are ranked in batches (several per task, fewer when they hold
    # many tied candidates): the neighbours never depend on the batching
    from ubreg.fitters.gnnb import neighbours
    rng = np.random.default_rng(13)
    X = np.vstack([np.repeat(rng.normal(size=(20, 3)), 12, axis=0),
                   rng.integers(0, 3, size=(260, 3)).astype(float)])
    Q = X[rng.integers(0, len(X), 70)] + rng.integers(0, 2, (70, 1)) * 1e-3
    monkeypatch.setattr(neighbours, "_SCREEN_FLOATS", 2000)       # many small chunks
    monkeypatch.setattr(neighbours, "_SUPER", chunks[0])
    monkeypatch.setattr(neighbours, "_RANK_PAIRS", chunks[1])
    monkeypatch.setattr(neighbours, "_KEY_BITS", chunks[2])       # 0: np.lexsort instead
    index = NeighbourIndex(X)
    for k in (1, 9):
        assert np.array_equal(index.query(None, k), _brute_knn(X, X, k, True))
        assert np.array_equal(index.query(Q, k), _brute_knn(X, Q, k, False))
