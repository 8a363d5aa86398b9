"""Fast tests of the match runner (hub_engine.matches.match) and the py-draughts Hub wrapper."""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub_engine.matches import match
from hub_engine.rules.pdn import read_pdn_file
from hub_engine.rules.position import Game
from client_envs import SETUP_HINT, python_of
from launchers import engine_command
from runs import start, state_games, wait_for_games

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OURS = shlex.join(engine_command())
FAKE = f"{sys.executable} {HERE / 'fake_engines.py'}"
# the interpreter of a virtual environment holding py-draughts (tests/client_envs.py makes it)
PYD_PYTHON = Path(os.environ.get("PY_DRAUGHTS_PYTHON") or python_of(".venv-py-draughts"))
WRAPPER = HERE / "py_draughts_hub.py"
SUMMARY = re.compile(r"wins=(\d+) draws=(\d+) losses=(\d+) score=([\d.]+)%  "
                     r"elo=([+-](?:[\d.]+|inf)) \+/- ([\d.]+|inf) \(95%\)$")


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    match.add_arguments(p)
    return p.parse_args(list(argv))


def run(*argv: str) -> tuple[list[float], str]:
    out = io.StringIO()
    outcome = match.run_match(parse(*argv), out=out)
    assert not outcome.failures, outcome.failures
    return outcome.results, out.getvalue()


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)          # `python -m hub_engine` must find the package


# --- statistics ------------------------------------------------------------------------------

def test_elo_of_known_scores():
    assert match.score_to_elo(0.5) == 0.0
    assert match.score_to_elo(0.75) == pytest.approx(400 * math.log10(3))      # 190.85
    assert match.score_to_elo(0.25) == pytest.approx(-400 * math.log10(3))
    assert match.score_to_elo(1.0) == math.inf and match.score_to_elo(0.0) == -math.inf


def test_error_margin_on_known_results():
    # 60 wins, 20 draws, 20 losses: mu 0.7, per-game sd 0.4, standard error 0.04,
    # interval 0.7 +/- 0.0784 -> Elo 86.2 .. 218.3, margin 66.0 (cutechess-cli prints the same)
    mu, elo, margin = match.elo_stats([1.0] * 60 + [0.5] * 20 + [0.0] * 20)
    assert mu == pytest.approx(0.7)
    assert elo == pytest.approx(147.19, abs=0.01)
    assert margin == pytest.approx(66.01, abs=0.01)
    # all draws: no spread, no error
    assert match.elo_stats([0.5] * 10) == (0.5, 0.0, 0.0)
    # all wins: infinite Elo and margin
    mu, elo, margin = match.elo_stats([1.0] * 8)
    assert mu == 1.0 and elo == math.inf and margin == math.inf
    # symmetric: the other engine's view negates the Elo and keeps the margin
    a = match.elo_stats([1.0] * 30 + [0.5] * 50 + [0.0] * 20)
    b = match.elo_stats([0.0] * 30 + [0.5] * 50 + [1.0] * 20)
    assert a[1] == pytest.approx(-b[1]) and a[2] == pytest.approx(b[2])


def test_summary_line_format():
    line = match.summary_line([1.0, 1.0, 0.5, 0.0])
    m = SUMMARY.search(line)
    assert m, line
    assert m.groups()[:4] == ("2", "1", "1", "62.5")


def test_random_openings_are_legal_distinct_and_seeded():
    a = match.random_openings("russian", 12, 4, seed=7)
    assert a == match.random_openings("russian", 12, 4, seed=7)
    assert a != match.random_openings("russian", 12, 4, seed=8)
    assert len({tuple(o) for o in a}) == 12
    for line in a:
        g = Game("russian", moves=line)
        assert len(g.moves) == 4 and g.legal_moves()
        assert match.is_balanced(g)
        assert abs(match.opening_score(g, 10)) <= 0.5
    # without the filter some random lines give a piece away (11-15 24-20 15x24x20 23-20)
    loose = match.random_openings("brazilian", 40, 4, seed=1, balanced=False)
    assert not all(match.is_balanced(Game("brazilian", moves=o)) for o in loose)
    # a shot: equal material, no capture to make, but 14-19 wins a man by force
    shot = Game("brazilian", moves="12-16 24-20 11-14 20-15".split())
    assert match.is_balanced(shot) and match.opening_score(shot, 10) > 0.5


def test_openings_with_a_minimum_score_lean_to_one_side():
    lines = match.random_openings("russian", 6, 6, seed=3, min_score=0.2, max_score=0.6)
    assert len({tuple(o) for o in lines}) == 6
    for line in lines:
        g = Game("russian", moves=line)
        assert match.is_balanced(g)
        assert 0.2 <= abs(match.opening_score(g, 10)) <= 0.6
    # the same seed without the minimum keeps level lines the minimum skips
    level = match.random_openings("russian", 6, 6, seed=3, max_score=0.6)
    assert any(abs(match.opening_score(Game("russian", moves=o), 10)) < 0.2 for o in level)
    with pytest.raises(ValueError, match="above --opening-max-score"):
        match.random_openings("russian", 2, 6, seed=3, min_score=0.7, max_score=0.6)
    with pytest.raises(ValueError, match="needs the search screen"):
        match.random_openings("russian", 2, 6, seed=3, min_score=0.2, check_depth=0)


def test_min_score_above_max_is_a_clear_cli_error():
    r = subprocess.run([sys.executable, "-m", "hub_engine.matches.match", "--variant", "russian",
                        "--opening-min-score", "0.9", "--opening-max-score", "0.5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "above --opening-max-score" in r.stderr


def test_read_openings(tmp_path):
    f = tmp_path / "open.txt"
    f.write_text("# comment\n9-13 22-18\n\n11-15\n")
    assert match.read_openings(str(f), "brazilian") == [["9-13", "22-18"], ["11-15"]]


def test_read_openings_from_a_position(tmp_path):
    ballot = "Wbbbbbbbebbbeeebeeeeewwwwwwwewwww"       # an italian 11-man ballot (a man off each side)
    f = tmp_path / "open.txt"
    start_fen = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    f.write_text(f"{ballot}\n{ballot} 22-18\n{start_fen} 21-17\n")
    got = match.read_openings(str(f), "italian")
    assert got[:2] == [[ballot], [ballot, "22-18"]]
    assert len(got) == 3 and got[2][0].startswith("W") and got[2][1:] == ["21-17"]
    assert Game("italian", got[2][0]).position == Game("italian").position
    f.write_text(f"21-17\n{ballot} 9-13\n")      # 9-13: a move of the side not to move
    with pytest.raises(ValueError, match=r"open.txt line 2: "):
        match.read_openings(str(f), "italian")


@pytest.mark.parametrize("variant,ballot_set", [("english", "english-3move"),
                                                ("english", "english-11man"),
                                                ("italian", "italian-11man"),
                                                ("russian", "russian"), ("brazilian", "brazilian")])
def test_ballot_openings_come_from_the_set_shuffled_by_the_seed(variant, ballot_set):
    from hub_engine.book.ballots import read_set

    ballots = read_set(ballot_set)
    standard = {b.position for b in ballots if not b.lost}
    lost = {b.position for b in ballots if b.lost}
    n = len(standard)
    got = match.ballot_openings(variant, ballot_set, n + 3, seed=1)
    assert all(len(o) == 1 for o in got)
    assert {o[0] for o in got[:n]} == standard            # every standard ballot once ...
    assert got[n:] == got[:3]                              # ... then again from the first
    assert match.ballot_openings(variant, ballot_set, 10, seed=1) == got[:10]
    assert match.ballot_openings(variant, ballot_set, 10, seed=2) != got[:10]
    with_lost = {o[0] for o in match.ballot_openings(variant, ballot_set, len(ballots), 1, lost=True)}
    assert with_lost == standard | lost
    if ballot_set == "english-3move":
        assert len(lost) > 0 and n == len(ballots) - len(lost)


def test_a_ballot_set_of_another_variant_is_a_clear_error():
    with pytest.raises(ValueError, match=r"russian has no ballot set 'italian-11man' "
                                         r"\(its sets: russian\)"):
        match.ballot_openings("russian", "italian-11man", 2, 1)
    for argv, message in (
            (["--variant", "portuguese", "--ballots", "russian"],
             "match: error: portuguese has no ballot set 'russian' (its sets: none)"),
            (["--variant", "russian", "--ballots", "russian", "--openings", "x.txt"],
             "match: error: --openings and --ballots exclude each other")):
        r = subprocess.run([sys.executable, "-m", "hub_engine", "match", "--games", "2", *argv],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert r.returncode == 1 and r.stderr.strip().endswith(message), r.stderr


@pytest.mark.parametrize("variant,ballot_set", [("english", "english-11man"),
                                                ("italian", "italian-11man"), ("russian", "russian")])
def test_a_match_from_ballots_starts_each_game_pair_at_its_ballot(tmp_path, variant, ballot_set):
    pdn = tmp_path / "games.pdn"
    results, out = run("--variant", variant, "--engine1", f"{FAKE} first 0 -0.25", "--engine2",
                       f"{FAKE} first", "--games", "6", "--move-time", "0.05", "--max-plies", "12",
                       "--tolerance", "5", "--ballots", ballot_set, "--seed", "5", "--pdn-output", str(pdn))
    assert len(results) == 6 and "PROBLEM" not in out, out
    expected = match.ballot_openings(variant, ballot_set, 3, seed=5)
    assert re.findall(r'opening="([^"]*)"', out) == [o[0] for o in expected for _ in (0, 1)]
    ours = read_pdn_file(pdn, variant)
    assert len(ours) == 6 and all(g.ok for g in ours)
    for k, g in enumerate(ours):
        start = Game(variant, expected[k // 2][0])
        assert g.tags["SetUp"] == "1" and g.tags["FEN"] == start.position.fen()
        assert len(g.moves) == 12                  # the fake engines play to --max-plies
        for m in g.moves:                          # every move legal from the ballot on
            start.play(str(m.move))
        # each move's comment: engine 1 said `info depth=1 score=-0.25`, engine 2 nothing
        engine1_moves = (0 if g.tags["White"] == "engine1" else 1) ^ (variant == "english")
        for ply, m in enumerate(g.moves):
            said = "-0.25/1 " if ply % 2 == (engine1_moves ^ start.start.side) else ""
            assert re.fullmatch(re.escape(said) + r"\d+\.\d{3}s", m.comment or ""), (ply, m.comment)
    pdn_mod = pytest.importorskip("draughts.PDN", reason="pydraughts (the test extra) is missing")
    from draughts import Board, Move

    theirs = pdn_mod.PDNReader(filename=str(pdn)).games
    assert len(theirs) == 6
    for g, mine in zip(theirs, ours):
        if g.tags["FEN"].startswith("B"):
            # pydraughts 0.6.7's PDNReader reads the first move of a game whose FEN has black
            # to move twice (draughts/PDN.py, `clean_moves` of its "B" branch)
            assert g.moves[0] == g.moves[1]
            continue
        board = Board(variant, g.tags["FEN"])
        for text in g.moves:
            board.push(Move(board, pdn_move=text))
        assert len(g.moves) == len(mine.moves)
    # pydraughts 0.5.7 (lidraughts-bot's) reads the same moves with the comments as without
    # them (it has a quirk of its own at these FEN starts: it drops the second move)
    old = python_of(".venv-lidraughts-bot")
    if not old.exists():
        pytest.skip(f"no pydraughts 0.5.7 environment: run `{SETUP_HINT}`")
    bare = tmp_path / "bare.pdn"
    bare.write_text(re.sub(r" ?\{[^}]*\}", "", pdn.read_text()))
    code = ("import json, sys; from draughts.PDN import PDNReader; "
            "print(json.dumps([g.moves for g in PDNReader(filename=sys.argv[1]).games]))")
    read = []
    for path in (pdn, bare):
        r = subprocess.run([str(old), "-c", code, str(path)], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        read.append(json.loads(r.stdout))
    assert "{" in pdn.read_text() and "{" not in bare.read_text()
    assert read[0] == read[1] and len(read[0]) == 6 and all(len(m) >= 11 for m in read[0])


# --- matches ---------------------------------------------------------------------------------

def test_self_play_runs_to_completion_with_legal_moves(tmp_path):
    pdn = tmp_path / "games.pdn"
    results, out = run("--variant", "russian", "--engine1", OURS, "--engine2", OURS,
                       "--games", "2", "--move-time", "0.02", "--max-plies", "80",
                       "--seed", "3", "--pdn-output", str(pdn), "--tolerance", "1.0")
    lines = out.splitlines()
    assert len(results) == 2 and all(r in (0.0, 0.5, 1.0) for r in results)
    assert sum(1 for l in lines if l.startswith("game ")) == 2
    # a time loss reads "<engine>: time (...)"; a draw by "endgame not won in time" is fine
    assert "PROBLEM" not in out and "illegal" not in out and ": time (" not in out, out
    m = SUMMARY.search(lines[-1])
    assert m, lines[-1]
    w, d, l = (int(x) for x in m.groups()[:3])
    assert w + d + l == 2
    games = read_pdn_file(pdn, "russian")
    assert len(games) == 2
    for g in games:
        assert g.ok, g.errors
        assert g.tags["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert len(g.moves) >= 4
        # the opening's 4 moves bare, then each engine move with what it said: score/depth and
        # seconds (a forced reply has no search, hence no score)
        comments = [m.comment for m in g.moves]
        assert comments[:4] == [None] * 4
        for c in comments[4:]:
            m = re.fullmatch(r"(?:([+-]\d+\.\d\d)/(\d+) )?(\d+\.\d{3})s", c or "")
            assert m and float(m.group(3)) < 1.0, c
        assert sum(1 for c in comments[4:] if "/" in c) >= len(comments[4:]) // 2
    # the two games share their opening, with the colours swapped
    openings = re.findall(r'opening="([^"]*)"', out)
    assert openings[0] == openings[1]
    # one figures line per engine: every move of the games counted, nodes per second reported
    stats = [l for l in lines if re.match(r"engine[12]: moves=", l)]
    assert len(stats) == 2, out
    moves = sum(int(re.search(r"moves=(\d+)", l).group(1)) for l in stats)
    assert moves == sum(len(g.moves) for g in games) - 2 * len(openings[0].split())
    for line in stats:
        assert float(re.search(r"nodes/s=([\d.]+)M", line).group(1)) > 0, line


@pytest.mark.parametrize("mode,reason", [("hang", "no 'done' within"),
                                         ("illegal", "illegal move '1-2'")])
def test_broken_engine_forfeits(mode, reason, monkeypatch):
    monkeypatch.setattr(match, "HANDSHAKE_TIMEOUT", 1.0)
    t0 = time.monotonic()
    results, out = run("--variant", "brazilian", "--engine1", f"{FAKE} first",
                       "--engine2", f"{FAKE} {mode}", "--games", "2", "--move-time", "0.05",
                       "--tolerance", "0.3")
    assert time.monotonic() - t0 < 20
    assert results == [1.0, 1.0], out
    assert out.count("PROBLEM") == 2 and reason in out, out
    assert "wins=2 draws=0 losses=0 score=100.0%" in out


def test_crashing_engine_loses_and_the_match_is_not_clean(monkeypatch, capsys):
    out = io.StringIO()
    outcome = match.run_match(parse("--variant", "brazilian", "--engine1", f"{FAKE} first",
                                    "--engine2", f"{FAKE} crash", "--games", "2",
                                    "--move-time", "0.05"), out=out)
    assert outcome.results == [1.0, 1.0]
    assert len(outcome.failures) == 2
    assert all("exited with code 3" in f and "fake engine crashing" in f
               for f in outcome.failures), outcome.failures
    # the CLI says so and exits non-zero
    code = match.run(parse("--variant", "brazilian", "--engine1", f"{FAKE} first",
                           "--engine2", f"{FAKE} crash", "--games", "2", "--move-time", "0.05"))
    assert code == 1
    err = capsys.readouterr().err
    assert "2 game(s) ended by an engine failure" in err and "fake engine crashing" in err


@pytest.mark.parametrize("engine2", [f"{FAKE} silent", "no-such-engine-command",
                                     f"{FAKE} die-at-start"])
def test_engine_that_cannot_start_stops_the_match(engine2, monkeypatch, capsys):
    monkeypatch.setattr(match, "HANDSHAKE_TIMEOUT", 1.0)
    t0 = time.monotonic()
    code = match.run(parse("--variant", "brazilian", "--engine1", f"{FAKE} first",
                           "--engine2", engine2, "--games", "10", "--move-time", "0.05"))
    assert time.monotonic() - t0 < 20
    assert code == 1
    err = capsys.readouterr().err
    assert "engine2 could not start" in err, err
    if "die-at-start" in engine2:
        assert "exited with code 5" in err and "ModuleNotFoundError: no module named 'x'" in err


def test_default_engines_are_this_program(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/nowhere/hub-engine"])   # not a file: fall back
    assert match.self_command() == [sys.executable, "-m", "hub_engine"]


def test_loss_on_time_with_a_clock():
    # engine 2 sleeps 0.4 s a move on a 0.5 s clock with 0.05 s increment: the second move flags
    results, out = run("--variant", "brazilian", "--engine1", f"{FAKE} first",
                       "--engine2", f"{FAKE} slow 0.4", "--games", "2", "--time", "0.5",
                       "--inc", "0.05", "--tolerance", "0.1")
    assert results == [1.0, 1.0], out
    assert out.count("fake-slow: time (") == 0     # the runner labels engines engine1/engine2
    assert out.count("engine2: time (") == 4, out   # game line + PROBLEM line, twice


def test_a_clock_keeps_its_deficit_so_small_overruns_add_up():
    # 0.12 s a move on a 0.1 s increment: each move is within the 0.05 s tolerance on its own,
    # but the clock falls 0.02 s a move and the game is lost once it is 0.05 s below zero
    # (engine 1, which answers at once, gets a long clock: a loaded machine cannot flag it)
    results, out = run("--variant", "brazilian", "--engine1", f"{FAKE} first",
                       "--engine2", f"{FAKE} slow 0.12", "--games", "2", "--time", "10",
                       "--inc", "0.1", "--time2", "0.05", "--inc2", "0.1", "--tolerance", "0.05")
    assert results == [1.0, 1.0], out
    assert out.count("engine2: time (") == 4, out    # late, or cut off when the clock ran out


def test_time_odds_options():
    args = parse("--move-time", "0.4", "--move-time2", "0.1")
    assert args.move_time == 0.4 and args.move_time2 == 0.1
    for bad in (["--move-time", "0.1", "--time2", "1"], ["--time", "1", "--move-time2", "0.1"]):
        with pytest.raises(SystemExit):
            run("--engine1", f"{FAKE} first", "--engine2", f"{FAKE} first", *bad)


def test_add_parser_registers_match():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    match.add_parser(sub)
    args = p.parse_args(["match", "--variant", "russian", "--games", "4", "--concurrency", "2",
                         "--param1", "tt-size=16", "--param2", "threads=1", "--time", "10",
                         "--inc", "0.1", "--pdn-output", "x.pdn"])
    assert args.handler is match.run
    assert (args.variant, args.games, args.concurrency) == ("russian", 4, 2)
    assert match.parse_params(args.param1) == [("tt-size", "16")]


# --- the py-draughts wrapper -----------------------------------------------------------------

needs_pyd = pytest.mark.skipif(not PYD_PYTHON.exists(),
                               reason=f"no py-draughts environment at {PYD_PYTHON}: run "
                                      f"`{SETUP_HINT}` (or set PY_DRAUGHTS_PYTHON)")

_CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
from py_draughts_hub import board_from_hub, hub_move
for line in sys.stdin:
    v, pos = line.split()
    print(",".join(sorted(hub_move(m) for m in board_from_hub(v, pos).legal_moves)))
"""


@needs_pyd
@pytest.mark.parametrize("variant", ["russian", "brazilian"])
def test_wrapper_moves_equal_our_rules(variant):
    """py-draughts' legal moves, converted to Hub strings, equal ours in random-game positions."""
    rng = random.Random(11)
    positions, expected = [], []
    for _ in range(40):
        game = Game(variant)
        for _ in range(rng.randint(10, 100)):
            legal = game.legal_moves()
            if not legal:
                break
            positions.append(f"{variant} {game.position.hub()}")
            expected.append(",".join(sorted(str(m) for m in legal)))
            game.play(rng.choice(legal))
    res = subprocess.run([str(PYD_PYTHON), "-c", _CHECK, str(HERE)], input="\n".join(positions),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    got = res.stdout.split("\n")[:len(expected)]
    bad = [(p, e, g) for p, e, g in zip(positions, expected, got) if e != g]
    assert not bad, bad[:3]


@needs_pyd
def test_wrapper_plays_a_short_match():
    results, out = run("--variant", "brazilian", "--engine1", OURS,
                       "--engine2", f"{PYD_PYTHON} {WRAPPER}", "--games", "2",
                       "--move-time", "0.05", "--max-plies", "40", "--tolerance", "1.5")
    assert len(results) == 2 and "PROBLEM" not in out, out


def test_engine_figures_come_from_the_last_info_line_of_each_move():
    # the fake engine says `nodes=1000 time=0.010` before each move: 100,000 nodes a second
    results, out = run("--variant", "brazilian", "--engine1", f"{FAKE} first 0 0.1",
                       "--engine2", f"{FAKE} first", "--name1", "counted", "--name2", "silent",
                       "--games", "2", "--move-time", "0.5", "--max-plies", "12")
    lines = {l.split(":")[0]: l for l in out.splitlines() if ": moves=" in l}
    assert set(lines) == {"counted", "silent"}, out
    counted = re.search(r"moves=(\d+) mean-move=([\d.]+)s searched=(\d+) nodes/s=([\d.]+)M "
                        r"mean-search=([\d.]+)s", lines["counted"])
    assert counted, lines["counted"]
    n, mean, searched, nps, search = counted.groups()
    assert int(n) == int(searched) == 8          # 12 plies less the 4 of the opening, 2 games
    assert float(nps) == pytest.approx(0.1)
    assert float(search) == pytest.approx(0.010)
    assert float(mean) < 0.5
    assert lines["silent"].endswith("searched=0 nodes/s=- mean-search=-")


def test_concurrent_games_are_all_counted():
    results, out = run("--variant", "russian", "--engine1", f"{FAKE} first",
                       "--engine2", f"{FAKE} first", "--games", "4", "--move-time", "0.05",
                       "--max-plies", "20", "--concurrency", "2")
    assert len(results) == 4 and "PROBLEM" not in out, out
    assert sorted(int(n) for n in re.findall(r"^game +(\d+)/4", out, re.M)) == [1, 2, 3, 4]
    assert "(russian, 4 games)" in out.splitlines()[-1]


# --- the state file: a killed match resumes --------------------------------------------------

GAME_LINE = re.compile(r"^game +(\d+)/\d+ ", re.M)


def test_a_match_with_a_state_file_resumes_without_replaying(tmp_path):
    state = tmp_path / "m.jsonl"
    argv = ["--variant", "russian", "--engine1", f"{FAKE} first", "--engine2", f"{FAKE} first",
            "--games", "6", "--move-time", "0.05", "--max-plies", "20", "--state", str(state)]
    results, out = run(*argv)
    games = state_games(state)
    assert json.loads(state.read_text().splitlines()[0])["type"] == "match"
    assert sorted(int(g["key"]) for g in games) == list(range(1, 7))
    # as if killed after four games, the last of them half written
    lines = state.read_text().splitlines(keepends=True)
    kept = [g for g in games if int(g["key"]) not in (2, 5)]
    state.write_text(lines[0] + "".join(json.dumps(g) + "\n" for g in kept)
                     + '{"type": "game", "key": "5", "ga')
    again, out = run(*argv)
    assert f"resuming from {state}: 4 games already played, 2 to play" in out
    assert sorted(int(n) for n in GAME_LINE.findall(out)) == [2, 5]
    assert again == results                       # the same games (the engines are fixed)
    assert sorted(int(g["key"]) for g in state_games(state)) == list(range(1, 7))
    # a third run plays nothing and reports the whole match
    again, out = run(*argv)
    assert not GAME_LINE.search(out) and again == results
    assert "(russian, 6 games)" in out.splitlines()[-1]


def test_ctrl_c_stops_a_match_at_once_and_it_resumes(tmp_path):
    """Ctrl-C (SIGINT) ends the match at once: no game not yet begun is played, the
    games under way are dropped (the engines are killed under them), the finished ones stay in
    the state file, and the same command plays only the rest."""
    state = tmp_path / "m.jsonl"
    # games of about a second each (40 plies of 0.03 s): 20 of them would take 10 s at two a time
    argv = ["--variant", "brazilian", "--engine1", f"{FAKE} slow 0.03", "--engine2",
            f"{FAKE} slow 0.03", "--games", "20", "--move-time", "1", "--max-plies", "40",
            "--concurrency", "2"]
    proc = start("match", argv, state)
    wait_for_games(state, 2, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    first = state_games(state)
    # two games finished, at most two under way (and a slow machine's extra second): not 20
    assert 2 <= len(first) < 8, "the match played on after Ctrl-C"
    assert f"interrupted after {len(first)} of 20 games; run the same command again" in out
    assert f"(brazilian, {len(first)} games): wins=" in out      # the summary of what was played
    assert all(not g["game"].get("failure") for g in first)
    numbers = sorted(int(g["key"]) for g in first)
    again, out = run(*argv, "--state", str(state))
    assert f"resuming from {state}: {len(first)} games already played" in out
    played = sorted(int(n) for n in GAME_LINE.findall(out))
    assert not set(played) & set(numbers) and len(played) == 20 - len(first)
    assert sorted(int(g["key"]) for g in state_games(state)) == list(range(1, 21))


def test_an_sprt_goes_on_from_the_state_file(tmp_path):
    state = tmp_path / "sprt.jsonl"
    argv = ["--variant", "brazilian", "--engine1", f"{FAKE} first", "--engine2",
            f"{FAKE} illegal", "--games", "60", "--move-time", "0.05", "--sprt", "0", "100",
            "--state", str(state)]
    results, out = run(*argv)
    assert "H1 accepted" in out.splitlines()[-1]
    played = len(results)
    assert 4 <= played < 60 and len(state_games(state)) == played
    # cut the file to its first two game pairs: the rerun plays on until the same decision
    lines = state.read_text().splitlines(keepends=True)
    state.write_text("".join(lines[:5]))
    again, out = run(*argv)
    assert "resuming from" in out and "4 games already played" in out
    assert len(again) == played and "H1 accepted" in out.splitlines()[-1]
    assert len(GAME_LINE.findall(out)) == played - 4
    # decided already: nothing is played
    again, out = run(*argv)
    assert not GAME_LINE.search(out) and "H1 accepted" in out.splitlines()[-1]


def test_a_state_file_of_another_match_is_refused(tmp_path, capsys):
    state = tmp_path / "s.jsonl"
    argv = ["--variant", "russian", "--engine1", f"{FAKE} first", "--engine2", f"{FAKE} first",
            "--games", "2", "--move-time", "0.05", "--max-plies", "10", "--state", str(state)]
    run(*argv)
    with pytest.raises(match.MatchError, match=r"other settings \(engines differ\)"):
        run(*argv, "--param1", "skill=3")
    with pytest.raises(match.MatchError, match=r"other settings \(games, openings differ\)"):
        run(*argv, "--games", "4")
    with pytest.raises(match.MatchError, match=r"other settings \(time differ\)"):
        run(*argv, "--move-time", "0.1")
    run(*argv, "--concurrency", "2")              # how many at once does not matter
    tournament_file = tmp_path / "t.jsonl"
    tournament_file.write_text('{"type": "tournament", "version": 1, "settings": {}}\n')
    code = match.run(parse(*argv[:-1], str(tournament_file)))
    assert code == 1
    assert "is not a match state file" in capsys.readouterr().err
