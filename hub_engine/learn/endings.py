"""Fitting the ending values of the learned evaluation:
`hub-engine learn endings --variant V --data DIR... --weights IN --out OUT`.

The pattern evaluation counts material linearly, but with few pieces left what material is worth
depends on the whole signature: in the flying-king rule-sets a lone king holds many endings two
or three pieces down and a king and a man rarely beat a king, while four kings beat one. The
ending values (learned.pxi) add to the score of a position of at most P.ENDING_PIECES pieces a
value per entry: men and kings of the side to move and of the other, whether a king of the side
to move, and one of the other side, stands on the long diagonal. This module fits one value per
entry, by itself, to the outcomes of positions, the pattern weights fixed:

- self-play records (`learn selfplay`): each quiet position with the game's result, or, when
  endgame tables are given and hold the position, the tables' exact value (under the move-count
  rules where the tables know them: kings-only slices with distances);
- optionally `table_samples` random quiet positions of every table slice, labelled by the tables
  (they teach the entries the self-play games rarely reach).

For an entry, the value b (centi-men, within +-B_MAX) minimises the cross-entropy of
sigmoid((u + b) / K) against the outcomes for the side to move (u the score the engine gave
before: patterns and the hand-set ending rule; K the weight file's logistic scale) plus a pull
`prior_weight * (b / 100)^2` toward 0, so that entries with little data keep the old score. The
objective of an entry is one-dimensional and convex: every integer b is tried.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import numpy as np

from hub_engine.learn import features as F
from hub_engine.learn import patterns as P
from hub_engine.learn.train import cross_entropy, fit_k, load, score0, sigmoid, split

B_MAX = 500            # the largest value tried, centi-men either way


def entry_fields(index: np.ndarray) -> tuple[np.ndarray, ...]:
    """(men, kings of the side to move, men, kings of the other, diagonal own, diagonal other)."""
    i = np.asarray(index)
    their, i = i % 2, i // 2
    own, i = i % 2, i // 2
    kt, i = i % (P.ENDING_KING_CAP + 1), i // (P.ENDING_KING_CAP + 1)
    mt, i = i % (P.ENDING_MEN_CAP + 1), i // (P.ENDING_MEN_CAP + 1)
    ko, mo = i % (P.ENDING_KING_CAP + 1), i // (P.ENDING_KING_CAP + 1)
    return mo, ko, mt, kt, own, their


def entry_name(index: int) -> str:
    """`2m1k v 0m1k` (side to move first), `+d` / `d+` for a king on the long diagonal."""
    mo, ko, mt, kt, own, their = (int(x) for x in entry_fields(np.array(index)))
    return f"{mo}m{ko}k{'+d' if own else ''} v {mt}m{kt}k{'+d' if their else ''}"


def fit_values(entry: np.ndarray, u: np.ndarray, y: np.ndarray, k: float, prior_weight: float,
               b_max: int = B_MAX) -> np.ndarray:
    """The value per entry (int, -b_max..b_max, 0 without samples) for samples (entry, score u
    of the side to move, outcome y for the side to move in [0, 1])."""
    out = np.zeros(P.ENDING_ENTRIES, dtype=np.int64)
    grid = np.arange(-b_max, b_max + 1, dtype=np.float64)
    order = np.argsort(entry, kind="stable")
    entry, u, y = entry[order], u[order], y[order]
    bounds = np.flatnonzero(np.diff(entry)) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(entry)]):
        if hi <= lo:
            continue
        loss = prior_weight * (grid / 100.0) ** 2
        for c0 in range(lo, hi, 2048):                      # bounded memory per block
            c1 = min(hi, c0 + 2048)
            p = np.clip(sigmoid((u[c0:c1, None] + grid[None, :]) / k), 1e-9, 1 - 1e-9)
            yy = y[c0:c1, None]
            loss = loss - (yy * np.log(p) + (1 - yy) * np.log(1 - p)).sum(axis=0)
        out[int(entry[lo])] = int(grid[int(np.argmin(loss))])
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
                holdout: float = 0.1, seed: int = 1, b_max: int = B_MAX,
                log: Callable[[str], None] | None = None) -> tuple[np.ndarray, dict]:
    """(ending values, report) fitted to the records' positions of at most P.ENDING_PIECES
    pieces (see the module docstring); the report holds the held-out cross-entropy with the
    fitted values and without (the hand-set rule alone) on the held-out games' small positions."""
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
        u = F.evaluate_int(np.asarray(values), f, r["white"], r["black"], r["kings"], hand, flying)
        sig = F.ending_signature(r["white"], r["black"], r["kings"], r["side"])
        ys = np.where(np.asarray(r["side"]) == 0, y, 1 - y)
        return sig.index, u.astype(np.float64), ys

    e_tr, u_tr, y_tr = prepare(np.concatenate([rec[~held], extra]), np.r_[y0[~held], y_extra])
    ends = fit_values(e_tr, u_tr, y_tr, k, prior_weight, b_max)
    report = {"variant": variant, "positions": int(len(rec)), "table_labels": n_exact,
              "table_samples": int(len(extra)), "k": round(float(k), 1),
              "prior_weight": prior_weight, "max_value": b_max,
              "changed_entries": int(np.count_nonzero(ends))}
    if held.any():
        e_ho, u_ho, y_ho = prepare(rec[held], y0[held])
        report["loss_values"] = round(cross_entropy(sigmoid((u_ho + ends[e_ho]) / k), y_ho), 5)
        report["loss_rule"] = round(cross_entropy(sigmoid(u_ho / k), y_ho), 5)
        report["held_out"] = int(held.sum())
    counts = np.bincount(e_tr, minlength=P.ENDING_ENTRIES)
    for e in np.argsort(-counts)[:40]:
        if counts[e] == 0:
            break
        sel = e_tr == e
        log(f"  {entry_name(int(e)):22s} n={counts[e]:6d} outcome={y_tr[sel].mean():.3f} "
            f"mean score={u_tr[sel].mean():6.0f} value={ends[e]:+4d}")
    return ends, report


def fit_files(variant: str, dirs, weights_in, out, tables_dir=None, table_samples: int = 0,
              prior_weight: float = 2.0, holdout: float = 0.1, seed: int = 1,
              b_max: int = B_MAX, log: Callable[[str], None] | None = None) -> dict:
    """Load the shards and the weights, fit, write the weight file with the ending values."""
    from hub_engine.learn.weights import encode, read_values

    header, values = read_values(weights_in)
    rec, keys, summary = load(dirs, variant)
    tables = None
    if tables_dir is not None:
        from hub_engine.tables import open_tables

        tables = open_tables(variant, tables_dir)
    k = header.get("notes", {}).get("k")
    ends, report = fit_endings(variant, rec, keys, values, k, tables, table_samples,
                               prior_weight, holdout, seed, b_max, log)
    report["games"] = summary["games"]
    if tables is not None:
        report["tables_pieces"] = tables.complete_pieces()
    notes = {**header.get("notes", {}), "endings": {**report, "data": [Path(d).name for d in dirs]}}
    Path(out).write_bytes(encode(variant, list(values), notes, ends.tolist()))
    return report
