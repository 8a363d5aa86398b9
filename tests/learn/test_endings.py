"""Fitting the ending values: zero changes nothing, recovery of known values, the file."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from hub_engine.learn import endings as E  # noqa: E402
from hub_engine.learn import patterns as P  # noqa: E402
from hub_engine.learn.weights import encode, evaluation, read_weights  # noqa: E402

from learn_helpers import board_of, compiled_searcher, random_ending, random_values  # noqa: E402


def test_zero_values_score_as_before():
    """Ending values of 0 give the evaluation without them (the fit's starting point)."""
    rng = random.Random("zero")
    values = random_values(rng)
    with_zero = compiled_searcher("portuguese", values, [0] * P.ENDING_ENTRIES)
    plain = compiled_searcher("portuguese", values)
    positions = [random_ending(rng) for _ in range(2000)]
    assert ([with_zero.evaluate(board_of("portuguese", *p)) for p in positions]
            == [plain.evaluate(board_of("portuguese", *p)) for p in positions])


def test_entry_fields_invert_the_signature():
    for fields in [(0, 3, 0, 1, 1, 1), (7, 4, 7, 4, 0, 0), (2, 1, 0, 1, 1, 0)]:
        mo, ko, mt, kt, own, their = fields
        index = ((((mo * 5 + ko) * 8 + mt) * 5 + kt) * 2 + own) * 2 + their
        assert tuple(int(x) for x in E.entry_fields(np.array(index))) == fields
    assert E.entry_name(((((0 * 5 + 3) * 8 + 0) * 5 + 1) * 2 + 0) * 2 + 1) == "0m3k v 0m1k+d"


def test_fit_recovers_known_values():
    """Outcomes drawn from sigmoid((u + b) / K) with a known b per entry: the fit finds it."""
    rng = np.random.default_rng(3)
    k = 200.0
    true = {5: -150, 77: 0, 300: 120}
    entry, u, y = [], [], []
    for e, b in true.items():
        uu = rng.uniform(-300, 300, 20000)
        entry.append(np.full(len(uu), e))
        u.append(uu)
        y.append((rng.random(len(uu)) < E.sigmoid((uu + b) / k)).astype(float))
    fitted = E.fit_values(np.concatenate(entry), np.concatenate(u), np.concatenate(y), k, 1.0)
    for e, b in true.items():
        assert abs(int(fitted[e]) - b) <= 15, (e, fitted[e], b)
    untouched = np.ones(P.ENDING_ENTRIES, bool)
    untouched[list(true)] = False
    assert (fitted[untouched] == 0).all()


def test_prior_weight_holds_thin_entries():
    """Ten positions that say "draw" move a value less than ten thousand do."""
    k = 200.0
    few = E.fit_values(np.full(10, 9), np.full(10, 300.0), np.full(10, 0.5), k, 20.0)
    many = E.fit_values(np.full(10000, 9), np.full(10000, 300.0), np.full(10000, 0.5), k, 20.0)
    assert -300 <= many[9] <= -270
    assert few[9] > many[9] + 100


def test_max_value_caps_the_values():
    k = 200.0
    e, u, y = np.full(1000, 4), np.full(1000, 0.0), np.ones(1000)
    assert E.fit_values(e, u, y, k, 0.0, 50)[4] == 50


def test_weight_file_with_endings_round_trips_and_plays(tmp_path, monkeypatch):
    rng = random.Random("file")
    values = random_values(rng, 300)
    ending_values = [rng.randint(-E.B_MAX, E.B_MAX) for _ in range(P.ENDING_ENTRIES)]
    path = tmp_path / "learned-brazilian.bin"
    path.write_bytes(encode("brazilian", values, {"k": 200}, ending_values))
    header, v, e = read_weights(path)
    assert list(v) == values and list(e) == ending_values and header["endings"]["entries"] == P.ENDING_ENTRIES
    monkeypatch.setenv("HUB_ENGINE_WEIGHTS_DIR", str(tmp_path))
    learned, v1 = evaluation("brazilian", "learned"), evaluation("brazilian", "learned-v1")
    assert "endings" in learned and "endings" not in v1
    # a file without ending values (format 1) still reads, and gives none
    plain = tmp_path / "plain.bin"
    plain.write_bytes(encode("brazilian", values))
    assert plain.read_bytes()[4] == 1 and read_weights(plain)[2] is None
    assert "endings" not in evaluation("brazilian", str(plain))
    with pytest.raises(ValueError, match="ending values need"):
        encode("brazilian", values, None, ending_values[:-1])


def test_fit_files_writes_values_that_the_engine_reads(tmp_path):
    """End to end on a little self-play: the written file carries the values and the report."""
    from hub_engine.learn.selfplay import SelfPlayConfig, selfplay
    from hub_engine.learn.weights import shipped_path

    cfg = SelfPlayConfig("portuguese", nodes=300, shard_games=4, eval="learned")
    selfplay(cfg, 4, tmp_path / "sp", workers=1)
    out = tmp_path / "w.bin"
    report = E.fit_files("portuguese", [tmp_path / "sp"], shipped_path("portuguese"), out,
                         tables_dir=str(tmp_path / "no-tables"), table_samples=3)
    header, _values, ending_values = read_weights(out)
    assert ending_values is not None and len(ending_values) == P.ENDING_ENTRIES
    assert header["notes"]["endings"]["table_samples"] == report["table_samples"] > 0
    assert report["positions"] > 0
    w = evaluation("portuguese", str(out))
    assert "endings" in w
