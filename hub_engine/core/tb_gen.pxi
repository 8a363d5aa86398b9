# Endgame tables: the retrograde generator of one slice pair (included by core.pyx).
#
# A slice S = (wm, wk, bm, bk) and its colour image S' = (bm, bk, wm, wk) are solved together:
# quiet moves of S lead into S' and back. Everything else a move can reach (captures: fewer
# pieces; promotions: fewer men) is an earlier slice, read from CoreTables dependencies.
#
# 1. Init pass over every index: positions whose side to move must capture are valued from the
#    dependencies (the core's own gen_captures, so precedence and crowning mid-capture are the
#    variant's) and are final. Otherwise promotions are looked up, and the quiet moves that stay
#    in the pair are counted.
# 2. Propagation through un-moves (reverse king moves and reverse man steps; a predecessor that
#    has a capture is already final, so no capture is ever un-made): a lost child makes every
#    unknown predecessor a win; a won child decrements its counter, and at zero it is lost.
# 3. What is still unknown is a draw.
#
# Mode TBG_PLAIN ignores the move-count rules (the win/draw/loss tables). Mode TBG_DTC propagates
# in layers of plies to get the distance to the next conversion, a capture or a crowning (what
# restarts the counts of the move-count rules), and values conversions from the earlier slices'
# distance tables with fresh counters. A man step that does not crown is an ordinary move here.

cdef enum:
    TBG_PLAIN = 0
    TBG_DTC = 1
    GS_WIN = 1                 # state byte: value in the low 2 bits (0 unknown, 3 draw) ...
    GS_LOSS = 2
    GS_DRAW = 3
    GS_VALUE = 3
    GS_CAPT = 4                # ... a capture position (left out of the stored table)
    GS_INVALID = 8             # an impossible slot (white and black men overlap)
    GS_PENDING = 16            # resolved; its predecessors not updated yet


cdef struct GenSide:
    TBDims d
    uint8_t* st
    uint8_t* cnt
    uint16_t* dist


cdef struct GenCtx:
    const Rules* r
    const TBSet* deps
    int mode
    int nsides
    GenSide side[2]
    uint64_t pending
    int missing                # material code of a dependency that was not loaded, or -1
    int max_dist


cdef struct Decoder:
    uint64_t last_q, last_men
    int men_ok
    uint32_t wmen, bmen, wk, free, free2


cdef inline void dec_reset(Decoder* z) noexcept nogil:
    z.last_q = <uint64_t>-1
    z.last_men = <uint64_t>-1
    z.men_ok = 0


cdef inline int dec_masks(Decoder* z, const TBDims* d, uint64_t i, uint32_t* wmen, uint32_t* wk,
                          uint32_t* bmen, uint32_t* bkings) noexcept nogil:
    """tb_unindex for indices visited in increasing order: the men change every n_wk * n_bk
    indices and the white kings every n_bk, so only what changed is decoded again."""
    cdef uint64_t q = i // d.n_bk, q_men
    if q != z.last_q:
        z.last_q = q
        q_men = q // d.n_wk
        if q_men != z.last_men:
            z.last_men = q_men
            z.wmen = unrank_mask(q_men // d.n_bm, d.wm, 28)
            z.bmen = unrank_mask(q_men % d.n_bm, d.bm, 28) << 4
            z.men_ok = (z.wmen & z.bmen) == 0
            z.free = ~(z.wmen | z.bmen)
        if z.men_ok:
            z.wk = expand_mask(unrank_mask(q % d.n_wk, d.wk, 32 - d.wm - d.bm), z.free)
            z.free2 = z.free & ~z.wk
    if not z.men_ok:
        return 0
    wmen[0] = z.wmen
    bmen[0] = z.bmen
    wk[0] = z.wk
    bkings[0] = expand_mask(unrank_mask(i % d.n_bk, d.bk, 32 - d.wm - d.bm - d.wk), z.free2)
    return 1


cdef inline int gen_child_value(GenCtx* g, const Board* child) noexcept nogil:
    """0 draw, 1 win, 2 loss for the side to move of a position in an earlier slice."""
    cdef uint32_t wmen, wk, bmen, bkings
    cdef int code, v, d
    cdef uint64_t idx
    cdef const TBSlice* s
    normal_masks(child, &wmen, &wk, &bmen, &bkings)
    if (wmen | wk) == 0:
        return 2                # no piece left: lost
    code = mat_code(popcount(wmen), popcount(wk), popcount(bmen), popcount(bkings))
    if g.mode == TBG_DTC:
        s = &g.deps.dtc[code]
        if s.kind != TBK_DTC:
            g.missing = code
            return 0
        v = s.data[tb_index(&s.d, wmen, wk, bmen, bkings)]
        return 0 if v == 0 else (1 if v < 128 else 2)
    s = &g.deps.wld[code]
    if s.kind != TBK_RAW:
        g.missing = code
        return 0
    v = raw_symbol(s, tb_index(&s.d, wmen, wk, bmen, bkings))
    return 0 if v == 3 else v


cdef inline void gen_resolve(GenCtx* g, GenSide* s, uint64_t i, int value, int dist) noexcept nogil:
    s.st[i] = <uint8_t>((s.st[i] & GS_CAPT) | value | GS_PENDING)
    if s.dist != NULL:
        s.dist[i] = <uint16_t>dist
    g.pending += 1


cdef void gen_init(GenCtx* g, int k) noexcept nogil:
    cdef GenSide* s = &g.side[k]
    cdef Move moves[MAX_MOVES]
    cdef Board b, child
    cdef uint64_t i
    cdef uint32_t wmen, wk, bmen, bkings
    cdef int n, j, v, cv, internal, has_draw
    cdef Decoder z
    dec_reset(&z)
    for i in range(s.d.size):
        if not dec_masks(&z, &s.d, i, &wmen, &wk, &bmen, &bkings):
            s.st[i] = GS_INVALID
            continue
        board_of_masks(&b, wmen, wk, bmen, bkings)
        n = gen_captures(g.r, &b, moves)
        if n:
            v = GS_LOSS
            for j in range(n):
                make_move(&b, &moves[j], &child)
                cv = gen_child_value(g, &child)
                if cv == 2:
                    v = GS_WIN
                    break
                if cv == 0:
                    v = GS_DRAW
            s.st[i] = GS_CAPT
            if v == GS_DRAW:
                s.st[i] = GS_CAPT | GS_DRAW
            else:
                gen_resolve(g, s, i, v, 1)
            continue
        n = gen_quiet(g.r, &b, moves)
        internal = 0
        has_draw = 0
        v = 0
        for j in range(n):
            if moves[j].promote:
                make_move(&b, &moves[j], &child)
                cv = gen_child_value(g, &child)
                if cv == 2:
                    v = GS_WIN
                    break
                if cv == 0:
                    has_draw = 1
            else:
                internal += 1
        s.st[i] = 0
        if v == GS_WIN:
            gen_resolve(g, s, i, GS_WIN, 1)
        elif internal == 0:
            if has_draw:
                s.st[i] = GS_DRAW
            else:
                gen_resolve(g, s, i, GS_LOSS, 0 if n == 0 else 1)
        else:
            s.cnt[i] = <uint8_t>(internal + has_draw)


cdef inline void gen_pred(GenCtx* g, GenSide* t, int value, int dist, uint64_t j) noexcept nogil:
    if t.st[j] & (GS_VALUE | GS_INVALID):
        return
    if value == GS_LOSS:
        gen_resolve(g, t, j, GS_WIN, dist + 1)
    else:
        t.cnt[j] -= 1
        if t.cnt[j] == 0:
            gen_resolve(g, t, j, GS_LOSS, dist + 1)


cdef void gen_unmoves(GenCtx* g, int k, uint64_t i, uint32_t wmen, uint32_t wk, uint32_t bmen,
                      uint32_t bkings) noexcept nogil:
    """Update the predecessors of resolved position i (these masks) of side k."""
    cdef GenSide* s = &g.side[k]
    cdef GenSide* t = &g.side[(1 - k) if g.nsides == 2 else 0]
    cdef uint32_t fwm, fwk, fbm, fbk, occ, x, sq
    cdef int value = s.st[i] & GS_VALUE
    cdef int dist = s.dist[i] if s.dist != NULL else 0
    cdef int d, sf, tt
    if value != GS_WIN and value != GS_LOSS:
        return
    # seen from the side that just moved (now "white", to move in the predecessor)
    fwm = rev32(bmen)
    fwk = rev32(bkings)
    fbm = rev32(wmen)
    fbk = rev32(wk)
    occ = fwm | fwk | fbm | fbk
    # king un-moves keep the men: their part of the index is computed once
    cdef uint32_t men = fwm | fbm, nwk
    cdef uint64_t men_base = (rank_mask(fwm) * t.d.n_bm + rank_mask(fbm >> 4)) * t.d.n_wk
    x = fwk
    while x:
        sf = lsb(x)
        x &= x - 1
        for d in range(4):
            tt = TB_SQNB[d][sf]
            while tt >= 0 and not ((occ >> tt) & 1):
                nwk = fwk ^ (<uint32_t>1 << sf) ^ (<uint32_t>1 << tt)
                gen_pred(g, t, value, dist,
                         (men_base + rank_mask(compress_mask(nwk, ~men))) * t.d.n_bk
                         + rank_mask(compress_mask(fbk, ~(men | nwk))))
                if not g.r.flying:
                    break
                tt = TB_SQNB[d][tt]
    x = fwm
    while x:
        sf = lsb(x)
        x &= x - 1
        for d in range(DL, DR + 1):
            tt = TB_SQNB[d][sf]
            if tt >= 0 and not ((occ >> tt) & 1):
                gen_pred(g, t, value, dist, tb_index(&t.d, fwm ^ (<uint32_t>1 << sf) ^ (<uint32_t>1 << tt),
                                                     fwk, fbm, fbk))


cdef void gen_propagate(GenCtx* g) noexcept nogil:
    cdef int k, layer = 0
    cdef uint64_t i
    cdef GenSide* s
    cdef Decoder z
    cdef uint32_t wmen, wk, bmen, bkings
    while g.pending:
        for k in range(g.nsides):
            s = &g.side[k]
            dec_reset(&z)
            for i in range(s.d.size):
                if s.st[i] & GS_PENDING and (s.dist == NULL or s.dist[i] == layer):
                    s.st[i] &= ~GS_PENDING
                    g.pending -= 1
                    dec_masks(&z, &s.d, i, &wmen, &wk, &bmen, &bkings)
                    gen_unmoves(g, k, i, wmen, wk, bmen, bkings)
        if g.mode == TBG_DTC:
            layer += 1
    g.max_dist = layer


# --- run-length encoding (format in tb_probe.pxi) ---------------------------------------------

cdef struct ByteBuf:
    uint8_t* p
    uint64_t n
    uint64_t cap


cdef int buf_put(ByteBuf* b, const void* src, uint64_t n) noexcept nogil:
    cdef uint8_t* q
    cdef uint64_t cap
    if b.n + n > b.cap:
        cap = b.cap * 2 + n + 4096
        q = <uint8_t*>realloc(b.p, cap)
        if q == NULL:
            return -1
        b.p = q
        b.cap = cap
    memcpy(b.p + b.n, src, n)
    b.n += n
    return 0


cdef int rle_encode(const uint8_t* sym, uint64_t n, ByteBuf* data, ByteBuf* blocks) noexcept nogil:
    """sym: 0 draw, 1 win, 2 loss, 3 don't care. Appends codes to data and one entry a block."""
    cdef uint64_t i = 0, run, entry
    cdef int prev = 0, k, c, x, j
    cdef uint8_t code
    # the first cared-for symbol starts the stream (a table of only don't-cares is all draws)
    while i < n and sym[i] == 3:
        i += 1
    if i < n:
        prev = sym[i]
    i = 0
    while i < n:
        if data.n % TB_BLOCK == 0:
            entry = (i << 2) | <uint64_t>prev
            if buf_put(blocks, &entry, 8):
                return -1
        run = 0
        while i + run < n and (sym[i + run] == prev or sym[i + run] == 3) and run < TB_RUNLEN[TB_RUNS - 1]:
            run += 1
        if run >= TB_RUNLEN[0]:
            k = TB_RUNS - 1
            while TB_RUNLEN[k] > run:
                k -= 1
            code = <uint8_t>(243 + k)
            if buf_put(data, &code, 1):
                return -1
            i += TB_RUNLEN[k]
            continue
        c = 0
        for j in range(5):
            x = sym[i + j] if i + j < n else 3
            if x == 3:
                x = prev
            c += x * TB_POW3[j]
            prev = x
        code = <uint8_t>c
        if buf_put(data, &code, 1):
            return -1
        i += 5
    return 0


cdef bytes take_buf(ByteBuf* b):
    out = (<char*>b.p)[:b.n] if b.n else b""
    free(b.p)
    b.p = NULL
    b.n = 0
    b.cap = 0
    return out


cdef dict gen_output(GenCtx* g, int k):
    """Raw 2-bit symbols, the encoded table, the distance table and counts of side k."""
    cdef GenSide* s = &g.side[k]
    cdef uint64_t i, n = s.d.size
    cdef uint8_t* sym = <uint8_t*>malloc(n if n else 1)
    cdef uint8_t* raw = <uint8_t*>calloc((n + 3) // 4 + 1, 1)
    cdef uint8_t* dtc = NULL
    cdef uint64_t wins = 0, draws = 0, losses = 0, capts = 0, invalid = 0
    cdef int v, x, d
    cdef uint32_t wmen, wk, bmen, bkings
    cdef Board b
    cdef ByteBuf data, blocks
    if sym == NULL or raw == NULL:
        free(sym)
        free(raw)
        raise MemoryError()
    if g.mode == TBG_DTC:
        dtc = <uint8_t*>calloc(n if n else 1, 1)
        if dtc == NULL:
            free(sym)
            free(raw)
            raise MemoryError()
    with nogil:
        for i in range(n):
            v = s.st[i]
            if v & GS_INVALID:
                invalid += 1
                x = 3
            elif (v & GS_VALUE) == GS_WIN:
                wins += 1
                x = 1
            elif (v & GS_VALUE) == GS_LOSS:
                losses += 1
                x = 2
            else:
                draws += 1
                x = 0
            raw[i >> 2] |= <uint8_t>(x << (2 * (i & 3)))
            if v & GS_CAPT:
                capts += 1
            sym[i] = <uint8_t>(3 if v & (GS_CAPT | GS_INVALID) else x)
            if dtc != NULL and (x == 1 or x == 2):
                d = s.dist[i]
                tb_unindex(&s.d, i, &wmen, &wk, &bmen, &bkings)
                board_of_masks(&b, wmen, wk, bmen, bkings)
                if d <= fresh_plies(g.r, &b):        # every count is at most 120 plies
                    d = d if d < 127 else 127         # "127 or more" where no count applies
                    dtc[i] = <uint8_t>(d if x == 1 else 128 + d)
    memset(&data, 0, sizeof(ByteBuf))
    memset(&blocks, 0, sizeof(ByteBuf))
    cdef int rc
    with nogil:
        rc = rle_encode(sym, n, &data, &blocks)
    free(sym)
    out = {"material": (s.d.wm, s.d.wk, s.d.bm, s.d.bk), "size": n, "wins": wins, "draws": draws,
           "losses": losses, "captures": capts, "invalid": invalid,
           "raw": (<char*>raw)[:(n + 3) // 4]}
    free(raw)
    if rc:
        free(data.p)
        free(blocks.p)
        if dtc != NULL:
            free(dtc)
        raise MemoryError("cannot encode the table")
    out["blocks"] = take_buf(&blocks) if blocks.n else b"\0" * 8
    out["data"] = take_buf(&data)
    if dtc != NULL:
        out["dtc"] = (<char*>dtc)[:n] if n else b""
        free(dtc)
    return out


def tb_solve(CoreRules rules, tuple material, CoreTables deps, bint dtc=False) -> list:
    """Solve slice `material` and its colour image; one result dict per distinct slice.

    deps holds the earlier slices (raw 2-bit tables; with dtc, their distance tables: every
    slice a capture or a crowning leads into)."""
    cdef GenCtx g
    cdef int k, wm, wk, bm, bk
    cdef uint64_t n
    wm, wk, bm, bk = material
    memset(&g, 0, sizeof(GenCtx))
    g.r = &rules.r
    g.deps = deps.ts
    g.mode = TBG_DTC if dtc else TBG_PLAIN
    g.missing = -1
    g.nsides = 1 if (wm, wk) == (bm, bk) else 2
    tb_dims(&g.side[0].d, wm, wk, bm, bk)
    tb_dims(&g.side[1].d, bm, bk, wm, wk)
    try:
        for k in range(g.nsides):
            n = g.side[k].d.size
            g.side[k].st = <uint8_t*>calloc(n, 1)
            g.side[k].cnt = <uint8_t*>calloc(n, 1)
            if g.side[k].st == NULL or g.side[k].cnt == NULL:
                raise MemoryError(f"cannot allocate slice {material}")
            if dtc:
                g.side[k].dist = <uint16_t*>calloc(n, sizeof(uint16_t))
                if g.side[k].dist == NULL:
                    raise MemoryError(f"cannot allocate slice {material}")
        with nogil:
            for k in range(g.nsides):
                gen_init(&g, k)
            if g.missing < 0:
                gen_propagate(&g)
        if g.missing >= 0:
            c = g.missing
            raise KeyError(f"dependency ({c >> 9}, {(c >> 6) & 7}, {(c >> 3) & 7}, {c & 7}) "
                           f"is not loaded")
        out = [gen_output(&g, k) for k in range(g.nsides)]
        for res in out:
            res["max_dist"] = g.max_dist
        return out
    finally:
        for k in range(2):
            free(g.side[k].st)
            free(g.side[k].cnt)
            free(g.side[k].dist)
