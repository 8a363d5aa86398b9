"""Fitting the learned evaluation: `hub-engine learn train --variant V --data DIR --out WEIGHTS`.

The model is the engine's own (features.py): score = phase blend of pattern and scalar sums, in
centi-men for side 0. Its prediction of the game is sigmoid(score / K); the loss is the mean
cross-entropy against the target (1 win, 0.5 draw, 0 loss for side 0), optionally blended with
sigmoid(search score / K), plus an L2 penalty on the pattern weights (rare patterns stay near 0).
K is fitted first, as in Texel tuning, so that sigmoid(search score / K) best predicts the
results: the learned score then keeps the search's scale (a man near 100), which the search's
margins expect. The objective is convex; scipy's L-BFGS minimises it on the whole training set.

Data: the complete shards of the variant in each directory (several directories pool
generations). Games are split into training and held-out sets by game; duplicate positions in the
training set are merged (their targets averaged), so the many repeats of early positions do not
dominate; positions where eval.pxi scales drawn king endings are left out (the scaling, not the
weights, decides them). The reported held-out loss is the cross-entropy against the results alone.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

import numpy as np

from hub_engine.learn import features as F
from hub_engine.learn import patterns as P
from hub_engine.learn.config import TrainConfig

RECORD_DTYPE = np.dtype([("white", "<u4"), ("black", "<u4"), ("kings", "<u4"), ("game", "<u4"),
                         ("score", "<i2"), ("ply", "<u2"), ("side", "u1"), ("result", "i1"),
                         ("source", "u1"), ("pad", "u1")])
NPAT = P.N_TABLES * P.ENTRIES
SCORE_CLIP = 2000          # mate scores count as 20 men when fitting K and blending


def load(dirs, variant: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """(records, game keys unique across directories, summary) of the complete shards."""
    from hub_engine.learn.selfplay import done_shards, shard_paths
    from hub_engine.learn.weights import weight_variant

    parts, keys, games, shards = [], [], 0, 0
    from hub_engine.rules.variants import VARIANTS

    names = sorted(v for v in VARIANTS if weight_variant(v) == weight_variant(variant))
    for d, directory in enumerate(dirs):
        directory = Path(directory)
        if not directory.is_dir():
            raise ValueError(f"no self-play directory {directory}")
        for n, name in enumerate(names):
            for s in sorted(done_shards(directory, name)):
                bin_path, meta_path = shard_paths(directory, name, s)
                if bin_path.stat().st_size % RECORD_DTYPE.itemsize:
                    raise ValueError(f"{bin_path}: not a whole number of records (damaged)")
                rec = np.fromfile(bin_path, dtype=RECORD_DTYPE)
                meta = json.loads(meta_path.read_text())
                games += meta["games"]
                shards += 1
                parts.append(rec)
                keys.append((np.int64(d) << 40) | (np.int64(n) << 32)
                            | rec["game"].astype(np.int64))
    if not parts:
        raise ValueError(f"no complete {variant} self-play shards in {', '.join(map(str, dirs))}")
    return (np.concatenate(parts), np.concatenate(keys),
            {"games": games, "shards": shards})


def sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def cross_entropy(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_k(score0: np.ndarray, y: np.ndarray) -> float:
    """The K of sigmoid(score / K) that best predicts y (golden-section search on log K)."""
    from scipy.optimize import minimize_scalar

    s = np.clip(score0, -SCORE_CLIP, SCORE_CLIP).astype(np.float64)
    res = minimize_scalar(lambda lk: cross_entropy(sigmoid(s / np.exp(lk)), y),
                          bounds=(np.log(10.0), np.log(5000.0)), method="bounded")
    return float(np.exp(res.x))


class Model:
    """The objective over a training set: weights in men, mg then eg, patterns then scalars."""

    def __init__(self, f: F.Features, y: np.ndarray, k: float, l2: float,
                 sample_weight: np.ndarray | None = None, centre: np.ndarray | None = None):
        from scipy.sparse import csr_matrix

        n = len(y)
        self.y, self.k, self.l2 = y.astype(np.float64), k, l2
        self.phi = f.stage.astype(np.float64) / P.PHASE_MEN
        # the pattern part as a sparse matrix: +1 per window of the position, -1 per window of
        # its colour-flipped mirror (duplicates add up)
        sign = np.tile(np.r_[np.ones(15), -np.ones(15)], n)
        self.x = csr_matrix((sign, f.index.ravel(), np.arange(0, 30 * n + 1, 30)),
                            shape=(n, NPAT))
        self.x.sum_duplicates()
        self.xt = self.x.T.tocsr()
        self.scal = f.scalars.astype(np.float64)
        self.w = (np.ones(n) if sample_weight is None else sample_weight) / n
        # what the L2 penalty pulls the weights toward: 0, or the starting generation's weights
        # (so that patterns the new games rarely show keep what the earlier games taught)
        self.centre = np.zeros(2 * P.N_PARAMS) if centre is None else centre

    def scores(self, theta: np.ndarray) -> np.ndarray:
        """Side 0's score in centi-men."""
        s = []
        for off in (0, P.N_PARAMS):
            s.append(self.x @ theta[off:off + NPAT] + self.scal @ theta[off + NPAT:off + P.N_PARAMS])
        return 100.0 * (self.phi * s[0] + (1 - self.phi) * s[1])

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        s = self.scores(theta)
        p = sigmoid(s / self.k)
        pc = np.clip(p, 1e-12, 1 - 1e-12)
        y = self.y
        loss = -np.sum(self.w * (y * np.log(pc) + (1 - y) * np.log(1 - pc)))
        g = self.w * (p - y) * (100.0 / self.k)            # d loss / d (score in men)
        grad = np.empty_like(theta)
        for off, scale in ((0, self.phi), (P.N_PARAMS, 1 - self.phi)):
            gs = g * scale
            grad[off:off + NPAT] = self.xt @ gs
            grad[off + NPAT:off + P.N_PARAMS] = self.scal.T @ gs
        for off in (0, P.N_PARAMS):
            pat = theta[off:off + NPAT] - self.centre[off:off + NPAT]
            loss += self.l2 * float(pat @ pat)
            grad[off:off + NPAT] += 2 * self.l2 * pat
        return float(loss), grad


def initial_theta(hand: dict) -> np.ndarray:
    """Zero patterns; material scalars from the hand-set evaluation (in men)."""
    theta = np.zeros(2 * P.N_PARAMS)
    king = hand["king"] / 100.0
    for off in (0, P.N_PARAMS):
        theta[off + NPAT + P.SCALARS.index("men")] = hand["man"] / 100.0
        theta[off + NPAT + P.SCALARS.index("first_king")] = king
        theta[off + NPAT + P.SCALARS.index("extra_kings")] = king
    return theta


def theta_from_values(values) -> np.ndarray:
    """Weights in men from int16 file values (to start from earlier weights)."""
    mg, eg = F.split_weights(np.asarray(values, dtype=np.float64))
    return np.r_[mg, eg] / (P.RES * 100.0)


def quantize(theta: np.ndarray) -> np.ndarray:
    """int16 file values (mg, eg interleaved) in 1/RES centi-men."""
    q = np.clip(np.rint(theta * 100.0 * P.RES), -32767, 32767).astype(np.int16)
    return F.join_weights(q[:P.N_PARAMS], q[P.N_PARAMS:])


def fit(model: Model, theta0: np.ndarray, max_iter: int,
        log: Callable[[str], None] | None = None) -> np.ndarray:
    from scipy.optimize import minimize

    t0 = time.perf_counter()
    calls = [0]

    def objective(theta):
        calls[0] += 1
        loss, grad = model(theta)
        if log and calls[0] % 25 == 0:
            log(f"  step {calls[0]}: training loss {loss:.5f} ({time.perf_counter() - t0:.0f} s)")
        return loss, grad

    res = minimize(objective, theta0, jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, "maxfun": 2 * max_iter})
    return res.x


def targets(rec: np.ndarray, k: float, blend: float) -> np.ndarray:
    r = (rec["result"].astype(np.float64) + 1.0) / 2.0
    if blend <= 0:
        return r
    return (1 - blend) * r + blend * sigmoid(score0(rec) / k)


def score0(rec: np.ndarray) -> np.ndarray:
    s = np.clip(rec["score"].astype(np.float64), -SCORE_CLIP, SCORE_CLIP)
    return np.where(rec["side"] == 0, s, -s)


def dedupe(rec: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique positions (the index of the first record of each) with their mean target."""
    key = np.stack([rec["white"].astype(np.uint64) | (rec["black"].astype(np.uint64) << 32),
                    rec["kings"].astype(np.uint64) | (rec["side"].astype(np.uint64) << 32)], axis=1)
    _u, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    mean = np.bincount(inverse, weights=y) / np.bincount(inverse)
    return first, mean


def split(keys: np.ndarray, share: float, seed: int) -> np.ndarray:
    """A boolean mask of held-out records: a seeded share of the games."""
    games = np.unique(keys)
    rng = np.random.default_rng(seed)
    held = games[rng.random(len(games)) < share]
    return np.isin(keys, held)


def hand_scores(variant: str, rec: np.ndarray) -> np.ndarray:
    """The hand-set static evaluation (side 0's view) of records, through the compiled core."""
    from hub_engine.core import CoreBoard, Searcher, TransTable, eval_weights
    from hub_engine.rules.variants import get_variant

    rules = get_variant(variant).core_rules
    s = Searcher(rules, TransTable(12), eval_weights(variant))
    out = np.empty(len(rec))
    for i, (w, b, k, side) in enumerate(zip(rec["white"].tolist(), rec["black"].tolist(),
                                            rec["kings"].tolist(), rec["side"].tolist())):
        sq = [[s_ for s_ in range(32) if m >> s_ & 1] for m in (w & ~k, w & k, b & ~k, b & k)]
        v = s.evaluate(CoreBoard(rules, side, *sq))
        out[i] = v if side == 0 else -v
    return out


def train(variant: str, rec: np.ndarray, keys: np.ndarray, cfg: TrainConfig,
          init_values=None, log: Callable[[str], None] | None = None
          ) -> tuple[np.ndarray, dict]:
    """Fit weights to records: (int16 file values, report with the held-out losses)."""
    from hub_engine.core import eval_weights
    from hub_engine.rules.variants import get_variant

    log = log or (lambda line: None)
    flying = get_variant(variant).flying_kings
    hand = eval_weights(variant)
    keep = rec["ply"] >= cfg.min_ply
    rec, keys = rec[keep], keys[keep]
    f_all = F.features(rec["white"], rec["black"], rec["kings"], rec["side"], flying)
    usable = ~f_all.scaled
    rec, keys, f_use = rec[usable], keys[usable], f_all.take(usable)
    held = split(keys, cfg.holdout, cfg.seed) if cfg.holdout > 0 else np.zeros(len(rec), bool)
    tr, ho = rec[~held], rec[held]
    r_tr = (tr["result"].astype(np.float64) + 1) / 2
    k = fit_k(score0(tr), r_tr)
    log(f"{variant}: {len(rec)} positions ({len(ho)} held out), K = {k:.1f}")
    first, y_u = dedupe(tr, targets(tr, k, cfg.blend))
    tr_u, f_tr = tr[first], f_use.take(~held).take(first)    # features depend on the row alone
    log(f"{variant}: {len(tr_u)} unique training positions")
    theta0 = initial_theta(hand) if init_values is None else theta_from_values(init_values)
    model = Model(f_tr, y_u, k, cfg.l2, centre=theta0 if cfg.anchor else None)
    theta = fit(model, theta0, cfg.max_iter, log)
    values = quantize(theta)
    report = {"variant": variant, "positions": int(len(rec)), "train_unique": int(len(tr_u)),
              "held_out": int(len(ho)), "k": round(k, 1), "l2": cfg.l2, "blend": cfg.blend}
    if cfg.anchor:
        report["anchor"] = True
    if len(ho):
        f_ho = f_use.take(held)
        y_ho = (ho["result"].astype(np.float64) + 1) / 2
        learned = F.evaluate_int(values, f_ho, ho["white"], ho["black"], ho["kings"], hand, flying)
        learned0 = np.where(ho["side"] == 0, learned, -learned)
        report["loss_learned"] = round(cross_entropy(sigmoid(learned0 / k), y_ho), 5)
        if init_values is not None:
            # the weights training started from, on the same held-out games: a new generation
            # is only worth a match when it predicts them better
            before = F.evaluate_int(np.asarray(init_values, dtype=np.int16), f_ho, ho["white"],
                                    ho["black"], ho["kings"], hand, flying)
            before0 = np.where(ho["side"] == 0, before, -before)
            report["loss_init"] = round(cross_entropy(sigmoid(before0 / k), y_ho), 5)
        report["loss_hand"] = round(cross_entropy(sigmoid(hand_scores(variant, ho) / k), y_ho), 5)
        report["loss_search"] = round(cross_entropy(sigmoid(score0(ho) / k), y_ho), 5)
        report["loss_constant"] = round(cross_entropy(np.full(len(y_ho), y_ho.mean()), y_ho), 5)
    return values, report


def train_files(variant: str, dirs, out, cfg: TrainConfig, init=None,
                log: Callable[[str], None] | None = None) -> dict:
    """Load the shards, train, write the weight file with its notes; returns the report."""
    from hub_engine.learn.weights import encode, read_values

    t0 = time.perf_counter()
    rec, keys, summary = load(dirs, variant)
    init_values = read_values(init)[1] if init else None
    values, report = train(variant, rec, keys, cfg, init_values, log)
    report = {**report, "games": summary["games"], "seconds": round(time.perf_counter() - t0, 1)}
    notes = {**report, "data": [Path(d).name for d in dirs], "settings": _settings(dirs, variant)}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_bytes(encode(variant, values.tolist(), notes))
    return report


def _settings(dirs, variant: str) -> list:
    from hub_engine.learn.selfplay import SETTINGS_FILE

    out = []
    for d in dirs:
        path = Path(d) / SETTINGS_FILE
        if path.exists():
            tag = json.loads(path.read_text()).get(variant)
            if tag:
                out.append(tag)
    return out
