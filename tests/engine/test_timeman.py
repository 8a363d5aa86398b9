"""Time allocation: the overhead per move, the reserve, the clamps, and a whole sudden-death game
played against the budget with a modelled cost per move (no clock is read here)."""
import threading

import pytest

from hub_engine.engine.timeman import (DEFAULT_MOVES_TO_GO, ENDGAME_MOVES_TO_GO, MAX_SECONDS,
                                       MOVE_OVERHEAD, MOVE_TIME_MARGIN, RESERVE, Budget, Overhead,
                                       budget, moves_to_go)

CLOCKS = [0.0, 0.001, 0.01, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1.0, 3.0, 60.0, 3600.0]


@pytest.mark.parametrize("inc", [0.0, 0.01, 1.0])
@pytest.mark.parametrize("clock", CLOCKS)
def test_a_move_never_plans_the_reserve_or_the_overhead(clock, inc):
    b = budget(time=clock, inc=inc)
    assert 0.0 <= b.soft <= b.hard
    assert b.hard <= max(0.0, clock + inc - MOVE_OVERHEAD - RESERVE)


@pytest.mark.parametrize("clock", [0.0, 0.005, 0.01, 0.015, 0.02, -1.0, -1e18])
def test_under_the_reserve_the_answer_comes_at_once(clock):
    """With about 20 ms or less left there is no time to search: a 1-ply answer, at once."""
    assert budget(time=clock, inc=0.0) == Budget(0.0, 0.0)


def test_no_time_planned_is_not_no_limit():
    assert budget(time=0.0).hard == 0.0
    assert budget() == Budget(None, None)
    assert budget(inc=5.0, moves=40) == Budget(None, None)    # no clock: no time limit


def test_the_share_of_the_clock_counts_the_overhead_of_the_move():
    b = budget(time=3.0, inc=0.0)
    assert b.soft == pytest.approx(3.0 / DEFAULT_MOVES_TO_GO - MOVE_OVERHEAD)
    assert budget(time=3.0, overhead=0.05).soft == pytest.approx(3.0 / DEFAULT_MOVES_TO_GO - 0.05)
    assert budget(time=3.0, inc=1.0).soft > b.soft + 0.8                   # the increment counts
    assert budget(time=3.0, moves=10).soft > budget(time=3.0, moves=20).soft


def test_sudden_death_shares_the_clock_among_fewer_moves_as_the_men_go():
    assert moves_to_go(0.0) == DEFAULT_MOVES_TO_GO
    assert moves_to_go(1.0) == ENDGAME_MOVES_TO_GO
    assert moves_to_go(0.5) == (DEFAULT_MOVES_TO_GO + ENDGAME_MOVES_TO_GO) // 2
    assert moves_to_go(-3.0) == DEFAULT_MOVES_TO_GO and moves_to_go(7.0) == ENDGAME_MOVES_TO_GO
    assert moves_to_go(1.0, moves=40) == 40            # the client's count to the control wins
    opening, ending = budget(time=60.0, phase=0.0), budget(time=60.0, phase=1.0)
    assert ending.soft == pytest.approx(60.0 / ENDGAME_MOVES_TO_GO - MOVE_OVERHEAD)
    assert ending.soft > 2.5 * opening.soft and ending.hard <= 60.0


@pytest.mark.parametrize("clock, inc", [(0.3, 0.0), (5.0, 0.0), (60.0, 0.5), (600.0, 0.0)])
def test_a_root_fail_low_may_run_longer_but_keeps_the_reserve(clock, inc):
    b = budget(time=clock, inc=inc)
    assert b.hard < b.fail_low_hard <= 2.0 * b.hard
    assert b.fail_low_hard <= max(b.hard, 0.5 * (clock + inc))
    assert b.fail_low_hard <= clock + inc - MOVE_OVERHEAD - RESERVE
    assert budget(move_time=1.0).fail_low_hard == budget(move_time=1.0).hard    # no more


def test_the_last_move_before_the_control_may_use_all_but_the_reserve():
    b = budget(time=2.0, inc=0.0, moves=1)
    assert b.hard == pytest.approx(2.0 - MOVE_OVERHEAD - RESERVE - 0.02 * (2.0 - MOVE_OVERHEAD))


@pytest.mark.parametrize("move_time", [0.0, 0.001, 0.01, 0.1, 1.0, 10.0])
def test_move_time_is_spent_within_itself(move_time):
    b = budget(move_time=move_time)
    assert b.exact and b.soft == b.hard
    assert move_time - MOVE_TIME_MARGIN <= b.hard <= move_time
    assert b.hard >= 0.75 * move_time


@pytest.mark.parametrize("level", [{"move_time": 1e10}, {"move_time": 1e300},
                                   {"time": 1e300}, {"time": 1e18, "inc": 1e18},
                                   {"time": 1e9, "moves": 10**18}])
def test_huge_times_are_clamped_below_what_a_timer_can_wait(level):
    b = budget(**level)
    assert 0.0 <= b.soft <= b.hard <= MAX_SECONDS < threading.TIMEOUT_MAX


def _sudden_death(clock: float, cost: float, use: str, moves: int) -> float:
    """The lowest clock left over `moves` moves when each uses its soft target (or its hard
    limit) plus `cost` seconds the engine cannot see."""
    lowest = clock
    for _ in range(moves):
        b = budget(time=clock, inc=0.0)
        clock -= getattr(b, use) + cost
        lowest = min(lowest, clock)
    return lowest


@pytest.mark.parametrize("use, moves", [("soft", 100), ("hard", 55)])
def test_half_a_second_for_the_game_lasts_at_the_overhead_the_budget_counts(use, moves):
    """At the per-move cost the budget counts (more than twice the median measured on a busy
    machine), 0.5 s for the whole game lasts 100 moves a side at the soft target (the longest of
    100 test games had 90), and 55 if every move ran to its hard limit; when the clock runs low,
    moves cost only the overhead."""
    assert _sudden_death(0.5, MOVE_OVERHEAD, use, moves) > 0.0


@pytest.mark.parametrize("cost, moves", [(0.0005, 150), (0.003, 60)])
def test_a_cheaper_move_lasts_longer_and_a_dearer_one_still_lasts_a_game(cost, moves):
    assert _sudden_death(0.5, cost, "soft", moves) > 0.0


def _learn(meter: Overhead, moves: int, clock: float, inc: float, elapsed: float,
           charged: float) -> float:
    """`moves` moves on a clock that charges `charged` while the engine counts `elapsed`."""
    for _ in range(moves):
        meter.next_move(clock, inc)
        meter.moved(clock, inc, elapsed)
        clock += inc - charged
    return clock


def test_overhead_is_learnt_from_what_the_clock_charged():
    meter = Overhead()
    assert meter.estimate == MOVE_OVERHEAD
    _learn(meter, 6, 60.0, 1.0, elapsed=0.5, charged=0.55)       # 50 ms lag per move
    assert meter.estimate == pytest.approx(0.05)
    assert budget(time=10.0, overhead=meter.estimate).soft < budget(time=10.0).soft - 0.04
    assert budget(time=0.5, overhead=meter.estimate) == Budget(0.0, 0.0)  # lag eats the share


def test_overhead_never_drops_below_the_floor_and_one_stall_does_not_move_it():
    meter = Overhead()
    clock = _learn(meter, 4, 10.0, 0.0, elapsed=0.1, charged=0.1)   # the client adds nothing
    assert meter.estimate == MOVE_OVERHEAD
    clock = _learn(meter, 1, clock, 0.0, elapsed=0.1, charged=0.4)  # one 300 ms stall
    assert meter.estimate == MOVE_OVERHEAD


@pytest.mark.parametrize("charged", [-5.0, -0.01, 2.5])
def test_clock_jumps_are_not_overhead(charged):
    """A clock that grew (a new game, a client resetting it) or fell by more than CAP."""
    meter = Overhead()
    _learn(meter, 6, 100.0, 0.0, elapsed=0.1, charged=charged)
    assert meter.estimate == MOVE_OVERHEAD


def test_overhead_learns_only_from_consecutive_moves_on_the_clock():
    meter = Overhead()
    meter.moved(10.0, 0.0, 0.1)
    meter.forget()                        # e.g. a ponder search, a move-time search, new-game
    meter.next_move(9.0, 0.0)             # 0.9 s charged, but not for a move we timed
    assert meter.estimate == MOVE_OVERHEAD
    meter.next_move(8.0, 0.0)             # no move in between
    assert meter.estimate == MOVE_OVERHEAD
