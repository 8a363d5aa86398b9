"""The pool of game threads that `match` and `tournament` share (hub_engine/matches/pool.py)."""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from hub_engine.matches.engines import MatchEngine
from hub_engine.matches.games import TimeControl, play_game
from hub_engine.matches.pool import play_games
from protocol.client import EngineError

FAKE = f"{sys.executable} {Path(__file__).resolve().parent / 'fake_engines.py'}"


def fake(mode: str, name: str) -> MatchEngine:
    return MatchEngine(f"{FAKE} {mode}", name, "brazilian", [])


def test_a_retired_engine_is_killed_and_never_starts_again():
    e = fake("first", "a")
    e.ensure_started()
    assert e.alive()
    e.retire()
    assert not e.alive()
    with pytest.raises(EngineError, match="stopped by the runner"):
        e.ensure_started()
    e.quit()


def run_pool(n_games: int, mode: str, stop_after: int | None, short_first: bool = False):
    """Play n_games games (39 plies: the first legal move each time) between two fake engines,
    two at a time, with at most 40 plies (4 for the first game if short_first); stop reading
    after stop_after games. Returns (the games yielded, the records of every game that ended,
    how many engines were made)."""
    ended, made, lock = [], [], threading.Lock()

    def new_engine(key):
        with lock:
            made.append(key)
        return fake(mode, key)

    def play(i, engine):
        rec = play_game(i, "brazilian", [], (engine("a"), engine("b")), TimeControl(move_time=5),
                        4 if short_first and i == 1 else 40)
        with lock:
            ended.append(rec)
        return rec

    yielded = []
    stream = play_games(list(range(1, n_games + 1)), new_engine, play, 2)
    for task, rec in stream:
        assert rec.number == task
        yielded.append(rec)
        if stop_after is not None and len(yielded) == stop_after:
            break
    stream.close()
    return yielded, ended, made


def test_the_pool_plays_every_game_with_one_engine_per_key_and_thread():
    yielded, ended, made = run_pool(6, "first", None)
    assert sorted(r.number for r in yielded) == list(range(1, 7))
    assert all(not r.failure and r.reason == "no legal move" and len(r.moves) == 39
               for r in yielded)
    assert sorted(made) == ["a", "a", "b", "b"]         # two threads, two engines each


def test_closing_the_pool_ends_the_games_under_way_and_begins_no_more():
    # games of 39 moves at 0.05 s: about 2 s each, 12 of them would take 12 s two at a time;
    # the first one is cut at 4 plies, so the other thread's first game is under way at the close
    yielded, ended, made = run_pool(12, "slow 0.05", 1, short_first=True)
    assert len(yielded) == 1
    cut = [r for r in ended if r is not yielded[0]]
    # the other thread's game was under way: its engines were killed under it, so it ended
    # short with a failure; a game begun after the close (at most one) could not start
    assert len(ended) <= 3, "the pool began games after it was closed"
    assert cut and all(r.failure and len(r.moves) < 39 for r in cut)
