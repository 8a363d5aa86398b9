"""One analysis run: inputs read into tasks, the tasks run, the records written.

    >>> from hub_engine.analysis import analyse
    >>> summary = analyse(["games.pdn"], variant="russian", depth=8, output="games.jsonl")

The pieces: tasks.py (inputs -> tasks), executors.py and worker.py (running them inline, on a
process pool or on Dask), records.py (records, settings, resume), sinks.py and annotate.py
(the output files), progress.py (the bar). When the output already holds records of some
positions (resume), only the others are searched; records of positions the input no longer holds
(a game edited, or read as another variant, or gone from a file read whole) are removed from the
file at the end of the run.
"""
from __future__ import annotations

import os
import sys
import time
from typing import IO, Any, Callable, Iterator

from hub_engine.analysis.executors import connect, run_dask, run_inline, run_pool
from hub_engine.analysis.progress import Progress, stream_for
from hub_engine.analysis.records import engine_id, fingerprint, make_record, settings_key
from hub_engine.analysis.sinks import Annotator, Sink
from hub_engine.analysis.tasks import FORMATS, Reader, source_tasks
from hub_engine.analysis.worker import Analyser
from hub_engine.engine.params import MAX_MULTIPV
from hub_engine.quality import CLASSES
from hub_engine.rules.pdn import PdnError
from hub_engine.rules.variants import Variant, get_variant

DEFAULT_DEPTH = 12          # when no limit at all is given (about 0.06 s of CPU a position)


def default_output(first: str) -> str:
    """The output next to the first input: games.pdn -> games.analysis.jsonl."""
    root, _ext = os.path.splitext(first)
    return f"{root}.analysis.jsonl"


def analyse(inputs: str | os.PathLike | Iterable[str | os.PathLike], variant: str = "brazilian",
            depth: int | None = None, nodes: int | None = None, move_time: float | None = None,
            workers: int | None = None, output: str | os.PathLike | IO[str] | None = None,
            multipv: int = 1,
            pdn_output: str | os.PathLike | IO[str] | None = None, resume: bool = True,
            scheduler: Any = None, progress: bool | Callable[[int, int], None] | None = None,
            fmt: str = "auto", analyser: Analyser | None = None,
            errors_to: IO[str] | None | str = "stderr") -> dict:
    """Analyse every position of the inputs; returns a summary dict (counts of games,
    positions, skipped, analysed and failed, classes, errors, elapsed seconds, the limits).

    inputs: file paths (PDN, FEN lines, Hub lines; `fmt` forces one format). variant: the
    default for games without GameType and for position lines. depth / nodes / move_time: the
    limits of each search (none given: depth DEFAULT_DEPTH). workers: local processes (default
    os.cpu_count(); 1 searches in this process). output: JSON Lines path (default
    FIRST_INPUT.analysis.jsonl, next to the first input), `-` for stdout, or an open text file
    (no resume then). pdn_output: annotated PDN (path or file). resume: reuse the records already
    in the output file (False: start the file afresh). scheduler: a Dask scheduler address
    (`tcp://host:port`) or a distributed.Client. progress: None shows a bar on stderr when it is
    a terminal, True / False force it, a callable gets (done, total so far) after each record.
    analyser(task, limits) -> result replaces the engine (tests). Bad input is printed to
    errors_to (default sys.stderr; None: silent) and listed in the summary's `errors`.
    Output files are checked before any input is read: OutputError names the file, ResumeError
    says the output holds results of other settings.
    """
    if errors_to == "stderr":
        errors_to = sys.stderr
    t0 = time.monotonic()
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    paths = [os.fspath(p) for p in inputs]
    if not paths:
        raise ValueError("no input file")
    if output is None:
        output = default_output(paths[0])
    v = get_variant(variant) if not isinstance(variant, Variant) else variant
    for name, value in (("depth", depth), ("nodes", nodes), ("move_time", move_time)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive, not {value}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
    if depth is None and nodes is None and move_time is None:
        depth = DEFAULT_DEPTH
    if not 1 <= multipv <= MAX_MULTIPV:
        raise ValueError(f"multipv must be from 1 to {MAX_MULTIPV}, not {multipv}")
    limits = {"depth": None if depth is None else int(depth),
              "nodes": None if nodes is None else int(nodes),
              "move_time": None if move_time is None else float(move_time)}
    if multipv > 1:
        limits["multipv"] = int(multipv)
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    engine = engine_id()
    client = connect(scheduler) if scheduler is not None else None   # fail before any work
    sink = ann = None
    try:
        sink = Sink(output, resume, pdn_output is not None, settings_key(limits, engine))
        ann = Annotator(pdn_output) if pdn_output is not None else None
        run = _Run(paths, v, fmt, limits, engine, sink, ann, errors_to, progress)
        return run.go(workers, scheduler, client, analyser, t0)
    finally:
        if sink is not None:
            sink.close()
        if ann is not None:
            ann.abandon()          # nothing left to do after a finished run
        if client is not None and client is not scheduler:
            client.close()


class _Run:
    """One analysis run: the input stream, the executor, the output files, the counts."""

    def __init__(self, paths, v, fmt, limits, engine, sink: Sink, ann: Annotator | None,
                 errors_to, progress):
        self.limits, self.engine, self.sink, self.ann = limits, engine, sink, ann
        self.errors: list[PdnError] = []
        self.errors_to = errors_to
        self.bar = Progress(stream_for(progress))
        self.callback = progress if callable(progress) else None
        self.reader = Reader(paths, v, fmt, self.report)
        self.positions = self.skipped = self.analysed = self.failed = 0
        self.stale: set[tuple[str, int]] = set()
        self.classes = {c: 0 for c in CLASSES}

    def report(self, err: PdnError) -> None:
        self.errors.append(err)
        if self.errors_to is not None:
            self.bar.note(f"hub-engine analyse: {err}", self.errors_to)

    def tasks(self) -> Iterator[dict]:
        """The tasks still to do, made as the executor asks for them; records already in the
        output stand for their positions."""
        done = self.sink.done
        for src in self.reader.sources():
            entry = self.ann.open(src) if self.ann is not None else None
            for t in source_tasks(src):
                self.positions += 1
                key = (t["game"], t["ply"])
                old = done.keys.pop(key, None)
                if old is not None and old[0] == fingerprint(t):
                    self.skipped += 1
                    self._count(old[1])
                    rec = done.records.pop(key, None) if done.records is not None else None
                    if rec is not None and entry is not None:
                        entry.records[t["ply"]] = rec
                    continue
                if old is not None:
                    self.stale.add(key)
                if entry is not None:
                    entry.pending.add(t["ply"])
                yield t
            if entry is not None:
                self.ann.read(entry)

    def _gone(self) -> set[tuple[str, int]]:
        """Keys of the output whose files were read whole but hold no such position any more."""
        files = self.reader.complete
        return {k for k in self.sink.done.keys
                if k[0].rsplit("#", 1)[0] in files or k[0].rsplit(":", 1)[0] in files}

    def _count(self, cls: str | None) -> None:
        if cls in self.classes:
            self.classes[cls] += 1

    def _progress(self, force: bool = False) -> None:
        self.bar.update(self.skipped + self.analysed, self.positions, self.analysed,
                        self.reader.fraction(), force)

    def go(self, workers, scheduler, client, analyser, t0) -> dict:
        tasks = self.tasks()
        if scheduler is not None:
            stream = run_dask(tasks, self.limits, analyser, client)
        elif workers == 1:
            stream = run_inline(tasks, self.limits, analyser)
        else:
            stream = run_pool(tasks, self.limits, analyser, workers)
        interrupted = False
        try:
            self._progress(force=True)
            for task, res in stream:
                self._result(task, res)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if hasattr(stream, "close"):
                stream.close()
            self._progress(force=True)
            self.bar.close()
        if not interrupted:
            self.sink.close()
            self.sink.drop_stale(self.stale | self._gone())
            if self.ann is not None:
                self.ann.finish()
        elapsed = time.monotonic() - t0
        summary = {
            "inputs": self.reader.paths,
            "output": self.sink.name or ("-" if self.sink.f is sys.stdout else None),
            "pdn_output": None if self.ann is None or interrupted else self.ann.name,
            "games": self.reader.games, "positions": self.positions, "skipped": self.skipped,
            "analysed": self.analysed, "failed": self.failed, "interrupted": interrupted,
            "limits": self.limits, "workers": None if scheduler is not None else workers,
            "scheduler": scheduler if isinstance(scheduler, str) else None,
            "elapsed": round(elapsed, 3),
            "positions_per_second": round(self.analysed / elapsed, 3) if elapsed > 0 else None,
            "classes": self.classes, "errors": [e.as_dict() for e in self.errors],
        }
        if interrupted:
            raise AnalysisInterrupted(summary)
        return summary

    def _result(self, task: dict, res: dict) -> None:
        if "error" in res:
            self.failed += 1
            pdn_game = task["kind"] == "pdn"
            where = "" if pdn_game else f"line {task['number']}: "
            self.report(PdnError(task["file"], task["number"] if pdn_game else None,
                                 task.get("label"),
                                 f"{where}ply {task['ply']}: search failed: {res['error']}"))
            if self.ann is not None:
                self.ann.result(task, None)
            return
        rec = make_record(task, res, self.limits, self.engine)
        self.sink.write(rec)
        self.analysed += 1
        self._count(rec["class"])
        if self.ann is not None:
            self.ann.result(task, rec)
        self._progress()
        if self.callback is not None:
            self.callback(self.skipped + self.analysed, self.positions)


class AnalysisInterrupted(KeyboardInterrupt):
    """Ctrl-C during `analyse`: what was finished is in the output; `summary` says how far it got."""

    def __init__(self, summary: dict):
        super().__init__("analysis interrupted")
        self.summary = summary
