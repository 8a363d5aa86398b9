"""The Engine behind the Hub session, driven through the protocol's engine interface."""
import threading
import time

import pytest

from hub_engine.engine import Engine
from hub_engine.rules.position import Position, Setup
from protocol import Limits


def make_engine(variant: str = "russian") -> Engine:
    """An engine that searches every move (the opening book off: tests/book tests the book)."""
    e = Engine()
    e.set_param("variant", variant)
    e.set_param("tt-size", "16")
    e.set_param("book", "false")
    e.init()
    return e


def search(e: Engine, mode: str = "think", **limits):
    infos = []
    result = e.search(Limits(**limits), mode, infos.append)
    return result, infos


def test_params_and_bad_values_keep_old_value():
    e = Engine()
    names = [p.name for p in e.params()]
    assert names[:2] == ["variant", "notation"] and "tt-size" in names and "threads" in names
    with pytest.raises(ValueError, match="unknown variant"):
        e.set_param("variant", "frisian")
    assert e.variant.name == "brazilian"
    with pytest.raises(ValueError, match="between"):
        e.set_param("tt-size", "99")
    with pytest.raises(ValueError, match="integer"):
        e.set_param("threads", "two")
    e.set_param("initial-time", "300")          # unknown names are accepted
    e.set_param("variant", "italian")
    assert e.variant.name == "italian"


def test_contempt_parameter_reaches_the_search_and_analysis_ignores_it():
    e = make_engine()
    assert [p for p in e.params() if p.name == "contempt"][0].value == 0
    for bad in ("101", "-101", "ten"):
        with pytest.raises(ValueError, match="contempt"):
            e.set_param("contempt", bad)
    e.set_param("contempt", "40")
    assert e.settings.contempt == 40
    search(e, depth=2)
    assert e.searchers.main.contempt == 40
    search(e, mode="analyze", depth=2)
    assert e.searchers.main.contempt == 0, "analysis takes no side: draws are 0"
    # a repetition the engine can claim at once (english, its king against two kings; the
    # position of tests/search's repetition test), tables off: think scores it -contempt
    e.set_param("variant", "english")
    e.set_param("book", "false")
    e.set_param("bb-size", "0")
    e.init()
    start = Position.from_setup("english", Setup(1, (), (0,), (), (21, 30)))
    pos, moves = start, []
    for frm, to in ((30, 26), (0, 4), (26, 30)):
        move = next(m for m in pos.legal_moves() if (m.frm, m.to) == (frm, to))
        moves.append(move.hub("variant"))
        pos = pos.play(move)
    e.set_position(start.hub(), moves)
    scores = {}
    for mode, contempt in (("think", "40"), ("analyze", "40"), ("think", "0")):
        e.set_param("contempt", contempt)
        result, infos = search(e, mode=mode, depth=6)
        scores[mode, contempt] = infos[-1].score
    assert scores["think", "0"] == scores["analyze", "40"] == 0.0
    assert scores["think", "40"] == -0.4


def test_move_time_is_respected():
    e = make_engine()
    t0 = time.monotonic()
    result, infos = search(e, move_time=0.2)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.2 + 0.15
    assert result.move in [str(m) for m in Position.start("russian").legal_moves()]
    assert infos and infos[-1].pv[0] == result.move


def test_node_limit_is_honoured():
    e = make_engine()
    result, infos = search(e, nodes=3000)
    assert result.move is not None
    assert infos[-1].nodes <= 3000 + 200


def test_depth_limit_and_info_fields():
    e = make_engine("brazilian")
    result, infos = search(e, depth=5)
    assert [i.depth for i in infos][-1] == 5
    last = infos[-1]
    assert last.score is not None and last.nodes > 0 and last.time is not None
    assert last.pv[0] == result.move
    assert result.ponder == (last.pv[1] if len(last.pv) > 1 else None)


def test_stop_returns_best_move_so_far():
    e = make_engine()
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=search(e, mode="analyze")))
    worker.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    e.stop()
    worker.join(5)
    assert not worker.is_alive()
    assert time.monotonic() - t0 < 0.5
    result, infos = out["r"]
    assert infos and result.move == infos[-1].pv[0]


def test_single_legal_move_answers_at_once():
    e = make_engine()
    # white man on c3 must capture d4 (the only legal move); lots of time on the clock
    e.set_position("W" + "e" * 17 + "b" + "e" * 3 + "w" + "e" * 4 + "b" + "e" * 5, [])
    legal = e.game.position.legal_moves()
    assert len(legal) == 1
    t0 = time.monotonic()
    result, infos = search(e, time=100.0)
    assert time.monotonic() - t0 < 0.1 and not infos
    assert result.move == str(legal[0])


def test_no_legal_move_gives_none():
    e = make_engine()
    e.set_position("W" + "e" * 20 + "b" + "e" * 11, [])    # white has no piece
    result, _ = search(e, depth=3)
    assert result.move is None


def test_a_book_move_answers_go_think_at_once_and_only_think():
    """The root decision consults the book before searching: a `go think` gets the book's move
    with no search (one `info` line, depth 0, nodes 0); `go analyze` still searches; a position
    the book lacks too."""
    e = make_engine()
    e.set_position(None, ["9-13"])
    legal = e.game.position.legal_moves()
    chosen = legal[-1]
    asked = []

    def book(game):
        asked.append(game.position.hub())
        return (chosen, 0.25, None) if len(game.moves) == 1 else None

    e.book = book
    t0 = time.monotonic()
    result, infos = search(e, time=100.0)
    assert time.monotonic() - t0 < 0.1
    assert [(i.depth, i.nodes, i.score, i.pv) for i in infos] == [(0, 0, 0.25, [str(chosen)])]
    assert result.move == str(chosen) and asked == [e.game.position.hub()]
    _, infos = search(e, "analyze", depth=3)
    assert infos and len(asked) == 1                 # analysis never asks the book
    e.set_position(None, ["9-13", "23-19"])
    result, infos = search(e, depth=3)
    assert infos and len(asked) == 2                 # asked, no move: searched
    assert result.move == infos[-1].pv[0]


def test_bad_position_and_illegal_move_keep_previous_game():
    e = make_engine()
    e.set_position(None, ["9-13"])
    before = e.game.position
    with pytest.raises(ValueError, match="bad position"):
        e.set_position("W" + "e" * 50, [])
    with pytest.raises(ValueError, match="illegal move"):
        e.set_position(None, ["9-13", "9-14"])
    assert e.game.position == before


def test_notation_switches_to_layout_when_needed():
    e = make_engine("russian")
    e.set_position(None, ["21-17"])     # layout numbers: a3-b4 (variant numbers: 9-13)
    assert e.notation == "layout"
    assert e.game.position == Position.start("russian").play("9-13")
    result, _ = search(e, depth=3)
    assert result.move in [m.hub("layout") for m in e.game.position.legal_moves()]


def test_repetition_history_reaches_the_search():
    e = make_engine("russian")
    # one king each; shuffle back and forth twice: the start position of the shuffle recurs
    pos = "W" + "B" + "e" * 30 + "W"           # white king g1 (4), black king b8 (29)
    shuffle = ["4-8", "29-25", "8-4", "25-29"]
    e.set_position(pos, shuffle * 2)
    assert e.game.repetitions() == 3
    assert e.game.result() == "1/2-1/2"
    result, infos = search(e, depth=4)
    assert result.move is not None and abs(infos[-1].score) < 1.0


def test_ponder_waits_for_ponder_hit():
    e = make_engine()
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=search(e, mode="ponder", depth=2)))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()            # depth 2 is done, but a ponder search waits
    e.ponder_hit()
    worker.join(5)
    assert not worker.is_alive() and out["r"][0].move is not None


def test_two_threads_search():
    e = Engine()
    e.set_param("variant", "brazilian")
    e.set_param("threads", "2")
    e.set_param("tt-size", "16")
    e.set_param("book", "false")
    e.init()
    result, infos = search(e, depth=8)
    assert result.move is not None and infos[-1].depth == 8


def test_ponder_hit_that_overtakes_the_search_is_not_lost():
    e = make_engine()
    e.ponder_hit()                       # arrives before search() has set itself up
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=search(e, mode="ponder", depth=3)))
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and out["r"][0].move is not None


def test_stale_ponder_hit_does_not_leak_into_the_next_ponder_search():
    e = make_engine()
    search(e, depth=2)
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=search(e, mode="ponder", depth=2)))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive()             # still waiting for its own ponder-hit
    e.stop()
    worker.join(5)
    assert not worker.is_alive()
