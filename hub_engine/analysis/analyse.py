"""Batch analysis: every position of many games (or position lists) searched by the engine.

    >>> from hub_engine.analysis.analyse import analyse
    >>> summary = analyse(["games.pdn"], variant="russian", depth=8, output="games.jsonl")

Inputs are PDN files (games in any supported variant, picked per game by its GameType tag, the
`variant` argument being the default), files of PDN FEN lines, or files of Hub position strings
(one a line; `#` starts a comment line). See `hub_engine.rules.pdn` for what is read. The files are
read as a stream: a game becomes tasks as soon as it is read, so memory stays flat and the first
results come at once whatever the size of the input.

Each position becomes a task: (game id, ply) is its key. A game id is `FILE#N` for the N-th game
of a PDN file and `FILE:L` for line L of a FEN / Hub file, FILE as given. Each task is searched
with the same limits (depth, nodes or move time) on a fresh transposition table, so at a fixed
depth or node count the result does not depend on which worker ran it or in what order. A
position with no legal move is not searched: the side to move has lost (`result` "loss").

Output is JSON Lines, one object per position, written and flushed as soon as the position is
done (so in the order positions finish, not the input order):

    game      str    game id (see above)
    ply       int    half-moves from the game's start position (0 for position lists)
    label     str?   the record's move label (`12.` / `12...`) for the move played here
    variant   str    variant name
    position  str    Hub position string (33 characters)
    fen       str    PDN FEN in the variant's game-record squares
    side      str    side to move, "white" or "black"
    played    str?   the move the game played here, Hub string in the variant's numbers
    best      str?   the engine's best move (Hub string); null when there is no legal move
    score     float  the best move's score, men, side to move's view (wins: 100 - plies/100)
    pv        [str]  principal variation (Hub strings)
    depth     int    depth of the last reported iteration
    nodes     int    nodes searched for this position (the best-move search)
    played_score float?  the played move's score, mover's view
    loss      float? score - played_score (never below 0), men
    class     str?   "inaccuracy", "mistake", "blunder", or null
    result    str?   "loss" when the side to move has no legal move (score -100), else null
    multipv   [dict] with multipv N > 1 only: the N best moves, best first, each
                     {"move", "score", "pv"} (the first is `best`, `score`, `pv`)
    limits    dict   the search limits: {"depth": ..., "nodes": ..., "move_time": ...} (and
                     "multipv" when above 1)
    engine    str    the program and evaluation that computed it (`hub-engine 0.1.0 eval 1a2b3c4d`)
    time      float  seconds spent on the position (both searches)

The played move's score: when it is the best move (or, with multipv, one of the lines), that
line's score; otherwise the position after it is searched with the same limits (one ply less when a depth is given, so the move is seen to the
same depth as in the first search) and its score negated (a win's ply count moved by one). The two
searches can disagree by a few hundredths in the played move's favour (search noise): the loss is
then 0, never negative.

Classification of a played move by its loss (the thresholds are the module constants below):
loss >= INACCURACY (0.3 men) is an inaccuracy, >= MISTAKE (1.0) a mistake, >= BLUNDER (2.5) a
blunder.

Resume: when the output file exists and `resume` is true, its records are reused, and only
those: a record counts for a position when its key, variant, position and played move are the
position's, and the run refuses (ResumeError, before reading any input) when the file holds
records computed with other limits or by another engine version, since mixing them would make
the file say two things; `resume=False` starts the file afresh. A position whose record no longer
matches the input (the game was edited, or read as another variant) is searched again, and at
the end of the run its old line is removed from the file, as are the lines of positions that the
input files no longer hold. An unfinished last line (no newline, as a
killed run leaves it) is cut off and done again; lines that are not JSON are ignored.

Parallelism: a local process pool (`workers`, default all cores; each worker process keeps one
Engine per variant, and exits when the main process dies, even by `kill -9`), or a Dask
distributed cluster (`scheduler="tcp://host:port"`, optional extra
`pip install 'hub-engine[cluster]'`). A few tasks per worker are in flight at a time.

The annotated PDN (`pdn_output`) is written game by game as each game's positions are done, in
input order, and moved into place at the end of the run; see `write_game` for what it holds.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import sys
import threading
import time
import zlib
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Iterator

from hub_engine import __version__
from hub_engine.rules import pdn
from hub_engine.engine.params import MAX_MULTIPV
from hub_engine.rules.pdn import ByteCount, LinePosition, PdnError, PdnGame, Style
from hub_engine.rules.position import Position
from hub_engine.rules.variants import VARIANTS, Variant, get_variant

INACCURACY = 0.3    # men lost against the best move: an inaccuracy from here
MISTAKE = 1.0       # a mistake from here
BLUNDER = 2.5       # a blunder from here
NAGS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

DEFAULT_DEPTH = 12          # when no limit at all is given (about 0.06 s of CPU a position)
ANALYSIS_TT_LOG2 = 20       # transposition table per worker Engine (cleared for every position)
WIN = 100.0                 # scores at or above WIN - 50 are won games (100 - plies/100)
CLUSTER_HINT = "pip install 'hub-engine[cluster]'"
FORMATS = ("auto", "pdn", "fen", "hub")
IN_FLIGHT = 2               # tasks handed to each worker at a time
PARENT_POLL = 0.5           # seconds between a worker's checks that its parent still lives

Analyser = Callable[[dict, dict], dict]


class OutputError(RuntimeError):
    """An output file cannot be written; the message names it."""


class ResumeError(ValueError):
    """The output file holds records computed with other settings."""


def classify(loss: float | None) -> str | None:
    """inaccuracy / mistake / blunder / None for a score loss in men (see the module docstring)."""
    if loss is None:
        return None
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def negate_score(score: float) -> float:
    """A child position's score seen from the parent's mover: negated, a win one ply further."""
    s = -score
    if abs(s) >= WIN - 50:
        s = s - 0.01 if s > 0 else s + 0.01
    return round(s, 2) + 0.0        # + 0.0: no "-0.0" in the output


def engine_id() -> str:
    """What computed a record: the program's version and a checksum of its evaluation weights
    (the two things besides the limits that change results)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "eval.json")
    try:
        with open(path, "rb") as f:
            crc = f"{zlib.crc32(f.read()):08x}"
    except OSError:
        crc = "unknown"
    return f"hub-engine {__version__} eval {crc}"


# --- inputs -> tasks ---------------------------------------------------------------------------

Source = PdnGame | LinePosition


def game_id(file: str, number: int, kind: str = "pdn") -> str:
    return f"{file}#{number}" if kind == "pdn" else f"{file}:{number}"


def source_id(src: Source) -> str:
    if isinstance(src, PdnGame):
        return game_id(src.file, src.number)
    return game_id(src.file, src.line, src.kind)


def _task(kind: str, file: str, number: int, ply: int, label: str | None, pos: Position,
          played: str | None, start: str, history: list[str]) -> dict:
    """A position to search; `game`, `ply` are its key, `file`, `number` locate it for errors."""
    return {"kind": kind, "file": file, "number": number, "game": game_id(file, number, kind),
            "ply": ply, "label": label, "variant": pos.variant.name,
            "position": pos.hub(), "fen": pos.fen(), "side": pos.side_name, "played": played,
            "start": start, "history": history, "over": not pos.legal_moves()}


def source_tasks(src: Source) -> Iterator[dict]:
    """The tasks of one game or position line, in ply order (none when it is unreadable)."""
    if isinstance(src, LinePosition):
        if src.position is not None:
            yield _task(src.kind, src.file, src.line, 0, None, src.position, None,
                        src.position.hub(), [])
        return
    if src.start is None:
        return
    start = src.start.hub()
    history: list[str] = []
    for ply, pos, move in src.positions():
        played = move.hub() if move is not None else None
        label = src.moves[ply].label if ply < len(src.moves) else None
        yield _task("pdn", src.file, src.number, ply, label, pos, played, start, list(history))
        if played is not None:
            history.append(played)


class Reader:
    """The input files as a stream of games and position lines, in input order; errors go to
    `on_error` as they are met. `fraction()` says how much of the input has been read."""

    def __init__(self, paths: list[str], variant: Variant, fmt: str,
                 on_error: Callable[[PdnError], None]):
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
        self.paths = list(dict.fromkeys(paths))      # a file given twice is read once
        self.variant, self.fmt, self.on_error = variant, fmt, on_error
        self.bytes = ByteCount()
        self.total = sum(_size(p) for p in self.paths)
        self.games = 0
        self.complete: set[str] = set()              # files read to their end

    def fraction(self) -> float:
        return min(1.0, self.bytes.n / self.total) if self.total else 1.0

    def sources(self) -> Iterator[Source]:
        for name in self.paths:
            try:
                kind = pdn.detect_format(name) if self.fmt == "auto" else self.fmt
                lines = pdn.file_lines(name, self.bytes)
                if kind == "pdn":
                    items: Iterator[Source] = pdn.iter_pdn(lines, name, self.variant)
                else:
                    items = pdn.iter_position_lines(lines, name, self.variant, kind)
                for src in items:
                    if isinstance(src, PdnGame):
                        self.games += 1
                        for err in src.errors:
                            self.on_error(err)
                    elif src.error is not None:
                        self.on_error(src.error)
                    yield src
                self.complete.add(name)
            except OSError as exc:
                self.on_error(PdnError(name, None, None, f"cannot read: {exc.strerror or exc}"))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


# --- the search (runs in worker processes) -----------------------------------------------------

_LOCAL = threading.local()     # engines per thread: a Dask worker may run tasks on several threads


def _engine(variant: str):
    """This process's (thread's) Engine for a variant, created once."""
    engines = _LOCAL.__dict__.setdefault("engines", {})
    e = engines.get(variant)
    if e is None:
        from hub_engine.engine import Engine

        e = Engine()
        e.set_param("variant", variant)
        e.set_param("threads", "1")
        e.set_param("tt-size", str(ANALYSIS_TT_LOG2))
        e.init()
        engines[variant] = e
    return e


def _search(e, start: str, history: list[str], limits: dict) -> tuple[Any, list]:
    """The engine's answer and its last full set of lines, best first: the last `info` with
    one line; with multipv, the deepest iteration that reported every line (a time-limited
    search may end in an iteration that reported only its best line)."""
    from protocol import Limits

    e.set_position(start, history)
    infos: list = []
    timer = None
    if limits.get("move_time"):
        timer = threading.Timer(limits["move_time"], e.stop)    # a safety net for the limit
        timer.daemon = True
        timer.start()
    try:
        result = e.search(Limits(depth=limits.get("depth"), nodes=limits.get("nodes"),
                                 move_time=limits.get("move_time")), "analyze", infos.append)
    finally:
        if timer is not None:
            timer.cancel()
    if not infos:
        return result, []
    if e.settings.multipv == 1:
        return result, infos[-1:]
    groups: dict[int, list] = {}
    for info in infos:
        groups.setdefault(info.depth, []).append(info)
    width = max(len(g) for g in groups.values())
    full = [g for g in groups.values() if len(g) == width][-1]
    return result, sorted(full[-width:], key=lambda i: i.multipv or 1)


def engine_analyser(task: dict, limits: dict) -> dict:
    """Search one task with this process's Engine: best move, score, pv (with multipv, the N
    best lines), and the played move's score."""
    e = _engine(task["variant"])
    e.set_param("multipv", str(limits.get("multipv") or 1))
    e.new_game()
    result, lines = _search(e, task["start"], task["history"], limits)
    info = lines[0] if lines else None
    out = {"best": info.pv[0] if info and info.pv else result.move,
           "score": round(info.score, 2) if info and info.score is not None else None,
           "pv": list(info.pv or []) if info else [],
           "depth": info.depth if info else 0,
           "nodes": info.nodes if info else 0,
           "played_score": None,
           "table": e.settings.tables.table_result(e.game)}
    if e.settings.multipv > 1:
        out["multipv"] = [{"move": i.pv[0], "score": round(i.score, 2), "pv": list(i.pv)}
                          for i in lines if i.pv and i.score is not None]
    played = task.get("played")
    if played is None or out["score"] is None:
        return out
    known = {line["move"]: line["score"] for line in out.get("multipv", [])}
    known[out["best"]] = out["score"]
    if played in known:
        out["played_score"] = known[played]
        return out
    child = Position.from_hub(task["variant"], task["position"]).play(played)
    if not child.legal_moves():
        out["played_score"] = round(WIN - 0.01, 2)      # the played move wins at once
        return out
    child_limits = dict(limits)
    if child_limits.get("depth"):
        child_limits["depth"] = max(1, child_limits["depth"] - 1)
    e.set_param("multipv", "1")                        # the played move alone
    _r, clines = _search(e, task["start"], task["history"] + [played], child_limits)
    if clines and clines[0].score is not None:
        out["played_score"] = negate_score(clines[0].score)
    return out


LOST = {"best": None, "score": -WIN, "pv": [], "depth": 0, "nodes": 0, "played_score": None,
        "result": "loss"}


def run_task(task: dict, limits: dict, analyser: Analyser | None = None) -> dict:
    """Worker entry point: the analyser's answer, or {"error": message}; never raises. A
    position with no legal move is lost for the side to move: no search."""
    if task.get("over"):
        return dict(LOST, time=0.0)
    t0 = time.perf_counter()
    try:
        res = (analyser or engine_analyser)(task, limits)
    except Exception as exc:          # reported per task; the run goes on
        return {"error": f"{type(exc).__name__}: {exc}"}
    res = dict(res)
    res["time"] = round(time.perf_counter() - t0, 3)
    return res


def make_record(task: dict, res: dict, limits: dict, engine: str) -> dict:
    """The output line for a task and its search result."""
    score, played_score = res.get("score"), res.get("played_score")
    loss = None
    if task.get("played") is not None and score is not None and played_score is not None:
        loss = round(max(0.0, score - played_score), 2)
    return {"game": task["game"], "ply": task["ply"], "label": task.get("label"),
            "variant": task["variant"], "position": task["position"], "fen": task["fen"],
            "side": task["side"], "played": task.get("played"), "best": res.get("best"),
            "score": score, "pv": list(res.get("pv") or []), "depth": int(res.get("depth") or 0),
            "nodes": int(res.get("nodes") or 0), "played_score": played_score, "loss": loss,
            "class": classify(loss), "result": res.get("result"), "table": res.get("table"),
            **({"multipv": res["multipv"]} if res.get("multipv") else {}),
            "limits": dict(limits), "engine": engine, "time": float(res.get("time") or 0.0)}


def fingerprint(rec: dict) -> tuple:
    """What a record must share with a task to stand for it on resume (besides its key)."""
    return (rec.get("variant"), rec.get("position"), rec.get("played"))


# --- executors ---------------------------------------------------------------------------------

def _run_inline(tasks: Iterable[dict], limits: dict, analyser) -> Iterator[tuple[dict, dict]]:
    for t in tasks:
        yield t, run_task(t, limits, analyser)


def exit_with_parent(use_prctl: bool = True, poll: float = PARENT_POLL) -> None:
    """Make this process end when its parent does, even when the parent is killed (`kill -9`)
    and has no chance to stop it: PR_SET_PDEATHSIG on Linux, and everywhere a thread that
    notices the parent has changed (the orphan was adopted) and exits."""
    parent = os.getppid()
    if use_prctl and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    if parent == 1:             # already an orphan (the parent died while this one started)
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _worker_start() -> None:
    exit_with_parent()


def _run_pool(tasks: Iterable[dict], limits: dict, analyser, workers: int
              ) -> Iterator[tuple[dict, dict]]:
    """A local process pool, a few tasks in flight per worker (Ctrl-C stays quick, and tasks
    are made from the input only as workers need them)."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_importable(_worker_start))
    pending = iter(tasks)
    inflight: dict = {}
    try:
        def fill() -> None:
            while len(inflight) < IN_FLIGHT * workers:
                t = next(pending, None)
                if t is None:
                    return
                inflight[pool.submit(_importable(run_task), t, limits, analyser)] = t

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


def _importable(fn):
    """fn as hub_engine.analysis.analyse's own (not __main__'s under `python -m`): pickled by reference."""
    if fn.__module__ == "__main__":
        import importlib

        return getattr(importlib.import_module("hub_engine.analysis.analyse"), fn.__name__)
    return fn


def _dask():
    try:
        import distributed
    except ImportError:
        raise RuntimeError("a Dask scheduler needs the optional dependency dask.distributed: "
                           f"{CLUSTER_HINT}") from None
    return distributed


def _connect(scheduler):
    """A distributed.Client for a scheduler address (or the Client given); RuntimeError if not."""
    distributed = _dask()
    if not isinstance(scheduler, str):
        return scheduler
    try:
        return distributed.Client(scheduler)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None


def _run_dask(tasks: Iterable[dict], limits: dict, analyser, client
              ) -> Iterator[tuple[dict, dict]]:
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
                f = client.submit(_importable(run_task), t, limits, analyser, pure=False)
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


# --- output, resume, progress ------------------------------------------------------------------

@dataclass
class Done:
    """What an output file already holds: the fingerprint of each key's last record, the
    settings they were computed with, and (when asked for) the records themselves."""

    keys: dict[tuple[str, int], tuple] = field(default_factory=dict)   # -> (fingerprint, class)
    settings: dict[str, int] = field(default_factory=dict)      # json of limits+engine -> count
    records: dict[tuple[str, int], dict] | None = None
    size: int = 0                                               # bytes of complete lines


def _settings(limits: Any, engine: Any) -> str:
    return json.dumps({"limits": limits, "engine": engine}, sort_keys=True)


def read_done(path: str, keep_records: bool = False) -> Done:
    """Records already in an output file; an unfinished last line is cut off the file."""
    done = Done(records={} if keep_records else None)
    if not os.path.isfile(path):          # nothing yet, or a device or pipe: nothing to resume
        return done
    end = 0
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break                            # an unfinished line: cut below
            end += len(raw)
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
                key = (rec["game"], int(rec["ply"]))
            except (ValueError, KeyError, TypeError):
                continue
            done.keys[key] = (fingerprint(rec), rec.get("class"))
            s = _settings(rec.get("limits"), rec.get("engine"))
            done.settings[s] = done.settings.get(s, 0) + 1
            if done.records is not None:
                done.records[key] = rec
    if end < os.path.getsize(path):
        with open(path, "r+b") as f:
            f.truncate(end)
    done.size = end
    return done


def _describe(settings: str) -> str:
    s = json.loads(settings)
    limits = s.get("limits")
    if not isinstance(limits, dict):
        return "unknown settings (written by an older hub-engine)"
    said = ", ".join(f"{k.replace('_', '-')} {v}" for k, v in limits.items() if v is not None)
    return f"{said or 'no limit'}, {s.get('engine')}"


def _open_for_writing(path: str, mode: str, what: str) -> IO[str]:
    """Open an output file, or OutputError naming it and what is wrong; a regular file (or a
    device such as /dev/full) is tried with one byte, taken back, so that a full disk shows now."""
    try:
        f = open(path, mode, encoding="utf-8")
    except OSError as exc:
        parent = os.path.dirname(os.path.abspath(path))
        why = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError) and not os.path.isdir(parent):
            why = f"the directory {parent} does not exist"
        raise OutputError(f"cannot write {what} {path}: {why}") from None
    try:
        st = os.fstat(f.fileno())
        if stat.S_ISREG(st.st_mode) or (stat.S_ISCHR(st.st_mode) and not f.isatty()):
            f.write("\n")
            f.flush()
            if stat.S_ISREG(st.st_mode):
                f.truncate(st.st_size)
                f.seek(st.st_size)
    except OSError as exc:
        try:
            f.close()              # closes the file even though the probe byte cannot go out
        except OSError:
            pass
        raise OutputError(f"cannot write {what} {path}: {exc.strerror or exc}") from None
    return f


class _OutFile:
    """An output file whose every failure is an OutputError naming it."""

    what = "the output"
    name: str | None = None
    f: IO[str]
    close_it = False

    def _fail(self, exc: OSError) -> OutputError:
        return OutputError(f"cannot write {self.what} {self.name or '-'}: {exc.strerror or exc}")

    def _put(self, text: str) -> None:
        try:
            self.f.write(text)
            self.f.flush()
        except OSError as exc:
            raise self._fail(exc) from None

    def _close(self) -> None:
        if self.close_it:
            self.close_it = False
            try:
                self.f.close()
            except OSError as exc:
                raise self._fail(exc) from None


class Sink(_OutFile):
    """The JSON Lines output, opened and checked before any input is read."""

    def __init__(self, output: Any, resume: bool, keep_records: bool, settings: str):
        self.name: str | None = None
        self.close_it = False
        self.done = Done()
        if hasattr(output, "write"):
            self.f = output
            return
        if os.fspath(output) == "-":
            self.f = sys.stdout
            return
        self.name = os.fspath(output)
        if os.path.isdir(self.name):
            raise OutputError(f"cannot write the output {self.name}: it is a directory")
        if resume:
            try:
                self.done = read_done(self.name, keep_records)
            except OSError as exc:
                raise OutputError(f"cannot read the output {self.name} to resume it: "
                                  f"{exc.strerror or exc}") from None
            other = [s for s in self.done.settings if s != settings]
            if other:
                n = sum(self.done.settings[s] for s in other)
                raise ResumeError(
                    f"{self.name} holds {n} records computed with other settings "
                    f"({_describe(other[0])}); this run asks for {_describe(settings)}. "
                    "Start the file afresh with --no-resume, or write to another --output")
        self.f = _open_for_writing(self.name, "a" if resume else "w", "the output")
        self.close_it = True

    def write(self, rec: dict) -> None:
        self._put(json.dumps(rec, separators=(", ", ": ")) + "\n")

    def close(self) -> None:
        self._close()

    def drop_stale(self, stale: set[tuple[str, int]]) -> None:
        """Remove the lines of an earlier run that this run has replaced (its new lines follow)."""
        if not stale or self.name is None or not os.path.isfile(self.name):
            return
        tmp = f"{self.name}.tmp"
        offset = 0
        with open(self.name, "rb") as src, open(tmp, "wb") as dst:
            for raw in src:
                old = offset < self.done.size
                offset += len(raw)
                if old:
                    try:
                        rec = json.loads(raw)
                        if (rec["game"], int(rec["ply"])) in stale:
                            continue
                    except (ValueError, KeyError, TypeError):
                        pass
                dst.write(raw)
        os.replace(tmp, self.name)


class Progress:
    """`done/total positions, input read, rate, ETA` redrawn on one stderr line (when asked to).
    The total grows as the input is read; the ETA extrapolates from the part already read."""

    def __init__(self, stream: IO[str] | None):
        self.stream = stream
        self.t0 = time.monotonic()
        self.last = 0.0
        self.done = self.total = self.new = 0
        self.fraction = 0.0

    def update(self, done: int, total: int, new: int, fraction: float, force: bool = False
               ) -> None:
        self.done, self.total, self.new, self.fraction = done, total, new, fraction
        if self.stream is None:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        elapsed = now - self.t0
        rate = new / elapsed if elapsed > 0 else 0.0
        expected = total / fraction if 0 < fraction < 1 else total
        eta = _clock(max(0.0, expected - done) / rate) if rate > 0 else "--:--"
        width = 24
        filled = int(width * done / expected) if expected else width
        read = "" if fraction >= 1 else f" (input {fraction:.0%} read)"
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                          f"positions{read}  {rate:.2f}/s  ETA {eta} ")
        self.stream.flush()

    def note(self, text: str, out: IO[str]) -> None:
        """Print a line without mixing it into the bar."""
        if self.stream is not None and out is self.stream:
            out.write("\r\033[K")
        print(text, file=out, flush=True)
        if self.stream is not None and out is self.stream:
            self.update(self.done, self.total, self.new, self.fraction, force=True)

    def close(self) -> None:
        if self.stream is not None:
            self.update(self.done, self.total, self.new, 1.0, force=True)
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


# --- annotated PDN -----------------------------------------------------------------------------

def _line_pieces(pos: Position, pv: list[str], number: int, second: bool, style: Style
                 ) -> list[tuple[str, str]]:
    """A pv (Hub strings) as PDN movetext pieces from pos, numbered from the given move: a
    number before each first-mover move, `N...` only when the line starts with the other side."""
    pieces = []
    for i, text in enumerate(pv):
        try:
            mv = pos.parse_move(text)
        except ValueError:
            break
        label = f"{number}." if not second else (f"{number}..." if i == 0 else "")
        pieces.append((label, pdn.write_move(pos, mv, style)))
        pos = pos.play(mv)
        if second:
            number += 1
        second = not second
    return pieces


def _pv_text(pos: Position, pv: list[str], number: int, second: bool, style: Style) -> str:
    return " ".join(f"{label} {text}".strip() for label, text in
                    _line_pieces(pos, pv, number, second, style))


def _verdict(rec: dict, pos: Position, style: Style) -> str:
    """The engine's word on a position: on the played move if there is one, else on the position."""
    def move_text(hub: str | None) -> str | None:
        try:
            return pdn.write_move(pos, pos.parse_move(hub), style) if hub else None
        except ValueError:
            return hub

    if rec.get("result") == "loss":
        return f"{rec.get('side')} has no legal move and has lost"
    best = move_text(rec.get("best"))
    score = rec.get("score")
    parts = []
    if rec.get("played") is not None and rec.get("played_score") is not None:
        if rec["played"] == rec.get("best"):
            parts.append(f"{score:+.2f}, the engine's choice")
        else:
            parts.append(f"{rec['played_score']:+.2f}; best {best} {score:+.2f}")
            if rec.get("class"):
                parts.append(f"{rec['class']}, loss {rec['loss']:.2f}")
    elif score is not None:
        parts.append(f"{score:+.2f} for {rec.get('side')} to move, best {best}")
    if rec.get("table"):
        parts.append(f"endgame table: {rec['table']}")
    parts.append(f"depth {rec.get('depth')}")
    return "; ".join(parts)


def _comment(words: list[str]) -> str:
    return "{" + pdn.comment_text(" / ".join(w for w in words if w)) + "}"


def write_game(tags: dict[str, str], start: Position, moves: list[pdn.RecordMove],
               records: dict[int, dict], style: Style, first_number: int,
               notes: list[str], result: str) -> str:
    """One game as annotated PDN (records by ply), written for every reader met in practice:

    - move numbers only before the first mover's moves (and `N...` for a game that starts with
      the other side), so that no number repeats (pydraughts 0.6.7 misreads repeated numbers);
    - one comment per move, after its variation: the record's own comment and the engine's
      verdict, since CheckerBoard keeps only a move's last comment; a move classified as an
      inaccuracy or worse also gets `?!` / `?` / `??` and the engine's line as a variation; the
      last move's comment also says what the engine thinks of the final position, and notes;
    - a game without moves (a position) gets the engine's line as its moves, the comment after
      the first of them (CheckerBoard drops a comment before the first move; pydraughts stops
      reading a file at a game without moves);
    - moves in the record's notation (see `pdn.Style`).
    """
    if not moves:
        pieces = _position_pieces(start, records.get(0), style, first_number, notes)
    else:
        pieces = _move_pieces(start, moves, records, style, notes)
    pieces.append(("", result))
    return pdn.write_pdn_tags(tags) + "\n" + pdn.movetext(pieces) + "\n\n"


def _position_pieces(pos: Position, rec: dict | None, style: Style, number: int,
                     notes: list[str]) -> list[tuple[str, str]]:
    line = _line_pieces(pos, (rec or {}).get("pv") or [], number, pos.side == 1, style)
    words = list(notes)
    if rec:
        words.append(f"hub-engine: {_verdict(rec, pos, style)}"
                     + ("; the moves are the engine's line" if line else ""))
    return line[:1] + ([("", _comment(words))] if words else []) + line[1:]


def _move_pieces(start: Position, moves: list[pdn.RecordMove], records: dict[int, dict],
                 style: Style, notes: list[str]) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    pos = start
    for ply, rm in enumerate(moves):
        first_mover = not rm.label.endswith("...")
        number = int(rm.label.rstrip("."))
        rec = records.get(ply)
        nag = NAGS.get(rec.get("class")) if rec else None
        label = f"{number}." if first_mover else (f"{number}..." if ply == 0 else "")
        pieces.append((label, pdn.record_text(rm, style) + (nag or "")))
        if rec and rec.get("class") and rec.get("pv"):
            var = _pv_text(pos, rec["pv"], number, not first_mover, style)
            if var:
                pieces.append(("", f"({var})"))
        words = [rm.comment or "", f"hub-engine: {_verdict(rec, pos, style)}" if rec else ""]
        pos = pos.play(rm.move)
        if ply == len(moves) - 1:
            final = records.get(ply + 1)
            if final:
                then = f"then {_verdict(final, pos, style)}"
                if final.get("pv"):
                    n, second = (number, True) if first_mover else (number + 1, False)
                    then += f"; line {_pv_text(pos, final['pv'], n, second, style)}"
                words.append(then)
            words += notes
        if any(words):
            pieces.append(("", _comment(words)))
    return pieces


def source_pdn(src: Source, records: dict[int, dict]) -> str | None:
    """The annotated PDN of a game or position line (None when it has no position)."""
    if isinstance(src, LinePosition):
        if src.position is None:
            return None
        pos = src.position
        tags = {"Event": f"{src.file} line {src.line}", "GameType": str(pos.variant.gametype),
                "SetUp": "1", "FEN": pos.fen(), "Annotator": "hub-engine"}
        return write_game(tags, pos, [], records, Style.default(pos.variant), 1, [], "*")
    if src.start is None:
        return None
    tags = dict(src.tags)
    if "GameType" not in tags:
        tags["GameType"] = str(src.variant.gametype)
    tags["Annotator"] = "hub-engine"
    notes = [f"hub-engine: the record stops being readable here: {e.message}" for e in src.errors]
    return write_game(tags, src.start, src.moves, records, src.style, src.first_number, notes,
                      "*" if not src.moves else (src.result or "*"))


@dataclass
class _Open:
    """A game of the annotated PDN waiting for its positions' records."""

    src: Source
    records: dict[int, dict] = field(default_factory=dict)
    pending: set[int] = field(default_factory=set)
    read: bool = False           # all its tasks are made


class Annotator(_OutFile):
    """Writes the annotated PDN in input order, each game once its positions are done; into
    a temporary file moved into place by `finish` (a regular file), or straight into a stream."""

    what = "the annotated PDN"

    def __init__(self, target: Any):
        self.name: str | None = None
        self.tmp: str | None = None
        self.close_it = False
        if hasattr(target, "write"):
            self.f = target
        else:
            self.name = os.fspath(target)
            direct = os.path.exists(self.name) and not os.path.isfile(self.name)   # a device
            self.tmp = None if direct else f"{self.name}.tmp"
            self.f = _open_for_writing(self.tmp or self.name, "w", "the annotated PDN")
            self.close_it = True
        self.queue: deque[_Open] = deque()
        self.by_id: dict[str, _Open] = {}

    def open(self, src: Source) -> _Open:
        entry = _Open(src)
        self.queue.append(entry)
        self.by_id[source_id(src)] = entry
        return entry

    def read(self, entry: _Open) -> None:
        entry.read = True
        self.flush()

    def result(self, task: dict, rec: dict | None) -> None:
        entry = self.by_id.get(task["game"])
        if entry is not None:
            entry.pending.discard(task["ply"])
            if rec is not None:
                entry.records[task["ply"]] = rec
            self.flush()

    def flush(self) -> None:
        while self.queue and self.queue[0].read and not self.queue[0].pending:
            entry = self.queue.popleft()
            del self.by_id[source_id(entry.src)]
            text = source_pdn(entry.src, entry.records)
            if text:
                self._put(text)

    def finish(self) -> None:
        self.flush()
        self._close()
        if self.tmp is not None:
            os.replace(self.tmp, self.name)

    def abandon(self) -> None:
        """An interrupted run writes no annotated PDN."""
        try:
            self._close()
        except OutputError:
            pass
        if self.tmp is not None and os.path.exists(self.tmp):
            os.remove(self.tmp)


# --- the API -----------------------------------------------------------------------------------

def analyse(inputs: str | os.PathLike | Iterable[str | os.PathLike], variant: str = "brazilian",
            depth: int | None = None, nodes: int | None = None, move_time: float | None = None,
            workers: int | None = None, output: str | os.PathLike | IO[str] | None = None,
            multipv: int = 1,
            pdn_output: str | os.PathLike | IO[str] | None = None, resume: bool = True,
            scheduler: Any = None, progress: bool | Callable[[int, int], None] | None = None,
            fmt: str = "auto", analyser: Analyser | None = None,
            errors_to: IO[str] | None | str = "stderr") -> dict:
    """Analyse every position of the inputs; returns a summary dict (see the module docstring).

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
    client = _connect(scheduler) if scheduler is not None else None   # fail before any work
    sink = ann = None
    try:
        sink = Sink(output, resume, pdn_output is not None, _settings(limits, engine))
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
        show = progress if isinstance(progress, bool) else (progress is None and sys.stderr.isatty())
        self.bar = Progress(sys.stderr if show else None)
        self.callback = progress if callable(progress) else None
        self.reader = Reader(paths, v, fmt, self.report)
        self.positions = self.skipped = self.analysed = self.failed = 0
        self.stale: set[tuple[str, int]] = set()
        self.classes = {c: 0 for c in NAGS}

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
            stream = _run_dask(tasks, self.limits, analyser, client)
        elif workers == 1:
            stream = _run_inline(tasks, self.limits, analyser)
        else:
            stream = _run_pool(tasks, self.limits, analyser, workers)
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


# --- command line (wired into hub_engine.cli by `add_parser` / `run`) -------------------------

def add_parser(subparsers) -> argparse.ArgumentParser:
    """The `analyse` sub-command: call with the `add_subparsers()` object of the main parser."""
    p = subparsers.add_parser(
        "analyse", help="analyse every position of PDN games or position lists",
        description="Search every position of the input files and write one JSON line per "
                    "position (best move, score, pv; for played moves the loss and a "
                    f"classification: inaccuracy >= {INACCURACY}, mistake >= {MISTAKE}, "
                    f"blunder >= {BLUNDER} men).")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="PDN files, files of PDN FEN lines or of Hub position strings")
    p.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS),
                   help="variant of games without GameType tag and of position lines "
                        "(default brazilian)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, help=f"search depth (default {DEFAULT_DEPTH})")
    limit.add_argument("--nodes", type=int, help="nodes per position")
    limit.add_argument("--move-time", type=float, metavar="S", help="seconds per position")
    p.add_argument("--multipv", type=int, default=1, metavar="N",
                   help=f"record the N best moves of each position with their scores and lines "
                        f"(1 to {MAX_MULTIPV}; default 1); a played move outside them is still "
                        f"searched alone")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--output", "-o",
                   help="JSON Lines output, '-' for stdout (default: FIRST_FILE.analysis.jsonl)")
    p.add_argument("--pdn-output", metavar="FILE", help="also write the games annotated as PDN")
    p.add_argument("--report", metavar="HTML",
                   help="also write the HTML report of all the output's records (as "
                        "`hub-engine report OUTPUT -o HTML` does) once the analysis is done")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="start the output afresh instead of reusing the records already in it")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"Dask scheduler (tcp://host:port) instead of local processes "
                        f"(needs {CLUSTER_HINT})")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="auto",
                   help="input format (default auto: by extension .pdn/.fen/.hub, else content)")
    p.set_defaults(handler=run)
    return p


def default_output(first: str) -> str:
    root, _ext = os.path.splitext(first)
    return f"{root}.analysis.jsonl"


def _check_report_path(path: str | None, output: str | None) -> None:
    """`--report` needs an output file to read back, and a directory to write into: said
    before any work is done."""
    if path is None:
        return
    if output == "-":
        raise ValueError("--report needs the records in a file: give --output FILE, not '-'")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write the report {path}: no directory {folder}")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write the report {path}: {folder} is not writable")


def write_run_report(output: str, report: str, inputs: list[str]) -> int:
    """The HTML report of a finished run's records (`--report`); 0, or 1 with a warning."""
    from hub_engine.report import write_report
    from hub_engine.report.records import read_files

    records, bad = read_files([output])
    warnings = write_report(records, report, title=os.path.basename(output), pdn_files=inputs)
    for line in [*bad, *warnings]:
        print(f"hub-engine analyse: warning: {line}", file=sys.stderr)
    return 1 if bad or warnings else 0


def run(args: argparse.Namespace) -> int:
    """Run the `analyse` command: 0 when all went well, 1 when some input or search failed,
    2 for a usage or output error, 130 when interrupted."""
    try:
        _check_report_path(args.report, args.output)
        summary = analyse(args.files, variant=args.variant, depth=args.depth, nodes=args.nodes,
                          move_time=args.move_time, multipv=args.multipv,
                          workers=args.workers, output=args.output,
                          pdn_output=args.pdn_output, resume=args.resume,
                          scheduler=args.scheduler, fmt=args.fmt)
    except AnalysisInterrupted as exc:
        s = exc.summary
        print(f"\nhub-engine analyse: interrupted after {s['analysed']} positions; run the same "
              f"command again to resume ({s['output']})", file=sys.stderr)
        return 130
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"hub-engine analyse: error: {exc}", file=sys.stderr)
        return 2
    if sys.stderr.isatty():
        print(f"hub-engine analyse: {summary['analysed']} positions analysed, "
              f"{summary['skipped']} already done, {summary['failed']} failed, "
              f"{len(summary['errors'])} input errors, {summary['elapsed']:.1f} s -> "
              f"{summary['output']}", file=sys.stderr)
    code = 1 if summary["errors"] else 0
    if args.report:
        try:
            code = max(code, write_run_report(summary["output"], args.report, args.files))
        except (ValueError, OSError) as exc:
            print(f"hub-engine analyse: error: the report {args.report}: {exc}", file=sys.stderr)
            return 2
    return code


def main(argv: list[str] | None = None) -> int:
    """`python -m hub_engine.analysis.analyse ...` (the same as `hub-engine analyse ...`)."""
    parser = argparse.ArgumentParser(prog="hub-engine")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
