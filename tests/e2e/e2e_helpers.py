"""Helpers for the end-to-end tests: a raw Hub pipe driver and pydraughts game plumbing.

Every test here runs the real engine as a separate process (the environment's `hub-engine`
console script, or HUB_ENGINE_EXE) from the repository root, the way clients do. Reads always
have a timeout, so a silent engine fails a test instead of hanging the run; timeouts are
generous because the test machine may be loaded.
"""
from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from launchers import engine_command
from protocol.client import EngineError, HubClient, StampedLine, first_word

REPO = Path(__file__).resolve().parents[2]
ENGINE_CMD = engine_command()
TT_SIZE = 16            # small table: tests stay fast and light
READ_TIMEOUT = 30.0     # generous: the machine may be loaded
PROTOCOL_WORDS = {"id", "param", "wait", "ready", "pong", "info", "done", "error"}
INFO_FIELDS = ("depth", "mean-depth", "score", "nodes", "time", "nps", "pv")


class EngineTimeout(AssertionError):
    """The engine did not say what was expected in time."""


def engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("HUB_ENGINE_LOG_LEVEL", None)
    env.pop("HUB_ENGINE_LOG_FILE", None)
    return env


class HubProcess(HubClient):
    """The engine on pipes (the project's one Hub client), started at once, with every stdout
    line kept; failures to answer become test failures with the engine's stderr."""

    def __init__(self, args: list[str] | None = None, cmd: list[str] | None = None) -> None:
        super().__init__((cmd or ENGINE_CMD) + (args or []), cwd=REPO, env=engine_env(),
                         keep_stdout=True)
        self.start()

    def read(self, timeout: float = READ_TIMEOUT) -> StampedLine | None:
        """The next stdout line; None at end of output; EngineTimeout when nothing comes."""
        try:
            return super().read(timeout)
        except EngineError as exc:
            raise EngineTimeout(str(exc)) from None

    def until(self, word: str, timeout: float = READ_TIMEOUT,
              fail_on: tuple[str, ...] = ()) -> list[StampedLine]:
        """Lines up to and including the first one whose first word is `word`; a line whose
        first word is in `fail_on` fails at once instead of waiting for the timeout."""
        try:
            return super().until(word, timeout, fail_on)
        except EngineError as exc:
            raise EngineTimeout(str(exc)) from None

    def sync(self, timeout: float = READ_TIMEOUT) -> list[str]:
        """Send `ping`; the lines that came before its `pong` (texts)."""
        self.send("ping")
        return [line.text for line in self.until("pong", timeout)[:-1]]

    # -- set-up shortcuts ----------------------------------------------------------------
    def handshake(self, variant: str | None = None, tt_size: int = TT_SIZE,
                  extra: dict[str, str] | None = None) -> list[str]:
        """hub ... wait, set-params, init ... ready; returns the `hub` answer lines. The opening
        book is off unless `extra` turns it on: these tests check the search (tests/book, the
        book)."""
        self.send("hub")
        hub_lines = [line.text for line in self.until("wait")]
        params = {"tt-size": str(tt_size), "book": "false"}   # the search is under test here
        if variant:
            params["variant"] = variant
        params.update(extra or {})
        self.send(*[f"set-param name={k} value={v}" for k, v in params.items()])
        self.send("init")
        before = [line.text for line in self.until("ready", fail_on=("error",))][:-1]
        assert before == [], f"unexpected lines before ready: {before}"
        return hub_lines

    def think(self, pos: str | None = None, moves: list[str] | None = None,
              level: str = "depth=3", go: str = "go think",
              timeout: float = READ_TIMEOUT) -> tuple[dict[str, str], list[str]]:
        """pos / level / go; the parsed `done` fields and every line before `done`."""
        cmd = "pos"
        if pos:
            cmd += f" pos={pos}"
        if moves:
            cmd += f' moves="{" ".join(moves)}"'
        self.send(cmd, f"level {level}", go)
        lines = [line.text for line in self.until("done", timeout)]
        return parse_fields(lines[-1]), lines[:-1]

    # -- ending --------------------------------------------------------------------------
    def wait_exit(self, timeout: float = READ_TIMEOUT) -> int:
        try:
            return super().wait_exit(timeout)
        except EngineError as exc:
            raise EngineTimeout(str(exc)) from None

    def quit(self, timeout: float = READ_TIMEOUT) -> int:
        """`quit`, then the exit code (EngineTimeout if the engine does not exit)."""
        try:
            self.send("quit")
        except EngineError:
            pass
        return self.wait_exit(timeout)

    def stdout_texts(self) -> list[str]:
        return [line.text for line in self.out.lines]

    def assert_clean_stdout(self) -> None:
        """Every stdout line is a protocol line; no traceback anywhere on stdout."""
        for text in self.stdout_texts():
            assert first_word(text) in PROTOCOL_WORDS, f"not a protocol line on stdout: {text!r}"
            assert "Traceback" not in text, text

    def __enter__(self) -> HubProcess:
        return self

    def __exit__(self, *exc) -> None:
        if self.alive():
            try:
                self.quit(5)
            except EngineTimeout:
                pass
        self.kill()


# -- line parsing ----------------------------------------------------------------------------
_FIELD = re.compile(r'([^\s=]+)=("[^"]*"|\S*)')


def parse_fields(text: str) -> dict[str, str]:
    """`word a=1 b="x y"` -> {'a': '1', 'b': 'x y'} (quotes removed)."""
    rest = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    return {k: v[1:-1] if v.startswith('"') else v for k, v in _FIELD.findall(rest)}


def field_names(text: str) -> list[str]:
    rest = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    return [k for k, _v in _FIELD.findall(rest)]


def check_info_line(text: str) -> dict[str, str]:
    """An `info` line as lidraughts reads it: known fields in the spec's order, pv quoted."""
    assert first_word(text) == "info", text
    names = field_names(text)
    known = [n for n in names if n in INFO_FIELDS]
    assert known == sorted(known, key=INFO_FIELDS.index), f"info fields out of order: {text}"
    assert names[:len(known)] == known, f"extra fields before pv: {text}"
    fields = parse_fields(text)
    if "pv" in fields:
        assert 'pv="' in text, f"pv not quoted: {text}"
    if "score" in fields:
        assert re.fullmatch(r"-?\d+\.\d\d", fields["score"]), text
    if "time" in fields:
        assert re.fullmatch(r"\d+\.\d\d\d", fields["time"]), text
    if "nps" in fields:
        assert re.fullmatch(r"\d+\.\d", fields["nps"]), text
    if "depth" in fields:
        assert fields["depth"].isdigit(), text
    return fields


def check_done_line(text: str) -> dict[str, str]:
    """`done move=M [ponder=P]`: move first, at most these two fields, never bare."""
    assert first_word(text) == "done", text
    names = field_names(text)
    assert names and names[0] == "move", f"done without move= first: {text!r}"
    assert names in (["move"], ["move", "ponder"]), f"unexpected done fields: {text!r}"
    return parse_fields(text)


# -- engine-side legality (portuguese/spanish and raw-pipe games) ---------------------------
def engine_game(variant: str):
    from hub_engine.rules.position import Game

    return Game(variant)


def check_and_play(game, move_text: str, notation: str = "variant") -> None:
    """The move is legal in the game's current position (engine's own generator); play it."""
    from hub_engine.rules.position import IllegalMoveError

    pos = game.position
    try:
        move = pos.parse_move(move_text, notation)
    except (IllegalMoveError, ValueError) as exc:
        legal = [m.hub(notation) for m in pos.legal_moves()]
        raise AssertionError(f"engine played {move_text!r}, not legal in {pos.hub()} "
                             f"(legal: {legal}): {exc}") from None
    # the engine writes the canonical form: captured squares ascending
    assert move.hub(notation) == move_text, (move.hub(notation), move_text)
    check_capture_order(move_text)
    game.play(move)


def check_capture_order(move_text: str) -> None:
    """`fromxtoxc1xc2...` with c1 < c2 < ... (hub-protocol.md "Moves")."""
    if "x" in move_text:
        captured = [int(n) for n in move_text.split("x")[2:]]
        assert captured and captured == sorted(captured), f"captures not ascending: {move_text}"


# -- pydraughts ------------------------------------------------------------------------------
def open_pydraughts(variant: str, options: dict[str, str] | None = None):
    """A pydraughts HubEngine on our engine: hub, set-params (variant, small table, no opening
    book unless `options` turn it on: the search is under test), init."""
    from draughts.engine import HubEngine

    engine = HubEngine(list(ENGINE_CMD), cwd=str(REPO))
    assert "variant" in engine.options and variant in engine.variants, \
        (engine.options, engine.variants)
    engine.configure({"variant": variant, "tt-size": str(TT_SIZE), "book": "false",
                      **(options or {})})
    engine.init()
    return engine


def close_pydraughts(engine, timeout: float = 10.0) -> int | None:
    """quit, wait for the exit; kill the process group if it lingers. Returns the exit code."""
    try:
        engine.quit()
        return engine.p.wait(timeout)
    except Exception:  # noqa: BLE001 - whatever happened, do not leave a process behind
        try:
            engine.kill_process()
        except Exception:  # noqa: BLE001
            pass
        return None
    finally:
        for pipe in (engine.p.stdin, engine.p.stdout):
            try:
                pipe.close()
            except Exception:  # noqa: BLE001
                pass


class PlayThread(threading.Thread):
    """engine.play(...) in a thread: pydraughts blocks without a timeout, tests must not."""

    def __init__(self, engine, board, limit, ponder: bool = False) -> None:
        super().__init__(daemon=True)
        self.engine, self.board, self.limit, self.ponder = engine, board, limit, ponder
        self.result = None
        self.error: BaseException | None = None
        self.finished_at: float | None = None

    def run(self) -> None:
        try:
            self.result = self.engine.play(self.board, self.limit, ponder=self.ponder)
        except BaseException as exc:  # noqa: BLE001 - reported by outcome()
            self.error = exc
        finally:
            self.finished_at = time.monotonic()

    def outcome(self, timeout: float = READ_TIMEOUT):
        self.join(timeout)
        if self.is_alive():
            try:
                self.engine.kill_process()
            except Exception:  # noqa: BLE001
                pass
            raise EngineTimeout(f"pydraughts play() got no done within {timeout} s")
        if self.error is not None:
            raise AssertionError(f"pydraughts play() failed: {self.error!r}") from self.error
        return self.result


def play_with_timeout(engine, board, limit, ponder: bool = False, timeout: float = READ_TIMEOUT):
    thread = PlayThread(engine, board, limit, ponder)
    thread.start()
    return thread.outcome(timeout)


def check_pydraughts_move(board, result) -> None:
    """The engine's move is one of pydraughts' own legal moves, written canonically."""
    assert result is not None and result.move is not None
    legal = board.legal_moves()
    same = [m for m in legal if m.board_move == result.move.board_move]
    assert len(same) == 1, (result.move.hub_move, [m.hub_move for m in legal])
    assert result.move.hub_move == same[0].hub_move, (result.move.hub_move, same[0].hub_move)
    check_capture_order(result.move.hub_move)


def check_pydraughts_info(info: dict, legal_count: int, max_depth: int | None = None) -> None:
    """The dict pydraughts parsed from our `info` lines has the types its users rely on."""
    if not info:
        assert legal_count == 1, "no info from a search with a choice of moves"
        return
    assert isinstance(info.get("depth"), int) and info["depth"] >= 1, info
    if max_depth is not None:
        assert info["depth"] <= max_depth, info
    score = info.get("score")
    assert isinstance(score, dict) and len(score) == 1, info
    ((kind, value),) = score.items()
    assert kind in ("cp", "win") and isinstance(value, int), info
    assert isinstance(info.get("nodes"), int) and info["nodes"] >= 0, info
    assert isinstance(info.get("time"), float) and info["time"] >= 0, info
    assert isinstance(info.get("mean-depth"), float), info
    if "nps" in info:
        assert isinstance(info["nps"], float), info
    pv = info.get("pv")
    assert isinstance(pv, str) and pv.startswith('"') and pv.endswith('"') and len(pv) > 2, info


def check_pv(variant: str, start, moves: list, pv_text: str, notation: str = "variant") -> None:
    """Every move of a pv is legal in turn from the searched position."""
    from hub_engine.rules.position import Game

    game = Game(variant, start, moves)
    for move_text in pv_text.split():
        check_and_play(game, move_text, notation)
