"""The draughts engine behind the Hub session: parameters, position, search threads, clock.

It implements protocol.EngineInterface. The search itself runs in the compiled core without the
GIL, one iteration per call, so that this file can do iterative deepening, aspiration windows,
time decisions and `info` reports in readable Python between iterations.
"""
from __future__ import annotations

import math
import os
import random
import re
import threading
import time
from dataclasses import replace
from typing import Callable

from loguru import logger

from hub_engine import __version__
from hub_engine.engine import skill
from hub_engine.core import INF, MATE, Searcher, TransTable, score_to_hub
from hub_engine.learn.weights import EVAL_KINDS, evaluation
from hub_engine.rules.position import Game, IllegalMoveError, Position
from hub_engine.tables.play import EngineTables
from hub_engine.engine.timeman import Budget, Overhead, Stability, budget
from hub_engine.rules.variants import VARIANTS, Variant, get_variant
from protocol import Info, Limits, ParamSpec, SearchResult
from protocol.errors import shorten

MAX_DEPTH = 100           # `level depth=` is clamped to 1..MAX_DEPTH
MAX_NODES = 10**18        # ... and `nodes=` to 1..MAX_NODES (the core counts in 64 bits)
ASPIRATION = 25            # first window half-width, internal units (man = 100)
TT_LOG2_DEFAULT, TT_LOG2_MIN, TT_LOG2_MAX = 22, 12, 28   # 28: 4 GiB
MAX_THREADS = max(1, os.cpu_count() or 1)
NOTATIONS = ("variant", "layout")
MAX_MULTIPV = 64          # the core can leave out at most this many root moves


def parse_bool(value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"bad bool value {value!r} (true or false)")


def search_bounds(limits: Limits) -> tuple[int, int]:
    """(max depth, node limit or 0 for none) of `level` limits.

    Huge values are clamped; `depth` or `nodes` of 0 or less mean the smallest search (the
    1-ply iteration, answered at once), as Scan answers `depth=0` with an instant move.
    """
    depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
    nodes = 0 if limits.nodes is None else max(1, min(limits.nodes, MAX_NODES))
    return depth, nodes


def parse_int(name: str, value: str, lo: int, hi: int) -> int:
    """An integer parameter in lo..hi, in ASCII digits (int() also takes other scripts')."""
    text = value.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(f"bad value {value!r} for {name}: an integer is expected")
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > len(str(hi)) + 1:         # int() refuses over 4,300 digits
        raise ValueError(f"bad value {shorten(text)} for {name}: must be between {lo} and {hi}")
    n = int(text[0] + digits if text[0] in "+-" else digits)
    if not lo <= n <= hi:
        raise ValueError(f"bad value {n} for {name}: must be between {lo} and {hi}")
    return n


class Engine:
    """One engine instance per process; the session calls it from its threads as documented."""

    def __init__(self) -> None:
        self.variant: Variant = get_variant("brazilian")
        self.notation = "variant"
        self.tt_log2 = TT_LOG2_DEFAULT
        self.threads = 1
        self.ponder = False
        self.multipv = 1
        self.skill = skill.MAX_SKILL
        self._rng = random.Random()                # skill levels' choices
        self._last_lines: list = []                # the last completed iteration's lines
        self._last_depth = 0
        self._last_info = Info()                   # the last `info` reported
        self.eval = EVAL_KINDS[0]             # learned (shipped weights) or hand (eval.json)
        self.game = Game(self.variant)
        self._game_source: tuple | None = None    # (pos, notation, moves, game) of the last pos
        self._tt: TransTable | None = None
        self._searchers: list[Searcher] = []
        self._lines: Searcher | None = None       # MultiPV's lines after the best, own table
        self._searchers_variant: str | None = None
        self._searchers_eval: str | None = None
        self._halt = threading.Event()
        self._ponder_hit = threading.Event()     # set while this move's clock runs
        self._state = "idle"                      # idle | pondering | running
        self._early_hit = False
        self._clock_start = 0.0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._budget = Budget(None, None)
        self._best: list = []                      # the running search's best line so far
        self._overhead = Overhead()                # per-move cost the engine cannot see
        self.tables = EngineTables()              # bb-size, tables-path (hub_engine/tables/play.py)
        self._tables_version = -1

    # -- protocol: identity and parameters ---------------------------------------------------
    def identity(self) -> dict[str, str]:
        return {"name": "hub-engine", "version": __version__, "author": "hub-engine-developers",
                "country": "none"}

    def params(self) -> list[ParamSpec]:
        return [
            ParamSpec("variant", "enum", self.variant.name, values=list(VARIANTS)),
            ParamSpec("notation", "enum", self.notation, values=list(NOTATIONS)),
            ParamSpec("tt-size", "int", self.tt_log2, min=TT_LOG2_MIN, max=TT_LOG2_MAX),
            ParamSpec("threads", "int", self.threads, min=1, max=MAX_THREADS),
            ParamSpec("ponder", "bool", self.ponder),
            ParamSpec("multipv", "int", self.multipv, min=1, max=MAX_MULTIPV),
            ParamSpec("skill", "int", self.skill, min=1, max=skill.MAX_SKILL),
            ParamSpec("eval", "enum", self.eval, values=list(EVAL_KINDS)),
            *self.tables.params(self.variant),
        ]

    def set_param(self, name: str, value: str) -> None:
        name = name.strip().lower()
        if name == "variant":
            variant = get_variant(value)
            if variant.name != self.variant.name:
                self.variant = variant
                self.game = Game(variant)
        elif name == "notation":
            if value.strip().lower() not in NOTATIONS:
                raise ValueError(f"bad value {value!r} for notation (variant or layout)")
            self.notation = value.strip().lower()
        elif name == "tt-size":
            self.tt_log2 = parse_int(name, value, TT_LOG2_MIN, TT_LOG2_MAX)
        elif name == "threads":
            self.threads = parse_int(name, value, 1, MAX_THREADS)
        elif name == "ponder":
            self.ponder = parse_bool(value)
        elif name == "multipv":
            self.multipv = parse_int(name, value, 1, MAX_MULTIPV)
        elif name == "skill":
            self.skill = parse_int(name, value, 1, skill.MAX_SKILL)
        elif name == "eval":
            if value.strip().lower() not in EVAL_KINDS:
                raise ValueError(f"bad value {value!r} for eval ({' or '.join(EVAL_KINDS)})")
            self.eval = value.strip().lower()
        elif self.tables.set_param(name, value):
            pass
        else:
            logger.debug("ignoring unknown parameter {}={}", name, value)

    # -- protocol: lifecycle ------------------------------------------------------------------
    def init(self) -> None:
        """Allocate the transposition table and one searcher per thread (the heavy part); with
        multipv > 1 also the searcher of the lines after the best, with a table of its own."""
        if self._tt is None:
            self._tt = TransTable(self.tt_log2)
        elif self._tt.log2 != self.tt_log2:
            self._tt.resize(self.tt_log2)
        weights = evaluation(self.variant.name, self.eval)
        self._searchers = [Searcher(self.variant.core_rules, self._tt, weights)
                           for _ in range(self.threads)]
        self._lines = (Searcher(self.variant.core_rules, TransTable(self.tt_log2), weights)
                       if self._wants_lines() else None)
        self._searchers_variant = self.variant.name
        self._searchers_eval = self.eval
        self.tables.attach(self._all_searchers(), self.variant)
        self._tables_version = self.tables.version

    def _all_searchers(self) -> list:
        return self._searchers + ([self._lines] if self._lines is not None else [])

    def _wants_lines(self) -> bool:
        """Whether searches need more than one line (MultiPV, or a skill level's candidates)."""
        return self.multipv > 1 or self.skill < skill.MAX_SKILL

    def _ready(self) -> None:
        if (self._tt is None or self._searchers_variant != self.variant.name
                or self._searchers_eval != self.eval
                or len(self._searchers) != self.threads or self._tt.log2 != self.tt_log2
                or (self._wants_lines() and self._lines is None)
                or (self._lines is not None and self._lines.tt.log2 != self.tt_log2)
                or self._tables_version != self.tables.version):
            self.init()

    def new_game(self) -> None:
        self._overhead.forget()
        if self._tt is not None:
            self._tt.clear()
        for s in self._searchers:
            s.clear_heuristics()
        if self._lines is not None:
            self._lines.tt.clear()
            self._lines.clear_heuristics()

    def set_position(self, pos: str | None, moves: list[str]) -> None:
        """Replace the game; on any error the previous game is kept unchanged.

        When `moves` extend (or share a start with) the moves of the last `pos` from the same
        position, only the difference is undone and played: clients resend the whole game every
        move, and replaying 200 plies would cost the clock a few milliseconds each time.
        """
        try:
            start = (Position.start(self.variant) if pos is None
                     else Position.from_hub(self.variant, pos))
        except ValueError as exc:
            message = str(exc)   # notation's messages already start with "bad position"
            raise ValueError(message if message.startswith("bad position")
                             else f"bad position: {message}") from None
        key = start.hub()
        try:
            self.game = self._replay(key, start, moves, self.notation)
            return
        except IllegalMoveError as first_error:
            other = NOTATIONS[1 - NOTATIONS.index(self.notation)]
            try:
                game = self._replay(key, start, moves, other)
            except ValueError:
                raise first_error from None
        # an old client (pydraughts 0.5.x numbers russian and brazilian moves in the layout
        # order) is rescued; said at INFO, which reaches the log file only: pydraughts reads
        # stderr as protocol lines
        logger.info("moves are legal in {} notation, not {}: switching for this session",
                    other, self.notation)
        self.notation = other
        self.game = game

    def _replay(self, key: str, start: Position, moves: list[str], notation: str) -> Game:
        """The game from `start` (Hub string `key`) through `moves`; self.game is left as it
        was, whatever happens (a ValueError for an illegal or malformed move)."""
        last = self._game_source
        if last is None or last[:2] != (key, notation) or last[3] is not self.game:
            game = Game(self.variant, start)
            for text in moves:
                game.play(text, notation)
        else:
            game = self.game
            same = 0
            for old, new in zip(last[2], moves):
                if old != new:
                    break
                same += 1
            undone = [game.undo() for _ in range(len(last[2]) - same)]
            played = 0
            try:
                for text in moves[same:]:
                    game.play(text, notation)
                    played += 1
            except Exception:
                for _ in range(played):
                    game.undo()
                for move in reversed(undone):
                    game.play(move)
                raise
        self._game_source = (key, notation, list(moves), game)
        return game

    # -- protocol: search ---------------------------------------------------------------------
    def stop(self) -> None:
        self._halt.set()
        for s in self._searchers:
            s.stop()
        if self._lines is not None:
            self._lines.stop()

    def ponder_hit(self) -> None:
        with self._lock:
            if self._state == "pondering":
                self._state = "running"
                self._start_clock()
            elif self._state == "idle":
                self._early_hit = True     # overtook the first lines of search(): keep it

    def _start_clock(self, since: float | None = None) -> None:
        """The clock runs from `since` (default now): arm the hard-limit timer (caller holds
        the lock). No timer for a zero budget: the 1-ply iteration must complete."""
        self._ponder_hit.set()
        now = time.monotonic()
        self._clock_start = now if since is None else min(since, now)
        if self._budget.hard:
            left = max(0.001, self._clock_start + self._budget.hard - now)
            self._timer = threading.Timer(left, self._time_up)
            self._timer.daemon = True
            self._timer.start()

    def _time_up(self) -> None:
        """The hard limit (timer thread): stop the search, once it has its 1-ply answer; an
        iteration after that one stops at its deadline anyway."""
        if self._best:
            self.stop()

    def search(self, limits: Limits, mode: str, on_info: Callable[[Info], None]) -> SearchResult:
        self._halt.clear()           # a stale repeated stop of the last search is forgotten
        self._best = []
        started = min(time.monotonic(), math.inf if limits.issued is None else limits.issued)
        on_clock = (mode == "think" and limits.time is not None and limits.move_time is None
                    and not limits.infinite)
        if on_clock:
            self._overhead.next_move(limits.time, limits.inc)
            logger.debug("move overhead: {:.2f} ms", 1000 * self._overhead.estimate)
        else:
            self._overhead.forget()
        try:
            return self._search(limits, mode, on_info)
        except Exception as exc:
            # never an empty move while a legal one exists: the best found so far, or any
            legal = self.game.position.legal_moves()
            if not legal:
                raise
            logger.opt(exception=exc).error("search failed ({}); playing a legal move", exc)
            return SearchResult((self._best or legal)[0].hub(self.notation))
        finally:
            if on_clock:
                self._overhead.moved(limits.time, limits.inc, time.monotonic() - started)
            with self._lock:
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None
                self._state = "idle"
                self._early_hit = False

    def _search(self, limits: Limits, mode: str, on_info: Callable[[Info], None]) -> SearchResult:
        self._ready()
        self._tt.new_search()
        if self._lines is not None:
            self._lines.tt.new_search()
        root = self.game.position
        legal = root.legal_moves()
        if not legal:
            return SearchResult(None)
        if mode == "think" and len(legal) == 1 and not limits.is_unlimited():
            return SearchResult(legal[0].hub(self.notation))
        # `go analyze` honours limits the client gave; with none it runs until `stop`
        self._budget = (Budget(None, None) if limits.is_unlimited() else
                        budget(limits.move_time, limits.time, limits.inc, limits.moves,
                               self._overhead.estimate))
        with self._lock:
            if mode == "ponder" and not self._early_hit:
                self._state = "pondering"    # no clock until ponder-hit
                self._ponder_hit.clear()
                self._clock_start = time.monotonic()
            else:
                self._state = "running"
                self._start_clock(None if mode == "ponder" else limits.issued)
        weak = self.skill < skill.MAX_SKILL and mode != "analyze"
        pv = self._deepen(root, limits, mode, on_info, weak)
        if weak:
            pv = self._skill_choice(pv, on_info)
        unlimited = limits.is_unlimited()
        if mode == "ponder" or unlimited:
            # a search that finished early (MAX_DEPTH or a proven result) waits: with no limit
            # for `stop` (hub-protocol.md: "search until stop"), a ponder search for the
            # opponent's move or `stop`
            while not self._halt.is_set() and (unlimited or not self._ponder_hit.is_set()):
                self._halt.wait(0.01)
        best = pv[0] if pv else legal[0]
        ponder = pv[1].hub(self.notation) if len(pv) > 1 else None
        return SearchResult(best.hub(self.notation), ponder)

    def _skill_choice(self, pv: list, on_info: Callable[[Info], None]) -> list:
        """A skill level's move among the last iteration's lines; when it is not the best line,
        one more `info` shows the chosen line (a client keeps the last one)."""
        lines = self._last_lines
        if len(lines) <= 1:
            return pv
        k = skill.choose([score_to_hub(line[0]) for line in lines], self.skill, self._rng)
        if k == 0:
            return pv
        line_score, chosen, mean_depth = lines[k]
        on_info(replace(self._last_info, depth=self._last_depth, mean_depth=mean_depth,
                        score=score_to_hub(line_score), multipv=None,
                        pv=[m.hub(self.notation) for m in chosen]))
        return chosen

    def _deepen(self, root: Position, limits: Limits, mode: str,
                on_info: Callable[[Info], None], weak: bool = False) -> list:
        """Iterative deepening on the main searcher, helpers running lazy SMP beside it.

        With `multipv` N > 1 each iteration searches N lines: the best, then the best without
        the first moves found so far, each with its own aspiration window (exact scores). The
        lines after the best are searched by a searcher with its own table and heuristics, so
        the best line is exactly the one multipv 1 finds; a later line that this second search
        finds better than the best (search paths differ) is shown level with it, so the scores
        stay ordered and the move played is the best line's. The `info` lines (`multipv=k`) come
        worst first and the best last, so a client that keeps only the last `info` line still
        sees the best line.
        """
        main = self._searchers[0]
        history = self.game.history_hashes()[:-1]
        counters = self.game.counters
        max_depth, node_limit = search_bounds(limits)
        wanted = max(self.multipv, skill.CANDIDATES if weak else 1)
        n_lines = max(1, min(wanted, len(root.legal_moves())))
        cap = skill.node_budget(self.skill) if weak else None
        if cap is not None:
            node_limit = min(node_limit, cap) if node_limit else cap
        self._last_lines = []
        if self.tables.prepare_root(self._all_searchers(), self.game):
            max_depth = 1      # every move's exact distance is one probe away
        helpers = self._start_helpers(root, history, counters, max_depth)
        t0 = time.monotonic()
        nodes = 0
        best_pv: list = []
        score = 0
        guesses: list[int] = []          # each line's score in the last iteration
        stability = Stability()
        try:
            for depth in range(1, max_depth + 1):
                if depth > 1 and self._halt.is_set():
                    break
                if node_limit and nodes >= node_limit:
                    break
                # depth 1 is always completed, whatever the limits: never an unsearched move
                deadline = self._deadline() if depth > 1 else 0.0
                lines: list[tuple[int, list, float]] = []
                completed = True
                for k in range(n_lines):
                    left = max(1, node_limit - nodes) if node_limit and depth > 1 else 0
                    guess = guesses[k] if k < len(guesses) else score
                    exclude = [(pv[0].frm, pv[0].to, pv[0].captured, pv[0].promote)
                               for _s, pv, _m in lines]
                    searcher = main if k == 0 else self._lines
                    ceiling = lines[0][0] if lines else None
                    result, used = self._aspirate(searcher, root, depth, guess, history,
                                                  counters, deadline, left, exclude, ceiling)
                    nodes += used
                    it_score, pv_moves, done, mean_depth = result
                    pv = self._legal_pv(root, pv_moves)
                    if pv and (done or k == 0):
                        lines.append((it_score, pv, mean_depth))
                    if not done or not pv:
                        completed = False
                        break
                if not lines:
                    break
                lines[1:] = sorted(lines[1:], key=lambda line: -line[0])   # the best stays first
                it_score, pv, mean_depth = lines[0]
                if completed or not best_pv or pv[0] != best_pv[0]:
                    prev = score
                    best_pv, score = pv, it_score
                    self._best = best_pv
                    self._report(on_info, depth, lines[:self.multipv] if completed else lines[:1],
                                 nodes + sum(h.nodes for h in helpers), t0)
                if completed or not self._last_lines:
                    self._last_lines, self._last_depth = lines, depth
                if not completed:
                    break
                guesses = [line[0] for line in lines]
                factor = stability.update(best_pv[0].key(), prev - score)
                if self._should_stop(mode, factor, score, depth):
                    break
        finally:
            for h in helpers:
                h.halt()
        return best_pv

    def _report(self, on_info: Callable[[Info], None], depth: int,
                lines: list[tuple[int, list, float]], nodes: int, t0: float) -> None:
        """One `info` per line, the best last; `multipv=k` only when MultiPV is on."""
        elapsed = time.monotonic() - t0
        nps = nodes / elapsed if elapsed > 0 else None
        for k in range(len(lines), 0, -1):
            line_score, pv, mean_depth = lines[k - 1]
            self._last_info = Info(depth=depth, mean_depth=mean_depth,
                                   score=score_to_hub(line_score), nodes=nodes, time=elapsed,
                                   nps=nps, pv=[m.hub(self.notation) for m in pv],
                                   multipv=k if self.multipv > 1 else None)
            on_info(self._last_info)

    def _aspirate(self, searcher: Searcher, root: Position, depth: int, guess: int,
                  history: list, counters: tuple, deadline: float, node_limit: int,
                  exclude: list | None = None, ceiling: int | None = None):
        """One iteration with an aspiration window around the last score (root moves in
        `exclude` left out). With a `ceiling`, a score above it is not searched for: the
        result is then `ceiling` (MultiPV's later lines are never shown above the best)."""
        delta = ASPIRATION
        top = INF if ceiling is None else ceiling + 1
        if depth >= 4 and abs(guess) < MATE - 1000:
            alpha, beta = guess - delta, min(guess + delta, top)
            if alpha >= beta:
                alpha = beta - delta
        else:
            alpha, beta = -INF, top
        used = 0
        while True:
            if depth > 1 and self._halt.is_set():
                return (guess, [], False, 0.0), used
            score, pv, nodes, completed, mean_depth, _sel = searcher.iterate(
                root.board, depth, alpha, beta, history, counters, deadline,
                max(1, node_limit - used) if node_limit else 0, False, exclude or ())
            used += nodes
            if not completed:
                return (score, pv, False, mean_depth), used
            if score <= alpha and alpha > -INF:
                alpha = max(-INF, score - delta)
            elif score >= beta and beta == top and ceiling is not None:
                return (ceiling, pv, True, mean_depth), used
            elif score >= beta and beta < INF:
                beta = min(top, score + delta)
            else:
                return (score, pv, True, mean_depth), used
            delta *= 3
            if delta > 400:
                alpha, beta = -INF, top

    def _deadline(self) -> float:
        if self._budget.hard is None or not self._ponder_hit.is_set():
            return 0.0
        return self._clock_start + self._budget.hard

    def _should_stop(self, mode: str, factor: float, score: int, depth: int) -> bool:
        """After a completed iteration: is another one worth starting?"""
        if self._halt.is_set():
            return True
        if mode == "think" and abs(score) >= MATE - 1000 and depth > MATE - abs(score) + 2:
            return True    # a proven result does not get better with depth
        if self._budget.soft is None or self._budget.exact or not self._ponder_hit.is_set():
            return False
        elapsed = time.monotonic() - self._clock_start
        return elapsed > self._budget.soft * factor * 0.55

    def _legal_pv(self, root: Position, pv_moves: list) -> list:
        """The pv as legal Moves, cut at the first move that is not legal (a stale table hit)."""
        out = []
        pos = root
        for frm, to, captured, promote in pv_moves:
            match = [m for m in pos.legal_moves()
                     if m.frm == frm and m.to == to and m.captured == tuple(captured)
                     and m.promote == bool(promote)]
            if not match:
                break
            out.append(match[0])
            pos = pos.play(match[0])
        return out

    def _start_helpers(self, root: Position, history: list, counters: tuple,
                       max_depth: int) -> list["_Helper"]:
        helpers = [_Helper(s, root, history, counters, max_depth) for s in self._searchers[1:]]
        for h in helpers:
            h.start()
        return helpers


class _Helper(threading.Thread):
    """A lazy-SMP helper: deepens the same root on the shared table until halted."""

    def __init__(self, searcher: Searcher, root: Position, history: list, counters: tuple,
                 max_depth: int) -> None:
        super().__init__(daemon=True)
        self.searcher, self.root, self.history, self.counters = searcher, root, history, counters
        self.max_depth = max_depth
        self.nodes = 0
        self._halted = threading.Event()

    def run(self) -> None:
        for depth in range(1, self.max_depth + 1):
            if self._halted.is_set():
                return
            _s, _pv, nodes, completed, _m, _sel = self.searcher.iterate(
                self.root.board, depth, -INF, INF, self.history, self.counters, 0.0, 0, True)
            self.nodes += nodes
            if not completed:
                return

    def halt(self) -> None:
        """Stop the helper; stop() is repeated in case it raced with the start of an iteration."""
        self._halted.set()
        for _ in range(200):
            self.searcher.stop()
            self.join(timeout=0.005)
            if not self.is_alive():
                return
