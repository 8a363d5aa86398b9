"""Fitting the ending scales: the hand-set rule as a table, recovery of known factors, the file."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from hub_engine.core import eval_weights  # noqa: E402
from hub_engine.learn import endings as E  # noqa: E402
from hub_engine.learn import features as F  # noqa: E402
from hub_engine.learn import patterns as P  # noqa: E402
from hub_engine.learn.weights import encode, evaluation, read_weights  # noqa: E402
from hub_engine.rules.variants import get_variant  # noqa: E402

from learn_helpers import board_of, compiled_searcher, random_ending, random_values  # noqa: E402


@pytest.mark.parametrize("variant", ["portuguese", "italian"])
def test_the_rule_as_scales_scores_as_the_rule(variant):
    """Scales set to the hand-set rule's factors give the evaluation without scales (kings within
    the caps), so the fit starts from what the engine did before."""
    rng = random.Random(f"rule-{variant}")
    values = random_values(rng)
    prior = E.prior_scales(eval_weights(variant), get_variant(variant).flying_kings)
    with_rule = compiled_searcher(variant, values, prior.tolist())
    plain = compiled_searcher(variant, values)
    positions = [random_ending(rng) for _ in range(3000)]
    positions = [p for p in positions if bin(p[0] & p[2]).count("1") <= P.ENDING_KING_CAP
                 and bin(p[1] & p[2]).count("1") <= P.ENDING_KING_CAP]
    a = [with_rule.evaluate(board_of(variant, *p)) for p in positions]
    b = [plain.evaluate(board_of(variant, *p)) for p in positions]
    assert a == b
    assert len(set(prior.tolist())) >= 3          # the rule has several factors


def test_entry_fields_invert_the_signature():
    for ms, ks, mw, kw, stm, diag in [(0, 3, 0, 1, 1, 1), (7, 4, 7, 4, 0, 0), (2, 1, 0, 1, 1, 0)]:
        index = ((((ms * 5 + ks) * 8 + mw) * 5 + kw) * 2 + stm) * 2 + diag
        assert tuple(int(x) for x in E.entry_fields(np.array(index))) == (ms, ks, mw, kw, stm, diag)
    assert E.entry_name(((((0 * 5 + 3) * 8 + 0) * 5 + 1) * 2 + 1) * 2 + 1) == "0m3k v 0m1k stm diag"


def test_fit_recovers_known_factors():
    """Outcomes drawn from sigmoid(s * v / K) with a known s per entry: the fit finds it."""
    rng = np.random.default_rng(3)
    k = 200.0
    true = {5: 16, 77: 64, 300: 150}
    entry, v, y = [], [], []
    for e, s in true.items():
        vv = rng.uniform(50, 400, 20000)
        entry.append(np.full(len(vv), e))
        v.append(vv)
        y.append((rng.random(len(vv)) < E.sigmoid(vv * s / (P.ENDING_UNIT * k))).astype(float))
    prior = np.full(P.ENDING_ENTRIES, P.ENDING_UNIT)
    fitted = E.fit_scales(np.concatenate(entry), np.concatenate(v), np.concatenate(y), k, prior, 1.0)
    for e, s in true.items():
        assert abs(int(fitted[e]) - s) <= max(3, s // 10), (e, fitted[e], s)
    untouched = np.ones(P.ENDING_ENTRIES, bool)
    untouched[list(true)] = False
    assert (fitted[untouched] == P.ENDING_UNIT).all()


def test_prior_weight_holds_thin_entries():
    """Ten positions that say "draw" move a factor less than ten thousand do."""
    k = 200.0
    prior = np.full(P.ENDING_ENTRIES, P.ENDING_UNIT)
    few = E.fit_scales(np.full(10, 9), np.full(10, 300.0), np.full(10, 0.5), k, prior, 20.0)
    many = E.fit_scales(np.full(10000, 9), np.full(10000, 300.0), np.full(10000, 0.5), k, prior, 20.0)
    assert many[9] == 0
    assert few[9] > many[9]


def test_weight_file_with_endings_round_trips_and_plays(tmp_path, monkeypatch):
    rng = random.Random("file")
    values = random_values(rng, 300)
    scales = [rng.randint(0, E.S_MAX) for _ in range(P.ENDING_ENTRIES)]
    path = tmp_path / "learned-brazilian.bin"
    path.write_bytes(encode("brazilian", values, {"k": 200}, scales))
    header, v, e = read_weights(path)
    assert list(v) == values and list(e) == scales and header["endings"]["entries"] == P.ENDING_ENTRIES
    monkeypatch.setenv("HUB_ENGINE_WEIGHTS_DIR", str(tmp_path))
    learned, v1 = evaluation("brazilian", "learned"), evaluation("brazilian", "learned-v1")
    assert "endings" in learned and "endings" not in v1
    # a file without scales (format 1) still reads, and gives no scales
    plain = tmp_path / "plain.bin"
    plain.write_bytes(encode("brazilian", values))
    assert plain.read_bytes()[4] == 1 and read_weights(plain)[2] is None
    assert "endings" not in evaluation("brazilian", str(plain))
    with pytest.raises(ValueError, match="ending scales need"):
        encode("brazilian", values, None, scales[:-1])


def test_fit_files_writes_scales_that_the_engine_reads(tmp_path):
    """End to end on a little self-play: the written file carries the scales and the report."""
    from hub_engine.learn.selfplay import SelfPlayConfig, selfplay
    from hub_engine.learn.weights import shipped_path

    cfg = SelfPlayConfig("portuguese", nodes=300, shard_games=4, eval="learned")
    selfplay(cfg, 4, tmp_path / "sp", workers=1)
    out = tmp_path / "w.bin"
    report = E.fit_files("portuguese", [tmp_path / "sp"], shipped_path("portuguese"), out,
                         tables_dir=str(tmp_path / "no-tables"), table_samples=3)
    header, _values, scales = read_weights(out)
    assert scales is not None and len(scales) == P.ENDING_ENTRIES
    assert header["notes"]["endings"]["table_samples"] == report["table_samples"] > 0
    assert report["positions"] > 0
    w = evaluation("portuguese", str(out))
    assert "endings" in w


def test_max_scale_caps_the_factors():
    """With s_max = one unit the scales only shrink scores, even where the outcomes say more."""
    k = 200.0
    prior = np.full(P.ENDING_ENTRIES, P.ENDING_UNIT)
    e, v, y = np.full(1000, 4), np.full(1000, 100.0), np.ones(1000)
    assert E.fit_scales(e, v, y, k, prior, 1.0)[4] > P.ENDING_UNIT
    assert E.fit_scales(e, v, y, k, prior, 1.0, P.ENDING_UNIT)[4] == P.ENDING_UNIT
