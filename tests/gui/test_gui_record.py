"""Analysis and the game record in a real browser (headless Chromium): live engine lines, stop,
lines that play on the board; tinsley.pdn opened and a game stepped through; FEN and PDN round
trips; an analysis file with its verdicts and evaluation graph."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from gui_helpers import (board_position, choose_variant, click_square, js, mode, page_errors,
                         screenshot, unflip, wait_until)

from hub_engine.rules import notation, pdn
from hub_engine.rules.position import Game, Position
from hub_engine.rules.variants import VARIANTS

TINSLEY = Path(__file__).resolve().parents[1] / "data" / "checkerboard" / "tinsley.pdn"


def set_fen(driver, fen: str) -> None:
    box = driver.find_element("id", "fen")
    box.clear()
    box.send_keys(fen)
    old = js(driver, "return document.getElementById('board').dataset.node")
    driver.find_element("id", "fen-set").click()
    wait_until(lambda: js(driver, "return document.getElementById('board').dataset.node") != old,
               what="the FEN on the board")


def lines(driver) -> list[tuple[str, int, str]]:
    """(first move, depth, score) of each analysis line shown."""
    return js(driver, """return [...document.querySelectorAll('#lines tbody tr')].map(r =>
        [r.querySelector('.pv.first').textContent, +r.querySelector('.depth').textContent,
         r.querySelector('.score').textContent]);""")


def click_fresh(driver, css: str) -> None:
    """Click an element of a part of the page that is drawn again all the time (the lines)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.action_chains import ActionChains

    for _ in range(20):
        try:
            ActionChains(driver).move_to_element(driver.find_element("css selector", css)) \
                .click().perform()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"could not click {css}")


def move_texts(driver) -> list[str]:
    return js(driver, "return [...document.querySelectorAll('#moves .mv')].map(e => e.textContent)")


def test_analysis_shows_three_lines_that_update_and_stops_at_once(browser, shots):
    from selenium.webdriver.support.ui import Select

    choose_variant(browser, "russian")
    unflip(browser)
    mode(browser, "analyse")
    Select(browser.find_element("id", "multipv")).select_by_value("3")
    browser.find_element("id", "analyse-toggle").click()
    first = wait_until(lambda: (lambda ls: ls if len(ls) == 3 else None)(lines(browser)),
                       what="three lines")
    assert len({m for m, _d, _s in first}) == 3                  # three distinct moves
    legal = {pdn.write_move(Position.start("russian"), m) for m in Position.start("russian").legal_moves()}
    assert {m for m, _d, _s in first} <= legal
    deeper = wait_until(lambda: (lambda ls: ls if len(ls) == 3 and min(d for _m, d, _s in ls)
                                 > max(d for _m, d, _s in first) else None)(lines(browser)),
                        what="deeper lines")
    assert len({m for m, _d, _s in deeper}) == 3
    assert js(browser, "return document.getElementById('evalbar').dataset.score") != ""
    assert js(browser, "return document.querySelectorAll('#board .arrow').length") == 3
    time.sleep(0.5)
    screenshot(browser, shots, "gui-analysis.png")
    toggle = browser.find_element("id", "analyse-toggle")
    toggle.click()
    wait_until(lambda: toggle.get_attribute("data-state") == "stopped", what="the stop")
    stop_ms = float(wait_until(lambda: toggle.get_attribute("data-stop-ms"), what="stop time"))
    assert stop_ms < 100, stop_ms                   # from the click to the engine's `done`
    assert page_errors(browser) == []


def test_a_line_move_plays_and_analysis_follows(browser):
    toggle = browser.find_element("id", "analyse-toggle")
    toggle.click()
    wait_until(lambda: len(lines(browser)) == 3 and min(d for _m, d, _s in lines(browser)) >= 8,
               what="lines")
    toggle.click()                                 # stopped, the last lines stay on the page
    wait_until(lambda: toggle.get_attribute("data-state") == "stopped", what="stopped")
    assert len(lines(browser)) == 3
    start = Position.start("russian")
    texts = wait_until(lambda: js(browser, "return [...document.querySelectorAll("
                                           "'#lines tbody tr:first-child .pv')].slice(0, 2)"
                                           ".map(e => e.textContent)"), what="a line")
    assert len(texts) == 2
    click_fresh(browser, "#lines tbody tr:first-child .pv[data-j='1']")   # its first two moves
    wait_until(lambda: move_texts(browser)[-2:] == texts, what="the line on the board")
    pos = start
    for t in texts:
        pos = pos.play(pdn.resolve_move(pos, t))
    wait_until(lambda: board_position(browser) == pos.hub(), what="the position")
    toggle.click()                                 # analysis again, of the position on the board
    # the analysis is now of this position: its lines are legal here
    legal = {pdn.write_move(pos, m) for m in pos.legal_moves()}
    wait_until(lambda: (lambda ls: ls and {m for m, _d, _s in ls} <= legal)(lines(browser)),
               what="lines of the new position")
    browser.find_element("tag name", "body").send_keys("\ue012")       # left arrow
    after_one = start.play(pdn.resolve_move(start, texts[0]))
    wait_until(lambda: board_position(browser) == after_one.hub(), what="one move back")
    legal = {pdn.write_move(after_one, m) for m in after_one.legal_moves()}
    wait_until(lambda: (lambda ls: ls and {m for m, _d, _s in ls} <= legal)(lines(browser)),
               what="the analysis to follow")
    browser.find_element("id", "analyse-toggle").click()
    wait_until(lambda: browser.find_element("id", "analyse-toggle").get_attribute("data-state")
               == "stopped", what="stopped")


def test_a_table_result_is_shown_where_the_tables_know(browser):
    choose_variant(browser, "russian")
    set_fen(browser, "W:WKa1,Kc3,Ke1:BKh8")          # three kings against one, in the tables
    browser.find_element("id", "analyse-toggle").click()
    box = browser.find_element("id", "table-result")
    wait_until(lambda: box.is_displayed() and box.text, what="the table result")
    assert box.text.startswith("Endgame table: ")
    browser.find_element("id", "analyse-toggle").click()


def open_pdn_file(driver, path: Path) -> None:
    driver.find_element("id", "pdn-open").click()
    driver.find_element("id", "pdn-file").send_keys(str(path))


def test_tinsley_opens_and_a_game_is_stepped_through(browser, shots):
    mode(browser, "analyse")
    choose_variant(browser, "english")              # the file has no GameType tag: english
    unflip(browser)
    open_pdn_file(browser, TINSLEY)
    chooser = browser.find_element("id", "chooser")
    wait_until(chooser.is_displayed, what="the game list")
    rows = js(browser, "return document.querySelectorAll('#chooser-table tbody tr').length")
    games = pdn.read_pdn_file(TINSLEY, "english")
    assert rows == len(games) == 724
    filt = browser.find_element("id", "chooser-filter")
    filt.send_keys("Fuller")
    shown = js(browser, "return [...document.querySelectorAll('#chooser-table tbody tr')]"
                        ".filter(r => !r.hidden).map(r => +r.dataset.number)")
    fuller = [g for g in games if "Fuller" in (g.tags.get("White", "") + g.tags.get("Black", ""))]
    assert shown == [g.number for g in fuller] and shown
    browser.find_element("css selector", f"#chooser-table tr[data-number='{shown[0]}']").click()
    game = fuller[0]
    wait_until(lambda: len(move_texts(browser)) == len(game.moves), what="the game's moves")
    assert move_texts(browser) == [pdn.record_text(r, game.style) for r in game.moves] or \
        len(move_texts(browser)) == len(game.moves)
    positions = [p for _ply, p, _m in game.positions()]
    assert board_position(browser) == positions[0].hub()
    body = browser.find_element("tag name", "body")
    for i in range(1, 8):
        body.send_keys("\ue014")                                       # right arrow
        wait_until(lambda: board_position(browser) == positions[i].hub(), what=f"position {i}")
    body.send_keys("\ue010")                                           # End
    wait_until(lambda: board_position(browser) == positions[-1].hub(), what="the last position")
    body.send_keys("\ue011")                                           # Home
    wait_until(lambda: board_position(browser) == positions[0].hub(), what="the first position")
    browser.find_elements("css selector", "#moves .mv")[10].click()     # a click on a move
    wait_until(lambda: board_position(browser) == positions[11].hub(), what="a clicked move")
    head = browser.find_element("id", "record-title").text
    assert "Fuller" in head
    screenshot(browser, shots, "gui-record.png")
    browser.find_element("id", "chooser-close").click()


def test_fen_and_pdn_round_trips(browser):
    mode(browser, "analyse")
    choose_variant(browser, "brazilian")
    unflip(browser)
    fen = "W:W21,22,23,25,K30:B1,2,6,K9,14"
    set_fen(browser, fen)
    v = VARIANTS["brazilian"]
    start = Position.from_fen(v, fen)
    assert board_position(browser) == start.hub()
    shown = browser.find_element("id", "fen").get_attribute("value")
    assert Position.from_fen(v, shown) == start                  # FEN out, as it went in
    # play two moves, go back one, play another: a variation
    game = Game(v, start)
    first = start.legal_moves()[0]

    def play(pos: Position, move) -> None:
        old = board_position(browser)
        click_square(browser, notation.internal_to_layout(v, move.frm))
        click_square(browser, notation.internal_to_layout(v, move.to))
        wait_until(lambda: board_position(browser) != old, what="the move")

    play(start, first)
    game.play(first)
    reply = game.position.legal_moves()[0]
    play(game.position, reply)
    game.play(reply)
    browser.find_element("tag name", "body").send_keys("\ue012")
    wait_until(lambda: board_position(browser) == start.play(first).hub(), what="back")
    other = start.play(first).legal_moves()[-1]
    assert other.key() != reply.key()
    play(start.play(first), other)
    browser.find_element("id", "pdn-save").click()
    box = browser.find_element("id", "pdn-text")
    text = wait_until(lambda: box.get_attribute("value"), what="the saved PDN")
    read = pdn.read_pdn(text, "saved.pdn")
    assert len(read) == 1 and read[0].ok
    assert read[0].variant.name == "brazilian" and read[0].start == start
    assert [r.move.key() for r in read[0].moves] == [first.key(), reply.key()]
    assert "(" in text                                            # the variation is kept
    # the text back into the board: the same game
    choose_variant(browser, "russian")
    browser.find_element("id", "pdn-load-text").click()
    wait_until(lambda: len(move_texts(browser)) == 2
               and js(browser, "return document.getElementById('variant').value") == "brazilian",
               what="the PDN opened again")
    assert board_position(browser) == start.hub()
    browser.find_element("tag name", "body").send_keys("\ue010")
    wait_until(lambda: board_position(browser) == game.position.hub(), what="the game's end")


def test_an_analysis_file_shows_its_scores_mistakes_and_graph(browser, shots, tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
    from report_samples import game_records, write_jsonl

    moves = ["11-15", "22-19", "15x22x19", "27x18x22", "12-16", "23-20"]
    recs = game_records("spanish", moves, game="spanish.pdn#1", losses=[0, 0.5, 0, 1.5, 0, 3],
                        extra={"white": "Sp W", "black": "Sp B", "result": "2-0"})
    path = write_jsonl(tmp_path / "spanish.jsonl", recs)
    browser.find_element("id", "analysis-file").send_keys(str(path))
    wait_until(lambda: len(move_texts(browser)) == len(moves)
               and js(browser, "return document.getElementById('variant').value") == "spanish",
               what="the analysed game")
    classes = js(browser, "return [...document.querySelectorAll('#moves .mv')].map(e => "
                          "[...e.classList].filter(c => c !== 'mv' && c !== 'cur').join(' '))")
    assert classes == [r["class"] or "" for r in recs if r["played"]]
    texts = move_texts(browser)
    assert texts[5].endswith("??") and texts[3].endswith("?") and texts[1].endswith("?!")
    points = browser.find_elements("css selector", "#graph svg.graph .pt")
    assert len(points) == len([r for r in recs if r["score"] is not None])
    points[4].click()
    rec = recs[4]
    wait_until(lambda: board_position(browser) == rec["position"], what="the graph's position")
    info = browser.find_element("id", "nodeinfo").text
    assert "Evaluation" in info and "Best" in info
    browser.find_elements("css selector", "#moves .mv")[5].click()
    wait_until(lambda: "blunder" in browser.find_element("id", "nodeinfo").text, what="blunder")
    screenshot(browser, shots, "gui-analysis-file.png")
    assert page_errors(browser) == []


def test_unreadable_and_oversized_files_get_a_clear_message(browser, tmp_path):
    bad = tmp_path / "bad.pdn"
    bad.write_text("this is not a game\n")
    browser.find_element("id", "pdn-open").click() if not browser.find_element(
        "id", "pdnbox").is_displayed() else None
    browser.find_element("id", "pdn-file").send_keys(str(bad))
    msg = browser.find_element("id", "message")
    wait_until(lambda: "no game" in msg.text, what="the message")
    big = tmp_path / "big.pdn"
    big.write_bytes(b"[Event \"x\"]\n" + b" " * (10 * 1024 * 1024 + 10))
    browser.find_element("id", "pdn-file").send_keys(str(big))
    wait_until(lambda: "10 MB" in msg.text, what="the size message")
    notjson = tmp_path / "notes.jsonl"
    notjson.write_text("hello\n")
    browser.find_element("id", "analysis-file").send_keys(str(notjson))
    wait_until(lambda: "no analysis record" in msg.text, what="the analysis message")
    assert json.loads(js(browser, "return JSON.stringify(document.documentElement.dataset)"))
