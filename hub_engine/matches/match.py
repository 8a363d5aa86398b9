"""Engine-vs-engine matches over the Hub protocol: `python -m hub_engine.matches.match` (or `hub-engine match`).

Two Hub engines, each given as a command line, play games from a set of varied openings, each
opening once with each colour. The runner speaks Hub itself over raw pipes: `hub` / `wait`,
`set-param`, `init` / `ready`, `new-game`, and per move `pos pos=<initial position> moves="<all
moves>"`, one `level` line, `go think`, then it reads until `done`. Our rules (hub_engine.Game)
adjudicate: an illegal or missing move loses, no legal move loses, Game.draw_reason() draws, and a
game longer than --max-plies is a draw. A move's time runs from the `pos` line to `done`. With
--move-time, a move over it by more than --tolerance loses; with a clock, the clock keeps any
deficit and the game is lost once it is more than --tolerance below zero. An engine that does
not answer by then is killed (and restarted for the next game), so a hung engine forfeits
instead of hanging the match. An engine that crashes loses the game
and is restarted, but the match then ends with exit status 1 and the engine's stderr: its score
is not a clean result. An engine that cannot be started stops the match at once.

With --state FILE every finished game is appended to FILE (JSON Lines, as `hub-engine
tournament --state` writes it, keyed by game number). Run the same command again after a kill
and only the games missing from FILE are played; an --sprt goes on from FILE's results (and
plays nothing when they already decide it). A FILE of other settings (engines, parameters,
openings, time, adjudication, --games) is refused; --concurrency and the SPRT's bounds may
change between runs.

Before it, one line per engine (engine 1 first): `NAME: moves=N mean-move=Ts searched=K
nodes/s=XM mean-search=Ts`, the time per move as the runner measured it, the nodes per second
over the engine's own reported search time and that time's mean over the searched moves, from
the last `info` line of each move that counted nodes.
Result line, from the first engine's view: `wins=W draws=D losses=L score=S%  elo=E +/- M (95%)`.
"""
from __future__ import annotations

import argparse
import math
import shlex
import sys
from dataclasses import asdict, dataclass, field

from hub_engine.matches import openings as opening_options
from hub_engine.matches.engines import MatchEngine, parse_params
from hub_engine.matches.games import (GameRecord, MoveStats, TimeControl,
                                      add_adjudication_arguments, adjudication_of, pdn_text,
                                      play_game)
from hub_engine.matches.openings import (ballot_openings, choose_openings, is_balanced,
                                         opening_score, random_openings, read_openings)
from hub_engine.matches.pool import play_games
from hub_engine.matches.sprt import SPRT
from hub_engine.matches.statefile import StateFile, StateFileError, interrupted_line
from hub_engine.program import self_command
from hub_engine.rules.variants import VARIANTS, get_variant

__all__ = ["GameRecord", "MatchEngine", "TimeControl", "ballot_openings", "is_balanced",
           "opening_score", "parse_params", "pdn_text", "play_game", "random_openings",
           "read_openings", "run_match", "self_command"]

HANDSHAKE_TIMEOUT = 20.0    # seconds for `hub` -> `wait` and `init` -> `ready`


# --- statistics ------------------------------------------------------------------------------

def score_to_elo(score: float) -> float:
    """Elo difference of an expected score in (0, 1): -400 * log10(1/score - 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_stats(results: list[float]) -> tuple[float, float, float]:
    """(score, elo, margin) of per-game results (1, 0.5 or 0) from the first engine's view.

    score mu = mean of the results; elo = -400 * log10(1/mu - 1).
    The error is the standard error of the mean of the per-game results,
    sigma = sqrt(sum((x_i - mu)^2) / N) / sqrt(N), and the 95% margin is half the width of the
    interval mu +/- 1.96 sigma mapped through the same Elo formula:
    margin = (elo(mu + 1.96 sigma) - elo(mu - 1.96 sigma)) / 2  (as cutechess-cli reports it).
    It is infinite when the interval reaches a score of 0 or 1 (e.g. all games won).
    """
    n = len(results)
    if n == 0:
        return 0.5, 0.0, math.inf
    mu = sum(results) / n
    var = sum((x - mu) ** 2 for x in results) / n
    dev = 1.959964 * math.sqrt(var / n)
    lo, hi = mu - dev, mu + dev
    if lo <= 0.0 or hi >= 1.0:
        margin = math.inf
    else:
        margin = (score_to_elo(hi) - score_to_elo(lo)) / 2.0
    return mu, score_to_elo(mu), margin


def summary_line(results: list[float]) -> str:
    w = sum(1 for x in results if x == 1.0)
    d = sum(1 for x in results if x == 0.5)
    loss = sum(1 for x in results if x == 0.0)
    mu, elo, margin = elo_stats(results)
    return (f"wins={w} draws={d} losses={loss} score={100.0 * mu:.1f}%  "
            f"elo={elo + 0.0:+.1f} +/- {margin:.1f} (95%)")


# --- the match -------------------------------------------------------------------------------

class MatchError(Exception):
    """The match cannot go on: an engine could not be started."""


@dataclass
class MatchOutcome:
    """Per-game scores from engine 1's view, in game order, and the engine failures (crashes)
    that happened on the way; a match with failures is not a clean result."""

    results: list[float]
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False           # stopped by Ctrl-C before its end


def run_match(args: argparse.Namespace, out=sys.stdout) -> MatchOutcome:
    """Play the match described by args; print a line per game and the summary.

    An engine that cannot be started (or does not finish its handshake) stops the match with
    MatchError; one that crashes during a game loses that game, is restarted, and is reported
    in the outcome's failures.
    """
    variant = get_variant(args.variant).name
    n_games = max(2, args.games + (args.games % 2))
    n_open = n_games // 2
    try:
        adjudication = adjudication_of(args)
        openings = choose_openings(variant, n_open, args)
    except ValueError as exc:
        raise SystemExit(f"match: error: {exc}") from None
    if args.move_time is None and args.time is None:
        args.move_time = 1.0
    tc1 = TimeControl(args.move_time, args.time, args.inc or 0.0, args.tolerance)
    tc2 = TimeControl(args.move_time2 if args.move_time2 is not None else args.move_time,
                      args.time2 if args.time2 is not None else args.time,
                      args.inc2 if args.inc2 is not None else (args.inc or 0.0), args.tolerance)
    if (args.move_time is not None and (args.time2 is not None or args.inc2 is not None)) or (
            args.time is not None and args.move_time2 is not None):
        raise SystemExit("match: error: give both engines a move time or both a clock")
    params = (parse_params(args.param1, "match"), parse_params(args.param2, "match"))
    names = (args.name1 or "engine1", args.name2 or "engine2")
    default = shlex.join(self_command())
    commands = (args.engine1 or default, args.engine2 or default)
    results: dict[int, float] = {}
    records: list[GameRecord] = []
    failures: list[str] = []
    sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    interrupted = False
    state = open_state(args.state, {
        "variant": variant, "games": n_games, "openings": openings,
        "engines": [{"name": n, "command": c, "params": [list(p) for p in ps]}
                    for n, c, ps in zip(names, commands, params)],
        "time": [asdict(tc1), asdict(tc2)], "max_plies": args.max_plies,
        "adjudication": asdict(adjudication)})

    def keep(i: int, rec: GameRecord) -> None:
        """Count a finished game, played now or read back from the state file."""
        if rec.failure:
            failures.append(f"game {i + 1}: {rec.failure}")
        results[i] = rec.score_engine1()
        records.append(rec)

    def decided() -> bool:
        """Run the SPRT on the finished pairs and print it; True when it has decided."""
        sprt.results = complete_pairs(results)
        print(f"  {sprt.line()}", file=out, flush=True)
        return bool(sprt.status())

    def tally() -> None:
        """Count the games the state holds (this run's too, after it): a Ctrl-C can come
        between a game's recording and its counting in the loop, and the summary and the
        interrupted line must give what a resumed run will find."""
        results.clear()
        records.clear()
        failures.clear()
        for key, rec in state.records.items():
            if key.isdigit() and 1 <= int(key) <= n_games:     # else not a game of this match
                keep(int(key) - 1, rec)

    tally()
    if state.records:
        print(f"resuming from {args.state}: {len(results)} games already played, "
              f"{n_games - len(results)} to play", file=out, flush=True)
    stderr = open(args.engine_stderr, "a") if args.engine_stderr else None

    def new_engine(k: int) -> MatchEngine:
        return MatchEngine(commands[k], names[k], variant, params[k], stderr, HANDSHAKE_TIMEOUT)

    def play(i: int, engine) -> GameRecord:
        swap = i % 2 == 1                   # engine 1 plays the first mover in even games
        pair = (engine(1), engine(0)) if swap else (engine(0), engine(1))
        rec = play_game(i + 1, variant, openings[i // 2], pair, (tc2, tc1) if swap else (tc1, tc2),
                        args.max_plies, adjudication)
        rec.first_engine_side = 1 if swap else 0
        return rec

    todo = [i for i in range(n_games) if i not in results]
    if sprt is not None and state.records and decided():
        todo = []                           # the state file's games decide it already
    stream = play_games(todo, new_engine, play, args.concurrency)
    try:
        for i, rec in stream:
            if rec.failure and rec.reason.endswith("could not start"):
                raise MatchError(rec.failure)
            try:
                state.add(str(i + 1), rec)
            except StateFileError as exc:
                raise MatchError(str(exc)) from None
            keep(i, rec)
            done = [results[k] for k in sorted(results)]
            t = " ".join(f"{x:.1f}" for x in rec.max_time)
            print(f"game {i + 1:3d}/{n_games} {rec.white} - {rec.black} {rec.result:7s} "
                  f"[{rec.reason}] plies={len(rec.moves)} opening=\"{' '.join(rec.opening)}\" "
                  f"maxtime={t}  | {summary_line(done)}", file=out, flush=True)
            if rec.problem:
                print(f"  PROBLEM game {i + 1}: {rec.problem}", file=out, flush=True)
            if args.pdn_output:
                with open(args.pdn_output, "a", encoding="utf-8") as f:
                    f.write(pdn_text(rec, variant, f"hub-engine match {names[0]} vs {names[1]}"))
            if sprt is not None and (i ^ 1) in results and decided():
                break                       # the games under way are not needed
    except KeyboardInterrupt:
        interrupted = True                  # the games under way end, unrecorded
    finally:
        stream.close()
        if stderr:
            stderr.close()
        state.close()
    tally()
    final = [results[k] for k in sorted(results)]
    for name, stats in engine_stats(records, names):
        print(f"{name}: {stats.line()}", file=out, flush=True)
    print(f"{names[0]} vs {names[1]} ({variant}, {len(final)} games): {summary_line(final)}",
          file=out, flush=True)
    if sprt is not None:
        sprt.results = complete_pairs(results)
        print(sprt.line(), file=out, flush=True)
    if interrupted:
        print(interrupted_line(len(final), n_games, args.state), file=out, flush=True)
    return MatchOutcome(final, failures, interrupted)


def open_state(path: str | None, settings: dict) -> StateFile:
    """The --state file of a match (in memory only without a path); MatchError when it holds
    another match or cannot be used. Keys are the game numbers."""
    try:
        return StateFile(path, "match", settings)
    except StateFileError as exc:
        raise MatchError(str(exc)) from None


def engine_stats(records: list[GameRecord], names: tuple[str, str]) -> list[tuple[str, MoveStats]]:
    """Each engine's moves over the games (engine 1 first): time per move and nodes per second."""
    totals = (MoveStats(), MoveStats())
    for rec in records:
        side1 = rec.first_engine_side            # the side engine 1 played in this game
        totals[0].merge(rec.stats[side1])
        totals[1].merge(rec.stats[1 - side1])
    if names[0] == names[1]:
        return [(f"{names[0]} (1)", totals[0]), (f"{names[1]} (2)", totals[1])]
    return [(names[0], totals[0]), (names[1], totals[1])]


def complete_pairs(results: dict[int, float]) -> list[float]:
    """The results of the finished opening pairs (games 2k and 2k + 1), in pair order."""
    out: list[float] = []
    for k in sorted(results):
        if k % 2 == 0 and k + 1 in results:
            out += [results[k], results[k + 1]]
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="brazilian", choices=sorted(VARIANTS),
                   help="rules of the games (default brazilian)")
    p.add_argument("--engine1", help="command line of the first engine, results are from its "
                                     "view (default: this program itself)")
    p.add_argument("--engine2", help="command line of the second engine (default: this program "
                                     "itself)")
    p.add_argument("--name1", help="label of engine 1 (default engine1)")
    p.add_argument("--name2", help="label of engine 2 (default engine2)")
    p.add_argument("--games", type=int, default=2,
                   help="number of games, rounded up to even: each opening is played twice, "
                        "once with each colour (default 2)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--move-time", type=float, help="seconds per move (default 1)")
    limit.add_argument("--time", type=float, help="clock per engine in seconds (with --inc)")
    p.add_argument("--inc", type=float, default=0.0, help="increment per move in seconds, added "
                                                          "before the move")
    p.add_argument("--move-time2", type=float, help="engine 2's seconds per move (time odds; "
                                                    "default: the same as engine 1)")
    p.add_argument("--time2", type=float, help="engine 2's clock (time odds)")
    p.add_argument("--inc2", type=float, help="engine 2's increment (time odds)")
    p.add_argument("--tolerance", type=float, default=0.5,
                   help="seconds a move may exceed its limit before it loses on time (default 0.5)")
    p.add_argument("--param1", action="append", metavar="NAME=VALUE",
                   help="set-param for engine 1 (repeatable), e.g. threads=1")
    p.add_argument("--param2", action="append", metavar="NAME=VALUE", help="set-param for engine 2")
    p.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    opening_options.add_arguments(p)
    p.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw after this many "
                                                              "plies (default 300)")
    p.add_argument("--pdn-output", "--pgn-output", dest="pdn_output",
                   help="append the games as PDN to this file")
    p.add_argument("--engine-stderr", help="append the engines' stderr to this file "
                                           "(default: discarded)")
    p.add_argument("--state", metavar="FILE",
                   help="append each finished game to FILE (JSON Lines) and, when FILE exists, "
                        "resume from it: its games are not played again, and an SPRT goes on "
                        "from its results (default: no state)")
    p.add_argument("--sprt", type=float, nargs=2, metavar=("ELO0", "ELO1"),
                   help="stop when a sequential probability ratio test decides between H0: "
                        "engine 1 is ELO0 better and H1: ELO1 better (game pairs, logistic Elo); "
                        "--games is then the maximum (default: off)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="SPRT: chance of accepting H1 when H0 holds (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="SPRT: chance of accepting H0 when H1 holds (default 0.05)")
    add_adjudication_arguments(p)


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `match` on a subparsers object (hub-engine's CLI); run() is its handler."""
    p = subparsers.add_parser("match", help="play two Hub engines against each other",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The CLI handler: 0 for a clean match, 1 when an engine failed to start or crashed, 130
    after Ctrl-C."""
    if args.games < 1:
        raise SystemExit("match: error: --games must be at least 1")
    if args.sprt and not (args.sprt[0] < args.sprt[1] and 0 < args.alpha < 1 and 0 < args.beta < 1):
        raise SystemExit("match: error: --sprt needs ELO0 < ELO1, and --alpha, --beta in (0, 1)")
    try:
        outcome = run_match(args)
    except MatchError as exc:
        print(f"match: error: {exc}", file=sys.stderr)
        return 1
    if outcome.interrupted:
        return 130
    if outcome.failures:
        print(f"match: error: {len(outcome.failures)} game(s) ended by an engine failure, so "
              "this is not a clean result:", file=sys.stderr)
        for failure in outcome.failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.matches.match", description=__doc__.splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
