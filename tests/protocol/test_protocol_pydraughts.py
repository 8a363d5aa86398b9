"""The session as pydraughts' HubEngine (the client lidraughts-bot uses) drives it.

The fake engine runs as a real child process, started by pydraughts itself through a shell,
with stderr merged into stdout as pydraughts does. pydraughts never times out, so every
conversation runs in a thread with a deadline and the process is killed on failure.
"""

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("draughts.engine")  # importing draughts.engine first avoids a cycle
from draughts.engines.hub import HubEngine  # noqa: E402
from launchers import python_launcher  # noqa: E402

HERE = Path(__file__).resolve().parent
START = "W" + "b" * 12 + "e" * 8 + "w" * 12


def within(seconds: float, action: Callable[[], Any]) -> Any:
    """Run `action` in a thread; fail the test if it has not returned in `seconds`."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = action()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"pydraughts still waiting after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def engine(tmp_path):
    launcher = str(python_launcher(tmp_path))
    client = within(20, lambda: HubEngine([launcher, "fake_hub_engine.py"],
                                             cwd=str(HERE)))
    yield client
    if client.p.poll() is None:
        client.kill_process()


def test_handshake_and_options(engine):
    assert engine.id == {"name": '"Fake Engine"', "version": "1.0",
                         "author": '"The Test Suite"', "country": "Netherlands"}
    assert engine.options == {"variant", "threads", "ponder", "margin", "book-file"}
    assert engine.variants == {"brazilian", "russian", "english"}
    within(20, lambda: engine.configure({"variant": "russian", "threads": 2,
                                         "initial-time": 300, "ponder": True}))
    within(20, engine.init)
    within(20, engine.ping)


@pytest.mark.parametrize("kwargs", [dict(movetime=0.05), dict(depth=3), dict(nodes=4000),
                                    dict(my_time=1.0, inc=0.5), dict(my_time=0.5),
                                    dict(my_time=2.0, inc=1, moves_left=10)])
def test_go_returns_move_and_ponder(engine, kwargs):
    within(20, engine.init)
    best, ponder = within(20, lambda: engine.go(START, moves="32-28 19-23", **kwargs))
    assert (best, ponder) == ("32-28", "19-23")
    assert engine.info["depth"] >= 1
    assert engine.info["score"] == {"cp": 35}
    assert engine.info["pv"] == '"32-28 19-23"'


def go_sent(engine) -> threading.Event:
    """An event set once the client has written its `go` line: a `stop` or `ponder-hit` sent
    before it would reach the engine first (a race of the test, not of the engine)."""
    sent = threading.Event()
    send = engine.send

    def spy(line: str) -> None:
        send(line)
        if line.startswith("go"):
            sent.set()

    engine.send = spy
    return sent


def test_ponder_then_ponder_hit(engine):
    within(20, engine.init)
    result: dict[str, Any] = {}
    sent = go_sent(engine)
    thread = threading.Thread(target=lambda: result.update(
        move=engine.go(START, movetime=0.05, ponder=True)), daemon=True)
    thread.start()
    assert sent.wait(20)
    within(20, engine.ponderhit)
    thread.join(20)
    assert result["move"] == ("32-28", "19-23")


def test_stop_ends_an_unlimited_search(engine):
    within(20, engine.init)
    result: dict[str, Any] = {}
    sent = go_sent(engine)
    thread = threading.Thread(target=lambda: result.update(move=engine.go(START)), daemon=True)
    thread.start()
    assert sent.wait(20)
    within(20, engine.stop)
    thread.join(20)
    assert result["move"] == ("32-28", "19-23")


def test_pdn_fen_and_bad_set_param_get_errors_and_the_engine_keeps_working(engine):
    within(20, engine.init)
    within(20, lambda: engine.setoption("threads", "lots"))
    within(20, engine.ping)  # skips the error line with a warning, then gets pong
    best, _ = within(20, lambda: engine.go("W:W31,32:B1,2", depth=2))
    assert best == "32-28"


def test_quit_ends_the_process_with_0(engine):
    within(20, engine.init)
    within(20, engine.quit)
    assert engine.p.wait(timeout=20) == 0
