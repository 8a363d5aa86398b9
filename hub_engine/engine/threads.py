"""The search threads: the compiled searchers one engine owns, and the lazy-SMP helpers.

The main searcher deepens in the thread that runs `go`; with `threads` N > 1, N - 1 helpers
search the same root on the shared transposition table beside it (lazy SMP: they fill the
table, the main searcher's line is the answer). With MultiPV or a skill level below 20 a second
searcher with a table of its own searches the lines after the best (see deepening.py).
"""
from __future__ import annotations

import threading

from hub_engine.core import INF, Searcher, TransTable
from hub_engine.engine import switches
from hub_engine.engine.params import Settings
from hub_engine.engine.root import wants_lines
from hub_engine.learn.weights import evaluation
from hub_engine.rules.position import Position


class Searchers:
    """The transposition table and searchers, allocated for the settings they were made for."""

    def __init__(self) -> None:
        self.tt: TransTable | None = None
        self.threads: list[Searcher] = []         # one per thread: the main one, then helpers
        self.lines: Searcher | None = None        # MultiPV's lines after the best, own table
        self.halt = threading.Event()             # set by stop(): no new iteration
        self._made_for: tuple | None = None
        self._tables_version = -1
        self.problems: list[str] = []             # HUB_ENGINE_SEARCH parts not understood

    @property
    def main(self) -> Searcher:
        return self.threads[0]

    def allocate(self, settings: Settings) -> None:
        """The table (resized if needed) and one searcher per thread (the heavy part), and the
        lines' searcher when the settings want more than one line."""
        if self.tt is None:
            self.tt = TransTable(settings.tt_log2)
        elif self.tt.log2 != settings.tt_log2:
            self.tt.resize(settings.tt_log2)
        weights = evaluation(settings.variant.name, settings.eval)
        rules = settings.variant.core_rules
        self.threads = [Searcher(rules, self.tt, weights) for _ in range(settings.threads)]
        self.lines = (Searcher(rules, TransTable(settings.tt_log2), weights)
                      if wants_lines(settings) else None)
        self._made_for = (settings.variant.name, settings.eval)
        self.problems = switches.apply(self.every())
        settings.tables.attach(self.every(), settings.variant)
        self._tables_version = settings.tables.version

    def stale(self, settings: Settings) -> bool:
        """Whether the settings changed since allocate() in a way the searchers must follow."""
        return (self.tt is None or self._made_for != (settings.variant.name, settings.eval)
                or len(self.threads) != settings.threads or self.tt.log2 != settings.tt_log2
                or (wants_lines(settings) and self.lines is None)
                or (self.lines is not None and self.lines.tt.log2 != settings.tt_log2)
                or self._tables_version != settings.tables.version)

    def every(self) -> list[Searcher]:
        """Every searcher: the threads' and the lines'."""
        return self.threads + ([self.lines] if self.lines is not None else [])

    def new_search(self, shift: int = 0) -> None:
        """Age the tables' entries (a new search replaces the old ones first) and, where the
        searchers' `age` switch is on, their killers and history: `shift` is how many plies the
        new root lies after the last search's (0: unknown, the killers are forgotten)."""
        self.tt.new_search()
        for s in self.threads:
            if s.age:
                s.age_heuristics(shift)
        if self.lines is not None:
            self.lines.tt.new_search()

    def new_game(self) -> None:
        """Forget the last game: tables and history heuristics cleared."""
        if self.tt is not None:
            self.tt.clear()
        for s in self.threads:
            s.clear_heuristics()
        if self.lines is not None:
            self.lines.tt.clear()
            self.lines.clear_heuristics()

    def stop(self) -> None:
        """Stop every searcher now (any thread)."""
        self.halt.set()
        for s in self.every():
            s.stop()

    def start_helpers(self, root: Position, history: list, counters: tuple,
                      max_depth: int) -> list["Helper"]:
        helpers = [Helper(s, root, history, counters, max_depth, k)
                   for k, s in enumerate(self.threads[1:], 1)]
        for h in helpers:
            h.start()
        return helpers


# Depths a helper skips (Stockfish 8's lazy SMP): helper k skips depth d when
# ((d + SKIP_PHASE[i]) // SKIP_SIZE[i]) is odd, i = (k - 1) % 20; so helpers 1 and 2 search
# every other depth, one the odd and one the even ones, and the ones after them blocks of 2, 3
# and 4 depths: at any time some helper is one or more plies ahead of the main search.
SKIP_SIZE = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4)
SKIP_PHASE = (0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7)


def helper_depths(k: int, max_depth: int) -> list[int]:
    """The depths helper k (1, 2...) searches, in order; always max_depth at the end."""
    i = (k - 1) % len(SKIP_SIZE)
    depths = [d for d in range(1, max_depth + 1)
              if ((d + SKIP_PHASE[i]) // SKIP_SIZE[i]) % 2 == 0]
    if not depths or depths[-1] != max_depth:
        depths.append(max_depth)
    return depths


class Helper(threading.Thread):
    """A lazy-SMP helper: deepens the same root on the shared table until halted, at depths
    staggered with the other helpers' (helper_depths)."""

    def __init__(self, searcher: Searcher, root: Position, history: list, counters: tuple,
                 max_depth: int, k: int = 1) -> None:
        super().__init__(daemon=True)
        self.searcher, self.root, self.history, self.counters = searcher, root, history, counters
        self.depths = helper_depths(k, max_depth)
        self.nodes = 0
        self._halted = threading.Event()

    def run(self) -> None:
        for depth in self.depths:
            if self._halted.is_set():
                return
            _s, _pv, nodes, completed, _m, _sel = self.searcher.iterate(
                self.root.board, depth, -INF, INF, self.history, self.counters, 0.0, 0, True)
            self.nodes += nodes
            if not completed:
                return

    def halt(self) -> None:
        """Stop the helper; stop() is repeated in case it raced with the start of an iteration."""
        self._halted.set()
        for _ in range(200):
            self.searcher.stop()
            self.join(timeout=0.005)
            if not self.is_alive():
                return
