"""Threads that play games, each thread with its own engine processes: `match` and `tournament`
both play their games here, so both stop the same way on Ctrl-C, an error or an SPRT decision."""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Callable, Hashable, Iterator, TypeVar

from hub_engine.matches.engines import MatchEngine
from hub_engine.matches.games import GameRecord

Task = TypeVar("Task")
EngineOf = Callable[[Hashable], MatchEngine]


def play_games(tasks: list[Task], new_engine: EngineOf,
               play: Callable[[Task, EngineOf], GameRecord],
               concurrency: int) -> Iterator[tuple[Task, GameRecord]]:
    """Yield (task, record) as the games finish, on `concurrency` threads.

    `play(task, engine)` plays one game, asking `engine(key)` for its engines; each thread
    starts the engine of a key once, with `new_engine(key)` (engines start their processes
    lazily), and keeps it for its later games. Closing the iterator before the end (the
    caller's break, error or Ctrl-C) begins no more games and retires the engines (killed, never
    restarted), so the games under way end at once and are never yielded; the engines are quit
    in every case.
    """
    local = threading.local()
    lock = threading.Lock()
    started: list[MatchEngine] = []
    stop = threading.Event()

    def engine(key: Hashable) -> MatchEngine:
        if not hasattr(local, "engines"):
            local.engines = {}
        if key not in local.engines:
            local.engines[key] = new_engine(key)
            with lock:
                started.append(local.engines[key])
                if stop.is_set():
                    local.engines[key].retire()
        return local.engines[key]

    def one(task: Task) -> GameRecord | None:
        return None if stop.is_set() else play(task, engine)

    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    futures: dict[Future, Task] = {pool.submit(one, t): t for t in tasks}
    finished = False
    try:
        for fut in as_completed(futures):
            rec = fut.result()
            if rec is not None:
                yield futures[fut], rec
        finished = True
    finally:
        stop.set()
        for fut in futures:
            fut.cancel()
        if not finished:
            with lock:
                for e in started:
                    e.retire()
        pool.shutdown(wait=True)
        for e in started:
            e.quit()
