"""The analysis pipeline with a stub analyser (instant, deterministic): tasks from every input
kind, the JSON Lines schema, errors, resume after a kill, the process pool, annotated PDN, CLI."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from analysis_fakes import failing_analyser, stub_analyser
from launchers import default_sigint

from hub_engine import analysis as an
from hub_engine import quality
from hub_engine.analysis import cli, worker
from hub_engine.analysis.run import default_output
from hub_engine.rules.pdn import read_pdn_file
from hub_engine.rules.position import Position

HERE = Path(__file__).parent
DATA = HERE / "data"
GAMES = str(DATA / "games.pdn")
ROOT = HERE.parent.parent

SCHEMA = {
    "game": str, "ply": int, "label": (str, type(None)), "variant": str, "position": str,
    "fen": str, "side": str, "played": (str, type(None)), "best": (str, type(None)),
    "score": float, "pv": list, "depth": int, "nodes": int, "played_score": (float, type(None)),
    "loss": (float, type(None)), "class": (str, type(None)), "outcome": (str, type(None)),
    "table": (str, type(None)), "book": bool, "limits": dict, "engine": str, "time": float,
}
# plies of each game of games.pdn (14 moves and the final position; the broken game keeps 2 moves)
EXPECTED_GAMES = {1: 15, 2: 15, 3: 15, 4: 15, 5: 15, 6: 3, 8: 3}


def lines(path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f]


def check_record(rec: dict) -> None:
    assert set(rec) - {"multipv"} == set(SCHEMA), set(rec) ^ set(SCHEMA)
    for key, kind in SCHEMA.items():
        assert isinstance(rec[key], kind) or (kind is float and isinstance(rec[key], int)), (key, rec)
    pos = Position.from_hub(rec["variant"], rec["position"])
    assert rec["fen"] == pos.fen() and rec["side"] == pos.side_name
    assert rec["side"] in ("white", "black") and len(rec["position"]) == 33
    assert set(rec["limits"]) - {"multipv"} == {"depth", "nodes", "move_time"}
    assert rec["engine"].startswith("hub-engine ")
    if rec["outcome"] == "loss":        # no legal move: lost, not searched
        assert not pos.legal_moves() and rec["best"] is None and rec["pv"] == []
        assert rec["score"] == -100.0 and rec["played"] is None and rec["nodes"] == 0
        return
    assert rec["outcome"] is None
    assert rec["best"] in [str(m) for m in pos.legal_moves()]
    assert all(isinstance(m, str) for m in rec["pv"])
    if rec["played"] is None:
        assert rec["loss"] is None and rec["class"] is None and rec["played_score"] is None
    else:
        assert rec["played"] in [str(m) for m in pos.legal_moves()]
        assert rec["loss"] == round(max(0.0, rec["score"] - rec["played_score"]), 2)
        assert rec["class"] == quality.classify(rec["loss"])


def by_key(records: list[dict]) -> dict:
    return {(r["game"], r["ply"]): {k: v for k, v in r.items() if k != "time"} for r in records}


def test_classify_thresholds():
    assert (quality.INACCURACY, quality.MISTAKE, quality.BLUNDER) == (0.3, 1.0, 2.5)
    assert [quality.classify(x) for x in (None, 0.0, 0.29, 0.3, 0.99, 1.0, 2.49, 2.5, 99.0)] == [
        None, None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]


def test_negate_score_moves_a_win_by_one_ply():
    assert worker.negate_score(0.35) == -0.35
    assert str(worker.negate_score(0.0)) == "0.0"
    assert worker.negate_score(-99.97) == 99.96      # the child loses in 3 plies: we win in 4
    assert worker.negate_score(99.95) == -99.94


def test_end_to_end_with_the_process_pool(tmp_path):
    out = tmp_path / "out.jsonl"
    summary = an.analyse([GAMES], variant="brazilian", depth=4, workers=2, output=out,
                         analyser=stub_analyser, errors_to=None, progress=False)
    recs = lines(out)
    for rec in recs:
        check_record(rec)
    games = {}
    for rec in recs:
        games.setdefault(int(rec["game"].rsplit("#", 1)[1]), []).append(rec["ply"])
    assert {g: sorted(p) for g, p in games.items()} == {
        g: list(range(n)) for g, n in EXPECTED_GAMES.items()}
    assert summary["positions"] == summary["analysed"] == len(recs) == sum(EXPECTED_GAMES.values())
    assert summary["games"] == 8 and summary["failed"] == 0 and summary["skipped"] == 0
    assert [(e["file"], e["game"], e["move"]) for e in summary["errors"]] == [
        (GAMES, 6, "2."), (GAMES, 7, None)]
    assert "illegal move 18-14" in summary["errors"][0]["message"]
    assert "unknown GameType 20" in summary["errors"][1]["message"]
    # every variant of the file is there, with its side to move and played moves
    variants = {r["variant"] for r in recs}
    assert variants == {"russian", "brazilian", "italian", "english", "portuguese"}
    first = {r["variant"]: r for r in recs if r["ply"] == 0 and r["game"].endswith(("#1", "#4"))}
    assert first["russian"]["side"] == "white" and first["russian"]["played"] == "12-15"   # g3-f4
    assert first["english"]["side"] == "black" and first["english"]["played"] == "11-15"
    assert sum(r["class"] is not None for r in recs) == sum(summary["classes"].values()) > 0


def test_pool_and_inline_agree(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    an.analyse(GAMES, depth=4, workers=1, output=a, analyser=stub_analyser, errors_to=None)
    an.analyse(GAMES, depth=4, workers=2, output=b, analyser=stub_analyser, errors_to=None)
    assert by_key(lines(a)) == by_key(lines(b))


def test_bad_input_is_reported_on_stderr(tmp_path, capsys):
    an.analyse([GAMES, str(tmp_path / "missing.pdn")], depth=4, workers=1,
               output=tmp_path / "o.jsonl", analyser=stub_analyser)
    err = capsys.readouterr()
    assert err.out == ""
    assert f"{GAMES}, game 6, move 2: illegal move 18-14" in err.err
    assert f"{GAMES}, game 7: unknown GameType 20" in err.err
    assert "missing.pdn: cannot read" in err.err


def test_output_dash_is_stdout(capsys):
    summary = an.analyse(str(DATA / "italian.hub"), variant="italian", depth=3, workers=1,
                         output="-", analyser=stub_analyser)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 == summary["analysed"]
    recs = [json.loads(x) for x in out]
    for rec in recs:
        check_record(rec)
    assert [r["game"] for r in recs] == [f"{DATA / 'italian.hub'}:1", f"{DATA / 'italian.hub'}:2"]


def test_fen_lines_and_a_bad_line(tmp_path):
    out = tmp_path / "o.jsonl"
    summary = an.analyse(str(DATA / "positions.fen"), depth=3, workers=1, output=out,
                         analyser=stub_analyser, errors_to=None)
    recs = lines(out)
    assert sorted(r["game"].rsplit(":", 1)[1] for r in recs) == ["2", "3", "4"]
    assert all(r["ply"] == 0 and r["played"] is None for r in recs)
    assert [e["message"][:6] for e in summary["errors"]] == ["line 5"]


def test_resume_skips_done_positions_and_rewrites_a_cut_line(tmp_path):
    out = tmp_path / "o.jsonl"
    an.analyse(GAMES, depth=4, workers=1, output=out, analyser=stub_analyser, errors_to=None)
    full = out.read_text().splitlines(keepends=True)
    # keep 30 lines and half of the 31st, as a killed run leaves the file
    out.write_text("".join(full[:30]) + full[30][: len(full[30]) // 2])
    seen = []
    summary = an.analyse(GAMES, depth=4, workers=2, output=out, analyser=stub_analyser,
                         errors_to=None, progress=lambda done, total: seen.append((done, total)))
    assert summary["skipped"] == 30 and summary["analysed"] == len(full) - 30
    assert seen[-1] == (len(full), len(full)) and seen[0][0] == 31
    recs = lines(out)
    assert len(recs) == len(full) and by_key(recs) == by_key([json.loads(x) for x in full])
    # nothing left to do: the file stays as it is
    before = out.read_text()
    summary = an.analyse(GAMES, depth=4, workers=2, output=out, analyser=stub_analyser,
                         errors_to=None)
    assert summary["analysed"] == 0 and out.read_text() == before
    # --no-resume starts afresh
    summary = an.analyse(GAMES, depth=4, workers=1, output=out, analyser=stub_analyser,
                         errors_to=None, resume=False)
    assert summary["skipped"] == 0 and len(lines(out)) == len(full)


def test_failed_searches_are_reported_not_written_and_redone_on_resume(tmp_path):
    out = tmp_path / "o.jsonl"
    summary = an.analyse(GAMES, depth=4, workers=2, output=out, analyser=failing_analyser,
                         errors_to=None)
    n_games = len(EXPECTED_GAMES) - 2      # the two 3-position games have no ply 3
    assert summary["failed"] == n_games
    assert sum("engine exploded" in e["message"] for e in summary["errors"]) == n_games
    assert all(r["ply"] != 3 for r in lines(out))
    summary = an.analyse(GAMES, depth=4, workers=2, output=out, analyser=stub_analyser,
                         errors_to=None)
    assert summary["analysed"] == n_games and len(lines(out)) == sum(EXPECTED_GAMES.values())


KILL_SCRIPT = """
import sys
sys.path[:0] = [{here!r}, {root!r}]
from analysis_fakes import stub_analyser
from hub_engine.analysis import analyse
analyse([{games!r}], depth=4, workers={workers}, output={out!r}, analyser=stub_analyser,
        errors_to=None)
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_after_a_kill(tmp_path, workers):
    """Kill a run mid-way (SIGKILL: no clean-up at all), run again: no duplicates, same set."""
    ref = tmp_path / "ref.jsonl"
    an.analyse(GAMES, depth=4, workers=1, output=ref, analyser=stub_analyser, errors_to=None)
    out = tmp_path / "o.jsonl"
    script = KILL_SCRIPT.format(here=str(HERE), root=str(ROOT), games=GAMES, out=str(out),
                                workers=workers)
    env = dict(os.environ, HUB_ENGINE_STUB_DELAY="0.03")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count("\n") >= 20:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)      # the run and its workers, as a crash would
    proc.wait()
    partial = out.read_text().count("\n")
    assert 20 <= partial < sum(EXPECTED_GAMES.values())
    summary = an.analyse(GAMES, depth=4, workers=workers, output=out, analyser=stub_analyser,
                         errors_to=None)
    assert summary["skipped"] == partial
    recs = lines(out)
    keys = [(r["game"], r["ply"]) for r in recs]
    assert len(keys) == len(set(keys))
    assert by_key(recs) == by_key(lines(ref))


def test_annotated_pdn_reads_back(tmp_path):
    out, ann = tmp_path / "o.jsonl", tmp_path / "a.pdn"
    an.analyse([GAMES, str(DATA / "positions.fen")], depth=4, workers=1, output=out,
               pdn_output=ann, analyser=stub_analyser, errors_to=None)
    text = ann.read_text()
    assert text.count('[Annotator "hub-engine"]') == 7 + 3     # readable games + good FEN lines
    assert "?!" in text and "??" in text and "{hub-engine:" in text
    assert "the record stops being readable here: illegal move 18-14" in text
    again = read_pdn_file(ann, "brazilian")
    original = [g for g in read_pdn_file(GAMES, "brazilian") if g.start is not None]
    for a, b in zip(again, original):
        assert a.ok, a.errors
        assert [str(r.move) for r in a.moves] == [str(r.move) for r in b.moves]
        assert a.start == b.start


def test_cli_parser_and_run(tmp_path, monkeypatch, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="hub-engine")
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["analyse", GAMES, "--variant", "russian", "--depth", "5",
                              "--workers", "2", "--output", "x.jsonl", "--pdn-output", "y.pdn",
                              "--no-resume", "--scheduler", "tcp://h:1", "--format", "pdn"])
    assert (args.files, args.variant, args.depth, args.workers, args.output, args.pdn_output,
            args.resume, args.scheduler, args.fmt) == (
        [GAMES], "russian", 5, 2, "x.jsonl", "y.pdn", False, "tcp://h:1", "pdn")
    assert args.handler is cli.run
    with pytest.raises(SystemExit):
        parser.parse_args(["analyse", GAMES, "--depth", "5", "--nodes", "100"])
    capsys.readouterr()
    assert default_output("dir/games.pdn") == "dir/games.analysis.jsonl"

    # run() with the stub in place of the engine
    monkeypatch.setattr(worker, "engine_analyser", stub_analyser)
    out = tmp_path / "o.jsonl"
    args = parser.parse_args(["analyse", str(DATA / "positions.fen"), "--depth", "3",
                              "--workers", "1", "--output", str(out)])
    assert cli.run(args) == 1          # one bad line in the file
    captured = capsys.readouterr()
    assert captured.out == "" and "line 5" in captured.err
    assert len(lines(out)) == 3


def test_missing_dask_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)      # import fails
    with pytest.raises(RuntimeError, match=r"pip install 'hub-engine\[cluster\]'"):
        an.analyse(GAMES, depth=4, output=tmp_path / "o.jsonl", scheduler="tcp://127.0.0.1:1",
                   analyser=stub_analyser)
    assert not (tmp_path / "o.jsonl").exists()


def test_bad_limits(tmp_path):
    with pytest.raises(ValueError, match="depth must be positive"):
        an.analyse(GAMES, depth=0, output=tmp_path / "o.jsonl", analyser=stub_analyser)


INTERRUPT_SCRIPT = """
import sys
sys.path[:0] = [{here!r}, {root!r}]
from analysis_fakes import stub_analyser
from hub_engine.analysis import cli, worker
worker.engine_analyser = stub_analyser
sys.exit(cli.main([{games!r}, "--depth", "4", "--workers", "2", "--output", {out!r}]))
"""


def test_ctrl_c_stops_quickly_and_the_rerun_completes(tmp_path):
    out = tmp_path / "o.jsonl"
    script = INTERRUPT_SCRIPT.format(here=str(HERE), root=str(ROOT), games=GAMES, out=str(out))
    env = dict(os.environ, HUB_ENGINE_STUB_DELAY="0.03")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n") >= 10):
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)         # Ctrl-C reaches the run and its workers
    err = proc.communicate(timeout=30)[1]
    assert proc.returncode == 130, err
    assert "interrupted after" in err and "Traceback" not in err.split("interrupted after")[1]
    done = lines(out)
    assert 10 <= len(done) < sum(EXPECTED_GAMES.values())
    summary = an.analyse(GAMES, depth=4, workers=2, output=out, analyser=stub_analyser,
                         errors_to=None)
    assert summary["skipped"] == len(done)
    assert len(lines(out)) == sum(EXPECTED_GAMES.values())


def test_progress_bar(tmp_path, capsys):
    an.analyse(str(DATA / "italian.hub"), variant="italian", depth=3, workers=1,
               output=tmp_path / "o.jsonl", analyser=stub_analyser, progress=True)
    err = capsys.readouterr().err
    assert "\r" in err and "100%|" in err and "2/2 positions" in err and "/s" in err
    assert "ETA" in err and err.endswith("\n")
    an.analyse(str(DATA / "italian.hub"), variant="italian", depth=3, workers=1,
               output=tmp_path / "p.jsonl", analyser=stub_analyser)
    assert capsys.readouterr().err == ""      # stderr is not a terminal here: quiet


def test_default_output_is_next_to_the_first_input(tmp_path):
    src = tmp_path / "mine.fen"
    src.write_text((DATA / "positions.fen").read_text())
    summary = an.analyse(str(src), depth=3, workers=1, analyser=stub_analyser, errors_to=None)
    assert summary["output"] == str(tmp_path / "mine.analysis.jsonl")
    assert len(lines(tmp_path / "mine.analysis.jsonl")) == 3
