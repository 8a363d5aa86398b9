"""Size and browser load time of a report of many games (a benchmark, not a test).

    python tests/report/bench_report.py ANALYSIS.jsonl [--pdn GAMES.pdn] [--repeat 3]
    python tests/report/bench_report.py --games 1000          # made-up records of 1000 games

Writes the report, then opens it in headless Chromium (a fresh browser each time) and prints,
in milliseconds from the start of navigation: the first paint with content, DOMContentLoaded,
the load event and the script's `report-ready` mark (summary drawn, page usable); then the time to open one game (its data
parsed, board, graph and move list drawn) and to step one move. With --games the records are
made up (random legal moves, made-up scores), one 60-90 ply russian game each.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_browser import chromium, load_times, page_errors  # noqa: E402

from hub_engine.quality import classify  # noqa: E402
from hub_engine.rules.position import Position  # noqa: E402
from hub_engine.report import write_report  # noqa: E402
from hub_engine.report.records import read_files  # noqa: E402

OPEN_GAME = """
const [index, done] = arguments;
const t0 = performance.now();
window.addEventListener("hashchange", () => {
  const drawn = performance.now() - t0;
  requestAnimationFrame(() => setTimeout(() => done([drawn, performance.now() - t0]), 0));
}, {once: true});
location.hash = "game=" + index;
"""
STEP = """
const done = arguments[0];
const t0 = performance.now();
document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
const drawn = performance.now() - t0;
requestAnimationFrame(() => setTimeout(() => done([drawn, performance.now() - t0]), 0));
"""


def made_up(games: int, seed: int = 1) -> list[dict]:
    """Records of `games` random russian games with made-up scores and losses."""
    rnd = random.Random(seed)
    out = []
    for n in range(1, games + 1):
        pos, plies = Position.start("russian"), rnd.randint(60, 90)
        score = 0.0
        for ply in range(plies + 1):
            moves = [str(m) for m in pos.legal_moves()]
            if not moves:
                break
            played = rnd.choice(moves) if ply < plies else None
            loss = round(rnd.expovariate(4), 2) if played else None
            best = played if played and not loss else rnd.choice(moves)
            pv = [best] + [rnd.choice(moves) for _ in range(rnd.randint(4, 10))]
            score = round(max(-9, min(9, score + rnd.uniform(-0.4, 0.4))), 2)
            cls = classify(loss)
            out.append({"game": f"made-up.pdn#{n}", "ply": ply,
                        "label": f"{ply // 2 + 1}{'...' if ply % 2 else '.'}" if played else None,
                        "variant": "russian", "position": pos.hub(), "fen": pos.fen(),
                        "side": pos.side_name, "played": played, "best": best, "score": score,
                        "pv": pv, "depth": 12, "nodes": rnd.randint(10000, 90000),
                        "played_score": None if loss is None else round(score - loss, 2),
                        "loss": loss, "class": cls, "time": 0.05,
                        "white": f"Player {n % 37}", "black": f"Player {(n * 7) % 37}"})
            if played:
                pos = pos.play(played)
                score = -score
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="analysis JSON Lines (or use --games)")
    ap.add_argument("--games", type=int, help="made-up records of this many games instead")
    ap.add_argument("--pdn", action="append", default=[], help="PDN files for the tags")
    ap.add_argument("--repeat", type=int, default=3, help="browser loads (default 3)")
    ap.add_argument("--keep", help="also keep the report at this path")
    args = ap.parse_args()
    if bool(args.files) == bool(args.games):
        ap.error("give analysis files or --games N")
    if args.games:
        records = made_up(args.games)
    else:
        records, errors = read_files(args.files)
        print(f"{len(errors)} unreadable lines", file=sys.stderr) if errors else None
    with tempfile.TemporaryDirectory() as d:
        page = Path(args.keep or os.path.join(d, "report.html")).resolve()
        t0 = time.perf_counter()
        dirs = [os.path.dirname(os.path.abspath(f)) for f in args.files]
        warnings = write_report(records, page, search_dirs=dirs, pdn_files=args.pdn)
        build = time.perf_counter() - t0
        for w in warnings:
            print(w, file=sys.stderr)
        games = len({r["game"] for r in records})
        print(f"records={len(records)} pages={games} size={page.stat().st_size / 1e6:.2f}MB "
              f"build={build:.2f}s")
        middle = games // 2
        for run in range(args.repeat):
            with chromium() as driver:
                driver.set_script_timeout(60)
                t0 = time.perf_counter()
                driver.get(page.as_uri())
                wall = time.perf_counter() - t0
                t = load_times(driver)
                opened = driver.execute_async_script(OPEN_GAME, middle)
                stepped = driver.execute_async_script(STEP)
                errors = page_errors(driver)
                paint = f"{t['paint']:.0f}ms" if t["paint"] is not None else "-"
                print(f"run {run + 1}: first-paint={paint} domcontentloaded={t['dom']:.0f}ms "
                      f"load={t['load']:.0f}ms "
                      f"ready={t['ready']:.0f}ms (driver.get {wall * 1000:.0f}ms)  "
                      f"open game {middle}: {opened[0]:.0f}ms drawn, {opened[1]:.0f}ms painted  "
                      f"step: {stepped[0]:.1f}ms drawn, {stepped[1]:.1f}ms painted"
                      + (f"  ERRORS {errors}" if errors else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
