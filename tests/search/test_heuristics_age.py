"""Killers and history carried from one search of a game to the next (the `age` switch)."""
from __future__ import annotations

from hub_engine.core import INF
from hub_engine.engine import Engine
from hub_engine.rules.position import Game
from protocol import Limits

from search_helpers import board_of, make_searcher


def searched(variant: str = "russian", depth: int = 7):
    s = make_searcher(variant)
    b = board_of(variant)
    s.iterate(b, depth, -INF, INF, [], b.initial_counters(), 0.0, 0)
    return s


def halved(history: list) -> list:
    return [[[v >> 1 for v in row] for row in side] for side in history]


def russian_engine() -> Engine:
    """An engine ready to search russian, without its book (so every `go` searches)."""
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.set_param("book", "false")
    e.init()
    return e


def test_aging_shifts_the_killers_and_halves_the_history():
    s = searched()
    killers, history = s.heuristics()
    assert any(k != [0, 0] for k in killers[2:]), "a 7-ply search leaves killers"
    assert any(v for side in history for row in side for v in row), "... and history"
    s.age_heuristics(2)
    aged_killers, aged_history = s.heuristics()
    assert aged_killers[:-2] == killers[2:], "the killers of ply p + 2 are now ply p's"
    assert aged_killers[-2:] == [[0, 0], [0, 0]]
    assert aged_history == halved(history)


def test_an_unknown_shift_forgets_the_killers_but_keeps_half_the_history():
    s = searched()
    _, history = s.heuristics()
    s.age_heuristics(0)
    killers, aged = s.heuristics()
    assert all(k == [0, 0] for k in killers)
    assert aged == halved(history)


def line(plies: int) -> list[str]:
    """The first legal move `plies` times from the russian start, as Hub strings."""
    game = Game("russian")
    return [game.play(game.legal_moves()[0]).hub() for _ in range(plies)]


def test_the_engine_ages_them_by_the_plies_played_since_its_last_search():
    e = russian_engine()
    a, b, c = line(3)
    other = [m.hub() for m in e.game.legal_moves() if m.hub() != a][0]
    seen = []
    e.searchers.new_search = lambda shift=0: seen.append(shift)
    # the start, two plies on, one more, another line (nothing carries over), moves taken back
    for moves in ([], [a, b], [a, b, c], [other], []):
        e.set_position(None, moves)
        e.search(Limits(depth=3), "think", lambda info: None)
    assert seen == [0, 2, 1, 0, 0]


def test_the_switch_decides_whether_the_searchers_age():
    e = russian_engine()
    main = e.searchers.threads[0]
    e.search(Limits(depth=6), "think", lambda info: None)
    _, before = main.heuristics()
    main.age = 0
    e.searchers.new_search(2)
    assert main.heuristics()[1] == before, "off: the history is kept as it is"
    main.age = 1
    e.searchers.new_search(2)
    assert main.heuristics()[1] == halved(before)
