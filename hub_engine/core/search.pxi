# Alpha-beta search (included by core.pyx, after tt.pxi and eval.pxi).
#
# One Searcher per thread; Searcher.iterate() runs ONE iteration (root depth and window given by
# the caller, who does iterative deepening and aspiration) with the GIL released. Principal
# variation search, negamax, fail-soft; TT move, killers and history for ordering; late-move
# reductions; single-reply extension (budgeted); mate-distance scores; repetition and the draw
# counters of draws.pxi; a quiescence search that resolves every capture and, once per path,
# answers a capture threat by searching the quiet moves instead of trusting the static eval.

from libc.stdlib cimport calloc, malloc, free, realloc

cdef extern from *:
    """
    #include <time.h>
    static inline double hub_now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    }
    static inline void hub_store_int(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline int hub_load_int(int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    """
    double hub_now() nogil
    void hub_store_int(int* p, int v) nogil
    int hub_load_int(int* p) nogil

from libc.math cimport log

MATE = MATE_SCORE
INF = INF_SCORE

cdef int LMR_TABLE[64][64]     # reduction by depth and move number (switch lmr = 2)


cdef void _init_lmr():
    cdef int d, i
    for d in range(64):
        for i in range(64):
            LMR_TABLE[d][i] = 0
            if d >= 1 and i >= 1:
                LMR_TABLE[d][i] = <int>(0.5 + log(d) * log(i + 1) / 2.0)


_init_lmr()

cdef enum:
    CHECK_EVERY = 1023         # nodes between clock / stop-flag polls (mask)
    HISTORY_MAX = 1 << 19
    ORDER_TT = 1 << 30
    ORDER_CAPTURE = 1 << 24
    ORDER_PROMOTE = 1 << 22
    ORDER_KILLER1 = 1 << 21
    ORDER_KILLER2 = 1 << 20
    MAX_EXCLUDE = 64           # root moves a MultiPV search can leave out
    EVAL_CACHE = 1 << 16       # entries of a Searcher's evaluation cache (512 KiB)
    PROBCUT_DEPTH = 3          # the shallow-search cut from this depth on
    PROBCUT_MARGIN = 10        # ... against beta + this many centi-men per ply of depth
    ROOT_ORDER = 0             # root moves in the last iteration's order (switch root_order; measured
                               # neutral, H0: off)
    COUNTER_KEY = 0            # the table key tells positions apart by the plies left before a
                               # counter draw, when fewer than COUNTER_KEYS (switch counter_key;
                               # measured, H0 at 0.1 s: off)
    TB_DRAW = 4                # a table draw that the evaluation calls better for the root's side
                               # scores a share of it, at most 5 x this many centi-men (switch
                               # tb_draw; 0: the draw's score; measured: neutral in self-play,
                               # better against an engine without tables: on)
    AGE = 0                    # killers and history aged between the searches of a game (switch age:
                               # 1 shifts the killers and halves the history; 0 keeps them as they are)
    QS_THREAT_EXT = 0          # default quiet plies a quiescence path may spend answering threats
                               # (0: the stand-pat penalty eval.threat instead; matches at fixed
                               # nodes scored 52.6% for lmr=2 + penalty against lmr=1 + one ply)


cdef struct SearchState:
    Rules r
    EvalParams ev
    TTEntry* tt
    uint64_t tt_mask
    int tt_gen
    Move* moves                # MAX_PLY * MAX_MOVES
    int* order                 # ordering scores, same shape
    Move* pv                   # MAX_PLY * MAX_PLY triangular table
    int pv_len[MAX_PLY + 1]
    uint32_t killers[MAX_PLY + 1][2]
    int history[2][64][64]
    uint64_t* keys             # hashes: game history, then one per ply of the current path
    int hist_len
    uint64_t nodes
    uint64_t node_limit
    double deadline
    int* stop_flag
    int aborted
    int seldepth
    uint64_t leaf_sum
    uint64_t leaf_count
    int helper
    uint64_t rng
    int opt_lmr                # late-move reductions on (tuning switch)
    int opt_qs_threat          # quiet plies a quiescence path may spend answering threats
    int opt_single_ext         # single-reply extension on
    int opt_probcut            # the shallow-search cut at non-PV nodes on
    int opt_eval_cache         # evaluations remembered in ecache (off: every one computed)
    int first_done             # the first root move has been fully searched
    int root_best              # index into the root move list of the best move so far
    uint32_t root_best_code    # the best root move of the previous iteration
    uint64_t root_best_key     # ... and the root it belongs to
    int opt_root_order         # root moves in the order the last iteration left (else heuristics)
    int opt_counter_key        # table keys with the plies left before a counter draw (tt_key)
    int opt_tb_draw            # table draws lean towards the evaluation (table_draw)
    uint32_t root_order[MAX_MOVES]   # that order: move codes, the best first
    int n_root_order           # its length (0: none)
    uint64_t root_order_key    # the root it belongs to
    uint32_t exclude[MAX_EXCLUDE]   # root moves left out of this iteration (MultiPV)
    int n_exclude
    const TBSet* tb            # endgame tables (NULL: none), see tb_probe.pxi
    int tb_max                 # largest piece count probed (0: off)
    int tb_plain_max           # ... for win/draw/loss slices (fewer at a root inside the tables)
    uint32_t* root_allowed     # move codes the root may play (n_root_allowed 0: all)
    int n_root_allowed
    uint64_t* ecache           # EVAL_CACHE evaluations: hash's high 48 bits | int16 value
    int root_side              # the side to move at the root
    int draw[2]                # a draw's score for the side to move (contempt: below 0 for the root's side)


cdef inline int cached_eval(SearchState* st, const Board* b) noexcept nogil:
    """evaluate(), remembered by position: the quiescence leaves of a search meet the same
    positions again and again (other move orders, the next iteration), and the evaluation is a
    function of the position alone for a Searcher's fixed parameters."""
    cdef uint64_t* slot = &st.ecache[b.hash & (EVAL_CACHE - 1)]
    cdef uint64_t e = slot[0]
    cdef int v
    if not st.opt_eval_cache:
        return evaluate(&st.ev, &st.r, b)
    if e != 0 and ((e ^ b.hash) >> 16) == 0:
        return <int16_t>(e & 0xFFFF)
    v = evaluate(&st.ev, &st.r, b)
    if -32768 <= v <= 32767:
        slot[0] = (b.hash & ~(<uint64_t>0xFFFF)) | (<uint64_t>(<uint16_t>v))
    return v


cdef inline int table_draw(SearchState* st, const Board* b) noexcept nogil:
    """The score of a position the tables call drawn. With tb_draw on (a search that plays), when
    the evaluation favours the root's side, an eighth of it (at most 5 x tb_draw centi-men) is
    added to the draw's: an opponent without tables can still go wrong in a drawn ending, so of the
    draws on offer the engine keeps the one with the most to play for, not the first one found. A
    draw that favours the other side scores as before, so the engine is no readier than before to
    leave a proven draw for an unproven line."""
    cdef int v, cap
    if not st.opt_tb_draw:
        return st.draw[b.side]
    cap = 5 * st.opt_tb_draw
    v = cached_eval(st, b) // 8
    if v > cap:
        v = cap
    elif v < -cap:
        v = -cap
    if b.side == st.root_side:
        return st.draw[b.side] + (v if v > 0 else 0)
    return st.draw[b.side] + (v if v < 0 else 0)


cdef inline bint out_of_time(SearchState* st) noexcept nogil:
    """Count a node; True (and st.aborted set) when a limit or stop() ends the search."""
    st.nodes += 1
    if st.aborted:
        return True
    if st.node_limit and st.nodes >= st.node_limit:
        st.aborted = 1
        return True
    if (st.nodes & CHECK_EVERY) == 0:
        if hub_load_int(st.stop_flag) or (st.deadline > 0 and hub_now() >= st.deadline):
            st.aborted = 1
            return True
    return False


cdef inline bint has_capture(const Rules* r, const Board* b, int side) noexcept nogil:
    """Whether `side` would have a capture if it were to move (a cheap test, no move list)."""
    cdef Board nb = b[0]
    cdef bb own = b.pieces[side]
    cdef bb kings = own & b.kings
    cdef bb enemy = b.pieces[1 - side]
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    nb.side = side
    if man_jumpers(r, &nb, own & ~b.kings):
        return True
    return kings != 0 and kings_can_capture(r, kings, enemy, empty)


def can_capture(CoreBoard board, int side) -> bool:
    """has_capture() for Python: whether `side` (0 or 1) could capture if it were to move (the
    search's quick test; tests hold it to the move generator)."""
    return has_capture(&board.rules.r, &board.b, side & 1)


def has_capture_either(CoreBoard board) -> bool:
    """Whether the side to move, or the other side if it were to move, can capture."""
    return (has_capture(&board.rules.r, &board.b, board.b.side)
            or has_capture(&board.rules.r, &board.b, 1 - board.b.side))


cdef inline bint has_quiet(const Rules* r, const Board* b) noexcept nogil:
    """Whether the side to move has a non-capturing move (count_quiet() > 0, without counting)."""
    cdef int side = b.side, f, d
    cdef bb empty = VALID & ~(b.pieces[0] | b.pieces[1])
    cdef bb men = b.pieces[side] & ~b.kings
    cdef bb kings = b.pieces[side] & b.kings
    cdef int d0 = UL if side == 0 else DL
    if (shift(men, DIR_OFFSET[d0]) | shift(men, DIR_OFFSET[d0 + 1])) & empty:
        return True
    while kings:
        f = lsb(kings)
        kings &= kings - 1
        for d in range(4):
            if (empty >> NB[d][f]) & 1:
                return True
    return False


cdef inline void update_pv(SearchState* st, int ply, const Move* m) noexcept nogil:
    cdef Move* row = &st.pv[ply * MAX_PLY]
    cdef Move* child = &st.pv[(ply + 1) * MAX_PLY]
    cdef int i
    row[ply] = m[0]
    for i in range(ply + 1, st.pv_len[ply + 1]):
        row[i] = child[i]
    st.pv_len[ply] = st.pv_len[ply + 1] if st.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline int pick_next(Move* moves, int* order, int i, int n) noexcept nogil:
    """Bring the best-ordered remaining move to index i (selection sort step)."""
    cdef int j, best = i
    cdef Move tm
    cdef int ts
    for j in range(i + 1, n):
        if order[j] > order[best]:
            best = j
    if best != i:
        tm = moves[i]
        moves[i] = moves[best]
        moves[best] = tm
        ts = order[i]
        order[i] = order[best]
        order[best] = ts
    return i


cdef inline void score_moves(SearchState* st, const Board* b, Move* moves, int* order, int n,
                             uint32_t tt_move, int ply) noexcept nogil:
    cdef int i
    cdef uint32_t code
    cdef Move* m
    for i in range(n):
        m = &moves[i]
        code = move_code(m)
        if tt_move and code == tt_move:
            order[i] = ORDER_TT
        elif m.ncap:
            order[i] = ORDER_CAPTURE + m.ncap * 64 + m.nkings * 16 + m.promote * 8
        elif m.promote:
            order[i] = ORDER_PROMOTE
        elif code == st.killers[ply][0]:
            order[i] = ORDER_KILLER1
        elif code == st.killers[ply][1]:
            order[i] = ORDER_KILLER2
        else:
            order[i] = st.history[b.side][m.frm][m.to]


cdef inline void halve_history(SearchState* st) noexcept nogil:
    """Every history count halved: their order is kept, and newer rewards weigh more."""
    cdef int i, j, s
    for s in range(2):
        for i in range(64):
            for j in range(64):
                st.history[s][i][j] >>= 1


cdef inline void reward_quiet(SearchState* st, const Board* b, const Move* m, int depth, int ply) noexcept nogil:
    cdef uint32_t code = move_code(m)
    if st.killers[ply][0] != code:
        st.killers[ply][1] = st.killers[ply][0]
        st.killers[ply][0] = code
    st.history[b.side][m.frm][m.to] += depth * depth
    if st.history[b.side][m.frm][m.to] > HISTORY_MAX:
        halve_history(st)


cdef inline uint64_t counter_part(int left) noexcept nogil:
    """What tt_key adds to the hash for `left` plies before a counter draw."""
    if left >= COUNTER_KEYS:
        return 0
    return ZOBRIST_LEFT[left if left > 0 else 0]


cdef inline uint64_t tt_key(const SearchState* st, const Board* b, const Counters* c) noexcept nogil:
    """The transposition table's key of b: its hash, and, when a move-count rule will draw the
    game within COUNTER_KEYS plies, those plies. The same board with other counters is another
    position to the search: one close to a counter draw stores draws that must not answer for
    the board with its counters fresh (a king ending would look drawn everywhere)."""
    if not st.opt_counter_key:
        return b.hash
    return b.hash ^ counter_part(plies_left(&st.r, c))


cdef int qsearch(SearchState* st, const Board* b, const Counters* c, int alpha, int beta, int ply,
                 int qext) noexcept nogil:
    cdef Move* moves = &st.moves[ply * MAX_MOVES]
    cdef Board child
    cdef Counters cc
    cdef int n, i, score, best, pieces
    st.pv_len[ply] = ply
    if out_of_time(st):
        return 0
    if ply > st.seldepth:
        st.seldepth = ply
    if counters_draw(&st.r, c):
        return st.draw[b.side]
    if ply >= MAX_PLY - 1:
        return cached_eval(st, b)
    # most quiescence nodes end in cached_eval: its slot's load overlaps the capture test
    hub_prefetch(&st.ecache[b.hash & (EVAL_CACHE - 1)])
    n = gen_captures(&st.r, b, moves)
    if n:
        # captures are forced: no stand-pat
        best = -INF_SCORE
        for i in range(n):
            make_move(b, &moves[i], &child)
            next_counters(&st.r, b, &moves[i], &child, c, &cc)
            score = -qsearch(st, &child, &cc, -beta, -alpha, ply + 1, qext)
            if st.aborted:
                return 0
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best
    if st.tb_max:
        pieces = popcount(b.pieces[0] | b.pieces[1])
        if pieces <= st.tb_max and tb_score(st.tb, &st.r, b, c, ply, &score,
                                             pieces <= st.tb_plain_max):
            return score if score else table_draw(st, b)
    if qext > 0 and has_capture(&st.r, b, 1 - b.side):
        # the opponent threatens a capture: the static eval is not trustworthy, look one ply more
        n = gen_quiet(&st.r, b, moves)
        if n == 0:
            return -(MATE_SCORE - ply)
        best = -INF_SCORE
        for i in range(n):
            make_move(b, &moves[i], &child)
            next_counters(&st.r, b, &moves[i], &child, c, &cc)
            score = -qsearch(st, &child, &cc, -beta, -alpha, ply + 1, qext - 1)
            if st.aborted:
                return 0
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best
    if not has_quiet(&st.r, b):
        return -(MATE_SCORE - ply)
    if qext == 0 and st.ev.threat and has_capture(&st.r, b, 1 - b.side):
        return cached_eval(st, b) - st.ev.threat
    return cached_eval(st, b)


cdef int search(SearchState* st, const Board* b, const Counters* c, int depth, int alpha, int beta,
                int ply, int irrev, int ext_left, int prune) noexcept nogil:
    cdef Move* moves = &st.moves[ply * MAX_MOVES]
    cdef int* order = &st.order[ply * MAX_MOVES]
    cdef Board child
    cdef Counters cc
    cdef TTHit hit
    cdef int n, i, score, best, best_i, new_depth, reduction, child_irrev, bound
    cdef int pv_node = beta - alpha > 1
    cdef int orig_alpha, margin, pieces
    cdef int idx = st.hist_len + ply
    cdef uint32_t code
    cdef uint64_t key, next_part
    cdef int left
    cdef Move* m

    st.pv_len[ply] = ply
    if depth <= 0:
        st.leaf_sum += ply
        st.leaf_count += 1
        return qsearch(st, b, c, alpha, beta, ply, st.opt_qs_threat)
    if out_of_time(st):
        return 0
    if ply > st.seldepth:
        st.seldepth = ply

    # draws: repetition (once is enough) and the rule counters
    st.keys[idx] = b.hash
    i = idx - 4
    while i >= irrev:
        if st.keys[i] == b.hash:
            return st.draw[b.side]
        i -= 2
    if counters_draw(&st.r, c):
        return st.draw[b.side]
    if ply >= MAX_PLY - 2:
        return cached_eval(st, b)
    if st.tb_max:
        pieces = popcount(b.pieces[0] | b.pieces[1])
        if (pieces <= st.tb_max and not has_capture(&st.r, b, b.side)
                and tb_score(st.tb, &st.r, b, c, ply, &score, pieces <= st.tb_plain_max)):
            return score if score else table_draw(st, b)

    # mate distance pruning
    if alpha < -(MATE_SCORE - ply):
        alpha = -(MATE_SCORE - ply)
    if beta > MATE_SCORE - ply - 1:
        beta = MATE_SCORE - ply - 1
    if alpha >= beta:
        return alpha
    orig_alpha = alpha

    key = b.hash
    next_part = 0
    if st.opt_counter_key:
        left = plies_left(&st.r, c)
        key ^= counter_part(left)
        next_part = counter_part(left - 1)     # a child's, unless its move restarts a counter
    tt_probe(st.tt, st.tt_mask, key, ply, &hit)
    if hit.found and not pv_node and hit.depth >= depth:
        if (hit.bound == BOUND_EXACT or (hit.bound == BOUND_LOWER and hit.score >= beta)
                or (hit.bound == BOUND_UPPER and hit.score <= alpha)):
            return hit.score

    # the shallow-search cut (Scan's "ProbCut-like" pruning): a null-window search of this node
    # at 40% of the depth that clears beta by a margin growing with the depth is taken as a
    # fail-high, less the margin; the search that decides it and its subtree prune nothing
    if (prune and st.opt_probcut and not pv_node and depth >= PROBCUT_DEPTH
            and -TB_BOUND < beta < TB_BOUND):
        margin = PROBCUT_MARGIN * depth
        score = search(st, b, c, depth * 2 // 5, beta + margin - 1, beta + margin, ply, irrev,
                       ext_left, 0)
        if st.aborted:
            return 0
        st.pv_len[ply] = ply
        if score >= beta + margin:
            return score - margin if score < TB_BOUND else beta   # no mate score less a margin

    n = gen_captures(&st.r, b, moves)
    if n == 0:
        n = gen_quiet(&st.r, b, moves)
        if n == 0:
            return -(MATE_SCORE - ply)
    if n == 1 and ext_left > 0 and st.opt_single_ext:
        depth += 1
        ext_left -= 1
    score_moves(st, b, moves, order, n, hit.move, ply)
    if depth >= 2:
        # every child probes its bucket first thing: ask for all of them now, so the misses
        # overlap each other and the work before each child's probe
        for i in range(n):
            tt_prefetch(st.tt, st.tt_mask, child_hash(b, &moves[i]) ^ next_part)

    best = -INF_SCORE
    best_i = -1
    for i in range(n):
        pick_next(moves, order, i, n)
        m = &moves[i]
        make_move(b, m, &child)
        next_counters(&st.r, b, m, &child, c, &cc)
        child_irrev = irrev
        if m.ncap or not ((b.kings >> m.frm) & 1):
            child_irrev = idx + 1
        new_depth = depth - 1
        if i == 0:
            score = -search(st, &child, &cc, new_depth, -beta, -alpha, ply + 1, child_irrev, ext_left, prune)
        else:
            reduction = 0
            if (st.opt_lmr and depth >= 3 and i >= 2 + 2 * pv_node and m.ncap == 0 and not m.promote
                    and order[i] < ORDER_KILLER2):
                if st.opt_lmr == 1:
                    reduction = 1
                    if i >= 8 and depth >= 6:
                        reduction = 2
                else:
                    reduction = LMR_TABLE[depth if depth < 64 else 63][i if i < 64 else 63] - pv_node
                    if reduction < 1:
                        reduction = 1
                    if reduction > new_depth - 1:
                        reduction = new_depth - 1
            score = -search(st, &child, &cc, new_depth - reduction, -alpha - 1, -alpha, ply + 1,
                            child_irrev, ext_left, prune)
            if score > alpha and reduction and not st.aborted:
                score = -search(st, &child, &cc, new_depth, -alpha - 1, -alpha, ply + 1,
                                child_irrev, ext_left, prune)
            if score > alpha and score < beta and pv_node and not st.aborted:
                score = -search(st, &child, &cc, new_depth, -beta, -alpha, ply + 1, child_irrev,
                                ext_left, prune)
        if st.aborted:
            return 0
        if score > best:
            best = score
            best_i = i
            if score > alpha:
                alpha = score
                update_pv(st, ply, m)
                if alpha >= beta:
                    if m.ncap == 0:
                        reward_quiet(st, b, m, depth, ply)
                    break

    if best >= beta:
        bound = BOUND_LOWER
    elif best > orig_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    code = move_code(&moves[best_i]) if bound != BOUND_UPPER else 0
    tt_store(st.tt, st.tt_mask, st.tt_gen, key, ply, depth, bound, best, code)
    return best


cdef inline bint excluded(SearchState* st, uint32_t code) noexcept nogil:
    cdef int i
    for i in range(st.n_exclude):
        if st.exclude[i] == code:
            return True
    return False
cdef int keep_allowed(SearchState* st, Move* moves, int n) noexcept nogil:
    """Drop the root moves outside st.root_allowed (value-keeping moves of a table position)."""
    cdef int i, j, kept = 0
    cdef uint32_t code
    for i in range(n):
        code = move_code(&moves[i])
        for j in range(st.n_root_allowed):
            if st.root_allowed[j] == code:
                moves[kept] = moves[i]
                kept += 1
                break
    return kept if kept else n


cdef void root_order_from_last(SearchState* st, Move* moves, int* order, int n) noexcept nogil:
    """Order the root's moves as the last iteration left them (keep_root_order): the moves that
    were best at some point of it first, the latest best leading, the others in their order
    before; a move the list lacks keeps its heuristic place after them."""
    cdef int i, j
    cdef uint32_t code
    for i in range(n):
        code = move_code(&moves[i])
        for j in range(st.n_root_order):
            if st.root_order[j] == code:
                order[i] = ORDER_TT - 1 - j
                break


cdef void keep_root_order(SearchState* st, const Board* b, Move* moves, const uint8_t* newbest,
                          int n) noexcept nogil:
    """After an iteration (moves in the order it searched them): the best move, then the other
    moves that were a new best in it, latest first, then the rest in their order (Stockfish's
    stable sort of root moves by the last iteration's scores, where a move that never beat
    alpha scores -infinity)."""
    cdef int i, k = 0
    st.root_order[k] = move_code(&moves[st.root_best])
    k += 1
    for i in range(n - 1, -1, -1):
        if newbest[i] and i != st.root_best:
            st.root_order[k] = move_code(&moves[i])
            k += 1
    for i in range(n):
        if not newbest[i]:
            st.root_order[k] = move_code(&moves[i])
            k += 1
    st.n_root_order = k
    st.root_order_key = b.hash


cdef int search_root(SearchState* st, const Board* b, const Counters* c, int depth, int alpha,
                     int beta) noexcept nogil:
    """One iteration at the root; the best move found is st.pv[0] (st.pv_len[0] > 0).

    Moves in st.exclude are skipped (MultiPV: the best lines already found). Such a search is
    about another question than the root's value, so it stores nothing for the root in the
    table and leaves the root's best move of the previous iteration alone.
    """
    cdef Move* moves = &st.moves[0]
    cdef int* order = &st.order[0]
    cdef Board child
    cdef Counters cc
    cdef TTHit hit
    cdef int n, i, j, score, best, child_irrev, bound, orig_alpha = alpha
    cdef uint32_t code, tt_move
    cdef Move* m
    cdef Move tm
    cdef int ts
    cdef uint8_t newbest[MAX_MOVES]

    st.pv_len[0] = 0
    st.nodes += 1
    st.keys[st.hist_len] = b.hash
    n = gen_moves(&st.r, b, moves)
    if st.n_exclude:
        j = 0
        for i in range(n):
            if not excluded(st, move_code(&moves[i])):
                moves[j] = moves[i]
                j += 1
        n = j
    if n == 0:
        st.first_done = 1
        return -MATE_SCORE
    if st.n_root_allowed:
        n = keep_allowed(st, moves, n)
    tt_probe(st.tt, st.tt_mask, tt_key(st, b, c), 0, &hit)
    tt_move = hit.move
    if st.root_best_key == b.hash and st.root_best_code:
        tt_move = st.root_best_code
    score_moves(st, b, moves, order, n, tt_move, 0)
    if st.opt_root_order and st.root_order_key == b.hash and st.n_root_order:
        root_order_from_last(st, moves, order, n)
    # full sort by ordering score (stable enough for determinism: insertion sort)
    for i in range(1, n):
        j = i
        while j > 0 and order[j] > order[j - 1]:
            tm = moves[j]
            moves[j] = moves[j - 1]
            moves[j - 1] = tm
            ts = order[j]
            order[j] = order[j - 1]
            order[j - 1] = ts
            j -= 1
    if st.helper and n > 2:
        # a helper thread searches the moves after the first in a shuffled order
        for i in range(n - 1, 1, -1):
            st.rng ^= st.rng << 13
            st.rng ^= st.rng >> 7
            st.rng ^= st.rng << 17
            j = 1 + <int>(st.rng % <uint64_t>i)
            tm = moves[i]
            moves[i] = moves[j]
            moves[j] = tm

    best = -INF_SCORE
    for i in range(n):
        newbest[i] = 0
    for i in range(n):
        m = &moves[i]
        make_move(b, m, &child)
        next_counters(&st.r, b, m, &child, c, &cc)
        child_irrev = 0
        if m.ncap or not ((b.kings >> m.frm) & 1):
            child_irrev = st.hist_len + 1
        if i == 0:
            score = -search(st, &child, &cc, depth - 1, -beta, -alpha, 1, child_irrev, depth, 1)
        else:
            score = -search(st, &child, &cc, depth - 1, -alpha - 1, -alpha, 1, child_irrev, depth, 1)
            if score > alpha and score < beta and not st.aborted:
                score = -search(st, &child, &cc, depth - 1, -beta, -alpha, 1, child_irrev, depth, 1)
        if st.aborted:
            break
        st.first_done = 1
        if score > best:
            best = score
        # The best move changes only for a score above alpha: every move of a fail-low returns
        # an upper bound, and the loosest of them says nothing about which move is best, so
        # the first move (the last iteration's best) stays the move, the PV and the TT move.
        if i == 0 or score > alpha:
            st.root_best = i
            newbest[i] = 1
            if score > alpha:
                alpha = score
            # the root PV: this move, then the child's line when it has one
            st.pv_len[1] = st.pv_len[1] if score > orig_alpha else 1
            update_pv(st, 0, m)
            if alpha >= beta:
                break
    if st.aborted:
        return best
    if best >= beta:
        bound = BOUND_LOWER
    elif best > orig_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    if st.n_exclude:
        return best
    keep_root_order(st, b, moves, newbest, n)
    code = move_code(&moves[st.root_best])
    st.root_best_code = code
    st.root_best_key = b.hash
    tt_store(st.tt, st.tt_mask, st.tt_gen, tt_key(st, b, c), 0, depth, bound, best, code)
    return best


def score_to_hub(int score) -> float:
    """Internal score -> Hub score in men (a win in n plies = 100 - n/100, a table win 90 - n/100)."""
    if score > MATE_BOUND:
        return round(100.0 - (MATE_SCORE - score) / 100.0, 2)
    if score < -MATE_BOUND:
        return round(-100.0 + (MATE_SCORE + score) / 100.0, 2)
    if score > TB_BOUND:
        return round(90.0 - (TB_WIN_SCORE - score) / 100.0, 2)
    if score < -TB_BOUND:
        return round(-90.0 + (TB_WIN_SCORE + score) / 100.0, 2)
    return round(score / 100.0, 2)


cdef uint32_t _code_of(int frm, int to, captured, bint promote) except? 0:
    """The move_code of a move given as square numbers (as legal_moves() lists them)."""
    cdef Move m
    if not (0 <= frm < NSQ and 0 <= to < NSQ):
        raise ValueError("square off the board")
    m.frm = <uint8_t>BIT_OF_SQ[frm]
    m.to = <uint8_t>BIT_OF_SQ[to]
    m.captured = _bits_of(captured)
    m.promote = promote
    return move_code(&m)


cdef tuple _move_tuple(const Move* m):
    return (SQ_OF_BIT[m.frm], SQ_OF_BIT[m.to], _squares_of(m.captured), bool(m.promote))


cdef class Searcher:
    """One search thread's state: killers, history, stacks; shares a TransTable with others."""
    cdef SearchState st
    cdef int stop_flag
    cdef int keys_cap
    cdef readonly CoreRules rules
    cdef readonly TransTable tt
    cdef readonly CoreTables tables
    cdef public int lmr, qs_threat, single_ext, probcut, eval_cache, root_order, age, counter_key, tb_draw   # search switches (tests, tuning)
    cdef public int contempt   # centi-men a draw costs the side to move at the root (the other side gains them)
    cdef public int playing    # 1: the search chooses a move to play (tb_draw on); 0: it scores
                               # positions (analysis, books, self-play labels), no side favoured

    def __cinit__(self):
        self.st.moves = NULL
        self.st.order = NULL
        self.st.pv = NULL
        self.st.keys = NULL
        self.st.root_allowed = NULL
        self.st.ecache = NULL

    def __init__(self, CoreRules rules, TransTable tt, dict weights):
        self.rules = rules
        self.tt = tt
        self.st.r = rules.r
        load_eval_params(&self.st.ev, weights, &rules.r)
        self.st.moves = <Move*>malloc(MAX_PLY * MAX_MOVES * sizeof(Move))
        self.st.order = <int*>malloc(MAX_PLY * MAX_MOVES * sizeof(int))
        self.st.pv = <Move*>malloc((MAX_PLY + 1) * MAX_PLY * sizeof(Move))
        self.keys_cap = 256 + MAX_PLY
        self.st.keys = <uint64_t*>malloc(self.keys_cap * sizeof(uint64_t))
        self.st.ecache = <uint64_t*>calloc(EVAL_CACHE, sizeof(uint64_t))
        if not (self.st.moves and self.st.order and self.st.pv and self.st.keys
                and self.st.ecache):
            raise MemoryError("cannot allocate the search stacks")
        self.st.stop_flag = &self.stop_flag
        self.lmr = 2
        self.qs_threat = QS_THREAT_EXT
        self.single_ext = 1
        self.probcut = 1
        self.eval_cache = 1
        self.root_order = ROOT_ORDER
        self.counter_key = COUNTER_KEY
        self.tb_draw = TB_DRAW
        self.age = AGE
        self.contempt = 0
        self.playing = 0
        self.st.rng = <uint64_t>0x2545F4914F6CDD1D ^ <uint64_t><size_t><void*>self
        self.clear_heuristics()

    def __dealloc__(self):
        free(self.st.moves)
        free(self.st.order)
        free(self.st.pv)
        free(self.st.keys)
        free(self.st.root_allowed)
        free(self.st.ecache)

    def set_tables(self, CoreTables tables, int max_pieces, int plain_max=-1) -> None:
        """Probe tables at positions of at most max_pieces pieces (None or 0: off); win/draw/loss
        slices only up to plain_max pieces (default max_pieces)."""
        self.tables = tables
        self.st.tb = tables.ts if tables is not None else NULL
        self.st.tb_max = max_pieces if tables is not None else 0
        self.st.tb_plain_max = max_pieces if plain_max < 0 else plain_max

    def set_root_moves(self, moves) -> None:
        """Restrict the root to these (origin, destination, captured, promote) moves; None: all."""
        cdef Move m
        cdef int i
        free(self.st.root_allowed)
        self.st.root_allowed = NULL
        self.st.n_root_allowed = 0
        if not moves:
            return
        self.st.root_allowed = <uint32_t*>malloc(len(moves) * sizeof(uint32_t))
        if self.st.root_allowed == NULL:
            raise MemoryError()
        for i, (frm, to, captured, promote) in enumerate(moves):
            memset(&m, 0, sizeof(Move))
            m.frm = <uint8_t>BIT_OF_SQ[frm]
            m.to = <uint8_t>BIT_OF_SQ[to]
            m.captured = _bits_of(captured)
            m.promote = bool(promote)
            self.st.root_allowed[i] = move_code(&m)
        self.st.n_root_allowed = len(moves)

    def clear_heuristics(self) -> None:
        """Forget killers, history and the last root move (new game)."""
        memset(self.st.killers, 0, sizeof(self.st.killers))
        memset(self.st.history, 0, sizeof(self.st.history))
        self.st.root_best_code = 0
        self.st.root_best_key = 0
        self.st.n_root_order = 0
        self.st.root_order_key = 0

    def age_heuristics(self, int shift) -> None:
        """Carry killers and history from one search to the next (the next move of a game):
        the killers of ply p + shift become those of ply p, since the new root lies `shift`
        plies into the old search (0 or out of range: the killers are forgotten), and every
        history count is halved, so the last search's experience orders the new one's moves
        without outweighing what the new one learns."""
        cdef int p
        for p in range(MAX_PLY + 1):
            if 0 < shift and p + shift <= MAX_PLY:
                self.st.killers[p][0] = self.st.killers[p + shift][0]
                self.st.killers[p][1] = self.st.killers[p + shift][1]
            else:
                self.st.killers[p][0] = 0
                self.st.killers[p][1] = 0
        halve_history(&self.st)

    def heuristics(self) -> tuple:
        """(killers, history) as lists, for tests: killers[ply] = [code, code], history[side]
        [from][to]."""
        killers = [[self.st.killers[p][0], self.st.killers[p][1]] for p in range(MAX_PLY + 1)]
        history = [[[self.st.history[s][i][j] for j in range(64)] for i in range(64)]
                   for s in range(2)]
        return killers, history

    def root_order_moves(self, CoreBoard root) -> list:
        """The root move order the last iteration at `root` left for the next one, as
        (origin, destination, captured, crowns) tuples, the best first ([] when none is kept for
        this root)."""
        cdef Move moves[MAX_MOVES]
        cdef int n, i, j
        if self.st.root_order_key != root.b.hash or self.st.n_root_order == 0:
            return []
        n = gen_moves(&self.st.r, &root.b, moves)
        out = []
        for j in range(self.st.n_root_order):
            for i in range(n):
                if move_code(&moves[i]) == self.st.root_order[j]:
                    out.append(_move_tuple(&moves[i]))
                    break
        return out

    def stop(self) -> None:
        """End the running iterate() soon (callable from any thread)."""
        hub_store_int(&self.stop_flag, 1)

    def evaluate(self, CoreBoard board) -> int:
        """Static evaluation of board for the side to move (a man = 100)."""
        return evaluate(&self.st.ev, &self.st.r, &board.b)

    def iterate(self, CoreBoard root, int depth, int alpha, int beta, history, tuple counters,
                double deadline, long long node_limit, bint helper=False, exclude=()) -> tuple:
        """Search root to `depth` plies with window (alpha, beta), without the GIL.

        Returns (score, pv, nodes, completed, mean_depth, seldepth); score is fail-soft (<= alpha:
        upper bound, >= beta: lower bound). stop() affects the iterate() call that is running.
        `exclude` lists root moves (origin, destination, captured squares, crowns) to leave out;
        with every legal move excluded the score is -MATE and the pv empty.
        """
        cdef int h = len(history), i, score
        cdef Counters c
        cdef SearchState* st = &self.st
        if depth < 1:
            depth = 1
        if depth > MAX_PLY - 32:
            depth = MAX_PLY - 32
        if h + MAX_PLY + 1 > self.keys_cap:
            self.keys_cap = h + MAX_PLY + 64
            free(st.keys)
            st.keys = <uint64_t*>malloc(self.keys_cap * sizeof(uint64_t))
            if st.keys == NULL:
                raise MemoryError()
        for i in range(h):
            st.keys[i] = <uint64_t>history[i]
        c.quiet, c.nocapcrown, c.cfg, c.cfg_plies = counters
        st.hist_len = h
        st.tt = self.tt.entries
        st.tt_mask = self.tt.mask
        st.tt_gen = self.tt.generation
        st.nodes = 0
        st.node_limit = <uint64_t>node_limit if node_limit > 0 else 0
        st.deadline = deadline
        st.aborted = 0
        st.seldepth = 0
        st.leaf_sum = 0
        st.leaf_count = 0
        st.helper = helper
        st.opt_lmr = self.lmr
        st.opt_qs_threat = self.qs_threat
        st.opt_single_ext = self.single_ext
        st.opt_probcut = self.probcut
        st.opt_eval_cache = self.eval_cache
        st.opt_root_order = self.root_order
        st.opt_counter_key = self.counter_key
        st.opt_tb_draw = self.tb_draw if self.playing else 0
        st.root_side = root.b.side
        st.draw[root.b.side] = -self.contempt
        st.draw[1 - root.b.side] = self.contempt
        st.first_done = 0
        st.root_best = 0
        if len(exclude) > MAX_EXCLUDE:
            raise ValueError(f"at most {MAX_EXCLUDE} root moves can be excluded")
        st.n_exclude = 0
        for frm, to, captured, promote in exclude:
            st.exclude[st.n_exclude] = _code_of(frm, to, captured, promote)
            st.n_exclude += 1
        hub_store_int(&self.stop_flag, 0)
        with nogil:
            score = search_root(st, &root.b, &c, depth, alpha, beta)
        pv = []
        if st.first_done:
            for i in range(st.pv_len[0]):
                pv.append(_move_tuple(&st.pv[i]))
        mean = st.leaf_sum / st.leaf_count if st.leaf_count else 0.0
        if not pv and st.aborted:
            score = 0
        return (score, pv, st.nodes, not st.aborted, mean, st.seldepth)
