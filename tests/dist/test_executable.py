"""Smoke test of the one-file executable (run by .ci/run after `pyinstaller build.spec`).

Skipped unless HUB_ENGINE_EXE points at the built executable.
"""
import os
import subprocess

import pytest

EXE = os.environ.get("HUB_ENGINE_EXE")
pytestmark = pytest.mark.skipif(not EXE, reason="HUB_ENGINE_EXE not set (no built executable)")

VARIANTS = ["brazilian", "russian", "portuguese", "spanish", "italian", "english"]


def test_handshake_and_one_go_per_variant():
    lines = ["hub", "init"]
    for v in VARIANTS:
        lines += [f"set-param name=variant value={v}", "new-game", "pos start",
                  "level move-time=0.1", "go think"]
    lines.append("quit")
    out = subprocess.run([EXE], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=60).stdout.splitlines()
    assert out[0].startswith("id name=hub-engine")
    assert "wait" in out and "ready" in out
    dones = [line for line in out if line.startswith("done move=")]
    assert len(dones) == len(VARIANTS)
    assert not [line for line in out if line.startswith("error")]


def test_pydraughts_short_game():
    from draughts import Board, Move  # noqa: F401  (pydraughts)
    from draughts.engine import HubEngine, Limit

    engine = HubEngine([EXE])
    try:
        engine.configure({"variant": "russian"})
        engine.init()
        board = Board(variant="russian")
        for _ in range(20):
            if board.winner() is not None or not board.legal_moves():
                break
            result = engine.play(board, Limit(movetime=0.05), ponder=False)
            assert result.move.hub_move in [m.hub_move for m in board.legal_moves()]
            board.push(result.move)
        assert len(board.move_stack) >= 10
    finally:
        engine.quit()
        engine.kill_process()
