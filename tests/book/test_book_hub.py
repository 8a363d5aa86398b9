"""The book over the Hub protocol, with the real engine process: a book move answered at once
with its info line, book=false, go analyze, book-margin, and bad book files refused."""
from __future__ import annotations

import shutil
import time

import pytest
from book_helpers import fake_analyser
from e2e_helpers import HubProcess, parse_fields

from hub_engine.book.build import Settings, build
from hub_engine.book.play import load_book
from hub_engine.rules.position import Position
from hub_engine.rules.variants import get_variant

VARIANT = "portuguese"     # no ballots: the first expansions follow the start's best lines


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    d = tmp_path_factory.mktemp("hubbooks")
    build(Settings(VARIANT, nodes=1000, eval="hand"), d, positions=60, w=0.1,
          analyser=fake_analyser, progress=False)
    return d


def book_moves(books, moves=()):
    book, _errors = load_book(get_variant(VARIANT), str(books))
    pos = Position.start(VARIANT)
    for m in moves:
        pos = pos.play(m)
    return book.moves(pos)


def engine(books, **params) -> HubProcess:
    e = HubProcess()
    e.handshake(VARIANT, extra={"book": "true", "book-path": str(books), **params})
    return e


def info_fields(lines):
    return [parse_fields(line) for line in lines if line.startswith("info")]


def test_a_book_position_is_answered_at_once_with_its_info_line(books):
    best = book_moves(books)[0]
    e = engine(books, **{"book-margin": "0"})
    t0 = time.monotonic()
    done, lines = e.think(level="time=60 inc=0")
    assert time.monotonic() - t0 < 2.0                    # a search would take seconds here
    reply = book_moves(books, [best.move.hub()])[0].move.hub()   # expanded: the best line
    assert done == {"move": best.move.hub(), "ponder": reply}
    assert lines == [f'info depth=0 score={best.value / 100:.2f} nodes=0 time=0.000 '
                     f'pv="{best.move.hub()} {reply}"']
    e.assert_clean_stdout()
    assert e.quit() == 0


def test_book_false_and_go_analyze_search(books):
    e = engine(books, book="false")
    done, lines = e.think(level="depth=4")
    depths = [int(f["depth"]) for f in info_fields(lines)]
    assert depths and depths[-1] == 4 and 0 not in depths
    e.send("set-param name=book value=true")
    done, lines = e.think(level="depth=4", go="go analyze")
    depths = [int(f["depth"]) for f in info_fields(lines)]
    assert depths and depths[-1] == 4 and 0 not in depths
    leaf = [m.move.hub() for m in book_moves(books) if book_moves(books, [m.move.hub()]) is None]
    e.send("set-param name=book value=true")
    done, lines = e.think(level="depth=4", moves=leaf[:1])
    depths = [int(f["depth"]) for f in info_fields(lines)]
    assert depths and depths[-1] == 4 and 0 not in depths       # out of the book: searched
    assert e.quit() == 0


def test_book_margin_varies_the_games(books):
    moves = book_moves(books)
    best = moves[0].value
    # every move may be picked, the ones leading out of the book (height 0) too
    e = engine(books, **{"book-margin": "10000", "book-min-height": "0"})
    played = {e.think(level="time=60")[0]["move"] for _ in range(40)}
    assert len(played) >= 3 and played <= {m.move.hub() for m in moves}
    e.send("set-param name=book-margin value=0")
    played = {e.think(level="time=60")[0]["move"] for _ in range(10)}
    assert played <= {m.move.hub() for m in moves if m.value == best}
    assert e.quit() == 0


def frontier_line(books) -> tuple[list[str], object]:
    """The book's best line from the start up to a position with a choice whose best move
    leads out of the book (height 0), and that move."""
    line = []
    while True:
        moves = book_moves(books, line)
        if moves[0].height == 0 and len(moves) > 1:
            return line, moves[0]
        line.append(moves[0].move.hub())


def test_a_move_leading_out_of_the_book_is_searched_unless_book_min_height_is_0(books):
    line, best = frontier_line(books)
    e = engine(books, **{"book-margin": "0"})                  # book-min-height 1: the default
    done, lines = e.think(level="depth=3", moves=line)
    depths = [int(f["depth"]) for f in info_fields(lines)]
    assert depths and depths[-1] == 3 and 0 not in depths     # searched
    e.send("set-param name=book-min-height value=0")
    done, lines = e.think(level="depth=3", moves=line)
    assert [f["depth"] for f in info_fields(lines)] == ["0"] and done["move"] == best.move.hub()
    e.send("set-param name=book-min-height value=-1")
    assert "book-min-height" in e.until("error", 5)[-1].text
    assert e.quit() == 0


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign"])
def test_a_bad_book_is_refused_with_a_message_and_the_engine_plays_on(books, tmp_path, damage):
    good = (books / f"{VARIANT}.book").read_bytes()
    if damage == "truncated":
        (tmp_path / f"{VARIANT}.book").write_bytes(good[:len(good) // 2])
    elif damage == "flipped":
        (tmp_path / f"{VARIANT}.book").write_bytes(good[:-5] + bytes([good[-5] ^ 1]) + good[-4:])
    else:                                  # a portuguese book where the brazilian one belongs
        shutil.copy(books / f"{VARIANT}.book", tmp_path / "brazilian.book")
    variant = "brazilian" if damage == "foreign" else VARIANT
    e = HubProcess()
    e.send("hub")
    e.until("wait")
    e.send(f"set-param name=variant value={variant}", f"set-param name=book-path value={tmp_path}",
           "set-param name=tt-size value=16", "init")
    lines = [line.text for line in e.until("ready")]
    errors = [t for t in lines if t.startswith("error")]
    assert len(errors) == 1 and "book refused" in errors[0]
    assert {"truncated": "truncated", "flipped": "checksum",
            "foreign": "a portuguese book, not brazilian"}[damage] in errors[0]
    done, lines = e.think(level="depth=3")       # from the packaged book, if any, or a search
    assert done["move"] in [m.hub() for m in Position.start(variant).legal_moves()]
    assert [int(f["depth"]) for f in info_fields(lines)][-1] in (0, 3)
    e.assert_clean_stdout()
    assert e.quit() == 0


def test_pydraughts_plays_a_game_with_the_book_on(tmp_path):
    """pydraughts reads a book move's info line (depth 0) and a done with or without ponder."""
    from e2e_helpers import close_pydraughts, open_pydraughts
    from draughts import Board
    from draughts.engine import Limit

    build(Settings("russian", nodes=1000, eval="hand"), tmp_path, positions=30,
          analyser=fake_analyser, progress=False)
    book, _errors = load_book(get_variant("russian"), str(tmp_path))
    engine = open_pydraughts("russian", {"book": "true", "book-path": str(tmp_path),
                                         "book-margin": "0", "book-min-height": "0"})
    try:
        board = Board(variant="russian")
        first = engine.play(board, Limit(time=5), ponder=False)
        assert first.move.hub_move == book.moves(Position.start("russian"))[0].move.hub()
        assert first.info.get("depth") == 0 and first.info.get("nodes") == 0
        board.push(first.move)
        for _ply in range(6):
            result = engine.play(board, Limit(movetime=0.05), ponder=False)
            board.push(result.move)
    finally:
        assert close_pydraughts(engine) == 0


def test_go_ponder_at_a_book_position_answers_from_the_book_after_ponder_hit(books):
    best = book_moves(books)[0]
    e = engine(books, **{"book-margin": "0"})
    e.send("pos", "level time=60", "go ponder")
    assert e.drain(wait=0.5) == []                 # pondering: no search, no answer yet
    e.send("ponder-hit")
    lines = [line.text for line in e.until("done")]
    assert lines[0].startswith("info depth=0 ") and parse_fields(lines[-1])["move"] == best.move.hub()
    e.send("pos", "level time=60", "go ponder")
    time.sleep(0.2)
    e.send("stop")
    lines = [line.text for line in e.until("done")]
    assert parse_fields(lines[-1])["move"] == best.move.hub()
    assert e.quit() == 0
