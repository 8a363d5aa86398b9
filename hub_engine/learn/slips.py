"""Won games that ended drawn: `python -m hub_engine.learn.slips --variant V GAMES.pdn
[--analysis A.jsonl | --depth D [--max-pieces N] [--eval E]] [--tables DIR] [--margin 1.5]`.

For every drawn game of a PDN file (e.g. `hub-engine match --pdn-output`) it replays the moves with
the game's draw counters and asks the endgame tables about each position: a drawn game that passed
through a position the tables call won for one side (under the move-count rules where the tables
know them, with the game's counters) is a slip of that side's player. With the records of
`hub-engine analyse` on the same file (`--analysis`), or with `--depth D` (a search of the drawn
games' positions of at most `--max-pieces` pieces here), a drawn game in which the deeper search
scored a position at least `--margin` men for one side is counted too. It prints one line per such game
and the counts per player (the PDN's White/Black tags), which is how the evaluation's handling of
king endings is measured in games.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field

DRAWS = ("1/2-1/2", "1-1", "*")


@dataclass
class Slip:
    game: int
    white: str
    black: str
    plies: int
    table_win: tuple[int, str, str] | None = None     # (ply, player, slice) of the first table win
    search: tuple[int, str, float] | None = None       # (ply, player, score) of the best score
    notes: list[str] = field(default_factory=list)


def _slice_name(pos) -> str:
    m0, k0, m1, k1 = pos.board.pieces()
    own, other = ((m0, k0), (m1, k1)) if pos.side == 0 else ((m1, k1), (m0, k0))
    return f"{len(own[0])}{len(own[1])}{len(other[0])}{len(other[1])}"


class DeepSearch:
    """Scores positions by a fixed-depth search (the tables off, so that it judges by itself)."""

    def __init__(self, variant: str, depth: int, max_pieces: int, eval_kind: str = "learned"):
        from hub_engine.core import Searcher, TransTable
        from hub_engine.learn.weights import evaluation
        from hub_engine.rules.variants import get_variant

        self.depth, self.max_pieces = depth, max_pieces
        self.tt = TransTable(20)
        self.searcher = Searcher(get_variant(variant).core_rules, self.tt,
                                 evaluation(variant, eval_kind))

    def score0(self, game) -> float | None:
        """Side 0's score in men of the game's position, or None when it has too many pieces."""
        from hub_engine.core import INF

        pos = game.position
        if sum(map(len, pos.board.pieces())) > self.max_pieces or not game.legal_moves():
            return None
        self.tt.clear()
        s = self.searcher.iterate(pos.board, self.depth, -INF, INF, game.history_hashes()[:-1],
                                  game.counters, 0.0, 0)[0]
        return (s if pos.side == 0 else -s) / 100.0


def scan(variant: str, pdn_path: str, tables, analysis: dict | None = None,
         margin: float = 1.5, deep: DeepSearch | None = None) -> tuple[int, int, list[Slip]]:
    """(games, drawn games, slips) of a PDN file."""
    from hub_engine.rules.pdn import iter_pdn_file
    from hub_engine.rules.position import Game

    games = draws = 0
    slips = []
    for pg in iter_pdn_file(pdn_path, variant):
        if not pg.ok or pg.start is None:
            continue
        games += 1
        result = pg.tags.get("Result", pg.result or "*")
        if result not in DRAWS:
            continue
        draws += 1
        white, black = pg.tags.get("White", "white"), pg.tags.get("Black", "black")
        first_mover = pg.variant.first_mover
        # side 0 is the variant's first mover; the PDN's White/Black tags name the players
        names = (white, black) if first_mover == "white" else (black, white)
        slip = Slip(pg.number, white, black, len(pg.moves))
        game = Game(pg.variant, pg.start)
        limit = tables.complete_pieces() if tables is not None else 0
        best = None
        for ply, rec in enumerate(pg.moves + [None]):
            pos = game.position
            if game.draw_reason():
                break                     # the rules have drawn the game here
            s0 = deep.score0(game) if deep is not None else None
            if s0 is not None and abs(s0) < 80 and abs(s0) >= margin \
                    and (best is None or abs(s0) > abs(best[2])):
                best = (ply, names[0] if s0 > 0 else names[1], s0)
            if slip.table_win is None and sum(map(len, pos.board.pieces())) <= limit:
                r = tables.probe(pos, game.counters)
                value = r.ruled or r.value if r is not None else None
                if value in ("win", "loss"):
                    winner = pos.side if value == "win" else 1 - pos.side
                    slip.table_win = (ply, names[winner], _slice_name(pos))
            if rec is not None:
                game.play(rec.move)
        if analysis is not None:
            for rec in analysis.get(pg.number, []):
                if rec.get("score") is None or abs(rec["score"]) >= 80:
                    continue
                s0 = rec["score"] if rec["side"] == 0 else -rec["score"]
                if abs(s0) >= margin and (best is None or abs(s0) > abs(best[2])):
                    best = (rec["ply"], names[0] if s0 > 0 else names[1], s0)
        slip.search = best
        if slip.table_win or slip.search:
            slips.append(slip)
    return games, draws, slips


def read_analysis(path: str) -> dict[int, list[dict]]:
    """Analysis records by game number (`FILE#N`)."""
    out: dict[int, list[dict]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
                number = int(str(rec["game"]).rsplit("#", 1)[1])
            except (ValueError, KeyError, IndexError):
                continue
            out.setdefault(number, []).append(rec)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.learn.slips",
                                description=__doc__.splitlines()[0])
    p.add_argument("pdn", help="PDN file of games (e.g. from hub-engine match --pdn-output)")
    p.add_argument("--variant", required=True, help="rules of games without a GameType tag")
    p.add_argument("--analysis", default=None, help="hub-engine analyse records of the same file")
    p.add_argument("--tables", default=None, help="endgame tables directory (default: the usual)")
    p.add_argument("--margin", type=float, default=1.5,
                   help="a search score of at least this many men counts as won (default 1.5)")
    p.add_argument("--depth", type=int, default=0,
                   help="search the drawn games' positions to this depth (0: no search)")
    p.add_argument("--max-pieces", type=int, default=12,
                   help="... only positions of at most this many pieces (default 12)")
    p.add_argument("--eval", default="learned", help="evaluation of that search (default learned)")
    args = p.parse_args(argv)
    from hub_engine.tables import open_tables

    tables = open_tables(args.variant, args.tables)
    analysis = read_analysis(args.analysis) if args.analysis else None
    deep = DeepSearch(args.variant, args.depth, args.max_pieces, args.eval) if args.depth else None
    games, draws, slips = scan(args.variant, args.pdn, tables, analysis, args.margin, deep)
    by_table, by_search = Counter(), Counter()
    for s in slips:
        line = f"game {s.game} ({s.white} - {s.black}, {s.plies} plies):"
        if s.table_win:
            by_table[s.table_win[1]] += 1
            line += f" table win for {s.table_win[1]} at ply {s.table_win[0]} ({s.table_win[2]})"
        if s.search:
            by_search[s.search[1]] += 1
            line += f" search {s.search[2]:+.2f} for {s.search[1]} at ply {s.search[0]}"
        print(line)
    print(f"games={games} draws={draws} tables={tables.complete_pieces()} "
          f"table_wins_drawn={dict(by_table)} search_wins_drawn={dict(by_search)} "
          f"margin={args.margin}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
