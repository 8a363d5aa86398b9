"""A tournament's results as organisers read them: the rating list and the cross table.

Both come from the finished games alone: a player's score is its points (a win 1, a draw 1/2),
the cross table's cell (A, B) is A's points against B out of their games, so cell (A, B) plus
cell (B, A) is the games they played; the Elo and its 95% error come from ratings.fit over all
games at once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hub_engine.matches.ratings import Pairing, Ratings, fit, tally


@dataclass
class Standing:
    name: str
    games: int
    score: float
    wins: int
    draws: int
    losses: int
    elo: float | None
    error: float | None


@dataclass
class Standings:
    players: list[str]                       # in the order given (the cross table's order)
    rows: list[Standing]                     # best first
    pairs: dict[tuple[str, str], Pairing]
    ratings: Ratings


def standings(players: list[str], games: list[tuple[str, str, float]],
              anchor: str | None = None, prior_draws: float | None = None) -> Standings:
    """The standings of players from games (a, b, a's score)."""
    pairs = tally(players, games)
    ratings = fit(players, games, anchor, prior_draws)
    rows = []
    for p in players:
        mine = [pairs[(p, q)] for q in players if q != p]
        rows.append(Standing(p, sum(x.games for x in mine), sum(x.score for x in mine),
                             sum(x.wins for x in mine), sum(x.draws for x in mine),
                             sum(x.losses for x in mine), ratings.elo[p], ratings.error[p]))
    rows.sort(key=lambda s: (-(s.elo if s.elo is not None else -math.inf), -s.score, s.name))
    return Standings(players, rows, pairs, ratings)


def _points(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.1f}"


def rating_table(st: Standings) -> str:
    """The rating list, best first, one line per player."""
    width = max([4] + [len(r.name) for r in st.rows])
    lines = [f"{'Rank':>4}  {'Name':<{width}}  {'Elo':>6}  {'+/-':>5}  {'Games':>5}  "
             f"{'Score':>6}  {'%':>5}  {'W-D-L':>11}  {'Draws':>5}"]
    for rank, r in enumerate(st.rows, 1):
        elo = "-" if r.elo is None else f"{r.elo + 0.0:+.0f}"
        err = "-" if r.error is None else f"{r.error:.0f}"
        pct = f"{100 * r.score / r.games:.1f}" if r.games else "-"
        draws = f"{100 * r.draws / r.games:.0f}%" if r.games else "-"
        lines.append(f"{rank:>4}  {r.name:<{width}}  {elo:>6}  {err:>5}  {r.games:>5}  "
                     f"{_points(r.score):>6}  {pct:>5}  {f'{r.wins}-{r.draws}-{r.losses}':>11}  "
                     f"{draws:>5}")
    how = f"anchor {st.ratings.anchor} = 0" if st.ratings.anchor else "mean 0"
    lines.append(f"Elo: maximum likelihood over all games ({how}); +/-: 95% error")
    if st.ratings.prior_draws:
        lines.append(f"     with {st.ratings.prior_draws:g} virtual draw(s) per pairing (a "
                     "player or group took every point, or none, against the rest)")
    return "\n".join(lines)


def cross_table(st: Standings) -> str:
    """Rows and columns in rating order; a cell is the row player's points / games against the
    column player, `.` where they did not meet, `x` on the diagonal."""
    order = [r.name for r in st.rows]
    cells = {(a, b): (f"{_points(st.pairs[(a, b)].score)}/{st.pairs[(a, b)].games}"
                      if st.pairs[(a, b)].games else ".") for a in order for b in order if a != b}
    scores = {r.name: f"{_points(r.score)}/{r.games}" for r in st.rows}
    width = max([4] + [len(n) for n in order])
    col = max([len(n) for n in order] + [len(c) for c in cells.values()]
              + [len(c) for c in scores.values()] + [5])
    lines = [" " * width + "".join(f"  {n:>{col}}" for n in order) + f"  {'Score':>{col}}"]
    for row in st.rows:
        a = row.name
        texts = ["x" if a == b else cells[(a, b)] for b in order]
        lines.append(f"{a:<{width}}" + "".join(f"  {t:>{col}}" for t in texts)
                     + f"  {scores[a]:>{col}}")
    return "\n".join(lines)


def as_json(st: Standings) -> dict:
    """`standings` (best first) and `crosstable` (row player's view) for --json."""
    def number(x: float | None) -> float | None:
        return None if x is None or not math.isfinite(x) else round(x, 1)

    return {
        "standings": [{"rank": i, "name": r.name, "games": r.games, "score": r.score,
                       "wins": r.wins, "draws": r.draws, "losses": r.losses,
                       "elo": number(r.elo), "error": number(r.error)}
                      for i, r in enumerate(st.rows, 1)],
        "crosstable": {a: {b: {"games": st.pairs[(a, b)].games, "score": st.pairs[(a, b)].score,
                               "wins": st.pairs[(a, b)].wins, "draws": st.pairs[(a, b)].draws,
                               "losses": st.pairs[(a, b)].losses}
                           for b in st.players if b != a}
                       for a in st.players},
        "elo_model": {"anchor": st.ratings.anchor, "prior_draws": st.ratings.prior_draws},
    }
