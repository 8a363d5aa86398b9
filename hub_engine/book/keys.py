"""The key a book indexes positions by: 64 bits of BLAKE2b over the side to move and the four
piece sets in the core's internal squares (0..31, a1 = 0).

It depends on the position alone, not on the move order (transpositions and ballots share
entries), not on the variant's notation (spanish finds the portuguese entries), and not on the
search's Zobrist tables, which may change without invalidating a shipped book. Its definition is
part of the book file format: tests pin the key of the start position.
"""
from __future__ import annotations

import hashlib
import struct

_LAYOUT = struct.Struct("<BIIII")
TB_BOUND = 28000      # |score| above this is a mate or table score, counted in plies (core units)


def _mask(squares) -> int:
    m = 0
    for s in squares:
        m |= 1 << s
    return m


def board_key(board) -> int:
    """The book key of a core board (CoreBoard)."""
    men0, kings0, men1, kings1 = board.pieces()
    raw = _LAYOUT.pack(board.side, _mask(men0), _mask(kings0), _mask(men1), _mask(kings1))
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")


def position_key(position) -> int:
    """The book key of a Position."""
    return board_key(position.board)


def negate(score: int) -> int:
    """A child's score (its side to move's view, core units) seen from the parent's mover: the
    negation, a mate or table result one ply further away."""
    s = -score
    if s > TB_BOUND:
        return s - 1
    if s < -TB_BOUND:
        return s + 1
    return s
