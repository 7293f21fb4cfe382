"""Where the simulations of a sweep run: here, one after the other, or on any
:class:`concurrent.futures.Executor`, with the results put back in the order of the tasks."""

from __future__ import annotations

from typing import Sequence

__all__: list[str] = []


def _check_executor(executor):
    """``None`` or an object with a callable ``submit`` (a :class:`concurrent.futures.Executor`)."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(
            "executor must be None or a concurrent.futures.Executor (an object with "
            f"a submit method), got {type(executor).__name__}"
        )
    return executor


def _run_units(fn, tasks: Sequence[tuple], executor=None, progress: bool = False, desc: str = "") -> list:
    """``[fn(*task) for task in tasks]``, in the order of ``tasks``, on ``executor``.

    ``executor`` is None (run here, one unit after the other) or any
    :class:`concurrent.futures.Executor`: a ``ProcessPoolExecutor``, or
    ``dask.distributed.Client(...).get_executor()`` for a cluster.  Every unit is one
    simulation with its own seed and single-threaded BLAS, and the results are put back in
    the order of ``tasks`` before anything is averaged, so the outcome does not depend on
    the executor nor on the order in which units finish.  With ``progress`` a ``tqdm``
    bar (``tqdm.auto``: a widget in a notebook) shows the units done, the elapsed time and
    an estimate of the time left.  When a unit fails, the units not yet started are
    cancelled and the error is raised.
    """
    tasks = list(tasks)
    results: list = [None] * len(tasks)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc=desc or None, unit="sim", smoothing=0.1)
    try:
        if executor is None:
            for i, t in enumerate(tasks):
                results[i] = fn(*t)
                if bar is not None:
                    bar.update()
        else:
            from concurrent.futures import as_completed

            futures = {executor.submit(fn, *t): i for i, t in enumerate(tasks)}
            try:
                for f in as_completed(futures):
                    results[futures[f]] = f.result()
                    if bar is not None:
                        bar.update()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    finally:
        if bar is not None:
            bar.close()
    return results
