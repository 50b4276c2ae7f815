"""Independent in-memory fits spread over a Dask scheduler.

Cross-validation folds (``ubreg.cv(..., scheduler=client)``) and candidate
models (:func:`fit_models`, for :func:`ubreg.compare`) are independent fits of
in-memory data.  Each runs unchanged on a worker; the fold split, the seeds
and the scoring stay on the client, so the results are identical to the
sequential ones.  Warnings a fit raises on a worker are re-issued on the
client, in fold order.
"""
from __future__ import annotations

import warnings

__all__ = ["fit_folds", "fit_models", "run_tasks"]


def _fit_recording(data, rows, formula, weights, fit_kw):
    from ..fit import fit
    frame = data if rows is None else data.iloc[rows]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit(formula, frame, weights=weights, **fit_kw)
    return model, [(w.category, str(w.message)) for w in caught]


def _is_client(scheduler) -> bool:
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(scheduler, Client)


def run_tasks(scheduler, data, tasks: list) -> list:
    """Run ``_fit_recording(data, *task)`` for every task on ``scheduler``.

    Parameters
    ----------
    scheduler : distributed.Client or str
        A client (the data are scattered to the workers once) or a name of a
        local dask scheduler (``"threads"``, ``"processes"``, ``"sync"``).
    data : pandas.DataFrame
    tasks : list of tuples (rows, formula, weights, fit_kw)

    Returns
    -------
    list of fitted results, in the order of ``tasks``.
    """
    if _is_client(scheduler):
        [remote] = scheduler.scatter([data], broadcast=True)
        futures = [scheduler.submit(_fit_recording, remote, *task, pure=False) for task in tasks]
        outcomes = scheduler.gather(futures)
    elif isinstance(scheduler, str):
        import dask
        from dask import delayed
        outcomes = dask.compute(*[delayed(_fit_recording)(data, *task) for task in tasks],
                                scheduler=scheduler)
    else:
        raise TypeError("scheduler must be a distributed.Client or the name of a dask "
                        f"scheduler ('threads', 'processes', 'sync'), got "
                        f"{type(scheduler).__name__}")
    models = []
    for model, caught in outcomes:
        for category, message in caught:
            warnings.warn(message, category, stacklevel=4)
        models.append(model)
    return models


def fit_folds(scheduler, fit, formula, frame, train_positions, weights, fit_kw) -> list:
    """One fit per training part, as ``ubreg.cv`` makes them sequentially:
    ``fit(formula, frame.iloc[train], weights=w[train], **fit_kw)``."""
    del fit  # the workers import ubreg.fit themselves
    tasks = []
    for train in train_positions:
        wk = weights if isinstance(weights, str) or weights is None else weights[train]
        tasks.append((train, formula, wk, dict(fit_kw)))
    return run_tasks(scheduler, frame, tasks)


def fit_models(candidates: dict, data, scheduler) -> dict:
    """Fit several candidate models of the same data on a Dask scheduler.

    Parameters
    ----------
    candidates : dict
        name → keyword arguments of :func:`ubreg.fit` (``formula`` required),
        e.g. ``{"logistic": {"formula": "y ~ .", "family": "entropy"}}``.
    data : pandas.DataFrame
    scheduler : distributed.Client or str

    Returns
    -------
    dict
        name → fitted result, ready for :func:`ubreg.compare`.

    Examples
    --------
    >>> fits = ubreg.dask.fit_models({"a": {"formula": "y ~ x"},            # doctest: +SKIP
    ...                               "b": {"formula": "y ~ x", "family": "gini"}},
    ...                              data, scheduler=client)
    >>> ubreg.compare(fits)                                                 # doctest: +SKIP
    """
    tasks = []
    for name, kw in candidates.items():
        kw = dict(kw)
        if "formula" not in kw:
            raise ValueError(f"candidate {name!r} has no 'formula'")
        formula = kw.pop("formula")
        weights = kw.pop("weights", None)
        tasks.append((None, formula, weights, kw))
    return dict(zip(candidates, run_tasks(scheduler, data, tasks)))
