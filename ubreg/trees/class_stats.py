"""rpart's classification statistics of K classes: priors, node risk, class probabilities
and the gini and information impurities (``rpart(method = "class")``, gini.c).

A node holds the weight n_j of each class j (case weights summed).  With priors π_j
(default: the classes' shares f_j of the training weight) each class weight counts
α_j n_j, α_j = π_j / f_j (rpart's "altered prior"; with the default priors α_j = 1):

- the node's class probabilities are p_j = α_j n_j / Σ_l α_l n_l (rpart's ``yprob``);
- its predicted class minimises the expected loss Σ_{l ≠ j} α_l n_l (0/1 loss), the first
  class among equals, and that minimum is the node's risk (rpart's ``dev``);
- a split minimises Σ_children (Σ_j α_j n_j) I(p), with I(p) = Σ_j p_j (1 − p_j) (gini)
  or −Σ_j p_j ln p_j (information); the drop from the node's own value is rpart's
  ``improve``.

rpart's loss matrix (``parms = list(loss = )``) is not offered: the loss is 0/1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ClassWeights", "impurity_sum", "IMPURITIES"]

#: rpart's ``parms = list(split = )`` by the family's name
IMPURITIES = {"gini": "gini", "entropy": "information"}


@dataclass(frozen=True)
class ClassWeights:
    """The priors of K classes and what they alter (see the module notes).

    Attributes
    ----------
    prior : ndarray (K,)
        π_j, summing to 1.
    altered : ndarray (K,)
        α_j = π_j / f_j as gini.c computes it for the split search (rpart's ``aprior``,
        through the sums of its 0/1 loss matrix, so that ties break as in rpart).
    risk_weight : ndarray (K,)
        π_j / f_j as gini.c computes it for the node risks and the cross-validated loss
        (its ``prior`` after the division).  Both are 0 for a class absent from the
        training rows.
    """

    prior: np.ndarray
    altered: np.ndarray
    risk_weight: np.ndarray

    @classmethod
    def of(cls, class_totals: np.ndarray, prior=None) -> ClassWeights:
        """From the training weight of each class (summed in row order) and the priors
        (None: the classes' shares, rpart's default).  Priors must be K non-negative
        numbers summing to 1 (rpart's checks, with a rounding tolerance of 1e-8)."""
        totals = np.asarray(class_totals, dtype=np.float64)
        K = totals.shape[0]
        share = totals / float(np.cumsum(totals)[-1])
        if prior is None:
            pi = share
        else:
            pi = np.asarray(prior, dtype=np.float64).ravel()
            if pi.shape[0] != K:
                raise ValueError(f"prior needs {K} values, one per class of the response, "
                                 f"got {pi.shape[0]}")
            if not np.all(np.isfinite(pi)) or np.any(pi < 0):
                raise ValueError(f"prior must be non-negative, got {pi.tolist()}")
            if abs(pi.sum() - 1.0) > 1e-8:
                raise ValueError(f"prior must sum to 1, got {pi.sum():.10g}")
        # gini.c's giniinit: aprior_i = Σ_j loss[j, i] π_i / (Σ_ij loss[j, i] π_i · f_i)
        aprior, temp = np.zeros(K), 0.0
        for i in range(K):
            for j in range(K):
                v = float(j != i) * pi[i]
                temp += v
                aprior[i] += v
        live = share > 0
        safe = np.where(live, share, 1.0)
        altered = np.where(live, aprior / (temp * safe), 0.0) if K > 1 else np.ones(1)
        return cls(pi, altered, np.where(live, pi / safe, 0.0))

    def probabilities(self, counts: np.ndarray) -> np.ndarray:
        """p_j ∝ π_j n_j / f_j per row of ``counts`` (nodes × K), rpart's ``yprob``; a node
        of no weight gets the priors."""
        a = np.asarray(counts, dtype=np.float64) * self.risk_weight
        total = a.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(total > 0, a / np.where(total > 0, total, 1.0), self.prior)

    def predicted(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class of least expected 0/1 loss, that loss) per row of ``counts``, summed as
        gini.c's ginidev sums it (the first class among equals: rpart's ``yval``, ``dev``)."""
        n = np.atleast_2d(np.asarray(counts, dtype=np.float64))
        K = n.shape[1]
        # loss of predicting i: Σ_j n_j · 1(j ≠ i) · π_j/f_j, a running sum over j
        terms = n[:, None, :] * (1.0 - np.eye(K))[None, :, :] * self.risk_weight
        loss = np.cumsum(terms, axis=2)[:, :, -1]
        best = np.argmin(loss, axis=1)
        value = loss[np.arange(n.shape[0]), best]
        if np.ndim(counts) == 1:
            return best[0], value[0]
        return best, value


def impurity_sum(counts: np.ndarray, altered: np.ndarray, kind: str) -> np.ndarray:
    """(Σ_j α_j n_j) · I(p) for each row of ``counts`` (…, K): rpart's weighted node
    impurity, 0 for an empty node.  ``kind``: "gini" or "information"."""
    a = counts * altered
    total = a.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = a / total[..., None]
        if kind == "gini":
            imp = (p * (1.0 - p)).sum(axis=-1)
        else:
            imp = -(p * np.log(np.where(p > 0, p, 1.0))).sum(axis=-1)
    return np.where(total > 0, total * imp, 0.0)
