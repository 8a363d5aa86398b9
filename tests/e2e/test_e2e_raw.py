"""Raw-pipe sessions shaped like the real clients that are not pydraughts.

- lidraughts' analysis: set-param variant, `pos pos=... moves="..."`, `level infinite`,
  `go analyze`, some `info`, `stop`, `done`;
- py-draughts: no set-param, the current position and no moves, `level move-time=`, `go think`;
- lidraughts-bot's first move: `level move-time=10.0` with a single legal move -> instant done;
- portuguese and spanish games (pydraughts lacks them), refereed by the engine's own generator;
- the notation switch, and king shuffles (repetitions) sent as `pos` + moves.
"""
from __future__ import annotations

import itertools
import re
import time

import pytest
from e2e_helpers import (
    HubProcess,
    check_and_play,
    check_done_line,
    check_info_line,
    check_pv,
    check_pydraughts_move,
    close_pydraughts,
    engine_game,
    first_word,
    open_pydraughts,
    parse_fields,
    play_with_timeout,
)

from hub_engine.rules.position import Game, Position


def single_move_line(variant: str) -> tuple[list[str], str]:
    """Two plies from the start after which the side to move has exactly one legal move."""
    start = Position.start(variant)
    for m1 in start.legal_moves():
        p1 = start.play(m1)
        for m2 in p1.legal_moves():
            p2 = p1.play(m2)
            if len(p2.legal_moves()) == 1:
                return [m1.hub(), m2.hub()], p2.legal_moves()[0].hub()
    raise AssertionError(f"no forced reply two plies into {variant}")


def random_line(variant: str, plies: int, seed: int) -> Game:
    """A reproducible playable line: the `seed`-th legal move (mod count) each ply."""
    game = Game(variant)
    for i in range(plies):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(legal[(seed * 7 + i * 3) % len(legal)])
    return game


# -- lidraughts analysis ---------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["russian", "brazilian", "italian", "english"])
def test_lidraughts_analysis_session(variant):
    game = random_line(variant, 12, seed=3)
    moves = [m.hub() for m in game.moves]
    with HubProcess() as eng:
        eng.send("hub")
        eng.until("wait")
        eng.send(f"set-param name=variant value={variant}", "set-param name=tt-size value=16",
                 "init")
        assert [x.text for x in eng.until("ready")] == ["ready"]
        eng.send(f'pos pos={Position.start(variant).hub()} moves="{" ".join(moves)}"',
                 "level infinite", "go analyze")
        infos = []
        deadline = time.monotonic() + 30
        while len(infos) < 3 and time.monotonic() < deadline:
            line = eng.read(30)
            assert line is not None
            assert first_word(line.text) == "info", f"before stop: {line.text}"
            infos.append(check_info_line(line.text))
        assert len(infos) >= 3
        time.sleep(0.3)
        stop_sent = eng.send("stop")
        rest = eng.until("done", 10)
        for line in rest[:-1]:
            check_info_line(line.text)
        done = check_done_line(rest[-1].text)
        latency = rest[-1].at - stop_sent
        assert latency < 2.0, f"stop -> done took {latency:.3f} s"
        check_and_play(Game(variant, None, moves), done["move"])
        for info in infos:     # every pv is a legal line from the analysed position
            check_pv(variant, None, moves, info["pv"])
        assert eng.sync() == []
        eng.assert_clean_stdout()
        assert eng.quit() == 0


def test_analysis_of_a_forced_move_waits_for_stop():
    """`go analyze` never answers instantly, even with a single legal move."""
    moves, forced = single_move_line("russian")
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send(f'pos moves="{" ".join(moves)}"', "level infinite", "go analyze")
        time.sleep(0.5)
        early = [t for t in eng.drain() if first_word(t) != "info"]
        assert early == [], f"analyze answered before stop: {early}"
        eng.send("stop")
        done = check_done_line(eng.until("done", 10)[-1].text)
        assert done["move"] == forced
        eng.assert_clean_stdout()


def test_analysis_replaced_by_new_position():
    """Any command other than ping/stop/ponder-hit ends the search (done) and is executed."""
    with HubProcess() as eng:
        eng.handshake("brazilian")
        eng.send("pos", "level infinite", "go analyze")
        time.sleep(0.3)
        eng.send('pos moves="9-13"', "level depth=3", "go think")
        lines = eng.until("done", 10)
        check_done_line(lines[-1].text)           # the done of the ended analysis
        lines = eng.until("done", 30)
        done = check_done_line(lines[-1].text)
        game = Game("brazilian")
        game.play("9-13")
        check_and_play(game, done["move"])
        assert eng.sync() == []
        eng.assert_clean_stdout()


def test_analysis_with_explicit_limits_ends_by_itself():
    """`go analyze` runs until stop only when no limit was given."""
    game = random_line("russian", 10, seed=1)
    moves = [m.hub() for m in game.moves]
    with HubProcess() as eng:
        eng.handshake("russian")
        for level in ("move-time=0.3", "depth=5", "nodes=5000"):
            done, before = eng.think(None, moves, level=level, go="go analyze", timeout=20)
            for line in before:
                check_info_line(line)
            check_and_play(Game("russian", None, moves), done["move"])
        eng.assert_clean_stdout()


def test_ping_during_search():
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send("pos", "level infinite", "go analyze")
        time.sleep(0.2)
        for _ in range(3):
            before = eng.sync(10)
            assert all(first_word(t) == "info" for t in before), before
        eng.send("stop")
        check_done_line(eng.until("done", 10)[-1].text)
        eng.assert_clean_stdout()


# -- py-draughts ------------------------------------------------------------------------------

def test_py_draughts_session():
    """No set-param (default variant brazilian), no moves: the current position each time."""
    with HubProcess() as eng:
        eng.send("hub")
        hub = [x.text for x in eng.until("wait")]
        assert hub[0].startswith("id ")
        params = {parse_fields(t)["name"]: parse_fields(t) for t in hub if t.startswith("param ")}
        assert params["variant"]["value"] == "brazilian"
        assert params["variant"]["type"] == "enum"
        eng.send("init")
        assert [x.text for x in eng.until("ready")] == ["ready"]
        game = Game("brazilian")
        for _ply in range(6):
            eng.send(f"pos pos={game.position.hub()}", "level move-time=0.1", "go think")
            lines = [x.text for x in eng.until("done", 30)]
            for line in lines[:-1]:
                check_info_line(line)
            done = check_done_line(lines[-1])
            check_and_play(game, done["move"])
        eng.assert_clean_stdout()
        assert eng.quit() == 0


# -- lidraughts-bot's first move ---------------------------------------------------------------

@pytest.mark.parametrize("variant", ["russian", "english"])
def test_single_legal_move_answers_at_once(variant):
    """`level move-time=10.0` + `go think` with one legal move: done at once, no stop needed."""
    moves, forced = single_move_line(variant)
    start = Position.start(variant).hub()
    with HubProcess() as eng:
        eng.handshake(variant)
        sent = eng.send(f'pos pos={start} moves="{" ".join(moves)}"', "level move-time=10.0",
                        "go think")
        lines = eng.until("done", 10)
        done = check_done_line(lines[-1].text)
        assert done["move"] == forced
        assert lines[-1].at - sent < 3.0, "a forced move should not use the 10 s"
        eng.assert_clean_stdout()


def test_single_legal_move_through_pydraughts():
    """lidraughts-bot: variant and initial-time set, first move with Limit(movetime=10.0)."""
    draughts = pytest.importorskip("draughts")
    from draughts.engine import Limit

    moves, _forced = single_move_line("russian")
    engine = open_pydraughts("russian", {"initial-time": "180"})
    try:
        board = draughts.Board(variant="russian")
        for m in moves:
            board.push(draughts.Move(board, hub_move=m))
        assert len(board.legal_moves()) == 1
        t0 = time.monotonic()
        result = play_with_timeout(engine, board, Limit(movetime=10.0), timeout=12)
        assert time.monotonic() - t0 < 3.0
        check_pydraughts_move(board, result)
    finally:
        assert close_pydraughts(engine) == 0


# -- portuguese and spanish games over raw pipes -----------------------------------------------

LEVELS = ["move-time=0.05", "depth=4", "nodes=2000", "time=2.0 inc=0.05"]


@pytest.mark.parametrize("variant", ["portuguese", "spanish"])
def test_raw_game_between_two_engines(variant):
    start = Position.start(variant).hub()
    game = engine_game(variant)
    with HubProcess() as white, HubProcess() as black:
        for eng in (white, black):
            eng.handshake(variant)
        levels = itertools.cycle(LEVELS)
        plies = 0
        while plies < 44 and game.result() is None:
            eng = (white, black)[plies % 2]
            moves = [m.hub() for m in game.moves]
            done, before = eng.think(start, moves, level=next(levels))
            for line in before:
                check_pv(variant, None, moves, check_info_line(line)["pv"])
            check_done_line(f"done move={done['move']}" +
                            (f" ponder={done['ponder']}" if "ponder" in done else ""))
            check_and_play(game, done["move"])
            if "ponder" in done and game.result() is None:
                probe = Game(variant, game.position)
                check_and_play(probe, done["ponder"])
            plies += 1
        assert plies >= 40 or game.result() is not None, plies
        for eng in (white, black):
            assert eng.sync() == []
            eng.assert_clean_stdout()
            assert eng.quit() == 0


# -- notation -----------------------------------------------------------------------------------

def _layout_game(variant: str, plies: int) -> Game:
    game = Game(variant)
    for i in range(plies):
        legal = game.legal_moves()
        game.play(legal[i % len(legal)])
    return game


def test_notation_auto_switch_to_layout(tmp_path):
    """russian moves in layout numbering, notation not set: accepted, noticed once in the log
    file at INFO (never on stderr, which pydraughts reads as protocol), answered in layout
    numbering."""
    game = _layout_game("russian", 4)
    layout_moves = [m.hub("layout") for m in game.moves]
    assert layout_moves != [m.hub() for m in game.moves]
    with pytest.raises(ValueError):        # not legal in the variant's numbering
        Game("russian", None, layout_moves)
    log = tmp_path / "engine.log"
    with HubProcess(["--log-file", str(log)]) as eng:
        eng.handshake("russian")
        done, before = eng.think(moves=layout_moves, level="depth=4")
        assert not [t for t in before if first_word(t) == "error"], before
        for line in before:
            pv = check_info_line(line)["pv"].split()
            check_and_play(Game("russian", None, game.moves), pv[0], "layout")
        check_and_play(game, done["move"], "layout")
        # a second position in layout numbering: no second notice
        more = [m.hub("layout") for m in game.moves]
        done, before = eng.think(moves=more, level="depth=3")
        check_and_play(game, done["move"], "layout")
        assert eng.sync() == []
        assert eng.quit() == 0
        assert eng.stderr_text() == ""
        notices = [t for t in log.read_text().splitlines() if "switching" in t]
        assert len(notices) == 1 and " INFO " in notices[0], notices
        eng.assert_clean_stdout()


def test_notation_layout_set_explicitly():
    game = _layout_game("brazilian", 3)
    layout_moves = [m.hub("layout") for m in game.moves]
    with HubProcess() as eng:
        eng.handshake("brazilian", extra={"notation": "layout"})
        done, before = eng.think(moves=layout_moves, level="depth=4")
        assert not [t for t in before if first_word(t) == "error"], before
        check_and_play(game, done["move"], "layout")
        assert eng.sync() == []
        assert eng.stderr_text() == ""
        eng.assert_clean_stdout()


# -- repetitions --------------------------------------------------------------------------------

def _king_position(variant: str) -> str:
    """Kings on layout 32 (white) and 1 (black), men on 21 (white) and 12 (black)."""
    board = ["e"] * 32
    board[31] = "W"
    board[20] = "w"
    board[0] = "B"
    board[11] = "b"
    return "W" + "".join(board)


def _cycle(start: Position) -> list[str] | None:
    """Four king moves (no capture) that come back to `start`, or None."""
    for m1 in start.legal_moves():
        if m1.is_capture:
            continue
        p1 = start.play(m1)
        for m2 in p1.legal_moves():
            if m2.is_capture:
                continue
            p2 = p1.play(m2)
            back1 = [m for m in p2.legal_moves() if m.frm == m1.to and m.to == m1.frm]
            if not back1:
                continue
            p3 = p2.play(back1[0])
            back2 = [m for m in p3.legal_moves() if m.frm == m2.to and m.to == m2.frm]
            if back2 and p3.play(back2[0]) == start:
                return [m1.hub(), m2.hub(), back1[0].hub(), back2[0].hub()]
    return None


def _king_shuffle(variant: str) -> tuple[str, list[str]]:
    """A position with kings (and a few men) and 8 king moves that repeat it twice."""
    pos_text = _king_position(variant)
    cycle = _cycle(Position.from_hub(variant, pos_text))
    assert cycle, "no king shuffle found"
    return pos_text, cycle * 2


@pytest.mark.parametrize("variant", ["russian", "italian"])
def test_king_shuffles_sent_as_moves(variant):
    pos_text, shuffle = _king_shuffle(variant)
    game = Game(variant, pos_text, shuffle)
    assert game.repetitions() >= 3
    with HubProcess() as eng:
        eng.handshake(variant)
        # 1) the initial position plus every move (pydraughts, lidraughts)
        # 2) the current position and no moves (py-draughts)
        # 3) the position after the last irreversible move plus the king moves since
        for pos, moves in [(pos_text, shuffle), (game.position.hub(), []),
                           (pos_text, shuffle[:4]), (pos_text, shuffle[:7])]:
            done, before = eng.think(pos, moves, level="depth=6")
            assert not [t for t in before if first_word(t) == "error"], before
            for line in before:
                check_pv(variant, pos, moves, check_info_line(line)["pv"])
            probe = Game(variant, pos_text, moves)
            check_and_play(probe, done["move"])
        done, before = eng.think(pos_text, shuffle, level="depth=5", go="go analyze")
        check_and_play(Game(variant, pos_text, shuffle), done["move"])
        assert eng.sync() == []
        eng.assert_clean_stdout()


def _search_lines(variant: str, pos: str, moves: list[str]) -> list[str]:
    """A fixed-depth search in a fresh process: its info and done lines minus time and nps."""
    with HubProcess() as eng:
        eng.handshake(variant)
        done, before = eng.think(pos, moves, level="depth=7")
        eng.assert_clean_stdout()
    strip = re.compile(r" (time|nps)=\S+")
    return [strip.sub("", line) for line in before] + [str(sorted(done.items()))]


@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_history_forms_give_the_same_search(variant):
    """`pos` = earlier position + a man move + king moves, and `pos` = the position after the
    man move + the same king moves, describe the same game state: a deterministic
    single-threaded search must print the same lines for both."""
    p0 = Position.from_hub(variant, _king_position(variant))
    for m0 in p0.legal_moves():
        if m0.is_capture or m0.frm not in p0.board.pieces()[0]:
            continue                                      # a white man's quiet move
        p1 = p0.play(m0)
        cycle = _cycle(p1)
        if cycle:
            break
    else:
        raise AssertionError("no man move followed by a king cycle")
    full = _search_lines(variant, p0.hub(), [m0.hub()] + cycle * 2)
    since_irreversible = _search_lines(variant, p1.hub(), cycle * 2)
    assert full == since_irreversible


# -- capture notation on input ---------------------------------------------------------------

def _line_with_multi_capture(variant: str) -> Game:
    """A reproducible game that ends with a capture of two or more pieces."""
    import random

    for seed in range(200):
        rnd = random.Random(seed)
        game = Game(variant)
        for _ply in range(80):
            legal = game.legal_moves()
            if not legal:
                break
            multi = [m for m in legal if len(m.captured) >= 2]
            game.play(multi[0] if multi else rnd.choice(legal))
            if multi:
                return game
    raise AssertionError(f"no multi-capture found in {variant}")


def _loose(move, short: bool) -> str:
    """The move as a client may write it: captured squares reversed, or no captured list."""
    parts = move.hub().split("x")
    if len(parts) < 3:
        return move.hub()
    return "x".join(parts[:2]) if short else "x".join(parts[:2] + parts[:1:-1])


@pytest.mark.parametrize("variant", ["russian", "english"])
def test_captures_accepted_in_any_order_and_short_form(variant):
    game = _line_with_multi_capture(variant)
    reversed_order = [_loose(m, short=False) for m in game.moves]
    assert reversed_order != [m.hub() for m in game.moves]
    with HubProcess() as eng:
        eng.handshake(variant)
        done, before = eng.think(moves=reversed_order, level="depth=3")
        assert not [t for t in before if first_word(t) == "error"], before
        check_and_play(Game(variant, None, game.moves), done["move"])
        # short form: accepted when exactly one legal capture matches from/to
        replay = Game(variant)
        short = []
        for m in game.moves:
            text = _loose(m, short=True)
            pos = replay.position
            same = [x for x in pos.legal_moves() if x.frm == m.frm and x.to == m.to]
            short.append(text if len(same) == 1 else m.hub())
            replay.play(m)
        done, before = eng.think(moves=short, level="depth=3")
        assert not [t for t in before if first_word(t) == "error"], before
        check_and_play(Game(variant, None, game.moves), done["move"])
        assert eng.sync() == []
