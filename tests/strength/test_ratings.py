"""The tournament's Elo fit (hub_engine.matches.ratings) against hand-solved cases and a simulation."""
from __future__ import annotations

import math

import pytest

from hub_engine.matches import match, ratings
from hub_engine.matches.ratings import K, Z95, expected, fit

np = pytest.importorskip("numpy", reason="numpy (the test extra) is not installed")


def games_of(a: str, b: str, wins: int, draws: int, losses: int) -> list[tuple[str, str, float]]:
    return [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses


def test_two_players_give_the_closed_form():
    # 60 wins, 20 draws, 20 losses: score 0.7, Elo difference 400 log10(0.7 / 0.3) = 147.19;
    # per-game variance 0.7 * 0.3 - 0.2 / 4 = 0.16, so sd(score) = 0.04 and the Elo error is
    # 1.96 * 0.04 / (K * 0.7 * 0.3)
    games = games_of("A", "B", 60, 20, 20)
    r = fit(["A", "B"], games, anchor="B")
    assert r.elo["A"] == pytest.approx(400 * math.log10(0.7 / 0.3), abs=1e-6)
    assert r.elo["B"] == 0.0 and r.error["B"] == 0.0
    assert r.error["A"] == pytest.approx(Z95 * 0.04 / (K * 0.21), rel=1e-6)
    assert r.prior_draws == 0.0
    # match's margin maps the score interval's ends through the Elo formula; the two agree
    assert r.error["A"] == pytest.approx(match.elo_stats([1.0] * 60 + [0.5] * 20 + [0.0] * 20)[2],
                                         abs=2.0)
    # with the mean as the anchor each rating is half the difference, and so is its error
    m = fit(["A", "B"], games)
    assert m.elo["A"] == pytest.approx(-m.elo["B"]) == pytest.approx(r.elo["A"] / 2)
    assert m.error["A"] == pytest.approx(r.error["A"] / 2)


def test_consistent_scores_are_reproduced_exactly():
    # A-B 3:1 and B-C 3:1 (odds 3 each) and A-C 9:1 (odds 9 = 3 * 3): every pairing's score is
    # what the ratings predict, so the likelihood's gradient is zero at 400 log10(3) a step
    step = 400 * math.log10(3)
    games = (games_of("A", "B", 30, 0, 10) + games_of("B", "C", 30, 0, 10)
             + games_of("A", "C", 45, 0, 5))
    r = fit(["A", "B", "C"], games, anchor="C")
    assert r.elo["B"] == pytest.approx(step, abs=1e-6)
    assert r.elo["A"] == pytest.approx(2 * step, abs=1e-6)
    # draws count as half points: 20 draws instead of 10 wins and 10 losses move nothing
    drawn = (games_of("A", "B", 20, 20, 0) + games_of("B", "C", 30, 0, 10)
             + games_of("A", "C", 45, 0, 5))
    assert fit(["A", "B", "C"], drawn, anchor="C").elo["A"] == pytest.approx(2 * step, abs=1e-6)


def test_anchor_and_mean_agree_on_differences_and_errors():
    games = (games_of("A", "B", 12, 10, 8) + games_of("B", "C", 9, 15, 6)
             + games_of("A", "C", 14, 9, 7) + games_of("C", "D", 10, 10, 10)
             + games_of("A", "D", 16, 8, 6))
    names = ["A", "B", "C", "D"]
    mean = fit(names, games)
    anchored = fit(names, games, anchor="B")
    assert sum(mean.elo.values()) == pytest.approx(0.0, abs=1e-9)
    for p in names:
        assert anchored.elo[p] == pytest.approx(mean.elo[p] - mean.elo["B"], abs=1e-6)
        # Var(r_p - r_B) from the mean-0 covariance is the anchored variance of r_p
        var = mean.covariance[(p, p)] + mean.covariance[("B", "B")] - 2 * mean.covariance[(p, "B")]
        assert anchored.error[p] == pytest.approx(Z95 * math.sqrt(max(var, 0.0)), abs=1e-6)
    assert anchored.error["B"] == 0.0


def test_without_draws_the_covariance_is_the_inverse_fisher_information():
    games = (games_of("A", "B", 14, 0, 6) + games_of("B", "C", 11, 0, 9)
             + games_of("A", "C", 17, 0, 3))
    names = ["A", "B", "C"]
    r = fit(names, games)
    info = np.zeros((3, 3))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i < j:
                n = sum(1 for x, y, _ in games if {x, y} == {a, b})
                e = expected(r.elo[a] - r.elo[b])
                w = K * K * n * e * (1 - e)
                info[i, i] += w
                info[j, j] += w
                info[i, j] -= w
                info[j, i] -= w
    cov = np.linalg.pinv(info)             # the mean-0 covariance: the null space is (1, 1, 1)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            assert r.covariance[(a, b)] == pytest.approx(cov[i, j], rel=1e-6, abs=1e-9)


def test_a_perfect_score_needs_the_prior():
    games = games_of("A", "B", 4, 0, 0)
    with pytest.raises(ValueError, match="no maximum-likelihood fit"):
        fit(["A", "B"], games, prior_draws=0)
    r = fit(["A", "B"], games, anchor="B")      # one virtual draw: 4.5 of 5
    assert r.prior_draws == 1.0
    assert r.elo["A"] == pytest.approx(400 * math.log10(0.9 / 0.1), abs=1e-6)
    # a cycle of wins needs no prior: A beat B, B beat C, C beat A
    cycle = games_of("A", "B", 2, 0, 0) + games_of("B", "C", 2, 0, 0) + games_of("C", "A", 2, 0, 0)
    c = fit(["A", "B", "C"], cycle)
    assert c.prior_draws == 0.0 and all(abs(v) < 1e-6 for v in c.elo.values())


def test_bad_inputs():
    with pytest.raises(ValueError, match="anchor"):
        fit(["A", "B"], games_of("A", "B", 1, 0, 1), anchor="Z")
    with pytest.raises(ValueError, match="never met"):
        fit(["A", "B", "C", "D"], games_of("A", "B", 1, 0, 1) + games_of("C", "D", 1, 0, 1))
    with pytest.raises(ValueError, match="score"):
        fit(["A", "B"], [("A", "B", 0.7)])
    # a player without games has no rating
    r = fit(["A", "B", "C"], games_of("A", "B", 2, 1, 1))
    assert r.elo["C"] is None and r.error["C"] is None


def test_simulated_tournaments_recover_the_ratings_within_their_error_bars():
    """Round robins of 6 players with known ratings and a draw rate that grows as they get
    closer: the fitted ratings are unbiased and about 95% of the 95% error bars hold."""
    rng = np.random.default_rng(20240601)
    true = np.array([-350.0, -150.0, -40.0, 60.0, 180.0, 300.0])
    true -= true.mean()
    names = [f"p{i}" for i in range(len(true))]
    runs, per_pair = 200, 40
    hits = total = 0
    errors = []
    for _ in range(runs):
        games = []
        for i in range(len(true)):
            for j in range(i + 1, len(true)):
                e = expected(true[i] - true[j])
                draw = 0.5 * 4 * e * (1 - e)            # 50% draws between equals
                win = e - draw / 2
                outcome = rng.choice(3, size=per_pair, p=[win, draw, 1 - win - draw])
                games += [(names[i], names[j], (1.0, 0.5, 0.0)[k]) for k in outcome]
        r = fit(names, games)
        for p, t in zip(names, true):
            errors.append(r.elo[p] - t)
            hits += abs(r.elo[p] - t) <= r.error[p]
            total += 1
    assert abs(np.mean(errors)) < 5
    assert 0.92 <= hits / total <= 0.98, hits / total


def test_linear_algebra_helpers():
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.5, -1.0, 2.0]]
    inv = ratings.inverse(a)
    assert np.allclose(np.array(inv), np.linalg.inv(np.array(a)))
    assert np.allclose(ratings.solve(a, [1.0, 2.0, 3.0]), np.linalg.solve(np.array(a), [1, 2, 3]))
    with pytest.raises(ValueError, match="singular"):
        ratings.solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 1.0])
