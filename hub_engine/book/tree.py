"""The drop-out expansion graph of a book build (Lincke 2001, "Strategies for the automatic
construction of opening books").

Nodes are positions keyed by book key (hub_engine.book.keys), so transpositions meet. Every node
has a search score. A node is *expanded* when all its children are scored; its value is then the
negamax of its children's values, else its own score. The cost of the edge from an expanded node
to a child is `1 + w * gap`, gap being how much worse the move is than the node's best move
(centi-men, the mover's view): the same formula for both sides. The priority of a leaf is the
cheapest path to it from a root, that is its depth plus w times the gaps summed along the path,
plus the root's base priority; the leaf of least priority is expanded next. A small w spreads the
book wide, a large w follows the best lines deep.

The priority is kept bottom-up, as `need(n)`: 0 at an expandable leaf, the least
`edge cost + need(child)` at an expanded node, infinite at a leaf whose expansion is under way or
that has no move. Selection then walks down from the root of least `base + need` along the
cheapest edges. After an expansion only the new node's ancestors are updated. Several leaves can
be under way at once (their need is infinite meanwhile), which is how several workers share a
build.

Cycles need king moves back and forth, rare in an opening book: the updates stop after a few
rounds over a cycle and the walk never enters a node twice.

Main lines (`line_plies` > 0): instead of the drop-out order, every root's main line (the best
move, then the best reply, ...) is made `line_plies` plies deep, root after root: the leaf where a
root's line leaves the expanded positions is expanded next. A line changes as values come back,
so before each expansion the roots' lines are walked again in the roots' order (a line that a
later root's scores moved is made deep again first); the phase ends when no root has a short
line (a line ending in a position with no move, or in a cycle, counts as complete).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hub_engine.book.keys import board_key, negate

INF = math.inf
LEAF, PENDING, EXPANDED, TERMINAL = 0, 1, 2, 3
MAX_ROUNDS = 8            # updates of one node per propagation (cycles)
DEFAULT_W = 0.25          # plies per centi-man: a move 4 centi-men worse counts as one ply more


def potential(board) -> tuple[int, int]:
    """(pieces, men's rows to go): every move but a king's quiet move lowers it, so children
    come before parents when nodes are sorted by it."""
    men0, kings0, men1, kings1 = board.pieces()
    rows = sum(7 - s // 4 for s in men0) + sum(s // 4 for s in men1)
    return len(men0) + len(kings0) + len(men1) + len(kings1), rows


def children_of(board) -> list[tuple[int, object]]:
    """(key, board) of each distinct position one legal move away, in the core's move order."""
    out, seen = [], set()
    for f, t, c, p, _k in board.legal_moves():
        child = board.play(f, t, c, p)
        key = board_key(child)
        if key not in seen:
            seen.add(key)
            out.append((key, child))
    return out


class Node:
    __slots__ = ("board", "score", "depth", "children", "parents", "state", "value", "need",
                 "missing")

    def __init__(self, board, score: int, depth: int, children: tuple[int, ...]) -> None:
        self.board = board
        self.score = score
        self.depth = depth                 # the scoring search's depth
        self.children = children           # child keys, in the core's move order
        self.parents: list[int] = []       # expanded nodes that have this one as a child
        self.state = LEAF if children else TERMINAL
        self.value = score
        self.need = 0.0 if children else INF
        self.missing: set[int] = set()     # children still to score while PENDING


@dataclass(frozen=True)
class Root:
    key: int
    hub: str
    label: str
    base: float                            # base priority (0 for the start position)


class Tree:
    """The book graph of one rule-set; `w` weighs a move's gap against depth."""

    def __init__(self, w: float = DEFAULT_W, line_plies: int = 0) -> None:
        if not (w >= 0 and math.isfinite(w)):
            raise ValueError(f"the gap weight w must be a finite number >= 0, not {w}")
        if line_plies < 0:
            raise ValueError(f"the main lines' plies must be >= 0, not {line_plies}")
        self.w = w
        self.line_plies = line_plies
        self.nodes: dict[int, Node] = {}
        self.roots: dict[int, Root] = {}
        self.waiting: dict[int, list[int]] = {}   # unscored child -> pending parents
        self.fresh_roots: list[int] = []          # roots not yet expanded, in order
        self.scoring: set[int] = set()            # positions whose search is under way

    # -- building up ---------------------------------------------------------------------------
    def add_root(self, key: int, hub: str, label: str, base: float) -> bool:
        """Add a root (False when it is one already, e.g. a ballot listed twice)."""
        if key in self.roots:
            return False
        self.roots[key] = Root(key, hub, label, base)
        self.fresh_roots.append(key)
        return True

    def add_scored(self, board, score: int, depth: int) -> int:
        """Add a scored position (a leaf); returns its key. Pending parents that were waiting
        for it are expanded when it was their last missing child."""
        key = board_key(board)
        self.scoring.discard(key)
        if key in self.nodes:
            return key
        self.nodes[key] = Node(board, score, depth, tuple(k for k, _b in children_of(board)))
        for parent in self.waiting.pop(key, ()):
            p = self.nodes[parent]
            p.missing.discard(key)
            if not p.missing and p.state == PENDING:
                self._finish(parent)
        return key

    def load(self, boards: list[tuple[object, int, int]]) -> None:
        """Add many scored positions at once (a resumed build): the nodes whose children are
        all scored are expanded, and values and priorities computed children first."""
        for board, score, depth in boards:
            key = board_key(board)
            if key not in self.nodes:
                self.nodes[key] = Node(board, score, depth,
                                       tuple(k for k, _b in children_of(board)))
        expanded = [k for k, n in self.nodes.items()
                    if n.state == LEAF and all(c in self.nodes for c in n.children)]
        for k in expanded:
            n = self.nodes[k]
            n.state = EXPANDED
            for c in n.children:
                self.nodes[c].parents.append(k)
        expanded.sort(key=lambda k: potential(self.nodes[k].board))
        for _ in range(2):                      # the second round settles king-move cycles
            for k in expanded:
                self._recompute(self.nodes[k])

    # -- expansion -----------------------------------------------------------------------------
    def select(self) -> int | None:
        """The leaf to expand next: a root not yet expanded, else (main lines) the end of a
        root's short main line, else the leaf of least priority; None when nothing can be
        expanded now (in the main-line phase: when every line is complete or waits on a search)."""
        i = 0
        while i < len(self.fresh_roots):
            key = self.fresh_roots[i]
            node = self.nodes.get(key)
            if node is None:
                if key not in self.scoring:
                    return key                  # an unscored root: the caller scores it
                i += 1
            elif node.state == LEAF:
                return key
            else:
                self.fresh_roots.pop(i)         # expanded, under way or terminal
        if self.line_plies:
            return self._short_line()
        best, best_root = INF, None
        for root in self.roots.values():
            node = self.nodes.get(root.key)
            if node is not None and root.base + node.need < best:
                best, best_root = root.base + node.need, root.key
        return None if best_root is None else self._walk(best_root)

    def _walk(self, key: int) -> int | None:
        seen = {key}
        node = self.nodes[key]
        while node.state == EXPANDED:
            choice, cost = None, INF
            for c, gap in self._gaps(node):
                child = self.nodes[c]
                if c in seen or child.need == INF:
                    continue
                total = 1 + self.w * gap + child.need
                if total < cost:
                    choice, cost = c, total
            if choice is None:
                return None
            seen.add(choice)
            key, node = choice, self.nodes[choice]
        return key if node.state == LEAF else None

    def _short_line(self) -> int | None:
        """The leaf ending the first root's short main line (roots in their order, so a line that
        a later root's scores moved is made deep again before the next root's)."""
        for key in self.roots:
            leaf, _waiting = self._line_leaf(key)
            if leaf is not None:
                return leaf
        return None

    def _line_leaf(self, key: int) -> tuple[int | None, bool]:
        """(the leaf where the main line from `key` stops short of line_plies, whether the line
        waits on a search under way)."""
        seen = {key}
        for _ply in range(self.line_plies):
            node = self.nodes.get(key)
            if node is None or node.state == PENDING:
                return None, True
            if node.state == LEAF:
                return key, False
            if node.state == TERMINAL:
                return None, False
            key = self.best_child(key)
            if key in seen:
                return None, False
            seen.add(key)
        return None, False

    def line_is_short(self, key: int) -> bool:
        """Whether the main line from `key` is under line_plies and can be made longer."""
        leaf, waiting = self._line_leaf(key)
        return leaf is not None or waiting

    def line_depth(self, key: int) -> int:
        """How many moves of the main line from `key` the book plays (expanded positions on it)."""
        return sum(1 for k in [key, *self.main_line(key)] if self.is_expanded(k))

    def begin(self, key: int) -> list[tuple[int, object]]:
        """Start expanding leaf `key`: (key, board) of its children still to score that no
        search is scoring yet (the caller scores them, marks them in `scoring` and adds them).
        With no child missing, the expansion is done at once."""
        node = self.nodes[key]
        if node.state != LEAF:
            raise ValueError("only a scored leaf can be expanded")
        missing = [(c, b) for c, b in children_of(node.board) if c not in self.nodes]
        node.state = PENDING
        node.missing = {c for c, _b in missing}
        if not missing:
            self._finish(key)
            return []
        for c, _b in missing:
            self.waiting.setdefault(c, []).append(key)
        self._set(node, node.value, INF)
        return [(c, b) for c, b in missing if c not in self.scoring]

    def _finish(self, key: int) -> None:
        node = self.nodes[key]
        node.state = EXPANDED
        for c in node.children:
            self.nodes[c].parents.append(key)
        value, need = self._values(node)
        self._set(node, value, need)

    # -- values and priorities -----------------------------------------------------------------
    def _gaps(self, node: Node):
        """(child key, gap to the best move in centi-men) for an expanded node's children."""
        values = [negate(self.nodes[c].value) for c in node.children]
        best = max(values)
        return [(c, best - v) for c, v in zip(node.children, values)]

    def _values(self, node: Node) -> tuple[int, float]:
        values = [negate(self.nodes[c].value) for c in node.children]
        best = max(values)
        need = min((1 + self.w * (best - v) + self.nodes[c].need
                    for c, v in zip(node.children, values)), default=INF)
        return best, need

    def _recompute(self, node: Node) -> bool:
        if node.state != EXPANDED:
            return False
        value, need = self._values(node)
        if value == node.value and need == node.need:
            return False
        node.value, node.need = value, need
        return True

    def _set(self, node: Node, value: int, need: float) -> None:
        """Give a node a new value and need, and update its ancestors."""
        node.value, node.need = value, need
        rounds: dict[int, int] = {}
        queue = list(node.parents)
        while queue:
            k = queue.pop()
            rounds[k] = rounds.get(k, 0) + 1
            if rounds[k] > MAX_ROUNDS:
                continue
            parent = self.nodes[k]
            if self._recompute(parent):
                queue.extend(parent.parents)

    # -- reading -------------------------------------------------------------------------------
    def is_expanded(self, key: int) -> bool:
        node = self.nodes.get(key)
        return node is not None and node.state == EXPANDED

    def best_child(self, key: int) -> int | None:
        node = self.nodes.get(key)
        if node is None or node.state != EXPANDED:
            return None
        return max(node.children, key=lambda c: negate(self.nodes[c].value))

    def main_line(self, key: int) -> list[int]:
        """The keys along the best moves from `key` while positions are expanded."""
        line, seen = [], {key}
        while True:
            c = self.best_child(key)
            if c is None or c in seen:
                return line
            line.append(c)
            seen.add(c)
            key = c

    def counts(self) -> dict[str, int]:
        states = [n.state for n in self.nodes.values()]
        return {"scored": len(states), "expanded": states.count(EXPANDED),
                "pending": states.count(PENDING)}
