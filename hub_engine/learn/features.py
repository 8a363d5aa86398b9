"""Features of the learned evaluation in numpy, and the evaluation the engine computes from them.

This is the trainer's side of learned.pxi, written independently from the board masks (no row
tables): for positions given as 32-bit masks (side 0's pieces, side 1's pieces, kings; bit s =
internal square s) and the side to move it yields

- `index`: (N, 30) flat pattern indices t * 6561 + i, the 15 windows of the position (added) then
  the 15 windows of the colour-flipped position (subtracted);
- `scalars`: (N, 14) per-side count differences in the order of patterns.SCALARS;
- `stage`: (N,) men on the board, at most 24 (24: middlegame weights only, 0: endgame only);
- `scaled`: (N,) positions where the drawn-ending scaling of eval.pxi may apply (one side has no
  men and the other has a king); the trainer leaves them out.

`evaluate_int` reproduces the engine's integer score (side to move's view) from int16 weights.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hub_engine.learn import patterns as P

_SHIFTS = np.arange(P.NSQ, dtype=np.uint32)


def bits(mask: np.ndarray) -> np.ndarray:
    """(N, 32) 0/1 int8 squares of 32-bit masks."""
    return ((np.asarray(mask, dtype=np.uint32)[:, None] >> _SHIFTS) & 1).astype(np.int8)


def flip(white: np.ndarray, black: np.ndarray, kings: np.ndarray, side: np.ndarray):
    """The colour-flipped positions: the board turned 180 degrees (s -> 31 - s), colours swapped,
    the other side to move."""
    def rev(m):
        b = bits(m)[:, ::-1]
        return (b.astype(np.uint32) << _SHIFTS).sum(axis=1, dtype=np.uint32)
    return rev(black), rev(white), rev(kings), 1 - np.asarray(side)


@dataclass
class Features:
    index: np.ndarray      # (N, 30) int32
    scalars: np.ndarray    # (N, 14) int32
    stage: np.ndarray      # (N,) int32
    side: np.ndarray       # (N,) int8
    scaled: np.ndarray     # (N,) bool

    def __len__(self) -> int:
        return len(self.stage)

    def take(self, sel) -> "Features":
        return Features(self.index[sel], self.scalars[sel], self.stage[sel], self.side[sel],
                        self.scaled[sel])


_WIN = np.array(P.WINDOWS, dtype=np.intp)                       # (15, 8)
_POW = 3 ** np.arange(8, dtype=np.int32)
_TABLE_BASE = np.array(P.TABLE_OF_WINDOW, dtype=np.int32) * P.ENTRIES
_FORWARD = [(s, t) for s in range(P.NSQ) for d in (0, 1) for t in P.ray(s, d)[:1]]
_RAYS = [(s, P.ray(s, d)) for s in range(P.NSQ) for d in range(4)]
_CONES = {s: np.array(P.cone(s), dtype=np.intp) for s in range(P.NSQ) if 4 <= P.row(s) <= 6}


def _window_index(v: np.ndarray) -> np.ndarray:
    """(N, 15) table-flat indices from (N, 32) square values own - opp in {-1, 0, 1}."""
    return _TABLE_BASE + P.CENTRE + (v[:, _WIN].astype(np.int32) * _POW).sum(axis=2)


def _side0_scalars(own_men, own_kings, opp_men, opp_kings, flying: bool) -> np.ndarray:
    """(N, 13) side 0's counts (to_move excluded) from (N, 32) 0/1 arrays."""
    n = len(own_men)
    out = np.zeros((n, len(P.SCALARS) - 1), dtype=np.int32)
    empty = 1 - own_men - own_kings - opp_men - opp_kings
    nm = own_men.sum(axis=1, dtype=np.int32)
    nk = own_kings.sum(axis=1, dtype=np.int32)
    opp_nk = opp_kings.sum(axis=1, dtype=np.int32)
    out[:, 0] = nm
    out[:, 1] = nk > 0
    out[:, 2] = np.maximum(nk - 1, 0)
    out[:, 3] = np.where(opp_nk > 0, nm, 0)
    rows = np.array([P.row(s) for s in range(P.NSQ)], dtype=np.int32)
    out[:, 4] = own_men.astype(np.int32) @ rows
    out[:, 5] = sum(own_men[:, s].astype(np.int32) * empty[:, t] for s, t in _FORWARD)
    km = np.zeros(n, dtype=np.int32)
    for s, squares in _RAYS:
        has = own_kings[:, s].astype(bool)
        if not has.any() or not squares:
            continue
        run = np.ones(n, dtype=bool)
        for t in (squares if flying else squares[:1]):
            run &= empty[:, t].astype(bool)
            km += run & has
    out[:, 6] = km
    occupied = 1 - empty
    for s, sq in _CONES.items():
        free = (occupied[:, sq].sum(axis=1) == 0) & own_men[:, s].astype(bool) & (opp_nk == 0)
        out[:, 7 + (P.ROWS - 1 - P.row(s)) - 1] += free      # rows to go 1..3 (row 7 has no men)
    out[:, 10] = own_kings[:, list(P.LONG_DIAGONAL)].sum(axis=1)
    out[:, 11] = own_kings[:, list(P.DOUBLE_DIAGONALS)].sum(axis=1)
    left = own_men[:, list(P.LEFT)].sum(axis=1, dtype=np.int32)
    out[:, 12] = np.abs(2 * left - nm)
    return out


def features(white, black, kings, side, flying: bool, chunk: int = 1 << 18) -> Features:
    """Features of positions given as masks (see the module docstring)."""
    white, black, kings = (np.asarray(a, dtype=np.uint32) for a in (white, black, kings))
    side = np.asarray(side, dtype=np.int8)
    parts = []
    for lo in range(0, len(side), chunk):
        sl = slice(lo, lo + chunk)
        parts.append(_features(white[sl], black[sl], kings[sl], side[sl], flying))
    if not parts:
        return Features(np.zeros((0, 30), np.int32), np.zeros((0, len(P.SCALARS)), np.int32),
                        np.zeros(0, np.int32), side, np.zeros(0, bool))
    return Features(*(np.concatenate([getattr(p, f) for p in parts])
                      for f in ("index", "scalars", "stage", "side", "scaled")))


def _features(white, black, kings, side, flying: bool) -> Features:
    w, b, k = bits(white), bits(black), bits(kings)
    wm, wk, bm, bk = w & (1 - k), w & k, b & (1 - k), b & k
    v = wm - bm                                   # side 0's view
    vf = -v[:, ::-1]                              # the flipped position, its side 0's view
    index = np.concatenate([_window_index(v), _window_index(vf)], axis=1)
    f0 = _side0_scalars(wm, wk, bm, bk, flying)
    f1 = _side0_scalars(bm[:, ::-1], bk[:, ::-1], wm[:, ::-1], wk[:, ::-1], flying)
    to_move = np.where(side == 0, 1, -1).astype(np.int32)
    scalars = np.concatenate([f0 - f1, to_move[:, None]], axis=1)
    men = wm.sum(axis=1, dtype=np.int32) + bm.sum(axis=1, dtype=np.int32)
    stage = np.minimum(men, P.PHASE_MEN)
    nwm, nbm = wm.sum(axis=1), bm.sum(axis=1)
    scaled = ((nwm == 0) & (bk.sum(axis=1) > 0)) | ((nbm == 0) & (wk.sum(axis=1) > 0))
    return Features(index.astype(np.int32), scalars, stage.astype(np.int32), side, scaled)


def split_weights(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mg, eg) flat parameter vectors (patterns then scalars) of the int16 file layout."""
    v = np.asarray(values).reshape(-1, 2)
    return v[:, 0], v[:, 1]


def join_weights(mg: np.ndarray, eg: np.ndarray) -> np.ndarray:
    return np.stack([mg, eg], axis=1).reshape(-1)


def side0_sums(mg: np.ndarray, eg: np.ndarray, f: Features) -> tuple[np.ndarray, np.ndarray]:
    """The middlegame and endgame sums for side 0 (any numeric dtype of weights)."""
    npat = P.N_TABLES * P.ENTRIES
    s_mg = mg[f.index[:, :15]].sum(axis=1) - mg[f.index[:, 15:]].sum(axis=1) + f.scalars @ mg[npat:]
    s_eg = eg[f.index[:, :15]].sum(axis=1) - eg[f.index[:, 15:]].sum(axis=1) + f.scalars @ eg[npat:]
    return s_mg, s_eg


def _tdiv(a: np.ndarray, b) -> np.ndarray:
    """Integer division truncating toward zero (C semantics)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (np.asarray(b) < 0), -q, q)


def raw_value(values: np.ndarray, f: Features) -> np.ndarray:
    """The learned score for side 0 before any ending scaling (learned.pxi's learned_value)."""
    mg, eg = split_weights(np.asarray(values, dtype=np.int64))
    s_mg, s_eg = side0_sums(mg, eg, f)
    st = f.stage.astype(np.int64)
    return _tdiv(s_mg * st + s_eg * (P.PHASE_MEN - st), P.PHASE_MEN * P.RES)


def evaluate_int(values: np.ndarray, f: Features, white, black, kings, hand: dict,
                 flying: bool, endings=None) -> np.ndarray:
    """The engine's learned score (side to move's view, a man = 100) from int16 file values,
    with eval.pxi's scaling of drawn king endings (hand: the variant's eval.json weights) and,
    given the ending values (ENDING_ENTRIES int16), the value of the material signature at
    positions of at most P.ENDING_PIECES pieces."""
    v = _scale_endings(raw_value(values, f), white, black, kings, hand, flying)
    v = np.where(f.side == 0, v, -v)
    if endings is not None:
        sig = ending_signature(white, black, kings, f.side)
        add = np.asarray(endings, dtype=np.int64)[sig.index]
        v = v + np.where(sig.pieces <= P.ENDING_PIECES, add, 0)
    return v


@dataclass
class Signature:
    index: np.ndarray      # (N,) entry of the ending values (learned.pxi's ending_index)
    pieces: np.ndarray     # (N,) pieces on the board


def ending_signature(white, black, kings, side) -> Signature:
    """The ending-value entry of positions: men and kings of the side to move and of the other
    (capped), whether a king of the side to move, and one of the other, is on the long diagonal."""
    w, b, k = bits(white), bits(black), bits(kings)
    nk0, nk1 = (w & k).sum(axis=1), (b & k).sum(axis=1)
    nm0, nm1 = w.sum(axis=1) - nk0, b.sum(axis=1) - nk1
    s0 = np.asarray(side) == 0
    mo, ko = np.where(s0, nm0, nm1), np.where(s0, nk0, nk1)
    mt, kt = np.where(s0, nm1, nm0), np.where(s0, nk1, nk0)
    diag = list(P.LONG_DIAGONAL)
    d0 = ((w & k)[:, diag].sum(axis=1) > 0).astype(np.int64)
    d1 = ((b & k)[:, diag].sum(axis=1) > 0).astype(np.int64)
    own, their = np.where(s0, d0, d1), np.where(s0, d1, d0)
    mc, kc = P.ENDING_MEN_CAP, P.ENDING_KING_CAP
    mo, mt = np.minimum(mo, mc), np.minimum(mt, mc)
    ko, kt = np.minimum(ko, kc), np.minimum(kt, kc)
    index = ((((mo * (kc + 1) + ko) * (mc + 1) + mt) * (kc + 1) + kt) * 2 + own) * 2 + their
    return Signature(index.astype(np.int64), (nm0 + nk0 + nm1 + nk1).astype(np.int64))


def _scale_endings(v, white, black, kings, hand: dict, flying: bool) -> np.ndarray:
    """eval.pxi's division of the score in drawn or hard-to-win king endings."""
    w, b, k = bits(white), bits(black), bits(kings)
    n0, n1 = w.sum(axis=1), b.sum(axis=1)
    nk0, nk1 = (w & k).sum(axis=1), (b & k).sum(axis=1)
    nm0, nm1 = n0 - nk0, n1 - nk1
    strong0 = v > 0
    n_s, n_w = np.where(strong0, n0, n1), np.where(strong0, n1, n0)
    nm_s, nk_w = np.where(strong0, nm0, nm1), np.where(strong0, nk1, nk0)
    weak_bits = np.where(strong0[:, None], b, w)
    on_diag = weak_bits[:, list(P.LONG_DIAGONAL)].sum(axis=1) > 0
    draw_scale = max(1, int(hand["draw_scale"]))
    weak_scale = max(1, int(hand["weak_scale"]))
    base = (nm_s == 0) & (nk_w > 0)
    drawn = base & ((n_w == n_s) | (flying & (n_w == 1) & ((n_s <= 2) | ((n_s == 3) & on_diag))))
    weak = base & ~drawn & (n_s - n_w < int(hand["weak_margin"]))
    return np.where(drawn, _tdiv(v, draw_scale), np.where(weak, _tdiv(v, weak_scale), v))
