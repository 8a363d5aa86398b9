"""The board in a real browser (headless Chromium): the boards of every variant, a whole game
against the engine played by clicking squares, a capture with several paths, the position editor.

One server (`hub-engine gui`) and one browser serve the module; screenshots go to the test's
directory (and to HUB_ENGINE_GUI_SCREENSHOTS when set).
"""
from __future__ import annotations

import random
import time

import pytest
from gui_helpers import (board_position, choose_variant, click_square, drag, js, labels, mode,
                         unflip, page_errors, pieces, screenshot, wait_until)

from hub_engine.report.boards import square_xy
from hub_engine.rules import notation
from hub_engine.rules.position import Game, Position
from hub_engine.rules.variants import VARIANTS


def hub_of(driver) -> str:
    return board_position(driver)


def wait_position(driver, old: str) -> str:
    return wait_until(lambda: (lambda p: p if p and p != old else None)(hub_of(driver)),
                      what="the board to change")


# --- boards --------------------------------------------------------------------------------------

# Where rules.md section 6 puts some squares, as (column, row) from White's side (row 0 on top).
ANCHORS = {
    "russian": {"a1": (0, 7), "h8": (7, 0), "c3": (2, 5), "b8": (1, 0)},
    "brazilian": {"1": (1, 0), "4": (7, 0), "5": (0, 1), "29": (0, 7), "32": (6, 7)},
    "english": {"1": (1, 0), "4": (7, 0), "29": (0, 7), "32": (6, 7)},
    "italian": {"1": (0, 0), "4": (6, 0), "29": (1, 7), "32": (7, 7)},
    "portuguese": {"1": (7, 7), "4": (1, 7), "29": (6, 0), "32": (0, 0)},
    "spanish": {"1": (7, 7), "4": (1, 7), "29": (6, 0), "32": (0, 0)},
}


def test_every_variant_starts_with_the_right_squares_and_pieces(browser, shots):
    for name, v in VARIANTS.items():
        choose_variant(browser, name)
        unflip(browser)
        wait_until(lambda: hub_of(browser) == Position.start(v).hub(), what=f"{name} start")
        drawn = labels(browser)
        assert len(drawn) == 32
        for square, place in ANCHORS[name].items():
            assert drawn[place] == square, (name, square, place)
        dark_corner = (0, 7) in drawn                 # a playing square at White's lower left
        assert dark_corner == (not v.mirrored), name
        for k in range(1, 33):                        # every name where the report draws it
            s = notation.layout_to_internal(v, k)
            assert drawn[square_xy(v, k)] == notation.pdn_square(v, s), (name, k)
        men = pieces(browser)
        assert len(men) == 24
        assert {pl for pl, what in men.items() if what == "white man"} == {
            pl for pl in drawn if pl[1] >= 5}, name  # White's men on its three rows, at the bottom
        assert all(what.endswith("man") for what in men.values())
    screenshot(browser, shots, "gui-boards.png")
    assert page_errors(browser) == []


def test_notation_toggle_renames_the_squares(browser):
    from selenium.webdriver.support.ui import Select

    choose_variant(browser, "russian")
    wait_until(lambda: labels(browser).get((0, 7)) == "a1", what="russian labels")
    Select(browser.find_element("id", "notation")).select_by_value("hub")
    assert labels(browser)[(0, 7)] == "1" and labels(browser)[(7, 0)] == "32"
    Select(browser.find_element("id", "notation")).select_by_value("record")
    assert labels(browser)[(0, 7)] == "a1"


# --- a game --------------------------------------------------------------------------------------

def start_game(driver, variant: str, fen: str | None = None, side: str = "white",
               skill: int = 20, move_time: float = 0.05, ponder: bool = False) -> None:
    mode(driver, "play")
    choose_variant(driver, variant)
    if fen:
        box = driver.find_element("id", "fen")
        box.clear()
        box.send_keys(fen)
        old = hub_of(driver)
        driver.find_element("id", "fen-set").click()
        wait_position(driver, old)
        driver.find_element("css selector", "input[name=from][value=board]").click()
    else:
        driver.find_element("css selector", "input[name=from][value=start]").click()
    driver.find_element("css selector", f"input[name=side][value={side}]").click()
    js(driver, f"const s = document.getElementById('skill'); s.value = {skill}; "
               "s.dispatchEvent(new Event('input'));")
    driver.find_element("css selector", "input[name=tc][value=move]").click()
    t = driver.find_element("id", "movetime")
    t.clear()
    t.send_keys(str(move_time))
    box = driver.find_element("id", "ponder")
    if box.is_selected() != ponder:
        box.click()
    driver.find_element("id", "start-game").click()
    wait_until(lambda: driver.find_element("id", "game").is_displayed(), what="the game")


def status(driver) -> str:
    return driver.find_element("id", "status").text


def game_over(driver) -> bool:
    """The new-game form is back."""
    return driver.find_element("id", "newgame").get_attribute("hidden") is None


def play_by_clicks(driver, variant: str, pick) -> Game:
    """Play the user's moves (chosen by `pick` from the legal moves) by clicking until the game
    is over; the game as the page shows it."""
    v = VARIANTS[variant]
    game = None
    for _ in range(400):
        if game_over(driver):
            break
        if "Your move" not in status(driver):
            time.sleep(0.02)
            continue
        pos = Position.from_hub(v, hub_of(driver))
        move = pick(pos)
        old = hub_of(driver)
        click_square(driver, notation.internal_to_layout(v, move.frm))
        click_square(driver, notation.internal_to_layout(v, move.to))
        twins = [m for m in pos.legal_moves() if m.frm == move.frm and m.to == move.to]
        if len(twins) > 1:                                      # choose by a taken piece
            k = next(s for s in move.captured if all(s not in m.captured for m in twins
                                                      if m is not move))
            click_square(driver, notation.internal_to_layout(v, k))
        wait_until(lambda: hub_of(driver) != old or game_over(driver), what="the move")
    return game


def test_a_whole_russian_game_against_the_engine(browser, shots):
    rng = random.Random(7)
    start_game(browser, "russian", skill=20, move_time=0.05, ponder=True)
    seen_play = False

    def pick(pos: Position):
        nonlocal seen_play
        if not seen_play and len(js(browser, "return document.querySelectorAll('#moves .mv')")) >= 6:
            screenshot(browser, shots, "gui-play.png")
            seen_play = True
        moves = pos.legal_moves()
        return rng.choice(moves)

    play_by_clicks(browser, "russian", pick)
    text = status(browser)
    result = browser.find_element("id", "record-result").text
    assert result in ("1-0", "0-1", "1/2-1/2"), (result, text)
    assert ":" in text and result in text, text           # the result with its reason
    moves = [m.text for m in browser.find_elements("css selector", "#moves .mv")]
    assert len(moves) >= 10
    # the moves on the page are a legal game that ends as the page says
    notes = browser.find_element("id", "notices").text
    assert "Game over" in notes
    replay = Game("russian")
    for text_move in moves:
        replay.play(next(m for m in replay.legal_moves()
                         if _record(replay.position, m) == text_move))
    if result != "1/2-1/2" or "agreed" not in text:
        assert replay.result() == result or "resigned" in text or "time" in text
    assert page_errors(browser) == []


def _record(pos: Position, move) -> str:
    from hub_engine.rules import pdn

    return pdn.write_move(pos, move)


def test_take_back_and_resign(browser):
    start_game(browser, "brazilian", side="black", move_time=0.05)
    wait_until(lambda: "Your move" in status(browser), what="the engine's first move")
    assert len(browser.find_elements("css selector", "#moves .mv")) == 1
    v = VARIANTS["brazilian"]
    pos = Position.from_hub(v, hub_of(browser))
    move = pos.legal_moves()[0]
    click_square(browser, notation.internal_to_layout(v, move.frm))
    click_square(browser, notation.internal_to_layout(v, move.to))
    wait_until(lambda: len(browser.find_elements("css selector", "#moves .mv")) == 3
               and "Your move" in status(browser), what="the engine's reply")
    after_first = pos.hub()
    browser.find_element("id", "takeback").click()
    wait_until(lambda: hub_of(browser) == after_first, what="the take-back")
    assert "Your move" in status(browser)
    browser.find_element("id", "resign").click()
    wait_until(lambda: browser.find_element("id", "record-result").text == "1-0",
               what="the resignation")
    assert "Black resigned" in status(browser)


def test_a_capture_with_several_paths_is_chosen_by_the_user(browser, shots):
    # english: the man on 23 takes two pieces either over 18 and 10 or over 19 and 11, landing
    # on 7 both times; the user clicks 23, then 7, then the piece on 11 to take
    fen = "W:W20,22,23,25,26,28,29,30,31,32:B1,2,3,4,5,6,8,10,11,18,19,21"
    mode(browser, "analyse")
    choose_variant(browser, "english")
    box = browser.find_element("id", "fen")
    box.clear()
    box.send_keys(fen)
    old = hub_of(browser)
    browser.find_element("id", "fen-set").click()
    wait_position(browser, old)
    unflip(browser)
    v = VARIANTS["english"]
    pos = Position.from_fen(v, fen)
    twins = [m for m in pos.legal_moves() if str(m) in ("23x7x11x19", "23x7x10x18")]
    assert len(twins) == 2
    k = lambda n: notation.internal_to_layout(v, notation.from_pdn_square(v, str(n)))  # noqa: E731
    click_square(browser, k(23))
    click_square(browser, k(7))
    choice = browser.find_element("id", "choice")
    wait_until(choice.is_displayed, what="the choice")
    assert len(choice.find_elements("css selector", "button[data-choice]")) == 3   # two and cancel
    marked = js(browser, "return [...document.querySelectorAll('#board .hl.choice')].map("
                         "r => r.getAttribute('x') + ',' + r.getAttribute('y'))")
    # the pieces to take (10, 11, 18, 19) and the squares passed (14, 15) tell the two apart
    from hub_engine.report.boards import square_xy
    from hub_engine.rules.pdn import capture_path

    apart = set()
    for m in twins:
        apart |= {notation.internal_to_layout(v, s) for s in m.captured}
        apart |= {notation.internal_to_layout(v, s) for s in capture_path(pos, m)[1:-1]}
    assert len(apart) == 6
    assert sorted(marked) == sorted(f"{50 * x},{50 * y}" for x, y in
                                    (square_xy(v, k) for k in apart))
    screenshot(browser, shots, "gui-capture-choice.png")
    old = hub_of(browser)
    click_square(browser, k(11))
    after = wait_position(browser, old)
    assert after == pos.play(pos.parse_move("23x7x11x19")).hub()
    assert not choice.is_displayed()
    # and by dragging: back, drag 23 to 7, choose with the button of the other path
    browser.find_element("css selector", ".controls button[data-go='prev']").click()
    wait_until(lambda: hub_of(browser) == pos.hub(), what="the position before")
    drag(browser, k(23), k(7))
    wait_until(choice.is_displayed, what="the choice after a drag")
    other = [b for b in choice.find_elements("css selector", "button[data-choice]")
             if "10" in b.text and b.get_attribute("data-choice") != "cancel"]
    other[0].click()
    wait_until(lambda: hub_of(browser) == pos.play(pos.parse_move("23x7x10x18")).hub(),
               what="the other capture")
    # both captures are in the record now, the second as a variation
    assert len(browser.find_elements("css selector", "#moves .var .mv")) == 1


def test_the_position_editor(browser, shots):
    mode(browser, "play")
    choose_variant(browser, "russian")
    unflip(browser)
    mode(browser, "edit")
    browser.find_element("id", "edit-clear").click()
    v = VARIANTS["russian"]
    place = {"wk": ["c3"], "wm": ["e3", "g3"], "bk": ["h8"], "bm": ["a7"]}
    for piece, squares in place.items():
        browser.find_element("css selector", f"#palette button[data-piece='{piece}']").click()
        for name in squares:
            click_square(browser, notation.internal_to_layout(v, notation.from_algebraic(v, name)))
    browser.find_element("css selector", "#palette button[data-piece='bm']").click()
    k = notation.internal_to_layout(v, notation.from_algebraic(v, "b6"))
    click_square(browser, k)
    click_square(browser, k)                          # the second click takes it away again
    browser.find_element("css selector", "input[name=edit-side][value=black]").click()
    screenshot(browser, shots, "gui-edit.png")
    browser.find_element("id", "edit-done").click()
    wait_until(lambda: browser.find_element("id", "panel-play").is_displayed(), what="play mode")
    fen = wait_until(lambda: browser.find_element("id", "fen").get_attribute("value"), what="FEN")
    assert Position.from_fen(v, fen) == Position.from_fen(v, "B:WKc3,e3,g3:BKh8,a7")
    assert "Black to move" in status(browser)
    # a man on its crowning row is refused with a message
    mode(browser, "edit")
    browser.find_element("css selector", "#palette button[data-piece='wm']").click()
    click_square(browser, notation.internal_to_layout(v, notation.from_algebraic(v, "b8")))
    browser.find_element("id", "edit-done").click()
    msg = browser.find_element("id", "message")
    wait_until(lambda: msg.is_displayed() and "crowning row" in msg.text, what="the refusal")
    browser.find_element("id", "edit-cancel").click()
    assert page_errors(browser) == []


def test_clocks_run_and_time_runs_out(browser):
    """A 6-second clock (the shortest there is): both clocks shown, the draw offer of a young game declined, and the
    side that does not move loses on time."""
    mode(browser, "play")
    choose_variant(browser, "italian")
    browser.find_element("css selector", "input[name=from][value=start]").click()
    browser.find_element("css selector", "input[name=side][value=white]").click()
    browser.find_element("css selector", "input[name=tc][value=clock]").click()
    for box, value in (("minutes", "0.1"), ("increment", "0")):
        el = browser.find_element("id", box)
        el.clear()
        el.send_keys(value)
    browser.find_element("id", "start-game").click()
    wait_until(lambda: browser.find_element("id", "game").is_displayed(), what="the game")
    white = browser.find_element("css selector", "#clock-white .time")
    black = browser.find_element("css selector", "#clock-black .time")
    assert browser.find_element("css selector", "#clock-white").get_attribute("class").count("active")
    first = float(white.text)
    assert 4.0 < first <= 6.0 and float(black.text) == 6.0
    browser.find_element("id", "offer-draw").click()
    notes = browser.find_element("id", "notices")
    wait_until(lambda: "declines the draw (the game is young)" in notes.text, what="the answer")
    wait_until(lambda: game_over(browser), 12, "the time to run out")
    assert browser.find_element("id", "record-result").text == "0-1"
    assert "White lost on time" in status(browser)
    assert page_errors(browser) == []
