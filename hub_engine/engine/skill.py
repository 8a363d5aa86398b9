"""Skill levels 1-20: weaker play that still looks like play.

Level 20 is the engine at full strength. Below it the engine plays like a weaker player rather
than a random one: it sees less (a node budget that shrinks by a constant factor per level), it
judges less exactly (noise on the scores of its candidate moves), and it does not always pick
its best candidate (a choice among the best few moves whose probability falls with the score
they give away). Every candidate is a legal root move, so forced captures and the rules stay
as they are, and the clock still bounds the search, so a weak level never loses on time.
"""
from __future__ import annotations

import math
import random

MAX_SKILL = 20
CANDIDATES = 4            # best lines searched (MultiPV) to choose from below level 20
NODES_AT_1 = 200          # node budget at level 1 ...
NODES_FACTOR = 1.6        # ... times this per level: 1.3 k at 5, 14 k at 10, 145 k at 15
NOISE_AT_1 = 0.40         # men: standard deviation of the score noise at level 1, to 0 at 20
TEMPERATURE_AT_1 = 0.60   # men: softmax temperature of the choice at level 1, to 0 at 20


def _weakness(skill: int) -> float:
    """1.0 at level 1, 0.0 at level 20."""
    return (MAX_SKILL - skill) / (MAX_SKILL - 1)


def node_budget(skill: int) -> int | None:
    """Nodes a move may search at this level; None at full strength."""
    if skill >= MAX_SKILL:
        return None
    return int(NODES_AT_1 * NODES_FACTOR ** (skill - 1))


def choose(scores: list[float], skill: int, rng: random.Random) -> int:
    """Index of the candidate to play, given the candidates' scores in men (best first).

    Each score gets Gaussian noise, then a candidate is drawn with probability proportional
    to exp(-(best - score) / temperature); at level 20 it is always the first.
    """
    if skill >= MAX_SKILL or len(scores) <= 1:
        return 0
    w = _weakness(skill)
    noisy = [s + rng.gauss(0.0, NOISE_AT_1 * w) for s in scores]
    top = max(noisy)
    temperature = max(1e-6, TEMPERATURE_AT_1 * w)
    weights = [math.exp(-(top - s) / temperature) for s in noisy]
    return rng.choices(range(len(scores)), weights=weights)[0]
