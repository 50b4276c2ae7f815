"""What the results of fits of Dask frames share: training quantities without the rows.

:class:`DaskResultMixin` stands before the in-memory result class in the bases of
:class:`~ubreg.dask.result.DaskLinearResult`,
:class:`~ubreg.dask.boost_result.DaskUBoostResult` and
:class:`~ubreg.dask.tree_result.DaskTreeResult`.  Such a result holds no training
rows: its counts and log-likelihood are read from the fit's partition-wise sums
(``_stats``), its per-row quantities are lazy dask Series (``_training``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["DaskResultMixin", "RESIDUAL_TYPES", "check_residual_type"]

#: the ``type`` values of ``residuals`` (those of the in-memory results)
RESIDUAL_TYPES = ("deviance", "pearson", "response")


def check_residual_type(type: str) -> None:
    """Raise ``ValueError`` unless ``type`` is one of :data:`RESIDUAL_TYPES`."""
    if type not in RESIDUAL_TYPES:
        raise ValueError(f"type must be 'deviance', 'pearson' or 'response', got {type!r}")


class DaskResultMixin:
    """The training quantities of a result fitted on a Dask frame's partitions.

    ``nobs``, ``n_rows``, ``n_dropped``, ``passes`` and ``loglik`` come from
    ``_stats``, the fit's sums; the fitters name some sums differently, so a
    class sets :attr:`_WSUM`, :attr:`_NPOS` and :attr:`_NROWS` to its fitter's
    keys.  ``fitted_values`` and ``residuals`` are the lazy series
    ``_training("response")`` and ``_training("residuals:<type>")``.
    """

    _stats: dict[str, Any]
    weight_kind: str
    #: the key in ``_stats`` of the sum of the user's weights (n of frequency weights)
    _WSUM: ClassVar[str] = "wsum"
    #: ... of the count of rows of positive weight (n of prior weights)
    _NPOS: ClassVar[str] = "n_positive"
    #: ... of the count of complete rows the fit used
    _NROWS: ClassVar[str] = "n_used"

    def _training(self, what: str) -> dd.Series:
        """A per-row quantity of the training rows, as a lazy dask Series."""
        raise NotImplementedError

    # ---- statistics from the sums ---------------------------------------
    @property
    def nobs(self) -> float:
        if self.weight_kind == "freq":
            return float(self._stats[self._WSUM])
        return float(self._stats.get(self._NPOS, self._stats[self._WSUM]))

    @property
    def n_rows(self) -> int:
        return int(self._stats[self._NROWS])

    @property
    def n_dropped(self) -> int:
        return int(self._stats["n_dropped"])

    @property
    def loglik(self) -> float:
        return float(self._stats["loglik"])

    @property
    def passes(self) -> int:
        """Passes the fit made over the partitions."""
        return int(self._stats["passes"])

    # ---- per-row quantities, lazily ---------------------------------------
    @property
    def fitted_values(self) -> dd.Series:
        """Posterior p̂ᵢ of the training rows (lazy dask Series)."""
        return self._training("response").rename("fitted")

    def residuals(self, type: str = "deviance") -> dd.Series:
        """Residuals of the training rows as the in-memory result defines them, a lazy
        dask Series."""
        check_residual_type(type)
        return self._training(f"residuals:{type}")

    # ---- pickling and printing ----------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __repr__(self) -> str:
        return super().__repr__() + f"\n(fitted on {self._stats['partitions']} Dask partitions)"
