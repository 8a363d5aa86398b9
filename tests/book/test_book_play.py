"""The engine's side of a book: probing, the choice within book-margin, parameters, loading."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from book_helpers import fake_analyser
from hub_engine.book import store
from hub_engine.book.build import Settings, build
from hub_engine.book.keys import position_key
from hub_engine.book.play import BookMove, EngineBook, choose, load_book
from hub_engine.engine.params import parse_bool, parse_int
from hub_engine.rules.position import Game, Position
from hub_engine.rules.variants import get_variant


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    d = tmp_path_factory.mktemp("books")
    build(Settings("portuguese", nodes=1000, eval="hand"), d, positions=80, w=0.1,
          analyser=fake_analyser, progress=False)
    return d


def test_choose_keeps_to_the_margin_and_prefers_the_best():
    moves = [BookMove("a", 30, 5), BookMove("b", 28, 2), BookMove("c", 22, 1),
             BookMove("d", -40, 0)]
    rng = random.Random(1)
    assert {choose(moves, 0, rng).move for _ in range(200)} == {"a"}
    picks = Counter(choose(moves, 8, rng).move for _ in range(4000))
    assert set(picks) == {"a", "b", "c"}
    assert picks["a"] > picks["b"] > picks["c"]
    # weights exp((v - best) / 4): b is exp(-0.5) = 0.61 of a, c exp(-2) = 0.14 of a
    assert picks["b"] / picks["a"] == pytest.approx(0.61, abs=0.08)
    assert picks["c"] / picks["a"] == pytest.approx(0.135, abs=0.04)


def test_probe_follows_the_game_and_book_ply(books):
    eb = EngineBook()
    eb.set_param("book-path", str(books), parse_bool, parse_int)
    game = Game("portuguese")
    moves = eb.probe(game)
    assert moves is not None and len(moves) == len(game.legal_moves())
    eb.set_param("book-ply", "0", parse_bool, parse_int)
    assert eb.probe(game) is None
    eb.set_param("book-ply", "10", parse_bool, parse_int)
    eb.set_param("book", "false", parse_bool, parse_int)
    assert eb.probe(game) is None
    eb.set_param("book", "true", parse_bool, parse_int)
    spanish = Game("spanish")                       # the portuguese book, by the rules
    assert [m.move.hub() for m in eb.probe(spanish)] == [m.move.hub() for m in moves]
    game.play(moves[0].move)                       # the best move's position: expanded next
    assert eb.probe(game) is not None
    book = eb.book(game.variant)
    game.undo()
    leaves = [m.move for m in moves if not book.entry(position_key(game.position.play(m.move)))[1]]
    assert leaves                                  # 80 positions: some first moves are leaves
    game.play(leaves[0])
    assert eb.probe(game) is None


def test_bad_parameter_values_are_refused(books):
    eb = EngineBook()
    for name, value in (("book", "maybe"), ("book-ply", "-1"), ("book-margin", "x"),
                        ("book-min-height", "-1"), ("book-min-height", "1001"),
                        ("book-path", str(books / "nowhere"))):
        with pytest.raises(ValueError):
            eb.set_param(name, value, parse_bool, parse_int)
    assert not eb.set_param("hash", "1", parse_bool, parse_int)
    assert [p.name for p in eb.params()] == ["book", "book-ply", "book-margin",
                                             "book-min-height", "book-path"]


def test_a_bad_book_is_refused_and_the_packaged_one_is_tried(books, tmp_path):
    (tmp_path / "russian.book").write_bytes((books / "portuguese.book").read_bytes())
    book, errors = load_book(get_variant("russian"), str(tmp_path))
    assert errors and "a portuguese book, not russian" in errors[0]
    packaged = store.packaged_path("russian")
    if packaged.exists():
        assert book is not None and book.source == packaged
    else:
        assert book is None
    book, errors = load_book(get_variant("portuguese"), str(books))
    assert errors == [] and book is not None
    assert book.moves(Position.start("portuguese")) is not None


def test_decide_uses_the_book_for_think_with_one_line_only(books):
    eb = EngineBook()
    eb.set_param("book-path", str(books), parse_bool, parse_int)
    eb.set_param("book-margin", "0", parse_bool, parse_int)
    game = Game("portuguese")
    best = eb.probe(game)[0]
    assert eb.decide(game, "think", 1, 20, 20).move == best.move
    for mode, multipv in (("analyze", 1), ("ponder", 1), ("think", 2)):
        assert eb.decide(game, mode, multipv, 20, 20) is None
    margins = []
    eb.pick = lambda moves, margin=None: margins.append(margin) or moves[0]
    for level in (20, 19, 15, 1):
        eb.decide(game, "think", 1, level, 20)
    assert margins == [0, 10, 50, 190]      # below skill 20: 10 centi-men a level


def test_decide_plays_a_move_only_when_the_book_goes_on_after_it(books):
    eb = EngineBook()
    eb.set_param("book-path", str(books), parse_bool, parse_int)
    eb.set_param("book-margin", "0", parse_bool, parse_int)
    game = Game("portuguese")
    while eb.probe(game)[0].height > 0:            # down the best line to the book's frontier
        assert eb.decide(game, "think", 1, 20, 20).move == eb.probe(game)[0].move
        game.play(eb.probe(game)[0].move)
    assert eb.min_height == 1 and eb.decide(game, "think", 1, 20, 20) is None
    eb.set_param("book-min-height", "0", parse_bool, parse_int)
    assert eb.decide(game, "think", 1, 20, 20).move == eb.probe(game)[0].move
    game.undo()
    height = eb.probe(game)[0].height               # 1: the line's last move but one
    eb.set_param("book-min-height", str(height + 1), parse_bool, parse_int)
    assert eb.decide(game, "think", 1, 20, 20) is None
    eb.set_param("book-min-height", str(height), parse_bool, parse_int)
    assert eb.decide(game, "think", 1, 20, 20) is not None


def test_the_reply_is_the_books_best_move_after_the_move(books):
    eb = EngineBook()
    eb.set_param("book-path", str(books), parse_bool, parse_int)
    game = Game("portuguese")
    moves = eb.probe(game)
    after = game.position.play(moves[0].move)
    assert eb.reply(game, moves[0].move) == eb.book(game.variant).moves(after)[0].move
    leaf = [m.move for m in moves if eb.book(game.variant).moves(game.position.play(m.move)) is None]
    assert eb.reply(game, leaf[0]) is None
