"""Running the analysis tasks: in this process, on a local process pool, or on a Dask cluster
(hub_engine.executors, with the analysis worker's `run_task`).

The pool's workers keep one Engine per variant (hub_engine.analysis.worker).
"""
from __future__ import annotations

from typing import Iterable

from hub_engine import executors
from hub_engine.analysis.worker import Analyser, run_task
from hub_engine.executors import CLUSTER_HINT, IN_FLIGHT, Results, connect  # noqa: F401


def run_inline(tasks: Iterable[dict], limits: dict, analyser: Analyser | None) -> Results:
    return executors.run_inline(tasks, run_task, limits, analyser)


def run_pool(tasks: Iterable[dict], limits: dict, analyser: Analyser | None,
             workers: int) -> Results:
    """A local process pool, a few tasks in flight per worker."""
    return executors.run_pool(tasks, run_task, (limits, analyser), workers)


def run_dask(tasks: Iterable[dict], limits: dict, analyser: Analyser | None, client) -> Results:
    """Hand the tasks to a Dask cluster, a few per worker thread at a time."""
    return executors.run_dask(tasks, run_task, (limits, analyser), client)
