"""K-fold splits: every fold number ubreg draws comes from here.

* :func:`stratified_folds` — within each class the rows are shuffled and dealt
  to the folds in turn, continuing across classes: ``ubreg.cv`` (the papers'
  protocol), the inner cross-validation of strategy F* (docs/math.md §6) and
  U-Boost's CV risk path.
* :func:`random_folds` — the rows shuffled and dealt in turn, ignoring the
  classes: ``ubreg.cv(..., stratified=False)``.
* :func:`xval_groups` — rpart's construction for the cross-validated cp table
  of method ``udt`` (docs/math.md §5).

Each takes a ``seed`` (int, None or a NumPy Generator) for
``numpy.random.default_rng`` and draws one permutation per class (or one in
all), so a seed gives the same folds on every platform and version of ubreg.
"""
from __future__ import annotations

import numpy as np

__all__ = ["check_folds", "fold_assignment", "stratified_folds", "random_folds", "xval_groups"]


def check_folds(folds, n: int) -> int:
    """``folds`` as an int, checked: an integer (not a bool) from 2 to the n rows."""
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise ValueError(f"folds must be an integer ≥ 2, got {folds!r}")
    if folds > n:
        raise ValueError(f"folds = {folds} exceeds the number of rows ({n})")
    return int(folds)


def stratified_folds(y, folds: int, seed=None) -> np.ndarray:
    """Fold number (0..folds−1) of every row, each class spread evenly.

    Within each class (in sorted order) the rows are shuffled and dealt to the
    folds in turn, continuing across classes where the previous one stopped:
    every fold holds each class's count to within one and the fold sizes
    differ by at most one.
    """
    y = np.asarray(y)
    folds = check_folds(folds, len(y))
    rng = np.random.default_rng(seed)
    out = np.empty(len(y), dtype=np.int64)
    start = 0
    for cls in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == cls))
        out[idx] = (start + np.arange(idx.size)) % folds
        start += idx.size
    return out


def random_folds(n: int, folds: int, seed=None) -> np.ndarray:
    """Fold number of each of n rows: the rows shuffled and dealt to the folds in
    turn (sizes differ by at most one)."""
    folds = check_folds(folds, n)
    out = np.empty(n, dtype=np.int64)
    out[np.random.default_rng(seed).permutation(n)] = np.arange(n) % folds
    return out


def fold_assignment(y, folds: int, stratified: bool = True, seed=None) -> np.ndarray:
    """Fold number (0..folds−1) of every row: :func:`stratified_folds`, or
    :func:`random_folds` when ``stratified`` is False."""
    if stratified:
        return stratified_folds(y, folds, seed)
    return random_folds(len(np.asarray(y)), folds, seed)


def xval_groups(n: int, folds: int, seed=None) -> np.ndarray:
    """Fold number of each of n rows as rpart's ``xval`` draws them.

    rpart assigns ``sample(rep(1:xval, length = n))``: a random permutation of
    the balanced labels 0, 1, …, K−1, 0, 1, …, so row i gets label π(i) mod K.
    :func:`random_folds` deals the rows in shuffled order instead (row π(j)
    gets j mod K), the inverse permutation: the same distribution of splits,
    but a seed gives different folds.  Both stay as they were so that a seed
    keeps giving the cp tables (and CV results) it gave before.
    """
    folds = check_folds(folds, n)
    return np.random.default_rng(seed).permutation(n) % folds
