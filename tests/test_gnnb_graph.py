"""The neighbour graph that ubreg.cv shares across GNNB's folds changes no neighbour.

Every fold standardises with its own moments, so its distances are not the
graph's; the graph only proposes candidates, a bound decides which rows can be
answered from them, and the others are searched as before
(:mod:`ubreg.fitters.gnnb.graph`).  The fits, and so the cross-validated
predictions, must be identical to those without the graph.
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import ubreg
from ubreg.fitters.gnnb.graph import NeighbourGraph, graph_neighbours
from ubreg.fitters.gnnb.neighbours import NeighbourIndex
from ubreg.methods.gnnb import cv_neighbour_graph


def _tied_data(n=600, seed=0, levels=4):
    """Small integer predictors (many exact distance ties) and a categorical one."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, 4)).astype(float)
    X[:, 3] *= 10.0                                   # scales differ across columns
    g = rng.choice(list("abc"), n)
    y = np.where(X[:, 0] + X[:, 1] + (g == "a") + rng.normal(0, 1, n) > 3, "yes", "no")
    return pd.DataFrame({"y": y, "x1": X[:, 0], "x2": X[:, 1], "x3": X[:, 2], "x4": X[:, 3],
                         "g": g})


@pytest.mark.slow
@pytest.mark.parametrize("method, opts", [("gnnb", {}), ("unn", {}),
                                          ("gnnb", {"standardize": False}),
                                          ("gnnb", {"chooser": "largest"})])
def test_cv_with_the_graph_equals_cv_without(method, opts):
    df = _tied_data()
    kw = dict(method=method, k=5, folds=4, seed=3, refit=False, **opts)
    shared = ubreg.cv("y ~ x1 + x2 + x3 + x4 + g", df, **kw)
    plain = ubreg.cv("y ~ x1 + x2 + x3 + x4 + g", df, neighbour_graph=None, **kw)
    np.testing.assert_array_equal(shared.predictions.to_numpy(), plain.predictions.to_numpy())
    pd.testing.assert_frame_equal(shared.folds, plain.folds)


@pytest.mark.slow
def test_multiclass_cv_with_the_graph_equals_cv_without():
    rng = np.random.default_rng(1)
    n = 900
    X = rng.integers(0, 6, size=(n, 5)).astype(float)
    y = np.array(list("pqrs"))[(X[:, 0] + X[:, 1] + rng.integers(0, 3, n)).astype(int) % 4]
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]).assign(y=y)
    kw = dict(method="gnnb", k=7, folds=5, seed=2, refit=False)
    shared = ubreg.cv("y ~ .", df, **kw)
    plain = ubreg.cv("y ~ .", df, neighbour_graph=None, **kw)
    np.testing.assert_array_equal(shared.predictions.to_numpy(), plain.predictions.to_numpy())


def _graph_and_fold(k_graph, k=5, seed=4):
    df = _tied_data(n=500, seed=seed)
    graph = cv_neighbour_graph("y ~ x1 + x2 + x3 + x4", df, None,
                               {"method": "gnnb", "k": k_graph})["neighbour_graph"]
    # a fold whose moments differ much from all the rows': its distances are not the graph's
    train = df.index[(df.x4 > 0) | (df.x1 < 2)]
    m = ubreg.fit("y ~ x1 + x2 + x3 + x4", df.loc[train], method="gnnb", k=k,
                  neighbour_graph=graph)
    return df, train, graph, m


@pytest.mark.parametrize("k_graph", [5, 1])
def test_graph_neighbours_equal_the_search(k_graph):
    # k_graph = 1: lists of K_g = 7 for k = 5, so the bound sends many rows to the search
    df, train, graph, m = _graph_and_fold(k_graph)
    assert m.graph_link is not None
    _, rows = m.graph_link
    index = m.blocks[0].index
    scale = m.preprocessor.scale
    np.testing.assert_array_equal(graph_neighbours(graph, index, rows, scale, rows, 5),
                                  index.query(None, 5))
    test = df.index.difference(train)
    X, _ = m.design.transform(df.loc[test])
    Q = m.preprocessor.transform(X)[0]
    qrows = graph.labels.get_indexer(test)
    np.testing.assert_array_equal(graph_neighbours(graph, index, rows, scale, qrows, 5, Q=Q),
                                  index.query(Q, 5))
    plain = ubreg.fit("y ~ x1 + x2 + x3 + x4", df.loc[train], method="gnnb", k=5)
    np.testing.assert_array_equal(m.alpha.to_numpy(), plain.alpha.to_numpy())
    np.testing.assert_array_equal(m.predict(df.loc[test]).to_numpy(),
                                  plain.predict(df.loc[test]).to_numpy())


def test_self_query_of_a_subset_excludes_each_point_only():
    X = np.repeat(np.arange(6.0)[:, None], 3, axis=0)      # every point three times
    index = NeighbourIndex(X)
    own = np.array([4, 0, 17])
    got = index.query(None, 2, own=own)
    np.testing.assert_array_equal(got, index.query(None, 2)[own])
    assert not (got == own[:, None]).any()


def test_a_graph_of_other_values_is_not_used():
    df, train, graph, _ = _graph_and_fold(5)
    changed = df.loc[train].assign(x1=lambda d: d.x1 + 0.5)
    assert ubreg.fit("y ~ x1 + x2 + x3 + x4", changed, method="gnnb", k=5,
                     neighbour_graph=graph).graph_link is None
    relabelled = df.loc[train].set_axis(np.arange(len(train)) + 10_000)
    assert ubreg.fit("y ~ x1 + x2 + x3 + x4", relabelled, method="gnnb", k=5,
                     neighbour_graph=graph).graph_link is None
    other_terms = ubreg.fit("y ~ x1 + x2 + x3", df.loc[train], method="gnnb", k=5,
                            neighbour_graph=graph)
    assert other_terms.graph_link is None


def test_a_pickled_fit_drops_the_graph_and_predicts_the_same():
    df, train, graph, m = _graph_and_fold(5)
    test = df.index.difference(train)
    back = pickle.loads(pickle.dumps(m))
    assert back.graph_link is None
    np.testing.assert_array_equal(back.predict(df.loc[test]).to_numpy(),
                                  m.predict(df.loc[test]).to_numpy())
    inert = pickle.loads(pickle.dumps(graph))
    assert inert.rows_of(df.index, np.zeros((len(df), 4)), graph.column_names) is None


def test_neighbour_graph_must_be_a_graph():
    df = _tied_data(n=100)
    with pytest.raises(ValueError, match="neighbour_graph must be a NeighbourGraph"):
        ubreg.fit("y ~ x1 + x2", df, method="gnnb", k=3, neighbour_graph="all")


def test_a_graph_needs_unique_labels():
    with pytest.raises(ValueError, match="unique row labels"):
        NeighbourGraph(pd.Index([0, 0, 1]), np.zeros((3, 1)), np.zeros((3, 1)), np.ones(1),
                       ["x"], 1)
