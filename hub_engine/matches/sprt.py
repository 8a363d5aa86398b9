"""Sequential probability ratio test for engine matches (the generalised SPRT of fishtest).

H0: the Elo difference is elo0; H1: it is elo1 (logistic Elo, score = 1 / (1 + 10^(-elo/400))).
After each game (trinomial: win / draw / loss) or each pair of games played from one opening
with the colours swapped (pentanomial: the pair's score 0, 1/4, 1/2, 3/4 or 1), the log-likelihood
ratio is

    LLR = N * sum_j f_j * log(p1_j / p0_j)

where f_j are the observed frequencies of the outcomes and p0, p1 the distributions closest to
them (maximum likelihood) whose mean score is the score of elo0, elo1 (Michel Van den Bergh's
GSPRT). The test stops when LLR leaves (log(beta / (1 - alpha)), log((1 - beta) / alpha)):
below, H0 is accepted; above, H1. alpha is the chance of accepting H1 when H0 holds, beta that of
accepting H0 when H1 holds. A tiny pseudo-count in every cell keeps the LLR finite when an
outcome has not occurred yet.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

TRINOMIAL = (0.0, 0.5, 1.0)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
PSEUDO = 1e-3


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: below accept H0, above accept H1."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be between 0 and 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _mle(freq: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution on `values` of mean s that is closest (max likelihood) to freq."""
    d = [v - s for v in values]
    lo = -1.0 / max(d) if max(d) > 0 else -1e12
    hi = -1.0 / min(d) if min(d) < 0 else 1e12
    lo, hi = lo + 1e-12 * abs(lo), hi - 1e-12 * abs(hi)

    def g(lam: float) -> float:       # decreasing in lam; its root gives the mean-s distribution
        return sum(f * x / (1.0 + lam * x) for f, x in zip(freq, d))

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if g(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    p = [f / (1.0 + lam * x) for f, x in zip(freq, d)]
    total = sum(p)
    return [x / total for x in p]


def llr(counts: Sequence[float], elo0: float, elo1: float,
        values: Sequence[float] = TRINOMIAL) -> float:
    """The log-likelihood ratio of H1 against H0 for outcome counts (ordered as values)."""
    if len(counts) != len(values):
        raise ValueError(f"{len(values)} outcome counts expected, got {len(counts)}")
    n = sum(counts)
    if n <= 0:
        return 0.0
    c = [x + PSEUDO for x in counts]
    total = sum(c)
    freq = [x / total for x in c]
    p0 = _mle(freq, values, elo_to_score(elo0))
    p1 = _mle(freq, values, elo_to_score(elo1))
    return n * sum(f * math.log(a / b) for f, a, b in zip(freq, p1, p0) if f > 0)


@dataclass
class SPRT:
    """The running test; feed it game results (1, 0.5, 0) in order, from engine 1's view.

    With pairs=True the results are taken two by two (one opening, both colours) and tested as
    pentanomial outcomes, which accounts for the correlation within a pair; an unfinished pair
    waits for its second game."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    pairs: bool = True
    results: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.elo1 <= self.elo0:
            raise ValueError("the SPRT needs elo0 < elo1")
        self.lower, self.upper = bounds(self.alpha, self.beta)

    def add(self, result: float) -> None:
        if result not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game result is 1, 0.5 or 0, not {result}")
        self.results.append(result)

    def counts(self) -> list[int]:
        if not self.pairs:
            return [sum(1 for r in self.results if r == v) for v in TRINOMIAL]
        out = [0] * 5
        for i in range(0, len(self.results) - 1, 2):
            out[round(2 * (self.results[i] + self.results[i + 1]))] += 1
        return out

    def llr(self) -> float:
        return llr(self.counts(), self.elo0, self.elo1,
                   PENTANOMIAL if self.pairs else TRINOMIAL)

    def status(self) -> str | None:
        """'H1' (accepted: the gain is elo1 or more), 'H0', or None while undecided."""
        value = self.llr()
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def line(self) -> str:
        state = self.status()
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[state]
        # the outcome counts the LLR is made of, as fishtest shows them: with them a test can be
        # reported, and checked, without its state file
        cells = ",".join(str(x) for x in self.counts())
        kind = "ptnml(0-2)" if self.pairs else "trinomial(0,1/2,1)"
        return (f"sprt elo0={self.elo0:g} elo1={self.elo1:g} llr={self.llr():.2f} "
                f"bounds=[{self.lower:.2f}, {self.upper:.2f}] {verdict} {kind}={cells}")
