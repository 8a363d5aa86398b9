"""Drop-out expansion checked against a slow reference written independently: values by plain
recursive negamax over the scored positions, priorities by Dijkstra over the whole graph,
recomputed from scratch before every expansion."""
from __future__ import annotations

import heapq
import math

import pytest

from book_helpers import fake_score
from hub_engine.book.keys import negate, position_key
from hub_engine.book.tree import EXPANDED, LEAF, Tree
from hub_engine.rules.position import Position


class Reference:
    """The same build, the slow way: positions by Hub string, no keys, no incremental state."""

    def __init__(self, variant: str, roots: list[tuple[str, float]], w: float) -> None:
        self.variant, self.roots, self.w = variant, roots, w
        self.scored: dict[str, int] = {hub: fake_score(hub) for hub, _b in roots}
        self.order: list[str] = []

    def children(self, hub: str) -> list[str]:
        pos = Position.from_hub(self.variant, hub)
        return list(dict.fromkeys(pos.play(m).hub() for m in pos.legal_moves()))

    def expanded(self, hub: str) -> bool:
        kids = self.children(hub)
        return bool(kids) and all(c in self.scored for c in kids)

    def value(self, hub: str, seen=frozenset()) -> int:
        if not self.expanded(hub) or hub in seen:
            return self.scored[hub]
        return max(negate(self.value(c, seen | {hub})) for c in self.children(hub))

    def priorities(self) -> dict[str, float]:
        """Least cost from any root to each scored position (edge: 1 + w * gap)."""
        dist = {hub: base for hub, base in self.roots}
        heap = [(base, hub) for hub, base in self.roots]
        while heap:
            d, hub = heapq.heappop(heap)
            if d > dist.get(hub, math.inf) or not self.expanded(hub):
                continue
            kids = self.children(hub)
            vals = [negate(self.value(c)) for c in kids]
            best = max(vals)
            for c, v in zip(kids, vals):
                nd = d + 1 + self.w * (best - v)
                if nd < dist.get(c, math.inf):
                    dist[c] = nd
                    heapq.heappush(heap, (nd, c))
        return dist

    def candidates(self) -> set[str]:
        """The leaves DOE may expand next: a root not expanded yet (the first), else every
        leaf of least priority (ties are possible)."""
        fresh = [hub for hub, _b in self.roots if not self.expanded(hub)]
        if fresh:
            return {fresh[0]}
        prio = self.priorities()
        leaves = {hub: p for hub, p in prio.items()
                  if not self.expanded(hub) and self.children(hub)}
        least = min(leaves.values())
        return {hub for hub, p in leaves.items() if p <= least + 1e-9}

    def expand(self, leaf: str) -> None:
        for c in self.children(leaf):
            self.scored.setdefault(c, fake_score(c))
        self.order.append(leaf)


def run_tree(variant: str, roots: list[tuple[str, float]], w: float, steps: int | None = None,
             ref: Reference | None = None, line_plies: int = 0):
    """Drive a Tree for `steps` expansions (None: until it selects nothing, at most 200); with
    a reference, check each choice against it and expand the same leaf there."""
    tree = Tree(w, line_plies)
    hubs = {}
    for hub, base in roots:
        board = Position.from_hub(variant, hub).board
        key = tree.add_scored(board, fake_score(hub), 1)
        tree.add_root(key, hub, hub, base)
        hubs[key] = hub
    order = []
    while steps is None or len(order) < steps:
        key = tree.select()
        if key is None:
            assert steps is None, "nothing to expand"
            break
        assert len(order) < 200
        hub = Position(variant, tree.nodes[key].board).hub()
        if ref is not None:
            assert hub in ref.candidates()
            ref.expand(hub)
        order.append(hub)
        for c, board in tree.begin(key):
            tree.scoring.add(c)
            tree.add_scored(board, fake_score(Position(variant, board).hub()), 1)
    return tree, order


@pytest.mark.parametrize("variant,w", [("english", 0.01237), ("russian", 0.0313)])
def test_expansion_order_and_values_match_the_reference(variant, w):
    start = Position.start(variant)
    second = start.play(start.legal_moves()[-1]).hub()
    roots = [(start.hub(), 0.0), (second, 2.5)]
    ref = Reference(variant, roots, w)
    tree, order = run_tree(variant, roots, w, 40, ref)
    assert order == ref.order
    assert set(Position(variant, n.board).hub() for n in tree.nodes.values()) == set(ref.scored)
    for node in tree.nodes.values():
        hub = Position(variant, node.board).hub()
        assert node.value == ref.value(hub)
        assert (node.state == EXPANDED) == ref.expanded(hub)
    prio = ref.priorities()
    for hub, _base in roots:
        node = tree.nodes[position_key(Position.from_hub(variant, hub))]
        leaves = [p for h, p in prio.items() if not ref.expanded(h) and ref.children(h)]
        # a root's need is its least leaf cost below it: never below the global minimum
        assert node.need + _base >= min(leaves) - 1e-9


def test_loading_the_scores_gives_the_same_values_and_priorities():
    variant, w = "italian", 0.02
    start = Position.start(variant).hub()
    tree, _order = run_tree(variant, [(start, 0.0)], w, 30)
    again = Tree(w)
    again.load([(n.board, n.score, n.depth) for n in tree.nodes.values()])
    for key, node in tree.nodes.items():
        other = again.nodes[key]
        assert other.value == node.value
        assert other.state == node.state or (node.state == LEAF and other.state == EXPANDED)
        if node.state == EXPANDED:
            assert other.need == pytest.approx(node.need)


def test_pending_leaves_are_skipped_until_their_children_are_scored():
    variant = "english"
    start = Position.start(variant)
    tree = Tree(0.05)
    key = tree.add_scored(start.board, 0, 1)
    tree.add_root(key, start.hub(), "start", 0.0)
    assert tree.select() == key
    missing = tree.begin(key)
    assert len(missing) == len(start.legal_moves())
    assert tree.select() is None                   # the only leaf is under way
    for c, board in missing[:-1]:
        tree.add_scored(board, 5, 1)
    assert not tree.is_expanded(key)
    c, board = missing[-1]
    tree.add_scored(board, -20, 1)
    assert tree.is_expanded(key)
    assert tree.nodes[key].value == 20             # the move to the -20 child is best
    assert tree.select() == c                      # the best move's child is expanded next


def test_a_bad_weight_is_refused():
    for w in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            Tree(w)


@pytest.mark.parametrize("variant", ["english", "brazilian"])
def test_main_lines_are_made_deep_root_after_root(variant):
    """With line_plies, each root's main line (by the reference's slow negamax) is expanded that
    many plies deep, and then the phase ends; drop-out with as many expansions goes less deep."""
    plies = 5
    start = Position.start(variant)
    other = start.play(start.legal_moves()[0]).hub()
    roots = [(start.hub(), 0.0), (other, 10.0)]
    tree, order = run_tree(variant, roots, 0.25, line_plies=plies)
    ref = Reference(variant, roots, 0.25)
    for hub in order:
        ref.expand(hub)
    for hub, _base in roots:
        line = [hub]
        for _ in range(plies - 1):
            kids = ref.children(line[-1])
            line.append(max(kids, key=lambda c: negate(ref.value(c))))
        assert all(ref.expanded(h) for h in line)
        key = position_key(Position.from_hub(variant, hub))
        assert tree.line_depth(key) >= plies and not tree.line_is_short(key)
    wide, _order = run_tree(variant, roots, 0.25, len(order))
    assert wide.line_depth(position_key(start)) < plies
    with pytest.raises(ValueError):
        Tree(0.25, line_plies=-1)
