"""Self-play and training end to end on a tiny budget; weight files; the `eval` parameter."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hub_engine.learn.records import RECORD_SIZE, Record, read_records, write_records
from hub_engine.learn.selfplay import Player, SelfPlayConfig, play_game, selfplay
from hub_engine.learn.weights import decode, encode, evaluation, read_values, shipped_path

from launchers import engine_command

TINY = dict(nodes=300, shard_games=2, opening_min=2, opening_max=4, max_plies=120)


def test_records_round_trip(tmp_path):
    rows = [Record(0b1011, 1 << 31, 1, 7, -120, 33, 1, -1), Record(5, 6 << 20, 0, 8, 40000, 2, 0, 1, 1)]
    assert write_records(tmp_path / "r.bin", rows) == 2
    assert (tmp_path / "r.bin").stat().st_size == 2 * RECORD_SIZE
    back = list(read_records(tmp_path / "r.bin"))
    assert back[0] == rows[0]
    assert back[1].score == 32767                 # clipped into int16


def test_a_game_is_reproducible_and_records_quiet_positions():
    cfg = SelfPlayConfig("english", **TINY)
    player = Player(cfg)
    a, result, plies = play_game(player, cfg, 3)
    b, result_b, plies_b = play_game(player, cfg, 3)
    assert (a, result, plies) == (b, result_b, plies_b)
    assert a and result in (-1, 0, 1) and plies >= len(a)
    assert all(r.result == result and r.game == 3 for r in a)
    from hub_engine.core import has_capture_either
    from learn_helpers import board_of

    assert not any(has_capture_either(board_of("english", r.white, r.black, r.kings, r.side))
                   for r in a)


def test_selfplay_writes_shards_and_resumes(tmp_path):
    cfg = SelfPlayConfig("russian", **TINY)
    first = selfplay(cfg, 4, tmp_path, workers=1)
    assert first["played"] == 4 and first["skipped"] == 0 and first["positions"] > 0
    metas = sorted(tmp_path.glob("russian-*.json"))
    assert len(metas) == 2
    meta = json.loads(metas[0].read_text())
    size = (tmp_path / "russian-00000.bin").stat().st_size
    assert size == meta["positions"] * RECORD_SIZE
    again = selfplay(cfg, 6, tmp_path, workers=1)
    assert again["skipped"] == 2 and again["played"] == 2
    with pytest.raises(ValueError, match="other settings"):
        selfplay(SelfPlayConfig("russian", **{**TINY, "nodes": 400}), 6, tmp_path, workers=1)


def test_selfplay_on_a_dask_cluster_matches_local_play(tmp_path):
    distributed = pytest.importorskip("distributed")
    cfg = SelfPlayConfig("italian", **TINY)
    selfplay(cfg, 2, tmp_path / "local", workers=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        s = selfplay(cfg, 2, tmp_path / "dask", scheduler=client)
    assert s["played"] == 2
    assert ((tmp_path / "dask" / "italian-00000.bin").read_bytes()
            == (tmp_path / "local" / "italian-00000.bin").read_bytes())


def test_train_end_to_end_writes_loadable_weights(tmp_path):
    pytest.importorskip("numpy")
    pytest.importorskip("scipy")
    from hub_engine.learn.config import TrainConfig
    from hub_engine.learn.train import train_files

    data = tmp_path / "data"
    selfplay(SelfPlayConfig("brazilian", **TINY), 6, data, workers=1)
    out = tmp_path / "w.bin"
    report = train_files("brazilian", [data], out, TrainConfig(holdout=0.34, max_iter=20))
    assert report["games"] == 6 and report["positions"] > 0
    for key in ("loss_learned", "loss_hand", "loss_search", "loss_constant"):
        assert 0 < report[key] < 5, key
    assert "loss_init" not in report
    # from these weights again: the starting weights' loss on the same held-out games
    again = train_files("brazilian", [data], tmp_path / "new" / "w2.bin",
                        TrainConfig(holdout=0.34, max_iter=0, anchor=True), init=out)
    assert again["loss_init"] == pytest.approx(report["loss_learned"], abs=1e-5)
    assert again["anchor"] and (tmp_path / "new" / "w2.bin").exists()   # its directory made
    header, values = read_values(out)
    assert header["variant"] == "brazilian" and header["notes"]["games"] == 6
    weights = evaluation("brazilian", str(out))
    from hub_engine.core import Searcher, TransTable
    from hub_engine.rules.position import Position
    from hub_engine.rules.variants import get_variant

    s = Searcher(get_variant("brazilian").core_rules, TransTable(12), weights)
    assert isinstance(s.evaluate(Position.start("brazilian").board), int)


def test_weight_files_refuse_damage(tmp_path):
    from hub_engine.core import LEARNED_SHAPE

    n = (LEARNED_SHAPE["tables"] * LEARNED_SHAPE["entries"] + LEARNED_SHAPE["scalars"]) * 2
    data = encode("spanish", [i % 7 - 3 for i in range(n)], {"games": 1})
    header, raw = decode(data)
    assert header["variant"] == "portuguese" and len(raw) == 2 * n
    with pytest.raises(ValueError, match="bad magic"):
        decode(b"XXXX" + data[4:])
    with pytest.raises(ValueError, match="damaged|checksum"):
        decode(data[:-10] + bytes(10))
    with pytest.raises(ValueError, match="values"):
        encode("russian", [0, 1, 2])
    path = tmp_path / "p.bin"
    path.write_bytes(data)
    with pytest.raises(ValueError, match="not russian"):
        evaluation("russian", str(path))
    assert "learned" in evaluation("spanish", str(path))
    with pytest.raises(ValueError, match="cannot read"):
        evaluation("russian", str(tmp_path / "missing.bin"))


def test_every_rule_set_ships_weights_with_notes():
    for variant in ("english", "italian", "russian", "brazilian", "portuguese", "spanish"):
        header, _values = read_values(shipped_path(variant))
        notes = header["notes"]
        assert notes["games"] > 0 and notes["positions"] > 0 and "loss_learned" in notes


class _Hub:
    """The engine over pipes, one command at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(engine_command(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, first_word: str) -> list[str]:
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, "the engine closed its output"
            lines.append(line.strip())
            if line.split()[:1] == [first_word]:
                return lines

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)


def test_eval_parameter_over_hub():
    hub = _Hub()
    try:
        hub.send("hub")
        hello = hub.until("wait")
        assert 'param name=eval value=learned type=enum values="learned hand learned-v1 learned-v2 learned-v3"' in hello
        hub.send("set-param name=variant value=russian")
        hub.send("set-param name=eval value=bogus")
        hub.send("ping")
        assert any(l.startswith("error") and "bad value 'bogus' for eval" in l
                   for l in hub.until("pong"))
        for kind in ("hand", "learned", "learned-v1", "learned-v2", "learned-v3"):
            hub.send(f"set-param name=eval value={kind}")
            hub.send("init")
            hub.until("ready")
            hub.send("pos start")
            hub.send("level depth=4")
            hub.send("go think")
            assert hub.until("done")[-1].startswith("done move=")
    finally:
        hub.close()


def test_learn_cli_end_to_end_and_errors(tmp_path):
    cmd = engine_command()
    run = subprocess.run(cmd + ["learn", "selfplay", "--variant", "english", "--games", "2",
                                "--out", str(tmp_path), "--nodes", "300", "--shard-games", "2",
                                "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "played=2" in run.stdout
    bad = subprocess.run(cmd + ["learn", "selfplay", "--variant", "english", "--games", "2",
                                "--out", str(tmp_path / "x"), "--eval", str(tmp_path / "nope")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("hub-engine: error:")
    empty = subprocess.run(cmd + ["learn", "train", "--variant", "russian", "--data",
                                  str(tmp_path), "--out", str(tmp_path / "w.bin")],
                           capture_output=True, text=True, timeout=60)
    assert empty.returncode == 2 and "no complete russian self-play shards" in empty.stderr
    loose = subprocess.run(cmd + ["learn", "train", "--variant", "english", "--data",
                                  str(tmp_path), "--out", str(tmp_path / "w.bin"), "--anchor"],
                           capture_output=True, text=True, timeout=60)
    assert loose.returncode == 2 and "--anchor needs --init" in loose.stderr


def test_a_table_probe_ends_the_game_with_its_value():
    """With a probe (as the endgame tables will offer), the first position it answers ends the
    game, labelled with the probe's value and marked as a table label."""
    from hub_engine.learn.records import SOURCE_TABLE

    cfg = SelfPlayConfig("russian", **TINY)
    player = Player(cfg)

    def probe(board):
        m0, k0, m1, k1 = board.pieces()
        return 1 if len(m0 + k0 + m1 + k1) <= 20 else None   # "side to move wins" at <= 20

    records, result, plies = play_game(player, cfg, 5, probe)
    last = records[-1]
    assert last.source == SOURCE_TABLE and last.ply == plies
    assert result == (1 if last.side == 0 else -1)
    assert all(r.source != SOURCE_TABLE for r in records[:-1])


def test_weights_directory_from_the_environment(tmp_path, monkeypatch):
    from hub_engine.core import LEARNED_SHAPE

    n = (LEARNED_SHAPE["tables"] * LEARNED_SHAPE["entries"] + LEARNED_SHAPE["scalars"]) * 2
    (tmp_path / "learned-italian.bin").write_bytes(encode("italian", [0] * n, {"games": 0}))
    monkeypatch.setenv("HUB_ENGINE_WEIGHTS_DIR", str(tmp_path))
    assert shipped_path("italian") == tmp_path / "learned-italian.bin"
    from hub_engine.core import Searcher, TransTable
    from hub_engine.rules.position import Position
    from hub_engine.rules.variants import get_variant

    s = Searcher(get_variant("italian").core_rules, TransTable(12), evaluation("italian"))
    assert s.evaluate(Position.start("italian").board) == 0       # all-zero weights


def test_train_refuses_a_damaged_shard(tmp_path):
    pytest.importorskip("numpy")
    from hub_engine.learn.train import load

    selfplay(SelfPlayConfig("english", **TINY), 2, tmp_path, workers=1)
    with open(tmp_path / "english-00000.bin", "ab") as f:
        f.write(b"\0" * 5)
    with pytest.raises(ValueError, match="not a whole number of records"):
        load([tmp_path], "english")


def test_table_hook_reads_the_tables_package(monkeypatch):
    """The hook maps the tables package's probe results to +1 / 0 / -1 for the side to move."""
    import sys
    import types
    from dataclasses import dataclass

    from hub_engine.learn.tables_hook import table_probe
    from hub_engine.rules.position import Position

    @dataclass
    class Result:
        value: str

    class FakeTables:
        files = {"any": "slice"}

        def probe(self, position):
            n = sum(len(p) for p in position.board.pieces())
            return None if n > 4 else Result("loss" if position.side else "win")

    fake = types.ModuleType("hub_engine.tables")
    fake.open_tables = lambda variant: FakeTables()
    monkeypatch.setitem(sys.modules, "hub_engine.tables", fake)
    probe = table_probe("russian")
    assert probe(Position.start("russian").board) is None
    few = Position.from_hub("russian", "W" + "e" * 13 + "B" + "e" * 5 + "W" + "e" * 12)
    assert probe(few.board) == 1
    fake.open_tables = lambda variant: types.SimpleNamespace(files={})
    assert table_probe("russian") is None
