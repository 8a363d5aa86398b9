"""The self-play position record: 24 bytes, little-endian, readable without numpy.

One record per quiet position (neither side can capture):

| field  | type   | meaning                                                               |
|--------|--------|-----------------------------------------------------------------------|
| white  | uint32 | side 0's pieces (the variant's first mover), bit s = internal square s |
| black  | uint32 | side 1's pieces                                                        |
| kings  | uint32 | which of those pieces are kings                                        |
| game   | uint32 | game number (shard * games per shard + index): held-out splits by game |
| score  | int16  | the search score at this position, internal units, side to move's view |
| ply    | uint16 | plies since the start of the game                                      |
| side   | uint8  | side to move (0 or 1)                                                  |
| result | int8   | result for side 0: 1 win, 0 draw, -1 loss                              |
| source | uint8  | 0: the game's result; 1: an endgame table's exact value                |
| pad    | uint8  | 0                                                                      |
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterable, Iterator

RECORD = struct.Struct("<IIIIhHBbBB")
RECORD_SIZE = RECORD.size          # 24
SOURCE_GAME, SOURCE_TABLE = 0, 1


@dataclass(frozen=True)
class Record:
    white: int
    black: int
    kings: int
    game: int
    score: int
    ply: int
    side: int
    result: int
    source: int = SOURCE_GAME

    def pack(self) -> bytes:
        score = max(-32767, min(32767, self.score))
        return RECORD.pack(self.white, self.black, self.kings, self.game, score, self.ply,
                           self.side, self.result, self.source, 0)


def squares_mask(squares: Iterable[int]) -> int:
    """The 32-bit mask of internal squares."""
    m = 0
    for s in squares:
        m |= 1 << s
    return m


def write_records(path, records: Iterable[Record]) -> int:
    """Write records to a file; returns how many."""
    n = 0
    with open(path, "wb") as f:
        for r in records:
            f.write(r.pack())
            n += 1
    return n


def read_records(path) -> Iterator[Record]:
    """Records of a file, in order (for tests and small tools; the trainer reads with numpy)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) % RECORD_SIZE:
        raise ValueError(f"{path}: {len(data)} bytes is not a whole number of records")
    for fields in RECORD.iter_unpack(data):
        w, b, k, g, score, ply, side, result, source, _pad = fields
        yield Record(w, b, k, g, score, ply, side, result, source)
