"""Killers and history carried from one search of a game to the next (the `age` switch)."""
from __future__ import annotations

from hub_engine.core import INF
from hub_engine.engine import Engine
from protocol import Limits

from search_helpers import board_of, make_searcher


def searched(variant: str = "russian", depth: int = 7):
    s = make_searcher(variant)
    b = board_of(variant)
    s.iterate(b, depth, -INF, INF, [], b.initial_counters(), 0.0, 0)
    return s


def test_aging_shifts_the_killers_and_halves_the_history():
    s = searched()
    killers, history = s.heuristics()
    assert any(k != [0, 0] for k in killers[2:]), "a 7-ply search leaves killers"
    assert any(v for side in history for row in side for v in row), "... and history"
    s.age_heuristics(2)
    aged_killers, aged_history = s.heuristics()
    assert aged_killers[:-2] == killers[2:], "the killers of ply p + 2 are now ply p's"
    assert aged_killers[-2:] == [[0, 0], [0, 0]]
    assert aged_history == [[[v >> 1 for v in row] for row in side] for side in history]


def test_an_unknown_shift_forgets_the_killers_but_keeps_half_the_history():
    s = searched()
    _, history = s.heuristics()
    s.age_heuristics(0)
    killers, aged = s.heuristics()
    assert all(k == [0, 0] for k in killers)
    assert aged == [[[v >> 1 for v in row] for row in side] for side in history]


def line(e: Engine, plies: int) -> list[str]:
    """The first legal move `plies` times from the start, as Hub strings."""
    game = e.game
    moves = []
    for _ in range(plies):
        m = game.position.legal_moves()[0]
        moves.append(m.hub())
        game.play(m)
    for _ in moves:
        game.undo()
    return moves


def test_the_engine_ages_them_by_the_plies_played_since_its_last_search():
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.set_param("book", "false")
    e.init()
    a, b, c = line(e, 3)
    other = [m.hub() for m in e.game.position.legal_moves() if m.hub() != a][0]
    seen = []
    e.searchers.new_search = lambda shift=0: seen.append(shift)
    e.set_position(None, [])
    e.search(Limits(depth=3), "think", lambda info: None)
    e.set_position(None, [a, b])
    e.search(Limits(depth=3), "think", lambda info: None)
    e.set_position(None, [a, b, c])
    e.search(Limits(depth=3), "think", lambda info: None)
    e.set_position(None, [other])        # another line: nothing carries over
    e.search(Limits(depth=3), "think", lambda info: None)
    e.set_position(None, [])              # moves taken back
    e.search(Limits(depth=3), "think", lambda info: None)
    assert seen == [0, 2, 1, 0, 0]


def test_the_switch_decides_whether_the_searchers_age():
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.set_param("book", "false")
    e.init()
    main = e.searchers.threads[0]
    e.search(Limits(depth=6), "think", lambda info: None)
    _, before = main.heuristics()
    main.age = 0
    e.searchers.new_search(2)
    assert main.heuristics()[1] == before, "off: the history is kept as it is"
    main.age = 1
    e.searchers.new_search(2)
    assert main.heuristics()[1] == [[[v >> 1 for v in row] for row in side] for side in before]
