"""The board server's parts without a browser: the rules answers, records in and out, the guard,
the time-control check and the engine's children."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from hub_engine import lifetime
from hub_engine.gui import records, rules
from hub_engine.gui.engines import check_level
from hub_engine.gui.records import MAX_UPLOAD, RecordsError
from hub_engine.gui.rules import RequestError
from hub_engine.gui.security import Guard, browser_host, is_loopback
from hub_engine.rules import pdn
from hub_engine.rules.position import Game, Position
from hub_engine.rules.variants import VARIANTS


# --- rules ---------------------------------------------------------------------------------------

def test_a_game_request_is_checked_move_by_move():
    req = rules.game_request({"variant": "russian", "moves": ["9-13", "22-18"]})
    assert req.game().position == Game("russian", moves=["9-13", "22-18"]).position
    for bad, words in [({"variant": "checkers10"}, "unknown variant"),
                       ({"variant": "russian", "moves": ["9-13", "9-13"]}, "move 2"),
                       ({"variant": "russian", "moves": "9-13"}, "a list"),
                       ({"variant": "russian", "moves": ["9-13 quit"]}, "bad move"),
                       ({"variant": "russian", "start": "W" + "x" * 32}, "bad position"),
                       ({"variant": "russian", "start": 5}, "bad position")]:
        with pytest.raises(RequestError, match=words):
            rules.game_request(bad).game()


def test_a_man_on_its_crowning_row_is_refused():
    with pytest.raises(RequestError, match="crowning row"):
        rules.position_of(VARIANTS["russian"], "W:Wb8:Bh6")
    with pytest.raises(RequestError, match="black man on a1"):
        rules.position_of(VARIANTS["russian"], "W:Wc3:Ba1")
    assert rules.position_of(VARIANTS["russian"], "W:WKb8:Bh6").fen() == "W:WKb8:Bh6"


def test_legal_moves_carry_their_paths_and_ambiguity():
    fen = "W:W20,22,23,25,26,28,29,30,31,32:B1,2,3,4,5,6,8,10,11,18,19,21"
    st = rules.state_json(Game("english", Position.from_fen("english", fen)))
    twins = [m for m in st["legal"] if m["hub"] in ("23x7x11x19", "23x7x10x18")]
    assert len(twins) == 2 and all(m["ambiguous"] and m["capture"] for m in twins)
    assert {len(m["path"]) for m in twins} == {3}
    assert {m["text"] for m in twins} == {"23x16x7", "23x14x7"}    # the path, as PDN writes it
    quiet = rules.state_json(Game("russian"))["legal"]
    assert {"a3-b4", "c3-d4", "g3-h4"} <= {m["text"] for m in quiet}
    assert len(quiet) == 7 and not any(m["ambiguous"] for m in quiet)


def test_game_ends_say_why():
    going = Game("russian", Position.from_fen("russian", "B:Wa1:Bh8"))
    assert rules.end_reason(going) == (None, None)
    taken = Game("russian", Position.from_fen("russian", "B:WKc3:B"))       # no black piece left
    assert rules.end_reason(taken) == ("1-0", "Black has no legal move: White wins")
    blocked = Game("russian", Position.from_fen("russian", "W:Wa1:Bb2,c3"))  # a1 cannot move
    assert rules.end_reason(blocked) == ("0-1", "White has no legal move: Black wins")
    g = Game("english", Position.from_fen("english", "W:WK1:BK32"))
    for _ in range(2):
        for m in ("1-5", "32-28", "5-1", "28-32"):
            g.play(next(x for x in g.legal_moves() if x.hub() == m))
    result, why = rules.end_reason(g)
    assert result == "1/2-1/2" and why == "Draw: the same position for the third time"


def test_engine_lines_are_numbered_and_cut_at_an_illegal_move():
    start = Position.start("russian")
    line = rules.line_json(start, ["9-13", "22-18", "13x22", "5-9"], 0)
    assert [m["label"] for m in line] == ["1.", "1...", "2."]
    assert [m["text"] for m in line] == ["a3-b4", "d6-c5", "b4:d6"]    # 9 is a3, 22 d6, 18 c5
    assert rules.move_label(1) == "1..." and rules.move_label(4) == "3."


def test_a_draw_offer_is_taken_when_level_and_long():
    assert rules.accepts_draw(0.1, 60) and rules.accepts_draw(-2.0, 40)
    assert not rules.accepts_draw(0.5, 60) and not rules.accepts_draw(0.0, 30)
    assert not rules.accepts_draw(None, 80)


def test_time_controls():
    assert check_level("analyze", None) is None
    assert check_level("think", {"move_time": 0.5}) == "move-time=0.500"
    assert check_level("ponder", {"time": 60, "inc": 2}) == "time=60.000 inc=2.000"
    for bad in (None, {"move_time": 0}, {"move_time": "1"}, {"time": -1}, {"time": 5, "inc": True}):
        with pytest.raises(RequestError):
            check_level("think", bad)


# --- records -------------------------------------------------------------------------------------

def test_pdn_written_with_variations_reads_back():
    msg = {"variant": "russian", "tags": {"White": "A", "Black": "B", "Result": "1-0",
                                          "Bad key!": "x", "Event": "line\nbreak"},
           "line": [{"hub": "9-13", "variations": [[{"hub": "11-15", "variations": []},
                                                    {"hub": "22-18", "variations": []}]]},
                    {"hub": "22-18", "variations": [[{"hub": "21-17", "variations": []}]]},
                    {"hub": "13x22", "variations": []}]}
    text = records.write_pdn(msg)
    assert '[GameType "25"]' in text and '[White "A"]' in text and "Bad key" not in text
    assert '[Event "line break"]' in text and "FEN" not in text
    assert "1. a3-b4 (1. e3-f4 d6-c5) 1... d6-c5 (1... b6-a5) 2. b4:d6 1-0" in " ".join(text.split())
    game = pdn.read_pdn(text)[0]
    assert game.ok and [r.move.hub() for r in game.moves] == ["9-13", "22-18", "13x22x18"]
    assert game.result == "1-0"


def test_pdn_from_a_position_keeps_its_fen():
    start = Position.from_fen("brazilian", "B:W21,22:B9,K1")
    text = records.write_pdn({"variant": "brazilian", "start": start.hub(),
                              "line": [{"hub": str(start.legal_moves()[0])}]})
    game = pdn.read_pdn(text)[0]
    assert game.ok and game.start == start and len(game.moves) == 1
    assert "1... " in text
    with pytest.raises(RequestError):
        records.write_pdn({"variant": "brazilian", "line": [{"hub": "1-5"}]})


def test_uploads_are_read_or_refused_clearly():
    up = records.read_upload(b'[GameType "25"]\n1. c3-d4 f6-e5 2. d4xf6 *\n', "a.pdn",
                             VARIANTS["brazilian"])
    [row] = up.listing()
    assert row["variant"] == "russian" and row["moves"] == 3 and row["error"] is None
    game = up.game(1)
    assert [m["hub"] for m in game["moves"]] == ["10-14", "23-19", "14x23x19"]
    assert game["moves"][2]["label"] == "2."
    with pytest.raises(RequestError, match="no game 2"):
        up.game(2)
    with pytest.raises(RecordsError, match="no game found"):
        records.read_upload(b"\n\n", "e.pdn", VARIANTS["russian"])
    with pytest.raises(RecordsError, match="MB"):
        records.read_upload(b" " * (MAX_UPLOAD + 1), "big.pdn", VARIANTS["russian"])
    with pytest.raises(RecordsError, match="not a text file"):
        records.read_upload(b"PK\x03\x04\x00\x00", "a.zip", VARIANTS["russian"])
    latin = records.decode("1. 11-15 {caf\xe9} *".encode("cp1252"), "x")
    assert "café" in latin


def test_an_analysis_file_gives_moves_and_verdicts():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "report"))
    from report_samples import game_records

    recs = game_records("russian", ["9-13", "22-18", "13x22x18"], losses=[0, 1.0, 0])
    data = "".join(json.dumps(r) + "\n" for r in recs).encode() + b"not json\n"
    out = records.read_analysis(data, "a.jsonl")
    [c] = out["collections"]
    assert out["skipped"] == 1 and "not JSON" in out["errors"][0]
    assert [m["hub"] for m in c["moves"]] == ["9-13", "22-18", "13x22x18"]
    assert [n["class"] for n in c["nodes"]][:3] == [r["class"] for r in recs][:3]
    with pytest.raises(RecordsError, match="no analysis record"):
        records.read_analysis(b"{}\n", "b.jsonl")


# --- the guard -----------------------------------------------------------------------------------

def test_the_guard_knows_its_hosts_origins_and_token():
    g = Guard.for_host("127.0.0.1", 8123, token="t" * 32)
    assert g.host_ok("127.0.0.1:8123") and g.host_ok("localhost:8123") and g.host_ok("[::1]:8123")
    for bad in ("127.0.0.1:8124", "evil:8123", "127.0.0.1", None, "localhost.evil:8123",
                "10.0.0.1:8123"):
        assert not g.host_ok(bad), bad
    assert g.origin_ok("http://localhost:8123", "localhost:8123")
    assert not g.origin_ok("http://localhost:8123", "127.0.0.1:8123")
    assert not g.origin_ok("https://127.0.0.1:8123", "127.0.0.1:8123")
    assert not g.origin_ok(None, "127.0.0.1:8123")
    assert g.token_ok("/" + "t" * 32 + "/static/x") and not g.token_ok("/" + "t" * 31 + "/")
    assert not g.token_ok("/static/gui.js") and not g.token_ok("")
    anyhost = Guard.for_host("0.0.0.0", 80)
    assert anyhost.host_ok("192.168.1.7") and anyhost.host_ok("localhost")
    assert not anyhost.host_ok("evil.example")
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    assert browser_host("0.0.0.0") == "127.0.0.1" and browser_host("::1") == "[::1]"


# --- children that end with their parent ---------------------------------------------------------

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_started_with_the_preexec_hook_dies_with_its_parent(tmp_path):
    """A parent that starts `sleep` with parent_death_signal() and is then SIGKILLed."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys, time\n"
        f"sys.path.insert(0, {os.getcwd()!r})\n"
        "from hub_engine.lifetime import parent_death_signal\n"
        "p = subprocess.Popen(['sleep', '60'], preexec_fn=parent_death_signal())\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        try:                                 # a zombie of init's counts as gone
            with open(f"/proc/{child}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
        except OSError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        pytest.fail("the child outlived its parent")
    assert lifetime.watch_requested() is (os.environ.get(lifetime.WATCH_ENV) == "1")


def test_the_hub_client_hands_lines_to_a_listener():
    """protocol.client.HubClient with a listener: every stdout line, then None at the end,
    stamped as they arrive (the GUI's engines are read this way)."""
    import threading

    from launchers import engine_command
    from protocol.client import HubClient

    got, ended = [], threading.Event()

    def listener(line):
        got.append(line)
        if line is None:
            ended.set()

    client = HubClient(engine_command(), listener=listener,
                       preexec_fn=lifetime.parent_death_signal())
    client.start()
    try:
        client.send("hub")
        deadline = time.monotonic() + 30
        while not any(x is not None and x.text == "wait" for x in got):
            assert time.monotonic() < deadline, got
            time.sleep(0.01)
        client.send("quit")
        assert ended.wait(10) and client.wait_exit(10) == 0
    finally:
        client.kill()
    lines = [x.text for x in got if x is not None]
    assert lines[0].startswith("id name=hub-engine") and lines[-1] == "wait"
    assert got[-1] is None and all(a.at <= b.at for a, b in zip(got, got[1:-1]))
