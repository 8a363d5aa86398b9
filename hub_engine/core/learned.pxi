# Learned evaluation: men patterns and scalar terms with trained int16 weights (included by
# core.pyx after eval.pxi; eval.pxi's evaluate() calls learned_evaluate() when a Searcher was
# given learned weights).
#
# Patterns: 15 overlapping windows of 4 files x 4 ranks (8 dark squares each): file offsets a-d,
# c-f, e-h (in-row square offset k = 0, 1, 2) times rank offsets 1-4 ... 5-8 (g = 0..4); window
# number w = 5k + g. A window's men form a balanced-ternary index 3280 + sum 3^i * (own - opp),
# trit i = 2j + c for the c-th square (c = 0, 1) of its j-th rank: square 4(g + j) + k + c.
# Kings count as empty. Colour symmetry: the board turned by 180 degrees (square s -> 31 - s)
# maps window w onto window 14 - w, so those two share table min(w, 14 - w) (8 tables), and the
# value for side 0 is F(position) - F(colour-flipped position), F = the sum of the 15 windows'
# entries seen from side 0. A position and its flipped mirror therefore score exactly opposite.
#
# Scalars: per-side counts (LEARNED_SCALARS), weighted by their difference side 0 - side 1.
# Every weight has a middlegame and an endgame value; the two sums are blended by the number of
# men (24 men: all middlegame, 0: all endgame) and divided by 24 * LEARNED_RES (weights are in
# 1/LEARNED_RES of a centi-man).
#
# Ending values (optional, weight files of format 2): one int16 value in centi-men per material
# signature (men and kings of the side to move and of the other, capped; a king of each side on
# the long diagonal), which eval.pxi adds, from the side to move's view, at positions of at most
# ENDING_PIECES pieces. hub_engine/learn/features.py computes the same in numpy; the
# tests hold the two equal.

from libc.stdint cimport int16_t, int8_t
from libc.string cimport memcpy

cdef enum:
    N_WINDOWS = 15
    N_TABLES = 8
    PATTERN_ENTRIES = 6561       # 3^8
    PATTERN_CENTRE = 3280        # the index of an empty window
    N_SCALARS = 14
    LEARNED_RES = 8
    PHASE_MEN = 24
    ENDING_PIECES = 10           # ending values apply at positions of at most this many pieces
    ENDING_MEN_CAP = 7           # counts above the caps share the cap's entry
    ENDING_KING_CAP = 4
    ENDING_ENTRIES = 6400        # 8 x 5 x 8 x 5 signatures x 2 x 2 (a king on the long diagonal)

LEARNED_SCALARS = ("men", "first_king", "extra_kings", "men_vs_king", "tempo", "mobility",
                   "king_mobility", "runaway1", "runaway2", "runaway3", "king_long_diagonal",
                   "king_double_diagonal", "balance", "to_move")
LEARNED_SHAPE = {"windows": N_WINDOWS, "tables": N_TABLES, "entries": PATTERN_ENTRIES,
                 "scalars": N_SCALARS, "phases": 2, "res": LEARNED_RES, "phase_men": PHASE_MEN}
ENDING_SHAPE = {"pieces": ENDING_PIECES, "men_cap": ENDING_MEN_CAP, "king_cap": ENDING_KING_CAP,
                "entries": ENDING_ENTRIES, "kind": "value"}

cdef int8_t PAIR_VAL[256][3]     # [own row bits << 4 | opp row bits][k]: trit(k) + 3 trit(k + 1)
cdef int8_t PAIR_VAL_FLIP[256][3]   # the same row seen turned and with the colours swapped
cdef int ROW_BIT[ROWS]           # first bit of each row
cdef bb LEFT_BB                  # files a-d
cdef bb UPPER_HALF[2]            # rows 5-8 as each side sees them (where runaways can be)



cdef inline int _rev4(int x):
    return ((x & 1) << 3) | ((x & 2) << 1) | ((x & 4) >> 1) | ((x & 8) >> 3)


cdef void _init_learned_geometry():
    global LEFT_BB
    cdef int own, opp, k, i, r, s
    cdef int t[4]
    for own in range(16):
        for opp in range(16):
            for i in range(4):
                t[i] = ((own >> i) & 1) - ((opp >> i) & 1)
            for k in range(3):
                PAIR_VAL[own << 4 | opp][k] = <int8_t>(t[k] + 3 * t[k + 1])
    for own in range(16):
        for opp in range(16):
            for k in range(3):
                PAIR_VAL_FLIP[own << 4 | opp][k] = PAIR_VAL[_rev4(opp) << 4 | _rev4(own)][k]
    LEFT_BB = 0
    UPPER_HALF[0] = 0
    UPPER_HALF[1] = 0
    for r in range(ROWS):
        ROW_BIT[r] = BIT_OF_SQ[r * ROW_SQUARES]
    for s in range(NSQ):
        if s % ROW_SQUARES < 2:
            LEFT_BB |= (<bb>1) << BIT_OF_SQ[s]
        if s // ROW_SQUARES >= 4:
            UPPER_HALF[0] |= (<bb>1) << BIT_OF_SQ[s]
        else:
            UPPER_HALF[1] |= (<bb>1) << BIT_OF_SQ[s]


_init_learned_geometry()


cdef class PatternWeights:
    """Learned weights in C memory: tables [8][6561][2] then scalars [14][2], int16 (mg, eg).

    Built from the decoded payload of a weight file (hub_engine.learn.weights); the memory stays
    alive as long as any Searcher could use it (see load_eval_params).

    `diff` holds, per table, entry - entry of the colour-flipped window (see learned_value): one
    look-up per window instead of two. It is NULL when a difference does not fit in int16 (never
    with trained weights, whose entries are a few hundred), and learned_value then reads the
    tables twice; both give the same value.
    """
    cdef int16_t* data
    cdef int16_t* diff
    cdef readonly int size

    def __cinit__(self):
        self.data = NULL
        self.diff = NULL

    def __init__(self, payload: bytes):
        cdef int want = (N_TABLES * PATTERN_ENTRIES + N_SCALARS) * 2
        cdef int t, x, y, j, q, d
        if len(payload) != want * 2:
            raise ValueError(f"learned weights need {want * 2} bytes of int16, got {len(payload)}")
        self.data = <int16_t*>malloc(want * sizeof(int16_t))
        if self.data == NULL:
            raise MemoryError()
        memcpy(self.data, <const char*>payload, want * sizeof(int16_t))
        self.size = want
        self.diff = <int16_t*>malloc(N_TABLES * PATTERN_ENTRIES * 2 * sizeof(int16_t))
        if self.diff == NULL:
            raise MemoryError()
        for t in range(N_TABLES):
            for x in range(PATTERN_ENTRIES):
                y = flipped_index(x)
                for j in range(2):
                    q = (t * PATTERN_ENTRIES + x) * 2 + j
                    d = self.data[q] - self.data[(t * PATTERN_ENTRIES + y) * 2 + j]
                    if d < -32768 or d > 32767:
                        free(self.diff)
                        self.diff = NULL
                        return
                    self.diff[q] = <int16_t>d

    @property
    def has_diff(self) -> bool:
        """Whether learned_value reads the difference tables (one look-up per window)."""
        return self.diff != NULL

    def __dealloc__(self):
        free(self.data)
        free(self.diff)


cdef int flipped_index(int x) noexcept:
    """The index of a window's image on the colour-flipped board (turned by 180 degrees, colours
    swapped): trit i of the window moves to trit 7 - i (rank j -> 3 - j, column c -> 1 - c)
    and changes sign (own <-> other)."""
    cdef int t[8]
    cdef int i, y = 0
    x -= PATTERN_CENTRE
    for i in range(8):
        # balanced-ternary digits of x: -1, 0 or 1
        t[i] = ((x % 3) + 3) % 3
        if t[i] == 2:
            t[i] = -1
        x = (x - t[i]) // 3
    for i in range(7, -1, -1):
        y = 3 * y - t[7 - i]
    return PATTERN_CENTRE + y


cdef class EndingValues:
    """Learned values of few-piece material signatures in C memory: ENDING_ENTRIES int16
    centi-men (see ending_value), from the decoded ending block of a weight file
    (hub_engine.learn.weights)."""
    cdef int16_t* data
    cdef readonly int size

    def __cinit__(self):
        self.data = NULL

    def __init__(self, payload: bytes):
        if len(payload) != ENDING_ENTRIES * 2:
            raise ValueError(f"ending values need {ENDING_ENTRIES * 2} bytes of int16, got {len(payload)}")
        self.data = <int16_t*>malloc(ENDING_ENTRIES * sizeof(int16_t))
        if self.data == NULL:
            raise MemoryError()
        memcpy(self.data, <const char*>payload, ENDING_ENTRIES * sizeof(int16_t))
        self.size = ENDING_ENTRIES

    def __dealloc__(self):
        free(self.data)


_LIVE_WEIGHTS = []      # every PatternWeights / EndingValues a Searcher was given: never freed


cdef int attach_learned(EvalParams* p, object lw, object endings) except -1:
    p.learned = NULL
    p.learned_diff = NULL
    p.endings = NULL
    if lw is None:
        if endings is not None:
            raise ValueError("eval weights 'endings' need learned weights")
        return 0
    if not isinstance(lw, PatternWeights):
        raise TypeError("eval weights 'learned' must be a PatternWeights")
    if endings is not None and not isinstance(endings, EndingValues):
        raise TypeError("eval weights 'endings' must be an EndingValues")
    for obj in (lw, endings):
        if obj is not None and not any(x is obj for x in _LIVE_WEIGHTS):
            _LIVE_WEIGHTS.append(obj)
    p.learned = (<PatternWeights>lw).data
    p.learned_diff = (<PatternWeights>lw).diff
    if endings is not None:
        p.endings = (<EndingValues>endings).data
    return 0


cdef inline int ending_index(int mo, int ko, int mt, int kt, int own_diagonal,
                             int their_diagonal) noexcept nogil:
    """The entry of a material signature: men and kings of the side to move, then of the other
    (each capped), whether a king of the side to move, and one of the other side, stands on the
    long diagonal."""
    if mo > ENDING_MEN_CAP:
        mo = ENDING_MEN_CAP
    if mt > ENDING_MEN_CAP:
        mt = ENDING_MEN_CAP
    if ko > ENDING_KING_CAP:
        ko = ENDING_KING_CAP
    if kt > ENDING_KING_CAP:
        kt = ENDING_KING_CAP
    return (((((mo * (ENDING_KING_CAP + 1) + ko) * (ENDING_MEN_CAP + 1) + mt)
              * (ENDING_KING_CAP + 1) + kt) * 2 + own_diagonal) * 2 + their_diagonal)


cdef inline int ending_value(const int16_t* values, const Board* b, int nm0, int nk0, int nm1,
                             int nk1) noexcept nogil:
    """The learned value (centi-men, side to move's view) of the position's material signature."""
    cdef int s = b.side
    cdef int own = 1 if (b.pieces[s] & b.kings & LONG_DIAGONAL) else 0
    cdef int their = 1 if (b.pieces[1 - s] & b.kings & LONG_DIAGONAL) else 0
    if s == 0:
        return values[ending_index(nm0, nk0, nm1, nk1, own, their)]
    return values[ending_index(nm1, nk1, nm0, nk0, own, their)]


cdef inline int row_bits(bb x, int r) noexcept nogil:
    return <int>((x >> ROW_BIT[r]) & 15)


cdef inline void side_scalars(const Rules* r, const Board* b, int side, bb empty, int opp_kings,
                              int* f) noexcept nogil:
    """Per-side counts in the order of LEARNED_SCALARS (to_move excluded)."""
    cdef bb own = b.pieces[side]
    cdef bb men = own & ~b.kings
    cdef bb kings = own & b.kings
    cdef bb occ = b.pieces[0] | b.pieces[1]
    cdef bb x
    cdef int nk = popcount(kings), nm = popcount(men), left, sq, rel, d0, run1 = 0, run2 = 0, run3 = 0
    f[0] = nm
    f[1] = 1 if nk > 0 else 0
    f[2] = nk - 1 if nk > 1 else 0
    f[3] = nm if opp_kings > 0 else 0
    d0 = UL if side == 0 else DL
    f[5] = (popcount(shift(men, DIR_OFFSET[d0]) & empty)
            + popcount(shift(men, DIR_OFFSET[d0 + 1]) & empty))
    f[6] = king_moves(r, kings, empty) if kings else 0
    if opp_kings == 0:
        x = men & UPPER_HALF[side]
        while x:
            sq = lsb(x)
            x &= x - 1
            if (CONE[side][sq] & occ) == 0:
                rel = ROWS - 1 - REL_ROW[side][sq]
                if rel == 1:
                    run1 += 1
                elif rel == 2:
                    run2 += 1
                elif rel == 3:
                    run3 += 1
    f[7] = run1
    f[8] = run2
    f[9] = run3
    f[10] = popcount(kings & LONG_DIAGONAL)
    f[11] = popcount(kings & DOUBLE_DIAG_BB)
    left = popcount(men & LEFT_BB)
    f[12] = 2 * left - nm if 2 * left >= nm else nm - 2 * left


cdef int learned_value(const int16_t* w, const int16_t* diff, const Rules* r,
                       const Board* b) noexcept nogil:
    """The learned score for side 0 (centi-men), before the drawn-ending scaling.

    The patterns give F(position) - F(colour-flipped position); window w of the flipped board is
    window 14 - w of this one seen flipped, and the two share a table, so with `diff` (entry -
    entry of the flipped index, PatternWeights) each window is one look-up."""
    cdef bb men0 = b.pieces[0] & ~b.kings, men1 = b.pieces[1] & ~b.kings
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef int8_t rv[ROWS][3]
    cdef int8_t rf[ROWS][3]
    cdef int row, code, k, g, wi, idx, mg = 0, eg = 0, tempo0 = 0, tempo1 = 0, i, d, stage
    cdef int o0, o1
    cdef const int16_t* e
    cdef int f0[N_SCALARS]
    cdef int f1[N_SCALARS]
    if diff != NULL:
        for row in range(ROWS):
            o0 = row_bits(men0, row)
            o1 = row_bits(men1, row)
            tempo0 += row * popcount(o0)
            tempo1 += (ROWS - 1 - row) * popcount(o1)
            code = o0 << 4 | o1
            for k in range(3):
                rv[row][k] = PAIR_VAL[code][k]
        for k in range(3):
            for g in range(5):
                wi = 5 * k + g
                i = wi if wi < N_WINDOWS - 1 - wi else N_WINDOWS - 1 - wi     # the window's table
                idx = PATTERN_CENTRE + rv[g][k] + 9 * (rv[g + 1][k] + 9 * (rv[g + 2][k] + 9 * rv[g + 3][k]))
                e = &diff[(i * PATTERN_ENTRIES + idx) * 2]
                mg += e[0]
                eg += e[1]
    else:
        for row in range(ROWS):
            o0 = row_bits(men0, row)
            o1 = row_bits(men1, row)
            tempo0 += row * popcount(o0)
            tempo1 += (ROWS - 1 - row) * popcount(o1)
            code = o0 << 4 | o1
            for k in range(3):
                rv[row][k] = PAIR_VAL[code][k]
                rf[ROWS - 1 - row][k] = PAIR_VAL_FLIP[code][k]
        for k in range(3):
            for g in range(5):
                wi = 5 * k + g
                i = wi if wi < N_WINDOWS - 1 - wi else N_WINDOWS - 1 - wi
                idx = PATTERN_CENTRE + rv[g][k] + 9 * (rv[g + 1][k] + 9 * (rv[g + 2][k] + 9 * rv[g + 3][k]))
                e = &w[(i * PATTERN_ENTRIES + idx) * 2]
                mg += e[0]
                eg += e[1]
                idx = PATTERN_CENTRE + rf[g][k] + 9 * (rf[g + 1][k] + 9 * (rf[g + 2][k] + 9 * rf[g + 3][k]))
                e = &w[(i * PATTERN_ENTRIES + idx) * 2]
                mg -= e[0]
                eg -= e[1]
    cdef int nk0 = popcount(b.pieces[0] & b.kings), nk1 = popcount(b.pieces[1] & b.kings)
    side_scalars(r, b, 0, empty, nk1, f0)
    side_scalars(r, b, 1, empty, nk0, f1)
    f0[4] = tempo0
    f1[4] = tempo1
    f0[13] = 1 if b.side == 0 else 0
    f1[13] = 1 - f0[13]
    e = &w[N_TABLES * PATTERN_ENTRIES * 2]
    for i in range(N_SCALARS):
        d = f0[i] - f1[i]
        mg += e[2 * i] * d
        eg += e[2 * i + 1] * d
    stage = popcount(men0) + popcount(men1)
    if stage > PHASE_MEN:
        stage = PHASE_MEN
    return (mg * stage + eg * (PHASE_MEN - stage)) // (PHASE_MEN * LEARNED_RES)

