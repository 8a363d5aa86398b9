"""When the drawn games of a match were settled: `python -m hub_engine.matches.settled GAMES.pdn
[--variant V] [--depth 40] [--within 0.2]`.

A match's PDN (`hub-engine match --pdn-output`) carries each searched move's score and depth in
its comment (`+0.02/42 0.471s`, the mover's view in men). A search that reaches depth D at a score
within W men of level has seen every line end in a draw (tables, repetitions, the move-count
rules) or near it: for that player the game was settled there, whatever moves were still to come.
For each player it prints its drawn games, how many it saw settled and at which plies (median,
quartiles); a draw it never saw settled is counted apart. Draws settled early were decided by the
opening and the middlegame, not by how an ending was played.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field

from hub_engine.matches.engines import comment_score
from hub_engine.rules.pdn import iter_pdn_file

DRAWS = ("1/2-1/2", "1-1")


@dataclass
class PlayerDraws:
    """One player's drawn games: the ply each was first seen settled, or None."""

    name: str
    settled: list[int] = field(default_factory=list)
    unsettled: int = 0

    @property
    def games(self) -> int:
        return len(self.settled) + self.unsettled

    def summary(self) -> str:
        line = f"{self.name}: draws={self.games} settled={len(self.settled)} unsettled={self.unsettled}"
        if len(self.settled) >= 2:
            q1, median, q3 = statistics.quantiles(self.settled, n=4, method="inclusive")
            line += f" ply: median={median:g} quartiles={q1:g}-{q3:g} first={min(self.settled)}"
        elif self.settled:
            line += f" ply={self.settled[0]}"
        return line


def settled_ply(game, depth: int, within: float) -> dict[str, int | None]:
    """For each player of a game, the first ply at which its comment shows a search of at least
    `depth` plies scoring within `within` men of level (None: never)."""
    at: dict[str, int | None] = {game.tags.get("White", "White"): None,
                                 game.tags.get("Black", "Black"): None}
    # the movers alternate from the start's side: the reader has already replayed the moves
    first = game.start.side_name.capitalize()
    colours = (first, "Black" if first == "White" else "White")
    for ply, rec in enumerate(game.moves):
        said = comment_score(rec.comment)
        if said is None or said[1] < depth or abs(said[0]) > within:
            continue
        colour = colours[ply % 2]
        player = game.tags.get(colour, colour)
        if at.get(player) is None:
            at[player] = ply
    return at


def scan(path: str, variant: str = "russian", depth: int = 40,
         within: float = 0.2) -> dict[str, PlayerDraws]:
    """Every player's drawn games of a PDN file, with the ply each was first seen settled."""
    players: dict[str, PlayerDraws] = {}
    for game in iter_pdn_file(path, variant):
        result = game.tags.get("Result", game.result or "*")
        if game.start is None or result not in DRAWS:
            continue
        for name, ply in settled_ply(game, depth, within).items():
            p = players.setdefault(name, PlayerDraws(name))
            if ply is None:
                p.unsettled += 1
            else:
                p.settled.append(ply)
    return players


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hub_engine.matches.settled",
                                 description="When the drawn games of a match PDN were settled, "
                                             "by each player's own searches")
    ap.add_argument("pdn", help="a PDN file written by hub-engine match --pdn-output")
    ap.add_argument("--variant", default="russian",
                    help="rules of games without a GameType tag (default russian)")
    ap.add_argument("--depth", type=int, default=40,
                    help="a search at least this deep ... (default 40)")
    ap.add_argument("--within", type=float, default=0.2,
                    help="... scoring within this many men of level settles the game (default 0.2)")
    args = ap.parse_args(argv)
    if args.depth < 1:
        ap.error("--depth must be at least 1")
    if args.within < 0:
        ap.error("--within must not be negative")
    try:
        players = scan(args.pdn, args.variant, args.depth, args.within)
    except (OSError, ValueError) as e:
        ap.error(str(e))
    if not players:
        print("no drawn games")
    for p in players.values():
        print(p.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
