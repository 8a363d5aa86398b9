"""The move's clock: no timer thread for a search on the clock from its start, a timer for one
started by ponder-hit (whose running iteration has no deadline)."""
import threading
import time

from hub_engine.engine import Engine
from hub_engine.engine.clock import Clock
from protocol import Limits


def make_engine() -> Engine:
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.init()
    return e


def test_a_search_on_the_clock_from_its_start_starts_no_timer_thread():
    clock = Clock(on_hard_limit=lambda: None)
    clock.begin(Limits(move_time=0.5), "think")
    clock.arm(Limits(move_time=0.5), "think")
    assert clock.running.is_set() and clock._timer is None
    assert clock.deadline() > time.monotonic()
    clock.end()


def test_a_think_search_ends_at_its_deadline_without_a_timer():
    e = make_engine()
    before = threading.active_count()
    seen = []
    t0 = time.monotonic()
    e.search(Limits(move_time=0.3), "think",
             lambda info: seen.append(threading.active_count()))
    assert time.monotonic() - t0 < 0.3 + 0.15
    assert seen and max(seen) == before


def test_ponder_hit_arms_the_hard_limit_for_the_iteration_already_running():
    e = make_engine()
    out = {}
    worker = threading.Thread(target=lambda: out.update(
        r=e.search(Limits(move_time=0.3), "ponder", lambda info: None)))
    worker.start()
    time.sleep(0.4)                      # pondering: deep iterations without a deadline
    assert worker.is_alive()
    hit = time.monotonic()
    e.ponder_hit()
    worker.join(timeout=5.0)
    assert not worker.is_alive()
    assert time.monotonic() - hit < 0.3 + 0.15
    assert out["r"].move is not None
