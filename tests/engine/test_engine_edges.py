"""The engine at the edges of its limits: zero, negative and huge `level` values, the `pos`
replay that reuses the last game, a search that fails, and how the notation switch is logged."""
import random
import threading
import time

import pytest
from loguru import logger
from test_engine import make_engine, search

from hub_engine.engine import Engine
from hub_engine.engine.deepening import Deepening
from hub_engine.engine.root import MAX_DEPTH, MAX_NODES, search_bounds
from hub_engine.rules.position import Game
from protocol import Limits


@pytest.fixture
def thread_errors(monkeypatch):
    """Exceptions raised in any thread (a timer thread's traceback would reach stderr)."""
    errors = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    return errors


@pytest.mark.parametrize("limits, bounds", [
    (Limits(), (MAX_DEPTH, 0)),
    (Limits(depth=12, nodes=5000), (12, 5000)),
    (Limits(depth=0, nodes=0), (1, 1)),
    (Limits(depth=-1, nodes=-7), (1, 1)),
    (Limits(depth=10**30, nodes=10**30), (MAX_DEPTH, MAX_NODES)),
])
def test_search_bounds_clamp_depth_and_nodes(limits, bounds):
    assert search_bounds(limits) == bounds


@pytest.mark.parametrize("limits", [{"depth": 0}, {"depth": -1}, {"depth": -10**18},
                                    {"nodes": 0}, {"nodes": -5}, {"nodes": 1}])
def test_smallest_limits_give_a_searched_one_ply_answer(limits):
    """depth/nodes 0 or less (and nodes=1) are the smallest search: the 1-ply iteration is
    completed and reported, never an unsearched first legal move, never a search without end."""
    e = make_engine()
    e.set_position(None, ["9-13", "21-17", "11-15"])
    assert len(e.game.legal_moves()) > 1
    result, infos = search(e, **limits)
    assert [info.depth for info in infos] == [1]
    one_ply, _ = search(make_engine_at(e), depth=1)
    assert result.move == infos[-1].pv[0] == one_ply.move


def make_engine_at(e: Engine) -> Engine:
    other = make_engine(e.variant.name)
    other.set_position(None, [str(m) for m in e.game.moves])
    return other


@pytest.mark.parametrize("limits", [{"nodes": 9223372036854775808}, {"nodes": 10**30},
                                    {"depth": 10**30}, {"move_time": 1e10},
                                    {"move_time": 1e300}, {"time": 1e300, "inc": 1e300},
                                    {"time": 1e10, "moves": 10**30}])
def test_huge_limits_search_until_stop_and_play_a_legal_move(limits, thread_errors):
    e = make_engine()
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=search(e, **limits)))
    worker.start()
    worker.join(0.3)
    e.stop()
    worker.join(10)
    assert not worker.is_alive()
    result, infos = out["r"]
    assert infos and result.move in [str(m) for m in e.game.position.legal_moves()]
    assert thread_errors == []


def test_a_tiny_clock_gives_a_one_ply_answer():
    """Under the reserve (about 20 ms), no time is planned: the 1-ply iteration only."""
    e = make_engine()
    for clock in (0.0, 0.005, 0.015, -3.0):
        result, infos = search(e, time=clock, inc=0.0)
        assert [info.depth for info in infos] == [1], clock
        assert result.move == infos[-1].pv[0]


def test_a_failing_search_still_plays_a_legal_move(monkeypatch):
    e = make_engine()

    def explode(*args, **kwargs):
        raise RuntimeError("core exploded")

    monkeypatch.setattr(Deepening, "run", explode)
    result, _ = search(e, depth=5)
    assert result.move in [str(m) for m in e.game.position.legal_moves()]


def test_a_search_failing_mid_way_plays_its_best_move_so_far(monkeypatch):
    e = make_engine()
    real = Deepening.aspirate
    seen = []

    def fail_at_depth_4(self, searcher, root, depth, *args):
        if depth == 4:
            raise RuntimeError("core exploded")
        outcome = real(self, searcher, root, depth, *args)
        seen.append(outcome[0][1])
        return outcome

    monkeypatch.setattr(Deepening, "aspirate", fail_at_depth_4)
    result, infos = search(e, depth=6)
    assert [info.depth for info in infos][-1] == 3
    assert result.move == infos[-1].pv[0]


# -- the pos replay ------------------------------------------------------------------------

def _random_game(variant: str, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    game = Game(variant)
    while len(game.moves) < plies and game.legal_moves():
        game.play(rng.choice(game.legal_moves()))
    return [str(m) for m in game.moves]


def _same_game(e: Engine, moves: list[str], start: str | None = None) -> None:
    """The engine's game is what a replay from scratch gives: position, moves, draw state."""
    fresh = Game(e.variant, start, moves)
    assert e.game.position == fresh.position
    assert [str(m) for m in e.game.moves] == [str(m) for m in fresh.moves]
    assert e.game.history_hashes() == fresh.history_hashes()
    assert e.game.counters == fresh.counters
    assert e.game.repetitions() == fresh.repetitions()


def test_pos_that_extends_the_last_one_reuses_the_game():
    e = make_engine("brazilian")
    moves = _random_game("brazilian", 80, 1)
    e.set_position(None, moves[:10])
    game = e.game
    for n in range(12, len(moves) + 1, 2):        # the client resends the whole game
        e.set_position(None, moves[:n])
        assert e.game is game                      # only the two new plies were played
        _same_game(e, moves[:n])


def test_pos_replay_follows_every_change_of_the_move_list():
    e = make_engine("brazilian")
    one, two = _random_game("brazilian", 60, 2), _random_game("brazilian", 60, 3)
    shared = 0
    while one[shared] == two[shared]:
        shared += 1
    start = "W" + "b" * 12 + "e" * 8 + "w" * 12
    for pos, moves in [(None, one[:40]), (None, one[:20]), (None, one[:50]),  # shorter, longer
                       (None, two[:30]), (None, one[:30]),                       # another branch
                       (None, one[:30]), (None, []), (None, one[:5]),
                       (start, one[:6]), (None, one[:6])]:                       # another start
        e.set_position(pos, moves)
        _same_game(e, moves, pos)
    assert shared < 30


def test_a_rejected_pos_keeps_the_game_and_the_replay_stays_right():
    e = make_engine("brazilian")
    moves = _random_game("brazilian", 40, 4)
    e.set_position(None, moves[:30])
    for bad in (moves[:20] + ["9-99"], moves[:32] + ["1-2"], moves[:10] + [moves[11]]):
        with pytest.raises(ValueError):
            e.set_position(None, bad)
        _same_game(e, moves[:30])
    e.set_position(None, moves[:34])
    _same_game(e, moves[:34])


def test_replay_is_not_fooled_by_a_new_variant_or_notation():
    e = make_engine("russian")
    e.set_position(None, ["9-13"])
    e.set_param("variant", "brazilian")
    e.set_position(None, ["9-13", "22-18"])
    _same_game(e, ["9-13", "22-18"])
    e.set_param("notation", "layout")
    layout = [m.hub("layout") for m in Game("brazilian", None, ["9-13", "22-18", "13x22x18"]).moves]
    e.set_position(None, layout)
    _same_game(e, ["9-13", "22-18", "13x22x18"])


def test_notation_switch_is_logged_at_info_not_warning():
    """WARNING and above may reach stderr, which pydraughts reads as protocol lines."""
    records = []
    sink = logger.add(lambda message: records.append(message.record), level="DEBUG")
    try:
        e = make_engine("russian")
        e.set_position(None, ["21-17"])        # layout numbers only
    finally:
        logger.remove(sink)
    assert e.notation == "layout"
    notices = [r for r in records if "switching" in r["message"]]
    assert [r["level"].name for r in notices] == ["INFO"]
    assert not [r for r in records if r["level"].no >= logger.level("WARNING").no]


def test_the_clock_overhead_learnt_reaches_the_budget():
    """A client whose clock charges 0.4 s a move beyond the engine's count leaves a 0.5 s clock
    no share to plan: the 1-ply answer. The same clock with no such lag searches deeper."""
    e = make_engine()
    e.set_position(None, ["9-13", "21-17", "11-15"])
    _, infos = search(e, time=1.5, inc=0.0)
    assert max(info.depth for info in infos) > 1
    clock = 10.0
    for _ in range(3):                    # what the search took, plus 0.4 s, is charged
        started = time.monotonic()
        search(e, time=clock, inc=0.0)
        clock -= time.monotonic() - started + 0.4
    assert e.clock.overhead.estimate > 0.3
    _, infos = search(e, time=1.5, inc=0.0)
    assert [info.depth for info in infos] == [1]
    e.new_game()                          # a new game: the last move is forgotten, not the lag
    assert e.clock.overhead.estimate > 0.3
