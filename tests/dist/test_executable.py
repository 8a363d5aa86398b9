"""Smoke test of the one-file executable (run by .ci/run after `pyinstaller build.spec`).

Skipped unless HUB_ENGINE_EXE points at the built executable.
"""
import os
import subprocess

import pytest
from launchers import default_sigint

EXE = os.environ.get("HUB_ENGINE_EXE")
pytestmark = pytest.mark.skipif(not EXE, reason="HUB_ENGINE_EXE not set (no built executable)")

VARIANTS = ["brazilian", "russian", "portuguese", "spanish", "italian", "english"]


def test_handshake_and_one_go_per_variant():
    p = subprocess.Popen([EXE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines: list[str] = []

    def send_until(command: str, reply: str) -> None:
        p.stdin.write(command + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            assert line, f"engine closed stdout waiting for {reply!r}"
            lines.append(line.rstrip("\n"))
            if line.startswith(reply):
                return

    try:
        send_until("hub", "wait")
        assert lines[0].startswith("id name=hub-engine")
        send_until("init", "ready")
        for v in VARIANTS:
            p.stdin.write(f"set-param name=variant value={v}\nnew-game\npos start\n"
                          "level move-time=0.1\n")
            send_until("go think", "done")
            assert lines[-1].startswith("done move=") and lines[-1] != 'done move=""'
        p.stdin.write("quit\n")
        p.stdin.flush()
        assert p.wait(timeout=10) == 0
    finally:
        p.kill()
    assert not [line for line in lines if line.startswith("error")]


def test_pydraughts_short_game():
    from draughts import Board  # pydraughts
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


def test_report_templates_travel_inside(tmp_path):
    """`report` reads its page templates from the executable's own data."""
    (tmp_path / "g.pdn").write_text('[White "Ann"]\n[GameType "25"]\n1. c3-d4 f6-g5 *\n')
    r = subprocess.run([EXE, "analyse", "g.pdn", "--depth", "2", "--workers", "1"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([EXE, "report", "g.analysis.jsonl"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    text = (tmp_path / "g.analysis.html").read_text(encoding="utf-8")
    assert '<td class="name">Ann</td>' in text and "svg.board" in text and "renderGame" in text


def test_gui_serves_its_page_and_engines_and_ends_with_them():
    """`hub-engine gui` from the executable: its page and scripts from inside it, an engine per
    tab, and nothing left running after Ctrl-C or a SIGKILL of the launcher."""
    import json
    import signal
    import sys
    import urllib.request
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gui"))
    from gui_helpers import Server, engines_of, wait_gone, ws_connect, ws_until

    for sig in (signal.SIGINT, signal.SIGKILL):
        proc = subprocess.Popen([EXE, "gui", "--no-browser"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
        try:
            server = Server(proc, proc.stdout.readline().strip())
            for path, word in (("", b'id="board"'), ("static/gui.js", b"import"),
                               ("static/board.js", b"export function boardSvg")):
                with urllib.request.urlopen(server.url + path, timeout=30) as r:
                    assert r.status == 200 and word in r.read()
            ws = ws_connect(server)
            pid = ws_until(ws, lambda m: m.get("state") == "ready", 60)["pid"]
            ws.send(json.dumps({"type": "go", "id": 1, "mode": "think", "variant": "italian",
                                "level": {"move_time": 0.1}}))
            done = ws_until(ws, lambda m: m["type"] == "done")
            assert done["move"]["hub"] and engines_of(server.pid) == [pid]
            proc.send_signal(sig)
            proc.wait(20)
            wait_gone([pid, server.pid], 10)
            if sig == signal.SIGINT:
                assert proc.stderr.read() == ""
        finally:
            proc.kill()
            proc.wait()
