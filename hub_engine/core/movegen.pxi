# Legal move generation for every 8x8 variant, driven by one rule table (included by core.pyx).
#
# Captures are found by depth-first search with the captured pieces left on the board (they block
# and cannot be jumped twice) and the moving piece lifted from its origin. Precedence rules are
# applied as a filter over the complete sequences, then paths with the same (origin, destination,
# captured set, crowning) are merged into one move.

cdef enum:
    PREC_NONE = 0          # any complete sequence (russian, english)
    PREC_QUANTITY = 1      # most pieces (brazilian)
    PREC_QUALITY = 2       # most pieces, then most kings (portuguese, spanish)
    PREC_ITALIAN = 3       # rules.md section 3

cdef enum:
    CROWN_END = 0          # the move ends on the crowning row (forward-only men)
    CROWN_PASS = 1         # the man goes on capturing as a man; crowned if it stops there
    CROWN_KING = 2         # crowned at once, goes on capturing as a king

cdef enum:
    MAX_MOVES = 512


cdef struct Rules:
    int flying             # kings move and capture at any distance
    int men_back           # men capture backward
    int precedence         # PREC_*
    int crown_mid          # CROWN_*
    int men_take_kings     # 0 in italian
    # draw rules, in moves by each side (0 = rule off); see draws.pxi
    int quiet_moves        # no man move and no capture
    int nocapcrown_moves   # no capture and no crowning (italian)
    int kings_vs_lone      # russian: 3+ kings against a lone king
    int both_kings_45      # russian: kings on both sides, 4-5 pieces, unchanged material
    int both_kings_67      # russian: same with 6-7 pieces
    int three_vs_lone_diag # russian: 3 pieces against a lone king on the long diagonal
    int few_vs_lone        # russian: 1-2 pieces against a lone king
    int three_kings_rio    # portuguese/spanish: 3 kings against 1, from the long diagonal
    int repetitions        # occurrences that draw (3)


cdef struct Board:
    bb pieces[2]           # all pieces of each side; side 0 moves first and up the board
    bb kings
    uint64_t hash
    int side               # side to move


cdef struct Move:
    bb captured            # bits of the captured pieces
    uint8_t frm            # origin bit
    uint8_t to             # destination bit
    uint8_t promote        # a man ends the move crowned
    uint8_t ncap           # pieces captured
    uint8_t nkings         # kings captured
    uint8_t by_king        # the moving piece is a king
    uint16_t korder        # bit (15 - i) set when the i-th captured piece is a king


cdef struct Gen:
    const Rules* r
    Move* out
    int n
    bb empty               # empty playing squares, the mover's origin included
    bb enemy
    bb enemy_kings
    bb promo               # the mover's crowning row
    int frm
    int mover_king


cdef inline bb shift(bb x, int o) noexcept nogil:
    if o > 0:
        return x << o
    return x >> (-o)


cdef inline bb fill_up(bb g, bb p, int o) noexcept nogil:
    """g and every square reached from it by steps of +o through squares of p (p within
    VALID): three doubling steps cover the longest diagonal's seven."""
    g |= p & (g << o)
    p &= p << o
    g |= p & (g << (2 * o))
    p &= p << (2 * o)
    return g | (p & (g << (4 * o)))


cdef inline bb fill_down(bb g, bb p, int o) noexcept nogil:
    """fill_up() by steps of -o."""
    g |= p & (g >> o)
    p &= p >> o
    g |= p & (g >> (2 * o))
    p &= p >> (2 * o)
    return g | (p & (g >> (4 * o)))


cdef inline bint kings_can_capture(const Rules* r, bb kings, bb enemy, bb empty) noexcept nogil:
    """Whether one of `kings` has a first jump: in some direction, past empty squares when kings
    fly, an enemy piece with an empty square behind it. Bitboard fills for all kings at once,
    with the four directions' offsets (+4, +5, -5, -4) as constants, instead of walking every
    ray."""
    cdef bb ul = kings, ur = kings, dl = kings, dr = kings
    if r.flying:
        ul = fill_up(kings, empty, 4)
        ur = fill_up(kings, empty, 5)
        dl = fill_down(kings, empty, 5)
        dr = fill_down(kings, empty, 4)
    return (((ul << 4) & enemy & (empty >> 4)) | ((ur << 5) & enemy & (empty >> 5))
            | ((dl >> 5) & enemy & (empty << 5)) | ((dr >> 4) & enemy & (empty << 4))) != 0


cdef inline void emit(Gen* g, int to, bb captured, int ncap, int nk, int korder, int promote) noexcept nogil:
    if g.n >= MAX_MOVES:
        return
    cdef Move* m = &g.out[g.n]
    m.captured = captured
    m.frm = <uint8_t>g.frm
    m.to = <uint8_t>to
    m.promote = <uint8_t>promote
    m.ncap = <uint8_t>ncap
    m.nkings = <uint8_t>nk
    m.by_king = <uint8_t>g.mover_king
    m.korder = <uint16_t>korder
    g.n += 1


cdef inline int king_bit(int is_king, int step) noexcept nogil:
    if is_king and step < 16:
        return 1 << (15 - step)
    return 0


cdef int fly_caps(Gen* g, int sq, bb captured, int ncap, int nk, int korder, int promoted) noexcept nogil:
    """Flying king captures from sq; returns 1 when at least one capture was possible."""
    cdef int found = 0, d, x, y, k, cont, nko
    cdef bb nc
    cdef bb avail = g.enemy & ~captured
    for d in range(4):
        x = NB[d][sq]
        while (g.empty >> x) & 1:
            x = NB[d][x]
        if not ((avail >> x) & 1):
            continue
        y = NB[d][x]
        if not ((g.empty >> y) & 1):
            continue
        found = 1
        nc = captured | ((<bb>1) << x)
        k = <int>((g.enemy_kings >> x) & 1)
        nko = korder | king_bit(k, ncap)
        cont = 0
        while (g.empty >> y) & 1:
            if fly_caps(g, y, nc, ncap + 1, nk + k, nko, promoted):
                cont = 1
            y = NB[d][y]
        if not cont:
            # no landing square lets the capture go on: every landing square ends a move
            y = NB[d][x]
            while (g.empty >> y) & 1:
                emit(g, y, nc, ncap + 1, nk + k, nko, promoted)
                y = NB[d][y]
    return found


cdef int step_caps(Gen* g, int sq, bb captured, int ncap, int nk, int korder,
                   int d0, int d1, int is_man) noexcept nogil:
    """Captures of a man or a short king (directions d0..d1-1); returns 1 if any was possible."""
    cdef int found = 0, d, x, y, k, nko
    cdef bb nc
    cdef bb avail = g.enemy & ~captured
    if is_man and not g.r.men_take_kings:
        avail &= ~g.enemy_kings
    for d in range(d0, d1):
        x = NB[d][sq]
        if not ((avail >> x) & 1):
            continue
        y = NB[d][x]
        if not ((g.empty >> y) & 1):
            continue
        found = 1
        nc = captured | ((<bb>1) << x)
        k = <int>((g.enemy_kings >> x) & 1)
        nko = korder | king_bit(k, ncap)
        if is_man and (g.promo >> y) & 1:
            if g.r.crown_mid == CROWN_KING:
                if not fly_caps(g, y, nc, ncap + 1, nk + k, nko, 1):
                    emit(g, y, nc, ncap + 1, nk + k, nko, 1)
                continue
            if g.r.crown_mid == CROWN_END:
                emit(g, y, nc, ncap + 1, nk + k, nko, 1)
                continue
            if not step_caps(g, y, nc, ncap + 1, nk + k, nko, d0, d1, 1):
                emit(g, y, nc, ncap + 1, nk + k, nko, 1)
            continue
        if not step_caps(g, y, nc, ncap + 1, nk + k, nko, d0, d1, is_man):
            emit(g, y, nc, ncap + 1, nk + k, nko, 0)
    return found


cdef inline void man_dirs(const Rules* r, int side, int* d0, int* d1) noexcept nogil:
    if r.men_back:
        d0[0] = 0
        d1[0] = 4
    elif side == 0:
        d0[0] = UL
        d1[0] = UR + 1
    else:
        d0[0] = DL
        d1[0] = DR + 1


cdef inline bb man_jumpers(const Rules* r, const Board* b, bb men) noexcept nogil:
    """Men that have at least one first jump (a cheap bitboard pre-test; the directions'
    offsets +4, +5 forward for side 0, -5, -4 for side 1, as constants)."""
    cdef bb opp = b.pieces[1 - b.side]
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef bb avail = opp
    cdef bb res = 0
    if not r.men_take_kings:
        avail &= ~b.kings
    if r.men_back or b.side == 0:
        res |= men & (((avail >> 4) & (empty >> 8)) | ((avail >> 5) & (empty >> 10)))
    if r.men_back or b.side == 1:
        res |= men & (((avail << 5) & (empty << 10)) | ((avail << 4) & (empty << 8)))
    return res


cdef inline uint32_t move_key(const Rules* r, const Move* m) noexcept nogil:
    if r.precedence == PREC_QUANTITY:
        return m.ncap
    if r.precedence == PREC_QUALITY:
        return (<uint32_t>m.ncap << 8) | m.nkings
    return ((<uint32_t>m.ncap << 24) | (<uint32_t>m.by_king << 23) | (<uint32_t>m.nkings << 16)
            | m.korder)


cdef int filter_captures(const Rules* r, Move* moves, int n) noexcept nogil:
    """Keep the sequences the precedence rule allows, then merge duplicate paths."""
    cdef int i, j, kept
    cdef uint32_t best = 0, key
    if n <= 1:
        return n
    if r.precedence != PREC_NONE:
        for i in range(n):
            key = move_key(r, &moves[i])
            if key > best:
                best = key
        kept = 0
        for i in range(n):
            if move_key(r, &moves[i]) == best:
                moves[kept] = moves[i]
                kept += 1
        n = kept
    kept = 0
    for i in range(n):
        if moves[i].ncap >= 2:
            for j in range(kept):
                if (moves[j].captured == moves[i].captured and moves[j].to == moves[i].to
                        and moves[j].frm == moves[i].frm and moves[j].promote == moves[i].promote):
                    break
            else:
                moves[kept] = moves[i]
                kept += 1
        else:
            moves[kept] = moves[i]
            kept += 1
    return kept


cdef int gen_captures(const Rules* r, const Board* b, Move* out) noexcept nogil:
    """All legal captures (after precedence and merging); 0 when no capture is possible."""
    cdef Gen g
    cdef int side = b.side, f, d0, d1
    cdef bb own = b.pieces[side]
    cdef bb kings = own & b.kings
    cdef bb men = man_jumpers(r, b, own & ~b.kings)
    cdef bb fb
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    if kings and not kings_can_capture(r, kings, b.pieces[1 - side], empty):
        kings = 0
    if not men and not kings:
        return 0
    g.r = r
    g.out = out
    g.n = 0
    g.empty = empty
    g.enemy = b.pieces[1 - side]
    g.enemy_kings = g.enemy & b.kings
    g.promo = PROMO_ROW[side]
    man_dirs(r, side, &d0, &d1)
    g.mover_king = 0
    while men:
        f = lsb(men)
        men &= men - 1
        fb = (<bb>1) << f
        g.frm = f
        g.empty |= fb          # a man taking four pieces around a square comes back here
        step_caps(&g, f, 0, 0, 0, 0, d0, d1, 1)
        g.empty &= ~fb
    g.mover_king = 1
    while kings:
        f = lsb(kings)
        kings &= kings - 1
        fb = (<bb>1) << f
        g.frm = f
        g.empty |= fb
        if r.flying:
            fly_caps(&g, f, 0, 0, 0, 0, 0)
        else:
            step_caps(&g, f, 0, 0, 0, 0, 0, 4, 0)
        g.empty &= ~fb
    return filter_captures(r, out, g.n)


cdef inline void add_quiet(Move* out, int* n, int f, int t, int promote, int by_king) noexcept nogil:
    cdef Move* m = &out[n[0]]
    m.captured = 0
    m.frm = <uint8_t>f
    m.to = <uint8_t>t
    m.promote = <uint8_t>promote
    m.ncap = 0
    m.nkings = 0
    m.by_king = <uint8_t>by_king
    m.korder = 0
    n[0] += 1


cdef int gen_quiet(const Rules* r, const Board* b, Move* out) noexcept nogil:
    """All non-capturing moves (only legal when gen_captures found none)."""
    cdef int side = b.side, n = 0, d, o, t, f
    cdef bb own = b.pieces[side]
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef bb men = own & ~b.kings
    cdef bb kings = own & b.kings
    cdef bb targets
    cdef bb promo = PROMO_ROW[side]
    cdef int d0 = UL if side == 0 else DL
    for d in range(d0, d0 + 2):
        o = DIR_OFFSET[d]
        targets = shift(men, o) & empty
        while targets:
            t = lsb(targets)
            targets &= targets - 1
            add_quiet(out, &n, t - o, t, <int>((promo >> t) & 1), 0)
    while kings:
        f = lsb(kings)
        kings &= kings - 1
        for d in range(4):
            t = NB[d][f]
            while (empty >> t) & 1:
                add_quiet(out, &n, f, t, 0, 1)
                if not r.flying:
                    break
                t = NB[d][t]
    return n


cdef int count_quiet(const Rules* r, const Board* b) noexcept nogil:
    """Number of non-capturing moves, without listing them (bulk counting)."""
    cdef int side = b.side, n = 0, d, t, f
    cdef bb own = b.pieces[side]
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef bb men = own & ~b.kings
    cdef bb kings = own & b.kings
    cdef int d0 = UL if side == 0 else DL
    for d in range(d0, d0 + 2):
        n += popcount(shift(men, DIR_OFFSET[d]) & empty)
    while kings:
        f = lsb(kings)
        kings &= kings - 1
        for d in range(4):
            t = NB[d][f]
            while (empty >> t) & 1:
                n += 1
                if not r.flying:
                    break
                t = NB[d][t]
    return n


cdef int gen_moves(const Rules* r, const Board* b, Move* out) noexcept nogil:
    cdef int n = gen_captures(r, b, out)
    if n:
        return n
    return gen_quiet(r, b, out)


cdef inline uint64_t child_hash(const Board* b, const Move* m) noexcept nogil:
    """The hash of b with m played (make_move's, without making the move)."""
    cdef int s = b.side, o = 1 - b.side, f = m.frm, sq
    cdef bb cap = m.captured
    cdef int was_king = <int>((b.kings >> f) & 1)
    cdef int is_king = was_king | m.promote
    cdef uint64_t h = b.hash ^ ZOBRIST[s][was_king][f] ^ ZOBRIST[s][is_king][m.to] ^ ZOBRIST_SIDE
    cdef bb capkings = b.kings & cap
    while cap:
        sq = lsb(cap)
        cap &= cap - 1
        h ^= ZOBRIST[o][<int>((capkings >> sq) & 1)][sq]
    return h


cdef void make_move(const Board* b, const Move* m, Board* out) noexcept nogil:
    """Copy-make: out becomes b with m played (also valid when out == b)."""
    cdef int s = b.side, o = 1 - b.side, f = m.frm, t = m.to
    cdef bb fb = (<bb>1) << f, tb = (<bb>1) << t
    cdef int is_king = <int>((b.kings >> f) & 1) | m.promote
    cdef uint64_t h = child_hash(b, m)
    cdef bb kings = b.kings & ~m.captured & ~fb
    if is_king:
        kings |= tb
    out.pieces[s] = (b.pieces[s] & ~fb) | tb
    out.pieces[o] = b.pieces[o] & ~m.captured
    out.kings = kings
    out.hash = h
    out.side = o


cdef uint64_t hash_board(const Board* b) noexcept nogil:
    cdef uint64_t h = 0
    cdef int s, sq
    cdef bb x
    for s in range(2):
        x = b.pieces[s]
        while x:
            sq = lsb(x)
            x &= x - 1
            h ^= ZOBRIST[s][<int>((b.kings >> sq) & 1)][sq]
    if b.side:
        h ^= ZOBRIST_SIDE
    return h


cdef uint64_t perft(const Rules* r, const Board* b, int depth) noexcept nogil:
    """Leaf count with bulk counting at the last ply."""
    cdef Move moves[MAX_MOVES]
    cdef Board child
    cdef int n, i
    cdef uint64_t total = 0
    if depth <= 0:
        return 1
    n = gen_captures(r, b, moves)
    if n == 0:
        if depth == 1:
            return count_quiet(r, b)
        n = gen_quiet(r, b, moves)
    if depth == 1:
        return n
    for i in range(n):
        make_move(b, &moves[i], &child)
        total += perft(r, &child, depth - 1)
    return total
