"""The SPRT statistics of hub_engine.matches.sprt."""
from __future__ import annotations

import math
import random

import pytest

from hub_engine.matches.sprt import PENTANOMIAL, SPRT, bounds, elo_to_score, llr


def test_bounds_match_the_textbook_values():
    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(-2.944, abs=1e-3) and hi == pytest.approx(2.944, abs=1e-3)
    with pytest.raises(ValueError):
        bounds(0.0, 0.05)


def test_elo_to_score():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert elo_to_score(-100) == pytest.approx(1 - elo_to_score(100))


def test_llr_is_zero_without_games_and_signed_by_the_result():
    assert llr([0, 0, 0], 0, 50) == 0.0
    assert llr([10, 80, 60], 0, 50) > 0          # score 0.633: +94 Elo, for H1
    assert llr([60, 80, 10], 0, 50) < 0
    assert llr([30, 100, 20], 0, 50) < 0         # +23 Elo is nearer elo0 = 0 than elo1 = 50


def test_llr_agrees_with_the_normal_approximation():
    """For many games LLR ~ N (s1 - s0)(2 m - s0 - s1) / (2 var) (fishtest's approximation)."""
    losses, draws, wins = 300, 500, 360
    n = losses + draws + wins
    m = (draws * 0.5 + wins) / n
    var = (draws * 0.25 + wins) / n - m * m
    s0, s1 = elo_to_score(0), elo_to_score(20)
    approx = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)
    assert llr([losses, draws, wins], 0, 20) == pytest.approx(approx, rel=0.03)


def _simulate(true_elo: float, seed: int, pairs: bool) -> str | None:
    rng = random.Random(seed)
    s = elo_to_score(true_elo)
    draw = 0.4
    win = s - draw / 2
    test = SPRT(0, 50, 0.05, 0.05, pairs=pairs)
    for _ in range(20000):
        u = rng.random()
        test.add(1.0 if u < win else 0.5 if u < win + draw else 0.0)
        if len(test.results) % 2 == 0 and test.status():
            return test.status()
    return None


@pytest.mark.parametrize("pairs", [False, True])
def test_sprt_accepts_the_true_hypothesis_mostly(pairs):
    h1 = [_simulate(70, seed, pairs) for seed in range(12)]
    h0 = [_simulate(-20, seed, pairs) for seed in range(12)]
    assert h1.count("H1") >= 10 and h0.count("H0") >= 10


def test_pentanomial_counts_pairs():
    test = SPRT(0, 50)
    for r in (1.0, 0.5, 0.0, 0.0, 1.0, 1.0, 0.5):     # the last pair is unfinished
        test.add(r)
    assert test.counts() == [1, 0, 0, 1, 1]
    assert len(PENTANOMIAL) == 5
    assert "sprt elo0=0 elo1=50 llr=" in test.line()
    # the counts are printed, so that a test's LLR can be recomputed from its log alone
    assert test.line().endswith(" ptnml(0-2)=1,0,0,1,1")
    assert f"llr={llr([1, 0, 0, 1, 1], 0, 50, PENTANOMIAL):.2f} " in test.line()


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        SPRT(50, 0)
    with pytest.raises(ValueError):
        SPRT(0, 50).add(0.7)
    with pytest.raises(ValueError):
        llr([1, 2], 0, 50)
    assert math.isfinite(llr([0, 0, 5], 0, 50))


def test_match_stops_when_the_sprt_decides(tmp_path, monkeypatch):
    """engine 2 always answers an illegal move, so engine 1 wins every game: H1 is accepted
    long before the 200 games the match allows."""
    import argparse
    import io
    import sys
    from pathlib import Path

    from hub_engine.matches import match

    strength = Path(__file__).resolve().parents[1] / "strength"
    fake = f"{sys.executable} {strength / 'fake_engines.py'}"
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    p = argparse.ArgumentParser()
    match.add_arguments(p)
    args = p.parse_args(["--variant", "brazilian", "--engine1", f"{fake} first", "--engine2",
                         f"{fake} illegal", "--games", "200", "--move-time", "0.05",
                         "--opening-depth", "0", "--sprt", "0", "50"])
    out = io.StringIO()
    outcome = match.run_match(args, out=out)
    text = out.getvalue()
    assert 2 <= len(outcome.results) < 100 and set(outcome.results) == {1.0}
    last = text.rstrip().splitlines()[-1]
    # every pair won 2-0
    assert last.endswith(f" H1 accepted ptnml(0-2)=0,0,0,0,{len(outcome.results) // 2}")
    assert "sprt elo0=0 elo1=50" in text
