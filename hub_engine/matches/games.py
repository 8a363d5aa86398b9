"""One game between two Hub engines, judged by our rules, and its PDN record.

Our rules (hub_engine.rules.position.Game) adjudicate: an illegal or missing move loses, no
legal move loses, Game.draw_reason() draws, and a game longer than max_plies is a draw. A move's
time runs from the `pos` line to `done`. With a move time, a move over it by more than the
tolerance loses; with a clock, the clock keeps any deficit and the game is lost once it is more
than the tolerance below zero. An engine that does not answer by then, crashes, or plays an
illegal move loses the game and is killed, to be restarted for its next game.

Optional adjudication (Adjudication) ends a game early: by the endgame tables, when the position
has few enough pieces and the tables know its value under the draw rules; by agreed scores,
when both engines' last N scores say the same side is winning by at least S men, or (after a
given ply) that the game is level within S men.
"""
from __future__ import annotations

import argparse
import os
import threading
from dataclasses import asdict, dataclass, field

from hub_engine.matches.engines import MatchEngine
from hub_engine.matches.openings import opening_game, start_of
from hub_engine.rules.notation import NotationError
from hub_engine.rules.position import Game, IllegalMoveError
from hub_engine.rules.variants import get_variant
from protocol.client import EngineError, EngineTimeout


@dataclass
class TimeControl:
    move_time: float | None = None
    time: float | None = None
    inc: float = 0.0
    tolerance: float = 0.5


@dataclass
class Adjudication:
    """When a game may end before the rules end it (every rule off by default)."""

    tb_pieces: int = 0                   # probe the endgame tables at this many pieces or fewer
    tb_path: str | None = None           # their directory (None: the data dir, then the package)
    resign_score: float | None = None    # win for a side when both engines agree it leads by this
    resign_moves: int = 3                # ... on each engine's last N moves
    draw_score: float | None = None      # draw when both engines' |score| stay within this
    draw_moves: int = 6                  # ... on each engine's last N moves
    draw_after: int = 40                 # ... from this ply on

    def active(self) -> bool:
        return self.tb_pieces > 0 or self.resign_score is not None or self.draw_score is not None

    def table_value(self, game: Game) -> str | None:
        """'win' / 'draw' / 'loss' for the side to move when the tables know it, else None."""
        if self.tb_pieces <= 0:
            return None
        if sum(len(p) for p in game.position.board.pieces()) > self.tb_pieces:
            return None
        return _tables(self.tb_pieces, self.tb_path).table_result(game)

    def by_scores(self, scores: tuple[list, list], plies: int) -> tuple[str, int | None] | None:
        """(why, winning side or None for a draw) when the engines' scores settle the game.

        scores[s] holds side s's reported scores, its own view, one per move it made (None when
        a move came without a score)."""
        if self.resign_score is not None and self.resign_moves > 0:
            n, s = self.resign_moves, self.resign_score
            last = [x[-n:] for x in scores]
            if all(len(x) == n and None not in x for x in last):
                for side in (0, 1):
                    if min(last[side]) >= s and max(last[1 - side]) <= -s:
                        return (f"adjudicated: both engines scored it {s:g} or more for one side "
                                f"on {n} moves each", side)
        if (self.draw_score is not None and self.draw_moves > 0 and plies >= self.draw_after):
            n, s = self.draw_moves, self.draw_score
            last = [x[-n:] for x in scores]
            if all(len(x) == n and None not in x and max(abs(v) for v in x) <= s for x in last):
                return (f"adjudicated: draw, both engines scored it within {s:g} on {n} moves "
                        "each", None)
        return None


_TABLES: dict = {}
_TABLES_LOCK = threading.Lock()


def _tables(pieces: int, path: str | None):
    """The engine's table reader (one per process and setting): it caches what it loads."""
    from hub_engine.tables.play import EngineTables

    with _TABLES_LOCK:
        key = (pieces, path)
        if key not in _TABLES:
            t = EngineTables()
            t.set_param("bb-size", str(pieces))
            if path:
                t.set_param("tables-path", path)
            _TABLES[key] = t
        return _TABLES[key]


@dataclass
class MoveStats:
    """One engine's moves in one or more games: how long they took from the runner's side and
    what the engine says it searched (its last `info` line's nodes and time)."""

    moves: int = 0
    seconds: float = 0.0             # from `pos` to `done`, summed
    searched: int = 0                # moves whose last `info` line counted nodes
    nodes: int = 0
    search_seconds: float = 0.0      # the engine's own `time=` of those moves

    def add(self, reply) -> None:
        self.moves += 1
        self.seconds += reply.seconds
        if reply.nodes > 0:
            self.searched += 1
            self.nodes += reply.nodes
            self.search_seconds += reply.search_seconds

    def merge(self, other: MoveStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        """moves, mean time a move, searched moves, nodes per second (over the engine's own
        search time, as engines report it; engines count nodes differently) and the mean search
        time of a searched move (book moves and forced answers apart: is the clock spent?)."""
        mean = self.seconds / self.moves if self.moves else 0.0
        nps = f"{self.nodes / self.search_seconds / 1e6:.2f}M" if self.search_seconds > 0 else "-"
        search = f"{self.search_seconds / self.searched:.3f}s" if self.searched else "-"
        return (f"moves={self.moves} mean-move={mean:.3f}s searched={self.searched} "
                f"nodes/s={nps} mean-search={search}")


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
    culprit: str = ""                # the engine that lost by a problem
    stats: tuple[MoveStats, MoveStats] = field(               # per side, as max_time
        default_factory=lambda: (MoveStats(), MoveStats()))
    comments: list[str] = field(default_factory=list)   # per move of `moves`: what its engine
                                     # said (Reply.comment), "" for the opening's moves

    def score_engine1(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        first_won = self.result == "1-0"
        return 1.0 if first_won == (self.first_engine_side == 0) else 0.0

    def score_of(self, name: str) -> float:
        """The score (1, 0.5, 0) of the engine labelled name, which played this game."""
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if (self.result == "1-0") == (name == self.white) else 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> GameRecord:
        d = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        d["max_time"] = tuple(d.get("max_time") or (0.0, 0.0))
        d["stats"] = tuple(MoveStats(**s) for s in d.get("stats") or ({}, {}))
        return cls(**d)


def stats_by_name(records: list[GameRecord]) -> dict[str, MoveStats]:
    """Each engine label's moves over the games (labels as in GameRecord.white/black)."""
    out: dict[str, MoveStats] = {}
    for rec in records:
        for name, stats in ((rec.white, rec.stats[0]), (rec.black, rec.stats[1])):
            out.setdefault(name, MoveStats()).merge(stats)
    return out


def _level(tc: TimeControl, clock: float) -> tuple[str, float]:
    """The `level` line of a move and the seconds it is allowed (before the tolerance)."""
    if tc.move_time is not None:
        return f"move-time={tc.move_time:g}", tc.move_time
    # the clock keeps its deficit: the tolerance is forgiven once per game, not per move
    return f"time={max(0.0, clock):.3f} inc={tc.inc:g}", clock + tc.inc


def play_game(number: int, variant: str, opening: list[str], engines: tuple[MatchEngine, MatchEngine],
              tc: TimeControl | tuple[TimeControl, TimeControl], max_plies: int,
              adjudication: Adjudication | None = None) -> GameRecord:
    """engines[0] plays the variant's first mover (the side on layout 21..32); tc is one time
    control for both, or one per side (engines[0]'s first) for time odds."""
    tcs = tc if isinstance(tc, tuple) else (tc, tc)
    adj = adjudication if adjudication is not None and adjudication.active() else None
    game = opening_game(variant, opening)
    start_pos = game.start.hub()
    rec = GameRecord(number, list(opening), engines[0].name, engines[1].name)
    rec.moves = [str(m) for m in game.moves]
    rec.comments = [""] * len(rec.moves)
    clocks = [tcs[0].time or 0.0, tcs[1].time or 0.0]
    max_time = [0.0, 0.0]
    stats = (MoveStats(), MoveStats())
    scores: tuple[list, list] = ([], [])
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
        value = adj.table_value(game) if adj is not None else None
        if value == "draw":
            rec.result, rec.reason = "1/2-1/2", "adjudicated: endgame tables (draw)"
            break
        if value is not None:
            loser = side if value == "loss" else 1 - side
            rec.reason = "adjudicated: endgame tables (win)"
            break
        eng, tc = engines[side], tcs[side]
        level, allowed = _level(tc, clocks[side])
        slack = tc.tolerance
        where = f"at ply {len(rec.moves)} pos={game.position.hub()}"
        try:
            reply = eng.go(start_pos, rec.moves, level, max(0.0, allowed) + slack)
        except EngineTimeout as exc:
            eng.kill()                 # may still be thinking: restarted at the next game
            loser, rec.reason = side, f"{eng.name}: time ({exc})"
            rec.problem = f"{rec.reason} {where}"
            break
        except EngineError as exc:
            eng.kill()                 # restarted at the next game
            loser, rec.reason = side, f"{eng.name}: crashed"
            rec.problem = rec.failure = f"{eng.name} failed {where}: {exc}"
            break
        max_time[side] = max(max_time[side], reply.seconds)
        stats[side].add(reply)
        if reply.seconds > allowed + slack:
            what = "move time" if tc.move_time is not None else "clock"
            loser, rec.reason = side, (f"{eng.name}: time ({reply.seconds:.3f} s used, "
                                       f"{max(0.0, allowed):.3f} s on the {what})")
            rec.problem = f"{rec.reason} at ply {len(rec.moves)}"
            break
        if tc.move_time is None:
            clocks[side] = clocks[side] + tc.inc - reply.seconds
        try:
            move = game.play(reply.move)
        except (IllegalMoveError, NotationError, ValueError) as exc:
            eng.kill()                 # its idea of the game is wrong: restarted at the next game
            loser, rec.reason = side, f"{eng.name}: illegal move {reply.move!r} ({exc})"
            rec.problem = f"{rec.reason} {where}"
            break
        rec.moves.append(str(move))
        rec.comments.append(reply.comment())
        if adj is not None:
            scores[side].append(reply.score)
            settled = adj.by_scores(scores, len(rec.moves))
            if settled is not None:
                rec.reason, winner = settled
                if winner is None:
                    rec.result = "1/2-1/2"
                    break
                loser = 1 - winner
    if loser is not None:
        rec.result = "0-1" if loser == 0 else "1-0"
        if rec.problem:
            rec.culprit = engines[loser].name
    rec.max_time = (max_time[0], max_time[1])
    rec.stats = stats
    return rec


def pdn_text(rec: GameRecord, variant: str, event: str, tags: dict[str, str] | None = None) -> str:
    """The game as PDN: the opening and every move from the start position, so that readers
    need no FEN (pydraughts and CheckerBoard read it); a game from another position (a ballot)
    has its FEN and SetUp tags. Each engine's move is followed by its comment (score/depth and
    seconds, GameRecord.comments). `tags` adds to (or overrides) Event, Round, White, Black,
    Result, GameType and Termination."""
    from hub_engine.rules.pdn import Style, comment_text, movetext, pdn_move_text, write_pdn_tags

    v = get_variant(variant)
    start, _moves = start_of(rec.opening)
    game = Game(v, start)
    # captures with `x` in every variant (pydraughts misreads russian `d4:b6`), and the full
    # path of a capture whose origin and destination another capture shares
    style = Style(Style.default(v).algebraic, "x")
    pieces = []
    offset = game.start.side            # 1: a ballot with the second mover to move
    for i, m in enumerate(rec.moves):
        pos = game.position
        move = game.play(m)
        ply = i + offset
        label = f"{ply // 2 + 1}." if ply % 2 == 0 else (f"{ply // 2 + 1}..." if i == 0 else "")
        pieces.append((label, pdn_move_text(move, pos, style)))
        comment = rec.comments[i] if i < len(rec.comments) else ""   # older state files: none
        if comment:
            pieces.append(("", "{" + comment_text(comment) + "}"))
    # rec.result and rec.white/black are from the first mover's side (black in english)
    white, black, result = rec.white, rec.black, rec.result
    if v.first_mover != "white":
        white, black = black, white
        result = {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
    pieces.append(("", result))
    head = {"Event": event, "Round": str(rec.number), "White": white, "Black": black,
            "Result": result, "GameType": str(v.gametype),
            "Termination": rec.reason.replace('"', "'").replace("\\", "/")}
    if start is not None:
        head.update({"SetUp": "1", "FEN": game.start.fen()})
    head.update(tags or {})
    return write_pdn_tags(head) + "\n" + movetext(pieces) + "\n\n"


def add_adjudication_arguments(p: argparse.ArgumentParser) -> None:
    """The adjudication options `match` and `tournament` share (all off by default)."""
    g = p.add_argument_group("adjudication (off unless asked for)")
    g.add_argument("--tb-pieces", type=int, default=0, metavar="N",
                   help="end a game by the endgame tables once it has N pieces or fewer and the "
                        "tables know its value under the draw rules (default 0: off)")
    g.add_argument("--tb-path", metavar="DIR",
                   help="endgame tables directory (default: $HUB_ENGINE_TABLES or the user data "
                        "dir, then the tables shipped with the package)")
    g.add_argument("--resign-score", type=float, metavar="S",
                   help="a side wins when, on each engine's last --resign-moves moves, it scored "
                        "S men or more and its opponent -S or less (default: off)")
    g.add_argument("--resign-moves", type=int, default=3, metavar="N",
                   help="moves of each engine the --resign-score must hold for (default 3)")
    g.add_argument("--draw-score", type=float, metavar="S",
                   help="a draw when, on each engine's last --draw-moves moves, both scores were "
                        "within +/- S men, from ply --draw-after on (default: off)")
    g.add_argument("--draw-moves", type=int, default=6, metavar="N",
                   help="moves of each engine the --draw-score must hold for (default 6)")
    g.add_argument("--draw-after", type=int, default=40, metavar="PLY",
                   help="no draw adjudication before this ply (default 40)")


def adjudication_of(args: argparse.Namespace) -> Adjudication:
    """The Adjudication the options of add_adjudication_arguments ask for; ValueError (naming
    the option) on a bad value."""
    from hub_engine.tables.slices import MAX_PIECES

    if not 0 <= args.tb_pieces <= MAX_PIECES:
        raise ValueError(f"--tb-pieces must be from 0 to {MAX_PIECES} (the tables' limit)")
    if args.tb_path and not os.path.isdir(os.path.expanduser(args.tb_path)):
        raise ValueError(f"--tb-path {args.tb_path} is not a directory")
    for name in ("resign_moves", "draw_moves"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    if args.draw_after < 0:
        raise ValueError("--draw-after must be 0 or more")
    for name in ("resign_score", "draw_score"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be 0 or more")
    return Adjudication(args.tb_pieces, args.tb_path, args.resign_score, args.resign_moves,
                        args.draw_score, args.draw_moves, args.draw_after)


# --- games described by plain data (a tournament's schedule, a Dask task) ----------------------

def game_of_task(task: dict, settings: dict, engines: dict[str, MatchEngine]) -> GameRecord:
    """Play the game task describes ({number, opening, white, black}: white plays the first
    mover) with the settings' time control, max plies and adjudication, on engines by name."""
    tc = TimeControl(**settings["time"])
    adjudication = Adjudication(**settings["adjudication"])
    pair = (engines[task["white"]], engines[task["black"]])
    return play_game(task["number"], settings["variant"], task["opening"], pair, tc,
                     settings["max_plies"], adjudication)


def engine_of(name: str, settings: dict, stderr=None,
              handshake_timeout: float | None = None) -> MatchEngine:
    """The MatchEngine of the settings' engine `name` (not started)."""
    spec = settings["engines"][name]
    extra = {} if handshake_timeout is None else {"handshake_timeout": handshake_timeout}
    return MatchEngine(spec["command"], name, settings["variant"],
                       [tuple(p) for p in spec["params"]], stderr, **extra)


def play_task(task: dict, settings: dict) -> dict:
    """A cluster worker's entry point: start the game's two engines, play it, quit them; the
    game record as a dict."""
    engines = {name: engine_of(name, settings) for name in (task["white"], task["black"])}
    try:
        return game_of_task(task, settings, engines).to_dict()
    finally:
        for e in engines.values():
            e.quit()
