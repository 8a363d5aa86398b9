"""The report in a real browser (headless Chromium): what a person sees and clicks.

A report of the engine's analysis (depth 2) of PDN games in five variants and two position lists,
plus hand-made games (spanish; wins found by search and by table; several best lines) is opened;
the summary, every page's moves, graph points and boards are checked against the records, and
the board drawn after a click is read back piece by piece (from the SVG's circles) and compared
with the record's Hub position string. A screenshot is saved.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from report_browser import chromium, load_times, page_errors
from report_samples import analysed, game_records, seen_from_white

from hub_engine.rules import pdn
from hub_engine.rules.position import Position
from hub_engine.report import write_report
from hub_engine.rules.variants import VARIANTS

SPANISH = ["11-15", "22-19", "15x22x19", "27x18x22", "12-16", "23-20"]
SCREENSHOT_DIR = os.environ.get("HUB_ENGINE_REPORT_SCREENSHOTS")   # keep the screenshots here too


def _won_records() -> list[dict]:
    """A russian game that ends in wins (search) and table wins, with several best lines."""
    recs = game_records("russian", ["9-13", "22-18", "13x22", "27x18"], game="won.pdn#1",
                        scores=[0.2, -99.93, 89.75, -3.5, 99.97],
                        extra={"white": "Winner <W>", "black": "Loser & Co", "result": "1-0"})
    recs[0]["multipv"] = [{"move": "9-13", "score": 0.2, "pv": ["9-13", "22-18"]},
                          {"move": "11-15", "score": 0.1, "pv": ["11-15"]},
                          ["12-16", -0.3, "12-16 24-20"]]
    return recs


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> list[dict]:
    d = tmp_path_factory.mktemp("analysed")
    recs = analysed(d)
    recs += game_records("spanish", SPANISH, game="spanish.pdn#1", losses=[0, 0.5, 0, 1.5, 0, 3],
                         extra={"white": "Sp W", "black": "Sp B", "result": "2-0"})
    over = dict(game_records("russian", [], game="over.pdn#1")[0], position="B" + "e" * 28 + "wwww",
                side="black", best=None, pv=[], score=-100.0, outcome="loss", white="X", black="Y")
    return recs + _won_records() + [over]


@pytest.fixture(scope="module")
def page(records, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    warnings = write_report(records, path, title="Report under test")
    assert warnings == []       # games.pdn found as named; the other games name their players
    return path


@pytest.fixture(scope="module")
def browser(page):
    with chromium() as driver:
        driver.get(page.as_uri())
        wait_ready(driver)
        yield driver


def wait_ready(driver, timeout: float = 20) -> None:
    """Until the page says it is drawn (or failed); then no script error may have been logged."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready === '1' || "
                                   "!!document.documentElement.dataset.error"))
    assert page_errors(driver) == []


def meta(driver) -> dict:
    return driver.execute_script(
        "return JSON.parse(document.getElementById('report-meta').textContent)")


def open_page(driver, index: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script(f"location.hash = 'game={index}'")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "const g = document.getElementById('game');"
        f"return !g.hidden && g.dataset.collection === '{index}' && g.dataset.node === '0'"))


def drawn_position(driver, variant) -> str:
    """The Hub position the board shows, read from where its pieces are drawn."""
    pieces = driver.execute_script("""
        return [...document.querySelectorAll('#game svg.board .piece')].map(p => {
            const c = p.querySelector('circle');
            return [+c.getAttribute('cx'), +c.getAttribute('cy'), p.classList.contains('white'),
                    p.classList.contains('king')];
        });""")
    where = {seen_from_white(variant, k): k for k in range(1, 33)}
    flipped = driver.execute_script(
        "return document.querySelector('#game svg.board').dataset.flipped === '1'")
    chars = ["e"] * 32
    for cx, cy, white, king in pieces:
        col, row = int(cx // 50), int(cy // 50)
        if flipped:
            col, row = 7 - col, 7 - row
        k = where[(col, row)]
        first = (variant.first_mover == "white") == white
        chars[k - 1] = ("W" if king else "w") if first else ("B" if king else "b")
    side = driver.execute_script("return document.querySelector('#game .where').textContent")
    return "".join(chars), side


def expect_board(driver, rec: dict) -> None:
    v = VARIANTS[rec["variant"]]
    squares, where = drawn_position(driver, v)
    assert squares == rec["position"][1:], (rec["game"], rec["ply"])
    assert f"{rec['side'].capitalize()} to move" in where


def by_page(records: list[dict], page_id: str, kind: str) -> list[dict]:
    """The records a page shows, in order (independently of the report's own grouping)."""
    if kind == "game":
        return sorted((r for r in records if r["game"] == page_id), key=lambda r: r["ply"])
    file, first = page_id.rsplit(":", 1)
    lines = sorted((r for r in records if r["game"].rsplit(":", 1)[0] == file
                    and ":" in r["game"] and r["game"].rsplit(":", 1)[1].isdigit()),
                   key=lambda r: int(r["game"].rsplit(":", 1)[1]))
    return [r for r in lines if int(r["game"].rsplit(":", 1)[1]) >= int(first)]


def record_notation(rec: dict) -> str:
    """A played move in the variant's game-record squares, as the PDN writer prints it."""
    pos = Position.from_hub(rec["variant"], rec["position"])
    return pdn.pdn_move_text(pos.parse_move(rec["played"]))


# --- the tests ---------------------------------------------------------------------------------

def test_it_loads_fast_and_without_errors(browser):
    times = load_times(browser)
    assert times["ready"] is not None and times["load"] > 0
    assert page_errors(browser) == []


def test_summary_lists_every_game_and_player(browser, records):
    games = {r["game"] for r in records if "#" in r["game"]}
    rows = browser.find_elements("css selector", "table.games tbody tr")
    assert len(rows) == len(games)
    players = [td.text for td in browser.find_elements("css selector", "table.players td.name")]
    # PDN tags of games.pdn (White "A", Black "B"), record fields of the hand-made games
    for name in ("A", "B", "Sp W", "Sp B", "Winner <W>", "Loser & Co", "(no name)"):
        assert name in players
    text = browser.find_element("css selector", "#summary").text
    assert "Russian club game" in text
    assert "Position lists" in text and "positions.fen" in text
    from selenium.webdriver.support.ui import WebDriverWait

    rows[1].find_elements("css selector", "td")[1].click()       # a row opens its game
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(
        "return document.getElementById('game').dataset.collection === '1'"))
    browser.find_element("css selector", "#nav a[href='#summary']").click()
    WebDriverWait(browser, 10).until(
        lambda d: d.find_element("css selector", "#summary").is_displayed())


def test_summary_counts_the_classes_per_player(browser, records):
    row = [r for r in browser.find_elements("css selector", "table.players tbody tr")
           if r.find_element("css selector", "td.name").text == "Sp B"][0]
    cells = [td.text for td in row.find_elements("css selector", "td")]
    black = [r for r in records if r["game"] == "spanish.pdn#1" and r["side"] == "black"
             and r["loss"] is not None]
    losses = [r["loss"] for r in black]
    assert cells[:4] == ["Sp B", "1", str(len(black)), f"{sum(losses) / len(losses):.2f}"]
    counts = [str(sum(r["class"] == c for r in black) or "") for c in ("inaccuracy", "mistake",
                                                                         "blunder")]
    assert cells[4:] == counts == ["1", "1", "1"]


def test_every_page_shows_its_moves_graph_and_boards(browser, records):
    collections = meta(browser)["collections"]
    variants = set()
    for index, c in enumerate(collections):
        recs = by_page(records, c["id"], c["kind"])
        assert recs, c["id"]
        variants.add(c["variant"])
        open_page(browser, index)
        items = browser.execute_script(
            "return [...document.querySelectorAll('#game .moves .mv:not(.end)')]"
            ".map(e => e.textContent)")
        played = [r for r in recs if r["played"]] if c["kind"] == "game" else recs
        assert len(items) == len(played), c["id"]
        if c["kind"] == "game":          # the moves in the variant's record notation, with NAGs
            nags = {"inaccuracy": "?!", "mistake": "?", "blunder": "??", None: ""}
            assert items == [record_notation(r) + nags[r["class"]] for r in played]
        points = browser.find_elements("css selector", "#game svg.graph .pt")
        scored = [r for r in recs if r["score"] is not None]
        assert len(points) == len(scored), c["id"]

        moves = browser.find_elements("css selector", "#game .moves .mv:not(.end)")
        for j in sorted({0, len(moves) // 2, len(moves) - 1}) if moves else ():
            moves[j].click()
            expect_board(browser, played[j])
            cur = browser.find_element("css selector", "#game .moves .mv.cur")
            assert cur.text == items[j]
        j = len(points) // 2
        browser.find_elements("css selector", "#game svg.graph .pt")[j].click()
        expect_board(browser, scored[j])
        if c["kind"] == "game" and len(played) > 2:
            moves = browser.find_elements("css selector", "#game .moves .mv:not(.end)")
            moves[1].click()
            browser.find_element("css selector", "body").send_keys("\ue014")    # right arrow
            expect_board(browser, played[2])
            browser.find_element("css selector", "body").send_keys("\ue012")    # left arrow
            expect_board(browser, played[1])
    assert page_errors(browser) == []
    assert variants == set(VARIANTS)


def test_a_played_move_shows_its_loss_class_and_the_best_line(browser, records):
    index = [c["id"] for c in meta(browser)["collections"]].index("spanish.pdn#1")
    open_page(browser, index)
    browser.find_elements("css selector", "#game .moves .mv")[5].click()
    info = browser.find_element("css selector", "#game .info").text
    rec = [r for r in records if r["game"] == "spanish.pdn#1"][5]
    assert rec["class"] == "blunder"
    assert "blunder" in info and f"loss {rec['loss']:.2f} men" in info
    best = Position.from_hub("spanish", rec["position"]).parse_move(rec["best"])
    assert pdn.pdn_move_text(best) in info
    assert browser.find_elements("css selector", "#game svg.board .arrow.best")
    assert browser.find_elements("css selector", "#game svg.board .arrow.blunder")
    errors = browser.find_elements("css selector", "#game .errors li")
    assert [e.get_attribute("class") for e in errors] == ["inaccuracy", "mistake", "blunder"]
    errors[0].click()
    expect_board(browser, [r for r in records if r["game"] == "spanish.pdn#1"][1])


def test_wins_are_marked_and_several_best_lines_listed(browser, records):
    index = [c["id"] for c in meta(browser)["collections"]].index("won.pdn#1")
    open_page(browser, index)
    assert len(browser.find_elements("css selector", "#game svg.graph .pt.win")) == 2
    assert len(browser.find_elements("css selector", "#game svg.graph .pt.table")) == 1
    rows = browser.find_elements("css selector", "#game .info table.lines tbody tr")
    start = Position.start("russian")
    assert [r.find_elements("css selector", "td")[1].text for r in rows] == [
        pdn.pdn_move_text(start.parse_move(m)) for m in ("9-13", "11-15", "12-16")]
    assert "is-played" in rows[0].get_attribute("class")
    browser.find_elements("css selector", "#game .moves .mv")[1].click()
    assert "White wins in 7 plies" in browser.find_element("css selector", "#game .info").text
    browser.find_elements("css selector", "#game .moves .mv")[2].click()
    assert "White wins (endgame table, 25 plies)" in browser.find_element(
        "css selector", "#game .info").text
    head = browser.find_element("css selector", "#game .game-head").text
    assert "Winner <W> - Loser & Co" in head and "result 1-0" in head


def test_notation_toggle_and_flip(browser, records):
    collections = meta(browser)["collections"]
    index = next(i for i, c in enumerate(collections) if c["variant"] == "russian"
                 and c["kind"] == "game" and c["id"].endswith("games.pdn#1"))
    open_page(browser, index)
    recs = by_page(records, collections[index]["id"], "game")

    def texts():
        return browser.execute_script(
            "return [...document.querySelectorAll('#game .moves .mv:not(.end)')]"
            ".map(e => e.textContent.replace(/[?!]+$/, ''))")

    def label_at(col, row):
        return browser.execute_script(
            "const b = document.querySelector('#game svg.board');"
            f"return [...b.querySelectorAll('text.lbl')].find(t => Math.floor(t.getAttribute('x') / 50)"
            f" === {col} && Math.floor(t.getAttribute('y') / 50) === {row}).textContent")

    assert texts()[0] == "g3-f4" and label_at(0, 7) == "a1"
    select = browser.find_element("css selector", "#game select.notation")
    select.find_element("css selector", "option[value='hub']").click()
    assert texts() == [r["played"] for r in recs if r["played"]]
    assert label_at(0, 7) == "1" and label_at(7, 0) == "32"
    browser.find_element("css selector", "#game select.notation option[value='record']").click()
    assert texts()[0] == "g3-f4"

    browser.find_elements("css selector", "#game .moves .mv")[3].click()
    browser.find_element("css selector", "#game button[data-go='flip']").click()
    assert label_at(7, 0) == "a1"            # a1 now in the top right corner
    expect_board(browser, [r for r in recs if r["played"]][3])
    browser.find_element("css selector", "#game button[data-go='flip']").click()
    assert label_at(0, 7) == "a1"


def test_screenshot(browser, page, tmp_path):
    index = [c["id"] for c in meta(browser)["collections"]].index("spanish.pdn#1")
    open_page(browser, index)
    browser.find_elements("css selector", "#game .moves .mv")[5].click()
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
    if SCREENSHOT_DIR:
        shutil.copy(shot, Path(SCREENSHOT_DIR) / "report-test.png")


def test_a_broken_report_is_caught(page, tmp_path):
    """The checks above fail on a report whose data or script is broken."""
    text = page.read_text(encoding="utf-8")
    broken_data = tmp_path / "broken-data.html"
    broken_data.write_text(re.sub(r'(<script type="application/json" id="c0">).*?(</script>)',
                                  r"\1{not json\2", text, count=1, flags=re.S), encoding="utf-8")
    broken_script = tmp_path / "broken-script.html"
    assert "const F = {};" in text
    broken_script.write_text(text.replace("const F = {};", "const F = {;"), encoding="utf-8")
    with chromium() as driver:
        driver.get(broken_data.as_uri() + "#game=0")
        with pytest.raises(AssertionError):
            wait_ready(driver)
        driver.get(broken_script.as_uri())
        with pytest.raises(Exception):
            wait_ready(driver, timeout=1.5)


def test_a_lost_final_position_says_so(browser):
    index = [c["id"] for c in meta(browser)["collections"]].index("over.pdn#1")
    open_page(browser, index)
    info = browser.find_element("css selector", "#game .info").text
    assert "Final position, Black to move: no legal move, lost" in info and "White has won." in info
    assert len(browser.find_elements("css selector", "#game svg.graph .pt.win")) == 1
    assert len(browser.find_elements("css selector", "#game svg.board .piece.white.man")) == 4


def test_the_engines_several_best_moves_are_listed(browser, records):
    collections = meta(browser)["collections"]
    index = next(i for i, c in enumerate(collections) if c["id"].endswith("italian.hub:1"))
    open_page(browser, index)
    recs = by_page(records, collections[index]["id"], "positions")
    for j, rec in enumerate(recs):
        assert len(rec["multipv"]) == 3
        browser.find_elements("css selector", "#game .moves .mv")[j].click()
        rows = browser.find_elements("css selector", "#game .info table.lines tbody tr")
        pos = Position.from_hub("italian", rec["position"])
        assert [r.find_elements("css selector", "td")[1].text for r in rows] == [
            pdn.pdn_move_text(pos.parse_move(line["move"])) for line in rec["multipv"]]
