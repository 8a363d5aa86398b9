# Static evaluation for the 8x8 variants (included by core.pyx): the hand-set terms below, or the
# learned patterns of learned.pxi when the weights carry them; both end with the same scaling of
# drawn king endings, to which learned weights with ending values (learned.pxi) add the value of the
# material signature at positions of at most ENDING_PIECES pieces.
#
# Integer units, a man = 100, from the side to move's view. Every weight comes from
# hub_engine/data/eval.json (one object per variant family) and is folded at Searcher creation
# into piece-square tables, so the per-node work is a loop over the pieces plus a few popcounts.
#
# Terms: material (king value per family), piece-square tables for men and kings (advancement,
# centre, diagonals), back-rank guard (only while the opponent has no king), tempo balance (phase-dependent), mobility (quiet targets),
# runaway men (empty widened cone to the crowning row, opponent without kings), king activity
# (long diagonal and double-corner diagonals), and scaling of known drawn or hard-to-win endings.

import json as _json
import os as _os

cdef bb CONE[2][64]          # widened forward cone of a man to its crowning row
cdef bb CENTRE_BB
cdef bb DOUBLE_DIAG_BB       # the two double-corner diagonals g1-a7, h2-b8
cdef int REL_ROW[2][64]      # row counted from each side's back row; -1 for ghosts


cdef void _init_eval_geometry():
    global CENTRE_BB, DOUBLE_DIAG_BB
    cdef int s, t, r, col, r2, col2, side, b
    CENTRE_BB = 0
    DOUBLE_DIAG_BB = 0
    for b in range(64):
        REL_ROW[0][b] = -1
        REL_ROW[1][b] = -1
        CONE[0][b] = 0
        CONE[1][b] = 0
    for s in range(NSQ):
        r = s // ROW_SQUARES
        col = 2 * (s % ROW_SQUARES) + (r % 2)
        b = BIT_OF_SQ[s]
        REL_ROW[0][b] = r
        REL_ROW[1][b] = ROWS - 1 - r
        if 2 <= r <= 5 and 2 <= col <= 5:
            CENTRE_BB |= (<bb>1) << b
        if col + r == 6 or col + r == 8:
            DOUBLE_DIAG_BB |= (<bb>1) << b
        for t in range(NSQ):
            r2 = t // ROW_SQUARES
            col2 = 2 * (t % ROW_SQUARES) + (r2 % 2)
            if r2 > r and abs(col2 - col) <= (r2 - r) + 1:
                CONE[0][b] |= (<bb>1) << BIT_OF_SQ[t]
            if r2 < r and abs(col2 - col) <= (r - r2) + 1:
                CONE[1][b] |= (<bb>1) << BIT_OF_SQ[t]


_init_eval_geometry()


cdef struct EvalParams:
    int flying
    int man
    int king
    int man_psq[2][64]       # per side and bit: the man's square value (advancement, centre...)
    int king_psq[2][64]      # the same for kings (diagonals, centre)
    int back_psq[2][64]      # back-rank guard (applied while the opponent has no king)
    int tempo_open
    int tempo_end
    int mobility
    int king_mobility
    int runaway[4]           # by rows still to go (1..3); index 0 unused
    int draw_scale
    int weak_scale
    int weak_margin
    int threat               # quiescence: stand-pat penalty when the opponent threatens a capture
    const int16_t* learned   # learned weights (learned.pxi), or NULL for the hand-set terms
    const int16_t* learned_diff   # their difference tables (PatternWeights.diff), or NULL
    const int16_t* endings   # learned ending values (learned.pxi), or NULL


_EVAL_KEYS = ("man", "king", "man_psq", "king_psq", "back_rank", "tempo_open", "tempo_end",
              "mobility", "king_mobility", "runaway", "draw_scale", "weak_scale", "weak_margin", "threat")


def eval_weights(variant: str) -> dict:
    """The weights dict of a variant's family from hub_engine/data/eval.json."""
    path = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "data", "eval.json")
    with open(path) as f:
        data = _json.load(f)
    return dict(data[data["variants"][variant]])


cdef int load_eval_params(EvalParams* p, dict w, const Rules* r) except -1:
    missing = [k for k in _EVAL_KEYS if k not in w]
    if missing:
        raise KeyError(f"eval weights lack {', '.join(missing)}")
    mpsq = [int(x) for x in w["man_psq"]]
    kpsq = [int(x) for x in w["king_psq"]]
    back = [int(x) for x in w["back_rank"]]
    run = [int(x) for x in w["runaway"]]
    if len(mpsq) != NSQ or len(kpsq) != NSQ or len(back) != ROW_SQUARES or len(run) != 3:
        raise ValueError("man_psq and king_psq need 32 values, back_rank 4, runaway 3")
    cdef int s, b, side, rs
    p.flying = r.flying
    p.man = int(w["man"])
    p.king = int(w["king"])
    p.tempo_open = int(w["tempo_open"])
    p.tempo_end = int(w["tempo_end"])
    p.mobility = int(w["mobility"])
    p.king_mobility = int(w["king_mobility"])
    p.runaway[0] = 0
    for s in range(3):
        p.runaway[s + 1] = run[s]
    p.draw_scale = max(1, int(w["draw_scale"]))
    p.weak_scale = max(1, int(w["weak_scale"]))
    p.weak_margin = int(w["weak_margin"])
    p.threat = int(w["threat"])
    for side in range(2):
        for b in range(64):
            p.man_psq[side][b] = 0
            p.king_psq[side][b] = 0
            p.back_psq[side][b] = 0
    for side in range(2):
        for s in range(NSQ):
            b = BIT_OF_SQ[s]
            rs = s if side == 0 else NSQ - 1 - s      # the square as side 0 sees it
            p.man_psq[side][b] = mpsq[rs]
            p.king_psq[side][b] = kpsq[rs]
            if rs < ROW_SQUARES:
                p.back_psq[side][b] = back[rs]
    attach_learned(p, w.get("learned"), w.get("endings"))
    return 0


cdef inline int king_moves(const Rules* r, bb kings, bb empty) noexcept nogil:
    """The kings' non-capturing moves: for flying kings each king's four rays (bitboard fills,
    movegen.pxi), which never overlap; for short kings the empty neighbours in each direction."""
    cdef int n = 0
    cdef bb k
    if not r.flying:
        return (popcount((kings << 4) & empty) + popcount((kings << 5) & empty)
                + popcount((kings >> 5) & empty) + popcount((kings >> 4) & empty))
    while kings:
        k = kings & (~kings + 1)
        kings &= kings - 1
        n += popcount(fill_up(k, empty, 4) | fill_up(k, empty, 5) | fill_down(k, empty, 5)
                      | fill_down(k, empty, 4)) - 1
    return n


cdef int side_terms(const EvalParams* p, const Rules* r, const Board* b, int side, bb empty,
                    int opp_kings, int* tempo) noexcept nogil:
    """Positional terms of one side (material excluded)."""
    cdef bb own = b.pieces[side]
    cdef bb men = own & ~b.kings
    cdef bb kings = own & b.kings
    cdef bb occ = b.pieces[0] | b.pieces[1]
    cdef bb x = men
    cdef int v = 0, t = 0, sq, rel, d0
    while x:
        sq = lsb(x)
        x &= x - 1
        v += p.man_psq[side][sq]
        rel = REL_ROW[side][sq]
        t += rel
        if not opp_kings:
            if rel == 0:
                v += p.back_psq[side][sq]
            elif rel >= ROWS - 4 and (CONE[side][sq] & occ) == 0:
                v += p.runaway[ROWS - 1 - rel]
    x = kings
    while x:
        sq = lsb(x)
        x &= x - 1
        v += p.king_psq[side][sq]
    d0 = UL if side == 0 else DL
    v += p.mobility * (popcount(shift(men, DIR_OFFSET[d0]) & empty)
                       + popcount(shift(men, DIR_OFFSET[d0 + 1]) & empty))
    if kings:
        v += p.king_mobility * king_moves(r, kings, empty)
    tempo[0] = t
    return v


cdef int evaluate(const EvalParams* p, const Rules* r, const Board* b) noexcept nogil:
    """Score of b for the side to move (a man = 100)."""
    cdef bb k0 = b.pieces[0] & b.kings, k1 = b.pieces[1] & b.kings
    cdef int nk0 = popcount(k0), nk1 = popcount(k1)
    cdef int n0 = popcount(b.pieces[0]), n1 = popcount(b.pieces[1])
    cdef int nm0 = n0 - nk0, nm1 = n1 - nk1
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef int t0 = 0, t1 = 0, phase, v, strong, n_s, n_w, nm_s, nk_w
    if p.learned != NULL:
        v = learned_value(p.learned, p.learned_diff, r, b)
    else:
        v = p.man * (nm0 - nm1) + p.king * (nk0 - nk1)
        v += side_terms(p, r, b, 0, empty, nk1, &t0)
        v -= side_terms(p, r, b, 1, empty, nk0, &t1)
        phase = n0 + n1
        if phase > 24:
            phase = 24
        v += (t0 - t1) * (p.tempo_open * phase + p.tempo_end * (24 - phase)) // 24

    # endings that the material count overrates
    strong = 0 if v > 0 else 1
    n_s = n0 if strong == 0 else n1
    n_w = n1 if strong == 0 else n0
    nm_s = nm0 if strong == 0 else nm1
    nk_w = nk1 if strong == 0 else nk0
    if nm_s == 0 and nk_w > 0:
        # the stronger side has only kings and the weaker side a king
        if n_w == n_s:
            v //= p.draw_scale
        elif p.flying and n_w == 1 and (n_s <= 2 or (n_s == 3 and (b.pieces[1 - strong] & LONG_DIAGONAL))):
            v //= p.draw_scale
        elif n_s - n_w < p.weak_margin:
            v //= p.weak_scale
    if b.side == 1:
        v = -v
    if p.endings != NULL and n0 + n1 <= ENDING_PIECES:
        v += ending_value(p.endings, b, nm0, nk0, nm1, nk1)
    return v
