"""The table file: a fixed header, then a block index and the data, both under one checksum.

Header (little-endian, 104 bytes): magic ``HUBENDTB``, format version, kind (1 run-length encoded
win/draw/loss, 2 raw 2-bit symbols used while building, 3 distance bytes), rule-set name, material
(wm, wk, bm, bk with "w" the side to move), a fingerprint of the rules the table depends on, the
number of positions, the number of blocks and data bytes, the counts of won, drawn, lost and capture
positions, the CRC-32 of the payload and the CRC-32 of the header itself. A file whose size,
checksums, version, rule fingerprint or geometry do not match is refused with a TableFileError that
says why: a damaged table is never trusted. The tables shipped inside the package are the same files
compressed with xz (<slice>.tb.xz).
"""
from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from hub_engine.datafiles import existing, read_bytes, write_atomically

MAGIC = b"HUBENDTB"
VERSION = 1
KIND_WLD, KIND_RAW, KIND_DTC = 1, 2, 3
KIND_NAMES = {KIND_WLD: "wld", KIND_RAW: "raw", KIND_DTC: "dtc"}
_HEAD = struct.Struct("<8sHBB16s4BIQQQQQQQI")
_CRC = struct.Struct("<I")
HEADER_SIZE = _HEAD.size + _CRC.size + 4   # padded to 104: the block index stays 8-byte aligned

MOVE_FIELDS = ("flying", "men_back", "precedence", "crown_mid", "men_take_kings")


class TableFileError(ValueError):
    """A table file that is missing, truncated, damaged or made for other rules."""


def rules_fingerprint(rules: dict, kind: int) -> int:
    """CRC-32 of the rule fields a table of this kind depends on (draw counters: distance only)."""
    fields = rules if kind == KIND_DTC else {k: rules[k] for k in MOVE_FIELDS}
    return zlib.crc32(json.dumps(fields, sort_keys=True).encode())


@dataclass(frozen=True)
class Header:
    kind: int
    ruleset: str
    material: tuple[int, int, int, int]
    fingerprint: int
    size: int
    nblocks: int
    data_len: int
    wins: int
    draws: int
    losses: int
    captures: int
    payload_crc: int


@dataclass(frozen=True)
class TableFile:
    header: Header
    blocks: memoryview       # nblocks little-endian uint64 (run-length tables only)
    data: memoryview


def write_table(path: Path, header: Header, blocks: bytes, data: bytes) -> None:
    """Write atomically (temporary file, fsync, rename): a killed build leaves no half file."""
    crc = zlib.crc32(data, zlib.crc32(blocks))
    head = _HEAD.pack(MAGIC, VERSION, header.kind, 0, header.ruleset.encode().ljust(16, b"\0"),
                      *header.material, header.fingerprint, header.size, len(blocks) // 8,
                      len(data), header.wins, header.draws, header.losses, header.captures, crc)
    write_atomically(path, head, _CRC.pack(zlib.crc32(head)) + b"\0" * 4, blocks, data)


def read_header(raw: bytes, path: Path) -> Header:
    if len(raw) < HEADER_SIZE:
        raise TableFileError(f"{path}: truncated ({len(raw)} bytes, header needs {HEADER_SIZE})")
    fields = _HEAD.unpack_from(raw)
    (magic, version, kind, _res, ruleset, wm, wk, bm, bk, fp, size, nblocks, data_len,
     wins, draws, losses, captures, payload_crc) = fields
    if magic != MAGIC:
        raise TableFileError(f"{path}: not a hub-engine table file")
    if _CRC.unpack_from(raw, _HEAD.size)[0] != zlib.crc32(raw[:_HEAD.size]):
        raise TableFileError(f"{path}: damaged header (checksum mismatch)")
    if version != VERSION:
        raise TableFileError(f"{path}: format version {version}, this engine reads {VERSION}")
    return Header(kind, ruleset.rstrip(b"\0").decode(), (wm, wk, bm, bk), fp, size, nblocks,
                  data_len, wins, draws, losses, captures, payload_crc)


def read_table(path: Path, *, kind: int, ruleset: str, material: tuple, fingerprint: int,
               size: int) -> TableFile:
    """Read and check a whole table file; TableFileError says what is wrong."""
    path = existing(Path(path)) or Path(path)
    raw = read_bytes(path, TableFileError)
    h = read_header(raw, path)
    expected = HEADER_SIZE + 8 * h.nblocks + h.data_len
    if len(raw) != expected:
        raise TableFileError(f"{path}: truncated or padded ({len(raw)} bytes, expected {expected})")
    view = memoryview(raw)
    blocks = view[HEADER_SIZE:HEADER_SIZE + 8 * h.nblocks]
    data = view[HEADER_SIZE + 8 * h.nblocks:]
    if zlib.crc32(data, zlib.crc32(blocks)) != h.payload_crc:
        raise TableFileError(f"{path}: damaged data (checksum mismatch)")
    if h.kind != kind or h.ruleset != ruleset or h.material != tuple(material):
        raise TableFileError(f"{path}: holds {KIND_NAMES.get(h.kind, h.kind)} {h.ruleset} "
                             f"{h.material}, expected {KIND_NAMES[kind]} {ruleset} {tuple(material)}")
    if h.fingerprint != fingerprint:
        raise TableFileError(f"{path}: built for other rules (fingerprint {h.fingerprint:08x}, "
                             f"these rules {fingerprint:08x}): rebuild it")
    if h.size != size:
        raise TableFileError(f"{path}: {h.size} positions, the slice has {size}")
    if kind == KIND_WLD and h.nblocks == 0:
        raise TableFileError(f"{path}: no block index")
    if kind == KIND_RAW and h.data_len != (size + 3) // 4:
        raise TableFileError(f"{path}: raw data of the wrong length")
    if kind == KIND_DTC and h.data_len != size:
        raise TableFileError(f"{path}: distance data of the wrong length")
    return TableFile(h, blocks, data)
