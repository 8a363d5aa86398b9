# Transposition table shared by the search threads (included by core.pyx).
#
# An entry is two 64-bit words: data, and key ^ data. A probe accepts an entry only when the two
# words xor to the probed key, so a torn write by another thread reads as a miss (lockless
# hashing, Hyatt & Mann); no lock is taken. The stored move is a compact key (origin, destination,
# crowning, a 16-bit fold of the captured set) that the search matches against its generated moves
# before using it, so a stale or colliding move is never played.
#
# data layout (bits): score 0-15 (int16) | depth 16-23 (int8) | bound 24-25 | move 26-54 |
#                     generation 56-63

from libc.stdlib cimport malloc, free

cdef extern from *:
    """
    #include <stdlib.h>
    #ifdef __linux__
    #include <sys/mman.h>
    #endif
    /* Memory for the table: aligned to a cache line (a bucket is one line, so a probe reads one
       line, not two), and to 2 MiB from that size on, asking Linux for huge pages (one TLB
       entry covers 2 MiB of randomly probed table instead of 4 KiB). NULL when out of memory. */
    static void* hub_tt_alloc(size_t bytes) {
        void* p = NULL;
        size_t align = bytes >= ((size_t)2 << 20) ? ((size_t)2 << 20) : 64;
        if (posix_memalign(&p, align, bytes) != 0)
            return NULL;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (align > 64)
            madvise(p, bytes, MADV_HUGEPAGE);
    #endif
        return p;
    }
    static inline void hub_prefetch(const void* p) { __builtin_prefetch(p); }
    """
    void* hub_tt_alloc(size_t bytes) nogil
    void hub_prefetch(const void* p) nogil
from libc.string cimport memset
from libc.stdint cimport int16_t, int8_t

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1        # the stored score is an upper bound (the search failed low)
    BOUND_LOWER = 2        # a lower bound (failed high)
    BOUND_EXACT = 3
    TT_BUCKET = 4          # entries probed per key (one 64-byte cache line)
    MAX_PLY = 128
    MATE_SCORE = 30000
    INF_SCORE = 32000
    MATE_BOUND = MATE_SCORE - 2 * MAX_PLY   # |score| above this is a mate score


cdef struct TTEntry:
    uint64_t check         # key ^ data
    uint64_t data


cdef struct TTHit:
    int found
    int score
    int depth
    int bound
    uint32_t move


cdef inline uint32_t capture_fold(bb captured) noexcept nogil:
    """16-bit fingerprint of a captured set (0 for quiet moves)."""
    if captured == 0:
        return 0
    return <uint32_t>(((captured * <uint64_t>0x9E3779B97F4A7C15) >> 48) | 1) & 0xFFFF


cdef inline uint32_t move_code(const Move* m) noexcept nogil:
    """Index-independent 29-bit key of a move; never 0 for a real move (origin != destination or captures)."""
    return (<uint32_t>m.frm | (<uint32_t>m.to << 6) | (<uint32_t>m.promote << 12)
            | (capture_fold(m.captured) << 13))


# mate and table scores are ply-relative (TB_BOUND < MATE_BOUND; no evaluation comes near)
cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    if score > TB_BOUND:
        return score + ply
    if score < -TB_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score > TB_BOUND:
        return score - ply
    if score < -TB_BOUND:
        return score + ply
    return score


cdef class TransTable:
    """A lockless transposition table of 2**log2_entries entries (16 bytes each)."""
    cdef TTEntry* entries
    cdef uint64_t mask         # bucket index mask
    cdef readonly int log2
    cdef public int generation

    def __cinit__(self):
        self.entries = NULL
        self.mask = 0
        self.generation = 0

    def __init__(self, int log2_entries):
        self.resize(log2_entries)

    def resize(self, int log2_entries) -> None:
        """Reallocate (and clear) with 2**log2_entries entries; not while a search runs."""
        if log2_entries < 4 or log2_entries > 34:
            raise ValueError("log2_entries must be between 4 and 34")
        cdef size_t n = (<size_t>1) << log2_entries
        cdef TTEntry* e = <TTEntry*>hub_tt_alloc(n * sizeof(TTEntry))
        if e == NULL:
            raise MemoryError(f"cannot allocate a transposition table of 2**{log2_entries} entries")
        if self.entries != NULL:
            free(self.entries)
        self.entries = e
        self.log2 = log2_entries
        self.mask = (n // TT_BUCKET) - 1
        self.clear()

    def clear(self) -> None:
        """Forget every entry (new game)."""
        memset(self.entries, 0, ((<size_t>1) << self.log2) * sizeof(TTEntry))
        self.generation = 0

    def new_search(self) -> None:
        """Age the entries of earlier searches (they are replaced first)."""
        self.generation = (self.generation + 1) & 0xFF

    @property
    def log2_entries(self) -> int:
        return self.log2

    def hashfull(self) -> int:
        """Per mille of the first 1000 entries used by the current generation."""
        cdef int i, used = 0
        cdef size_t n = min(1000, (<size_t>1) << self.log2)
        for i in range(n):
            if self.entries[i].data != 0 and (self.entries[i].data >> 56) == <uint64_t>self.generation:
                used += 1
        return used * 1000 // n

    def __dealloc__(self):
        if self.entries != NULL:
            free(self.entries)
            self.entries = NULL


cdef inline void tt_prefetch(TTEntry* table, uint64_t mask, uint64_t key) noexcept nogil:
    """Start loading the bucket of key into the cache (a probe follows soon)."""
    hub_prefetch(&table[(key & mask) * TT_BUCKET])


cdef inline void tt_probe(TTEntry* table, uint64_t mask, uint64_t key, int ply, TTHit* hit) noexcept nogil:
    cdef TTEntry* b = &table[(key & mask) * TT_BUCKET]
    cdef uint64_t data
    cdef int i
    hit.found = 0
    hit.move = 0
    for i in range(TT_BUCKET):
        data = b[i].data
        if (b[i].check ^ data) == key and data != 0:
            hit.found = 1
            hit.score = score_from_tt(<int><int16_t>(data & 0xFFFF), ply)
            hit.depth = <int><int8_t>((data >> 16) & 0xFF)
            hit.bound = <int>((data >> 24) & 3)
            hit.move = <uint32_t>((data >> 26) & 0x1FFFFFFF)
            return


cdef inline void tt_store(TTEntry* table, uint64_t mask, int gen, uint64_t key, int ply, int depth,
                          int bound, int score, uint32_t move) noexcept nogil:
    cdef TTEntry* b = &table[(key & mask) * TT_BUCKET]
    cdef TTEntry* slot = NULL
    cdef uint64_t data, old
    cdef int i, worth, worst = 1 << 30, d, g
    if depth > 127:
        depth = 127
    if depth < -128:
        depth = -128
    for i in range(TT_BUCKET):
        old = b[i].data
        if (b[i].check ^ old) == key:
            slot = &b[i]
            if move == 0:   # keep the old move when this result has none
                move = <uint32_t>((old >> 26) & 0x1FFFFFFF)
            break
        # replace the shallowest entry, entries of older searches first
        d = <int><int8_t>((old >> 16) & 0xFF)
        g = <int>(old >> 56)
        worth = d + (256 if (g == gen and old != 0) else 0)
        if worth < worst:
            worst = worth
            slot = &b[i]
    data = ((<uint64_t><uint16_t><int16_t>score_to_tt(score, ply))
            | ((<uint64_t><uint8_t><int8_t>depth) << 16)
            | ((<uint64_t>bound) << 24)
            | ((<uint64_t>move & 0x1FFFFFFF) << 26)
            | ((<uint64_t>(gen & 0xFF)) << 56))
    slot.data = data
    slot.check = key ^ data
