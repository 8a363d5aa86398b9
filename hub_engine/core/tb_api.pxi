# Endgame tables: the Python face of the compiled tables (included by core.pyx after CoreBoard).

cdef class CoreTables:
    """The tables of one rule-set in memory: slices registered from Python-owned buffers."""
    cdef TBSet* ts
    cdef list _keep
    cdef readonly int max_pieces

    def __cinit__(self):
        self.ts = <TBSet*>calloc(1, sizeof(TBSet))
        if self.ts == NULL:
            raise MemoryError()
        self._keep = []
        self.max_pieces = 0

    def __dealloc__(self):
        free(self.ts)

    cdef TBSlice* _slot(self, tuple material, int dtc) except NULL:
        wm, wk, bm, bk = material
        if min(material) < 0 or max(material) >= TB_MAXG or wm + wk == 0 or bm + bk == 0:
            raise ValueError(f"bad material {material}")
        cdef TBSlice* s = &self.ts.dtc[mat_code(wm, wk, bm, bk)] if dtc else &self.ts.wld[mat_code(wm, wk, bm, bk)]
        tb_dims(&s.d, wm, wk, bm, bk)
        return s

    def add_rle(self, tuple material, const uint8_t[::1] blocks, const uint8_t[::1] data) -> None:
        """Register a run-length encoded slice (blocks: little-endian uint64 per block)."""
        cdef TBSlice* s = self._slot(material, 0)
        if blocks.shape[0] == 0 or blocks.shape[0] % 8:
            raise ValueError("bad block index")
        self._keep.append((blocks, data))
        s.blocks = <const uint64_t*>&blocks[0]
        s.nblocks = blocks.shape[0] // 8
        s.data = &data[0] if data.shape[0] else NULL
        s.data_len = data.shape[0]
        s.kind = TBK_RLE
        self.max_pieces = max(self.max_pieces, sum(material))
        self.ts.max_pieces = self.max_pieces

    def add_raw(self, tuple material, const uint8_t[::1] data) -> None:
        """Register a slice of 2-bit symbols, captures included (the generator's dependencies)."""
        cdef TBSlice* s = self._slot(material, 0)
        if <uint64_t>data.shape[0] * 4 < s.d.size:
            raise ValueError("raw slice too short")
        self._keep.append(data)
        s.data = &data[0]
        s.data_len = data.shape[0]
        s.kind = TBK_RAW
        self.max_pieces = max(self.max_pieces, sum(material))
        self.ts.max_pieces = self.max_pieces

    def add_dtc(self, tuple material, const uint8_t[::1] data) -> None:
        """Register a distance table (one byte a position)."""
        cdef TBSlice* s = self._slot(material, 1)
        if <uint64_t>data.shape[0] != s.d.size:
            raise ValueError("distance table of the wrong size")
        self._keep.append(data)
        s.data = &data[0]
        s.data_len = data.shape[0]
        s.kind = TBK_DTC

    def probe(self, CoreBoard board) -> int:
        """0 draw, 1 win, 2 loss for the side to move (no capture may be pending); -1 unknown."""
        return tb_probe_wld(self.ts, &board.b)

    def probe_dtc(self, CoreBoard board) -> int:
        """The distance byte (see tb_probe.pxi), -1 when the slice has no distance table."""
        return tb_probe_dtc(self.ts, &board.b)

    def score(self, CoreBoard board, tuple counters, int ply=0):
        """The search's table score of a capture-free position with these counters, or None."""
        cdef Counters c
        cdef int s
        c.quiet, c.nocapcrown, c.cfg, c.cfg_plies = counters
        if tb_score(self.ts, &board.rules.r, &board.b, &c, ply, &s, 1):
            return s
        return None


def tb_plies_left(CoreBoard board, tuple counters) -> int:
    """Plies before the move-count rules draw (a very large number when no rule applies)."""
    cdef Counters c
    c.quiet, c.nocapcrown, c.cfg, c.cfg_plies = counters
    return plies_left(&board.rules.r, &c)


def tb_slice_size(int wm, int wk, int bm, int bk) -> int:
    """Index slots of a slice (impossible overlaps of men included)."""
    cdef TBDims d
    tb_dims(&d, wm, wk, bm, bk)
    return d.size
