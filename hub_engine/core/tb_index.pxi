# Endgame tables: the index of a position inside its material slice (included by core.pyx).
#
# A slice is one material signature (wm, wk, bm, bk) with "white" = the side to move, seen from
# that side (it moves up the board, internal side 0). A position with side 1 to move is turned 180
# degrees (square s -> 31 - s) and its colours swapped first: the rules are symmetric under that
# turn (crowning rows and the long diagonal map onto themselves), so one slice serves both sides.
#
# Index = product of combinatorial ranks, kings innermost (runs of equal values compress well):
#   white men over squares 0..27, black men over squares 4..31 (each side's non-crowning squares,
#   ranked independently: overlapping men are impossible slots, marked INVALID by the generator),
#   white kings over the squares the men leave free, black kings over what is still free.
# Squares here are 32-bit masks (bit s = internal square s), not the core's ghost-bit boards.

from libc.stdint cimport int8_t

cdef enum:
    TB_MAXG = 8                  # pieces of one kind in one slice: 0..7
    TB_MATN = 4096               # material codes ((wm*8 + wk)*8 + bm)*8 + bk

cdef uint64_t TB_BINOM[33][TB_MAXG + 1]   # C(n, k)
cdef uint8_t TB_SEL8[256][8]             # position of the k-th set bit of a byte
cdef int8_t TB_SQNB[4][32]               # neighbour square in each direction, -1 off the board


cdef struct TBDims:
    int wm, wk, bm, bk
    uint64_t n_wm, n_bm, n_wk, n_bk
    uint64_t size


cdef void _tb_init_index():
    cdef int n, k, d, s, t
    for n in range(33):
        for k in range(TB_MAXG + 1):
            if k == 0:
                TB_BINOM[n][k] = 1
            elif n == 0:
                TB_BINOM[n][k] = 0
            else:
                TB_BINOM[n][k] = TB_BINOM[n - 1][k - 1] + TB_BINOM[n - 1][k]
    for n in range(256):
        k = 0
        for s in range(8):
            if (n >> s) & 1:
                TB_SEL8[n][k] = <uint8_t>s
                k += 1
    for d in range(4):
        for s in range(NSQ):
            t = NB[d][BIT_OF_SQ[s]]
            TB_SQNB[d][s] = <int8_t>(SQ_OF_BIT[t] if t != NONE_BIT and SQ_OF_BIT[t] >= 0 else -1)


_tb_init_index()


cdef inline uint32_t sq_mask(bb x) noexcept nogil:
    """Ghost-bit board -> 32-bit square mask (bits 4, 13, 22, 31 of the board are ghosts)."""
    return <uint32_t>((x & 0xF) | ((x >> 1) & 0xFF0) | ((x >> 2) & 0xFF000)
                      | ((x >> 3) & 0xFF00000) | ((x >> 4) & <bb>0xF0000000))


cdef inline bb bb_of_mask(uint32_t m) noexcept nogil:
    cdef bb x = m
    return ((x & 0xF) | ((x & 0xFF0) << 1) | ((x & 0xFF000) << 2) | ((x & 0xFF00000) << 3)
            | ((x & <bb>0xF0000000) << 4))


cdef inline uint32_t rev32(uint32_t x) noexcept nogil:
    """Square s -> 31 - s (the board turned 180 degrees)."""
    x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
    x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
    x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
    x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
    return (x >> 16) | (x << 16)


cdef inline int mat_code(int wm, int wk, int bm, int bk) noexcept nogil:
    return ((wm * 8 + wk) * 8 + bm) * 8 + bk


cdef inline void tb_dims(TBDims* d, int wm, int wk, int bm, int bk) noexcept nogil:
    d.wm = wm
    d.wk = wk
    d.bm = bm
    d.bk = bk
    d.n_wm = TB_BINOM[28][wm]
    d.n_bm = TB_BINOM[28][bm]
    d.n_wk = TB_BINOM[32 - wm - bm][wk]
    d.n_bk = TB_BINOM[32 - wm - bm - wk][bk]
    d.size = d.n_wm * d.n_bm * d.n_wk * d.n_bk


cdef inline uint64_t rank_mask(uint32_t m) noexcept nogil:
    """Colex rank of a set of positions: sum of C(p_i, i + 1) over its members, ascending."""
    cdef uint64_t r = 0
    cdef int i = 1
    while m:
        r += TB_BINOM[lsb(m)][i]
        m &= m - 1
        i += 1
    return r


cdef inline uint32_t compress_mask(uint32_t m, uint32_t free) noexcept nogil:
    """The members of m (all inside free) renumbered as positions among the squares of free."""
    cdef uint32_t out = 0
    cdef int s
    while m:
        s = lsb(m)
        m &= m - 1
        out |= (<uint32_t>1) << popcount(free & ((<uint32_t>1 << s) - 1))
    return out


cdef inline uint32_t unrank_mask(uint64_t r, int k, int n) noexcept nogil:
    """The k-subset of 0..n-1 with colex rank r."""
    cdef uint32_t m = 0
    cdef int p = n - 1
    while k > 0:
        while TB_BINOM[p][k] > r:
            p -= 1
        m |= (<uint32_t>1) << p
        r -= TB_BINOM[p][k]
        k -= 1
        p -= 1
    return m


cdef inline int select_bit(uint32_t m, int k) noexcept nogil:
    """The square of the k-th (from 0) set bit of m, a byte at a time."""
    cdef int shift = 0, c
    while shift < 32:
        c = popcount((m >> shift) & 0xFF)
        if k < c:
            return shift + TB_SEL8[(m >> shift) & 0xFF][k]
        k -= c
        shift += 8
    return 31


cdef inline uint32_t expand_mask(uint32_t pos, uint32_t free) noexcept nogil:
    """Inverse of compress_mask: positions among the squares of free -> squares."""
    cdef uint32_t out = 0
    while pos:
        out |= (<uint32_t>1) << select_bit(free, lsb(pos))
        pos &= pos - 1
    return out


cdef inline uint64_t tb_index(const TBDims* d, uint32_t wmen, uint32_t wk, uint32_t bmen,
                              uint32_t bkings) noexcept nogil:
    cdef uint32_t occ = wmen | bmen
    cdef uint64_t r_wm = rank_mask(wmen)
    cdef uint64_t r_bm = rank_mask(bmen >> 4)
    cdef uint64_t r_wk = rank_mask(compress_mask(wk, ~occ))
    cdef uint64_t r_bk = rank_mask(compress_mask(bkings, ~(occ | wk)))
    return ((r_wm * d.n_bm + r_bm) * d.n_wk + r_wk) * d.n_bk + r_bk


cdef inline int tb_unindex(const TBDims* d, uint64_t idx, uint32_t* wmen, uint32_t* wk,
                           uint32_t* bmen, uint32_t* bkings) noexcept nogil:
    """Masks of index idx; returns 0 for an impossible slot (white and black men overlap)."""
    cdef uint64_t r_bk = idx % d.n_bk
    idx //= d.n_bk
    cdef uint64_t r_wk = idx % d.n_wk
    idx //= d.n_wk
    cdef uint64_t r_bm = idx % d.n_bm
    cdef uint64_t r_wm = idx // d.n_bm
    wmen[0] = unrank_mask(r_wm, d.wm, 28)
    bmen[0] = unrank_mask(r_bm, d.bm, 28) << 4
    if wmen[0] & bmen[0]:
        return 0
    cdef uint32_t occ = wmen[0] | bmen[0]
    wk[0] = expand_mask(unrank_mask(r_wk, d.wk, 32 - d.wm - d.bm), ~occ)
    bkings[0] = expand_mask(unrank_mask(r_bk, d.bk, 32 - d.wm - d.bm - d.wk), ~(occ | wk[0]))
    return 1


cdef inline void board_of_masks(Board* b, uint32_t wmen, uint32_t wk, uint32_t bmen,
                                uint32_t bkings) noexcept nogil:
    """A core board with white (side 0) to move."""
    b.pieces[0] = bb_of_mask(wmen | wk)
    b.pieces[1] = bb_of_mask(bmen | bkings)
    b.kings = bb_of_mask(wk | bkings)
    b.hash = 0
    b.side = 0


cdef inline void normal_masks(const Board* b, uint32_t* wmen, uint32_t* wk, uint32_t* bmen,
                              uint32_t* bkings) noexcept nogil:
    """Masks of b seen from its side to move (turned and colour-swapped when side 1 moves)."""
    cdef uint32_t p0 = sq_mask(b.pieces[0]), p1 = sq_mask(b.pieces[1]), k = sq_mask(b.kings)
    if b.side == 0:
        wmen[0] = p0 & ~k
        wk[0] = p0 & k
        bmen[0] = p1 & ~k
        bkings[0] = p1 & k
    else:
        wmen[0] = rev32(p1 & ~k)
        wk[0] = rev32(p1 & k)
        bmen[0] = rev32(p0 & ~k)
        bkings[0] = rev32(p0 & k)
