"""Fitting the ending scales of the learned evaluation:
`hub-engine learn endings --variant V --data DIR... --weights IN --out OUT`.

The pattern evaluation counts material linearly, but with few pieces left what material is worth
depends on the whole signature: in the flying-king rule-sets a lone king holds many endings two
or three pieces down, a king and a man rarely beat a king, while four kings beat one. The ending
scales (learned.pxi) multiply the score of a position of at most P.ENDING_PIECES pieces by a
factor per entry: men and kings of the stronger side (the one the score favours) and of the
other, whether the stronger side is to move, whether a king of the other side stands on the long
diagonal. This module fits one factor per entry, by itself, to the outcomes of positions:

- self-play records (`learn selfplay`; the pattern weights are not refitted): each quiet position
  with the game's result, or, when endgame tables are given and hold the position, the tables'
  exact value (under the move-count rules where the tables know them: kings-only slices with
  distances);
- optionally `table_samples` random quiet positions of every table slice, labelled by the tables
  (they teach the entries the self-play games rarely reach).

For an entry, the factor s (0..s_max, at most 4 units) minimises the cross-entropy of sigmoid(s * v / K) against
the outcomes (v the unscaled score, K the weight file's logistic scale) plus a pull
`prior_weight * (s - s0)^2` toward the hand-set rule's factor s0 (eval.pxi: 1/16 for drawn king
endings, 1/4 or 1/2 for hard-to-win ones, else 1), so that entries with little data keep it.
The objective of an entry is one-dimensional and convex: every integer s is tried.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import numpy as np

from hub_engine.learn import features as F
from hub_engine.learn import patterns as P
from hub_engine.learn.train import cross_entropy, fit_k, load, score0, sigmoid, split

S_MAX = 4 * P.ENDING_UNIT           # the largest factor tried (four times the score)


def entry_fields(index: np.ndarray) -> tuple[np.ndarray, ...]:
    """(men, kings of the stronger side, men, kings of the other, stronger to move, diagonal)."""
    i = np.asarray(index)
    diag, i = i % 2, i // 2
    to_move, i = i % 2, i // 2
    kw, i = i % (P.ENDING_KING_CAP + 1), i // (P.ENDING_KING_CAP + 1)
    mw, i = i % (P.ENDING_MEN_CAP + 1), i // (P.ENDING_MEN_CAP + 1)
    ks, ms = i % (P.ENDING_KING_CAP + 1), i // (P.ENDING_KING_CAP + 1)
    return ms, ks, mw, kw, to_move, diag


def entry_name(index: int) -> str:
    """`2m1k v 0m1k` plus `stm` when the stronger side moves and `diag` for the diagonal."""
    ms, ks, mw, kw, to_move, diag = (int(x) for x in entry_fields(np.array(index)))
    name = f"{ms}m{ks}k v {mw}m{kw}k"
    return name + (" stm" if to_move else "") + (" diag" if diag else "")


def prior_scales(hand: dict, flying: bool) -> np.ndarray:
    """The factor of each entry under eval.pxi's hand-set rule, in 1/ENDING_UNIT."""
    ms, ks, mw, kw, _to_move, diag = entry_fields(np.arange(P.ENDING_ENTRIES))
    n_s, n_w = ms + ks, mw + kw
    base = (ms == 0) & (kw > 0)
    drawn = base & ((n_w == n_s) | (flying & (n_w == 1) & ((n_s <= 2) | ((n_s == 3) & (diag == 1)))))
    weak = base & ~drawn & (n_s - n_w < int(hand["weak_margin"]))
    unit = P.ENDING_UNIT
    return np.where(drawn, unit // max(1, int(hand["draw_scale"])),
                    np.where(weak, unit // max(1, int(hand["weak_scale"])), unit)).astype(np.int64)


def fit_scales(entry: np.ndarray, v: np.ndarray, y: np.ndarray, k: float, prior: np.ndarray,
               prior_weight: float, s_max: int = S_MAX) -> np.ndarray:
    """The factor per entry (int, 0..s_max) for samples (entry, unscaled score of the stronger
    side v >= 0, outcome y for the stronger side in [0, 1])."""
    out = prior.copy()
    s_grid = np.arange(s_max + 1, dtype=np.float64)
    order = np.argsort(entry, kind="stable")
    entry, v, y = entry[order], v[order], y[order]
    bounds = np.flatnonzero(np.diff(entry)) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(entry)]):
        if hi <= lo:
            continue
        e = int(entry[lo])
        x = v[lo:hi, None] * s_grid[None, :] / (P.ENDING_UNIT * k)
        p = np.clip(sigmoid(x), 1e-9, 1 - 1e-9)
        yy = y[lo:hi, None]
        loss = -(yy * np.log(p) + (1 - yy) * np.log(1 - p)).sum(axis=0)
        loss += prior_weight * ((s_grid - prior[e]) / P.ENDING_UNIT) ** 2
        out[e] = int(np.argmin(loss))
    return out


def table_labels(variant: str, rec: np.ndarray, tables) -> np.ndarray:
    """Side 0's outcome in [0, 1] of each record the tables hold (NaN elsewhere)."""
    from hub_engine.rules.position import Position

    out = np.full(len(rec), np.nan)
    if tables is None:
        return out
    limit = tables.complete_pieces()
    pieces = np.array([bin(int(w) | int(b)).count("1") for w, b in zip(rec["white"], rec["black"])])
    for i in np.flatnonzero(pieces <= limit):
        r = rec[i]
        board = _board(variant, int(r["white"]), int(r["black"]), int(r["kings"]), int(r["side"]))
        res = tables.probe(Position(variant, board))
        if res is None:
            continue
        value = res.ruled or res.value
        stm = {"win": 1.0, "draw": 0.5, "loss": 0.0}[value]
        out[i] = stm if r["side"] == 0 else 1.0 - stm
    return out


def _board(variant: str, white: int, black: int, kings: int, side: int):
    from hub_engine.core import CoreBoard
    from hub_engine.rules.variants import get_variant

    def sq(m: int) -> list[int]:
        return [s for s in range(P.NSQ) if m >> s & 1]
    return CoreBoard(get_variant(variant).core_rules, side, sq(white & ~kings), sq(white & kings),
                     sq(black & ~kings), sq(black & kings))


def sample_tables(variant: str, tables, per_slice: int, seed: int = 1) -> np.ndarray:
    """Random quiet positions (neither side can capture) of every table slice with at least 3
    pieces, as records with their table value under the move-count rules where known."""
    from hub_engine.core import has_capture_either
    from hub_engine.learn.train import RECORD_DTYPE
    from hub_engine.rules.position import Position
    from hub_engine.tables.slices import slices

    rng = random.Random(f"{seed}:{variant}:tables")
    rows = []
    for n in range(3, tables.complete_pieces() + 1):
        for m in slices(n):
            got = tries = 0
            while got < per_slice and tries < 20 * per_slice:
                tries += 1
                squares = rng.sample(range(P.NSQ), n)
                own, other = squares[:m.wm + m.wk], squares[m.wm + m.wk:]
                men_own, men_other = own[:m.wm], other[:m.bm]
                side = rng.randint(0, 1)
                # the side to move is "w" of the slice: side 0 or 1 as drawn; men off their
                # crowning row (side 0 crowns on row 7, side 1 on row 0)
                crown_own, crown_other = (P.ROWS - 1, 0) if side == 0 else (0, P.ROWS - 1)
                if any(P.row(s) == crown_own for s in men_own) or \
                        any(P.row(s) == crown_other for s in men_other):
                    continue
                mask = lambda xs: sum(1 << s for s in xs)  # noqa: E731
                own_m, other_m = mask(own), mask(other)
                kings = mask(own[m.wm:]) | mask(other[m.bm:])
                white, black = (own_m, other_m) if side == 0 else (other_m, own_m)
                board = _board(variant, white, black, kings, side)
                if has_capture_either(board) or not board.legal_moves():
                    continue
                res = tables.probe(Position(variant, board))
                if res is None:
                    continue
                value = res.ruled or res.value
                stm = {"win": 1, "draw": 0, "loss": -1}[value]
                rows.append((white, black, kings, 0, 0, 0, side, stm if side == 0 else -stm, 1, 0))
                got += 1
    return np.array(rows, dtype=RECORD_DTYPE)


def fit_endings(variant: str, rec: np.ndarray, keys: np.ndarray, values, k: float | None,
                tables=None, table_samples: int = 0, prior_weight: float = 2.0,
                holdout: float = 0.1, seed: int = 1, s_max: int = S_MAX,
                log: Callable[[str], None] | None = None) -> tuple[np.ndarray, dict]:
    """(ending scales, report) fitted to the records' positions of at most P.ENDING_PIECES
    pieces (see the module docstring); the report holds the held-out cross-entropy of the fitted
    scales and of the hand-set rule on the held-out games' small positions."""
    from hub_engine.core import eval_weights
    from hub_engine.rules.variants import get_variant

    log = log or (lambda line: None)
    flying = get_variant(variant).flying_kings
    hand = eval_weights(variant)
    pieces = np.array([bin(int(w) | int(b)).count("1") for w, b in zip(rec["white"], rec["black"])])
    small = pieces <= P.ENDING_PIECES
    rec, keys = rec[small], keys[small]
    y0 = (rec["result"].astype(np.float64) + 1) / 2
    exact = table_labels(variant, rec, tables)
    n_exact = int(np.count_nonzero(~np.isnan(exact)))
    y0 = np.where(np.isnan(exact), y0, exact)
    held = split(keys, holdout, seed) if holdout > 0 else np.zeros(len(rec), bool)
    if k is None:
        k = fit_k(score0(rec), y0)
    extra = (sample_tables(variant, tables, table_samples, seed)
             if tables is not None and table_samples > 0 else rec[:0])
    y_extra = (extra["result"].astype(np.float64) + 1) / 2
    log(f"{variant}: {len(rec)} positions of <= {P.ENDING_PIECES} pieces ({n_exact} with table "
        f"values, {int(held.sum())} held out), {len(extra)} table samples, K = {k:.1f}")

    def prepare(r: np.ndarray, y: np.ndarray):
        f = F.features(r["white"], r["black"], r["kings"], r["side"], flying)
        v0 = F.raw_value(np.asarray(values), f)
        sig = F.ending_signature(v0, r["white"], r["black"], r["kings"], r["side"])
        ys = np.where(sig.strong == 0, y, 1 - y)
        return sig.index, np.abs(v0).astype(np.float64), ys

    e_tr, v_tr, y_tr = prepare(np.concatenate([rec[~held], extra]), np.r_[y0[~held], y_extra])
    prior = prior_scales(hand, flying)
    scales = fit_scales(e_tr, v_tr, y_tr, k, np.minimum(prior, s_max), prior_weight, s_max)
    report = {"variant": variant, "positions": int(len(rec)), "table_labels": n_exact,
              "table_samples": int(len(extra)), "k": round(float(k), 1),
              "prior_weight": prior_weight, "max_scale": s_max,
              "changed_entries": int(np.count_nonzero(scales != prior))}
    if held.any():
        e_ho, v_ho, y_ho = prepare(rec[held], y0[held])
        for name, s in (("loss_scaled", scales), ("loss_rule", prior)):
            report[name] = round(cross_entropy(sigmoid(v_ho * s[e_ho] / (P.ENDING_UNIT * k)), y_ho), 5)
        report["held_out"] = int(held.sum())
    counts = np.bincount(e_tr, minlength=P.ENDING_ENTRIES)
    for e in np.argsort(-counts)[:40]:
        if counts[e] == 0:
            break
        sel = e_tr == e
        log(f"  {entry_name(int(e)):24s} n={counts[e]:6d} outcome={y_tr[sel].mean():.3f} "
            f"mean score={v_tr[sel].mean():6.0f} rule={prior[e]:3d} fitted={scales[e]:3d}")
    return scales, report


def fit_files(variant: str, dirs, weights_in, out, tables_dir=None, table_samples: int = 0,
              prior_weight: float = 2.0, holdout: float = 0.1, seed: int = 1,
              s_max: int = S_MAX, log: Callable[[str], None] | None = None) -> dict:
    """Load the shards and the weights, fit, write the weight file with the scales."""
    from hub_engine.learn.weights import encode, read_values

    header, values = read_values(weights_in)
    rec, keys, summary = load(dirs, variant)
    tables = None
    if tables_dir is not None:
        from hub_engine.tables import open_tables

        tables = open_tables(variant, tables_dir)
    k = header.get("notes", {}).get("k")
    scales, report = fit_endings(variant, rec, keys, values, k, tables, table_samples,
                                 prior_weight, holdout, seed, s_max, log)
    report["games"] = summary["games"]
    if tables is not None:
        report["tables_pieces"] = tables.complete_pieces()
    notes = {**header.get("notes", {}), "endings": {**report, "data": [Path(d).name for d in dirs]}}
    Path(out).write_bytes(encode(variant, list(values), notes, scales.tolist()))
    return report
