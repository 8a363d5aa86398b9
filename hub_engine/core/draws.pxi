# Draw-rule counters of rules.md section 4 (included by core.pyx).
#
# The counters travel with the game state (and through the search) and are updated from the move
# and the positions before and after it. Limits come from the rule table in moves by each side; a
# counter counts plies, so a limit of N moves is reached at 2N plies.

cdef enum:
    # endgame situations, as bit flags: several can hold at once
    CFG_KINGS_VS_LONE = 1      # 3+ kings against a lone king (russian)
    CFG_BOTH_KINGS_45 = 2      # kings on both sides, 4-5 pieces (russian)
    CFG_BOTH_KINGS_67 = 4      # kings on both sides, 6-7 pieces (russian)
    CFG_THREE_VS_DIAG = 8      # 3 pieces against a lone king on the long diagonal (russian)
    CFG_FEW_VS_LONE = 16       # 1-2 pieces against a lone king (russian)
    CFG_RIO_WAIT = 32          # 3 kings against 1, the three not yet all on the long diagonal
    CFG_RIO_RUN = 64           # 3 kings against 1, counting since they held the long diagonal
    CFG_BY_PLACE = CFG_THREE_VS_DIAG | CFG_RIO_RUN   # counted from when the placement arose

cdef enum:
    DRAW_NONE = 0
    DRAW_QUIET = 1             # no man move and no capture
    DRAW_NOCAPCROWN = 2        # no capture and no crowning
    DRAW_ENDGAME = 3           # an endgame that was not won in time


cdef struct Counters:
    int quiet                  # plies since a man moved or a piece was captured
    int nocapcrown             # plies since a capture or a crowning (the material balance)
    int cfg                    # endgame situations (CFG_* flags)
    int cfg_plies              # plies since the CFG_BY_PLACE situations last changed


cdef int endgame_config(const Rules* r, const Board* b, int prev) noexcept nogil:
    """CFG_* flags of the endgame rules that apply to b (prev: the flags before the move)."""
    cdef int s, lone, n_strong, k_strong, flags = 0
    cdef int total = popcount(b.pieces[0] | b.pieces[1])
    for lone in range(2):
        if popcount(b.pieces[lone]) != 1 or not (b.pieces[lone] & b.kings):
            continue
        n_strong = popcount(b.pieces[1 - lone])
        k_strong = popcount(b.pieces[1 - lone] & b.kings)
        if n_strong == 0:
            return 0
        if r.three_kings_rio and n_strong == 3 and k_strong == 3:
            if (prev & CFG_RIO_RUN) or (b.pieces[1 - lone] & ~LONG_DIAGONAL) == 0:
                flags |= CFG_RIO_RUN
            else:
                flags |= CFG_RIO_WAIT
        if r.few_vs_lone and n_strong <= 2:
            flags |= CFG_FEW_VS_LONE
        if r.three_vs_lone_diag and n_strong == 3 and (b.pieces[lone] & LONG_DIAGONAL):
            flags |= CFG_THREE_VS_DIAG
        if r.kings_vs_lone and k_strong >= 3:
            flags |= CFG_KINGS_VS_LONE
    if (b.pieces[0] & b.kings) and (b.pieces[1] & b.kings):
        if r.both_kings_45 and 4 <= total <= 5:
            flags |= CFG_BOTH_KINGS_45
        if r.both_kings_67 and 6 <= total <= 7:
            flags |= CFG_BOTH_KINGS_67
    return flags


cdef inline int over(int flags, int flag, int limit, int plies) noexcept nogil:
    return (flags & flag) != 0 and limit > 0 and plies >= 2 * limit


cdef void next_counters(const Rules* r, const Board* before, const Move* m, const Board* after,
                        const Counters* c, Counters* out) noexcept nogil:
    cdef int man_move = not ((before.kings >> m.frm) & 1)
    cdef int material = m.ncap > 0 or m.promote
    cdef int cfg = endgame_config(r, after, c.cfg)
    out.quiet = 0 if (man_move or m.ncap > 0) else c.quiet + 1
    out.nocapcrown = 0 if material else c.nocapcrown + 1
    # most endgame counts run from when the material balance arose (nocapcrown); the long-
    # diagonal ones from when the placement arose
    out.cfg_plies = 0 if (material or (cfg & CFG_BY_PLACE) != (c.cfg & CFG_BY_PLACE)) else c.cfg_plies + 1
    out.cfg = cfg


cdef void init_counters(const Rules* r, const Board* b, Counters* out) noexcept nogil:
    out.quiet = 0
    out.nocapcrown = 0
    out.cfg = endgame_config(r, b, 0)
    out.cfg_plies = 0


cdef int counters_draw(const Rules* r, const Counters* c) noexcept nogil:
    """DRAW_* reason when a counter has reached its limit."""
    if r.quiet_moves and c.quiet >= 2 * r.quiet_moves:
        return DRAW_QUIET
    if r.nocapcrown_moves and c.nocapcrown >= 2 * r.nocapcrown_moves:
        return DRAW_NOCAPCROWN
    if (over(c.cfg, CFG_KINGS_VS_LONE, r.kings_vs_lone, c.nocapcrown)
            or over(c.cfg, CFG_BOTH_KINGS_45, r.both_kings_45, c.nocapcrown)
            or over(c.cfg, CFG_BOTH_KINGS_67, r.both_kings_67, c.nocapcrown)
            or over(c.cfg, CFG_FEW_VS_LONE, r.few_vs_lone, c.nocapcrown)
            or over(c.cfg, CFG_THREE_VS_DIAG, r.three_vs_lone_diag, c.cfg_plies)
            or over(c.cfg, CFG_RIO_RUN, r.three_kings_rio, c.cfg_plies)):
        return DRAW_ENDGAME
    return DRAW_NONE
