# Endgame tables: reading a slice and probing a position (included by core.pyx).
#
# Stored win/draw/loss tables are run-length encoded (format in hub_engine/tables/fileformat.py):
# symbols 0 draw, 1 win, 2 loss for the side to move. A code byte below 243 holds five symbols in
# base 3 (first symbol lowest); 243..255 repeat the previous symbol TB_RUNLEN[c - 243] times.
# Blocks of TB_BLOCK bytes start at a recorded position index and previous symbol, so a probe
# binary-searches the block and decodes at most TB_BLOCK bytes. Capture positions (and impossible
# slots) are left out: the encoder gives them whatever lengthens the current run, so a probe of a
# position whose side to move can capture is meaningless; callers resolve captures first.
#
# Distance tables are one byte a position, captures included:
#   0 = draw under the move-count rules, 1..127 = win in d plies, 128 + d = loss in d plies,
# where d counts plies until the next capture or crowning (the conversions that restart the
# counts), with conversions valued by the earlier slices' distance tables under fresh counters.
# 127 also stands for longer distances where no count applies (men on the board, no rule but
# the quiet one, which a man step restarts).

from libc.stdlib cimport malloc, calloc, free, realloc
from libc.string cimport memset, memcpy

cdef enum:
    TB_BLOCK = 64
    TB_RUNS = 13
    TB_WIN_SCORE = 29000       # a table win at the root shows as 90.00 (hub-protocol.md)
    TB_BOUND = 28000           # |score| above this is a table or mate score (ply-relative)
    TB_TRUST_PLIES = 20        # plain win/loss results need this many plies left on every counter
    TBK_NONE = 0
    TBK_RLE = 1                # run-length encoded win/draw/loss
    TBK_RAW = 2                # 2 bits a position, captures included (build dependencies)
    TBK_DTC = 3                # distance bytes

cdef uint32_t TB_RUNLEN[TB_RUNS]
TB_RUNLEN[:] = [6, 8, 11, 16, 24, 32, 64, 128, 256, 1024, 4096, 16384, 65536]
cdef int TB_POW3[5]
TB_POW3[:] = [1, 3, 9, 27, 81]


cdef struct TBSlice:
    TBDims d
    int kind
    const uint8_t* data
    uint64_t data_len
    const uint64_t* blocks     # per block: start index << 2 | symbol before it
    uint64_t nblocks


cdef struct TBSet:
    TBSlice wld[TB_MATN]
    TBSlice dtc[TB_MATN]
    int max_pieces             # largest piece count with a win/draw/loss table


cdef inline int rle_symbol(const TBSlice* s, uint64_t idx) noexcept nogil:
    cdef uint64_t lo = 0, hi = s.nblocks - 1, mid, pos
    cdef const uint8_t* p
    cdef const uint8_t* end
    cdef int prev, c
    cdef uint32_t run
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if (s.blocks[mid] >> 2) <= idx:
            lo = mid
        else:
            hi = mid - 1
    pos = s.blocks[lo] >> 2
    prev = <int>(s.blocks[lo] & 3)
    p = s.data + lo * TB_BLOCK
    end = s.data + s.data_len
    while p < end:
        c = p[0]
        p += 1
        if c < 243:
            if idx < pos + 5:
                return (c // TB_POW3[<int>(idx - pos)]) % 3
            pos += 5
            prev = c // 81
        else:
            run = TB_RUNLEN[c - 243]
            if idx < pos + run:
                return prev
            pos += run
    return 0


cdef inline int raw_symbol(const TBSlice* s, uint64_t idx) noexcept nogil:
    return (s.data[idx >> 2] >> (2 * (idx & 3))) & 3


cdef inline int tb_lookup(const TBSlice* s, uint64_t idx) noexcept nogil:
    """Win/draw/loss symbol of index idx, -1 when the slice is absent."""
    if s.kind == TBK_RLE:
        return rle_symbol(s, idx)
    if s.kind == TBK_RAW:
        return raw_symbol(s, idx)
    return -1


cdef inline int tb_locate(const TBSet* ts, const Board* b, int dtc, uint64_t* idx) noexcept nogil:
    """Material code of b (seen from its side to move) and its index; -1 when no table has it."""
    cdef uint32_t wmen, wk, bmen, bkings
    cdef int code
    cdef const TBSlice* s
    normal_masks(b, &wmen, &wk, &bmen, &bkings)
    code = mat_code(popcount(wmen), popcount(wk), popcount(bmen), popcount(bkings))
    if popcount(wmen) >= TB_MAXG or popcount(wk) >= TB_MAXG or popcount(bmen) >= TB_MAXG or popcount(bkings) >= TB_MAXG:
        return -1
    if (wmen >> 28) or (bmen & 0xF):
        return -1               # a man on its crowning row (a set-up position): no index holds it
    s = &ts.dtc[code] if dtc else &ts.wld[code]
    if s.kind == TBK_NONE:
        return -1
    idx[0] = tb_index(&s.d, wmen, wk, bmen, bkings)
    return code


cdef inline int tb_probe_wld(const TBSet* ts, const Board* b) noexcept nogil:
    """0 draw, 1 win, 2 loss for the side to move of a position without captures; -1 unknown."""
    cdef uint64_t idx
    cdef int code = tb_locate(ts, b, 0, &idx)
    if code < 0:
        return -1
    return tb_lookup(&ts.wld[code], idx)


cdef inline int tb_probe_dtc(const TBSet* ts, const Board* b) noexcept nogil:
    """The distance byte of b, -1 when b's slice has no distance table."""
    cdef uint64_t idx
    cdef int code = tb_locate(ts, b, 1, &idx)
    if code < 0:
        return -1
    return ts.dtc[code].data[idx]


cdef inline int _rule_left(int left, int flags, int flag, int limit, int plies) noexcept nogil:
    if (flags & flag) and limit > 0 and 2 * limit - plies < left:
        return 2 * limit - plies
    return left


cdef inline int quiet_left(const Rules* r, const Counters* c) noexcept nogil:
    """Plies before the rule on moves without a man move or a capture draws (1 << 20: none)."""
    return 2 * r.quiet_moves - c.quiet if r.quiet_moves else 1 << 20


cdef inline int plies_left(const Rules* r, const Counters* c) noexcept nogil:
    """Plies before counters_draw() would call the game drawn (<= 0: drawn now; 1 << 20: no rule).

    Mirrors counters_draw in draws.pxi rule by rule (a test checks that they agree)."""
    cdef int left = material_plies_left(r, c), q = quiet_left(r, c)
    return q if q < left else left


cdef inline int material_plies_left(const Rules* r, const Counters* c) noexcept nogil:
    """plies_left() without the quiet rule: the counts a man move does not restart, only a
    capture or a crowning (and, for the counts by place, a change of place)."""
    cdef int left = 1 << 20
    if r.nocapcrown_moves and 2 * r.nocapcrown_moves - c.nocapcrown < left:
        left = 2 * r.nocapcrown_moves - c.nocapcrown
    left = _rule_left(left, c.cfg, CFG_KINGS_VS_LONE, r.kings_vs_lone, c.nocapcrown)
    left = _rule_left(left, c.cfg, CFG_BOTH_KINGS_45, r.both_kings_45, c.nocapcrown)
    left = _rule_left(left, c.cfg, CFG_BOTH_KINGS_67, r.both_kings_67, c.nocapcrown)
    left = _rule_left(left, c.cfg, CFG_FEW_VS_LONE, r.few_vs_lone, c.nocapcrown)
    left = _rule_left(left, c.cfg, CFG_THREE_VS_DIAG, r.three_vs_lone_diag, c.cfg_plies)
    left = _rule_left(left, c.cfg, CFG_RIO_RUN, r.three_kings_rio, c.cfg_plies)
    return left


cdef inline int has_men(const Board* b) noexcept nogil:
    return ((b.pieces[0] | b.pieces[1]) & ~b.kings) != 0


cdef inline int dtc_plies_left(const Rules* r, const Board* b, const Counters* c) noexcept nogil:
    """The plies a distance table's conversion must come within. A distance counts plies to the
    next capture or crowning; with men on the board a man move in between restarts the quiet
    rule, so only the other counts bound it there (tb_score weighs the quiet rule apart)."""
    return material_plies_left(r, c) if has_men(b) else plies_left(r, c)


cdef inline int fresh_plies(const Rules* r, const Board* b) noexcept nogil:
    """dtc_plies_left() for b reached by a capture or a crowning (every counter restarted)."""
    cdef Counters c
    init_counters(r, b, &c)
    return dtc_plies_left(r, b, &c)


cdef inline int tb_score(const TBSet* ts, const Rules* r, const Board* b, const Counters* c,
                         int ply, int* score, int plain) noexcept nogil:
    """Table score of a position whose side to move has no capture; returns 0 when not known.

    Slices with a distance table are exact under the move-count rules: a win counts only when
    its conversion (the next capture or crowning) comes before the counters run out. With men on
    the board the quiet rule, which a man move restarts, is exact only when the conversion comes
    within it, and is otherwise trusted while it has TB_TRUST_PLIES plies left. Slices without
    one ignore the rules, so their wins and losses are trusted only while every counter has
    TB_TRUST_PLIES plies left (the search, which sees the counters, decides the rest); their
    draws always hold. Without `plain` only distance tables are read."""
    cdef int v, d, left, q
    v = tb_probe_dtc(ts, b)
    if v >= 0:
        if v == 0:
            score[0] = 0
            return 1
        left = dtc_plies_left(r, b, c)
        d = v if v < 128 else v - 128
        if d > left:
            score[0] = 0
            return 1
        if has_men(b):
            q = quiet_left(r, c)
            if d > q and q < TB_TRUST_PLIES:
                return 0
        if v < 128:
            score[0] = TB_WIN_SCORE - ply - d
        else:
            score[0] = -(TB_WIN_SCORE - ply - d)
        return 1
    if not plain:
        return 0
    v = tb_probe_wld(ts, b)
    if v < 0:
        return 0
    if v == 0:
        score[0] = 0
        return 1
    if plies_left(r, c) < TB_TRUST_PLIES:
        return 0
    score[0] = TB_WIN_SCORE - ply if v == 1 else -(TB_WIN_SCORE - ply)
    return 1
