"""Batch analysis: every position of many games (or position lists) searched by the engine.

    >>> from hub_engine.analyse import analyse
    >>> summary = analyse(["games.pdn"], variant="russian", depth=8, output="games.jsonl")

Inputs are PDN files (games in any supported variant, picked per game by its GameType tag, the
`variant` argument being the default), files of PDN FEN lines, or files of Hub position strings
(one a line; `#` starts a comment line). See `hub_engine.pdn` for what is read.

Each position becomes a task: (game id, ply) is its key. A game id is `FILE#N` for the N-th game
of a PDN file and `FILE:L` for line L of a FEN / Hub file, FILE as given. Positions with no legal
move (the game is over) are not tasks. Each task is searched with the same limits (depth, nodes or
move time) on a fresh transposition table, so at a fixed depth or node count the result does not
depend on which worker ran it or in what order.

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
    best      str    the engine's best move (Hub string)
    score     float  the best move's score, men, side to move's view (wins: 100 - plies/100)
    pv        [str]  principal variation (Hub strings)
    depth     int    depth of the last reported iteration
    nodes     int    nodes searched for this position (the best-move search)
    played_score float?  the played move's score, mover's view
    loss      float? score - played_score (never below 0), men
    class     str?   "inaccuracy", "mistake", "blunder", or null
    time      float  seconds spent on the position (both searches)

The played move's score: when it is the best move, the same score; otherwise the position after
it is searched with the same limits (one ply less when a depth is given, so the move is seen to the
same depth as in the first search) and its score negated (a win's ply count moved by one). The two
searches can disagree by a few hundredths in the played move's favour (search noise): the loss is
then 0, never negative.

Classification of a played move by its loss (the thresholds are the module constants below):
loss >= INACCURACY (0.3 men) is an inaccuracy, >= MISTAKE (1.0) a mistake, >= BLUNDER (2.5) a
blunder.

Resume: when the output file exists and `resume` is true, the keys already in it are skipped; an
unfinished last line (no newline, as a killed run leaves it) is cut off and done again; lines that
are not JSON are ignored. Results stay in the file: nothing written is lost. The limits are not
part of the key: resume with the same limits.

Parallelism: a local process pool (`workers`, default all cores; each worker process keeps one
Engine per variant), or a Dask distributed cluster (`scheduler="tcp://host:port"`, optional extra
`pip install 'hub-engine[cluster]'`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Iterator

from hub_engine import pdn
from hub_engine.pdn import LinePosition, PdnError, PdnGame
from hub_engine.position import Position
from hub_engine.variants import VARIANTS, Variant, get_variant

INACCURACY = 0.3    # men lost against the best move: an inaccuracy from here
MISTAKE = 1.0       # a mistake from here
BLUNDER = 2.5       # a blunder from here
NAGS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}

DEFAULT_DEPTH = 12          # when no limit at all is given (about 0.06 s of CPU a position)
ANALYSIS_TT_LOG2 = 20       # transposition table per worker Engine (cleared for every position)
WIN = 100.0                 # scores at or above WIN - 50 are won games (100 - plies/100)
CLUSTER_HINT = "pip install 'hub-engine[cluster]'"
FORMATS = ("auto", "pdn", "fen", "hub")

Analyser = Callable[[dict, dict], dict]


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


# --- inputs -> tasks ---------------------------------------------------------------------------

@dataclass
class Inputs:
    """What the input files hold: tasks to search, and what the annotated PDN needs."""

    tasks: list[dict] = field(default_factory=list)
    games: list[PdnGame] = field(default_factory=list)
    lines: list[LinePosition] = field(default_factory=list)
    errors: list[PdnError] = field(default_factory=list)


def _task(kind: str, file: str, number: int, ply: int, label: str | None, pos: Position,
          played: str | None, start: str, history: list[str]) -> dict:
    """A position to search; `game`, `ply` are its key, `file`, `number` locate it for errors."""
    return {"kind": kind, "file": file, "number": number, "game": game_id(file, number, kind),
            "ply": ply, "label": label, "variant": pos.variant.name,
            "position": pos.hub(), "fen": pos.fen(), "side": pos.side_name, "played": played,
            "start": start, "history": history}


def game_id(file: str, number: int, kind: str = "pdn") -> str:
    return f"{file}#{number}" if kind == "pdn" else f"{file}:{number}"


def read_inputs(paths: Iterable[str | os.PathLike], variant: Variant | str = "brazilian",
                fmt: str = "auto") -> Inputs:
    """Read every input file into tasks; bad games / lines are collected in `errors`."""
    v = variant if isinstance(variant, Variant) else get_variant(variant)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
    out = Inputs()
    seen: set[tuple[str, int]] = set()

    def add(task: dict) -> None:
        key = (task["game"], task["ply"])
        if key not in seen:
            seen.add(key)
            out.tasks.append(task)

    for path in paths:
        name = os.fspath(path)
        try:
            with open(name, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as exc:
            out.errors.append(PdnError(name, None, None, f"cannot read: {exc.strerror or exc}"))
            continue
        kind = pdn.detect_format(name, text) if fmt == "auto" else fmt
        if kind == "pdn":
            for g in pdn.read_pdn(text, name, v):
                out.games.append(g)
                out.errors.extend(g.errors)
                if g.start is None:
                    continue
                start = g.start.hub()
                history: list[str] = []
                for ply, pos, move in g.positions():
                    if not pos.legal_moves():
                        break
                    played = move.hub() if move is not None else None
                    label = g.moves[ply].label if ply < len(g.moves) else None
                    add(_task("pdn", name, g.number, ply, label, pos, played, start,
                              list(history)))
                    if played is not None:
                        history.append(played)
        else:
            for lp in pdn.read_position_lines(text, name, v, kind):
                out.lines.append(lp)
                if lp.error is not None:
                    out.errors.append(lp.error)
                    continue
                if lp.position.legal_moves():
                    add(_task(kind, name, lp.line, 0, None, lp.position, None,
                              lp.position.hub(), []))
    return out


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


def _search(e, start: str, history: list[str], limits: dict) -> tuple[Any, Any]:
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
    return result, (infos[-1] if infos else None)


def engine_analyser(task: dict, limits: dict) -> dict:
    """Search one task with this process's Engine: best move, score, pv, and the played move's score."""
    e = _engine(task["variant"])
    e.new_game()
    result, info = _search(e, task["start"], task["history"], limits)
    out = {"best": result.move,
           "score": round(info.score, 2) if info and info.score is not None else None,
           "pv": list(info.pv or []) if info else [],
           "depth": info.depth if info else 0,
           "nodes": info.nodes if info else 0,
           "played_score": None}
    played = task.get("played")
    if played is None or out["score"] is None:
        return out
    if played == out["best"]:
        out["played_score"] = out["score"]
        return out
    child = Position.from_hub(task["variant"], task["position"]).play(played)
    if not child.legal_moves():
        out["played_score"] = round(WIN - 0.01, 2)      # the played move wins at once
        return out
    child_limits = dict(limits)
    if child_limits.get("depth"):
        child_limits["depth"] = max(1, child_limits["depth"] - 1)
    _r, cinfo = _search(e, task["start"], task["history"] + [played], child_limits)
    if cinfo is not None and cinfo.score is not None:
        out["played_score"] = negate_score(cinfo.score)
    return out


def run_task(task: dict, limits: dict, analyser: Analyser | None = None) -> dict:
    """Worker entry point: the analyser's answer, or {"error": message}; never raises."""
    t0 = time.perf_counter()
    try:
        res = (analyser or engine_analyser)(task, limits)
    except Exception as exc:          # reported per task; the run goes on
        return {"error": f"{type(exc).__name__}: {exc}"}
    res = dict(res)
    res["time"] = round(time.perf_counter() - t0, 3)
    return res


def make_record(task: dict, res: dict) -> dict:
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
            "class": classify(loss), "time": float(res.get("time") or 0.0)}


# --- executors ---------------------------------------------------------------------------------

def _run_inline(tasks: list[dict], limits: dict, analyser) -> Iterator[tuple[dict, dict]]:
    for t in tasks:
        yield t, run_task(t, limits, analyser)


def _run_pool(tasks: list[dict], limits: dict, analyser, workers: int
              ) -> Iterator[tuple[dict, dict]]:
    """A local process pool, a few tasks in flight per worker (Ctrl-C stays quick)."""
    pool = ProcessPoolExecutor(max_workers=workers)
    pending = iter(tasks)
    inflight: dict = {}
    try:
        def fill() -> None:
            while len(inflight) < 2 * workers:
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
    """fn as hub_engine.analyse's own (not __main__'s under `python -m`): pickled by reference."""
    if fn.__module__ == "__main__":
        import importlib

        return getattr(importlib.import_module("hub_engine.analyse"), fn.__name__)
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


def _run_dask(tasks: list[dict], limits: dict, analyser, client
              ) -> Iterator[tuple[dict, dict]]:
    """Hand the tasks to a Dask cluster through a distributed.Client."""
    distributed = _dask()
    if not tasks:
        return
    try:
        futures = client.map(_importable(run_task), tasks, limits=limits, analyser=analyser,
                             pure=False)
    except Exception as exc:
        raise RuntimeError(f"cannot hand the tasks to the Dask cluster: {exc}") from exc
    by_key = {f.key: t for f, t in zip(futures, tasks)}
    for f in distributed.as_completed(futures):
        t = by_key[f.key]
        try:
            res = f.result()
        except Exception as exc:
            res = {"error": f"cluster task failed: {type(exc).__name__}: {exc}"}
        yield t, res
        f.release()


# --- output, resume, progress ------------------------------------------------------------------

def read_done(path: str) -> dict[tuple[str, int], dict]:
    """Records already in an output file, by key; an unfinished last line is cut off the file."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        data = f.read()
    done: dict[tuple[str, int], dict] = {}
    end = data.rfind(b"\n") + 1           # everything after the last newline is unfinished
    for raw in data[:end].split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            done[(rec["game"], int(rec["ply"]))] = rec
        except (ValueError, KeyError, TypeError):
            continue
    if end < len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
    return done


class Progress:
    """`done/total positions, rate, ETA` redrawn on one stderr line (only when asked to)."""

    def __init__(self, total: int, already: int, stream: IO[str] | None):
        self.total, self.done, self.stream = total, already, stream
        self.new = 0
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, force: bool = False) -> None:
        if self.stream is None:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        elapsed = now - self.t0
        rate = self.new / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = _clock(left / rate) if rate > 0 else "--:--"
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                          f"positions  {rate:.2f}/s  ETA {eta} ")
        self.stream.flush()

    def step(self) -> None:
        self.done += 1
        self.new += 1
        self.update()

    def close(self) -> None:
        if self.stream is not None:
            self.update(force=True)
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


# --- annotated PDN -----------------------------------------------------------------------------

def _pv_text(pos: Position, pv: list[str], number: int, second: bool) -> str:
    """A pv (Hub strings) as PDN movetext from pos, numbered from the given move."""
    pieces = []
    for i, text in enumerate(pv):
        try:
            mv = pos.parse_move(text)
        except ValueError:
            break
        label = f"{number}." if not second else (f"{number}..." if i == 0 else "")
        pieces.append(f"{label} {pdn.pdn_move_text(mv)}".strip())
        pos = pos.play(mv)
        if second:
            number += 1
        second = not second
    return " ".join(pieces)


def _comment(rec: dict, pos: Position) -> str:
    """The engine's word on a position: on the played move if there is one, else on the position."""
    def move_text(hub: str | None) -> str | None:
        try:
            return pdn.pdn_move_text(pos.parse_move(hub)) if hub else None
        except ValueError:
            return hub

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
    parts.append(f"depth {rec.get('depth')}")
    return "{hub-engine: " + "; ".join(parts) + "}"


def _game_pdn(g: PdnGame, records: dict) -> str:
    gid = game_id(g.file, g.number)
    tags = dict(g.tags)
    if g.variant is not None and "GameType" not in tags:
        tags["GameType"] = str(g.variant.gametype)
    tags["Annotator"] = "hub-engine"
    pieces: list[tuple[str, str]] = []
    need_label = True
    pos = g.start
    for ply, rec_move in enumerate(g.moves):
        first = not rec_move.label.endswith("...")
        number = rec_move.label.rstrip(".")
        label = f"{number}." if first else (f"{number}..." if need_label else "")
        rec = records.get((gid, ply))
        nag = NAGS.get(rec.get("class")) if rec else None
        pieces.append((label, rec_move.text + (nag or "")))
        need_label = False
        if rec_move.comment:
            pieces.append(("", "{" + rec_move.comment.replace("}", ")") + "}"))
            need_label = True
        if rec:
            pieces.append(("", _comment(rec, pos)))
            need_label = True
            if rec.get("class") and rec.get("pv"):
                var = _pv_text(pos, rec["pv"], int(number), not first)
                if var:
                    pieces.append(("", f"({var})"))
        pos = pos.play(rec_move.move)
    last = records.get((gid, len(g.moves)))
    if last:
        pieces.append(("", _comment(last, pos)))
        if last.get("pv"):
            n = g.first_number
            if g.moves:
                n = int(g.moves[-1].label.rstrip(".")) + g.moves[-1].label.endswith("...")
            var = _pv_text(pos, last["pv"], n, pos.side == 1)
            if var:
                pieces.append(("", f"({var})"))
    for err in g.errors:
        pieces.append(("", "{hub-engine: the record stops being readable here: "
                       + err.message.replace("}", ")") + "}"))
    pieces.append(("", g.result or "*"))
    return pdn.write_pdn_tags(tags) + "\n" + pdn.movetext(pieces) + "\n\n"


def _line_pdn(lp: LinePosition, records: dict) -> str:
    rec = records.get((game_id(lp.file, lp.line, lp.kind), 0))
    pos = lp.position
    tags = {"Event": f"{lp.file} line {lp.line}", "GameType": str(pos.variant.gametype),
            "SetUp": "1", "FEN": pos.fen(), "Annotator": "hub-engine"}
    pieces: list[tuple[str, str]] = []
    if rec:
        pieces.append(("", _comment(rec, pos)))
        var = _pv_text(pos, rec.get("pv") or [], 1, pos.side == 1)
        if var:
            pieces.append(("", var))
    pieces.append(("", "*"))
    return pdn.write_pdn_tags(tags) + "\n" + pdn.movetext(pieces) + "\n\n"


def write_annotated_pdn(path: str | IO[str], inputs: Inputs, records: dict) -> None:
    """PDN of every readable input game (and position line) with the engine's comments."""
    chunks = [_game_pdn(g, records) for g in inputs.games if g.start is not None]
    chunks += [_line_pdn(lp, records) for lp in inputs.lines if lp.position is not None]
    if hasattr(path, "write"):
        path.write("".join(chunks))
        return
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(chunks))
    os.replace(tmp, path)


# --- the API -----------------------------------------------------------------------------------

def analyse(inputs: str | os.PathLike | Iterable[str | os.PathLike], variant: str = "brazilian",
            depth: int | None = None, nodes: int | None = None, move_time: float | None = None,
            workers: int | None = None, output: str | os.PathLike | IO[str] | None = None,
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
    (no resume then). pdn_output: annotated PDN (path or file), written at the end. resume: skip
    positions already in the output file (False: start the file afresh). scheduler: a Dask
    scheduler address (`tcp://host:port`) or a distributed.Client. progress: None shows a bar on
    stderr when it is a terminal, True / False force it, a callable gets (done, total).
    analyser(task, limits) -> result replaces the engine (tests). Bad input is printed to
    errors_to (default sys.stderr; None: silent) and listed in the summary's `errors`.
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
    if depth is None and nodes is None and move_time is None:
        depth = DEFAULT_DEPTH
    limits = {"depth": depth, "nodes": nodes, "move_time": move_time}
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    client = _connect(scheduler) if scheduler is not None else None   # fail before any work
    try:
        return _analyse(paths, v, limits, workers, output, pdn_output, resume, scheduler, client,
                        progress, fmt, analyser, errors_to, t0)
    finally:
        if client is not None and client is not scheduler:
            client.close()


def _analyse(paths, v, limits, workers, output, pdn_output, resume, scheduler, client, progress,
             fmt, analyser, errors_to, t0) -> dict:
    """The body of `analyse`, once the arguments are checked and the cluster (if any) reached."""
    data = read_inputs(paths, v, fmt)
    errors = list(data.errors)
    if errors_to is not None:
        for err in errors:
            print(f"hub-engine analyse: {err}", file=errors_to, flush=True)

    # the output and what it already holds
    done: dict[tuple[str, int], dict] = {}
    close_out = False
    out_name: str | None = None
    if hasattr(output, "write"):
        out = output
    elif os.fspath(output) == "-":
        out = sys.stdout
    else:
        out_name = os.fspath(output)
        if resume:
            done = read_done(out_name)
        out = open(out_name, "a" if resume else "w", encoding="utf-8")
        close_out = True

    tasks = [t for t in data.tasks if (t["game"], t["ply"]) not in done]
    already = len(data.tasks) - len(tasks)
    records = {k: r for k, r in done.items()}
    show = progress if isinstance(progress, bool) else (progress is None and sys.stderr.isatty())
    bar = Progress(len(data.tasks), already, sys.stderr if show else None)
    callback = progress if callable(progress) else None
    failed = 0
    analysed = 0
    interrupted = False

    if scheduler is not None:
        stream = _run_dask(tasks, limits, analyser, client)
    elif workers == 1 or len(tasks) <= 1:
        stream = _run_inline(tasks, limits, analyser)
    else:
        stream = _run_pool(tasks, limits, analyser, min(workers, len(tasks)))
    try:
        bar.update(force=True)
        for task, res in stream:
            if "error" in res:
                failed += 1
                pdn_game = task["kind"] == "pdn"
                where = "" if pdn_game else f"line {task['number']}: "
                err = PdnError(task["file"], task["number"] if pdn_game else None,
                               task.get("label"),
                               f"{where}ply {task['ply']}: search failed: {res['error']}")
                errors.append(err)
                if errors_to is not None:
                    print(f"hub-engine analyse: {err}", file=errors_to, flush=True)
                continue
            rec = make_record(task, res)
            out.write(json.dumps(rec, separators=(", ", ": ")) + "\n")
            out.flush()
            records[(rec["game"], rec["ply"])] = rec
            analysed += 1
            bar.step()
            if callback is not None:
                callback(already + analysed, len(data.tasks))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if hasattr(stream, "close"):
            stream.close()
        bar.close()
        if close_out:
            out.close()

    if pdn_output is not None and not interrupted:
        write_annotated_pdn(pdn_output if hasattr(pdn_output, "write") else os.fspath(pdn_output),
                            data, records)
    elapsed = time.monotonic() - t0
    classes = {c: 0 for c in NAGS}
    for rec in records.values():
        if rec.get("class") in classes:
            classes[rec["class"]] += 1
    summary = {
        "inputs": paths, "output": out_name or ("-" if out is sys.stdout else None),
        "pdn_output": None if pdn_output is None or interrupted else
        (os.fspath(pdn_output) if not hasattr(pdn_output, "write") else None),
        "games": len(data.games), "positions": len(data.tasks), "skipped": already,
        "analysed": analysed, "failed": failed, "interrupted": interrupted,
        "limits": limits, "workers": None if scheduler is not None else workers,
        "scheduler": scheduler if isinstance(scheduler, str) else None,
        "elapsed": round(elapsed, 3),
        "positions_per_second": round(analysed / elapsed, 3) if elapsed > 0 else None,
        "classes": classes, "errors": [e.as_dict() for e in errors],
    }
    if interrupted:
        raise AnalysisInterrupted(summary)
    return summary


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
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--output", "-o",
                   help="JSON Lines output, '-' for stdout (default: FIRST_FILE.analysis.jsonl)")
    p.add_argument("--pdn-output", metavar="FILE", help="also write the games annotated as PDN")
    p.add_argument("--no-resume", dest="resume", action="store_false",
                   help="start the output afresh instead of skipping positions already in it")
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


def run(args: argparse.Namespace) -> int:
    """Run the `analyse` command: 0 when all went well, 1 when some input or search failed,
    2 for a usage error, 130 when interrupted."""
    try:
        summary = analyse(args.files, variant=args.variant, depth=args.depth, nodes=args.nodes,
                          move_time=args.move_time, workers=args.workers, output=args.output,
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
    return 1 if summary["errors"] else 0


def main(argv: list[str] | None = None) -> int:
    """`python -m hub_engine.analyse ...` until the lead wires `analyse` into hub_engine.cli."""
    parser = argparse.ArgumentParser(prog="hub-engine")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
