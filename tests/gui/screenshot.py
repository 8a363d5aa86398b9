"""Make the README's pictures of the board: `python tests/gui/screenshot.py docs/`.

Starts `hub-engine gui`, plays the opening of a russian game against the engine by clicking
(docs/gui-play.png), then analyses a position of it with three lines (docs/gui-analysis.png), in
headless Chromium.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import protocol  # noqa: E402,F401  (the package, before tests/protocol could shadow it)

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))      # launchers

from gui_helpers import (board_position, board_server, chromium, click_square, js,  # noqa: E402
                         open_board, wait_until)

from hub_engine.rules import notation  # noqa: E402
from hub_engine.rules.position import Position  # noqa: E402


def good_move(driver):
    """A sound move for the position on the board (the engine's own choice at depth 8), so that
    the pictures show a game rather than a rout."""
    from hub_engine.engine import Engine
    from protocol import Limits

    pos = Position.from_hub("russian", board_position(driver))
    engine = Engine()
    engine.set_param("variant", "russian")
    engine.set_position(pos.hub(), [])
    result = engine.search(Limits(depth=8), "think", lambda info: None)
    return pos.parse_move(result.move)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", help="where to save gui-play.png and gui-analysis.png")
    ap.add_argument("--size", default="1120,700", help="window width,height (default 1120,700)")
    ap.add_argument("--moves", type=int, default=7, help="moves played before the picture")
    args = ap.parse_args()
    out = Path(args.directory)
    out.mkdir(parents=True, exist_ok=True)
    w, h = (int(x) for x in args.size.split(","))
    with board_server() as server, chromium() as d:
        d.set_window_size(w, h)
        open_board(d, server.url)
        js(d, "const v = document.getElementById('variant'); v.value = 'russian';"
              "v.dispatchEvent(new Event('change'));")
        wait_until(lambda: board_position(d) == Position.start("russian").hub(), what="russian")
        d.find_element("css selector", "input[name=tc][value=clock]").click()
        d.find_element("id", "start-game").click()
        for _ in range(args.moves):
            wait_until(lambda: "Your move" in d.find_element("id", "status").text, 60, "my turn")
            pos = Position.from_hub("russian", board_position(d))
            m = good_move(d)
            click_square(d, notation.internal_to_layout(pos.variant, m.frm))
            click_square(d, notation.internal_to_layout(pos.variant, m.to))
        wait_until(lambda: "Your move" in d.find_element("id", "status").text, 60, "my turn")
        pos = Position.from_hub("russian", board_position(d))
        click_square(d, notation.internal_to_layout(pos.variant, pos.legal_moves()[0].frm))
        time.sleep(1.2)
        d.save_screenshot(str(out / "gui-play.png"))
        # the game so far as PDN, into a fresh page, analysed two moves before its end
        d.find_element("id", "pdn-save").click()
        text = wait_until(lambda: d.find_element("id", "pdn-text").get_attribute("value"),
                          what="the PDN")
        open_board(d, server.url)
        d.find_element("css selector", "#modes button[data-mode=analyse]").click()
        d.find_element("id", "pdn-open").click()
        d.find_element("id", "pdn-text").send_keys(text)
        d.find_element("id", "pdn-load-text").click()
        wait_until(lambda: js(d, "return document.querySelectorAll('#moves .mv').length") > 4,
                   what="the game")
        d.find_element("id", "pdn-close").click()
        js(d, "document.getElementById('message').hidden = true")
        d.find_element("tag name", "body").send_keys("\ue010\ue012\ue012")
        d.find_element("id", "analyse-toggle").click()
        wait_until(lambda: js(d, "return +document.getElementById('lines').dataset.count") == 3
                   and js(d, "return Math.min(...[...document.querySelectorAll('#lines .depth')]"
                             ".map(e => +e.textContent))") >= 14, 120, "deep lines")
        d.save_screenshot(str(out / "gui-analysis.png"))
        d.find_element("id", "analyse-toggle").click()
    print(f"saved {out / 'gui-play.png'} and {out / 'gui-analysis.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
