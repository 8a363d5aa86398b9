"""The trainer: it recovers known weights from synthetic data."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from hub_engine.learn import features as F  # noqa: E402
from hub_engine.learn import patterns as P  # noqa: E402
from hub_engine.learn import train as T  # noqa: E402

from learn_helpers import random_position  # noqa: E402

K = 150.0


def _positions(n: int, seed: int) -> F.Features:
    rng = random.Random(seed)
    w, b, k, s = (np.array(x, dtype=np.int64) for x in zip(*(random_position(rng, True) for _ in range(n))))
    return F.features(w, b, k, s, flying=True)


def _theta(scalars: dict[str, tuple[float, float]]) -> np.ndarray:
    theta = np.zeros(2 * P.N_PARAMS)
    for name, (mg, eg) in scalars.items():
        i = T.NPAT + P.SCALARS.index(name)
        theta[i], theta[P.N_PARAMS + i] = mg, eg
    return theta


TRUE_SCALARS = {"men": (1.0, 0.8), "first_king": (2.2, 2.6), "extra_kings": (1.4, 1.9),
                "men_vs_king": (-0.1, -0.2),
                "tempo": (0.06, 0.02), "mobility": (0.05, 0.03), "to_move": (0.15, 0.05)}


def test_recovers_known_scalar_weights():
    f = _positions(8000, 1)
    truth = _theta(TRUE_SCALARS)
    y = T.sigmoid(T.Model(f, np.zeros(len(f)), K, 0.0).scores(truth) / K)
    model = T.Model(f, y, K, l2=0.05)            # patterns held near 0: the scalars carry it
    theta = T.fit(model, np.zeros(2 * P.N_PARAMS), 200)
    for name, (mg, eg) in TRUE_SCALARS.items():
        i = T.NPAT + P.SCALARS.index(name)
        assert theta[i] == pytest.approx(mg, abs=0.03 + 0.03 * mg), name
        assert theta[P.N_PARAMS + i] == pytest.approx(eg, abs=0.03 + 0.03 * eg), name


def _few_men(n: int, seed: int) -> F.Features:
    """Positions of 1-3 men a side, no kings: few window states, each seen often."""
    rng = np.random.default_rng(seed)
    w, b = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for i in range(n):
        sq = rng.permutation(np.arange(4, 28))
        a, c = rng.integers(1, 4), rng.integers(1, 4)
        w[i] = sum(1 << int(s) for s in sq[:a])
        b[i] = sum(1 << int(s) for s in sq[a:a + c])
    return F.features(w, b, np.zeros(n, np.int64), rng.integers(0, 2, n), flying=True)


def test_recovers_a_known_pattern_evaluation():
    """Truth: random pattern entries (and men); on positions it did not see, the fitted
    evaluation matches the true one."""
    rng = np.random.default_rng(3)
    truth = _theta({"men": (1.0, 1.0)})
    truth[:T.NPAT] = rng.normal(0, 0.3, T.NPAT)
    truth[P.N_PARAMS:P.N_PARAMS + T.NPAT] = truth[:T.NPAT]
    train_f, test_f = _few_men(15000, 4), _few_men(2000, 5)
    y = T.sigmoid(T.Model(train_f, np.zeros(len(train_f)), K, 0.0).scores(truth) / K)
    theta = T.fit(T.Model(train_f, y, K, l2=1e-5), np.zeros(2 * P.N_PARAMS), 200)
    test = T.Model(test_f, np.zeros(len(test_f)), K, 0.0)
    want, got = test.scores(truth), test.scores(theta)
    assert np.corrcoef(want, got)[0, 1] > 0.97
    assert np.median(np.abs(want - got)) < 0.1 * np.median(np.abs(want))


def test_quantize_round_trips_through_the_file_values():
    theta = np.random.default_rng(1).normal(0, 0.5, 2 * P.N_PARAMS)
    values = T.quantize(theta)
    assert values.dtype == np.int16 and len(values) == 2 * P.N_PARAMS
    back = T.theta_from_values(values)
    assert np.max(np.abs(back - theta)) <= 0.5 / (100 * P.RES) + 1e-12


def test_fit_k_finds_the_scale_of_the_data():
    rng = np.random.default_rng(2)
    score = rng.normal(0, 300, 200000)
    y = (rng.random(len(score)) < T.sigmoid(score / 180.0)).astype(float)
    assert T.fit_k(score, y) == pytest.approx(180.0, rel=0.05)


def test_anchor_keeps_the_starting_weights_the_games_do_not_show():
    """With `anchor`, the L2 penalty pulls toward the starting generation: a pattern entry no
    training position shows keeps its value, and the entries the data do show still move toward
    the data; without it the same penalty pulls every entry toward 0."""
    rng = np.random.default_rng(6)
    f = _few_men(3000, 7)
    truth = _theta({"men": (1.0, 1.0)})
    truth[:T.NPAT] = rng.normal(0, 0.3, T.NPAT)
    truth[P.N_PARAMS:P.N_PARAMS + T.NPAT] = truth[:T.NPAT]
    y = T.sigmoid(T.Model(f, np.zeros(len(f)), K, 0.0).scores(truth) / K)
    start = _theta({"men": (1.0, 1.0)})
    start[:T.NPAT] = 0.5                                     # an earlier generation's patterns
    unseen = np.ones(T.NPAT, bool)
    unseen[np.unique(f.index)] = False
    assert unseen.sum() > 1000
    anchored = T.fit(T.Model(f, y, K, l2=1e-3, centre=start), start.copy(), 200)
    plain = T.fit(T.Model(f, y, K, l2=1e-3), start.copy(), 200)
    assert np.allclose(anchored[:T.NPAT][unseen], 0.5)
    assert np.allclose(plain[:T.NPAT][unseen], 0.0, atol=1e-3)
    data_loss = T.Model(f, y, K, 0.0)                        # the data's part of the loss alone
    assert data_loss(anchored)[0] < data_loss(start)[0] - 0.001   # the data still move them
