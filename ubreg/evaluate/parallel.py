"""Independent in-memory fits spread over a Dask scheduler.

Cross-validation folds (``ubreg.cv(..., scheduler=client)``) and candidate
models (:func:`fit_models`, for :func:`ubreg.compare`) are independent fits of
in-memory data.  Each runs unchanged on a worker; the fold split, the seeds
and the scoring stay on the client, so the results are identical to the
sequential ones.  Warnings a fit raises on a worker are recorded there and
re-issued on the client in task order, each distinct warning of a task once,
prefixed with the task's label (``"fold 3: ..."``) — exactly as ``ubreg.cv``
re-issues the warnings of its sequential folds (the policy of
:mod:`ubreg.numerics.warnings`, safe when several fits of one process run in
threads).
"""
from __future__ import annotations

from ..dask import require_dask
from ..numerics.warnings import record_warnings, reissue_warnings

__all__ = ["fit_folds", "fit_models", "run_tasks"]


def _fit_recording(data, rows, formula, weights, fit_kw):
    from ..methods.fit import fit
    frame = data if rows is None else data.iloc[rows]
    with record_warnings() as caught:
        model = fit(formula, frame, weights=weights, **fit_kw)
    return model, caught


def _is_client(scheduler) -> bool:
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(scheduler, Client)


def run_tasks(scheduler, data, tasks: list, labels=None) -> list:
    """Run ``_fit_recording(data, *task)`` for every task on ``scheduler``.

    Parameters
    ----------
    scheduler : distributed.Client or str
        A client (the data are scattered to the workers once) or a name of a
        local dask scheduler (``"threads"``, ``"processes"``, ``"sync"``).
    data : pandas.DataFrame
    tasks : list of tuples (rows, formula, weights, fit_kw)
    labels : list of str, optional
        One per task: the prefix of its re-issued warnings
        (:func:`ubreg.numerics.warnings.reissue_warnings`).

    Returns
    -------
    list of fitted results, in the order of ``tasks``.
    """
    require_dask()
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
    for i, (model, caught) in enumerate(outcomes):
        reissue_warnings(caught, None if labels is None else labels[i])
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
    return run_tasks(scheduler, frame, tasks,
                     labels=[f"fold {k + 1}" for k in range(len(train_positions))])


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
    >>> from ubreg.evaluate.parallel import fit_models
    >>> fits = fit_models({"a": {"formula": "y ~ x"},                       # doctest: +SKIP
    ...                    "b": {"formula": "y ~ x", "family": "gini"}},
    ...                   data, scheduler=client)
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
    return dict(zip(candidates, run_tasks(scheduler, data, tasks, labels=list(candidates))))
