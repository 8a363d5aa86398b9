"""Iterative deepening: which move an iteration cut short by the clock may give."""
from __future__ import annotations

from hub_engine.engine import Engine
from protocol import Limits


class ScriptedSearcher:
    """The engine's main searcher, but iterate() answers from a script: depths 1 to 4 find
    `first` (score 10); at depth 5 every root move fails low (the window's first try), and the
    re-search with a lower window is cut short with `cut_pv` and `cut_score`."""

    def __init__(self, real, first, cut_pv, cut_score):
        self.real, self.first, self.cut_pv, self.cut_score = real, first, cut_pv, cut_score
        self.calls = []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def iterate(self, board, depth, alpha, beta, history, counters, deadline, node_limit,
                helper=False, exclude=()):
        self.calls.append((depth, alpha, beta, deadline))
        if depth < 5:
            return (10, [self.first], 1000, True, float(depth), depth)
        if len(self.calls) == 5:
            assert alpha > -10**4, "depth 5 starts with an aspiration window"
            return (alpha - 90, [self.first], 1000, True, 5.0, 5)        # a fail-low
        return (self.cut_score(alpha), self.cut_pv, 1000, False, 5.0, 5)  # cut short


def key(move):
    return (move.frm, move.to, move.captured, move.promote)


def play_scripted(cut_pv_of, cut_score, limits=Limits(depth=20), calls=None):
    e = Engine()
    e.set_param("variant", "russian")
    e.set_param("tt-size", "16")
    e.set_param("book", "false")            # the search is under test, not the shipped book
    e.init()
    legal = e.game.position.legal_moves()
    first, other = legal[0], legal[-1]
    scripted = ScriptedSearcher(e.searchers.threads[0], key(first), cut_pv_of(key(other)),
                                cut_score)
    e.searchers.threads[0] = scripted
    infos = []
    result = e.search(limits, "think", infos.append)
    assert [c[0] for c in scripted.calls] == [1, 2, 3, 4, 5, 5]
    if calls is not None:
        calls.extend(scripted.calls)
    return result.move, first.hub("variant"), other.hub("variant"), infos


def test_a_fail_low_cut_short_plays_the_last_completed_iterations_move():
    """The re-search of a root fail-low is stopped before any move beat its alpha: the best it
    holds is an upper bound like every other move's, so the move is the one of depth 4."""
    move, first, other, infos = play_scripted(lambda m: [m], lambda alpha: alpha - 40)
    assert move == first != other
    assert infos[-1].depth == 4 and infos[-1].pv[0] == first


def test_a_move_proven_better_in_an_iteration_cut_short_is_played():
    """A move that beat alpha before the clock stopped the iteration is better than the first
    move at that depth: it is played, and shown."""
    move, first, other, infos = play_scripted(lambda m: [m], lambda alpha: alpha + 5)
    assert move == other != first
    assert infos[-1].depth == 5 and infos[-1].pv[0] == other


def test_an_iteration_stopped_before_its_first_move_gives_nothing():
    move, first, _other, infos = play_scripted(lambda m: [], lambda alpha: 0)
    assert move == first and infos[-1].depth == 4


def test_the_re_search_of_a_root_fail_low_may_run_to_the_longer_limit():
    calls = []
    play_scripted(lambda m: [m], lambda alpha: alpha - 40, Limits(time=60.0), calls)
    deadlines = [c[3] for c in calls]
    assert deadlines[0] == 0.0                          # depth 1 is always completed
    assert deadlines[1] == deadlines[4] > 0.0           # the hard limit
    assert deadlines[5] > deadlines[4]                  # after the fail-low: the longer one
