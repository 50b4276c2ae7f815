"""R's ``predict(fit, newdata, type = "terms")`` of a linear fit: η split by term.

``predict.lm`` (which ``predict.glm`` calls for ``type = "terms"``): with an intercept,
every column of the design is centred at its mean over the training rows (``avx``,
``colMeans(model.matrix(fit))``, unweighted), and term t's column is
Σ_{j ∈ t} (x_j − avx_j) β̂_j; the intercept is no column, and
``attr(, "constant")`` = Σ_j avx_j β̂_j, so that the row sums plus the constant are η
without the offset.  Without an intercept nothing is centred and the constant is 0.
Aliased (NA) coefficients count as 0, as R leaves them out (its ``piv``).  The offset
is not in any term.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..design import as_frame
from ..design.coding import INTERCEPT
from ..numerics.factor_matrix import matvec, rmatvec

if TYPE_CHECKING:
    from .linear import LinearResult

__all__ = ["predict_terms", "row_positions"]


def predict_terms(model: LinearResult, newdata: pd.DataFrame | None) -> pd.DataFrame:
    """The terms' contributions to η, a column per term (R's term labels), with
    ``attrs["constant"]``.  A missing value in ``newdata`` makes NaN the terms that
    read it (R's ``na.pass``); the training rows are padded as the fit's
    ``na_action`` pads them."""
    beta = np.nan_to_num(model.coef.to_numpy(dtype=float), nan=0.0)
    train = model._training_matrix('predict(type="terms")')
    centre = (rmatvec(train, np.ones(train.shape[0])) / train.shape[0]
              if model.design.has_intercept else np.zeros(beta.size))
    slices = {t: cols for t, cols in model.design.term_slices.items() if t != INTERCEPT}
    if newdata is None:
        columns = {}
        for term, cols in slices.items():
            b = np.zeros_like(beta)
            b[cols] = beta[cols]
            columns[term] = matvec(train, b) - centre @ b
        index = model.index
    else:
        # a missing value makes NaN only the terms that read it, as R's na.pass does
        X = model.design.transform_passing_na(as_frame(newdata, "newdata"))
        columns = {term: (X[:, cols] - centre[cols]) @ beta[cols]
                   for term, cols in slices.items()}
        index = newdata.index
    out = pd.DataFrame(columns, index=index)
    if newdata is None:
        out = _padded(model, out)
    out.attrs["constant"] = float(centre @ beta)
    return out


def _padded(model: LinearResult, frame: pd.DataFrame) -> pd.DataFrame:
    """The training rows reindexed to the input rows under ``na_action="exclude"``
    (R's ``napredict``)."""
    if model.na_action != "exclude" or model.input_index is None:
        return frame
    out = np.full((len(model.input_index), frame.shape[1]), np.nan)
    out[row_positions(model.input_index, frame.index)] = frame.to_numpy()
    return pd.DataFrame(out, index=model.input_index, columns=frame.columns)


def row_positions(full: pd.Index, part: pd.Index) -> np.ndarray:
    """Where the rows of ``part`` (a subsequence of ``full``, in order) sit in ``full``."""
    if full.is_unique:
        return full.get_indexer(part)
    out, i = np.empty(len(part), dtype=np.intp), 0
    for k, label in enumerate(part):
        while full[i] != label:
            i += 1
        out[k], i = i, i + 1
    return out
