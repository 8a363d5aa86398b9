"""Search: forced wins, shots, drawn endings, repetition, draw counters, limits, threads."""
from __future__ import annotations

import threading
import time

import pytest

from hub_engine.core import INF, MATE, TransTable, score_to_hub
from hub_engine.rules.position import Position

from search_helpers import board_of, deepen, make_searcher

VARIANTS = ["brazilian", "russian", "portuguese", "spanish", "italian", "english"]

# Forced wins in 5 plies (the loser has no move after the winner's third move), found and checked
# by an independent brute-force solver over legal_moves() (no draw rules involved at this length).
MATE_IN_5 = {
    "brazilian": "Weeeeweeeeeeeeeeebeeeeeeeeeeeeewe",    # the man on 24 crowns and the king wins
    "russian": "Weeeeweeeeeeeeeeebeeeeeeeeeeeeewe",
    "portuguese": "Weeeeeeebeeeweeeeeeeeeeeeeeeeeeww",
    "spanish": "Weeeeeeebeeeweeeeeeeeeeeeeeeeeeww",
    "italian": "Weeeeeeebeeeweeeeeeeeeeeeeeeeeeww",
    "english": "Weeeebeeeweeeeeeeeeeeeeeeeeeewwee",
}

# Shots: the best move is a quiet move that gives a man (the reply is a forced capture) and wins
# material back with interest (found with an independent 4-ply material search, then confirmed).
SHOTS = [
    ("brazilian", "Wbebebebeeweeweebweeebbewewweeeew", (11, 15)),
    ("russian", "Weeebeebeeebweebewebwbeeweweeeeew", (23, 27)),
    ("portuguese", "Webeeebeeweweeebweeeeebeeeeeeewee", (23, 27)),
    ("spanish", "Webeeebeeweweeebweeeeebeeeeeeewee", (23, 27)),
    ("italian", "Webbbbeeeebeebweeweewbeweeeweweew", (0, 4)),
    ("english", "Wbbbeeeebeebeeewbweewewebeweeweew", (0, 4)),
]


def legal_keys(board):
    return [(f, t, c, bool(p)) for f, t, c, p, _k in board.legal_moves()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_forced_win_found_with_exact_distance(variant):
    score, pv, nodes, completed, mean_depth, seldepth = deepen(variant, MATE_IN_5[variant], 9)
    assert score == MATE - 5
    assert score_to_hub(score) == pytest.approx(99.95)
    assert pv and pv[0] in legal_keys(board_of(variant, MATE_IN_5[variant]))
    assert completed and nodes > 0 and seldepth >= 5 and mean_depth >= 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_forced_loss_seen_from_the_other_side(variant):
    # after the winner's first move, the defender's best is still a loss in 4 plies
    b = board_of(variant, MATE_IN_5[variant])
    frm, to, caps, promote = deepen(variant, b, 7)[1][0]
    child = b.play(frm, to, caps, promote)
    assert deepen(variant, child, 8)[0] == -(MATE - 4)


@pytest.mark.parametrize("variant,text,move", SHOTS)
def test_shot_sacrifice_then_take_more(variant, text, move):
    b = board_of(variant, text)
    assert not any(c for _f, _t, c, _p in legal_keys(b)), "no capture at the root"
    score, pv, *_ = deepen(variant, b, 8)
    assert pv[0][:2] == move
    child = b.play(*pv[0])
    assert all(c for _f, _t, c, _p in legal_keys(child)), "the reply is a forced capture"
    assert score >= 80, "the shot wins at least a man's worth"


@pytest.mark.parametrize("variant", VARIANTS)
def test_lone_king_against_lone_king_is_a_draw(variant):
    b = Position.from_hub(variant, "W" + "e" * 5 + "W" + "e" * 20 + "B" + "e" * 5).board
    assert [len(x) for x in b.pieces()] == [0, 1, 0, 1]
    score = deepen(variant, b, 10)[0]
    assert abs(score) <= 20


@pytest.mark.parametrize("variant", ["russian", "brazilian", "portuguese", "spanish"])
def test_flying_two_kings_cannot_beat_one(variant):
    # two kings (0, 7) against the king on 26, side 0 to move, no capture
    b0 = board_of(variant)
    b = b0.__class__(b0.rules, 0, (), (0, 7), (), (26,))
    assert not any(c for _f, _t, c, _p in legal_keys(b))
    score = deepen(variant, b, 12)[0]
    assert abs(score) <= 40


def test_three_kings_against_a_king_on_the_long_diagonal_is_a_draw():
    b0 = board_of("russian")
    b = b0.__class__(b0.rules, 0, (), (7, 24, 30), (), (0,))
    score = deepen("russian", b, 10)[0]
    assert abs(score) < 100, "far below the 6 men of material"


def test_short_kings_two_against_one_is_better_for_the_two():
    b0 = board_of("english")
    b = b0.__class__(b0.rules, 0, (), (7, 8), (), (26,))
    assert deepen("english", b, 8)[0] > 100


def test_no_legal_move_is_a_loss():
    b0 = board_of("english")
    # side 0's only man (on 0) is blocked: 4 is taken and cannot be jumped (9 is occupied)
    b = b0.__class__(b0.rules, 0, (0,), (), (4, 9, 10), ())
    assert b.legal_moves() == []
    s = make_searcher("english")
    score, pv, nodes, completed, *_ = s.iterate(b, 3, -INF, INF, [], b.initial_counters(), 0.0, 0)
    assert score == -MATE and pv == [] and completed


def repetition_root():
    """English: one king (side 0, to move) against two; side 0 is worse, but its king can go
    back to 0 and repeat the position of the game's first ply: (root, game history)."""
    b0 = board_of("english")
    q0 = b0.__class__(b0.rules, 1, (), (0,), (), (21, 30))
    q1 = q0.play(30, 26)
    q2 = q1.play(0, 4)
    return q2.play(26, 30), [q0.zobrist, q1.zobrist, q2.zobrist]


def test_repetition_with_the_game_history_is_a_draw():
    root, history = repetition_root()
    plain = deepen("english", root, 6)
    assert plain[0] < -50
    score, pv, *_ = deepen("english", root, 6, history=history)
    assert score == 0
    assert pv[0][:2] == (4, 0)


def test_contempt_scores_a_repetition_against_the_side_to_move_at_the_root():
    # the root's side repeats to save a bad game; the repetition is found at the child, where
    # the other side is to move and scores it +contempt
    root, history = repetition_root()
    assert deepen("english", root, 6)[0] < -100, "lost without the repetition"
    for contempt in (30, -30, 100):
        score, pv, *_ = deepen("english", root, 6, history=history, contempt=contempt)
        assert score == -contempt and pv[0][:2] == (4, 0), "the draw is still the best"


def test_contempt_scores_a_rule_counter_draw():
    b0 = board_of("english")
    b = b0.__class__(b0.rules, 0, (), (7, 8), (), (26,))
    assert deepen("english", b, 6, counters=(79, 0, 0, 0), contempt=25)[0] == -25
    assert deepen("english", b, 6, counters=(79, 0, 0, 0), contempt=-25)[0] == 25


def test_draw_counter_at_its_limit_scores_zero():
    b0 = board_of("english")
    b = b0.__class__(b0.rules, 0, (), (7, 8), (), (26,))
    assert not any(c for _f, _t, c, _p in legal_keys(b))
    assert b.counters_draw((80, 0, 0, 0)) == 1
    assert deepen("english", b, 6)[0] > 100
    score = deepen("english", b, 6, counters=(79, 0, 0, 0))[0]
    assert score == 0


def test_deadline_is_honoured():
    s = make_searcher("russian")
    b = board_of("russian")
    t0 = time.monotonic()
    score, pv, nodes, completed, *_ = s.iterate(b, 60, -INF, INF, [], b.initial_counters(),
                                                t0 + 0.2, 0)
    elapsed = time.monotonic() - t0
    assert not completed
    assert elapsed < 0.2 + 0.3
    assert pv == [] or pv[0] in legal_keys(b)


def test_node_limit_is_honoured():
    s = make_searcher("brazilian")
    b = board_of("brazilian")
    score, pv, nodes, completed, *_ = s.iterate(b, 40, -INF, INF, [], b.initial_counters(), 0.0,
                                                20000)
    assert not completed
    assert 20000 <= nodes <= 20000 + 2


def test_incomplete_iteration_keeps_the_best_root_move():
    s = make_searcher("russian")
    b = board_of("russian")
    for d in range(1, 9):
        s.iterate(b, d, -INF, INF, [], b.initial_counters(), 0.0, 0)
    # the next depth, cut off early: the TT move is searched first and finished quickly
    score, pv, nodes, completed, *_ = s.iterate(b, 30, -INF, INF, [], b.initial_counters(), 0.0,
                                                3000)
    assert not completed
    assert pv == [] or pv[0] in legal_keys(b)


def _after_a_root_fail_low(variant, text):
    """A searcher deepened to 6 plies (best move M), then a 7-ply iteration with a window 2 men
    above the score, where every root move fails low: (searcher, board, counters, M, score,
    the fail-low result)."""
    s = make_searcher(variant)
    b = board_of(variant, text)
    c = b.initial_counters()
    for d in range(1, 7):
        r = s.iterate(b, d, -INF, INF, [], c, 0.0, 0)
    low = s.iterate(b, 7, r[0] + 200, r[0] + 201, [], c, 0.0, 0)
    return s, b, c, r[1][0], r[0], low


# positions where the root moves' upper bounds in a fail-low put another move than the best on top
FAIL_LOW_ROOTS = [("russian", "start"), ("brazilian", "Wbbbbbbbbeeebeweeeeebeeewwwwwwwww")]


@pytest.mark.parametrize("variant,text", FAIL_LOW_ROOTS)
def test_a_root_fail_low_keeps_the_last_iterations_move(variant, text):
    _s, b, _c, best, score, low = _after_a_root_fail_low(variant, text)
    assert low[3] and low[0] <= score + 200
    assert low[1][0] == best


@pytest.mark.parametrize("variant,text", FAIL_LOW_ROOTS)
def test_a_re_search_cut_short_after_a_fail_low_plays_the_last_iterations_move(variant, text):
    # the aspiration re-search with a lower window, stopped as soon as its first root move is
    # searched: that move, the one reported, must be the last iteration's best
    for limit in range(100, 30000, 100):
        s, b, c, best, score, _low = _after_a_root_fail_low(variant, text)
        r = s.iterate(b, 7, score - 300, score + 201, [], c, 0.0, limit)
        if r[1]:
            assert not r[3]
            assert r[1][0] == best
            return
    pytest.fail("no node limit stopped the re-search after its first root move")


def test_stop_from_another_thread():
    s = make_searcher("russian")
    b = board_of("russian")
    out = {}

    def run():
        out["r"] = s.iterate(b, 60, -INF, INF, [], b.initial_counters(), 0.0, 0)

    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.15)
    t0 = time.monotonic()
    s.stop()
    th.join(timeout=2.0)
    assert not th.is_alive()
    assert time.monotonic() - t0 < 0.5
    assert out["r"][3] is False


def test_fail_low_and_fail_high_bounds():
    b = board_of("russian")
    exact = deepen("russian", b, 7)[0]
    s = make_searcher("russian")
    for d in range(1, 7):
        s.iterate(b, d, -INF, INF, [], b.initial_counters(), 0.0, 0)
    hi = s.iterate(b, 7, exact + 50, exact + 51, [], b.initial_counters(), 0.0, 0)[0]
    lo = s.iterate(b, 7, exact - 51, exact - 50, [], b.initial_counters(), 0.0, 0)[0]
    assert hi <= exact + 50
    assert lo >= exact - 50


def test_mate_scores_survive_the_table():
    variant = "russian"
    tt = TransTable(16)
    s = make_searcher(variant, tt)
    b = board_of(variant, MATE_IN_5[variant])
    for d in range(1, 10):
        r = s.iterate(b, d, -INF, INF, [], b.initial_counters(), 0.0, 0)
    assert r[0] == MATE - 5
    s.clear_heuristics()
    again = s.iterate(b, 9, -INF, INF, [], b.initial_counters(), 0.0, 0)
    assert again[0] == MATE - 5
    tt.clear()
    tt.resize(12)
    assert tt.log2 == 12


def test_score_to_hub():
    assert score_to_hub(135) == pytest.approx(1.35)
    assert score_to_hub(-20) == pytest.approx(-0.2)
    assert score_to_hub(MATE - 7) == pytest.approx(99.93)
    assert score_to_hub(-(MATE - 7)) == pytest.approx(-99.93)
    assert INF > MATE


def test_bench_node_count_is_deterministic():
    from hub_engine.engine.bench import run_bench

    a = run_bench(depth=8)
    b = run_bench(depth=8)
    assert a["nodes"] == b["nodes"] > 0
    assert len(a["positions"]) >= 12


def test_lazy_smp_two_threads_share_one_table():
    tt = TransTable(20)
    b = board_of("brazilian")
    searchers = [make_searcher("brazilian", tt) for _ in range(2)]
    results: list = [None, None]
    times: list = [0.0, 0.0]

    def run(i):
        t0 = time.perf_counter()
        total, r = 0, None
        for d in range(1, 15):
            r = searchers[i].iterate(b, d, -INF, INF, [], b.initial_counters(), 0.0, 0, i == 1)
            total += r[2]
        times[i] = time.perf_counter() - t0
        results[i] = (r, total)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    legal = legal_keys(b)
    for i in range(2):
        r, total = results[i]
        assert r[3] and r[1] and r[1][0] in legal
        print(f"thread {i}: nodes={total} nps={total / times[i]:.0f}")
    print(f"total nps={sum(t for _r, t in results) / max(times):.0f}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluation_is_colour_symmetric(variant):
    # the position seen from the other side (squares rotated, colours swapped) scores the same
    from hub_engine.engine.bench import POSITIONS

    s = make_searcher(variant)
    texts = ["start"] + [t for v, t in POSITIONS if v == variant] + [MATE_IN_5[variant]]
    for text in texts:
        b = board_of(variant, text)
        m0, k0, m1, k1 = b.pieces()
        rot = lambda xs: tuple(31 - x for x in xs)  # noqa: E731
        flipped = b.__class__(b.rules, 1 - b.side, rot(m1), rot(k1), rot(m0), rot(k0))
        assert s.evaluate(b) == s.evaluate(flipped), text


@pytest.mark.parametrize("variant", ["russian", "brazilian", "english", "italian", "portuguese"])
def test_the_evaluation_cache_changes_no_search(variant):
    """Evaluations remembered by position give every search the same scores, lines and node
    counts as evaluations computed each time (the learned evaluation, as the engine plays)."""
    from hub_engine.core import Searcher
    from hub_engine.learn.weights import evaluation
    from hub_engine.rules.variants import get_variant

    v = get_variant(variant)
    board = board_of(variant)
    results = []
    for cache in (0, 1):
        s = Searcher(v.core_rules, TransTable(18), evaluation(v.name))
        s.eval_cache = cache
        results.append([s.iterate(board, d, -INF, INF, [], board.initial_counters(), 0.0, 0)
                        for d in range(1, 13)])
    assert results[0] == results[1]
    assert results[1][-1][2] > 10_000          # a real search, many evaluations


def test_root_moves_keep_the_last_iterations_order():
    # each iteration leaves its order for the next at the same root: the best move first, every
    # legal move once; a MultiPV line (moves excluded) and another root leave it alone
    s = make_searcher("russian")
    s.root_order = 1
    b = board_of("russian")
    c = b.initial_counters()
    assert s.root_order_moves(b) == []
    for d in range(1, 8):
        score, pv, *_ = s.iterate(b, d, -INF, INF, [], c, 0.0, 0)
        order = s.root_order_moves(b)
        assert order[0] == pv[0]
        assert sorted(order) == sorted(legal_keys(b))
    s.iterate(b, 7, -INF, INF, [], c, 0.0, 0, exclude=[pv[0]])
    assert s.root_order_moves(b) == order
    other = board_of("russian", "Weeebeebeeebweebewebwbeeweweeeeew")
    assert s.root_order_moves(other) == []
    s.clear_heuristics()
    assert s.root_order_moves(b) == []

