"""Make the README's picture of a report: `python tests/report/screenshot.py docs/report.png`.

Analyses the test games (tests/analysis/data/games.pdn) with the engine, writes their report and
saves headless Chromium's view of one game, at its first inaccuracy, mistake or blunder.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_browser import chromium, page_errors  # noqa: E402

from hub_engine.analysis import analyse  # noqa: E402
from hub_engine.report import write_report  # noqa: E402

GAMES = Path(__file__).resolve().parents[1] / "analysis" / "data" / "games.pdn"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("png", help="where to save the picture")
    ap.add_argument("--depth", type=int, default=10, help="analysis depth (default 10)")
    ap.add_argument("--multipv", type=int, default=3, help="best moves per position (default 3)")
    ap.add_argument("--game", type=int, default=1, help="game number in games.pdn (default 1)")
    ap.add_argument("--size", default="1200,860", help="window width,height (default 1200,860)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(GAMES, Path(d) / "games.pdn")
        png = os.path.abspath(args.png)
        os.chdir(d)                  # the records name the game file as `games.pdn`
        out = io.StringIO()
        analyse(["games.pdn"], depth=args.depth, multipv=args.multipv, workers=1, output=out,
                errors_to=None)
        records = [json.loads(line) for line in out.getvalue().splitlines()]
        page = Path(d) / "report.html"
        write_report(records, page, title="games.analysis.jsonl")
        game = sorted((r for r in records if r["game"].endswith(f"#{args.game}")),
                      key=lambda r: r["ply"])
        node = next((i for i, r in enumerate(game) if r["class"]), 0)
        with chromium() as driver:
            w, h = (int(x) for x in args.size.split(","))
            driver.set_window_size(w, h)
            driver.get(f"{page.as_uri()}#game={args.game - 1}&node={node}")
            errors = page_errors(driver)
            if errors:
                print("\n".join(errors), file=sys.stderr)
                return 1
            driver.save_screenshot(png)
    print(f"saved {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
