"""The board's server as a program: its address line, the security checks (token, Host, Origin,
uploads, the engine command), the tab limit, and the engine processes of the tabs: one each,
stopped when idle and started again, restarted after a crash, gone with their tab and with the
server (Ctrl-C and SIGKILL alike).

Most of it speaks HTTP and WebSocket as a page would (websocket-client); the tab counts are
also checked with real browser tabs.
"""
from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time

import pytest
from gui_helpers import (Server, alive, board_server, chromium, engines_of, js, open_board,
                         wait_engine, wait_gone, wait_until, ws_connect, ws_until)

from launchers import default_sigint, engine_command

from hub_engine.rules.position import Position


def request(server: Server, path: str, method: str = "GET", host: str | None = None,
            headers: dict | None = None, body: bytes | None = None) -> tuple[int, bytes]:
    h, p = server.host.rsplit(":", 1)
    conn = http.client.HTTPConnection(h, int(p), timeout=30)
    hdrs = dict(headers or {})
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", server.host if host is None else host)
    for k, v in hdrs.items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders()
    if body is not None:
        conn.send(body)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def ready(ws) -> dict:
    return ws_until(ws, lambda m: m.get("type") == "engine" and m.get("state") == "ready")


# --- the command ---------------------------------------------------------------------------------

def test_the_first_line_is_the_address_with_its_token(server):
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/")
    assert len(server.token) >= 32
    status, page = request(server, f"/{server.token}/")
    assert status == 200 and b'id="board"' in page
    status, _ = request(server, f"/{server.token}/static/board.js")
    assert status == 200


def test_another_host_than_loopback_prints_a_warning():
    proc = subprocess.Popen(engine_command() + ["gui", "--no-browser", "--host", "0.0.0.0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    try:
        line = proc.stdout.readline()
        assert line.startswith("http://127.0.0.1:")
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
        err = proc.stderr.read()
        assert "warning: --host 0.0.0.0 is not a loopback address" in err
    finally:
        proc.kill()
        proc.wait()
    for args, words in ((["--port", "70000"], "65535"), (["--max-tabs", "0"], "more than 0"),
                        (["--engine", "no-such-engine-here --x"], "engine command not found"),
                        (["--engine-param", "tt-size"], "NAME=VALUE")):
        r = subprocess.run(engine_command() + ["gui", "--no-browser", *args],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and words in r.stderr and r.stdout == "", args


# --- security ------------------------------------------------------------------------------------

def test_a_wrong_or_missing_token_is_refused(server):
    wrong = "x" * len(server.token)
    for path in ("/", f"/{wrong}/", f"/{wrong}/static/gui.js", "/static/gui.js",
                 f"/{server.token[:-1]}/", f"/{wrong}/api/upload"):
        method = "POST" if path.endswith("upload") else "GET"
        status, body = request(server, path, method, body=b"x" if method == "POST" else None)
        assert status == 403, path
        assert b"token" in body
    import websocket

    with pytest.raises(websocket.WebSocketBadStatusException) as e:
        websocket.create_connection(f"ws://{server.host}/{wrong}/ws", origin=server.base)
    assert e.value.status_code == 403


def test_the_host_must_be_the_served_address(server):
    port = server.host.rsplit(":", 1)[1]
    ok = [server.host, f"localhost:{port}"]
    for host in ok:
        assert request(server, f"/{server.token}/", host=host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{int(port) + 1}",
                 f"127.0.0.1.evil.example:{port}", ""):
        status, body = request(server, f"/{server.token}/", host=host)
        assert status == 403 and b"Host" in body, host


def test_a_websocket_must_come_from_the_page_itself(server):
    import websocket

    for origin in ("http://evil.example", "http://localhost.evil.example:1", "null",
                   f"https://{server.host}", None):
        with pytest.raises(websocket.WebSocketBadStatusException) as e:
            ws_connect(server, origin=origin)
        assert e.value.status_code == 403, origin
    status, body = request(server, f"/{server.token}/api/upload?kind=pdn", "POST",
                           headers={"Origin": "http://evil.example"}, body=b"1. 11-15 *")
    assert status == 403 and b"Origin" in body
    ws = ws_connect(server)
    try:
        assert ws_until(ws, lambda m: m["type"] == "hello")
    finally:
        ws.close()


def test_uploads_over_10_mb_or_unreadable_get_a_clear_message(server):
    path = f"/{server.token}/api/upload?kind=pdn&name=big.pdn"
    status, body = request(server, path, "POST", body=b"[" * (10 * 1024 * 1024 + 1))
    assert status == 413 and "larger than 10 MB" in json.loads(body)["error"]
    status, body = request(server, path.replace("big", "junk"), "POST", body=b"{}\n")
    assert status == 400 and "no game found" in json.loads(body)["error"]
    status, body = request(server, path.replace("big", "junk"), "POST", body=b"no game here\n")
    message = json.loads(body)["error"]
    assert status == 400 and "no game could be read" in message and "unreadable move" in message
    assert "--variant" not in message
    status, body = request(server, f"/{server.token}/api/upload?kind=analysis&name=a.jsonl",
                           "POST", body=b'{"not": "a record"}\n')
    assert status == 400 and "no analysis record" in json.loads(body)["error"]
    status, body = request(server, path.replace("big", "bin"), "POST", body=b"\x00\x01\x02" * 10)
    assert status == 400 and "not a text file" in json.loads(body)["error"]
    status, body = request(server, path.replace("big", "one"), "POST",
                           body=b'[GameType "25"]\n1. c3-d4 f6-e5 *\n')
    data = json.loads(body)
    assert status == 200 and data["games"][0]["moves"] == 2 and data["games"][0]["variant"] == "russian"


def test_the_page_cannot_choose_the_engine_or_write_hub_lines(server):
    ws = ws_connect(server)
    try:
        pid = ready(ws)["pid"]
        bad = [
            {"type": "engine", "id": 1, "command": "touch /tmp/owned"},
            {"type": "set-param", "id": 2, "name": "tables-path", "value": "/"},
            {"type": "go", "id": 3, "mode": "think", "variant": "russian",
             "moves": ["9-13\nquit"], "level": {"move_time": 0.1}},
            {"type": "go", "id": 4, "mode": "think", "variant": "russian\nquit",
             "level": {"move_time": 0.1}},
            {"type": "go", "id": 5, "mode": "analyze", "variant": "russian", "start": "W\nquit"},
            {"type": "go", "id": 6, "mode": "think", "variant": "russian", "engine": "sh",
             "level": {"move_time": "1\nquit"}},
            {"type": "go", "id": 7, "mode": "analyze", "variant": "russian", "multipv": 64},
        ]
        for msg in bad:
            ws.send(json.dumps(msg))
            got = ws_until(ws, lambda m: m.get("id") == msg["id"])
            assert got["type"] == "error", msg
        for raw in ("not json", "[1, 2]"):
            ws.send(raw)
            assert "JSON object" in ws_until(ws, lambda m: m["type"] == "error")["message"]
        ws.send_binary(b"\x00\x01")
        assert "JSON object" in ws_until(ws, lambda m: m["type"] == "error")["message"]
        ws.send(json.dumps({"type": "go", "id": 9, "mode": "think", "variant": "russian",
                            "moves": ["9-13"], "level": {"move_time": 0.05}}))
        done = ws_until(ws, lambda m: m["type"] == "done")
        assert done["id"] == 9 and done["move"]["hub"]
        assert engines_of(server.pid) == [pid] and not os.path.exists("/tmp/owned")
    finally:
        ws.close()


# --- tabs and their engines ----------------------------------------------------------------------

def test_each_tab_has_its_engine_and_the_tab_limit_holds():
    with board_server("--max-tabs", "2") as server:
        a, b = ws_connect(server), ws_connect(server)
        pids = {ready(a)["pid"], ready(b)["pid"]}
        assert len(pids) == 2 and set(engines_of(server.pid)) == pids
        c = ws_connect(server)
        refused = ws_until(c, lambda m: m["type"] == "refused")
        assert "--max-tabs 2" in refused["message"]
        a.close()
        wait_until(lambda: len(engines_of(server.pid)) == 1, 10, "one engine")
        d = ws_connect(server)
        assert ready(d)["pid"] not in pids
        for ws in (b, c, d):
            ws.close()
        wait_until(lambda: engines_of(server.pid) == [], 10, "no engine")


def test_twenty_tabs_opened_and_closed_leave_no_engine_process():
    with board_server() as server, chromium() as driver:
        main = driver.current_window_handle
        open_board(driver, server.url)
        opened = 0
        for _round in range(7):                   # 3 tabs beside the first, then one too many
            handles = []
            for _ in range(3):
                driver.switch_to.new_window("tab")
                open_board(driver, server.url)
                handles.append(driver.current_window_handle)
                opened += 1
            assert len(engines_of(server.pid)) == len(handles) + 1
            # one more than --max-tabs (4) is refused, and says so
            driver.switch_to.new_window("tab")
            driver.get(server.url)
            opened += 1
            wait_until(lambda: driver.find_element("id", "overlay").is_displayed(), 20, "refusal")
            assert "max-tabs 4" in driver.find_element("id", "overlay-text").text
            driver.close()
            for h in handles:
                driver.switch_to.window(h)
                driver.close()
            driver.switch_to.window(main)
            wait_until(lambda: len(engines_of(server.pid)) == 1, 15, "the tabs' engines gone")
        assert opened >= 20
        driver.get("about:blank")
        wait_until(lambda: engines_of(server.pid) == [], 15, "no engine left")


def test_an_idle_engine_is_stopped_and_started_again_on_return():
    with board_server("--idle-minutes", "0.03") as server:          # 1.8 s
        ws = ws_connect(server)
        try:
            pid = ready(ws)["pid"]
            idle = ws_until(ws, lambda m: m.get("state") == "idle", timeout=20)
            assert "without use" in idle["message"]
            wait_gone([pid])
            assert engines_of(server.pid) == []
            ws.send(json.dumps({"type": "wake"}))
            again = ready(ws)["pid"]
            assert again != pid and engines_of(server.pid) == [again]
            # a search that a game waits for is not idle time
            ws.send(json.dumps({"type": "go", "id": 1, "mode": "think", "variant": "russian",
                                "level": {"move_time": 3}}))
            done = ws_until(ws, lambda m: m["type"] in ("done", "engine"), timeout=20)
            assert done["type"] == "done" and alive(again)
        finally:
            ws.close()


def test_a_crashed_engine_is_restarted_and_the_page_told():
    with board_server() as server:
        ws = ws_connect(server)
        try:
            pid = ready(ws)["pid"]
            ws.send(json.dumps({"type": "go", "id": 5, "mode": "analyze", "variant": "russian",
                                "multipv": 2}))
            ws_until(ws, lambda m: m["type"] == "info" and m["id"] == 5)
            os.kill(pid, signal.SIGKILL)
            crashed = ws_until(ws, lambda m: m.get("state") == "crashed")
            assert "stopped unexpectedly" in crashed["message"] and "-9" in crashed["message"]
            back = ready(ws)
            assert back["restarted"] and back["pid"] != pid
            # the analysis goes on in the new engine
            info = ws_until(ws, lambda m: m["type"] == "info" and m["id"] == 5)
            assert info["pv"]
            ws.send(json.dumps({"type": "stop", "id": 5}))
            assert ws_until(ws, lambda m: m["type"] == "done")["id"] == 5
        finally:
            ws.close()


def test_the_page_hears_of_a_crash_in_the_browser():
    with board_server() as server, chromium() as driver:
        open_board(driver, server.url)
        pid = wait_engine(driver)
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: "stopped unexpectedly" in driver.find_element("id", "notices").text,
                   20, "the notice")
        again = wait_until(lambda: js(driver, "return document.getElementById('engine').dataset"
                                              ".state === 'ready' && +document.getElementById("
                                              "'engine').dataset.pid"), 30, "the engine again")
        assert again != pid
        assert "running again" in driver.find_element("id", "notices").text


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_engines_end_with_the_server_even_when_it_is_killed(sig):
    proc = subprocess.Popen(engine_command() + ["gui", "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        server = Server(proc, proc.stdout.readline().strip())
        sockets = [ws_connect(server) for _ in range(3)]
        pids = [ready(ws)["pid"] for ws in sockets]
        sockets[0].send(json.dumps({"type": "go", "id": 1, "mode": "analyze",
                                    "variant": "russian"}))
        ws_until(sockets[0], lambda m: m["type"] == "info")
        assert sorted(engines_of(server.pid)) == sorted(pids)
        proc.send_signal(sig)
        proc.wait(20)
        wait_gone(pids + [server.pid], 10)
    finally:
        proc.kill()
        proc.wait()


def test_the_engine_command_and_its_parameters_come_from_the_command_line(tmp_path):
    """Another engine command (here the engine behind a `tee` that records what it is sent):
    the --engine-param values reach it before `init`, the page's settings after."""
    import shlex

    log = tmp_path / "sent.txt"
    hub = shlex.join(engine_command())
    cmd = f"sh -c {shlex.quote(f'tee -a {shlex.quote(str(log))} | exec {hub}')}"
    with board_server("--engine", cmd, "--engine-param", "tt-size=16",
                      "--engine-param", "eval=hand") as server:
        ws = ws_connect(server)
        try:
            ready(ws)
            ws.send(json.dumps({"type": "go", "id": 1, "mode": "think", "variant": "italian",
                                "skill": 7, "level": {"move_time": 0.05}}))
            assert ws_until(ws, lambda m: m["type"] == "done")["move"]
        finally:
            ws.close()
    sent = log.read_text().splitlines()
    assert sent[:4] == ["hub", "set-param name=tt-size value=16", "set-param name=eval value=hand",
                        "init"]
    assert "set-param name=variant value=italian" in sent and "set-param name=skill value=7" in sent
    assert sent[-3:] == ["level move-time=0.050", "go think", "quit"] or "quit" in sent
    assert any(line.startswith("pos pos=W") for line in sent)


def test_pondering_hit_and_miss():
    """The engine's expected reply is pondered on; the expected move turns the ponder search
    into the reply (no new search), another move replaces it. The book is off: a book position
    is pondered without a search (tests/book), and the search is under test here."""
    with board_server("--engine-param", "book=false") as server:
        _ponder_hit_and_miss(server)


def _ponder_hit_and_miss(server) -> None:
    ws = ws_connect(server)
    try:
        ready(ws)
        base = {"variant": "russian", "skill": 20, "ponder": True, "level": {"move_time": 0.3}}
        ws.send(json.dumps(dict(base, type="go", id=1, mode="think", moves=["9-13"])))
        done = ws_until(ws, lambda m: m["type"] == "done")
        reply, expected = done["move"]["hub"], done["ponder"]
        assert expected
        moves = ["9-13", reply, expected]
        ws.send(json.dumps(dict(base, type="go", id=2, mode="ponder", moves=moves)))
        ws_until(ws, lambda m: m["type"] == "info" and m["id"] == 2)
        time.sleep(0.5)                       # pondering: no `done` while the clock is off
        ws.send(json.dumps(dict(base, type="go", id=3, mode="think", moves=moves, ponder_id=2)))
        hit = ws_until(ws, lambda m: m["type"] == "done")
        assert hit["id"] == 3 and hit["mode"] == "think" and hit["move"]
        assert hit["engine_ms"] < 1000            # counted from the hit, not from the ponder
        # a miss: the user plays another move than the one pondered on
        ws.send(json.dumps(dict(base, type="go", id=4, mode="ponder", moves=moves)))
        ws_until(ws, lambda m: m["type"] == "info" and m["id"] == 4)
        there = Position.start("russian").play("9-13").play(reply)
        other = [str(m) for m in there.legal_moves() if str(m) != expected]
        assert other, "the user has another move"
        ws.send(json.dumps(dict(base, type="go", id=5, mode="think", ponder_id=None,
                                moves=["9-13", reply, other[0]])))
        miss = ws_until(ws, lambda m: m["type"] == "done")
        assert miss["id"] == 5 and miss["move"]          # the ponder search's end is not shown
    finally:
        ws.close()


def test_a_draw_offer_is_answered_by_the_rule(server):
    ws = ws_connect(server)
    try:
        ready(ws)
        ws.send(json.dumps({"type": "draw", "id": 1, "variant": "russian", "moves": ["9-13"],
                            "engine_side": "white"}))
        young = ws_until(ws, lambda m: m["type"] == "draw")
        assert young["accept"] is False and young["plies"] == 1
        # the engine plays both sides for 40 plies, then is offered a draw
        moves: list[str] = []
        while len(moves) < 40:
            ws.send(json.dumps({"type": "go", "id": 10 + len(moves), "mode": "think",
                                "variant": "russian", "moves": moves,
                                "level": {"move_time": 0.02}}))
            done = ws_until(ws, lambda m: m["type"] in ("done", "error"))
            if done["type"] == "error" or done["state"]["result"]:
                pytest.skip("the self-play game ended before 40 plies")
            moves.append(done["move"]["hub"])
        side = Position.start("russian")
        for m in moves:
            side = side.play(m)
        engine = "black" if side.side_name == "white" else "white"
        ws.send(json.dumps({"type": "draw", "id": 99, "variant": "russian", "moves": moves,
                            "engine_side": engine}))
        answer = ws_until(ws, lambda m: m["type"] == "draw")
        assert answer["plies"] == 40 and answer["score"] is not None
        assert answer["accept"] == (answer["score"] <= 0.25)
    finally:
        ws.close()
