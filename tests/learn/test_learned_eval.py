"""The compiled learned evaluation: equal to the trainer's numpy evaluation, colour-symmetric."""
from __future__ import annotations

import random
from array import array

import pytest

np = pytest.importorskip("numpy")

from hub_engine.core import PatternWeights, eval_weights, has_capture_either  # noqa: E402
from hub_engine.learn import features as F  # noqa: E402
from hub_engine.learn import patterns as P  # noqa: E402
from hub_engine.learn.weights import (evaluation, read_values, read_weights,  # noqa: E402
                                      shipped_path, v1_path, weight_variant)
from hub_engine.rules.position import Position  # noqa: E402
from hub_engine.rules.variants import VARIANTS, get_variant  # noqa: E402

from learn_helpers import (board_of, compiled_searcher, random_ending, random_endings,  # noqa: E402
                           random_position, random_values)

N_POSITIONS = 3000


def _numpy_scores(variant: str, values, positions, endings=None) -> np.ndarray:
    w, b, k, s = (np.array(x, dtype=np.int64) for x in zip(*positions))
    flying = get_variant(variant).flying_kings
    f = F.features(w, b, k, s, flying)
    return F.evaluate_int(np.asarray(values), f, w, b, k, eval_weights(variant), flying,
                          None if endings is None else np.asarray(endings))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_compiled_equals_numpy_on_random_positions(variant):
    rng = random.Random(f"eq-{variant}")
    values = random_values(rng)
    positions = [random_position(rng) for _ in range(N_POSITIONS)]
    searcher = compiled_searcher(variant, values)
    compiled = np.array([searcher.evaluate(board_of(variant, *p)) for p in positions])
    expected = _numpy_scores(variant, values, positions)
    assert np.array_equal(compiled, expected)
    assert len(set(compiled.tolist())) > N_POSITIONS // 2      # the scores really vary


@pytest.mark.parametrize("variant", ["russian", "english"])
def test_both_pattern_paths_equal_numpy(variant):
    """Weights whose entries differ by more than int16 holds get no difference tables: the
    compiled evaluation then reads each window twice, and still equals numpy; the same positions
    with small weights go through the difference tables."""
    rng = random.Random(f"paths-{variant}")
    positions = [random_position(rng) for _ in range(N_POSITIONS // 3)]
    for scale, has_diff in ((30000, False), (16000, True)):
        values = random_values(rng, scale)
        assert PatternWeights(array("h", values).tobytes()).has_diff is has_diff
        searcher = compiled_searcher(variant, values)
        compiled = np.array([searcher.evaluate(board_of(variant, *p)) for p in positions])
        assert np.array_equal(compiled, _numpy_scores(variant, values, positions))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_compiled_equals_numpy_with_ending_values(variant):
    """The learned ending values: the same entry and the same sum in both."""
    rng = random.Random(f"endings-{variant}")
    values, endings = random_values(rng), random_endings(rng)
    positions = ([random_ending(rng) for _ in range(N_POSITIONS)]
                 + [random_position(rng) for _ in range(N_POSITIONS // 3)])
    searcher = compiled_searcher(variant, values, endings)
    compiled = np.array([searcher.evaluate(board_of(variant, *p)) for p in positions])
    expected = _numpy_scores(variant, values, positions, endings)
    assert np.array_equal(compiled, expected)
    # the values matter: without them many small endings score otherwise, large ones the same
    plain = _numpy_scores(variant, values, positions)
    w, b, k, s = (np.array(x, dtype=np.int64) for x in zip(*positions))
    sig = F.ending_signature(w, b, k, s)
    small = sig.pieces <= P.ENDING_PIECES
    assert np.count_nonzero(plain[small] != expected[small]) > 0.9 * np.count_nonzero(small)
    assert np.array_equal(plain[~small], expected[~small])
    # every entry the positions reach is one of the table's (no index past its end), and many
    assert sig.index[small].max() < P.ENDING_ENTRIES
    assert len(np.unique(sig.index[small])) > 300


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_compiled_equals_numpy_with_shipped_weights(variant):
    path = shipped_path(variant)
    assert path.exists(), f"no shipped weights for {variant}"
    _header, values, endings = read_weights(path)
    rng = random.Random(f"shipped-{variant}")
    positions = ([random_position(rng) for _ in range(1000)]
                 + [random_ending(rng) for _ in range(1000)])
    from hub_engine.core import Searcher, TransTable

    weights = evaluation(variant)
    assert weights["learned"].has_diff          # the shipped weights take the one-look-up path
    searcher = Searcher(get_variant(variant).core_rules, TransTable(12), weights)
    compiled = np.array([searcher.evaluate(board_of(variant, *p)) for p in positions])
    assert np.array_equal(compiled, _numpy_scores(variant, list(values), positions,
                                                  None if endings is None else list(endings)))
    v1 = Searcher(get_variant(variant).core_rules, TransTable(12),
                  evaluation(variant, "learned-v1"))
    compiled_v1 = np.array([v1.evaluate(board_of(variant, *p)) for p in positions])
    _h, values_v1 = read_values(v1_path(variant))
    assert np.array_equal(compiled_v1, _numpy_scores(variant, list(values_v1), positions))


# games of each generation by weight file (first, second, third...; the last is shipped), for
# the files that have more than one (a variant that borrows another's weights, spanish, follows
# that file); an earlier generation is kept in data/vN/ (eval=learned-vN)
GENERATIONS = {"russian": (5600, 20000, 40000, 32000), "brazilian": (3000, 20000, 30000, 32000),
               "portuguese": (3000, 20000, 30000, 24000), "italian": (3000, 20000, 20000, 16000),
               "english": (4000, 20000, 60000, 12000)}
KINDS = ("learned-v1", "learned-v2", "learned-v3")
WITH_SECOND = sorted(v for v in VARIANTS if weight_variant(v) in GENERATIONS)


@pytest.mark.parametrize("variant", WITH_SECOND)
def test_earlier_generations_stay_selectable(variant):
    """A rule-set whose weights moved on keeps each earlier generation for `learned-vN`
    (data/vN/); a generation not yet passed is the shipped file itself."""
    from hub_engine.core import Searcher, TransTable
    from hub_engine.learn.weights import DATA_DIR, generation_path

    games = GENERATIONS[weight_variant(variant)]
    assert read_weights(shipped_path(variant))[0]["notes"]["games"] == games[-1]
    rules = get_variant(variant).core_rules
    new = Searcher(rules, TransTable(12), evaluation(variant))
    rng = random.Random("generations")
    boards = [board_of(variant, *random_position(rng)) for _ in range(200)]
    for n, kind in enumerate(KINDS):
        path = generation_path(variant, kind)
        if n + 1 >= len(games):
            assert path == shipped_path(variant)
            continue
        assert path == DATA_DIR / f"v{n + 1}" / f"learned-{weight_variant(variant)}.bin"
        assert path.read_bytes() != shipped_path(variant).read_bytes()
        assert read_weights(path)[0]["notes"]["games"] == games[n]
        old = Searcher(rules, TransTable(12), evaluation(variant, kind))
        differ = sum(new.evaluate(b) != old.evaluate(b) for b in boards)
        assert differ > 150


def test_first_generation_is_the_shipped_file_without_a_second():
    for variant in sorted(set(VARIANTS) - set(WITH_SECOND)):
        assert v1_path(variant) == shipped_path(variant)


def _flipped(white: int, black: int, kings: int, side: int) -> tuple[int, int, int, int]:
    def rev(m: int) -> int:
        return sum(1 << (31 - s) for s in range(32) if m >> s & 1)
    return rev(black), rev(white), rev(kings), 1 - side


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_colour_flipped_mirror_scores_opposite(variant):
    """Side 0's view: opposite scores; side to move's view (what evaluate returns): equal."""
    rng = random.Random(f"sym-{variant}")
    searcher = compiled_searcher(variant, random_values(rng))
    for _ in range(1000):
        p = random_position(rng)
        a = searcher.evaluate(board_of(variant, *p))
        b = searcher.evaluate(board_of(variant, *_flipped(*p)))
        assert a == b
        side0_a, side0_b = (a if p[3] == 0 else -a), (b if p[3] == 1 else -b)
        assert side0_a == -side0_b


def test_learned_evaluation_is_not_the_hand_one():
    pos = Position.from_hub("russian", "Wbbbbebebbbewbebbweewewwwwweewwww")
    from hub_engine.core import Searcher, TransTable

    rules = get_variant("russian").core_rules
    hand = Searcher(rules, TransTable(12), evaluation("russian", "hand"))
    learned = Searcher(rules, TransTable(12), evaluation("russian", "learned"))
    boards = [Position.start("russian").board, pos.board]
    assert [hand.evaluate(b) for b in boards] != [learned.evaluate(b) for b in boards]


def test_material_dominates_learned_scores():
    """Shipped weights are sane: a man up scores clearly positive for the side that has it."""
    for variant in VARIANTS:
        from hub_engine.core import Searcher, TransTable

        s = Searcher(get_variant(variant).core_rules, TransTable(12), evaluation(variant))
        start = Position.start(variant)
        m0, k0, m1, k1 = start.board.pieces()
        from hub_engine.core import CoreBoard

        up = CoreBoard(get_variant(variant).core_rules, 0, m0, k0, m1[1:], k1)
        assert s.evaluate(up) > 40, variant
        assert abs(s.evaluate(start.board)) < 40, variant


def test_has_capture_either_sees_both_sides():
    from hub_engine.core import CoreBoard

    rules = get_variant("english").core_rules
    assert not has_capture_either(Position.start("english").board)
    # side 0 men on 4 and 9, a side-1 man on 13, 18 empty: only side 0 could capture (13)
    board = CoreBoard(rules, 1, (4, 9), (), (13,), ())
    assert not any(captured for _f, _t, captured, _p, _k in board.legal_moves())
    assert has_capture_either(board)
    assert has_capture_either(CoreBoard(rules, 0, (4, 9), (), (13,), ()))
    assert not has_capture_either(CoreBoard(rules, 1, (4, 9), (), (22,), ()))
