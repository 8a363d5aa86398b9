# cython: language_level=3
"""The compiled core: bitboards, move generation, draw counters, perft and search.

The .pxi files are compiled into this one module so that the C compiler can inline across them;
each holds one concern. Python sees only the small classes at the end of this file.
"""

include "bitboard.pxi"
include "movegen.pxi"
include "draws.pxi"
include "tb_index.pxi"
include "tb_probe.pxi"


cdef class CoreRules:
    """A variant's rule table as the C core reads it."""
    cdef Rules r

    def __init__(self, **fields):
        cdef dict table = self.r
        for name, value in fields.items():
            if name not in table:
                raise KeyError(f"unknown rule field {name!r}")
            table[name] = int(value)
        self.r = table

    def as_dict(self) -> dict:
        return self.r


cdef inline int _sq(int bit):
    return SQ_OF_BIT[bit]


cdef tuple _squares_of(bb x):
    cdef list out = []
    while x:
        out.append(SQ_OF_BIT[lsb(x)])
        x &= x - 1
    return tuple(out)


cdef bb _bits_of(squares) except? 0:
    cdef bb x = 0
    cdef int s
    for s in squares:
        if not 0 <= s < NSQ:
            raise ValueError(f"square {s} is off the board")
        x |= (<bb>1) << BIT_OF_SQ[s]
    return x


cdef class CoreBoard:
    """An immutable position (side 0 = the variant's first mover, moving up the board).

    Squares are internal indices 0..31 (a1 = 0 ... h8 = 31); notation.py maps them to the Hub
    layout and to each variant's numbers.
    """
    cdef Board b
    cdef readonly CoreRules rules

    def __init__(self, CoreRules rules, int side, men0=(), kings0=(), men1=(), kings1=()):
        cdef bb m0 = _bits_of(men0), k0 = _bits_of(kings0), m1 = _bits_of(men1), k1 = _bits_of(kings1)
        if popcount(m0 | k0) + popcount(m1 | k1) != popcount(m0 | k0 | m1 | k1) or (m0 & k0) or (m1 & k1):
            raise ValueError("two pieces on one square")
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        self.rules = rules
        self.b.pieces[0] = m0 | k0
        self.b.pieces[1] = m1 | k1
        self.b.kings = k0 | k1
        self.b.side = side
        self.b.hash = hash_board(&self.b)

    cdef CoreBoard _child(self, const Move* m):
        cdef CoreBoard c = CoreBoard.__new__(CoreBoard)
        c.rules = self.rules
        make_move(&self.b, m, &c.b)
        return c

    @property
    def side(self) -> int:
        return self.b.side

    @property
    def zobrist(self) -> int:
        return self.b.hash

    def pieces(self) -> tuple:
        """(men of side 0, kings of side 0, men of side 1, kings of side 1) as square tuples."""
        return (_squares_of(self.b.pieces[0] & ~self.b.kings), _squares_of(self.b.pieces[0] & self.b.kings),
                _squares_of(self.b.pieces[1] & ~self.b.kings), _squares_of(self.b.pieces[1] & self.b.kings))

    def legal_moves(self) -> list:
        """Legal moves as (origin, destination, captured squares ascending, crowns, kings taken)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = gen_moves(&self.rules.r, &self.b, moves), i
        cdef list out = []
        for i in range(n):
            out.append((_sq(moves[i].frm), _sq(moves[i].to), tuple(sorted(_squares_of(moves[i].captured))),
                        bool(moves[i].promote), moves[i].nkings))
        return out

    def play(self, int frm, int to, captured=(), bint promote=False) -> CoreBoard:
        """The position after a move; the caller has checked it against legal_moves()."""
        cdef Move m
        m.frm = <uint8_t>BIT_OF_SQ[frm]
        m.to = <uint8_t>BIT_OF_SQ[to]
        m.captured = _bits_of(captured)
        m.promote = promote
        m.ncap = <uint8_t>popcount(m.captured)
        m.nkings = 0
        m.by_king = 0
        m.korder = 0
        return self._child(&m)

    def initial_counters(self) -> tuple:
        """Draw counters for a game that starts here (quiet, nocapcrown, config, config plies)."""
        cdef Counters c
        init_counters(&self.rules.r, &self.b, &c)
        return (c.quiet, c.nocapcrown, c.cfg, c.cfg_plies)

    def counters_after(self, CoreBoard child, int frm, captured, bint promote, tuple counters) -> tuple:
        """Draw counters after the move frm -> child, given the counters before it."""
        cdef Counters c, out
        cdef Move m
        c.quiet, c.nocapcrown, c.cfg, c.cfg_plies = counters
        m.frm = <uint8_t>BIT_OF_SQ[frm]
        m.captured = _bits_of(captured)
        m.ncap = <uint8_t>popcount(m.captured)
        m.promote = promote
        next_counters(&self.rules.r, &self.b, &m, &child.b, &c, &out)
        return (out.quiet, out.nocapcrown, out.cfg, out.cfg_plies)

    def counters_draw(self, tuple counters) -> int:
        """0, or the reason (1 quiet moves, 2 no capture/crowning, 3 endgame) the counters draw."""
        cdef Counters c
        c.quiet, c.nocapcrown, c.cfg, c.cfg_plies = counters
        return counters_draw(&self.rules.r, &c)

    def perft(self, int depth) -> int:
        """Number of leaf positions at depth (duplicate capture paths merged)."""
        cdef uint64_t n
        with nogil:
            n = perft(&self.rules.r, &self.b, depth)
        return n

    def __eq__(self, other):
        if not isinstance(other, CoreBoard):
            return NotImplemented
        cdef CoreBoard o = other
        return (self.b.pieces[0] == o.b.pieces[0] and self.b.pieces[1] == o.b.pieces[1]
                and self.b.kings == o.b.kings and self.b.side == o.b.side)

    def __hash__(self):
        return <Py_ssize_t>(self.b.hash >> 2)


# --- search, evaluation, transposition table (TransTable, Searcher, score_to_hub, eval_weights) ---
include "tb_api.pxi"
include "tt.pxi"
include "eval.pxi"
include "learned.pxi"
include "search.pxi"
include "tb_gen.pxi"
