"""Move-count rules meet the tables: a win the counters make a draw is not claimed, and a won
kings ending is converted within the counter."""
from __future__ import annotations

import random

import pytest

from hub_engine import Game, Position
from hub_engine.core import tb_plies_left
from hub_engine.engine import Engine
from hub_engine.rules.notation import Setup
from hub_engine.rules.variants import VARIANTS
from protocol import Limits


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_plies_left_agrees_with_the_draw_counters(variant):
    # the probe's "plies left" must be <= 0 exactly when the core's counters call a draw
    rng = random.Random(7)
    for _ in range(300):
        sq = rng.sample(range(32), rng.randint(2, 6))
        n = rng.randint(1, len(sq) - 1)
        pos = Position.from_setup(variant, Setup(rng.randint(0, 1), (), tuple(sq[:n]), (),
                                                 tuple(sq[n:])))
        quiet, noc, cfgp = (rng.randint(0, 130) for _ in range(3))
        counters = (quiet, noc, pos.board.initial_counters()[2], cfgp)
        left = tb_plies_left(pos.board, counters)
        assert (left <= 0) == bool(pos.board.counters_draw(counters)), (pos.hub(), counters, left)


def _walk(variant: str, start: str, plies: int, tables, seed: int) -> Game | None:
    """A game from start of `plies` quiet, non-repeating moves in which the kings side keeps its
    table win (ignoring the counters) and the material never changes."""
    rng = random.Random(seed)
    for _ in range(20):
        game = Game(variant, Position.from_hub(variant, start))
        strong = game.position.side
        for _ in range(plies):
            moves = [m for m in game.legal_moves() if not m.is_capture]
            rng.shuffle(moves)
            for m in moves:
                game.play(m)
                ok = game.repetitions() == 1 and not game.draw_reason()
                if ok and game.position.side != strong:
                    r = tables.probe(game.position)
                    ok = r is not None and r.value == "loss"
                if ok:
                    break
                game.undo()
            else:
                break
        else:
            return game
    return None


def _engine(variant: str, path=None) -> Engine:
    e = Engine()
    e.set_param("variant", variant)
    if path is not None:
        e.set_param("tables-path", str(path))
    e.init()
    return e


def _search(e: Engine, game: Game, seconds: float = 0.2):
    e.game = game
    infos = []
    res = e.search(Limits(move_time=seconds), "think", infos.append)
    return (infos[-1].score if infos else None), res.move


def test_a_russian_win_the_15_move_rule_draws_is_scored_a_draw(shipped):
    t = shipped["russian"]
    start = Position.from_fen("russian", "W:WKc1,Ka3,Kb4:BKb8")      # 3 kings v 1, a table win
    r = t.probe(start)
    assert (r.value, r.ruled) == ("win", "win") and r.distance > 10
    for seed in range(50):                                       # 13 moves each, kings only
        game = _walk("russian", start.hub(), 26, t, seed=seed)
        if game is not None and t.probe(game.position).distance > 4:
            break
    end = game.position
    assert end.side == start.side and game.counters[0] == 26
    r_fresh, r_late = t.probe(end), t.probe(end, game.counters)
    assert r_fresh.value == "win" and r_fresh.ruled == "win"
    assert r_late.value == "win" and r_late.ruled == "draw"      # 4 plies left, win needs more
    assert r_fresh.distance > 30 - 26
    e = _engine("russian")
    score, _ = _search(e, game)
    assert score == 0.0                                          # not 89.xx
    score, _ = _search(e, Game("russian", end))                  # the same position, fresh counters
    assert 89.0 < score < 90.0


def _longest(t, variant: str, kings: int, n: int = 3000) -> Position:
    rng = random.Random(11)
    best, best_d = None, -1
    for _ in range(n):
        sq = rng.sample(range(32), kings + 1)
        pos = Position.from_setup(variant, Setup(0, (), tuple(sq[:kings]), (), (sq[kings],)))
        r = t.probe(pos)
        if r and r.ruled == "win" and r.distance > best_d and not pos.legal_moves()[0].is_capture:
            best, best_d = pos, r.distance
    return best


@pytest.mark.parametrize("kings", [2, 3])
def test_a_won_english_kings_ending_is_converted_within_40_moves(shipped, kings):
    t = shipped["english"]
    start = _longest(t, "english", kings)
    assert start is not None and t.probe(start).distance >= 9
    game = Game("english", start)
    winner = start.side_name
    e = _engine("english")
    while game.result() is None:
        assert len(game.moves) < 80, "not converted within 40 moves"
        _, move = _search(e, game, 0.05)
        game.play(move)
    assert game.draw_reason() is None
    assert game.result() == ("1-0" if winner == "white" else "0-1")
    assert len(game.moves) <= t.probe(start).distance
