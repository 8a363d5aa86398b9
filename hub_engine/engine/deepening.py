"""Iterative deepening with aspiration windows, one compiled iteration at a time.

The search itself runs in the compiled core without the GIL, one iteration per call, so that
the loop over depths, the aspiration windows, the time decisions and the `info` reports are
readable Python between iterations.
"""
from __future__ import annotations

import time
from typing import Callable

from hub_engine.core import INF, MATE, Searcher, score_to_hub
from hub_engine.engine.clock import Clock
from hub_engine.engine.root import Line, Plan
from hub_engine.engine.threads import Searchers
from hub_engine.engine.timeman import Stability
from hub_engine.rules.position import Game, Position
from protocol import Info

ASPIRATION = 25            # first window half-width, internal units (man = 100)


class Deepening:
    """One search: iterative deepening on the main searcher, helpers running lazy SMP beside it.

    With `multipv` N > 1 (or a skill level's candidates) each iteration searches N lines: the
    best, then the best without the first moves found so far, each with its own aspiration
    window (exact scores). The lines after the best are searched by a searcher with its own
    table and heuristics, so the best line is exactly the one multipv 1 finds; a later line that
    this second search finds better than the best (search paths differ) is shown level with it,
    so the scores stay ordered and the move played is the best line's. The `info` lines
    (`multipv=k`) come worst first and the best last, so a client that keeps only the last
    `info` line still sees the best line.
    """

    def __init__(self, searchers: Searchers, clock: Clock, plan: Plan, notation: str,
                 multipv: int, on_info: Callable[[Info], None]) -> None:
        self.searchers, self.clock, self.plan = searchers, clock, plan
        self.notation, self.multipv, self.on_info = notation, multipv, on_info
        self.best: list = []               # the best line so far (read by other threads)
        self.last_lines: list[Line] = []   # the last completed iteration's lines
        self.last_depth = 0
        self.last_info = Info()            # the last `info` reported
        self._texts: dict[int, tuple] = {}  # id(Move) -> (Move, Hub string): lines repeat

    def run(self, game: Game, mode: str) -> list:
        """The best line found (legal moves), [] when not even depth 1 gave one."""
        root = game.position
        main, halt = self.searchers.main, self.searchers.halt
        history = game.history_hashes()[:-1]
        counters = game.counters
        node_limit, n_lines = self.plan.node_limit, self.plan.lines
        helpers = self.searchers.start_helpers(root, history, counters, self.plan.max_depth)
        t0 = time.monotonic()
        nodes = 0
        best_pv: list = []
        score = 0
        guesses: list[int] = []          # each line's score in the last iteration
        stability = Stability()
        legal = LegalLines(root)
        try:
            for depth in range(1, self.plan.max_depth + 1):
                if depth > 1 and halt.is_set():
                    break
                if node_limit and nodes >= node_limit:
                    break
                # depth 1 is always completed, whatever the limits: never an unsearched move
                deadline = self.clock.deadline() if depth > 1 else 0.0
                lines: list[Line] = []
                completed = True
                for k in range(n_lines):
                    left = max(1, node_limit - nodes) if node_limit and depth > 1 else 0
                    guess = guesses[k] if k < len(guesses) else score
                    exclude = [(pv[0].frm, pv[0].to, pv[0].captured, pv[0].promote)
                               for _s, pv, _m in lines]
                    searcher = main if k == 0 else self.searchers.lines
                    ceiling = lines[0][0] if lines else None
                    result, used = self.aspirate(searcher, root, depth, guess, history,
                                                 counters, deadline, left, exclude, ceiling)
                    nodes += used
                    it_score, pv_moves, done, mean_depth = result
                    pv = legal(pv_moves)
                    if pv and (done or k == 0):
                        lines.append((it_score, pv, mean_depth))
                    if not done or not pv:
                        completed = False
                        break
                if not lines:
                    break
                lines[1:] = sorted(lines[1:], key=lambda line: -line[0])   # the best stays first
                it_score, pv, mean_depth = lines[0]
                if completed or not best_pv or pv[0] != best_pv[0]:
                    prev = score
                    best_pv, score = pv, it_score
                    self.best = best_pv
                    self.report(depth, lines[:self.multipv] if completed else lines[:1],
                                nodes + sum(h.nodes for h in helpers), t0)
                if completed or not self.last_lines:
                    self.last_lines, self.last_depth = lines, depth
                if not completed:
                    break
                guesses = [line[0] for line in lines]
                factor = stability.update(best_pv[0].key(), prev - score)
                if self.should_stop(mode, factor, score, depth):
                    break
        finally:
            for h in helpers:
                h.halt()
        return best_pv

    def report(self, depth: int, lines: list[Line], nodes: int, t0: float) -> None:
        """One `info` per line, the best last; `multipv=k` only when MultiPV is on."""
        elapsed = time.monotonic() - t0
        nps = nodes / elapsed if elapsed > 0 else None
        for k in range(len(lines), 0, -1):
            line_score, pv, mean_depth = lines[k - 1]
            self.last_info = Info(depth=depth, mean_depth=mean_depth,
                                  score=score_to_hub(line_score), nodes=nodes, time=elapsed,
                                  nps=nps, pv=[self.text(m) for m in pv],
                                  multipv=k if self.multipv > 1 else None)
            self.on_info(self.last_info)

    def text(self, move) -> str:
        """The move's Hub string, made once per search (each iteration's line mostly repeats
        the last one's moves, the same objects: see LegalLines)."""
        known = self._texts.get(id(move))
        if known is None or known[0] is not move:
            known = self._texts[id(move)] = (move, move.hub(self.notation))
        return known[1]

    def aspirate(self, searcher: Searcher, root: Position, depth: int, guess: int,
                 history: list, counters: tuple, deadline: float, node_limit: int,
                 exclude: list | None = None, ceiling: int | None = None):
        """One iteration with an aspiration window around the last score (root moves in
        `exclude` left out). With a `ceiling`, a score above it is not searched for: the
        result is then `ceiling` (MultiPV's later lines are never shown above the best)."""
        delta = ASPIRATION
        top = INF if ceiling is None else ceiling + 1
        if depth >= 4 and abs(guess) < MATE - 1000:
            alpha, beta = guess - delta, min(guess + delta, top)
            if alpha >= beta:
                alpha = beta - delta
        else:
            alpha, beta = -INF, top
        used = 0
        while True:
            if depth > 1 and self.searchers.halt.is_set():
                return (guess, [], False, 0.0), used
            score, pv, nodes, completed, mean_depth, _sel = searcher.iterate(
                root.board, depth, alpha, beta, history, counters, deadline,
                max(1, node_limit - used) if node_limit else 0, False, exclude or ())
            used += nodes
            if not completed:
                # cut short: its move is news only when it was proven above alpha; a fail-low
                # in progress says nothing about which move is best (the last iteration's stays)
                return (score, pv if score > alpha else [], False, mean_depth), used
            if score <= alpha and alpha > -INF:
                alpha = max(-INF, score - delta)
                if ceiling is None and deadline:
                    # the root failed low: the re-search may run to the longer limit
                    deadline = max(deadline, self.clock.deadline(fail_low=True))
            elif score >= beta and beta == top and ceiling is not None:
                return (ceiling, pv, True, mean_depth), used
            elif score >= beta and beta < INF:
                beta = min(top, score + delta)
            else:
                return (score, pv, True, mean_depth), used
            delta *= 3
            if delta > 400:
                alpha, beta = -INF, top

    def should_stop(self, mode: str, factor: float, score: int, depth: int) -> bool:
        """After a completed iteration: is another one worth starting?"""
        if self.searchers.halt.is_set():
            return True
        if mode == "think" and abs(score) >= MATE - 1000 and depth > MATE - abs(score) + 2:
            return True    # a proven result does not get better with depth
        return self.clock.soft_limit_passed(factor)


class LegalLines:
    """The core's lines as legal Moves from one root, cut at the first move that is not legal
    (a stale table hit). Each iteration's line mostly repeats the last one's, so the moves and
    positions along earlier lines are kept (a tree of them) and only the new part is played."""

    def __init__(self, root: Position) -> None:
        self.root = root
        self._tree: dict = {}        # move key -> (Move, Position after it, subtree)

    def __call__(self, pv_moves: list) -> list:
        out = []
        pos, tree = self.root, self._tree
        for frm, to, captured, promote in pv_moves:
            key = (frm, to, tuple(captured), bool(promote))
            node = tree.get(key)
            if node is None:
                match = [m for m in pos.legal_moves()
                         if m.frm == frm and m.to == to and m.captured == key[2]
                         and m.promote == key[3]]
                if not match:
                    break
                node = tree[key] = (match[0], pos.play(match[0]), {})
            move, pos, tree = node
            out.append(move)
        return out

