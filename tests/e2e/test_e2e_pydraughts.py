"""Games and pondering through pydraughts' HubEngine, the client behind lidraughts-bot.

Two engine processes play each other; pydraughts' own board checks every move. One side plays
on a clock (`Limit(time=..., inc=...)`), the other cycles through `movetime`, `depth` and
`nodes`, so every limit kind pydraughts can send is used in every variant it supports.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time

import pytest

draughts = pytest.importorskip("draughts")
from draughts.engine import Limit
from e2e_helpers import (
    PlayThread,
    check_pydraughts_info,
    check_pydraughts_move,
    close_pydraughts,
    open_pydraughts,
    play_with_timeout,
)

MAX_PLIES = 44
START_CLOCK = 3.0
INC = 0.05


class ClockSide:
    """Plays on a clock: Limit(time=clock left, inc=INC); the clock is kept like a server's."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.clock = START_CLOCK
        self.moves = 0

    def limit(self):
        return Limit(time=round(self.clock, 3), inc=INC), None

    def spent(self, seconds: float, limit) -> None:
        # no tight timing assert: only that the engine did not blow far past what it was given
        assert seconds < limit.time + INC + 3.0, (seconds, limit.time)
        self.clock = max(0.3, self.clock - seconds + INC)
        self.moves += 1


class CyclingSide:
    """Cycles through movetime, depth and nodes limits."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._kinds = itertools.cycle([
            (Limit(movetime=0.05), None),
            (Limit(depth=4), 4),
            (Limit(nodes=2000), None),
        ])
        self.moves = 0

    def limit(self):
        return next(self._kinds)

    def spent(self, seconds: float, limit) -> None:
        assert seconds < 10.0, seconds
        self.moves += 1


def play_game(variant: str, first_cls, second_cls,
              options: dict[str, str] | None = None) -> tuple[int, object]:
    """Two engines, pydraughts' board as referee; returns (plies played, final board)."""
    engines = [open_pydraughts(variant, options), open_pydraughts(variant, options)]
    try:
        sides = [first_cls(engines[0]), second_cls(engines[1])]
        board = draughts.Board(variant=variant)
        plies = 0
        while plies < MAX_PLIES and board.winner() is None:
            side = sides[plies % 2]
            limit, max_depth = side.limit()
            legal_count = len(board.legal_moves())
            t0 = time.monotonic()
            result = play_with_timeout(side.engine, board, limit)
            side.spent(time.monotonic() - t0, limit)
            check_pydraughts_move(board, result)
            check_pydraughts_info(result.info, legal_count, max_depth)
            if result.ponder is not None:
                after = board.copy()
                after.push(result.move)
                check_pydraughts_move(after, type("R", (), {"move": result.ponder})())
            board.push(result.move)
            plies += 1
        return plies, board
    finally:
        codes = [close_pydraughts(e) for e in engines]
        assert codes == [0, 0], f"engines did not quit cleanly: {codes}"


@pytest.mark.parametrize("variant, first_cls, second_cls, options", [
    ("russian", ClockSide, CyclingSide, None),
    ("brazilian", CyclingSide, ClockSide, None),
    ("italian", ClockSide, CyclingSide, None),
    ("english", CyclingSide, ClockSide, {"threads": "2"}),     # lazy SMP through the protocol
])
def test_game_between_two_engines(variant, first_cls, second_cls, options, caplog):
    caplog.set_level(logging.WARNING, logger="pydraughts")
    plies, board = play_game(variant, first_cls, second_cls, options)
    assert plies >= MAX_PLIES or board.winner() is not None, plies
    assert_no_unexpected_lines(caplog)


def assert_no_unexpected_lines(caplog) -> None:
    """pydraughts logs every line it did not expect (it reads the engine's stderr too)."""
    unexpected = [r.getMessage() for r in caplog.records if r.name == "pydraughts"]
    assert unexpected == [], unexpected


# -- pondering -------------------------------------------------------------------------------

@pytest.fixture
def russian_pair():
    engines = [open_pydraughts("russian", {"ponder": "true"}),
               open_pydraughts("russian", {"ponder": "true"})]
    yield engines
    codes = [close_pydraughts(e) for e in engines]
    assert codes == [0, 0], codes


def _first_move_with_ponder(engine, variant: str = "russian"):
    board = draughts.Board(variant=variant)
    result = play_with_timeout(engine, board, Limit(depth=5))
    check_pydraughts_move(board, result)
    assert result.ponder is not None, "depth 5 from the start should give a ponder move"
    board.push(result.move)
    return board, result


@pytest.mark.parametrize("variant, limit", [
    ("russian", Limit(time=3.0, inc=INC)),
    ("russian", Limit(depth=2)),                # finishes early, then waits for ponder-hit
    ("english", Limit(movetime=0.3)),
    ("italian", Limit(nodes=3000)),
], ids=["russian-clock", "russian-depth-finishes-early", "english-movetime", "italian-nodes"])
def test_ponder_hit(variant, limit):
    """go ponder on the expected move; no done before ponder-hit; ponder-hit -> done."""
    engine = open_pydraughts(variant, {"ponder": "true"})
    try:
        _ponder_hit(engine, variant, limit)
    finally:
        assert close_pydraughts(engine) == 0


def _ponder_hit(engine, variant, limit):
    board, first = _first_move_with_ponder(engine, variant)
    ponder_board = board.copy()
    ponder_board.push(first.ponder)
    thread = PlayThread(engine, ponder_board, limit, ponder=True)
    thread.start()
    time.sleep(0.5)
    assert thread.is_alive(), "a ponder search answered before ponder-hit or stop"
    engine.ponderhit()
    result = thread.outcome(30)
    check_pydraughts_move(ponder_board, result)
    check_pydraughts_info(result.info, len(ponder_board.legal_moves()))


def test_ponder_stop_then_new_search(russian_pair):
    """go ponder, the opponent plays something else: stop -> done, then a new search."""
    engine = russian_pair[0]
    board, first = _first_move_with_ponder(engine)
    ponder_board = board.copy()
    ponder_board.push(first.ponder)
    thread = PlayThread(engine, ponder_board, Limit(time=3.0, inc=INC), ponder=True)
    thread.start()
    time.sleep(0.4)
    assert thread.is_alive()
    others = [m for m in board.legal_moves() if m.board_move != first.ponder.board_move]
    assert others
    actual = board.copy()
    actual.push(others[0])
    engine.stop()
    result = thread.outcome(10)
    check_pydraughts_move(ponder_board, result)     # the ponder search's answer, discarded
    fresh = play_with_timeout(engine, actual, Limit(movetime=0.1))
    check_pydraughts_move(actual, fresh)
    check_pydraughts_info(fresh.info, len(actual.legal_moves()))


def test_pondering_game(russian_pair, caplog):
    """A game where side A ponders on every ponder move B's turn allows, like lidraughts-bot."""
    caplog.set_level(logging.WARNING, logger="pydraughts")
    a, b = russian_pair
    board = draughts.Board(variant="russian")
    hits = misses = 0
    pondering: tuple[PlayThread, object] | None = None   # (thread, predicted move)
    plies = 0
    try:
        while plies < 40 and board.winner() is None:
            if plies % 2 == 0:          # A to move
                result = None
                if pondering is not None:
                    thread, predicted = pondering
                    pondering = None
                    last = board.move_stack[-1]
                    if last.board_move == predicted.board_move:
                        a.ponderhit()
                        result = thread.outcome(30)
                        hits += 1
                    else:
                        a.stop()
                        stale = thread.outcome(10)
                        check_pydraughts_move(thread.board, stale)
                        misses += 1
                if result is None:
                    result = play_with_timeout(a, board, Limit(time=3.0, inc=INC))
                check_pydraughts_move(board, result)
                check_pydraughts_info(result.info, len(board.legal_moves()))
                board.push(result.move)
                if result.ponder is not None and board.winner() is None:
                    ponder_board = board.copy()
                    ponder_board.push(result.ponder)
                    if ponder_board.winner() is None:
                        thread = PlayThread(a, ponder_board, Limit(time=3.0, inc=INC), ponder=True)
                        thread.start()
                        pondering = (thread, result.ponder)
            else:                       # B to move, while A ponders
                result = play_with_timeout(b, board, Limit(movetime=0.05))
                check_pydraughts_move(board, result)
                board.push(result.move)
            plies += 1
    finally:
        if pondering is not None:
            a.stop()
            pondering[0].join(10)
    assert plies >= 40 or board.winner() is not None
    assert hits + misses > 0, "A never pondered"
    assert_no_unexpected_lines(caplog)


def test_pdn_fen_and_set_param_after_init_like_pydraughts_own_tests(caplog):
    """pydraughts' test suite sends a PDN FEN in `pos` and set-param after init: the engine
    answers `error`, still gives its `done`, and keeps working."""
    caplog.set_level(logging.WARNING, logger="pydraughts")
    engine = open_pydraughts("russian")
    try:
        out: dict = {}
        thread = threading.Thread(
            target=lambda: out.update(r=engine.go("W:W31,32:B1,2", depth=2)), daemon=True)
        thread.start()
        thread.join(30)
        assert not thread.is_alive(), "pydraughts got no done after a PDN FEN"
        bestmove, _ponder = out["r"]
        assert bestmove and bestmove != '""'
        unexpected = [r.getMessage() for r in caplog.records if r.name == "pydraughts"]
        assert any("error" in m and "bad position" in m for m in unexpected), unexpected
        engine.setoption("variant", "brazilian")          # after init
        engine.setoption("initial-time", "300")           # unknown name: silently accepted
        board = draughts.Board(variant="brazilian")
        result = play_with_timeout(engine, board, Limit(depth=3))
        check_pydraughts_move(board, result)
        engine.ping()
    finally:
        assert close_pydraughts(engine) == 0
