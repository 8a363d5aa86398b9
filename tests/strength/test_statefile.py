"""A Ctrl-C while a game is recorded (hub_engine/matches/statefile.py) waits until the game is
both held and written, and then comes out as it would have."""
from __future__ import annotations

import os
import signal

import pytest

from hub_engine.matches.games import GameRecord
from hub_engine.matches.statefile import StateFile


class _InterruptingFile:
    """A file whose write receives a Ctrl-C, as one can during a game's sync to disk."""

    def __init__(self, real):
        self.real = real

    def write(self, text: str) -> int:
        os.kill(os.getpid(), signal.SIGINT)
        return self.real.write(text)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_a_ctrl_c_during_a_write_comes_after_the_game_is_held_and_written(tmp_path):
    path = tmp_path / "s.jsonl"
    state = StateFile(str(path), "match", {"games": 2})
    state.file = _InterruptingFile(state.file)
    # Python's own handler, as `hub-engine match` run from a terminal has it (pytest run in
    # the background, as CI may be, inherits SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            state.add("1", GameRecord(1, [], "a", "b"))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    state.close()
    assert list(state.records) == ["1"]
    assert list(StateFile(str(path), "match", {"games": 2}).records) == ["1"]


def test_an_ignored_ctrl_c_stays_ignored(tmp_path):
    state = StateFile(str(tmp_path / "s.jsonl"), "match", {"games": 2})
    state.file = _InterruptingFile(state.file)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        state.add("1", GameRecord(1, [], "a", "b"))
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert list(state.records) == ["1"]
