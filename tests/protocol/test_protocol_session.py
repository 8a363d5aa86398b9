"""The session loop against a fake engine, through a real pipe: handshake, searches, stop,
ponder, limits, every kind of malformed input, and leaving (quit / end of input).

Timing is never asserted tightly: waits are generous so a slow, loaded machine passes.
"""

import threading
import time
from collections.abc import Callable

import pytest
from protocol_fakes import NO_MOVES, FakeEngine, Harness
from test_protocol_replies import pydraughts_fields

from protocol import Info, Limits, SearchResult

START = "W" + "b" * 12 + "e" * 8 + "w" * 12


@pytest.fixture
def hub():
    harness = Harness()
    yield harness
    harness.close()


def assert_alive(hub: Harness) -> None:
    """The session still answers: the very next reply to `ping` is `pong`."""
    hub.send("ping")
    hub.expect("pong")


def assert_done(line: str) -> None:
    """A `done` line as pydraughts reads it: move first, at most move and ponder."""
    words = line.split()
    assert words[0] == "done" and len(words) in (2, 3), line
    assert words[1].startswith("move="), line
    if len(words) == 3:
        assert words[2].startswith("ponder="), line


# -- handshake --------------------------------------------------------------------------

def test_nothing_is_printed_before_the_first_command(hub):
    hub.assert_quiet(0.3)
    assert hub.out.written == []


def test_hub_handshake(hub):
    hub.send("hub")
    id_line = hub.expect("id")
    params = [hub.expect("param") for _ in hub.engine.params()]
    hub.expect("wait")
    assert pydraughts_fields(id_line) == {"name": '"Fake Engine"', "version": "1.0",
                                          "author": '"The Test Suite"',
                                          "country": "Netherlands"}
    parsed = [pydraughts_fields(line) for line in params]
    assert [fields["name"] for fields in parsed] == [spec.name for spec in hub.engine.params()]
    assert parsed[0] == {"name": "variant", "value": "brazilian", "type": "enum",
                         "values": '"brazilian russian english"'}
    assert parsed[1] == {"name": "threads", "value": "1", "type": "int", "min": "1", "max": "64"}
    assert_alive(hub)


def test_hub_still_ends_with_wait_when_the_engine_fails(hub):
    hub.engine.params = lambda: 1 / 0
    hub.send("hub")
    assert "ZeroDivisionError" in hub.expect("error")
    hub.expect("wait")


def test_init_answers_ready(hub):
    hub.send("init")
    hub.expect("ready")
    hub.send("set-param name=threads value=4", "init")
    hub.expect("ready")
    assert hub.engine.calls == ["init", "set-param threads 4", "init"]


def test_failed_init_is_an_error_then_ready(hub):
    hub.engine.fail_init = True
    hub.send("init")
    assert hub.expect("error") == 'error message="init failed: RuntimeError: tables missing"'
    assert hub.next_reply() == "ready"          # a waiting client is not left hanging
    assert_alive(hub)


def test_every_line_is_flushed(hub):
    hub.send("hub", "init", "ping")
    hub.expect("id")
    while hub.next_reply() != "pong":
        pass
    assert hub.out.flushes >= len(hub.out.written)


# -- set-param, new-game, pos -------------------------------------------------------------

def test_set_param_good_unknown_and_bad(hub):
    hub.send("set-param name=threads value=8", "set-param name=initial-time value=300")
    assert_alive(hub)
    assert hub.engine.threads == 8
    hub.send("set-param name=threads value=abc")
    assert hub.expect("error") == "error message=\"threads: 'abc' is not an integer in 1..64\""
    assert hub.engine.threads == 8
    hub.send("set-param name=explode value=1")
    assert "RuntimeError: kaboom" in hub.expect("error")
    assert_alive(hub)


def test_engine_messages_do_not_echo_100_kb_of_input(hub):
    """The fake engine quotes the bad value in full, as real ones do: the line is cut."""
    hub.send("set-param name=threads value=" + "x" * 100_000)
    line = hub.expect("error")
    assert len(line) < 200 and line.startswith('error message="threads:'), line[:300]
    hub.send('pos start moves="' + "1" * 100_000 + '"')
    line = hub.expect("error")
    assert len(line) < 200 and line.startswith('error message="illegal move 111'), line[:300]
    assert_alive(hub)


def test_new_game_reaches_the_engine(hub):
    hub.send("new-game")
    assert_alive(hub)
    assert hub.engine.calls == ["new-game"]


def test_pos_forms_reach_the_engine(hub):
    hub.send(f'pos pos={START} moves="32-28 19-23"', "pos start", 'pos moves="9-13"',
             f"pos start pos={START}")
    assert_alive(hub)
    assert hub.engine.calls == [f"pos {START} 32-28 19-23", "pos None", "pos None 9-13",
                                "pos None"]


@pytest.mark.parametrize("line, message", [
    ("pos pos=W:W31,32:B1,2", "bad position"),
    ("pos pos=nonsense", "bad position"),
    ('pos pos="" moves="32-28"', "bad position"),
    ('pos start moves="32-28 22x"', "illegal move 22x"),
    ('pos start moves="crash"', "pos failed: RuntimeError: engine bug"),
])
def test_pos_errors(hub, line, message):
    hub.send(line)
    assert hub.expect("error") == f'error message="{message}"'
    assert_alive(hub)


def test_a_100_kb_pos_line_is_served(hub):
    moves = " ".join(["32-28", "19-23"] * 9000)
    hub.send(f'pos pos={START} moves="{moves}"')
    assert_alive(hub)
    assert len(hub.engine.position[1]) == 18000


# -- searching ---------------------------------------------------------------------------

def test_go_with_a_limit_ends_with_done(hub):
    hub.send("pos start", "level depth=5", "go think")
    assert hub.expect("done") == "done move=32-28 ponder=19-23"
    assert len(hub.infos) == 5
    assert pydraughts_fields(hub.infos[-1])["depth"] == "5"
    assert list(pydraughts_fields(hub.infos[0])) == ["depth", "mean-depth", "score", "nodes",
                                                      "time", "nps", "pv"]


def test_bare_go_thinks_and_modes_reach_the_engine(hub):
    for line in ("go", "go think", "go analyze", "go ponder"):
        hub.send("level depth=2", line)
        if line == "go ponder":
            hub.wait_info()
            hub.send("ponder-hit")
        elif line == "go analyze":  # the fake analyses until stop
            hub.wait_info()
            hub.send("stop")
        assert_done(hub.expect("done"))
    assert [mode for _, mode in hub.engine.searches] == ["think", "think", "analyze", "ponder"]


def test_pong_during_a_search_and_the_search_goes_on(hub):
    hub.send("go")
    hub.wait_info()
    hub.send("ping")
    hub.expect("pong")
    hub.wait_info()  # still searching
    hub.assert_quiet(0.2)  # and no done
    hub.send("stop")
    assert_done(hub.expect("done"))
    assert_alive(hub)


def test_stop_gives_done_quickly(hub):
    hub.send("go")
    hub.wait_info()
    started = time.monotonic()
    hub.send("stop")
    assert_done(hub.expect("done", timeout=5.0))
    elapsed = time.monotonic() - started
    print(f"stop -> done in {elapsed * 1000:.1f} ms")
    assert elapsed < 2.0  # generous: the target is well under 50 ms on an idle machine


def test_stop_right_behind_go_is_not_lost(hub):
    for _ in range(20):
        hub.send("go", "stop")
        assert_done(hub.expect("done"))
    assert_alive(hub)


def test_done_after_every_go(hub):
    hub.send("level depth=1", "go", "level nodes=2000", "go", "level move-time=0.02", "go",
             "go analyze", "stop", "go infinite", "go", "stop")
    for _ in range(6):
        assert_done(hub.expect("done"))
    assert_alive(hub)


def test_go_ponder_waits_for_ponder_hit(hub):
    hub.send("level move-time=0.05", "go ponder")
    hub.wait_info()
    hub.assert_quiet(0.3)  # pondering: the 50 ms clock is not running yet
    hub.send("ponder-hit")
    assert hub.expect("done") == "done move=32-28 ponder=19-23"
    assert hub.engine.hits == 1
    assert hub.engine.searches[-1] == (Limits(move_time=0.05), "ponder")


def test_stop_while_pondering(hub):
    hub.send("go ponder")
    hub.wait_info()
    hub.send("stop")
    assert_done(hub.expect("done"))
    assert hub.engine.hits == 0


def test_ponder_hit_during_think_is_not_passed_on(hub):
    hub.send("go think")
    hub.wait_info()
    hub.send("ponder-hit")
    hub.assert_quiet(0.2)
    hub.send("stop")
    assert_done(hub.expect("done"))
    assert hub.engine.hits == 0


def test_stop_and_ponder_hit_when_idle_are_silent(hub):
    hub.send("stop", "ponder-hit", "stop")
    hub.assert_quiet(0.3)
    assert_alive(hub)
    assert hub.engine.stops == 0 and hub.engine.hits == 0


@pytest.mark.parametrize("command, reply", [
    ("pos start", None), ("level depth=3", None), ("new-game", None), ("init", "ready"),
    ("hub", "id"), ("set-param name=threads value=2", None), ("go", None)])
def test_other_commands_end_the_search_then_run(hub, command, reply):
    hub.send("go analyze")
    hub.wait_info()
    hub.send(command)
    assert_done(hub.expect("done"))
    if reply is not None:
        hub.expect(reply)
    if command == "go":
        hub.send("stop")
        assert_done(hub.expect("done"))
    hub.send("ping")
    while (line := hub.next_reply()) != "pong":
        assert line.startswith(("param", "wait")), line
    assert len(hub.engine.searches) == (2 if command == "go" else 1)


def test_go_tells_the_engine_when_it_was_read(hub):
    """The engine's clock starts when `go` arrived, not when its search thread got going."""
    before = time.monotonic()
    hub.send("pos start", "level depth=2", "go think")
    assert_done(hub.expect("done"))
    issued = hub.engine.searches[-1][0].issued
    assert issued is not None and before <= issued <= time.monotonic()


def test_levels_add_up_until_go(hub):
    hub.send("level time=60 inc=1", "level moves=40", "level time=30.5 move-time=5",
             "go analyze", "stop")
    assert_done(hub.expect("done"))
    assert hub.engine.searches[-1][0] == Limits(time=30.5, inc=1.0, moves=40, move_time=5.0)
    hub.send("go analyze", "stop")  # go reset the limits
    assert_done(hub.expect("done"))
    assert hub.engine.searches[-1][0] == Limits()


def test_pos_resets_the_limits(hub):
    hub.send("level depth=3 infinite", "pos start", "level nodes=5000", "go")
    assert_done(hub.expect("done"))
    assert hub.engine.searches[-1][0] == Limits(nodes=5000)
    hub.send("level depth=3", "pos pos=nonsense", "go analyze", "stop")
    hub.expect("error")
    assert_done(hub.expect("done"))
    assert hub.engine.searches[-1][0] == Limits()


def test_no_legal_move(hub):
    hub.send(f"pos pos={NO_MOVES}", "level depth=1", "go")
    assert hub.expect("error") == 'error message="no legal move"'
    assert hub.expect("done") == 'done move=""'
    assert_alive(hub)


@pytest.mark.parametrize("error, message", [
    (ValueError("no position set"), "no position set"),
    (RuntimeError("search exploded"), "search failed: RuntimeError: search exploded"),
])
def test_search_raising_still_ends_with_done(hub, error, message):
    hub.engine.search_error = error
    hub.send("go")
    assert hub.expect("error") == f'error message="{message}"'
    assert hub.expect("done") == 'done move=""'
    assert_alive(hub)


def test_info_after_done_is_dropped():
    class Leaky(FakeEngine):
        def search(self, limits, mode, on_info: Callable[[Info], None]) -> SearchResult:
            self.leaked = on_info
            on_info(Info(depth=1))
            return SearchResult("9-13")

    harness = Harness(Leaky())
    try:
        harness.send("go")
        assert harness.expect("done") == "done move=9-13"
        harness.engine.leaked(Info(depth=2))
        harness.engine.leaked(Info(score=float("nan")))  # unprintable: dropped, no crash
        assert_alive(harness)
        assert harness.infos == ["info depth=1"]
    finally:
        harness.close()


def test_unprintable_info_does_not_kill_the_search():
    class Noisy(FakeEngine):
        def search(self, limits, mode, on_info):
            on_info(Info(score=float("inf")))
            on_info(Info(depth=1))
            return SearchResult("9-13")

    harness = Harness(Noisy())
    try:
        harness.send("go")
        assert harness.expect("done") == "done move=9-13"
        assert harness.infos == ["info depth=1"]
    finally:
        harness.close()


# -- malformed input ---------------------------------------------------------------------

@pytest.mark.parametrize("line, fragment", [
    ("garbage", "unknown command garbage"),
    ("!@#$%^&*()", "unknown command"),
    ('pos moves="32-28 19-23', "unclosed quote"),
    ("level =5", "'=' with no name"),
    ("level depth=abc", "depth"),
    ("level time=fast", "time"),
    ("level nodes=1.5", "nodes"),
    ("level move-time=x", "move-time"),
    ("set-param value=3", "name"),
    ("depth=3", "not a command"),
    ("x" * 100_000, "unknown command"),
    ("pos " + "y" * 100_000 + '="', "unclosed quote"),
])
def test_malformed_input_gives_one_error_then_serving_goes_on(hub, line, fragment):
    hub.send(line)
    error = hub.expect("error")
    assert fragment in error
    assert error.startswith('error message="') and error.endswith('"')
    assert error.count('"') == 2
    assert len(error) < 300
    assert_alive(hub)


def test_all_malformed_inputs_in_a_row_then_pong(hub):
    lines = ["garbage", 'pos moves="1-5', "= x", "level depth=abc", "x" * 100_000, "hello",
             'go "now"']
    hub.send(*lines)
    for _ in lines:
        hub.expect("error")
    hub.send_raw(b"\xff\xfe\x00 junk\n")
    hub.expect("error")
    assert_alive(hub)


def test_blank_lines_crlf_and_tabs(hub):
    hub.send("", "   ", "\t", "\r")
    hub.assert_quiet(0.2)
    hub.send_raw(b"  ping\t\r\n")
    hub.expect("pong")
    hub.send_raw(b"level\tdepth=2\r\ngo\r\n")
    assert_done(hub.expect("done"))
    assert hub.engine.searches[-1][0] == Limits(depth=2)


def test_malformed_input_during_a_search_does_not_end_it(hub):
    hub.send("go")
    hub.wait_info()
    hub.send("garbage", "level depth=x")
    hub.expect("error")
    hub.expect("error")
    hub.assert_quiet(0.2)
    hub.send("stop")
    assert_done(hub.expect("done"))
    assert len(hub.engine.searches) == 1


def test_output_lines_are_whole(hub):
    hub.send("go")
    for _ in range(20):
        hub.send("ping")
    for _ in range(20):
        hub.expect("pong")
    hub.send("stop")
    assert_done(hub.expect("done"))
    words = {line.split(" ", 1)[0] for line in hub.out.written}
    assert words <= {"info", "pong", "done"}
    assert all(line.startswith("info depth=") for line in hub.infos)


# -- leaving -----------------------------------------------------------------------------

def test_end_of_input_when_idle_exits_0(hub):
    hub.send("hub")
    hub.expect("id")
    assert hub.close() == 0


def test_end_of_input_mid_search_exits_0_at_once(hub):
    hub.send("go analyze")
    hub.wait_info()
    assert hub.close(timeout=5.0) == 0
    assert hub.engine.stops >= 1


def test_quit_mid_search_exits_fast(hub):
    hub.send("go analyze")
    hub.wait_info()
    started = time.monotonic()
    hub.send("quit")
    assert hub.finish(timeout=5.0) == 0
    assert time.monotonic() - started < 3.0
    assert hub.engine.stops >= 1


def test_quit_when_idle(hub):
    hub.send("quit", "ping")
    assert hub.finish() == 0
    hub.assert_quiet(0.1)


class Stubborn(FakeEngine):
    """A search that ignores stop until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def search(self, limits, mode, on_info):
        on_info(Info(depth=1))
        self.release.wait(30)
        return SearchResult("9-13")


@pytest.mark.parametrize("leave", ["quit", "eof", "quit-while-waiting"])
def test_leaving_does_not_wait_for_a_search_that_ignores_stop(leave):
    harness = Harness(Stubborn())
    try:
        harness.send("go")
        harness.wait_info()
        if leave == "quit":
            harness.send("quit")
            assert harness.finish() == 0
        elif leave == "eof":
            assert harness.close() == 0
        else:
            harness.send("pos start")  # must wait for the search to end...
            harness.assert_quiet(0.2)
            harness.send("quit")  # ...unless told to quit
            assert harness.finish() == 0
        assert harness.engine.stops >= 1
    finally:
        harness.engine.release.set()
        harness.close()


def test_nothing_is_written_after_quit():
    harness = Harness(Stubborn())
    try:
        harness.send("go")
        harness.wait_info()
        harness.send("quit")
        assert harness.finish() == 0
        harness.engine.release.set()  # the search returns after the session has left
        harness.assert_quiet(0.3)
    finally:
        harness.engine.release.set()
        harness.close()


def test_control_bytes_in_bad_input_are_not_echoed(hub):
    hub.send_raw(b"\x1b[2J\x00boom\n")
    error = hub.expect("error")
    assert "unknown command" in error
    assert not any(ord(c) < 32 or ord(c) == 127 for c in error)
    assert_alive(hub)
