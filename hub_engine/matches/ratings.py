"""Elo ratings of many players from all their games: a maximum-likelihood fit, as Ordo does.

Model (Bradley-Terry in Elo units): player i scores E_ij = 1 / (1 + 10^((r_j - r_i) / 400)) on
average against j, and a game's result s (1, 1/2 or 0) counts as s wins and 1 - s losses, so a
draw is half a win and half a loss. The ratings maximise

    log L = sum over pairs i < j of  S_ij log E_ij + (n_ij - S_ij) log(1 - E_ij)

(n_ij games, S_ij the points i took from j); only differences count, so one rating is fixed:
the mean is 0, or an anchor player's rating is 0. Newton's method (with step halving) finds the
maximum. It exists only when no group of players took every point from the rest (the graph "i
scored against j" is strongly connected); otherwise the fit adds `prior_draws` virtual draws to
every pairing that played (BayesElo's remedy), by default one and only when needed.

Error bars: the estimate's covariance is the sandwich H^-1 J H^-1 of the fit (H: the curvature of
log L; J: the variance of the per-game results, taken per pairing as E(1-E) - d/4 at the fitted
E with the pairing's observed draw rate d, which a draw model with that draw rate gives). Without
draws J = H and this is the inverse Hessian; for two players it is the standard error of the
score that `hub-engine match` reports, carried through the Elo formula. The 95% error is
1.96 standard deviations. Games are taken as independent (the two games of an opening are not
quite), so with few games and extreme scores the bars are optimistic.

Pure Python (no numpy): the one-file executable leaves numpy out, and the systems are tiny.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

K = math.log(10.0) / 400.0       # d(logit E) / d(Elo)
Z95 = 1.959964


@dataclass
class Pairing:
    """What player a did against player b (a's view)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws


@dataclass
class Ratings:
    """Elo and 95% error per player (None for a player without games), and how they were fit."""

    elo: dict[str, float | None]
    error: dict[str, float | None]
    anchor: str | None                        # None: the mean rating is 0
    prior_draws: float                        # virtual draws added per pairing (0: pure ML)
    covariance: dict[tuple[str, str], float] = field(default_factory=dict)


def tally(players: list[str], games: list[tuple[str, str, float]]) -> dict[tuple[str, str], Pairing]:
    """Per ordered pair (a, b) a's wins, draws and losses against b, from (a, b, a's score)."""
    out = {(a, b): Pairing() for a in players for b in players if a != b}
    for a, b, s in games:
        if s not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 1, 0.5 or 0, not {s}")
        for x, y, r in ((a, b, s), (b, a, 1.0 - s)):
            p = out[(x, y)]
            if r == 1.0:
                p.wins += 1
            elif r == 0.5:
                p.draws += 1
            else:
                p.losses += 1
    return out


def ml_exists(players: list[str], pairs: dict[tuple[str, str], Pairing]) -> bool:
    """Whether every player can reach every other by 'scored something against' edges."""
    if len(players) < 2:
        return True
    edges = {a: [b for b in players if b != a and pairs[(a, b)].score > 0] for a in players}
    back = {a: [b for b in players if b != a and pairs[(b, a)].score > 0] for a in players}
    for graph in (edges, back):
        seen, stack = {players[0]}, [players[0]]
        while stack:
            for b in graph[stack.pop()]:
                if b not in seen:
                    seen.add(b)
                    stack.append(b)
        if len(seen) < len(players):
            return False
    return True


def expected(diff: float) -> float:
    """Expected score of a player rated `diff` Elo above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def fit(players: list[str], games: list[tuple[str, str, float]], anchor: str | None = None,
        prior_draws: float | None = None) -> Ratings:
    """Ratings of players from games given as (a, b, a's score: 1, 0.5 or 0).

    prior_draws None adds one virtual draw per pairing only when the pure maximum-likelihood
    estimate does not exist; a number adds that many always. ValueError for an unknown anchor,
    an anchor without games, or players not linked to each other by games."""
    if anchor is not None and anchor not in players:
        raise ValueError(f"the anchor {anchor!r} is not one of the players")
    pairs = tally(players, games)
    active = [p for p in players if any(pairs[(p, q)].games for q in players if q != p)]
    if anchor is not None and anchor not in active and len(active) > 0:
        raise ValueError(f"the anchor {anchor!r} has no games")
    none = {p: None for p in players}
    if len(active) < 2:
        return Ratings({**none, **{p: 0.0 for p in active}}, {**none, **{p: 0.0 for p in active}},
                       anchor, 0.0)
    if not _connected(active, pairs):
        raise ValueError("the players fall into groups that never met: their ratings cannot be "
                         "compared")
    if prior_draws is None:
        prior_draws = 0.0 if ml_exists(active, pairs) else 1.0
    elif prior_draws == 0.0 and not ml_exists(active, pairs):
        raise ValueError("no maximum-likelihood fit: a player or group of players took every "
                         "point (or none) against the others; add virtual draws (prior)")
    fixed = anchor if anchor is not None else active[0]
    free = [p for p in active if p != fixed]
    r = {p: 0.0 for p in active}
    n = {k: v.games + (prior_draws if v.games else 0.0) for k, v in pairs.items()}
    s = {k: v.score + (prior_draws / 2 if v.games else 0.0) for k, v in pairs.items()}

    def loglik(r: dict[str, float]) -> float:
        total = 0.0
        for i, a in enumerate(active):
            for b in active[i + 1:]:
                if n[(a, b)]:
                    e = expected(r[a] - r[b])
                    total += s[(a, b)] * math.log(e) + (n[(a, b)] - s[(a, b)]) * math.log(1 - e)
        return total

    for _ in range(200):
        grad = [K * sum(s[(a, b)] - n[(a, b)] * expected(r[a] - r[b])
                        for b in active if b != a) for a in free]
        step = solve(_curvature(free, active, r, n), grad)
        current, t = loglik(r), 1.0
        while True:
            trial = dict(r)
            for a, d in zip(free, step):
                trial[a] += t * d
            if loglik(trial) >= current - 1e-12 or t < 1e-6:
                break
            t /= 2
        r = trial
        if max(abs(t * d) for d in step) < 1e-9:
            break
    # the covariance of the free ratings (the fixed one is 0 with no variance)
    h_inv = inverse(_curvature(free, active, r, n))
    meat = _meat(free, active, r, pairs)
    cov_free = matmul(matmul(h_inv, meat), h_inv)
    idx = {p: i for i, p in enumerate(free)}

    def cov(a: str, b: str) -> float:
        return cov_free[idx[a]][idx[b]] if a in idx and b in idx else 0.0

    if anchor is None:            # shift to mean 0: r' = r - mean(r), Cov' = P Cov P
        mean = sum(r.values()) / len(active)
        r = {p: v - mean for p, v in r.items()}
        m = len(active)
        row = {a: sum(cov(a, b) for b in active) / m for a in active}
        total = sum(row.values()) / m

        def cov_out(a: str, b: str) -> float:
            return cov(a, b) - row[a] - row[b] + total
    else:
        cov_out = cov
    covariance = {(a, b): cov_out(a, b) for a in active for b in active}
    elo = {**none, **{p: r[p] for p in active}}
    error = {**none, **{p: Z95 * math.sqrt(max(0.0, covariance[(p, p)])) for p in active}}
    return Ratings(elo, error, anchor, prior_draws, covariance)


def _connected(players: list[str], pairs: dict[tuple[str, str], Pairing]) -> bool:
    seen, stack = {players[0]}, [players[0]]
    while stack:
        a = stack.pop()
        for b in players:
            if b not in seen and pairs[(a, b)].games:
                seen.add(b)
                stack.append(b)
    return len(seen) == len(players)


def _curvature(free: list[str], active: list[str], r: dict[str, float],
               n: dict[tuple[str, str], float]) -> list[list[float]]:
    """Minus the Hessian of log L over the free ratings (positive definite)."""
    idx = {p: i for i, p in enumerate(free)}
    h = [[0.0] * len(free) for _ in free]
    for i, a in enumerate(active):
        for b in active[i + 1:]:
            if not n[(a, b)]:
                continue
            e = expected(r[a] - r[b])
            w = K * K * n[(a, b)] * e * (1 - e)
            _add_pair(h, idx, a, b, w)
    return h


def _meat(free: list[str], active: list[str], r: dict[str, float],
          pairs: dict[tuple[str, str], Pairing]) -> list[list[float]]:
    """The variance of the score's gradient: per game of a pairing E(1-E) - d/4, the variance
    of a result with mean E and the pairing's draw rate d (d capped at what E allows)."""
    idx = {p: i for i, p in enumerate(free)}
    j = [[0.0] * len(free) for _ in free]
    for i, a in enumerate(active):
        for b in active[i + 1:]:
            p = pairs[(a, b)]
            if not p.games:
                continue
            e = expected(r[a] - r[b])
            d = min(p.draws / p.games, 2 * min(e, 1 - e))
            w = K * K * p.games * max(0.0, e * (1 - e) - d / 4)
            _add_pair(j, idx, a, b, w)
    return j


def _add_pair(m: list[list[float]], idx: dict[str, int], a: str, b: str, w: float) -> None:
    """Add w times the pair's Laplacian block (a, b) to m (rows of fixed players left out)."""
    ia, ib = idx.get(a), idx.get(b)
    if ia is not None:
        m[ia][ia] += w
    if ib is not None:
        m[ib][ib] += w
    if ia is not None and ib is not None:
        m[ia][ib] -= w
        m[ib][ia] -= w


# --- small dense linear algebra -------------------------------------------------------------

def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b, by Gaussian elimination with partial pivoting; ValueError if singular."""
    n = len(a)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda i: abs(m[i][col]))
        if abs(m[piv][col]) < 1e-300:
            raise ValueError("singular system")
        m[col], m[piv] = m[piv], m[col]
        for i in range(col + 1, n):
            f = m[i][col] / m[col][col]
            if f:
                for k in range(col, n + 1):
                    m[i][k] -= f * m[col][k]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (m[i][n] - sum(m[i][k] * x[k] for k in range(i + 1, n))) / m[i][i]
    return x


def inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]
