"""Metrics against scikit-learn, with weights, ties and several classes."""
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import ubreg
from ubreg.evaluate.metrics import (
    auc,
    brier_score,
    classification_metrics,
    error_rate,
    log_loss,
    metrics_of,
)


@pytest.fixture
def binary():
    rng = np.random.default_rng(3)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(float)
    w = rng.integers(1, 4, size=n).astype(float)
    return y, p, w


def test_binary_metrics_equal_scikit_learn(binary):
    y, p, w = binary
    assert brier_score(y, p, w) == pytest.approx(skm.brier_score_loss(y, p, sample_weight=w))
    assert log_loss(y, p, w) == pytest.approx(skm.log_loss(y, p, sample_weight=w))
    assert auc(y, p, w) == pytest.approx(skm.roc_auc_score(y, p, sample_weight=w))
    assert error_rate(y, p, w) == pytest.approx(
        1 - skm.accuracy_score(y, (p >= 0.5).astype(float), sample_weight=w))


def test_auc_handles_ties_as_half(binary):
    y, p, w = binary
    coarse = np.round(p, 1)                     # many tied scores
    assert auc(y, coarse) == pytest.approx(skm.roc_auc_score(y, coarse))
    assert auc(y, coarse, w) == pytest.approx(skm.roc_auc_score(y, coarse, sample_weight=w))
    assert auc([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]) == 0.5
    assert auc([0, 0, 1], [0.1, 0.2, 0.3]) == 1.0


def test_frequency_weights_equal_duplicated_rows(binary):
    y, p, w = binary
    rep = w.astype(int)
    yd, pd_ = np.repeat(y, rep), np.repeat(p, rep)
    a, b = classification_metrics(y, p, w), classification_metrics(yd, pd_)
    for k in a:
        assert a[k] == pytest.approx(b[k], rel=1e-12)


def test_multiclass_metrics_equal_scikit_learn():
    rng = np.random.default_rng(5)
    n, c = 300, 3
    logits = rng.normal(size=(n, c))
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(c, p=row) for row in P]).astype(float)
    assert log_loss(y, P) == pytest.approx(skm.log_loss(y, P))
    assert auc(y, P) == pytest.approx(skm.roc_auc_score(y, P, multi_class="ovr", average="macro"))
    assert error_rate(y, P) == pytest.approx(1 - skm.accuracy_score(y, P.argmax(axis=1)))
    onehot = np.eye(c)[y.astype(int)]
    assert brier_score(y, P) == pytest.approx(np.mean(((onehot - P) ** 2).sum(axis=1)))


def test_log_loss_is_finite_for_confident_mistakes_and_inputs_are_untouched():
    y = np.array([0.0, 1.0])
    p = np.array([1.0, 0.0])
    y.flags.writeable = False
    p.flags.writeable = False
    assert np.isfinite(log_loss(y, p))
    assert np.array_equal(p, [1.0, 0.0])


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="one row per observation"):
        brier_score([0, 1, 1], [0.2, 0.3])
    with pytest.raises(ValueError, match="non-negative"):
        brier_score([0, 1], [0.2, 0.3], [1, -1])
    with pytest.raises(ValueError, match="finite"):
        auc([0, 1], [np.nan, 0.3])


def test_metrics_of_a_fit_on_training_rows_and_new_data():
    data = ubreg.datasets.load_pima()
    before = data.copy()
    m = ubreg.fit("diabetes ~ glucose + mass", data, family="matsushita")
    train = metrics_of(m)
    y = m.y
    p = m.fitted_values.to_numpy()
    assert train["auc"] == pytest.approx(skm.roc_auc_score(y, p))
    assert train["brier"] == pytest.approx(skm.brier_score_loss(y, p))
    # evaluated on the data it was fitted on (NA rows skipped): the same numbers
    again = metrics_of(m, data)
    for k in train:
        assert again[k] == pytest.approx(train[k])
    pd.testing.assert_frame_equal(data, before)


def test_new_data_without_the_response_is_a_clear_error():
    data = ubreg.datasets.load_pima()
    m = ubreg.fit("diabetes ~ glucose", data)
    with pytest.raises(ValueError, match="no column 'diabetes'"):
        metrics_of(m, data.drop(columns="diabetes"))


def test_metrics_of_with_weights():
    from ubreg.evaluate.metrics import observed_and_posterior
    data = ubreg.datasets.load_pima().dropna(subset=["glucose", "mass"]).reset_index(drop=True)
    data["w"] = np.random.default_rng(5).integers(1, 4, len(data)).astype(float)
    m = ubreg.fit("diabetes ~ glucose + mass", data, weights="w")
    y, p = m.y, m.predict().to_numpy()
    # default: the prior weights; False: ones; an array; on new data a column name
    assert metrics_of(m) == pytest.approx(classification_metrics(y, p, m.weights))
    assert metrics_of(m, weights=False) == pytest.approx(classification_metrics(y, p))
    other = np.linspace(0.5, 2, len(y))
    assert metrics_of(m, weights=other) == pytest.approx(classification_metrics(y, p, other))
    assert metrics_of(m, data) == pytest.approx(classification_metrics(y, p))
    assert metrics_of(m, data, weights="w") == pytest.approx(
        classification_metrics(y, p, data["w"].to_numpy()))
    # rows dropped for NA on new data drop their weights too
    holes = data.copy()
    holes.loc[:9, "glucose"] = np.nan
    yy, pp, ww, _ = observed_and_posterior(m, holes, weights=np.arange(len(holes), dtype=float))
    assert len(yy) == len(ww) == len(holes) - 10 and ww[0] == 10
    with pytest.raises(ValueError, match="one value per row of newdata"):
        metrics_of(m, data, weights=np.ones(5))
    with pytest.raises(ValueError, match="no weights column"):
        metrics_of(m, data, weights="nope")
