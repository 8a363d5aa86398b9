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

Result line, from the first engine's view: `wins=W draws=D losses=L score=S%  elo=E +/- M (95%)`.
"""
from __future__ import annotations

import argparse
import math
import random
import shlex
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from hub_engine.rules.position import Game, IllegalMoveError
from hub_engine.matches.sprt import SPRT
from hub_engine.program import self_command
from hub_engine.rules.notation import NotationError
from hub_engine.rules.variants import VARIANTS, get_variant
from protocol.client import EngineError, EngineTimeout, HubClient

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


# --- engines ---------------------------------------------------------------------------------

class MatchEngine:
    """One engine of the match: a Hub client plus the match's handshake and `go` exchange."""

    def __init__(self, command: str, name: str, variant: str, params: list[tuple[str, str]],
                 stderr=None):
        self.command = command
        self.name = name
        self.variant = variant
        self.params = params
        self.client = HubClient(command, stderr_copy=stderr)
        self.id_name = name
        self.starts = 0

    def start(self) -> None:
        """Spawn and handshake: hub/wait, variant (when declared), set-params, init/ready."""
        self.starts += 1
        client = self.client.start()
        client.send("hub")
        declared_variant = False
        for line in client.until("wait", HANDSHAKE_TIMEOUT):
            words = line.text.split()
            if words[:1] == ["id"]:
                for w in words[1:]:
                    if w.startswith("name="):
                        self.id_name = w[5:].strip('"')
            if words[:1] == ["param"] and "name=variant" in words:
                declared_variant = True
        if declared_variant:
            client.send(f"set-param name=variant value={self.variant}")
        for name, value in self.params:
            client.send(f"set-param name={name} value={value}")
        client.send("init")
        client.until("ready", HANDSHAKE_TIMEOUT)

    def alive(self) -> bool:
        return self.client.alive()

    def ensure_started(self) -> None:
        if not self.alive():
            self.client.kill()
            try:
                self.start()
            except EngineError:
                self.client.kill()
                raise

    def kill(self) -> None:
        self.client.kill()

    def quit(self) -> None:
        self.client.quit(2.0)

    def new_game(self) -> None:
        self.client.send("new-game")

    def go(self, start_pos: str, moves: list[str], level: str, timeout: float) -> tuple[str, float]:
        """Send pos/level/go think; return (move, seconds from `pos` to `done`)."""
        self.client.drain()             # stale output (e.g. info lines after a late done)
        if not self.client.alive():
            raise EngineError(f"the engine {self.client.describe_exit()}")
        # the clock runs from the `pos` line: replaying the game is part of the engine's move
        t0 = self.client.send(f'pos pos={start_pos} moves="{" ".join(moves)}"', f"level {level}",
                              "go think")
        done = self.client.until("done", timeout)[-1]
        elapsed = done.at - t0
        move = None
        for word in done.text.split()[1:]:
            if word.startswith("move="):
                move = word[5:].strip('"')
        if not move:
            raise EngineError(f"no move in '{done.text}'")
        return move, elapsed


# --- openings --------------------------------------------------------------------------------

def is_balanced(game: Game) -> bool:
    """Equal material and no capture for the side to move: no side starts a piece up."""
    s = game.position.setup()
    if len(s.men0) + len(s.kings0) != len(s.men1) + len(s.kings1):
        return False
    return not any(m.is_capture for m in game.legal_moves())


def opening_score(game: Game, depth: int) -> float:
    """Our search's score of the position, in men for the side to move, at a fixed depth."""
    from hub_engine.engine.bench import search_position

    return search_position(game.variant.name, game.position.hub(), depth, tt_log2=16)["score"] / 100


def random_openings(variant: str, count: int, plies: int, seed: int, balanced: bool = True,
                    check_depth: int = 10, max_score: float = 0.5) -> list[list[str]]:
    """count distinct openings of `plies` random legal plies from the start (fixed seed).

    balanced keeps only lines that end with equal material and no capture to make, and (with
    check_depth > 0) that our search at that depth scores within +/- max_score men: random plies
    often walk into a shot (e.g. 12-16 24-20 11-14 20-15, where 14-19 wins a man by force).
    """
    rng = random.Random(seed)
    found: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    tries = 0
    while len(found) < count and tries < count * 200:
        tries += 1
        game = Game(variant)
        line: list[str] = []
        for _ in range(plies):
            legal = game.legal_moves()
            if not legal or game.draw_reason():
                break
            m = rng.choice(legal)
            game.play(m)
            line.append(str(m))
        if len(line) < plies or not game.legal_moves() or tuple(line) in seen:
            continue
        if balanced and not is_balanced(game):
            continue
        if balanced and check_depth > 0 and abs(opening_score(game, check_depth)) > max_score:
            continue
        seen.add(tuple(line))
        found.append(line)
    while len(found) < count:          # fewer distinct lines than asked: reuse them
        found.append(list(found[len(found) % max(1, len(found))]) if found else [])
    return found


def read_openings(path: str, variant: str) -> list[list[str]]:
    """One opening a line: Hub moves from the start separated by spaces; # starts a comment."""
    out = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            moves = line.replace(",", " ").split()
            game = Game(variant)
            for m in moves:
                game.play(m)           # raises on an illegal line: better than a silent bad set
            out.append([str(m) for m in game.moves])
    return out


# --- one game --------------------------------------------------------------------------------

@dataclass
class TimeControl:
    move_time: float | None = None
    time: float | None = None
    inc: float = 0.0
    tolerance: float = 0.5


@dataclass
class GameRecord:
    number: int
    opening: list[str]
    white: str                       # engine label playing the first mover's side (black in english)
    black: str                       # engine label playing the second mover's side
    moves: list[str] = field(default_factory=list)
    result: str = "*"                # '1-0' (first mover won), '0-1', '1/2-1/2'
    reason: str = ""
    first_engine_side: int = 0       # 0 when engine1 played the first mover
    max_time: tuple[float, float] = (0.0, 0.0)   # longest move per side (first mover, second)
    problem: str = ""                # illegal move / crash / time loss, for the log
    failure: str = ""                # an engine failed to start or crashed (not a game result)

    def score_engine1(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        first_won = self.result == "1-0"
        return 1.0 if first_won == (self.first_engine_side == 0) else 0.0


def play_game(number: int, variant: str, opening: list[str], engines: tuple[MatchEngine, MatchEngine],
              tc: TimeControl | tuple[TimeControl, TimeControl], max_plies: int) -> GameRecord:
    """engines[0] plays the variant's first mover (the side on layout 21..32); tc is one time
    control for both, or one per side (engines[0]'s first) for time odds."""
    tcs = tc if isinstance(tc, tuple) else (tc, tc)
    game = Game(variant)
    start_pos = game.position.hub()
    for m in opening:
        game.play(m)
    rec = GameRecord(number, list(opening), engines[0].name, engines[1].name)
    rec.moves = [str(m) for m in game.moves]
    clocks = [tcs[0].time or 0.0, tcs[1].time or 0.0]
    max_time = [0.0, 0.0]
    loser: int | None = None
    for side, e in enumerate(engines):
        try:
            e.ensure_started()
            e.new_game()
        except EngineError as exc:
            e.kill()
            loser, rec.reason = side, f"{e.name}: could not start"
            rec.problem = rec.failure = f"{e.name} could not start: {exc}"
            break
    while loser is None:
        side = game.position.side
        if not game.legal_moves():
            loser, rec.reason = side, "no legal move"
            break
        why = game.draw_reason()
        if why:
            rec.result, rec.reason = "1/2-1/2", why
            break
        if len(rec.moves) >= max_plies:
            rec.result, rec.reason = "1/2-1/2", f"max plies ({max_plies})"
            break
        eng, tc = engines[side], tcs[side]
        if tc.move_time is not None:
            level, allowed = f"move-time={tc.move_time:g}", tc.move_time
            slack = tc.tolerance                     # per move
        else:
            # the clock keeps its deficit: the tolerance is forgiven once per game, not per move
            level = f"time={max(0.0, clocks[side]):.3f} inc={tc.inc:g}"
            allowed = clocks[side] + tc.inc
            slack = tc.tolerance
        try:
            text, used = eng.go(start_pos, rec.moves, level, max(0.0, allowed) + slack)
        except EngineTimeout as exc:
            eng.kill()                 # may still be thinking: restarted at the next game
            loser, rec.reason = side, f"{eng.name}: time ({exc})"
            rec.problem = f"{rec.reason} at ply {len(rec.moves)} pos={game.position.hub()}"
            break
        except EngineError as exc:
            eng.kill()                 # restarted at the next game
            loser, rec.reason = side, f"{eng.name}: crashed"
            rec.problem = rec.failure = (f"{eng.name} failed at ply {len(rec.moves)} "
                                         f"pos={game.position.hub()}: {exc}")
            break
        max_time[side] = max(max_time[side], used)
        if used > allowed + slack:
            what = "move time" if tc.move_time is not None else "clock"
            loser, rec.reason = side, (f"{eng.name}: time ({used:.3f} s used, "
                                       f"{max(0.0, allowed):.3f} s on the {what})")
            rec.problem = f"{rec.reason} at ply {len(rec.moves)}"
            break
        if tc.move_time is None:
            clocks[side] = clocks[side] + tc.inc - used
        try:
            move = game.play(text)
        except (IllegalMoveError, NotationError, ValueError) as exc:
            loser, rec.reason = side, f"{eng.name}: illegal move {text!r} ({exc})"
            rec.problem = f"{rec.reason} at ply {len(rec.moves)} pos={game.position.hub()}"
            break
        rec.moves.append(str(move))
    if loser is not None:
        rec.result = "0-1" if loser == 0 else "1-0"
    rec.max_time = (max_time[0], max_time[1])
    return rec


def pdn_text(rec: GameRecord, variant: str, event: str) -> str:
    from hub_engine.rules.pdn import movetext, pdn_move_text, write_pdn_tags

    v = get_variant(variant)
    game = Game(v)
    pieces = []
    for i, m in enumerate(rec.moves):
        move = game.play(m)
        pieces.append((f"{i // 2 + 1}." if i % 2 == 0 else "", pdn_move_text(move)))
    # rec.result and rec.white/black are from the first mover's side (black in english)
    white, black, result = rec.white, rec.black, rec.result
    if v.first_mover != "white":
        white, black = black, white
        result = {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
    pieces.append(("", result))
    tags = {"Event": event, "Round": str(rec.number), "White": white, "Black": black,
            "Result": result, "GameType": str(v.gametype), "Termination": rec.reason}
    return write_pdn_tags(tags) + "\n" + movetext(pieces) + "\n\n"


# --- the match -------------------------------------------------------------------------------

def parse_params(items: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"match: error: bad parameter {item!r} (name=value)")
        name, value = item.split("=", 1)
        out.append((name.strip(), value.strip()))
    return out


class MatchError(Exception):
    """The match cannot go on: an engine could not be started."""


@dataclass
class MatchOutcome:
    """Per-game scores from engine 1's view, in game order, and the engine failures (crashes)
    that happened on the way; a match with failures is not a clean result."""

    results: list[float]
    failures: list[str] = field(default_factory=list)


def run_match(args: argparse.Namespace, out=sys.stdout) -> MatchOutcome:
    """Play the match described by args; print a line per game and the summary.

    An engine that cannot be started (or does not finish its handshake) stops the match with
    MatchError; one that crashes during a game loses that game, is restarted, and is reported
    in the outcome's failures.
    """
    variant = get_variant(args.variant).name
    n_games = max(2, args.games + (args.games % 2))
    n_open = n_games // 2
    if args.openings:
        openings = read_openings(args.openings, variant)
        openings = [openings[i % len(openings)] for i in range(n_open)]
    else:
        openings = random_openings(variant, n_open, args.opening_plies, args.seed,
                                   balanced=not args.unbalanced, check_depth=args.opening_depth,
                                   max_score=args.opening_max_score)
    if args.move_time is None and args.time is None:
        args.move_time = 1.0
    tc1 = TimeControl(args.move_time, args.time, args.inc or 0.0, args.tolerance)
    tc2 = TimeControl(args.move_time2 if args.move_time2 is not None else args.move_time,
                      args.time2 if args.time2 is not None else args.time,
                      args.inc2 if args.inc2 is not None else (args.inc or 0.0), args.tolerance)
    if (args.move_time is not None and (args.time2 is not None or args.inc2 is not None)) or (
            args.time is not None and args.move_time2 is not None):
        raise SystemExit("match: error: give both engines a move time or both a clock")
    params = (parse_params(args.param1), parse_params(args.param2))
    stderr = open(args.engine_stderr, "a") if args.engine_stderr else None
    names = (args.name1 or "engine1", args.name2 or "engine2")
    default = shlex.join(self_command())
    commands = (args.engine1 or default, args.engine2 or default)
    lock = threading.Lock()
    results: dict[int, float] = {}
    records: list[GameRecord] = []
    local = threading.local()
    workers: list[tuple[MatchEngine, MatchEngine]] = []
    failures: list[str] = []
    sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    decided = threading.Event()

    def engines_of_thread() -> tuple[MatchEngine, MatchEngine]:
        if not hasattr(local, "pair"):
            local.pair = (MatchEngine(commands[0], names[0], variant, params[0], stderr),
                          MatchEngine(commands[1], names[1], variant, params[1], stderr))
            with lock:
                workers.append(local.pair)
        return local.pair

    def one(i: int) -> None:
        if decided.is_set():
            return
        e1, e2 = engines_of_thread()
        opening = openings[i // 2]
        swap = i % 2 == 1
        pair = (e2, e1) if swap else (e1, e2)
        rec = play_game(i + 1, variant, opening, pair, (tc2, tc1) if swap else (tc1, tc2),
                        args.max_plies)
        rec.first_engine_side = 1 if swap else 0
        s = rec.score_engine1()
        if rec.failure and rec.reason.endswith("could not start"):
            raise MatchError(rec.failure)
        with lock:
            if rec.failure:
                failures.append(f"game {i + 1}: {rec.failure}")
            results[i] = s
            records.append(rec)
            done = [results[k] for k in sorted(results)]
            t = " ".join(f"{x:.1f}" for x in rec.max_time)
            print(f"game {i + 1:3d}/{n_games} {rec.white} - {rec.black} {rec.result:7s} "
                  f"[{rec.reason}] plies={len(rec.moves)} opening=\"{' '.join(opening)}\" "
                  f"maxtime={t}  | {summary_line(done)}", file=out, flush=True)
            if rec.problem:
                print(f"  PROBLEM game {i + 1}: {rec.problem}", file=out, flush=True)
            if args.pdn_output:
                with open(args.pdn_output, "a", encoding="utf-8") as f:
                    f.write(pdn_text(rec, variant, f"hub-engine match {names[0]} vs {names[1]}"))
            if sprt is not None and (i ^ 1) in results:
                sprt.results = complete_pairs(results)
                print(f"  {sprt.line()}", file=out, flush=True)
                if sprt.status():
                    decided.set()

    try:
        with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
            futures = [pool.submit(one, i) for i in range(n_games)]
            try:
                for fut in futures:
                    fut.result()
            except MatchError:
                for fut in futures:
                    fut.cancel()
                raise
    finally:
        for pair in workers:
            for e in pair:
                e.quit()
        if stderr:
            stderr.close()
    final = [results[k] for k in sorted(results)]
    print(f"{names[0]} vs {names[1]} ({variant}, {len(final)} games): {summary_line(final)}",
          file=out, flush=True)
    if sprt is not None:
        sprt.results = complete_pairs(results)
        print(sprt.line(), file=out, flush=True)
    return MatchOutcome(final, failures)


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
    p.add_argument("--seed", type=int, default=1, help="seed of the random openings (default 1)")
    p.add_argument("--opening-plies", type=int, default=4,
                   help="random legal plies from the start per opening (default 4)")
    p.add_argument("--unbalanced", action="store_true",
                   help="keep random openings that leave a side a piece up, a capture to make or "
                        "a score beyond --opening-max-score (by default they are skipped)")
    p.add_argument("--opening-depth", type=int, default=10,
                   help="depth of our search that screens random openings (0 = no search; "
                        "default 10)")
    p.add_argument("--opening-max-score", type=float, default=0.5,
                   help="keep random openings our search scores within +/- this many men "
                        "(default 0.5)")
    p.add_argument("--openings", help="file of openings, one a line (Hub moves from the start)")
    p.add_argument("--max-plies", type=int, default=300, help="adjudicate a draw after this many "
                                                              "plies (default 300)")
    p.add_argument("--pdn-output", "--pgn-output", dest="pdn_output",
                   help="append the games as PDN to this file")
    p.add_argument("--engine-stderr", help="append the engines' stderr to this file "
                                           "(default: discarded)")
    p.add_argument("--sprt", type=float, nargs=2, metavar=("ELO0", "ELO1"),
                   help="stop when a sequential probability ratio test decides between H0: "
                        "engine 1 is ELO0 better and H1: ELO1 better (game pairs, logistic Elo); "
                        "--games is then the maximum (default: off)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="SPRT: chance of accepting H1 when H0 holds (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05,
                   help="SPRT: chance of accepting H0 when H1 holds (default 0.05)")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `match` on a subparsers object (hub-engine's CLI); run() is its handler."""
    p = subparsers.add_parser("match", help="play two Hub engines against each other",
                              description=__doc__.splitlines()[0])
    add_arguments(p)
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    """The CLI handler: 0 for a clean match, 1 when an engine failed to start or crashed."""
    if args.games < 1:
        raise SystemExit("match: error: --games must be at least 1")
    if args.sprt and not (args.sprt[0] < args.sprt[1] and 0 < args.alpha < 1 and 0 < args.beta < 1):
        raise SystemExit("match: error: --sprt needs ELO0 < ELO1, and --alpha, --beta in (0, 1)")
    try:
        outcome = run_match(args)
    except MatchError as exc:
        print(f"match: error: {exc}", file=sys.stderr)
        return 1
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
