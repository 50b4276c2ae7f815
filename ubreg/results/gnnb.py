"""The fitted leveraged k-NN rule of GNNB / UNN (multiclass, one-vs-rest).

h_c(x) = Σ_{j ∈ kNN(x)} α_jc y_jc (Algorithm 1, output; eq. 16) and the
per-class posterior p̂_c(x) = ∇φ⁻¹(h_c(x)) (eq. 5).

Multiclass posteriors.  The C one-vs-rest posteriors need not sum to one;
``predict(type="response")`` clips each to [0, 1] (gini's posterior can leave
it) and divides by their row sum (uniform when all are 0).  ``type="class"``
is the class of largest h_c (equivalently of largest p̂_c); ties go to the
first level.  With ``blocks > 1`` (Section 6.4) the clipped per-block
posteriors are averaged first; the link is then ∇φ of the averaged posterior.

Two classes.  A two-class fit predicts as every binary result: ``response``
is P(y = second level) (the normalised posterior of that class, a Series),
``link`` its link ∇φ(p̂) (p̂ clipped to [1e-12, 1 − 1e-12]) and ``class`` the
second level iff p̂ ≥ 1/2.

Training predictions (``predict()`` without newdata) use the training
neighbourhoods, where an example is not its own neighbour; passing the
training data as ``newdata`` treats each row as a new point, which is its own
nearest neighbour.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._version import __version__
from ..design import as_frame
from ..families import PermissibleFamily
from ..fitters.gnnb.fitter import LeverageFit, lemma3_optimal_risk, surrogate_risk
from ..fitters.gnnb.graph import NeighbourGraph, graph_neighbours
from ..fitters.gnnb.neighbours import NeighbourIndex
from .base import Capabilities, Provenance, Result, check_predict_type, class_series

if TYPE_CHECKING:
    from ..design import Design, Response
    from ..fitters.gnnb.preprocess import Preprocessor
    from ..summary.gnnb import GNNBSummary

__all__ = ["BlockModel", "GNNBResult"]

#: the clip of a two-class posterior before its link ∇φ(p̂)
_LINK_EPS = 1e-12


@dataclass
class BlockModel:
    """One leveraged k-NN rule: its training points (in the fit's canonical
    row order, ``GNNBResult.order``) and α∘y (m, C) in the same order."""

    index: NeighbourIndex
    leverage: np.ndarray
    fit: LeverageFit


class GNNBResult(Result):
    """A fitted GNNB (or UNN) model.

    Attributes
    ----------
    formula, family, method, call : the model as specified
    classes : list
        Class levels; the columns of ``predict(type="response")``.
    k, epsilon, T, chooser : the options of Algorithm 1
    nobs : int
        Observations: the rows used; with frequency weights (``freq_weights=``)
        Σ w, with prior weights (``weights=``) the rows of non-zero weight, as
        every method counts them.  Either way the fit repeats each row by its
        integer weight (``n_training_rows`` copies).  ``n_dropped``: rows
        dropped for NA.
    weighted_rows : int or None
        With frequency weights, the number of data rows before repetition.
    alpha : DataFrame (m, C)
        Leveraging coefficients α_jc (first block with ``blocks > 1``).
    n_updates : Series
        ℓ(T, c), weight updates per class (Theorem 4), summed over the blocks
        with ``blocks > 1``.
    n_capped : int
        UNN steps capped at ±delta_max (0 for GNNB), summed over blocks.
    y, weights : ndarray
        Class codes 0..C−1 (in the order of ``classes``) and weights (1) of
        the training rows, one per copy of a repeated row.
    """

    capabilities = Capabilities(has_training_rows=True, is_multiclass=True)
    family: PermissibleFamily           # GNNB leverages on φ (the fit checks it)
    _unpickled = ("class_table", "hamming_risk", "training_accuracy", "graph_link")
    graph_link: tuple[NeighbourGraph, np.ndarray] | None = None     # dropped by pickling

    def __init__(self, *, method: str, formula: str, family: PermissibleFamily, call: str,
                 design: Design, response: Response, preprocessor: Preprocessor,
                 blocks: list[BlockModel], codes: np.ndarray, Y: np.ndarray, k: int,
                 epsilon: float, T: int, chooser: str, index: pd.Index, n_input: int,
                 dropped: pd.Index, na_factors: Iterable[str] = (),
                 fit_seconds: float = float("nan"), order: np.ndarray | None = None,
                 weighted_rows: int | None = None, positive_rows: int | None = None,
                 graph_link: tuple[NeighbourGraph, np.ndarray] | None = None,
                 weight_kind: str = "prior", provenance: Provenance | None = None) -> None:
        self.method = method
        self.weight_kind = weight_kind
        self.provenance = provenance
        self.formula = formula
        self.family = family
        self.call = call
        self.design = design
        if len(response.levels) == 2 and response.positive is None:
            # two classes: the second level is the positive one, as for every method
            response = replace(response, positive=response.levels[1])
        self.response = response
        self.preprocessor = preprocessor
        self.blocks = blocks
        self.codes = codes
        self.Y = Y
        self.k = k
        self.epsilon = epsilon
        self.T = T
        self.chooser = chooser
        self.index = index
        self.n_input = n_input
        self.dropped = dropped
        self.na_factors = list(na_factors)
        self.fit_seconds = fit_seconds
        #: the canonical (content-determined) order in which the rows were fitted
        self.order = order
        #: with frequency weights: the number of data rows before each was
        #: repeated by its weight (None without weights)
        self.weighted_rows = weighted_rows
        #: with weights: the number of data rows of non-zero weight
        self.positive_rows = positive_rows
        #: (graph, graph row of each training point) of a fit given a neighbour
        #: graph: candidates for predictions on rows of the graph (not pickled)
        self.graph_link = graph_link
        self.ubreg_version = __version__

    # ---- basic facts ------------------------------------------------------
    @property
    def classes(self) -> list:
        return list(self.response.levels)

    @property
    def nobs(self) -> int:
        positive_rows = getattr(self, "positive_rows", None)
        if getattr(self, "weight_kind", "freq") == "prior" and positive_rows is not None:
            return int(positive_rows)
        return len(self.codes)

    @property
    def y(self) -> np.ndarray:
        """Class codes 0..C−1 of the training rows (one per copy of a repeated row)."""
        return np.asarray(self.codes, dtype=float)

    @property
    def weights(self) -> np.ndarray:
        """Weights of the training rows: 1 each, the weights having been applied by
        repeating every row (Algorithm 1 has no example weights)."""
        return np.ones(len(self.codes))

    @property
    def n_training_rows(self) -> int:
        """Rows the fit ran on (each row repeated by its integer weight)."""
        return len(self.codes)

    @property
    def n_dropped(self) -> int:
        return len(self.dropped)

    @property
    def alpha(self) -> pd.DataFrame:
        return pd.DataFrame(self.blocks[0].fit.alpha, index=self.index, columns=self.classes)

    @property
    def n_updates(self) -> pd.Series:
        total = np.sum([b.fit.n_updates for b in self.blocks], axis=0)
        return pd.Series(total, index=self.classes, name="updates")

    @property
    def n_capped(self) -> int:
        return int(sum(b.fit.n_capped for b in self.blocks))

    # ---- prediction -------------------------------------------------------
    def _training_links(self) -> list[np.ndarray]:
        # z = −y h on the training sample (leave-self-out neighbourhoods)
        return [-self.Y * b.fit.z for b in self.blocks]

    def _links_for(self, X: np.ndarray, labels: pd.Index | None = None) -> list[np.ndarray]:
        """h_c of the design rows ``X`` (labelled ``labels``: rows of a neighbour
        graph the fit was given are searched through it, with the same result)."""
        mats = self.preprocessor.transform(X)
        link = self.graph_link
        rows = None if link is None or labels is None else link[0].rows_of(
            labels, self.preprocessor.raw(X), self.preprocessor.column_names)
        out = []
        for B, blk in zip(mats, self.blocks):
            if link is None or rows is None:
                knn = blk.index.query(B, self.k)
            else:
                knn = graph_neighbours(link[0], blk.index, link[1], self.preprocessor.scale,
                                       rows, self.k, Q=B)
            out.append(blk.leverage[knn].sum(axis=1))     # eq. (16)
        return out

    def _scales(self, links: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(link, unnormalised posterior, class code) from per-block links."""
        fam = self.family
        if len(links) == 1:
            h = links[0]
            p = np.clip(fam.posterior_pair(h)[0], 0.0, 1.0)
            return h, p, np.argmax(h, axis=1)
        p = np.mean([np.clip(fam.posterior_pair(h)[0], 0.0, 1.0) for h in links], axis=0)
        with np.errstate(all="ignore"):
            h = np.asarray(fam.dphi(np.clip(p, 1e-300, 1.0 - 1e-16)))    # an array for an array
        return h, p, np.argmax(p, axis=1)

    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "response") -> pd.Series | pd.DataFrame:
        """Predictions for new data (or the training rows).

        Parameters
        ----------
        newdata : DataFrame, optional
            Goes through the stored design, scaling and blocks; rows with NA
            give NA, aligned with ``newdata.index``.
        type : {"response", "link", "class"}
            ``response``: DataFrame of class posteriors, columns = class
            levels, rows summing to 1 (one-vs-rest posteriors ∇φ⁻¹(h_c)
            clipped to [0, 1] and divided by their sum); ``link``: DataFrame
            of h_c; ``class``: the class of largest h_c, a Series of category
            dtype with the class levels.  With two classes, Series as every
            binary result: P(y = second level), its link, its class (module
            notes).
        """
        check_predict_type(type)
        if newdata is None:
            links, index = self._training_links(), self.index
            na = np.zeros(len(index), dtype=bool)
        else:
            newdata = as_frame(newdata, "newdata")
            X, na = self.design.transform(newdata)
            index = newdata.index
            links = (self._links_for(X, index[~na]) if X.shape[0]
                     else [np.zeros((0, len(self.classes)))])
        n, C = len(index), len(self.classes)
        if type == "class" and len(links) == 1 and C > 2:   # largest h_c: no posterior needed
            h, p, cls = links[0], None, np.argmax(links[0], axis=1)
        else:
            h, p, cls = self._scales(links)
        if p is not None:
            tot = p.sum(axis=1, keepdims=True)
            p = np.where(tot > 0, p / np.where(tot > 0, tot, 1.0), 1.0 / C)
        if C == 2:
            assert p is not None                # skipped only with more than two classes
            return self._two_classes(p[:, 1], na, index, type)
        if type == "class":
            codes = np.full(n, -1, dtype=np.int64)
            codes[~na] = cls
            return class_series(self.classes, codes, index)
        full = np.full((n, C), np.nan)
        full[~na] = h if type == "link" else p
        return pd.DataFrame(full, index=index, columns=self.classes)

    def _two_classes(self, p1: np.ndarray, na: np.ndarray, index: pd.Index,
                     type: str) -> pd.Series:
        """A two-class fit's predictions from P(y = second level) of the complete rows."""
        if type == "class":
            codes = np.full(len(index), -1, dtype=np.int64)
            codes[~na] = (p1 >= 0.5).astype(np.int64)
            return class_series(self.classes, codes, index)
        out = np.full(len(index), np.nan)
        if type == "response":
            out[~na] = p1
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                out[~na] = self.family.dphi(np.clip(p1, _LINK_EPS, 1.0 - _LINK_EPS))
        return pd.Series(out, index=index, name=type)

    # ---- training statistics (lazy) ----------------------------------------
    @cached_property
    def class_table(self) -> pd.DataFrame:
        """Per class: rows, ℓ(T, c), one-vs-rest training accuracy, precision,
        recall, F-measure (member iff h_c > 0), surrogate risk (2) and its
        optimum (Lemma 3).  With ``blocks > 1`` the figures are averages over
        the blocks, except ℓ(T, c), which is summed over them.

        The risk is that of the leave-self-out neighbourhoods; the optimum is
        Lemma 3's on the distinct rows of the distance space, each row paired
        with its own labels (the rows are stored in the fit's canonical order,
        ``order``; the labels in input order).  When rows repeat, two
        copies of a row can see each other (but not themselves), take
        different h values, and the risk can fall below that optimum, which
        only binds classifiers that are functions of x."""
        pos = self.Y > 0
        rows = {}
        acc, prec, rec, f1, risk, opt = ([] for _ in range(6))
        for blk, h in zip(self.blocks, self._training_links()):
            pred = h > 0
            tp = (pred & pos).sum(axis=0)
            fp = (pred & ~pos).sum(axis=0)
            fn = (~pred & pos).sum(axis=0)
            acc.append((pred == pos).mean(axis=0))
            with np.errstate(divide="ignore", invalid="ignore"):
                pr = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
                rc = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
                f1.append(np.where(pr + rc > 0, 2 * pr * rc / (pr + rc), 0.0))
            prec.append(pr)
            rec.append(rc)
            risk.append(surrogate_risk(self.family, blk.fit.z))
            # Lemma 3 pairs each row of the block's distance space with its own
            # labels: index.X is in the canonical order, self.Y in input order
            order = getattr(self, "order", None)
            if order is not None:
                opt.append(lemma3_optimal_risk(self.family, blk.index.X, self.Y[order]))
            else:           # pickled before the order was kept: the pairing is unknown
                opt.append(np.full(len(self.classes), np.nan))
        rows["n"] = pos.sum(axis=0)
        rows["updates"] = self.n_updates.to_numpy()
        rows["accuracy"] = np.mean(acc, axis=0)
        rows["precision"] = np.mean(prec, axis=0)
        rows["recall"] = np.mean(rec, axis=0)
        rows["F"] = np.mean(f1, axis=0)
        rows["risk"] = np.mean(risk, axis=0)
        rows["optimum"] = np.mean(opt, axis=0)
        return pd.DataFrame(rows, index=pd.Index(self.classes, name="class"))

    @cached_property
    def hamming_risk(self) -> float:
        """(1/C) Σ_c ε^{0/1}(h_c, c), eq. (12)-(13), on the training sample."""
        return float(1.0 - self.class_table["accuracy"].mean())

    @cached_property
    def training_accuracy(self) -> float:
        """Multiclass accuracy of the largest-h_c rule on the training sample."""
        cls = self._scales(self._training_links())[2]
        return float(np.mean(cls == self.codes))

    def print_lines(self) -> list[str]:
        """The lines of ``print(m)`` (k, T, the classes and the training accuracy)."""
        from ..summary.printed import framed, gnnb_lines
        return framed(self, gnnb_lines(self))

    def summary(self) -> GNNBSummary:
        from ..summary.gnnb import GNNBSummary
        return GNNBSummary(self)
