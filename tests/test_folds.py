"""ubreg.numerics.folds: the one place fold numbers are drawn."""
import numpy as np
import pytest

from ubreg.numerics.folds import (
    check_folds,
    fold_assignment,
    random_folds,
    stratified_folds,
    xval_groups,
)


@pytest.mark.parametrize("draw", [lambda n, k, s: random_folds(n, k, s),
                                  lambda n, k, s: xval_groups(n, k, s)],
                         ids=["random", "xval"])
def test_unstratified_folds_are_balanced_and_reproducible(draw):
    a, b, c = draw(103, 7, 5), draw(103, 7, 5), draw(103, 7, 6)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    sizes = np.bincount(a, minlength=7)
    assert sizes.sum() == 103 and sizes.max() - sizes.min() <= 1


def test_xval_groups_are_rparts_labels_under_the_inverse_permutation():
    """rpart's sample(rep(1:K)) labels row i with π(i) mod K; random_folds deals
    row π(j) the label j mod K: one is the other under the inverse permutation."""
    n, k, seed = 50, 4, 9
    perm = np.random.default_rng(seed).permutation(n)
    np.testing.assert_array_equal(xval_groups(n, k, seed), perm % k)
    np.testing.assert_array_equal(random_folds(n, k, seed), np.argsort(perm) % k)


def test_fold_assignment_dispatches():
    y = np.r_[np.zeros(30), np.ones(13)]
    np.testing.assert_array_equal(fold_assignment(y, 5, True, 2), stratified_folds(y, 5, 2))
    np.testing.assert_array_equal(fold_assignment(y, 5, False, 2), random_folds(43, 5, 2))


@pytest.mark.parametrize("folds", [1, 0, True, 2.0, "3"])
def test_bad_folds_are_refused(folds):
    with pytest.raises(ValueError, match="integer ≥ 2"):
        check_folds(folds, 10)


def test_more_folds_than_rows_are_refused():
    with pytest.raises(ValueError, match="exceeds the number of rows"):
        stratified_folds(np.zeros(3), 4)
    assert check_folds(np.int64(3), 3) == 3
