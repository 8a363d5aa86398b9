"""`hub-engine tournament`: many Hub engines, round robin or gauntlet, a cross table and Elo.

Every pairing (all pairs for a round robin; the first engine against each other one for a
gauntlet) plays --games games: each opening twice, once with each colour, the same openings for
every pairing. Games are played one opening at a time across the pairings, so an interrupted
tournament is spread evenly. Each game is played as `hub-engine match` plays one (games.py): an
engine that crashes, hangs, overruns its time or plays an illegal move loses that game, is
reported (engine, game, why) and restarted for its next game, and the tournament goes on. An
engine that cannot be started for its first game stops the tournament at once.

With --state FILE every finished game is appended to FILE (JSON Lines: a header with the
settings, then one line per game, keyed by opening, first mover and second mover). Run the same
command again after a kill and only the games missing from FILE are played; a FILE written with
other settings is refused. At the end (or on Ctrl-C) the rating list and the cross table are
printed, and written with every finished game's PDN by --json and --pdn-output.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Iterator

from hub_engine.datafiles import write_atomically
from hub_engine.matches import openings as opening_options
from hub_engine.matches.engines import parse_params
from hub_engine.matches.games import (Adjudication, GameRecord, TimeControl,
                                      add_adjudication_arguments, adjudication_of, engine_of,
                                      game_of_task, pdn_text, play_task, stats_by_name)
from hub_engine.matches.openings import choose_openings
from hub_engine.matches.pool import play_games
from hub_engine.matches.standings import Standings, as_json, cross_table, rating_table, standings
from hub_engine.matches.statefile import StateFile, StateFileError, interrupted_line
from hub_engine.rules.variants import VARIANTS, get_variant

FORMATS = ("round-robin", "gauntlet")
CANNOT_START = "could not start"


class TournamentError(Exception):
    """The tournament cannot go on: bad settings, a state file of other settings, an engine
    that never started, an output that cannot be written."""


# --- settings and schedule ---------------------------------------------------------------------

def parse_engines(items: list[str] | None, param_items: list[str] | None) -> dict[str, dict]:
    """{name: {command, params}} from `NAME=CMD` and `NAME:KEY=VALUE` options, in order."""
    engines: dict[str, dict] = {}
    for item in items or []:
        name, sep, command = item.partition("=")
        name, command = name.strip(), command.strip()
        if not sep or not name or not command:
            raise TournamentError(f"bad --engine {item!r}: NAME=COMMAND expected")
        if any(c in name for c in ":= \t\"'"):
            raise TournamentError(f"bad engine name {name!r}: no spaces, quotes, ':' or '='")
        if name in engines:
            raise TournamentError(f"two engines are named {name!r}: names must differ")
        engines[name] = {"command": command, "params": []}
    if len(engines) < 2:
        raise TournamentError("a tournament needs at least two engines (--engine NAME=COMMAND)")
    for item in param_items or []:
        name, sep, rest = item.partition(":")
        if not sep or name.strip() not in engines:
            raise TournamentError(f"bad --param {item!r}: NAME:KEY=VALUE with NAME one of "
                                  f"{', '.join(engines)}")
        try:
            engines[name.strip()]["params"] += [list(p) for p in parse_params([rest])]
        except SystemExit:
            raise TournamentError(f"bad --param {item!r}: NAME:KEY=VALUE expected") from None
    return engines


def pairings(names: list[str], fmt: str) -> list[tuple[str, str]]:
    """The pairs that meet: all of them (round robin) or the first name with each other."""
    if fmt == "gauntlet":
        return [(names[0], b) for b in names[1:]]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def schedule(names: list[str], fmt: str, openings: list[list[str]]) -> list[dict]:
    """The games in playing order: per opening, per pairing, both colours ("white" is the
    engine that plays the variant's first mover)."""
    tasks = []
    for k, opening in enumerate(openings):
        for a, b in pairings(names, fmt):
            for white, black in ((a, b), (b, a)):
                tasks.append({"number": len(tasks) + 1, "opening_index": k, "opening": opening,
                              "white": white, "black": black})
    return tasks


def game_key(opening_index: int, white: str, black: str) -> str:
    """A game's key in the state file: the opening's index, first mover, second mover."""
    return json.dumps([opening_index, white, black])


def task_key(task: dict) -> str:
    return game_key(task["opening_index"], task["white"], task["black"])


def settings_of(args: argparse.Namespace, engines: dict[str, dict], openings: list[list[str]],
                tc: TimeControl, adjudication: Adjudication) -> dict:
    """Everything a game's result depends on: a resumed run must have the same."""
    return {"variant": get_variant(args.variant).name, "format": args.format,
            "games": len(openings) * 2, "engines": engines, "openings": openings,
            "time": asdict(tc), "max_plies": args.max_plies,
            "adjudication": asdict(adjudication)}


# --- running the games ------------------------------------------------------------------------

def run_local(tasks: list[dict], settings: dict, concurrency: int, stderr: IO[str] | None = None
              ) -> Iterator[tuple[dict, GameRecord]]:
    """Play tasks on `concurrency` threads, each with its own process of every engine it has
    needed (pool.play_games: closing the iterator early ends the games in flight at once)."""
    return play_games(tasks, lambda name: engine_of(name, settings, stderr),
                      lambda task, engine: game_of_task(
                          task, settings, {n: engine(n) for n in (task["white"], task["black"])}),
                      concurrency)


def run_cluster(tasks: list[dict], settings: dict, scheduler: str
                ) -> Iterator[tuple[dict, GameRecord | str]]:
    """Play tasks on a Dask cluster, as `analyse --scheduler` runs its tasks: each game starts
    its two engines on a worker. A task that fails yields its error message instead of a game."""
    from hub_engine.analysis.executors import connect, run_dask

    try:
        client = connect(scheduler)
    except RuntimeError as exc:
        raise TournamentError(str(exc)) from None
    try:
        for task, res in run_dask(tasks, settings, play_task, client):
            if "error" in res:
                yield task, str(res["error"])
            else:
                yield task, GameRecord.from_dict(res)
    except RuntimeError as exc:
        raise TournamentError(str(exc)) from None
    finally:
        client.close()


# --- the tournament ---------------------------------------------------------------------------

@dataclass
class TournamentOutcome:
    """What was played: every finished game (this run's and the state file's), the games still
    missing, and the standings."""

    records: list[GameRecord]
    scheduled: int
    standings: Standings | None
    unplayed: list[str] = field(default_factory=list)      # why games failed to be played
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.records) == self.scheduled


def _time_control(args: argparse.Namespace) -> TimeControl:
    if args.move_time is None and args.time is None:
        args.move_time = 1.0
    for name in ("move_time", "time"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise TournamentError(f"--{name.replace('_', '-')} must be positive")
    for name in ("inc", "tolerance"):
        if getattr(args, name) < 0:
            raise TournamentError(f"--{name} must be 0 or more")
    return TimeControl(args.move_time, args.time, args.inc or 0.0, args.tolerance)


def prepare(args: argparse.Namespace) -> tuple[dict, list[dict]]:
    """The settings and the schedule the options ask for; TournamentError on bad options."""
    if args.games < 1:
        raise TournamentError("--games must be at least 1")
    if args.concurrency < 1:
        raise TournamentError("--concurrency must be at least 1")
    if args.max_plies < 1:
        raise TournamentError("--max-plies must be at least 1")
    engines = parse_engines(args.engine, args.param)
    names = list(engines)
    if args.anchor is not None and args.anchor not in engines:
        raise TournamentError(f"--anchor {args.anchor!r} is not one of the engines "
                              f"({', '.join(names)})")
    if args.prior_draws is not None and args.prior_draws < 0:
        raise TournamentError("--prior-draws must be 0 or more")
    tc = _time_control(args)
    try:
        adjudication = adjudication_of(args)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    variant = get_variant(args.variant).name
    n_open = (args.games + 1) // 2
    try:
        openings = choose_openings(variant, n_open, args)
    except (OSError, ValueError) as exc:
        raise TournamentError(f"openings: {exc}") from None
    settings = settings_of(args, engines, openings, tc, adjudication)
    return settings, schedule(names, args.format, openings)


def _game_line(rec: GameRecord, total: int) -> str:
    return (f"game {rec.number:4d}/{total} {rec.white} - {rec.black} {rec.result:7s} "
            f"[{rec.reason}] plies={len(rec.moves)} opening=\"{' '.join(rec.opening)}\"")


def run_tournament(args: argparse.Namespace, out: IO[str] = sys.stdout) -> TournamentOutcome:
    """Play the tournament args describe (what a state file already holds is not played
    again), print a line per game and, at the end, the rating list and the cross table."""
    settings, tasks = prepare(args)
    names = list(settings["engines"])
    try:
        state = StateFile(args.state, "tournament", settings)
    except StateFileError as exc:
        raise TournamentError(str(exc)) from None
    stderr = None
    unplayed: list[str] = []
    interrupted = False
    try:
        proven = {n for rec in state.records.values() for n in (rec.white, rec.black)
                  if not (rec.reason.endswith(CANNOT_START) and rec.culprit == n)}
        todo = [t for t in tasks if task_key(t) not in state.records]
        total = len(tasks)
        print(f"tournament: {len(names)} engines ({', '.join(names)}), {args.format}, "
              f"{settings['variant']}, {len(pairings(names, args.format))} pairings x "
              f"{settings['games']} games = {total} games", file=out, flush=True)
        if state.records:
            print(f"resuming from {args.state}: {len(state.records)} games already played, "
                  f"{len(todo)} to play", file=out, flush=True)
        if args.engine_stderr:
            stderr = open(args.engine_stderr, "a", encoding="utf-8")
        stream = (run_cluster(todo, settings, args.scheduler) if args.scheduler
                  else run_local(todo, settings, args.concurrency, stderr))
        try:
            for task, rec in stream:
                if isinstance(rec, str):
                    unplayed.append(f"game {task['number']} ({task['white']} - "
                                    f"{task['black']}): {rec}")
                    print(f"  NOT PLAYED game {task['number']}: {rec}", file=out, flush=True)
                    continue
                if rec.reason.endswith(CANNOT_START) and rec.culprit not in proven:
                    raise TournamentError(rec.failure)
                if not rec.reason.endswith(CANNOT_START):
                    proven |= {rec.white, rec.black}
                try:
                    state.add(task_key(task), rec)
                except StateFileError as exc:
                    raise TournamentError(str(exc)) from None
                print(_game_line(rec, total), file=out, flush=True)
                if rec.problem:
                    print(f"  PROBLEM game {rec.number} ({rec.white} - {rec.black}): "
                          f"{rec.problem}", file=out, flush=True)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            stream.close()
    finally:
        state.close()
        if stderr is not None:
            stderr.close()
    records = sorted(state.records.values(), key=lambda r: r.number)
    return finish(args, settings, records, total, unplayed, interrupted, out)


def finish(args: argparse.Namespace, settings: dict, records: list[GameRecord], total: int,
           unplayed: list[str], interrupted: bool, out: IO[str]) -> TournamentOutcome:
    """Print the standings and the problems; write --json and --pdn-output."""
    names = list(settings["engines"])
    games = [(r.white, r.black, r.score_of(r.white)) for r in records]
    st = None
    if records:
        try:
            st = standings(names, games, args.anchor, args.prior_draws)
        except ValueError as exc:        # e.g. an interrupted gauntlet's anchor has no games
            print(f"no ratings: {exc}", file=out)
    outcome = TournamentOutcome(records, total, st, unplayed, interrupted)
    if interrupted:
        print(interrupted_line(len(records), total, args.state), file=out, flush=True)
    if st is not None:
        print(f"\nRating list ({len(records)} of {total} games):", file=out)
        print(rating_table(st), file=out)
        print("\nCross table (row's points/games against the column):", file=out)
        print(cross_table(st), file=out)
    if records:
        figures = stats_by_name(records)
        print("\nMoves (time a move as the runner measured it; nodes per second over each "
              "engine's own reported search time):", file=out)
        for name in names:
            if name in figures:
                print(f"  {name}: {figures[name].line()}", file=out)
    problems = [r for r in records if r.problem]
    if problems:
        print(f"\nProblems ({len(problems)} games lost by an engine failure, a time loss or "
              "an illegal move):", file=out)
        for r in problems:
            print(f"  game {r.number} ({r.white} - {r.black}): {r.problem}", file=out)
    if unplayed:
        print(f"\n{len(unplayed)} game(s) could not be played; run again to play them:",
              file=out)
        for u in unplayed:
            print(f"  {u}", file=out)
    out.flush()
    if args.json:
        _write_atomic(args.json, json.dumps(report_json(settings, outcome), indent=1) + "\n")
    if args.pdn_output:
        event = f"hub-engine tournament ({settings['format']}, {', '.join(names)})"
        _write_atomic(args.pdn_output,
                      "".join(pdn_text(r, settings["variant"], event) for r in records))
    return outcome


def report_json(settings: dict, outcome: TournamentOutcome) -> dict:
    """The --json document: settings in brief, standings, cross table, problems and each
    engine's moves (count, seconds, searched moves, nodes, search seconds)."""
    body = as_json(outcome.standings) if outcome.standings is not None else {
        "standings": [], "crosstable": {}, "elo_model": None}
    return {
        "variant": settings["variant"], "format": settings["format"],
        "engines": settings["engines"], "games_per_pairing": settings["games"],
        "time": settings["time"], "adjudication": settings["adjudication"],
        "games_played": len(outcome.records), "games_scheduled": outcome.scheduled,
        "complete": outcome.complete, **body,
        "problems": [{"game": r.number, "white": r.white, "black": r.black,
                      "engine": r.culprit, "reason": r.reason, "problem": r.problem}
                     for r in outcome.records if r.problem],
        "moves": {name: asdict(stats) for name, stats in stats_by_name(outcome.records).items()},
    }


def _write_atomic(path: str, text: str) -> None:
    try:
        write_atomically(Path(path), text.encode("utf-8"), make_dirs=False)
    except OSError as exc:
        raise TournamentError(f"cannot write {path}: {exc}") from None


# --- the command line -------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", action="append", metavar="NAME=COMMAND",
                   help="an engine: its name (no spaces, ':' or '=') and command line; "
                        "repeat for each engine (at least two)")
    p.add_argument("--param", action="append", metavar="NAME:KEY=VALUE",
                   help="set-param KEY=VALUE for engine NAME (repeatable), e.g. weak:skill=5")
    p.add_argument("--format", default="round-robin", choices=FORMATS,
                   help="round-robin: every engine meets every other; gauntlet: the first "
                        "engine meets each other one (default round-robin)")
    p.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS),
                   help="rules of the games (default brazilian)")
    p.add_argument("--games", type=int, default=2,
                   help="games per pairing, rounded up to even: each opening is played twice, "
                        "once with each colour (default 2)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--move-time", type=float, help="seconds per move (default 1)")
    limit.add_argument("--time", type=float, help="clock per engine and game, in seconds "
                                                   "(with --inc)")
    p.add_argument("--inc", type=float, default=0.0,
                   help="increment per move in seconds, added before the move")
    p.add_argument("--tolerance", type=float, default=0.5,
                   help="seconds a move may exceed its limit before it loses on time "
                        "(default 0.5)")
    opening_options.add_arguments(p)
    p.add_argument("--max-plies", type=int, default=300,
                   help="adjudicate a draw after this many plies (default 300)")
    add_adjudication_arguments(p)
    p.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="play the games on a Dask cluster (tcp://host:port) instead of locally; "
                        "the engine commands must run on its workers "
                        "(pip install 'hub-engine[cluster]')")
    p.add_argument("--state", metavar="FILE",
                   help="append each finished game to FILE (JSON Lines) and, when FILE exists, "
                        "resume from it: its games are not played again (default: no state)")
    p.add_argument("--json", metavar="FILE",
                   help="write the standings, cross table and problems as JSON to FILE")
    p.add_argument("--pdn-output", "--pgn-output", dest="pdn_output", metavar="FILE",
                   help="write every finished game to FILE as PDN (rewritten at the end)")
    p.add_argument("--engine-stderr", metavar="FILE",
                   help="append the engines' stderr to FILE (local games; default: discarded)")
    p.add_argument("--anchor", metavar="NAME",
                   help="rate this engine 0 Elo (default: the mean rating is 0)")
    p.add_argument("--prior-draws", type=float, metavar="D",
                   help="virtual draws added to every pairing in the Elo fit (default: none, "
                        "or 1 when a player or group took every point or none)")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `tournament` on hub-engine's subparsers; run() is its handler."""
    p = subparsers.add_parser("tournament", help="a round robin or gauntlet of Hub engines, "
                                                 "with a cross table and Elo ratings",
                              description=__doc__.splitlines()[0].strip("`"))
    add_arguments(p)
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The CLI handler: 0 when every game was played, 1 on an error or games left unplayed,
    130 when interrupted (run again with the same --state to go on)."""
    try:
        outcome = run_tournament(args)
    except TournamentError as exc:
        print(f"tournament: error: {exc}", file=sys.stderr)
        return 1
    if outcome.interrupted:
        return 130
    return 0 if outcome.complete else 1
