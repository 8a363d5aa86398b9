# Bitboard geometry of the 8x8 board (included by core.pyx).
#
# Internal squares s = 0..31 count from the first mover's lower-left corner (a1 = 0, c1 = 1, ...,
# h8 = 31), four playing squares a row. Bit b(s) = s + (row + 1) // 2 leaves a "ghost" bit after
# every odd row (bits 4, 13, 22, 31), so the four diagonal steps are the constant offsets +4, +5,
# -5, -4 whatever the row parity, and a step off the board lands on a ghost bit or outside 0..35.
# The neighbour tables below are built from ROWS and ROW_SQUARES so that another board size only
# needs other constants.

from libc.stdint cimport uint64_t, uint32_t, uint16_t, uint8_t, int32_t, int64_t

ctypedef uint64_t bb

cdef enum:
    ROWS = 8
    ROW_SQUARES = 4
    NSQ = 32
    NONE_BIT = 63          # sentinel: a bit that is never set in any board
    UL = 0                 # directions: up-left, up-right, down-left, down-right
    UR = 1
    DL = 2
    DR = 3

cdef extern from *:
    """
    static inline int hub_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int hub_lsb(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int popcount "hub_popcount"(uint64_t x) nogil
    int lsb "hub_lsb"(uint64_t x) nogil

cdef int DIR_OFFSET[4]
DIR_OFFSET[:] = [4, 5, -5, -4]

cdef uint8_t NB[4][64]        # neighbour bit in each direction, NONE_BIT when off the board
cdef int SQ_OF_BIT[64]        # internal square of a bit, -1 for ghosts
cdef int BIT_OF_SQ[NSQ]
cdef bb VALID                 # all playing squares
cdef bb PROMO_ROW[2]          # the row where each side's men are crowned
cdef bb LONG_DIAGONAL         # a1-h8
cdef uint64_t ZOBRIST[2][2][64]   # [side][is_king][bit]
cdef uint64_t ZOBRIST_SIDE
cdef enum:
    COUNTER_KEYS = 64              # plies left before a counter draw that the table keys tell apart
cdef uint64_t ZOBRIST_LEFT[COUNTER_KEYS]   # [plies left before a counter draw] (search.pxi, tt_key)


cdef int _bit_of(int s):
    return s + ((s // ROW_SQUARES) + 1) // 2


cdef uint64_t _splitmix(uint64_t* state):
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void _init_geometry():
    """Fill the neighbour tables from row/column arithmetic (board size lives only here)."""
    global VALID, LONG_DIAGONAL, ZOBRIST_SIDE
    cdef int s, r, c, col, d, nr, ncol, b, i, j
    cdef int dr[4]
    cdef int dc[4]
    dr[:] = [1, 1, -1, -1]
    dc[:] = [-1, 1, -1, 1]
    for b in range(64):
        SQ_OF_BIT[b] = -1
        for d in range(4):
            NB[d][b] = NONE_BIT
    VALID = 0
    LONG_DIAGONAL = 0
    PROMO_ROW[0] = 0
    PROMO_ROW[1] = 0
    for s in range(NSQ):
        BIT_OF_SQ[s] = _bit_of(s)
        SQ_OF_BIT[_bit_of(s)] = s
        VALID |= (<bb>1) << _bit_of(s)
    for s in range(NSQ):
        r = s // ROW_SQUARES
        c = s % ROW_SQUARES
        col = 2 * c + (r % 2)
        if r == ROWS - 1:
            PROMO_ROW[0] |= (<bb>1) << _bit_of(s)
        if r == 0:
            PROMO_ROW[1] |= (<bb>1) << _bit_of(s)
        if col == r:
            LONG_DIAGONAL |= (<bb>1) << _bit_of(s)
        for d in range(4):
            nr = r + dr[d]
            ncol = col + dc[d]
            if 0 <= nr < ROWS and 0 <= ncol < 2 * ROW_SQUARES:
                NB[d][_bit_of(s)] = _bit_of(nr * ROW_SQUARES + ncol // 2)
    cdef uint64_t state = 0x1234ABCD5678EF01
    for i in range(2):
        for j in range(2):
            for b in range(64):
                ZOBRIST[i][j][b] = _splitmix(&state)
    ZOBRIST_SIDE = _splitmix(&state)
    for b in range(COUNTER_KEYS):
        ZOBRIST_LEFT[b] = _splitmix(&state)


_init_geometry()
