"""The board's figures: `python tests/gui/figures.py` (HUB_ENGINE_EXE=... for the one-file build).

Prints, each over a few runs:
- the time from starting `hub-engine gui` to its address line, and to the board drawn in a
  browser that is already open (headless Chromium, the page's `gui-ready` mark);
- the move-to-reply latency beyond the engine's own time: from the user's click on the target
  square to the engine's reply drawn on the board, less the engine's part (from the `go` it was
  sent to its `done`, as the server saw them), in a russian game at 0.1 s a move;
- the memory of an open tab: its engine process (after `init`, and after an analysis with three
  lines), and what the server grows by per tab.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import protocol  # noqa: E402,F401  (the package, before tests/protocol could shadow it)

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))      # launchers

from gui_helpers import (Server, board_position, board_server, chromium, click_square,  # noqa: E402
                         engines_of, js, open_board, rss_kb, wait_until, ws_connect, ws_until)
from launchers import engine_command  # noqa: E402

from hub_engine.rules import notation  # noqa: E402
from hub_engine.rules.position import Position  # noqa: E402


def start_times(driver, runs: int) -> None:
    address, board = [], []
    for _ in range(runs):
        driver.get("about:blank")
        t0 = time.monotonic()
        proc = subprocess.Popen(engine_command() + ["gui", "--no-browser"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = proc.stdout.readline().strip()
            address.append(time.monotonic() - t0)
            driver.get(url)
            wait_until(lambda: js(driver, "return document.documentElement.dataset.ready"),
                       30, "the board")
            board.append(time.monotonic() - t0)
        finally:
            proc.terminate()
            proc.wait(20)
    print(f"start: address line {1000 * statistics.median(address):.0f} ms, board drawn "
          f"{1000 * statistics.median(board):.0f} ms (median of {runs}; "
          f"all: {', '.join(f'{1000 * b:.0f}' for b in board)} ms)")


def reply_latency(driver, server: Server, moves: int) -> None:
    open_board(driver, server.url)
    js(driver, "document.querySelector('#modes button[data-mode=play]').click();"
               "document.getElementById('variant').value = 'russian';"
               "document.getElementById('variant').dispatchEvent(new Event('change'));")
    time.sleep(0.5)
    driver.find_element("css selector", "input[name=tc][value=move]").click()
    box = driver.find_element("id", "movetime")
    box.clear()
    box.send_keys("0.1")
    driver.find_element("id", "start-game").click()
    rng = random.Random(3)
    played = 0
    while played < moves:
        wait_until(lambda: "Your move" in driver.find_element("id", "status").text
                   or driver.find_element("id", "newgame").is_displayed(), 30, "my turn")
        if driver.find_element("id", "newgame").is_displayed():
            driver.find_element("id", "start-game").click()
            continue
        pos = Position.from_hub("russian", board_position(driver))
        m = rng.choice([m for m in pos.legal_moves()
                        if sum(o.frm == m.frm and o.to == m.to for o in pos.legal_moves()) == 1])
        click_square(driver, notation.internal_to_layout(pos.variant, m.frm))
        click_square(driver, notation.internal_to_layout(pos.variant, m.to))
        played += 1
        wait_until(lambda: len(js(driver, "return window.hubEngineTimings")) >= played
                   or driver.find_element("id", "newgame").is_displayed(), 30, "the reply")
    t = js(driver, "return window.hubEngineTimings")
    extra = sorted(x["total"] - x["engine"] for x in t)
    print(f"reply: beyond the engine's own time median {statistics.median(extra):.1f} ms, "
          f"max {max(extra):.1f} ms over {len(extra)} replies (engine's part median "
          f"{statistics.median(x['engine'] for x in t):.0f} ms at 0.1 s a move)")


def memory(tabs: int) -> None:
    with board_server("--max-tabs", str(tabs)) as server:
        time.sleep(1)
        base = rss_kb(server.pid)
        sockets = [ws_connect(server) for _ in range(tabs)]
        pids = [ws_until(ws, lambda m: m.get("state") == "ready", 60)["pid"] for ws in sockets]
        time.sleep(0.5)
        after_init = [rss_kb(p) for p in pids]
        for i, ws in enumerate(sockets):
            ws.send(json.dumps({"type": "go", "id": 1, "mode": "analyze", "variant": "russian",
                                "multipv": 3}))
        time.sleep(3)
        for ws in sockets:
            ws.send(json.dumps({"type": "stop", "id": 1}))
            ws_until(ws, lambda m: m["type"] == "done")
        analysed = [rss_kb(p) for p in pids]
        grown = (rss_kb(server.pid) - base) / tabs
        assert sorted(engines_of(server.pid)) == sorted(pids)
        for ws in sockets:
            ws.close()
    print(f"memory: engine {statistics.mean(after_init) / 1024:.0f} MB after init, "
          f"{statistics.mean(analysed) / 1024:.0f} MB after an analysis with 3 lines; the server "
          f"{base / 1024:.0f} MB, growing by {grown / 1024:.1f} MB a tab ({tabs} tabs)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="starts timed (default 5)")
    ap.add_argument("--moves", type=int, default=15, help="replies timed (default 15)")
    ap.add_argument("--tabs", type=int, default=4, help="tabs for the memory figure (default 4)")
    args = ap.parse_args()
    with chromium() as driver:
        start_times(driver, args.runs)
        with board_server() as server:
            reply_latency(driver, server, args.moves)
    memory(args.tabs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
