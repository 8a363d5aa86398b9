"""Root decisions: what happens at the root of a search apart from the search itself.

Three steps, in the order the engine takes them for each `go`:

1. `answer_at_once`: a move without any search (no legal move, a forced move under a limit, and
   the place where an opening book is consulted).
2. `plan`: how the search is run: how many lines each iteration searches (MultiPV, a skill
   level's candidates), the depth and node bounds, and the endgame tables' root rule (at a root
   inside the tables only the moves that keep its value are searched).
3. `skill_choice`: below skill 20, which of the candidate lines is played.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from hub_engine.core import score_to_hub
from hub_engine.engine import skill
from hub_engine.engine.params import Settings
from hub_engine.rules.position import Game, Move
from protocol import Info, Limits, SearchResult

MAX_DEPTH = 100           # `level depth=` is clamped to 1..MAX_DEPTH
MAX_NODES = 10**18        # ... and `nodes=` to 1..MAX_NODES (the core counts in 64 bits)

# An opening book: the move to play in a game's position, its book score (men, the side to
# move's view) and the book's best reply to it (or None), or None when the book has no move.
Book = Callable[[Game], "tuple[Move, float, Move | None] | None"]

# A line of an iteration: (score in internal units, legal moves, mean depth reached)
Line = tuple[int, list, float]


def search_bounds(limits: Limits) -> tuple[int, int]:
    """(max depth, node limit or 0 for none) of `level` limits.

    Huge values are clamped; `depth` or `nodes` of 0 or less mean the smallest search (the
    1-ply iteration, answered at once), as Scan answers `depth=0` with an instant move.
    """
    depth = MAX_DEPTH if limits.depth is None else max(1, min(limits.depth, MAX_DEPTH))
    nodes = 0 if limits.nodes is None else max(1, min(limits.nodes, MAX_NODES))
    return depth, nodes


START_MEN = 24            # men on an 8x8 board at the start of a game


def phase(game: Game) -> float:
    """How far the game is from its start (0, every man on the board) to its end (1, no men
    left), as the clock's share of moves to go reads it (timeman.budget)."""
    men0, _kings0, men1, _kings1 = game.position.board.pieces()
    return 1.0 - min(START_MEN, len(men0) + len(men1)) / START_MEN


def wants_lines(settings: Settings) -> bool:
    """Whether searches need more than one line (MultiPV, or a skill level's candidates), and
    so the second searcher that searches the lines after the best."""
    return settings.multipv > 1 or settings.skill < skill.MAX_SKILL


def answer_at_once(game: Game, limits: Limits, mode: str, notation: str,
                   book: Book | None = None,
                   on_info: Callable[[Info], None] | None = None) -> SearchResult | None:
    """The answer to `go` when no search is needed, else None (search).

    - No legal move: the empty answer, whatever the mode (the game is over).
    - `go think` with one legal move and some limit: that move (`go analyze`, `go ponder` and
      an unlimited `go think` still search, to show a score and a line).
    - `go think` with a `book`: the book's move when it has one. This is where an opening
      book is consulted, before any search and before the clock is armed; a book move is
      answered at once, after one `info` line with its score and `depth=0 nodes=0` (no search);
      the book's best reply, when it has one, is the ponder move.
    """
    legal = game.position.legal_moves()
    if not legal:
        return SearchResult(None)
    if mode != "think":
        return None
    if len(legal) == 1 and not limits.is_unlimited():
        return SearchResult(legal[0].hub(notation))
    booked = from_book(game, notation, book)
    if booked is not None:
        result, info = booked
        if on_info is not None:
            on_info(info)
        return result
    return None


def from_book(game: Game, notation: str, book: Book | None) -> tuple[SearchResult, Info] | None:
    """The book's answer here and its `info` (depth 0, nodes 0: no search; the pv is the move
    and the book's best reply, which is also the ponder move), or None."""
    found = book(game) if book is not None else None
    if found is None:
        return None
    move, score, reply = found
    if move not in game.position.legal_moves():
        raise ValueError(f"the book's move {move} is not legal here")
    pv = [move.hub(notation)] + ([reply.hub(notation)] if reply is not None else [])
    return (SearchResult(pv[0], pv[1] if len(pv) > 1 else None),
            Info(depth=0, score=score, nodes=0, time=0.0, pv=pv))


@dataclass(frozen=True)
class Plan:
    """How one search is run (from the settings, the limits and the root)."""

    lines: int          # lines each iteration searches: the best, then the next best, ...
    max_depth: int      # the last iteration
    node_limit: int     # nodes of the whole search, 0 for none
    weak: bool          # a skill level below 20 chooses among the lines


def plan(settings: Settings, game: Game, limits: Limits, mode: str, searchers: list) -> Plan:
    """The search plan; also restricts `searchers`' root moves to what the tables allow."""
    weak = settings.skill < skill.MAX_SKILL and mode != "analyze"
    max_depth, node_limit = search_bounds(limits)
    wanted = max(settings.multipv, skill.CANDIDATES if weak else 1)
    lines = max(1, min(wanted, len(game.position.legal_moves())))
    cap = skill.node_budget(settings.skill) if weak else None
    if cap is not None:
        node_limit = min(node_limit, cap) if node_limit else cap
    if settings.tables.prepare_root(searchers, game):
        max_depth = 1      # every move's exact distance is one probe away
    for s in searchers:
        # a draw costs the side to move `contempt` when it plays, and table draws lean towards
        # the side to move's evaluation (switch tb_draw); analysis has no side
        s.contempt = 0 if mode == "analyze" else settings.contempt
        s.playing = int(mode != "analyze")
    return Plan(lines, max_depth, node_limit, weak)


def skill_choice(pv: list, lines: list[Line], last: Info, depth: int, level: int,
                 rng: random.Random, notation: str,
                 on_info: Callable[[Info], None]) -> list:
    """A skill level's line among the last iteration's `lines` (best first; `pv` is the best
    line played at full strength). When it is not the best line, one more `info` (`last`, the
    last one reported, with the chosen line) shows it: a client keeps the last one."""
    if len(lines) <= 1:
        return pv
    k = skill.choose([score_to_hub(line[0]) for line in lines], level, rng)
    if k == 0:
        return pv
    line_score, chosen, mean_depth = lines[k]
    on_info(replace(last, depth=depth, mean_depth=mean_depth, score=score_to_hub(line_score),
                    multipv=None, pv=[m.hub(notation) for m in chosen]))
    return chosen
