"""Move-quality figures: per side of a game and per player across the games.

A move counts when the analysis scored it (its record has a `loss`). The average loss counts each
move's loss at most LOSS_CAP men, so that a thrown-away win (a loss near 100 on the win scale)
weighs as one bad move rather than swamping every other move of the player.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hub_engine.quality import CLASSES
from hub_engine.report.records import Collection

LOSS_CAP = 5.0
UNNAMED = "(no name)"


@dataclass
class Quality:
    """Moves, loss and class counts of one side of a game, or of a player."""

    moves: int = 0
    loss: float = 0.0                       # sum of the capped losses
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    games: int = 0

    def add_record(self, rec: dict) -> None:
        if rec.get("played") is None or rec.get("loss") is None:
            return
        self.moves += 1
        self.loss += min(float(rec["loss"]), LOSS_CAP)
        if rec.get("class") in self.counts:
            self.counts[rec["class"]] += 1

    def add(self, other: "Quality") -> None:
        self.moves += other.moves
        self.loss += other.loss
        for c in CLASSES:
            self.counts[c] += other.counts[c]
        self.games += 1

    @property
    def average(self) -> float | None:
        return round(self.loss / self.moves, 2) if self.moves else None

    def row(self) -> list:
        """[moves, average loss, inaccuracies, mistakes, blunders] for the page's data."""
        return [self.moves, self.average] + [self.counts[c] for c in CLASSES]


def sides(c: Collection) -> dict[str, Quality]:
    """Quality of the white and the black moves of one collection."""
    out = {"white": Quality(), "black": Quality()}
    for rec in c.records:
        if rec.get("side") in out:
            out[rec["side"]].add_record(rec)
    return out


def player_name(tags: dict[str, str], side: str) -> str:
    name = tags.get(side.capitalize(), "").strip()
    return name if name and name != "?" else UNNAMED


def players(games: list[tuple[Collection, dict[str, str]]]) -> list[tuple[str, Quality]]:
    """Per player name (the White / Black tags), the quality of their moves over all games;
    sorted by name, unnamed players last."""
    table: dict[str, Quality] = {}
    for c, tags in games:
        for side, q in sides(c).items():
            table.setdefault(player_name(tags, side), Quality()).add(q)
    return sorted(table.items(), key=lambda item: (item[0] == UNNAMED, item[0].casefold(), item[0]))


def totals(cols: list[Collection]) -> Quality:
    q = Quality()
    for c in cols:
        for rec in c.records:
            q.add_record(rec)
    return q
