"""Distance tables of slices with men: what the probe makes of them under the move-count rules,
and the root rule that plays toward the next conversion (the 3-piece tables of conftest)."""
from __future__ import annotations

import random

import pytest

from hub_engine import Game, Position
from hub_engine.engine import Engine
from hub_engine.rules.notation import Setup
from hub_engine.tables.play import root_moves
from hub_engine.tables.probe import Tables
from hub_engine.tables.won import generate
from protocol import Limits


def _won_with_men(t: Tables, variant: str, min_d: int, seed: int, n: int = 20) -> list[Position]:
    """Positions of a man and a king against a king, the side to move winning in >= min_d plies
    to the next capture or crowning (no capture to make now)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        man, king, other = rng.sample(range(32), 3)
        try:
            pos = Position.from_setup(variant, Setup(0, (man,), (king,), (), (other,)))
        except ValueError:
            continue
        moves = pos.legal_moves()
        if not moves or moves[0].is_capture:
            continue
        b = t.core.probe_dtc(pos.board)
        if 0 < b < 128 and b >= min_d and pos.hub() not in {p.hub() for p in out}:
            out.append(pos)
    return out


def _engine(variant: str, path) -> Engine:
    e = Engine()
    e.set_param("variant", variant)
    e.set_param("tables-path", str(path))
    e.init()
    return e


def test_a_won_root_with_men_plays_toward_the_next_conversion(small_dir):
    # italian: every move the engine picks crowns or leaves the other side lost one ply sooner
    t = Tables("italian", [small_dir])
    e = _engine("italian", small_dir)
    for pos in _won_with_men(t, "italian", 5, seed=3, n=12):
        d = t.core.probe_dtc(pos.board)
        assert len(root_moves(t, Game("italian", pos))) < len(pos.legal_moves())
        e.set_position(pos.hub(), [])
        move = pos.parse_move(e.search(Limits(move_time=0.05), "think", lambda i: None).move)
        child = pos.play(move)
        assert not move.promote, (pos.hub(), d)          # a crowning is distance 1, never >= 5
        assert t.core.probe_dtc(child.board) == 128 + d - 1, (pos.hub(), move.hub(), d)


def test_a_won_ending_with_men_is_a_draw_when_the_count_runs_out_first(small_dir):
    # italian: 40 moves without a capture or a crowning draw; a man step does not restart them
    t = Tables("italian", [small_dir])
    pos = _won_with_men(t, "italian", 8, seed=5, n=1)[0]
    d = t.core.probe_dtc(pos.board)
    quiet, _, cfg, cfgp = pos.board.initial_counters()
    assert t.probe(pos).ruled == "win" and t.probe(pos).distance == d
    assert t.probe(pos, (quiet, 80 - d, cfg, cfgp)).ruled == "win"        # d plies left: just
    late = t.probe(pos, (quiet, 80 - d + 1, cfg, cfgp))
    assert late.value == "win" and late.ruled == "draw"                     # one ply short
    e = _engine("italian", small_dir)
    e.game = Game("italian", pos)
    infos = []
    e.search(Limits(move_time=0.1), "think", infos.append)
    assert 89.0 < infos[-1].score < 90.0


def test_the_quiet_rule_with_men_is_left_to_the_search_when_it_may_come_first(small_dir):
    # russian: 15 moves without a man move or a capture draw, but a man step restarts them, so a
    # distance longer than what they leave is not known to fail (no value), unless they leave
    # 20 plies or more (trusted, as win/draw/loss results are)
    t = Tables("russian", [small_dir])
    pos = _won_with_men(t, "russian", 4, seed=1, n=1)[0]
    d = t.core.probe_dtc(pos.board)
    _, noc, cfg, cfgp = pos.board.initial_counters()
    assert t.probe(pos, (30 - d, noc, cfg, cfgp)).ruled == "win"
    unknown = t.probe(pos, (30 - d + 1, noc, cfg, cfgp))
    assert unknown.value == "win" and unknown.ruled is None and unknown.distance == d


def test_won_positions_for_conversion_matches(small_dir):
    # python -m hub_engine.tables.won: what it writes is won, far from a conversion, with men
    t = Tables("russian", [small_dir])
    fens = generate("russian", 3, 5, 6, seed=2, path=small_dir)
    assert len(fens) == 6 and len(set(fens)) == 6
    for fen in fens:
        pos = Position.from_fen("russian", fen)
        men0, kings0, men1, kings1 = pos.board.pieces()
        assert pos.side == 0 and len(men0 + kings0 + men1 + kings1) == 3 and (men0 or men1)
        r = t.probe(pos)
        assert r.ruled == "win" and r.distance >= 5 and not pos.legal_moves()[0].is_capture
    assert generate("russian", 3, 5, 6, seed=2, path=small_dir) == fens     # the seed decides
    with pytest.raises(ValueError, match="no distance tables of .* 4-piece slices"):
        generate("russian", 4, 5, 6, path=small_dir)
