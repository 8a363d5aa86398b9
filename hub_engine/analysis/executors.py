"""Running the tasks: in this process, on a local process pool, or on a Dask cluster.

Each executor takes the tasks as an iterator and yields (task, result) pairs as results come
(not in input order). Only a few tasks per worker are in flight at a time, so tasks are made
from the input only as workers need them and Ctrl-C stays quick. The pool's workers keep one
Engine per variant and exit when the main process dies, even by `kill -9`
(hub_engine.lifetime). A Dask cluster needs the optional extra `pip install
'hub-engine[cluster]'`.
"""
from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Iterable, Iterator

from hub_engine.analysis.worker import Analyser, run_task
from hub_engine.lifetime import exit_with_parent

IN_FLIGHT = 2               # tasks handed to each worker at a time
CLUSTER_HINT = "pip install 'hub-engine[cluster]'"

Results = Iterator[tuple[dict, dict]]


def run_inline(tasks: Iterable[dict], limits: dict, analyser: Analyser | None) -> Results:
    for t in tasks:
        yield t, run_task(t, limits, analyser)


def run_pool(tasks: Iterable[dict], limits: dict, analyser: Analyser | None,
             workers: int) -> Results:
    """A local process pool, a few tasks in flight per worker."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=exit_with_parent)
    pending = iter(tasks)
    inflight: dict = {}
    try:
        def fill() -> None:
            while len(inflight) < IN_FLIGHT * workers:
                t = next(pending, None)
                if t is None:
                    return
                inflight[pool.submit(run_task, t, limits, analyser)] = t

        fill()
        while inflight:
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            for f in done:
                t = inflight.pop(f)
                try:
                    res = f.result()
                except Exception as exc:       # a worker died (killed, out of memory)
                    res = {"error": f"worker failed: {type(exc).__name__}: {exc}"}
                yield t, res
            fill()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask():
    try:
        import distributed
    except ImportError:
        raise RuntimeError("a Dask scheduler needs the optional dependency dask.distributed: "
                           f"{CLUSTER_HINT}") from None
    return distributed


def connect(scheduler):
    """A distributed.Client for a scheduler address (or the Client given); RuntimeError if not."""
    distributed = _dask()
    if not isinstance(scheduler, str):
        return scheduler
    try:
        return distributed.Client(scheduler)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None


def run_dask(tasks: Iterable[dict], limits: dict, analyser: Analyser | None, client) -> Results:
    """Hand the tasks to a Dask cluster through a distributed.Client, a few per worker thread
    at a time."""
    distributed = _dask()
    try:
        window = IN_FLIGHT * max(4, sum(client.nthreads().values()))
    except Exception as exc:
        raise RuntimeError(f"cannot reach the Dask cluster: {exc}") from exc
    pending = iter(tasks)
    inflight: dict = {}
    stream = distributed.as_completed()

    def fill() -> None:
        while len(inflight) < window:
            t = next(pending, None)
            if t is None:
                return
            try:
                f = client.submit(run_task, t, limits, analyser, pure=False)
            except Exception as exc:
                raise RuntimeError(f"cannot hand a task to the Dask cluster: {exc}") from exc
            inflight[f.key] = t
            stream.add(f)

    fill()
    if not inflight:
        return
    for f in stream:
        t = inflight.pop(f.key)
        try:
            res = f.result()
        except Exception as exc:
            res = {"error": f"cluster task failed: {type(exc).__name__}: {exc}"}
        f.release()
        yield t, res
        fill()
