"""The tournament runner (hub_engine.matches.tournament): real engines and misbehaving fakes."""
from __future__ import annotations

import argparse
import io
import json
import re
import shlex
import signal
import sys
from pathlib import Path

import pytest

from hub_engine import cli
from hub_engine.matches import tournament as tour
from hub_engine.matches.games import Adjudication
from hub_engine.rules.pdn import read_pdn_file
from hub_engine.rules.position import Game, Position
from launchers import engine_command
from runs import start, state_games, wait_for_games

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OURS = shlex.join(engine_command())
FAKE = f"{sys.executable} {HERE / 'fake_engines.py'}"
GAME_LINE = re.compile(r"^game +(\d+)/\d+ ", re.M)


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    tour.add_arguments(p)
    return p.parse_args(list(argv))


def run(*argv: str) -> tuple[tour.TournamentOutcome, str]:
    out = io.StringIO()
    outcome = tour.run_tournament(parse(*argv), out=out)
    return outcome, out.getvalue()


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(ROOT)


def check_cross_table(doc: dict, names: list[str], per_pair: dict[frozenset, int]) -> None:
    """Every pair's two cells add up to the games they played; scores add up to the games."""
    table = doc["crosstable"]
    assert sorted(table) == sorted(names)
    for a in names:
        for b in names:
            if a == b:
                continue
            ab, ba = table[a][b], table[b][a]
            assert ab["games"] == ba["games"] == per_pair.get(frozenset((a, b)), 0)
            assert ab["score"] + ba["score"] == ab["games"]
            assert (ab["wins"], ab["draws"], ab["losses"]) == (ba["losses"], ba["draws"], ba["wins"])
            assert ab["score"] == ab["wins"] + ab["draws"] / 2
    rows = {r["name"]: r for r in doc["standings"]}
    for a in names:
        assert rows[a]["games"] == sum(table[a][b]["games"] for b in names if b != a)
        assert rows[a]["score"] == sum(table[a][b]["score"] for b in names if b != a)
    assert sum(r["score"] for r in doc["standings"]) == doc["games_played"]
    assert sum(r["games"] for r in doc["standings"]) == 2 * doc["games_played"]


def test_round_robin_with_a_crashing_and_cheating_engine(tmp_path):
    """Our engine at two skill levels and a fake that crashes in some games and plays an
    illegal move in others: every game is played, the fake loses each of them, is named as the
    culprit and is restarted, and the cross table, JSON and PDN agree."""
    js, pdn = tmp_path / "t.json", tmp_path / "t.pdn"
    outcome, out = run("--variant", "russian", "--engine", f"strong={OURS}",
                       "--engine", f"weak={OURS}", "--param", "weak:skill=1",
                       "--engine", f"flaky={FAKE} flaky", "--games", "2", "--move-time", "0.02",
                       "--max-plies", "60", "--opening-depth", "0", "--tolerance", "1.0",
                       "--json", str(js), "--pdn-output", str(pdn))
    assert outcome.complete and len(outcome.records) == 6 and not outcome.unplayed
    assert sorted(int(n) for n in GAME_LINE.findall(out)) == [1, 2, 3, 4, 5, 6]
    doc = json.loads(js.read_text())
    names = ["strong", "weak", "flaky"]
    check_cross_table(doc, names, {frozenset(p): 2 for p in tour.pairings(names, "round-robin")})
    rows = {r["name"]: r for r in doc["standings"]}
    assert set(rows["flaky"]) >= {"name", "games", "score", "elo", "error"}
    assert rows["flaky"]["score"] == 0 and rows["flaky"]["losses"] == 4
    assert doc["standings"][-1]["name"] == "flaky"
    assert all(isinstance(r["elo"], float) and r["error"] > 0 for r in doc["standings"])
    assert [r["rank"] for r in doc["standings"]] == [1, 2, 3]
    assert doc["complete"] and doc["games_played"] == doc["games_scheduled"] == 6
    # each of flaky's games is reported: which engine, which game, why
    problems = doc["problems"]
    assert len(problems) == 4 and {p["engine"] for p in problems} == {"flaky"}
    for p in problems:
        rec = next(r for r in outcome.records if r.number == p["game"])
        assert "flaky" in (rec.white, rec.black) and p["reason"] == rec.reason
        if rec.white == "flaky":           # the first mover's side: it crashes, exit code 3
            assert "exited with code 3" in p["problem"] and "fake engine crashing" in p["problem"]
        else:                              # the second mover's side: an illegal move
            assert "illegal move '1-2'" in p["problem"]
        assert f"PROBLEM game {p['game']} ({rec.white} - {rec.black}): flaky" in out
    # restarted after each crash: it plays on (and fails again at its third move) in its next game
    flaky_games = sorted(p["game"] for p in problems)
    crashes = [r.number for r in outcome.records if r.white == "flaky"]
    assert any(g > min(crashes) for g in flaky_games)
    # the printed tables
    assert "Rating list (6 of 6 games):" in out and "Cross table" in out
    assert re.search(r"^flaky +x +|^flaky +0/2 +0/2 +x", out, re.M), out
    # the PDN: our reader and pydraughts' read every game, move for move
    ours = read_pdn_file(pdn, "russian")
    assert len(ours) == 6 and all(g.ok for g in ours)
    by_number = {r.number: r for r in outcome.records}
    for g in ours:
        rec = by_number[int(g.tags["Round"])]
        assert [str(m.move) for m in g.moves] == rec.moves
        assert g.tags["Result"] == rec.result and g.tags["White"] == rec.white
    pdn_mod = pytest.importorskip("draughts.PDN", reason="pydraughts (the test extra) is missing")
    from draughts import Board, Move

    theirs = pdn_mod.PDNReader(filename=str(pdn)).games
    assert len(theirs) == 6
    for g, mine in zip(theirs, ours):
        assert g.tags["Result"] == mine.tags["Result"] and g.variant == "russian"
        board = Board("russian", "startpos")
        for text in g.moves:
            board.push(Move(board, pdn_move=text))
        assert len(g.moves) == len(mine.moves)


def test_killed_tournament_resumes_without_replaying(tmp_path):
    """Interrupted with Ctrl-C (SIGINT), then killed outright (SIGKILL) mid-game, then run to
    the end: each run plays only what is missing, and no game is played twice."""
    state = tmp_path / "state.jsonl"
    # games of about a second each (40 plies of 0.03 s), so that on a loaded machine the run
    # is still far from its end when the signals come
    argv = ["--variant", "brazilian", "--engine", f"a={FAKE} slow 0.03",
            "--engine", f"b={FAKE} slow 0.03", "--engine", f"c={FAKE} slow 0.03",
            "--games", "6", "--move-time", "1", "--max-plies", "40", "--opening-depth", "0",
            "--json", str(tmp_path / "t.json")]
    total = 3 * 6
    # 1. Ctrl-C: the games so far stay, the run says how to go on and exits with 130
    proc = start("tournament", argv, state)
    wait_for_games(state, 2, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted after" in out and "run the same command again" in out
    first = state_games(state)
    assert 2 <= len(first) < total
    assert json.loads((tmp_path / "t.json").read_text())["complete"] is False
    # 2. resumed, then killed with SIGKILL: no clean-up at all
    proc = start("tournament", argv, state)
    wait_for_games(state, len(first) + 2, proc)
    proc.kill()
    out, _ = proc.communicate(timeout=60)
    assert f"resuming from {state}: {len(first)} games already played" in out
    second = state_games(state)
    assert len(second) < total, "the tournament ended before it was killed"
    assert second[:len(first)] == first
    # a kill in the middle of a write leaves half a line: it is cut off and that game replayed
    with state.open("a") as f:
        f.write('{"type": "game", "key": "[5, \\"a\\"')
    # 3. to the end, in this process
    outcome, out = run(*argv, "--state", str(state))
    assert f"resuming from {state}: {len(second)} games already played, " \
           f"{total - len(second)} to play" in out
    played_now = [int(n) for n in GAME_LINE.findall(out)]
    played_before = {g["game"]["number"] for g in second}
    assert len(played_now) == total - len(second)
    assert not set(played_now) & played_before
    final = state_games(state)
    assert final[:len(second)] == second and len(final) == total
    keys = [g["key"] for g in final]
    assert len(set(keys)) == total
    assert sorted(g["game"]["number"] for g in final) == list(range(1, total + 1))
    assert outcome.complete and len(outcome.records) == total
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["complete"] and doc["games_played"] == total
    names = ["a", "b", "c"]
    check_cross_table(doc, names, {frozenset(p): 6 for p in tour.pairings(names, "round-robin")})
    # and a fourth run plays nothing at all
    outcome, out = run(*argv, "--state", str(state))
    assert not GAME_LINE.search(out) and outcome.complete
    assert len(state_games(state)) == total


def test_a_state_file_of_other_settings_is_refused(tmp_path):
    state = tmp_path / "s.jsonl"
    argv = ["--variant", "brazilian", "--engine", f"a={FAKE} first", "--engine",
            f"b={FAKE} first", "--games", "2", "--move-time", "1", "--max-plies", "10",
            "--opening-depth", "0", "--state", str(state)]
    outcome, _ = run(*argv)
    assert outcome.complete
    with pytest.raises(tour.TournamentError, match=r"other settings \(games, openings differ\)"):
        run(*argv[:-2], "--games", "4", "--state", str(state))
    with pytest.raises(tour.TournamentError, match=r"other settings \(engines differ\)"):
        run(*argv, "--param", "a:skill=3")
    other = tmp_path / "other.jsonl"
    other.write_text('{"game": 1}\n')
    with pytest.raises(tour.TournamentError, match="not a tournament state file"):
        run(*argv[:-1], str(other))


def test_gauntlet_schedule_and_keys():
    names = ["hero", "x", "y", "z"]
    assert tour.pairings(names, "gauntlet") == [("hero", "x"), ("hero", "y"), ("hero", "z")]
    assert len(tour.pairings(names, "round-robin")) == 6
    tasks = tour.schedule(names, "gauntlet", [["11-15"], ["9-13"]])
    assert len(tasks) == 2 * 3 * 2
    assert [t["number"] for t in tasks] == list(range(1, 13))
    assert len({tour.task_key(t) for t in tasks}) == 12
    # every opening with both colours for every pairing, one opening at a time
    assert [(t["opening"], t["white"], t["black"]) for t in tasks[:2]] == [
        (["11-15"], "hero", "x"), (["11-15"], "x", "hero")]
    assert all(t["opening"] == ["11-15"] for t in tasks[:6])


def test_gauntlet_runs_only_the_first_engine_s_pairings(tmp_path):
    js = tmp_path / "g.json"
    outcome, out = run("--format", "gauntlet", "--variant", "russian",
                       "--engine", f"hero={FAKE} first", "--engine", f"x={FAKE} first",
                       "--engine", f"y={FAKE} first", "--games", "2", "--move-time", "1",
                       "--max-plies", "12", "--opening-depth", "0", "--json", str(js))
    assert outcome.complete and len(outcome.records) == 4
    doc = json.loads(js.read_text())
    check_cross_table(doc, ["hero", "x", "y"],
                      {frozenset(("hero", "x")): 2, frozenset(("hero", "y")): 2})
    assert doc["crosstable"]["x"]["y"]["games"] == 0


@pytest.mark.parametrize("bad,message", [
    (["--engine", "a=x"], "at least two engines"),
    (["--engine", "a=x", "--engine", "a=y"], "two engines are named 'a'"),
    (["--engine", "a", "--engine", "b=y"], "NAME=COMMAND"),
    (["--engine", "a b=x", "--engine", "b=y"], "bad engine name"),
    (["--engine", "a=x", "--engine", "b=y", "--param", "c:skill=3"], "NAME:KEY=VALUE"),
    (["--engine", "a=x", "--engine", "b=y", "--param", "a:skill"], "NAME:KEY=VALUE"),
    (["--engine", "a=x", "--engine", "b=y", "--anchor", "c"], "--anchor 'c'"),
    (["--engine", "a=x", "--engine", "b=y", "--games", "0"], "--games"),
    (["--engine", "a=x", "--engine", "b=y", "--move-time", "0"], "--move-time"),
    (["--engine", "a=x", "--engine", "b=y", "--openings", "/nonexistent"], "openings"),
    (["--engine", "a=x", "--engine", "b=y", "--tb-pieces", "7"], "--tb-pieces must be from 0 to 6"),
    (["--engine", "a=x", "--engine", "b=y", "--tb-pieces", "4", "--tb-path", "/nonexistent"],
     "--tb-path /nonexistent is not a directory"),
    (["--engine", "a=x", "--engine", "b=y", "--resign-score", "-1"], "--resign-score"),
    (["--engine", "a=x", "--engine", "b=y", "--draw-moves", "0"], "--draw-moves"),
])
def test_bad_options_are_named(bad, message, capsys):
    code = cli.main(["tournament", *bad, "--opening-depth", "0"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("tournament: error:") and message in err, err


def test_a_json_file_in_a_missing_directory_is_an_error(tmp_path, capsys):
    code = cli.main(["tournament", "--engine", f"a={FAKE} first", "--engine", f"b={FAKE} first",
                     "--games", "2", "--move-time", "1", "--max-plies", "10", "--opening-depth",
                     "0", "--json", str(tmp_path / "no" / "such" / "t.json")])
    assert code == 1
    assert "tournament: error: cannot write " in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_an_engine_that_never_starts_stops_the_tournament(capsys):
    code = cli.main(["tournament", "--engine", f"a={FAKE} first", "--engine",
                     "b=no-such-engine-command", "--games", "2", "--move-time", "1",
                     "--opening-depth", "0"])
    assert code == 1
    assert "tournament: error: b could not start" in capsys.readouterr().err


def test_adjudication_by_agreed_scores():
    # `sure` says +5 on every move and `doomed` -5: after three moves each, sure wins
    outcome, out = run("--variant", "brazilian", "--engine", f"sure={FAKE} first 0 5",
                       "--engine", f"doomed={FAKE} first 0 -5", "--games", "2",
                       "--move-time", "1", "--opening-depth", "0", "--opening-plies", "4",
                       "--resign-score", "4", "--resign-moves", "3")
    assert outcome.complete
    for r in outcome.records:
        assert r.score_of("sure") == 1.0 and r.reason.startswith("adjudicated")
        assert len(r.moves) == 4 + 6            # the opening and three moves each
    # each engine's moves: 3 a game, each after `info ... nodes=1000 time=0.010`
    for name in ("sure", "doomed"):
        assert f"  {name}: moves=6 " in out and f"  {name}:" in out, out
        line = next(l for l in out.splitlines() if l.startswith(f"  {name}: moves="))
        assert line.endswith("searched=6 nodes/s=0.10M mean-search=0.010s"), line
    # both near 0: a draw once each has two such scores and ply 10 is reached
    outcome, out = run("--variant", "brazilian", "--engine", f"a={FAKE} first 0 0.1",
                       "--engine", f"b={FAKE} first 0 -0.05", "--games", "2",
                       "--move-time", "1", "--opening-depth", "0", "--opening-plies", "4",
                       "--draw-score", "0.2", "--draw-moves", "2", "--draw-after", "10",
                       "--resign-score", "4")
    for r in outcome.records:
        assert r.result == "1/2-1/2" and r.reason.startswith("adjudicated: draw")
        assert len(r.moves) == 10
    # scores that disagree adjudicate nothing
    outcome, out = run("--variant", "brazilian", "--engine", f"a={FAKE} first 0 5",
                       "--engine", f"b={FAKE} first 0 5", "--games", "2", "--move-time", "1",
                       "--opening-depth", "0", "--max-plies", "30", "--resign-score", "4")
    assert all(not r.reason.startswith("adjudicated") for r in outcome.records)


def test_adjudication_by_the_tables():
    adj = Adjudication(tb_pieces=4)
    # russian: a white king takes the last black man at once: a win for White
    game = Game("russian", Position.from_fen("russian", "W:WKc3:Bd4"))
    assert adj.table_value(game) == "win"
    # a king each, far apart, no capture: a draw
    game = Game("russian", Position.from_fen("russian", "W:WKa1:BKh2"))
    assert adj.table_value(game) == "draw"
    # above the piece limit the tables are not asked
    game = Game("russian", Position.from_fen("russian", "W:WKa1,c1,e1:BKh2,g7"))
    assert adj.table_value(game) is None
    assert Adjudication().table_value(game) is None


def test_cluster_games(tmp_path):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'hub-engine[cluster]')")
    js = tmp_path / "c.json"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        outcome, out = run("--variant", "russian", "--engine", f"a={FAKE} first",
                           "--engine", f"b={FAKE} slow 0.01", "--engine", f"c={FAKE} flaky",
                           "--games", "2", "--move-time", "1", "--max-plies", "20",
                           "--opening-depth", "0", "--scheduler", cluster.scheduler_address,
                           "--json", str(js))
    assert outcome.complete and len(outcome.records) == 6, out
    doc = json.loads(js.read_text())
    names = ["a", "b", "c"]
    check_cross_table(doc, names, {frozenset(p): 2 for p in tour.pairings(names, "round-robin")})
    assert {p["engine"] for p in doc["problems"]} == {"c"} and len(doc["problems"]) == 4
    # the moves counted on the cluster's workers come back with the games
    assert set(doc["moves"]) == set(names)
    assert all(m["moves"] > 0 and m["seconds"] > 0 for m in doc["moves"].values())
    # every answer to `go` counts, the illegal ones too (they took their time)
    illegal = sum(1 for r in outcome.records if "illegal move" in r.reason)
    assert illegal and sum(m["moves"] for m in doc["moves"].values()) == sum(
        len(r.moves) - len(r.opening) for r in outcome.records) + illegal


def test_registered_on_the_command_line(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["tournament", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--engine", "--param", "--format", "--games", "--move-time", "--time",
                   "--concurrency", "--scheduler", "--state", "--json", "--pdn-output",
                   "--anchor", "--tb-pieces", "--resign-score", "--draw-score"):
        assert option in text
