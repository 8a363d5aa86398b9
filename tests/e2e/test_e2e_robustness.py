"""Malformed input, parameters at odd times, and the process lifecycle, on a real process.

hub-protocol.md: malformed input never crashes the engine, it answers `error message="..."` and
keeps serving; unknown `set-param` names, `stop`/`ponder-hit` when idle and Scan's extras are
ignored silently; nothing is printed before the first command; EOF and `quit` end the process at
once, even mid-search; stdout carries protocol lines only.
"""
from __future__ import annotations

import re
import time

import pytest
from e2e_helpers import (
    HubProcess,
    check_and_play,
    check_done_line,
    check_info_line,
    first_word,
    parse_fields,
)

from hub_engine.rules.position import Game, Position

NO_MOVE_POS = "W" + "e" * 31 + "b"          # white to move and no white piece
QUICK_EXIT = 5.0                            # generous: "at once" on a loaded machine


def _wrong_side_move(variant: str) -> str:
    """A move of the side NOT to move in the start position, illegal in either numbering."""
    start = Position.start(variant)
    flipped = Position.from_hub(variant, "B" + start.hub()[1:])
    white = {m.hub() for m in start.legal_moves()} | {m.hub("layout") for m in start.legal_moves()}
    for m in flipped.legal_moves():
        if m.hub() not in white and m.hub("layout") not in white:
            return m.hub()
    raise AssertionError("no wrong-side move found")


# input line -> "error" (an error line is expected) or "quiet" (nothing at all)
MALFORMED = [
    ("hello world", "error"),
    ("%$#@!", "error"),
    ('pos moves="9-13', "error"),                       # unclosed quote
    ('set-param name="tt-size value=16', "error"),
    ("level =5", "error"),                              # '=' with no name
    ("= 3", "error"),
    ("level time=abc", "error"),
    ("level depth=deep", "error"),
    ("level nodes=1.5", "error"),
    ("level move-time=", "error"),
    ("pos pos=" + "W" + "e" * 50, "error"),              # 51 characters: a 10x10 string
    ("pos pos=Wbbbbeeeeeeeeeeewwww", "error"),            # 20 characters
    ("pos pos=W:W31,32:B1,2", "error"),                 # PDN FEN
    ("pos pos=X" + "e" * 32, "error"),
    ("pos pos=W" + "z" * 32, "error"),
    ('pos pos="" moves="9-13"', "error"),               # an empty string is not the start
    ("pos pos=start", "error"),                          # `start` is a flag, not a position
    ('pos moves="99-100"', "error"),
    ('pos moves="22-"', "error"),
    ('pos moves="x"', "error"),
    ('pos moves="9-13 9-13"', "error"),                 # second move by the wrong piece
    ("set-param name=variant value=frisian", "error"),
    ("set-param name=tt-size value=huge", "error"),
    ("set-param name=threads value=0", "error"),
    ("set-param name=ponder value=maybe", "error"),
    ("set-param name=notation value=dutch", "error"),
    ("set-param value=3", "error"),
    ("x" * 100_000, "error"),                            # a 100 kB line
    ("set-param name=variant value=" + "x" * 100_000, "error"),   # echoes are shortened
    ("set-param name=tt-size value=" + "9" * 100_000, "error"),
    ("set-param name=" + "n" * 100_000, "error"),
    ('pos moves="' + "9-13" * 25_000 + '"', "error"),
    ('pos moves="9-13 ' + "1" * 100_000 + '"', "error"),
    ("level depth=\u0663", "error"),                     # only ASCII digits are numbers
    ("level nodes=\uff11\uff10", "error"),
    ("set-param name=tt-size value=\u0661\u0666", "error"),
    ("stop", "quiet"),                                   # idle: silently ignored
    ("ponder-hit", "quiet"),
    ("set-param name=initial-time value=300", "quiet"),   # unknown names: accepted silently
    ("set-param name=Hash value=128", "quiet"),
    ('pos wolf="1 2 3"', "quiet"),                       # Scan's extras
    ("level handicap=3 ply=5", "quiet"),
    ("", "quiet"),
    ("   ", "quiet"),
    ("new-game", "quiet"),
]


def test_each_malformed_line_gets_an_error_and_the_engine_keeps_serving():
    with HubProcess() as eng:
        eng.handshake("russian")
        cases = MALFORMED + [(f'pos moves="{_wrong_side_move("russian")}"', "error")]
        for text, expected in cases:
            eng.send(text)
            got = eng.sync()
            label = text[:60]
            if expected == "quiet":
                assert got == [], f"{label!r} should be ignored silently, got {got}"
            else:
                assert len(got) == 1, f"{label!r}: expected one error line, got {got}"
                line = got[0]
                assert re.fullmatch(r'error message="[^"]+"', line), f"{label!r}: {line!r}"
                assert len(line) < 400, f"{label!r}: the error echoes too much ({len(line)})"
        # the engine still plays after all that
        done, _ = eng.think(level="depth=3")
        check_and_play(Game("russian"), done["move"])
        eng.send("ping")
        assert [x.text for x in eng.until("pong")] == ["pong"]
        eng.assert_clean_stdout()
        assert "Traceback" not in eng.stderr_text()
        assert eng.quit() == 0


def test_bad_position_messages_are_readable():
    with HubProcess() as eng:
        eng.handshake("russian")
        for text in ("pos pos=" + "W" + "e" * 50, "pos pos=W:W31,32:B1,2", "pos pos=W" + "z" * 32):
            eng.send(text)
            (line,) = eng.sync()
            message = parse_fields(line)["message"]
            assert message.startswith("bad position"), message
            assert message.count("bad position") == 1, f"repeated prefix: {message!r}"


def test_control_bytes_are_not_echoed_to_stdout():
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send_raw(b"\x00\x01\x1b[2J junk\n")
        eng.send_raw(b"\xff\xfe\x7f\n")
        got = eng.sync()
        assert len(got) == 2 and all(first_word(t) == "error" for t in got), got
        for line in got:
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", line), repr(line)
        eng.assert_clean_stdout()


def test_bad_input_keeps_the_previous_position():
    """After a rejected `pos`, the engine keeps the position it had (engine.py's choice)."""
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send('pos moves="9-13"')
        for bad in ('pos moves="9-13 zz"', 'pos moves="99-100"', "pos pos=" + "W" * 20):
            eng.send(bad)
            assert first_word(eng.sync()[0]) == "error"
        eng.send("level depth=3", "go think")
        done = check_done_line(eng.until("done")[-1].text)
        check_and_play(Game("russian", None, ["9-13"]), done["move"])


def test_go_without_legal_move():
    with HubProcess() as eng:
        eng.handshake("russian")
        for go in ("go think", "go analyze", "go"):
            eng.send(f"pos pos={NO_MOVE_POS}", "level depth=3", go)
            lines = [x.text for x in eng.until("done", 10)]
            assert lines == ['error message="no legal move"', 'done move=""'], lines
        assert eng.sync() == []
        eng.assert_clean_stdout()


def test_hub_answer_is_readable_by_pydraughts_splitting():
    """id/param lines: every field `name=value` with exactly one `=` (pydraughts splits on it)."""
    with HubProcess() as eng:
        eng.send("hub")
        lines = [x.text for x in eng.until("wait")]
        assert lines[-1] == "wait" and first_word(lines[0]) == "id"
        names = set()
        for line in lines[:-1]:
            assert first_word(line) in ("id", "param"), line
            rest = line.split(None, 1)[1]
            items = re.split(r' +(?![^"]*"(?:(?:[^"]*"){2})*[^"]*$)', rest)
            for item in items:
                assert item.count("=") == 1, f"pydraughts cannot split {item!r} in {line!r}"
            if first_word(line) == "param":
                fields = parse_fields(line)
                names.add(fields["name"])
                assert fields["type"] in ("bool", "int", "real", "string", "enum"), line
        assert {"variant", "notation", "tt-size", "threads", "ponder"} <= names
        variant = next(line for line in lines if "name=variant" in line)
        assert parse_fields(variant)["type"] == "enum"
        assert set(parse_fields(variant)["values"].split()) >= {
            "brazilian", "russian", "portuguese", "spanish", "italian", "english"}
        assert eng.quit() == 0


def test_set_param_after_init():
    with HubProcess() as eng:
        eng.handshake("brazilian")
        eng.send("set-param name=variant value=english", "set-param name=tt-size value=14")
        assert eng.sync() == []
        done, _ = eng.think(level="depth=3")                  # without a second init
        check_and_play(Game("english"), done["move"])
        eng.send("init")
        assert [x.text for x in eng.until("ready")] == ["ready"]
        eng.send("set-param name=variant value=italian", "new-game")
        done, _ = eng.think(level="depth=3")
        check_and_play(Game("italian"), done["move"])
        eng.assert_clean_stdout()


def test_pos_resets_limits_and_level_lines_add_up():
    with HubProcess() as eng:
        eng.handshake("russian")
        # level lines add up: depth=3 still holds after a nodes line
        eng.send("pos", "level depth=3", "level nodes=100000000", "go think")
        lines = [x.text for x in eng.until("done", 30)]
        depths = [int(check_info_line(t)["depth"]) for t in lines[:-1]]
        assert depths and max(depths) <= 3, lines
        # pos resets the limits: no limit left, so the search runs until stop
        eng.send("level depth=1", "pos", "go think")
        time.sleep(0.5)
        early = [t for t in eng.drain() if first_word(t) != "info"]
        assert early == [], f"a search with no limit ended by itself: {early}"
        eng.send("stop")
        check_done_line(eng.until("done", 10)[-1].text)
        # go resets them too
        eng.send("pos", "level depth=2", "go think")
        eng.until("done", 30)
        eng.send("go think")
        time.sleep(0.5)
        assert [t for t in eng.drain() if first_word(t) != "info"] == []
        eng.send("stop")
        check_done_line(eng.until("done", 10)[-1].text)
        eng.assert_clean_stdout()


def test_crlf_and_blank_lines():
    with HubProcess() as eng:
        eng.send_raw(b"hub\r\n")
        eng.until("wait")
        eng.send_raw(b"set-param name=tt-size value=16\r\n\r\n\tinit\r\n")
        assert [x.text for x in eng.until("ready")] == ["ready"]
        eng.send_raw(b"pos\r\nlevel\tdepth=2\r\ngo think\r\n")
        done = check_done_line(eng.until("done")[-1].text)
        check_and_play(Game("brazilian"), done["move"])
        eng.assert_clean_stdout()


# -- lifecycle ------------------------------------------------------------------------------

def test_nothing_printed_before_the_first_command_then_eof_exits_0():
    with HubProcess() as eng:
        time.sleep(1.0)
        assert eng.stdout_texts() == [], eng.stdout_texts()
        assert eng.stderr_text() == ""
        closed = eng.close_stdin()
        assert eng.wait_exit(QUICK_EXIT) == 0
        assert time.monotonic() - closed < QUICK_EXIT


@pytest.mark.parametrize("how", ["eof", "quit"])
def test_exit_mid_search(how):
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send("pos", "level infinite", "go analyze")
        eng.until("info", 10)
        time.sleep(0.3)
        t0 = eng.close_stdin() if how == "eof" else eng.send("quit")
        code = eng.wait_exit(QUICK_EXIT)
        elapsed = time.monotonic() - t0
        assert code == 0, (code, eng.stderr_text())
        assert elapsed < QUICK_EXIT
        eng.assert_clean_stdout()
        assert "Traceback" not in eng.stderr_text(), eng.stderr_text()


def test_eof_mid_ponder_and_mid_think():
    for go in ("go ponder", "go think"):
        with HubProcess() as eng:
            eng.handshake("brazilian")
            eng.send("pos", "level time=60 inc=1", go)
            eng.until("info", 10)
            eng.close_stdin()
            assert eng.wait_exit(QUICK_EXIT) == 0
            assert "Traceback" not in eng.stderr_text()


def test_quit_before_anything():
    with HubProcess() as eng:
        eng.send("quit")
        assert eng.wait_exit(QUICK_EXIT) == 0
        assert eng.stdout_texts() == []


# -- commands during a search ---------------------------------------------------------------

def test_commands_during_a_search_end_it_then_run():
    """Anything but ping/stop/ponder-hit ends the search with a done, then is executed."""
    with HubProcess() as eng:
        eng.handshake("russian")
        start = lambda: (eng.send("pos", "level infinite", "go analyze"), eng.until("info", 10))
        start()
        eng.send("set-param name=variant value=english")
        check_done_line(eng.until("done", 10)[-1].text)
        assert eng.sync() == []
        done, _ = eng.think(level="depth=2")
        check_and_play(Game("english"), done["move"])      # the set-param took effect
        start()
        eng.send("hub")
        lines = [x.text for x in eng.until("wait", 10)]
        others = [t for t in lines if first_word(t) != "info"]
        assert first_word(others[0]) == "done" and first_word(others[1]) == "id", others
        for command, answer in (("new-game", None), ("init", "ready"), ("go think", None)):
            start()
            eng.send(command)
            check_done_line(eng.until("done", 10)[-1].text)
            if answer:
                eng.until(answer, 10)
        eng.send("stop")                                    # ends the unlimited `go think`
        check_done_line(eng.until("done", 10)[-1].text)
        assert eng.sync() == []
        eng.assert_clean_stdout()


def test_go_and_stop_in_one_burst_always_give_one_done():
    with HubProcess() as eng:
        eng.handshake("russian")
        for go in ["go think"] * 15 + ["go ponder"] * 10 + ["go analyze"] * 10:
            eng.send("pos", "level infinite", go, "stop")
            check_done_line(eng.until("done", 10)[-1].text)
        for _ in range(10):
            eng.send("pos", "level time=0.3", "go ponder", "ponder-hit")
            check_done_line(eng.until("done", 10)[-1].text)
        assert eng.sync() == []           # no second done, nothing left over
        eng.send("ponder-hit", "level depth=2", "go think", "ponder-hit")  # ignored in think
        check_done_line(eng.until("done", 10)[-1].text)
        assert eng.sync() == []
        eng.assert_clean_stdout()


@pytest.mark.parametrize("level", ["time=0.05", "time=0 inc=0", "time=-1 inc=0.01",
                                   "move-time=0.001", "time=0.2 moves=1", "nodes=1", "depth=1"])
def test_tiny_limits_still_give_a_legal_move(level):
    game = Game("russian", None, ["9-13", "22-18"])
    with HubProcess() as eng:
        eng.handshake("russian")
        sent = eng.send(f'pos moves="9-13 22-18 {game.legal_moves()[0].hub()}"')
        game.play(game.legal_moves()[0])
        eng.send(f"level {level}", "go think")
        lines = eng.until("done", 10)
        assert lines[-1].at - sent < 5.0
        check_and_play(game, check_done_line(lines[-1].text)["move"])


HUGE = "9" * 4301          # one digit more than Python's int() converts


@pytest.mark.parametrize("level", [
    f"depth={HUGE}", f"nodes={HUGE}", f"moves={HUGE} time=1", "nodes=9223372036854775808",
    "nodes=1e30", "move-time=1e10", "time=1e300", "time=1e400 inc=1e300", "depth=0", "nodes=0",
    "depth=-1", "nodes=-5", "time=0.015"])
def test_extreme_limits_give_a_legal_move_and_no_error(level):
    """Huge limits are clamped (the search runs until `stop`), zero and negative depth/nodes
    and a clock under the reserve give the 1-ply answer at once; never a crash, an `error`,
    an empty move or a traceback on stderr."""
    game = Game("russian", None, ["9-13", "21-17"])
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send('pos moves="9-13 21-17"', f"level {level}", "go think")
        time.sleep(0.3)
        eng.send("stop")                   # ignored when the search already ended
        lines = [x.text for x in eng.until("done", 10)]
        assert [t for t in lines if first_word(t) != "info"] == [lines[-1]], lines
        check_and_play(game, check_done_line(lines[-1])["move"])
        quick = level.startswith(("depth=0", "nodes=0", "depth=-", "nodes=-", "time=0.0"))
        if quick:
            assert [check_info_line(t)["depth"] for t in lines[:-1]] == ["1"], lines
        assert eng.sync() == []
        eng.assert_clean_stdout()
        assert eng.quit() == 0
        assert "Traceback" not in eng.stderr_text() and "Error" not in eng.stderr_text(), \
            eng.stderr_text()


# -- scores of proven results ---------------------------------------------------------------

def _two_men(side: str, wins_now: bool) -> str:
    """russian, one man each: white wins by a capture now, or black must walk into one."""
    for w in range(12, 32):
        for b in range(28):
            if w == b:
                continue
            board = ["e"] * 32
            board[w], board[b] = "w", "b"
            pos = Position.from_hub("russian", side + "".join(board))
            legal = pos.legal_moves()
            if not legal:
                continue
            if wins_now and all(m.is_capture for m in legal):
                return pos.hub()
            replies = [pos.play(m).legal_moves() for m in legal]
            if not wins_now and all(r and all(x.is_capture for x in r) for r in replies):
                return pos.hub()
    raise AssertionError("no such position")


@pytest.mark.parametrize("side, wins_now, score", [("W", True, "99.99"), ("B", False, "-99.98")])
def test_won_and_lost_scores(side, wins_now, score):
    """A win in n plies is 100 - n/100, a loss its negative (hub-protocol.md)."""
    pos = _two_men(side, wins_now)
    with HubProcess() as eng:
        eng.handshake("russian")
        done, before = eng.think(pos, level="depth=6", go="go analyze")
        scores = [check_info_line(t)["score"] for t in before]
        assert scores and scores[-1] == score, before
        check_and_play(Game("russian", pos), done["move"])


@pytest.mark.parametrize("go", ["go analyze", "go think", "go ponder"])
@pytest.mark.parametrize("level", ["level infinite", None])
def test_search_without_limit_waits_for_stop_even_when_finished(go, level):
    """A won position is searched to the maximum depth in milliseconds: with no limit the
    engine must still wait for `stop` (a client that sends stop then waits for done would
    hang on an early done)."""
    pos = _two_men("W", True)
    with HubProcess() as eng:
        eng.handshake("russian")
        eng.send(f"pos pos={pos}", *([level] if level else []), go)
        time.sleep(1.0)
        early = [t for t in eng.drain() if first_word(t) != "info"]
        assert early == [], f"done before stop: {early}"
        if go == "go ponder":
            eng.send("ponder-hit")
            time.sleep(0.3)
            assert [t for t in eng.drain() if first_word(t) != "info"] == []
        eng.send("stop")
        done = check_done_line(eng.until("done", 10)[-1].text)
        check_and_play(Game("russian", pos), done["move"])
        assert eng.sync() == []


def test_search_without_hub_or_init():
    """A client that skips `hub` and `init` still gets a search (init is done lazily)."""
    with HubProcess() as eng:
        eng.send("set-param name=variant value=italian", "set-param name=tt-size value=16")
        done, before = eng.think(level="depth=3")
        assert all(first_word(t) == "info" for t in before), before
        check_and_play(Game("italian"), done["move"])
        eng.assert_clean_stdout()
        assert eng.quit() == 0
