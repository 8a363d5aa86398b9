"""The analysis with the real engine at small depths: schema and score consistency, the same
results from one process, the process pool and a Dask cluster, other limits, the command line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("hub_engine.engine", reason="the engine (compiled search) is not available")

from test_analyse_pipeline import EXPECTED_GAMES, GAMES, by_key, check_record, lines  # noqa: E402

from hub_engine import analysis as an  # noqa: E402
from hub_engine.rules.position import Position  # noqa: E402

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent.parent


@pytest.fixture(scope="module")
def pool_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pool") / "pool.jsonl"
    summary = an.analyse([GAMES], depth=4, workers=2, output=out, errors_to=None)
    return summary, lines(out)


def test_engine_end_to_end(pool_run):
    summary, recs = pool_run
    assert summary["analysed"] == len(recs) == sum(EXPECTED_GAMES.values())
    assert len(summary["errors"]) == 2 and summary["failed"] == 0
    for rec in recs:
        check_record(rec)
        assert 1 <= rec["depth"] <= 4 and rec["nodes"] > 0 and rec["pv"][0] == rec["best"]
        assert -100 <= rec["score"] <= 100
        if rec["played"] is not None and rec["played"] == rec["best"]:
            assert rec["played_score"] == rec["score"] and rec["loss"] == 0.0


def test_pool_and_one_process_agree_at_fixed_depth(pool_run, tmp_path):
    out = tmp_path / "inline.jsonl"
    an.analyse([GAMES], depth=4, workers=1, output=out, errors_to=None)
    assert by_key(lines(out)) == by_key(pool_run[1])


def test_dask_local_cluster_agrees_with_the_pool(pool_run, tmp_path):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'hub-engine[cluster]')")
    out = tmp_path / "dask.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        summary = an.analyse([GAMES], depth=4, output=out, scheduler=cluster.scheduler_address,
                             errors_to=None)
        # a Client of the caller's own works too (and is left open)
        with distributed.Client(cluster) as client:
            again = tmp_path / "client.jsonl"
            an.analyse([GAMES], depth=4, output=again, scheduler=client, errors_to=None)
            assert client.status == "running"
    assert summary["failed"] == 0 and summary["workers"] is None
    assert summary["scheduler"] == cluster.scheduler_address
    assert by_key(lines(out)) == by_key(pool_run[1]) == by_key(lines(again))


def test_node_and_time_limits(tmp_path):
    fen = str(DATA / "positions.fen")
    out = tmp_path / "n.jsonl"
    an.analyse(fen, nodes=2000, workers=1, output=out, errors_to=None)
    recs = lines(out)
    assert len(recs) == 3 and all(r["nodes"] > 0 for r in recs)
    out = tmp_path / "t.jsonl"
    summary = an.analyse(fen, move_time=0.05, workers=2, output=out, errors_to=None)
    assert summary["analysed"] == 3 and summary["elapsed"] < 20
    assert all(r["depth"] >= 1 and r["time"] < 5 for r in lines(out))


def test_command_line(tmp_path):
    """`python -m hub_engine.analysis ...` (what `hub-engine analyse` runs)."""
    out = tmp_path / "cli.jsonl"
    cmd = [sys.executable, "-m", "hub_engine.analysis", GAMES, "--depth", "3",
           "--workers", "2", "--output", str(out), "--pdn-output", str(tmp_path / "a.pdn")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1, proc.stderr          # the file holds two bad games
    assert proc.stdout == ""
    assert "game 6, move 2: illegal move 18-14" in proc.stderr
    assert "game 7: unknown GameType 20" in proc.stderr
    assert len(lines(out)) == sum(EXPECTED_GAMES.values()), proc.stderr
    assert (tmp_path / "a.pdn").read_text().count("[Event") == 7
    # `--output -`: the lines go to stdout
    proc = subprocess.run([sys.executable, "-m", "hub_engine.analysis",
                           str(DATA / "italian.hub"), "--variant", "italian", "--depth", "3",
                           "--output", "-"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    recs = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(recs) == 2 and all(r["variant"] == "italian" for r in recs)


def test_multipv_records_the_best_lines_and_scores_played_moves_exactly(tmp_path, pool_run):
    out = tmp_path / "multipv.jsonl"
    summary = an.analyse([GAMES], depth=4, workers=1, output=out, multipv=3, errors_to=None)
    recs = lines(out)
    assert summary["analysed"] == len(recs) and summary["failed"] == 0
    single = by_key(pool_run[1])
    outside = 0
    for rec in recs:
        check_record(rec)
        if rec.get("result") == "loss":
            continue
        legal = Position.from_hub(rec["variant"], rec["position"]).legal_moves()
        lines_ = rec["multipv"]
        assert len(lines_) == min(3, len(legal)), rec
        assert [x["move"] for x in lines_] == list(dict.fromkeys(x["move"] for x in lines_))
        assert lines_[0]["move"] == rec["best"] and lines_[0]["score"] == rec["score"]
        assert lines_[0]["pv"] == rec["pv"]
        scores = [x["score"] for x in lines_]
        assert scores == sorted(scores, reverse=True)
        assert rec["limits"]["multipv"] == 3
        # the best line is what the one-line analysis found
        one = single[(rec["game"], rec["ply"])]
        assert (rec["best"], rec["score"]) == (one["best"], one["score"])
        if rec["played"] is not None:
            by_move = {x["move"]: x["score"] for x in lines_}
            if rec["played"] in by_move:
                assert rec["played_score"] == by_move[rec["played"]]
            else:
                outside += 1          # searched alone, as in the one-line analysis
                assert rec["played_score"] == one["played_score"]
    assert outside > 0


def test_multipv_out_of_range_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="multipv"):
        an.analyse([GAMES], depth=2, workers=1, output=tmp_path / "x.jsonl", multipv=0)
