"""The draughts engine behind the Hub session (protocol.EngineInterface).

`Engine` joins the pieces, each in a module of its own:

- params.py: the Hub parameters (names, ranges, parsing, validation);
- replay.py: the `pos` command's game, replayed incrementally;
- root.py: the root decisions (an answer without search, the opening book's place, MultiPV
  lines, the endgame tables' root rule, a skill level's choice);
- threads.py, deepening.py: the searchers and lazy-SMP helpers, iterative deepening with
  aspiration windows and the `info` reports;
- clock.py (with timeman.py): the move's time budget, pondering and the hard-limit timer.

A `go` runs: root decision (answer at once?) -> plan -> clock armed -> iterative deepening ->
skill choice -> (ponder / unlimited: wait for ponder-hit or stop) -> the answer.
"""
from __future__ import annotations

import random
from typing import Callable

from loguru import logger

from hub_engine import __version__
from hub_engine.core import score_to_hub
from hub_engine.engine import root, skill
from hub_engine.engine.clock import Clock
from hub_engine.engine.deepening import Deepening
from hub_engine.engine.params import Settings
from hub_engine.engine.replay import Replayer
from hub_engine.engine.threads import Searchers
from hub_engine.rules.position import Game, IllegalMoveError, Move, Position
from hub_engine.rules.variants import Variant
from protocol import Info, Limits, ParamSpec, SearchResult

class Engine:
    """One engine instance per process; the session calls it from its threads as documented."""

    def __init__(self) -> None:
        self.settings = Settings()
        self.game = Game(self.settings.variant)
        self.book: root.Book | None = self._book_move   # consulted for `go think`
        self.searchers = Searchers()
        self.clock = Clock(on_hard_limit=self._time_up)
        self._replayer = Replayer()
        self._rng = random.Random()                 # skill levels' choices
        self._search_now: Deepening | None = None   # the running (or last) search
        self._last_root: tuple[Position, list[Move]] | None = None   # the last search's game

    @property
    def variant(self) -> Variant:
        return self.settings.variant

    @property
    def notation(self) -> str:
        return self.settings.notation

    # -- protocol: identity and parameters ---------------------------------------------------
    def identity(self) -> dict[str, str]:
        return {"name": "hub-engine", "version": __version__, "author": "hub-engine-developers",
                "country": "none"}

    def params(self) -> list[ParamSpec]:
        return self.settings.specs()

    def set_param(self, name: str, value: str) -> None:
        before = self.settings.variant.name
        self.settings.set(name, value)
        if self.settings.variant.name != before:
            self.game = Game(self.settings.variant)

    # -- protocol: lifecycle ------------------------------------------------------------------
    def init(self) -> None:
        """Allocate the transposition table and one searcher per thread (the heavy part); with
        multipv > 1 also the searcher of the lines after the best, with a table of its own;
        load the opening book. A book file refused (damaged, foreign) is a ValueError after
        all that is done: the session reports it and the engine plays on without it."""
        self.searchers.allocate(self.settings)
        refused = self.searchers.problems + self.settings.book.load(self.settings.variant)
        if refused:
            raise ValueError("; ".join(refused))

    def new_game(self) -> None:
        self.clock.overhead.forget()
        self.searchers.new_game()

    def set_position(self, pos: str | None, moves: list[str]) -> None:
        """Replace the game; on any error the previous game is kept unchanged.

        Moves are read in the `notation` setting; when they are illegal there but legal in the
        other numbering, the engine switches to it (an old client, below).
        """
        variant, notation = self.settings.variant, self.settings.notation
        try:
            start = Position.start(variant) if pos is None else Position.from_hub(variant, pos)
        except ValueError as exc:
            message = str(exc)   # notation's messages already start with "bad position"
            raise ValueError(message if message.startswith("bad position")
                             else f"bad position: {message}") from None
        key = start.hub()
        try:
            self.game = self._replayer.replay(variant, self.game, key, start, moves, notation)
            return
        except IllegalMoveError as first_error:
            other = self.settings.other_notation()
            try:
                game = self._replayer.replay(variant, self.game, key, start, moves, other)
            except ValueError:
                raise first_error from None
        # an old client (pydraughts 0.5.x numbers russian and brazilian moves in the layout
        # order) is rescued; said at INFO, which reaches the log file only: pydraughts reads
        # stderr as protocol lines
        logger.info("moves are legal in {} notation, not {}: switching for this session",
                    other, notation)
        self.settings.notation = other
        self.game = game

    def _ponder_in_book(self, limits: Limits, result: SearchResult, info: Info,
                        on_info: Callable[[Info], None]) -> SearchResult:
        """`go ponder` at a book position: nothing to search; once ponder-hit (or stop) comes,
        the book's move, as `go think` would answer it."""
        self.clock.arm(limits, "ponder")
        halt, hit = self.searchers.halt, self.clock.running
        while not halt.is_set() and not hit.is_set():
            halt.wait(0.01)
        on_info(info)
        return result

    def _book_move(self, game: Game) -> tuple[Move, float, Move | None] | None:
        """The opening book's move, its score and the book's best reply here
        (hub_engine/book/play.py decides: `go think` with one line, a wider margin below
        skill 20), or None."""
        s = self.settings
        found = s.book.decide(game, "think", s.multipv, s.skill, skill.MAX_SKILL)
        if found is None:
            return None
        return found.move, score_to_hub(found.value), s.book.reply(game, found.move)

    # -- protocol: search ---------------------------------------------------------------------
    def stop(self) -> None:
        self.searchers.stop()

    def ponder_hit(self) -> None:
        self.clock.ponder_hit()

    def _time_up(self) -> None:
        """The hard limit (timer thread): stop the search, once it has its 1-ply answer; an
        iteration after that one stops at its deadline anyway."""
        running = self._search_now
        if running is not None and running.best:
            self.stop()

    def search(self, limits: Limits, mode: str, on_info: Callable[[Info], None]) -> SearchResult:
        self.searchers.halt.clear()     # a stale repeated stop of the last search is forgotten
        self._search_now = None
        self.clock.begin(limits, mode)
        try:
            return self._search(limits, mode, on_info)
        except Exception as exc:
            # never an empty move while a legal one exists: the best found so far, or any
            legal = self.game.position.legal_moves()
            if not legal:
                raise
            logger.opt(exception=exc).error("search failed ({}); playing a legal move", exc)
            best = self._search_now.best if self._search_now is not None else []
            return SearchResult((best or legal)[0].hub(self.settings.notation))
        finally:
            self.clock.end()

    def _plies_since_last_search(self) -> int:
        """How many plies the game went on since the last search (0: another game, a
        position set up, moves taken back), for the searchers' killers."""
        last, self._last_root = self._last_root, (self.game.start, self.game.moves)
        if last is None or last[0] != self.game.start:
            return 0
        before, now = last[1], self._last_root[1]
        if len(now) <= len(before) or now[:len(before)] != before:
            return 0
        return len(now) - len(before)

    def _search(self, limits: Limits, mode: str, on_info: Callable[[Info], None]) -> SearchResult:
        settings, notation = self.settings, self.settings.notation
        if self.searchers.stale(settings):
            self.searchers.allocate(settings)
        self.searchers.new_search(self._plies_since_last_search())
        answer = root.answer_at_once(self.game, limits, mode, notation, self.book, on_info)
        if answer is not None:
            return answer
        if mode == "ponder":
            booked = root.from_book(self.game, notation, self.book)
            if booked is not None:
                return self._ponder_in_book(limits, *booked, on_info)
        plan = root.plan(settings, self.game, limits, mode, self.searchers.every())
        self._search_now = running = Deepening(self.searchers, self.clock, plan, notation,
                                               settings.multipv, on_info)
        self.clock.arm(limits, mode, root.phase(self.game))
        pv = running.run(self.game, mode)
        if plan.weak:
            pv = root.skill_choice(pv, running.last_lines, running.last_info, running.last_depth,
                                   settings.skill, self._rng, notation, on_info)
        unlimited = limits.is_unlimited()
        if mode == "ponder" or unlimited:
            # a search that finished early (MAX_DEPTH or a proven result) waits: with no limit
            # for `stop` (hub-protocol.md: "search until stop"), a ponder search for the
            # opponent's move or `stop`
            halt, hit = self.searchers.halt, self.clock.running
            while not halt.is_set() and (unlimited or not hit.is_set()):
                halt.wait(0.01)
        best = pv[0] if pv else self.game.position.legal_moves()[0]
        ponder = pv[1].hub(notation) if len(pv) > 1 else None
        return SearchResult(best.hub(notation), ponder)
